/* test_gbnf.c - the GBNF front end: golden IR dumps, every sample grammar,
 * escapes, classes, tokens, errors with their positions, limits, and
 * allocation failure. Set PDT_UPDATE_GOLDEN=1 to rewrite the golden dumps. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "pda/gbnf.h"
#include "support.h"

static pd_vocab *vocab;

static int setup(void **state) {
  (void)state;
  return pdt_gbnf_vocab(NULL, &vocab) == PD_OK ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  pd_vocab_free(vocab);
  return 0;
}

/* Parses text into a fresh IR; returns the status, err filled. */
static pd_status parse(pd_ir *ir, const char *text, pd_error *err) {
  pd_ir_init(ir, NULL);
  return pd_gbnf_to_ir(ir, text, strlen(text), vocab, err);
}

/* The dump of a grammar that must parse; caller frees with free(). */
static char *dump_of(const char *text) {
  pd_ir ir;
  pd_error err;
  pd_status st = parse(&ir, text, &err);
  if (st != PD_OK) fprintf(stderr, "parse failed: %s (%u:%u)\n", err.message, err.line, err.column);
  assert_int_equal(st, PD_OK);
  char *d = NULL;
  assert_int_equal(pd_ir_dump(&ir, &d), PD_OK);
  char *copy = strdup(d);
  pd__free(ir.alloc, d);
  pd_ir_free(&ir);
  return copy;
}

/* The line "name ::= ..." of a dump must be exactly want. */
static void assert_rule(const char *text, const char *want) {
  char *d = dump_of(text);
  char *line = strstr(d, want);
  if (!line || (line != d && line[-1] != '\n') || line[strlen(want)] != '\n')
    fprintf(stderr, "want line: %s\ndump:\n%s", want, d);
  assert_non_null(line);
  assert_true(line == d || line[-1] == '\n');
  assert_int_equal(line[strlen(want)], '\n');
  free(d);
}

/* ------------------------------------------------------------- golden */

static void check_golden(const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  size_t len;
  char *text = pdt_read_file(path, &len);
  assert_non_null(text);
  char *d = dump_of(text);
  size_t stem = strlen(path) - strlen(".gbnf");
  snprintf(path + stem, sizeof path - stem, ".ir");
  if (getenv("PDT_UPDATE_GOLDEN")) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(d, f);
    fclose(f);
  }
  char *want = pdt_read_file(path, NULL);
  if (!want) fprintf(stderr, "missing golden %s (run with PDT_UPDATE_GOLDEN=1)\n", path);
  assert_non_null(want);
  if (strcmp(want, d) != 0) fprintf(stderr, "%s differs; got:\n%s", path, d);
  assert_string_equal(want, d);
  free(want);
  free(d);
  free(text);
}

static void test_golden(void **state) {
  (void)state;
  const char *dir = PDT_GBNF_DIR "/golden";
  DIR *dd = opendir(dir);
  assert_non_null(dd);
  int n = 0;
  for (struct dirent *e; (e = readdir(dd));) {
    size_t l = strlen(e->d_name);
    if (l > 5 && strcmp(e->d_name + l - 5, ".gbnf") == 0) {
      check_golden(dir, e->d_name);
      n++;
    }
  }
  closedir(dd);
  assert_true(n >= 5);
}

/* ------------------------------------------------------ sample grammars */

static void parse_file(const char *path) {
  size_t len;
  char *text = pdt_read_file(path, &len);
  assert_non_null(text);
  pd_ir ir;
  pd_ir_init(&ir, NULL);
  pd_error err;
  pd_status st = pd_gbnf_to_ir(&ir, text, len, vocab, &err);
  if (st) fprintf(stderr, "%s:%u:%u: %s\n", path, err.line, err.column, err.message);
  assert_int_equal(st, PD_OK);
  assert_int_not_equal(ir.root, PD_IR_NONE);
  assert_string_equal(pd_ir_rule_name(&ir, ir.root), "root");
  pd_ir_free(&ir);
  pd_grammar *g = NULL;
  st = pd_grammar_compile_gbnf(text, len, vocab, NULL, &g, &err);
  if (st) fprintf(stderr, "%s: compile: %s\n", path, err.message);
  assert_int_equal(st, PD_OK);
  pd_grammar_free(g);
  free(text);
}

/* Every grammar llama.cpp ships parses (and, in test_compile, compiles). */
static void test_samples(void **state) {
  (void)state;
  const char *dir = pdt_data("grammars/gbnf");
  if (!dir) skip();
  char base[4096];
  snprintf(base, sizeof base, "%s", dir);
  DIR *dd = opendir(base);
  assert_non_null(dd);
  int n = 0;
  for (struct dirent *e; (e = readdir(dd));) {
    size_t l = strlen(e->d_name);
    if (l <= 5 || strcmp(e->d_name + l - 5, ".gbnf") != 0) continue;
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", base, e->d_name);
    parse_file(path);
    n++;
  }
  closedir(dd);
  assert_int_equal(n, 8);
  const char *sql = pdt_data("grammars/llguidance/from-llama.cpp/vllm-sql.gbnf");
  if (sql) parse_file(sql);
}

/* ------------------------------------------------------------- syntax */

static void test_literal_bytes(void **state) {
  (void)state;
  assert_rule("root ::= \"\\x41\\xFF\\u00e9\"", "root ::= \"A\\xC3\\xBF\\xC3\\xA9\"");
  assert_rule("root ::= \"\\U0001F600\"", "root ::= \"\\xF0\\x9F\\x98\\x80\"");
  assert_rule("root ::= \"a\\\"b\\\\c\\n\"", "root ::= \"a\\x22b\\x5Cc\\x0A\"");
  assert_rule("root ::= \"\"", "root ::= \"\"");
  /* a raw NUL byte inside a literal is a character like any other */
  pd_ir ir;
  pd_ir_init(&ir, NULL);
  assert_int_equal(pd_gbnf_to_ir(&ir, "root ::= \"a\0b\"", 14, NULL, NULL), PD_OK);
  const pd_ir_node *n = pd_ir_at(&ir, ir.rules.data[ir.root].body);
  assert_int_equal(n->kind, PD_IR_BYTES);
  assert_int_equal(n->n, 3);
  assert_memory_equal(ir.bytes.data + n->off, "a\0b", 3);
  pd_ir_free(&ir);
  /* and the position of a later error still counts it */
  pd_error err;
  pd_ir_init(&ir, NULL);
  assert_int_equal(pd_gbnf_to_ir(&ir, "root ::= \"a\0b\" @", 16, NULL, &err), PD_ERR_SYNTAX);
  assert_int_equal(err.column, 16);
  assert_int_equal(err.offset, 15);
  pd_ir_free(&ir);
}

static void test_classes(void **state) {
  (void)state;
  assert_rule("root ::= [a-cx]", "root ::= [a-cx]");
  assert_rule("root ::= [-a-]", "root ::= [\\x2Da]");
  assert_rule("root ::= [^\\x00-\\x09\\x0B-\\U0010FFFF]", "root ::= [\\x0A]");
  assert_rule("root ::= [\\]\\\\]", "root ::= [\\x5C-\\x5D]");
  assert_rule("root ::= []", "root ::= []");
  assert_rule("root ::= [ぁ]", "root ::= [\\u3041]");
  assert_rule("root ::= .", "root ::= [\\x00-\\uD7FF\\uE000-\\U0010FFFF]");
}

static void test_repetition(void **state) {
  (void)state;
  assert_rule("root ::= \"a\"{2,4}", "root ::= \"a\"{2,4}");
  assert_rule("root ::= \"a\"{ 4}", "root ::= \"a\"{4,4}");
  assert_rule("root ::= \"a\" {2, }", "root ::= \"a\"{2,}");
  /* stacked repeats of x* are x* (pda/ir.c) */
  assert_rule("root ::= \"a\"*?", "root ::= \"a\"{0,}");
  assert_rule("root ::= \"a\"+*", "root ::= \"a\"{0,}");
  assert_rule("root ::= \"a\"?*", "root ::= \"a\"{0,}");
  assert_rule("root ::= \"a\"*{2,5}", "root ::= \"a\"{0,}");
  assert_rule("root ::= \"a\"+?", "root ::= \"a\"{0,}"); /* (a+)? and (a?)+ are a* */
  assert_rule("root ::= \"a\"?+", "root ::= \"a\"{0,}");
  assert_rule("root ::= \"a\"+{3,5}", "root ::= \"a\"{3,}");
  assert_rule("root ::= \"a\"?{3,5}", "root ::= \"a\"{0,5}");
  assert_rule("root ::= \"a\"{2}{3}", "root ::= \"a\"{2,2}{3,3}");
  assert_rule("root ::= (\"a\" | \"b\")+ \"c\"", "root ::= ((\"a\" | \"b\"){1,} \"c\")");
  assert_rule("root ::= \"a\"{0}", "root ::= \"\"");
}

static void test_structure(void **state) {
  (void)state;
  assert_rule("root ::= a | b\na ::= \"x\"\nb ::= \"y\"", "root ::= (a | b)");
  assert_rule("root ::= \"a\" |\n  \"b\"", "root ::= (\"a\" | \"b\")");
  assert_rule("root ::= (\n \"a\" # c\n \"b\"\n)", "root ::= (\"a\" \"b\")");
  assert_rule("root ::=\n  \"a\"\r\nx ::= \"b\"\r\n", "x ::= \"b\"");
  assert_rule("root::=\"a\"", "root ::= \"a\"");
  assert_rule("root ::= ()", "root ::= \"\"");
  assert_rule("root ::= | \"a\"", "root ::= (\"\" | \"a\")");
}

/* <[id]>, !<[id]>, and tokens written by their text through the vocabulary. */
static void test_tokens(void **state) {
  (void)state;
  assert_rule("root ::= <[10]> (!<[11]>)* <[11]>", "root ::= (<[10]> !<[11]>{0,} <[11]>)");
  assert_rule("root ::= <think> !</think> <|eot_id|>", "root ::= (<[21]> !<[22]> <[20]>)");
  pd_ir ir;
  pd_error err;
  pd_ir_init(&ir, NULL);
  assert_int_equal(pd_gbnf_to_ir(&ir, "root ::= <think>", 16, NULL, &err), PD_ERR_SEMANTIC);
  assert_non_null(strstr(err.message, "needs a vocabulary"));
  pd_ir_free(&ir);
  pd_ir_init(&ir, NULL);
  assert_int_equal(pd_gbnf_to_ir(&ir, "root ::= <[4000000000]>", 23, NULL, &err), PD_OK);
  pd_ir_free(&ir);
}

/* A stop token or an unused id can never be matched: requiring one is an error. */
static void test_unusable_tokens(void **state) {
  (void)state;
  const uint8_t *tokens[3] = {(const uint8_t *)"a", (const uint8_t *)"</s>", NULL};
  size_t lens[3] = {1, 4, 0};
  uint32_t flags[3] = {0, PD_TOKEN_EOS | PD_TOKEN_SPECIAL, PD_TOKEN_HOLE};
  pd_vocab *v = NULL;
  assert_int_equal(pd_vocab_from_list(tokens, lens, flags, 3, NULL, &v, NULL), PD_OK);
  const char *bad[] = {"root ::= <[1]>", "root ::= </s>", "root ::= \"a\" <[2]>"};
  const char *says[] = {"stop token", "stop token", "not used"};
  for (int i = 0; i < 3; i++) {
    pd_ir ir;
    pd_error err;
    pd_ir_init(&ir, NULL);
    assert_int_equal(pd_gbnf_to_ir(&ir, bad[i], strlen(bad[i]), v, &err), PD_ERR_SEMANTIC);
    assert_non_null(strstr(err.message, says[i]));
    pd_ir_free(&ir);
  }
  pd_ir ir;
  pd_ir_init(&ir, NULL);
  assert_int_equal(pd_gbnf_to_ir(&ir, "root ::= !<[1]> <[0]>", 21, v, NULL), PD_OK);
  pd_ir_free(&ir);
  pd_vocab_free(v);
}

/* ------------------------------------------------------------- errors */

typedef struct err_case {
  const char *text;
  pd_status code;
  uint32_t line, column;
  const char *says;
} err_case;

static const err_case errors[] = {
  {"", PD_ERR_SYNTAX, 1, 1, "empty grammar"},
  {"  # only a comment\n\n", PD_ERR_SYNTAX, 3, 1, "empty grammar"},
  {"root ::= \"abc", PD_ERR_SYNTAX, 1, 10, "unterminated string literal"},
  {"root ::= \"ab\nc\"", PD_ERR_SYNTAX, 1, 10, "expected '\"' before end of line"},
  {"root ::= [abc", PD_ERR_SYNTAX, 1, 10, "unterminated character class"},
  {"root ::= [a-", PD_ERR_SYNTAX, 1, 10, "expected ']'"},
  {"root ::= [z-a]", PD_ERR_SYNTAX, 1, 11, "reversed range"},
  {"root ::= \"a\"{3,2}", PD_ERR_SYNTAX, 1, 13, "minimum exceeds the maximum"},
  {"root ::= \"a\"{,10}", PD_ERR_SYNTAX, 1, 14, "expected a number after '{'"},
  {"root ::= \"a\"{2,x}", PD_ERR_SYNTAX, 1, 16, "expected '}'"},
  {"root ::= \"a\"{2", PD_ERR_SYNTAX, 1, 15, "expected '}'"},
  {"root ::= \"a\"{16777217}", PD_ERR_LIMIT, 1, 14, "max_repeat"},
  {"root ::= \"a\"{99999999999999999999}", PD_ERR_LIMIT, 1, 14, "max_repeat"},
  {"root ::= \"\\q\"", PD_ERR_SYNTAX, 1, 11, "bad escape"},
  {"root ::= \"\\", PD_ERR_SYNTAX, 1, 11, "found end of input"},
  {"root ::= [\\x", PD_ERR_SYNTAX, 1, 13, "expected 2 hex digits, found end of input"},
  {"root ::= \"\\x4\"", PD_ERR_SYNTAX, 1, 14, "expected 2 hex digits"},
  {"root ::= [\\u12G4]", PD_ERR_SYNTAX, 1, 15, "expected 4 hex digits"},
  {"root ::= \"\\U00110000\"", PD_ERR_SYNTAX, 1, 11, "beyond U+10FFFF"},
  {"root ::= \"\\uD800\"", PD_ERR_SYNTAX, 1, 11, "surrogate"},
  {"root ::= \"\xC3\x28\"", PD_ERR_SYNTAX, 1, 11, "invalid UTF-8"},
  {"root ::= \"\xED\xA0\x80\"", PD_ERR_SYNTAX, 1, 11, "invalid UTF-8"},
  {"root ::= \"a\" )", PD_ERR_SYNTAX, 1, 14, "unmatched ')'"},
  {"root ::= \"a\" ::= \"b\"", PD_ERR_SYNTAX, 1, 14, "expected end of line"},
  {"root ::= (\"a\"\n\n  | \"b\"", PD_ERR_SYNTAX, 3, 8, "expected ')' to close the '(' of line 1"},
  {"root ::= \"a\"\n  \"b\"", PD_ERR_SYNTAX, 2, 3, "expected a rule 'name ::= ...'"},
  {"root ::= \"a\"\n  | \"b\"", PD_ERR_SYNTAX, 2, 3, "found '|'"},
  {"root = \"a\"", PD_ERR_SYNTAX, 1, 6, "expected '::=' after the rule name 'root'"},
  {"root ::= * \"a\"", PD_ERR_SYNTAX, 1, 10, "expected an item before '*'"},
  {"root ::= \"a\" | {2}", PD_ERR_SYNTAX, 1, 16, "expected an item before '{'"},
  {"root ::= expr\nexpr ::= term\nterm ::= numero\nnumber ::= [0-9]+", PD_ERR_SEMANTIC, 3, 10,
   "undefined rule 'numero'"},
  {"rot ::= \"a\"", PD_ERR_SEMANTIC, 0, 0, "no rule named 'root'"},
  {"root ::= \"a\"\nroot ::= \"b\"", PD_ERR_SEMANTIC, 2, 1, "defined twice"},
  {"root ::= <nope>", PD_ERR_SEMANTIC, 1, 10, "no token <nope> in the vocabulary"},
  {"root ::= <[288]>", PD_ERR_SEMANTIC, 1, 10, "outside the vocabulary"},
  {"root ::= <[x]>", PD_ERR_SYNTAX, 1, 12, "expected a token id"},
  {"root ::= <[1]", PD_ERR_SYNTAX, 1, 13, "expected ']>'"},
  {"root ::= <think", PD_ERR_SYNTAX, 1, 10, "unterminated token"},
  {"root ::= !\"a\"", PD_ERR_SYNTAX, 1, 11, "expected '<' after '!'"},
  {"root ::= \"a\" @", PD_ERR_SYNTAX, 1, 14, "found '@'"},
};

static void test_errors(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++) {
    const err_case *c = &errors[i];
    pd_ir ir;
    pd_error err;
    pd_status st = parse(&ir, c->text, &err);
    pd_ir_free(&ir);
    if (st != c->code || err.line != c->line || err.column != c->column ||
        !strstr(err.message, c->says))
      fprintf(stderr, "case %zu: got %s %u:%u \"%s\"\n", i, pd_status_str(st), err.line,
              err.column, err.message);
    assert_int_equal(st, c->code);
    assert_int_equal(err.code, c->code);
    assert_int_equal(err.line, c->line);
    assert_int_equal(err.column, c->column);
    assert_non_null(strstr(err.message, c->says));
  }
}

/* Deep parentheses end in a status, never in a stack overflow. */
static void test_depth_limit(void **state) {
  (void)state;
  size_t depth = 100000, len = 9 + 2 * depth + 3;
  char *text = malloc(len + 1);
  assert_non_null(text);
  memcpy(text, "root ::= ", 9);
  memset(text + 9, '(', depth);
  memcpy(text + 9 + depth, "\"a\"", 3);
  memset(text + 12 + depth, ')', depth);
  text[len] = '\0';
  pd_ir ir;
  pd_error err;
  assert_int_equal(parse(&ir, text, &err), PD_ERR_LIMIT);
  assert_int_equal(err.column, 9 + 257);
  assert_non_null(strstr(err.message, "max_depth"));
  pd_ir_free(&ir);
  /* 256 levels are fine */
  memmove(text + 9 + 256, text + 9 + depth, 3);
  memset(text + 12 + 256, ')', 256);
  text[9 + 2 * 256 + 3] = '\0';
  assert_int_equal(parse(&ir, text, &err), PD_OK);
  pd_ir_free(&ir);
  /* stacked postfix operators nest too */
  memset(text + 9 + 3, '*', 1000);
  memcpy(text + 9, "\"a\"", 3);
  text[9 + 3 + 1000] = '\0';
  assert_int_equal(parse(&ir, text, &err), PD_ERR_LIMIT);
  pd_ir_free(&ir);
  free(text);
}

static void test_options(void **state) {
  (void)state;
  const char *g = "start ::= \"(\" inner \")\"\ninner ::= ((\"x\"){5})";
  pd_ir ir;
  pd_error err;
  pd_gbnf_options o = {.root = "start"};
  pd_ir_init(&ir, NULL);
  assert_int_equal(pd_gbnf_to_ir_opts(&ir, g, strlen(g), NULL, &o, &err), PD_OK);
  assert_string_equal(pd_ir_rule_name(&ir, ir.root), "start");
  pd_ir_free(&ir);
  o.max_depth = 1;
  pd_ir_init(&ir, NULL);
  assert_int_equal(pd_gbnf_to_ir_opts(&ir, g, strlen(g), NULL, &o, &err), PD_ERR_LIMIT);
  assert_int_equal(err.line, 2);
  pd_ir_free(&ir);
  o = (pd_gbnf_options){.root = "start", .max_repeat = 4};
  pd_ir_init(&ir, NULL);
  assert_int_equal(pd_gbnf_to_ir_opts(&ir, g, strlen(g), NULL, &o, &err), PD_ERR_LIMIT);
  pd_ir_free(&ir);
  pd_ir_init(&ir, NULL);
  assert_int_equal(pd_gbnf_to_ir(&ir, g, strlen(g), NULL, &err), PD_ERR_SEMANTIC);
  pd_ir_free(&ir);
  pd_ir_init(&ir, NULL);
  assert_int_equal(pd_gbnf_to_ir(&ir, NULL, 3, NULL, &err), PD_ERR_ARG);
  assert_int_equal(pd_gbnf_to_ir(&ir, NULL, 0, NULL, NULL), PD_ERR_SYNTAX);
  pd_ir_free(&ir);
}

/* ------------------------------------------------------ public compile */

/* Whether g accepts exactly text (a complete sentence). */
static bool accepts(const pd_grammar *g, const char *text) {
  pd_matcher *m = NULL;
  assert_int_equal(pd_matcher_new(g, &m, NULL), PD_OK);
  bool ok = pd_matcher_accept_bytes(m, (const uint8_t *)text, strlen(text), NULL, NULL) == PD_OK &&
            pd_matcher_is_accepting(m);
  pd_matcher_free(m);
  return ok;
}

static pd_grammar *compile_ok(const char *text, const pd_grammar_options *o) {
  pd_grammar *g = NULL;
  pd_error err;
  pd_status st = pd_grammar_compile_gbnf(text, strlen(text), vocab, o, &g, &err);
  if (st) fprintf(stderr, "compile: %s\n", err.message);
  assert_int_equal(st, PD_OK);
  return g;
}

/* Left recursion (direct, indirect, hidden behind a nullable rule) is a legal
 * grammar here, unlike in llama.cpp. */
static void test_compile_left_recursion(void **state) {
  (void)state;
  pd_grammar *g = compile_ok("root ::= \"a\" | root \"a\"", NULL);
  assert_true(accepts(g, "aaa"));
  assert_false(accepts(g, ""));
  assert_false(accepts(g, "aab"));
  pd_grammar_free(g);
  g = compile_ok("root ::= asdf\nasdf ::= \"a\" | foo \"b\"\n"
                 "foo ::= \"c\" | empty asdf \"d\" | \"e\"\nempty ::= \"blah\" | ", NULL);
  assert_true(accepts(g, "adb"));
  assert_true(accepts(g, "blahadb"));
  assert_true(accepts(g, "eb"));
  assert_false(accepts(g, "ad"));
  pd_grammar_free(g);
}

static void test_compile_options(void **state) {
  (void)state;
  pd_grammar_options o = {.gbnf_root = "start"};
  pd_grammar *g = compile_ok("start ::= \"x\" other\nother ::= [0-9]{2}", &o);
  assert_true(accepts(g, "x42"));
  assert_false(accepts(g, "x4"));
  pd_grammar_free(g);
  pd_error err;
  const char *bad = "root ::= \"a\"\n  x ::= \"b\" [";
  assert_int_equal(pd_grammar_compile_gbnf(bad, strlen(bad), NULL, NULL, &g, &err), PD_ERR_SYNTAX);
  assert_null(g);
  assert_int_equal(err.line, 2);
  assert_int_equal(err.column, 13);
  assert_int_equal(pd_grammar_compile_gbnf("root ::= \"a\"", 12, NULL, NULL, NULL, &err),
                   PD_ERR_ARG);
  o = (pd_grammar_options){.max_repeat = 10};
  assert_int_equal(pd_grammar_compile_gbnf("root ::= \"a\"{11}", 16, NULL, &o, &g, &err),
                   PD_ERR_LIMIT);
  /* the escapes reach the matcher as UTF-8 */
  g = compile_ok("root ::= \"\\xE9\\u4E2D\" [\\U0001F600-\\U0001F64F]+ .", NULL);
  assert_true(accepts(g, "\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80\n"));
  assert_false(accepts(g, "\xE9\xE4\xB8\xAD\xF0\x9F\x98\x80\n"));
  pd_grammar_free(g);
}

/* ----------------------------------------------------- allocation failure */

/* A mid-size grammar touching every construct. */
static const char *mid_grammar =
    "root ::= ws value ws\n"
    "value ::= object | array | string | number | (\"true\" | \"false\" | \"null\")\n"
    "object ::= \"{\" ws (pair (\",\" ws pair)*)? \"}\"\n"
    "pair ::= string ws \":\" ws value ws\n"
    "array ::= \"[\" ws (value ws (\",\" ws value ws)*)? \"]\"\n"
    "string ::= \"\\\"\" ([^\"\\\\\\x00-\\x1F] |\n"
    "  \"\\\\\" ([\"\\\\/bfnrt] | \"u\" [0-9a-fA-F]{4}))* \"\\\"\"\n"
    "number ::= \"-\"? ([0] | [1-9] [0-9]{0,15}) (\".\" [0-9]+)? ([eE] [-+]? [0-9]+)?\n"
    "ws ::= | \" \" | \"\\n\" [ \\t]{0,20}\n"
    "tok ::= <[21]> (!<[22]>)* <[22]> <[20]> . [^\\u00e9-\\U0001F600]\n";

static void test_alloc_failure(void **state) {
  (void)state;
  long n;
  for (n = 1;; n++) {
    pdt_alloc_reset(n);
    pd_ir ir;
    pd_error err;
    pd_ir_init(&ir, &pdt_allocator);
    pd_status st = pd_gbnf_to_ir(&ir, mid_grammar, strlen(mid_grammar), vocab, &err);
    pd_ir_free(&ir);
    assert_int_equal(pdt_alloc.live, 0);
    if (!pdt_alloc.failed) {
      assert_int_equal(st, PD_OK);
      break;
    }
    assert_int_equal(st, PD_ERR_NOMEM);
    assert_int_equal(err.code, PD_ERR_NOMEM);
  }
  assert_true(n > 10);
}

/* The same through the whole compile (IR, automata, and the token tables when
 * there is a vocabulary), then a matcher over a few bytes. */
static void compile_failing(pd_vocab *v) {
  long n;
  pd_grammar_options o = {.allocator = &pdt_allocator};
  for (n = 1;; n++) {
    pdt_alloc_reset(n);
    pd_grammar *g = NULL;
    pd_error err;
    pd_status st = pd_grammar_compile_gbnf(mid_grammar, strlen(mid_grammar), v, &o, &g, &err);
    if (st == PD_OK) {
      pd_matcher *m = NULL;
      st = pd_matcher_new(g, &m, &err);
      const char *in = " [1, {\"a\": 2}]";
      if (st == PD_OK) st = pd_matcher_accept_bytes(m, (const uint8_t *)in, strlen(in), NULL, &err);
      pd_matcher_free(m);
    }
    pd_grammar_free(g);
    assert_int_equal(pdt_alloc.live, 0);
    if (!pdt_alloc.failed) {
      assert_int_equal(st, PD_OK);
      break;
    }
    if (st != PD_ERR_NOMEM) fprintf(stderr, "n=%ld: %s\n", n, err.message);
    assert_int_equal(st, PD_ERR_NOMEM);
  }
  printf("compile %s vocab: %ld allocation points, each failed in turn\n", v ? "with" : "without",
         n - 1);
  assert_true(n > 10);
}

static void test_alloc_failure_compile(void **state) {
  (void)state;
  compile_failing(NULL);
  compile_failing(vocab);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_golden),       cmocka_unit_test(test_samples),
    cmocka_unit_test(test_literal_bytes), cmocka_unit_test(test_classes),
    cmocka_unit_test(test_repetition),   cmocka_unit_test(test_structure),
    cmocka_unit_test(test_tokens),       cmocka_unit_test(test_unusable_tokens),
    cmocka_unit_test(test_errors),
    cmocka_unit_test(test_depth_limit),  cmocka_unit_test(test_options),
    cmocka_unit_test(test_compile_left_recursion), cmocka_unit_test(test_compile_options),
    cmocka_unit_test(test_alloc_failure), cmocka_unit_test(test_alloc_failure_compile),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
