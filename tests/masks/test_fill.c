/* test_fill.c - every filled mask equals brute force (accept_token of each id),
 * on hand-made vocabularies and grammars (recursive, ambiguous, UTF-8 split
 * across tokens, tokens crossing rule boundaries, special/EOS/hole ids, width
 * past the size) and, sampled, on the shared GBNF grammars with real tokenizers. */
#include "support.h"

#include <pthread.h>
#include <stdio.h>

#include "diff.h"
#include "masks/cache.h"
#include "masks/masks.h"
#include "masks/masks_internal.h"
#include "masks/statekey.h"
#include "pda/grammar.h"

static const char *const pdt__pieces[] = {
    "a", "b", "ab", "ba", "aab", "(", ")", "()", "(a", "a)", ")(", "))", "((", "x", "xy", "y",
    "+", "1", "12", "+1", "1+", " ", "  ", " a", "\"", "\"a", "a\"", "\",", ",", "\"a\"", "\xc3",
    "\xa9", "\xc3\xa9", "\xc3\xa9\xc3", "\xa9x", "\xe2\x82", "\xac", "\xe2\x82\xac", "<eos>",
    "<sp>", "", "hole", "[", "]", "[a", "a]", ",a", "-", "--", "a-", "b+", "ab+", "\n", "{", "}",
    "{}", "\"\"", "\":", ":", "true", "tr", "ue", "null", "0", "01", "e", "E", "\\", "\\u",
    "00", "61", "\\u0061", "\"ab", "\"b\":", "{\"", "\",\"", "!", "a-!)", "a-!]"};
#define PDT_N (sizeof pdt__pieces / sizeof pdt__pieces[0])

/* A vocabulary of pieces[0..n) (at most PDT_N), ids width wide: "<eos>" ends,
 * "<sp>" is special, "hole" a hole. */
static pd_vocab *pdt__vocab_of(const char *const *pieces, size_t n, size_t width) {
  const uint8_t *b[PDT_N];
  size_t lens[PDT_N];
  uint32_t flags[PDT_N] = {0};
  assert_true(n <= PDT_N);
  for (size_t i = 0; i < n; i++) {
    b[i] = (const uint8_t *)pieces[i];
    lens[i] = strlen(pieces[i]);
    if (!strcmp(pieces[i], "<eos>")) flags[i] = PD_TOKEN_EOS | PD_TOKEN_SPECIAL;
    if (!strcmp(pieces[i], "<sp>")) flags[i] = PD_TOKEN_SPECIAL;
    if (!strcmp(pieces[i], "hole")) flags[i] = PD_TOKEN_HOLE;
  }
  pd_vocab_options o = {.width = width};
  pd_vocab *v = NULL;
  assert_int_equal(pd_vocab_from_list(b, lens, flags, n, &o, &v, NULL), PD_OK);
  return v;
}

static pd_vocab *pdt__vocab(void) { return pdt__vocab_of(pdt__pieces, PDT_N, PDT_N + 37); }

static const char *const pdt__grammars[] = {
    /* recursive, nested */
    "root ::= \"(\" root \")\" root | \"\"",
    /* left recursion */
    "root ::= root \"+\" num | num\nnum ::= [0-9]+",
    /* ambiguous */
    "root ::= a a | a\na ::= \"a\" | \"a\" \"a\" | \"ab\" | \"\"",
    /* UTF-8 classes split across tokens */
    "root ::= [^\"x]* \"x\"",
    "root ::= (\"\xc3\xa9\" | [\xe2\x82\xac] | \"a\")+",
    /* a rule ends inside a token */
    "root ::= str (\",\" str)* \n str ::= \"\\\"\" [a-z]* \"\\\"\"",
    "root ::= item+\nitem ::= \"a\" | \"b\" | \"-\" item",
    /* json-like with whitespace */
    "root ::= value\nvalue ::= obj | arr | \"true\" | \"null\" | num | s\n"
    "obj ::= \"{\" ws ( s ws \":\" ws value ( \",\" ws s ws \":\" ws value )* )? \"}\" ws\n"
    "arr ::= \"[\" ws ( value ( \",\" ws value )* )? \"]\" ws\n"
    "s ::= \"\\\"\" [^\"]* \"\\\"\"\nnum ::= \"-\"? [0-9]+ ([eE] [0-9]+)?\nws ::= [ \\n]*",
    /* nullable chains and repetition bounds */
    "root ::= x{2,5} y?\nx ::= \"a\" | \"b\"? \nly ::= \"y\"\ny ::= ly ly",
    /* a special token named by a token edge, and its negation */
    "root ::= \"a\" <[39]> \"b\" | !<[0]> \"x\"",
    /* r's start takes its class from c's (the same language past the first
     * byte) only where the two rules have the same lookahead: "a-!)" ends r
     * before ")", which may follow r but not c */
    "root ::= r \")\" | \"[\" c \"]\"\nr ::= [a-z] c \"!\"\nc ::= [a-z] c \"!\" | \"-\"",
    /* heirs in a cycle: root's start, its first byte's state, and that
     * state's heir, root's start again (classified once, found by fuzz_mask) */
    "root ::= [^] [^ x] root | \"x\"",
    /* a donor beside the walk (classify.c): x's start takes its class from
     * the letters' loop, and "a-" reaches that loop's state; yet x may end
     * after "a" and "-" follows x, so "a-!)" is context-dependent there and
     * accepted (x = "a", then "-!)"), where from the loop it dies */
    "root ::= x \"-!)\" | x \")\"\nx ::= (\"a\" | [a-z\\-]+ \"q\") e\ne ::= \".\" e | \"\"",
};

/* walks random walks of steps tokens over g, each mask against brute force. */
static void pdt__walks(pd_grammar *g, const pd_vocab *v, size_t walks, size_t steps,
                       uint64_t *rng, pdt_diff *d) {
  for (size_t w = 0; w < walks; w++) {
    pd_matcher *m = NULL;
    assert_int_equal(pd_matcher_new(g, &m, NULL), PD_OK);
    assert_int_equal(pdt_diff_walk(m, v, steps, rng, d), PD_OK);
    pd_matcher_free(m);
  }
}

static void pdt__check_as(pd_vocab *v, const char *gbnf, bool schema, bool any_order,
                          size_t walks, size_t steps, pdt_diff *d) {
  pd_grammar *g = NULL;
  pd_error err;
  pd_grammar_options o = {.any_order = any_order};
  pd_status st = schema ? pd_grammar_compile_json_schema(gbnf, strlen(gbnf), v, &o, &g, &err)
                        : pd_grammar_compile_gbnf(gbnf, strlen(gbnf), v, NULL, &g, &err);
  if (st != PD_OK) {
    printf("compile failed (%s): %s\n", err.message, gbnf);
    return;
  }
  uint64_t rng = 42;
  size_t before = d->differences;
  pdt__walks(g, v, walks, steps, &rng, d);
  if (d->differences != before) printf("difference (token %u) in: %s\n", d->first_bad_token, gbnf);
  pd_grammar_free(g);
}

static void pdt__check(pd_vocab *v, const char *gbnf, size_t walks, size_t steps, pdt_diff *d) {
  pdt__check_as(v, gbnf, false, false, walks, steps, d);
}

/* Every GBNF grammar of gbnf[0..ng) and schema of schemas[0..ns) (declared
 * order) against brute force: at least min masks compared, none different. */
static void pdt__check_lists(pd_vocab *v, const char *const *gbnf, size_t ng,
                             const char *const *schemas, size_t ns, size_t walks, size_t steps,
                             const char *what, size_t min) {
  pdt_diff d = {0};
  for (size_t i = 0; i < ng; i++) pdt__check(v, gbnf[i], walks, steps, &d);
  for (size_t i = 0; i < ns; i++) pdt__check_as(v, schemas[i], true, false, walks, steps, &d);
  printf("%s: %zu masks compared, %zu differences\n", what, d.masks, d.differences);
  assert_true(d.masks > min);
  assert_int_equal(d.differences, 0);
}

static void pdt__check_schemas(pd_vocab *v, const char *const *list, size_t n, size_t walks,
                               size_t steps, const char *what, size_t min) {
  pdt__check_lists(v, NULL, 0, list, n, walks, steps, what, min);
}

static void test_fill_small(void **state) {
  (void)state;
  pd_vocab *v = pdt__vocab();
  pdt_diff d = {0};
  for (size_t i = 0; i < sizeof pdt__grammars / sizeof *pdt__grammars; i++)
    pdt__check(v, pdt__grammars[i], 20, 30, &d);
  printf("small: %zu masks compared, %zu differences\n", d.masks, d.differences);
  assert_true(d.masks > 100);
  assert_int_equal(d.differences, 0);
  pd_vocab_free(v);
}

/* The memo key elides tail calls (memo.c): a right recursion is one
 * configuration at every depth, so its mask is memoized once, and still
 * equals brute force deep down; a call with work after it (here the "b"
 * owed to each "a") is not elided, so depths stay apart. */
static void test_fill_tail_calls(void **state) {
  (void)state;
  pd_vocab *v = pdt__vocab();
  const char *const gs[2] = {"root ::= \"[\" items \"]\"\nitems ::= \"a\" items | \"b\" items | \"\"",
                             "root ::= \"[\" items \"]\"\nitems ::= \"a\" items \"b\" | \"\""};
  size_t n_words = (pd_vocab_width(v) + 31) / 32;
  uint32_t *row = calloc(n_words, 4), *brute = calloc(n_words, 4), open, a;
  assert_non_null(row);
  assert_non_null(brute);
  assert_int_equal(pd_vocab_find(v, (const uint8_t *)"[", 1, &open), PD_OK);
  assert_int_equal(pd_vocab_find(v, (const uint8_t *)"a", 1, &a), PD_OK);
  for (int k = 0; k < 2; k++) {
    pd_grammar *g = NULL;
    pd_matcher *m = NULL;
    assert_int_equal(pd_grammar_compile_gbnf(gs[k], strlen(gs[k]), v, NULL, &g, NULL), PD_OK);
    assert_int_equal(pd_matcher_new(g, &m, NULL), PD_OK);
    assert_int_equal(pd_matcher_accept_token(m, open, NULL), PD_OK);
    const uint32_t *at3 = NULL, *at60 = NULL;
    for (int depth = 1; depth <= 60; depth++) {
      const uint32_t *entry = NULL;
      assert_int_equal(pd_matcher_accept_token(m, a, NULL), PD_OK);
      assert_int_equal(pd_masks_fill_entry(m, row, n_words, &entry, NULL), PD_OK);
      assert_int_equal(pdt_brute_mask(m, pd_vocab_size(v), brute, n_words), PD_OK);
      assert_memory_equal(row, brute, n_words * sizeof *row);
      if (depth == 3) at3 = entry;
      if (depth == 60) at60 = entry;
    }
    assert_non_null(at3);
    assert_non_null(at60);
    if (k == 0) assert_ptr_equal(at3, at60); /* one configuration */
    else assert_ptr_not_equal(at3, at60);   /* sixty "b" owed, not three */
    pd_matcher_free(m);
    pd_grammar_free(g);
  }
  /* the root's tail calls are kept: after "xab" the input may end, after
   * "(ab" a "y" is owed, though below the root both wait on r the same way */
  const char *root_tail = /* recursive rules, so that none is copied into its callers */
      "root ::= \"x\" p | \"(\" q\np ::= r | q | \"[\" p\nq ::= r \"y\" | \"]\" q\n"
      "r ::= \"a\" \"b\" | \"a\" r";
  /* one caller waits on p or on q, each of which tail-calls v: the elided
   * chain must still say which, for the tokens that end v and go on ("("
   * follows p, ")" follows q: after "xay" the token ")(" is taken, "))" not) */
  const char *which = "root ::= \"x\" p \"(\" | \"x\" q \")\"\np ::= \"a\" v | \"[\" p\n"
                      "q ::= \"b\" v | \"[\" q\nv ::= \"y\" \")\" | \"y\" v";
  const char *const grammars[2] = {root_tail, which};
  const char *const paths[2][2] = {{"xa", "(a"}, {"xay", "xby"}};
  for (int k = 0; k < 2; k++) {
    const uint32_t *entries[2] = {NULL, NULL};
    pd_grammar *g = NULL;
    pd_matcher *m = NULL;
    assert_int_equal(pd_grammar_compile_gbnf(grammars[k], strlen(grammars[k]), v, NULL, &g, NULL),
                     PD_OK);
    assert_int_equal(pd_matcher_new(g, &m, NULL), PD_OK);
    for (int p = 0; p < 2; p++) {
      uint32_t t;
      pd_matcher_reset(m);
      for (const char *c = paths[k][p]; *c; c++) {
        assert_int_equal(pd_vocab_find(v, (const uint8_t *)c, 1, &t), PD_OK);
        assert_int_equal(pd_matcher_accept_token(m, t, NULL), PD_OK);
      }
      assert_int_equal(pd_masks_fill_entry(m, row, n_words, &entries[p], NULL), PD_OK);
      assert_int_equal(pdt_brute_mask(m, pd_vocab_size(v), brute, n_words), PD_OK);
      assert_memory_equal(row, brute, n_words * sizeof *row);
      assert_non_null(entries[p]);
    }
    assert_ptr_not_equal(entries[0], entries[1]);
    pd_matcher_free(m);
    pd_grammar_free(g);
  }
  free(row);
  free(brute);
  pd_vocab_free(v);
}

/* A state's context-dependent tokens are decided through chains of callers
 * (pair.c): here four rules call one another in a ring, each with a closer
 * of its own after the call, so tokens end one to seven rules ("x$#@!$#");
 * some close in the wrong order ("x#"), some end at a byte only a rule
 * further out may take (";" follows l1 alone). Past PD_PAIR_DEPTH callers
 * the rest is walked. Masks equal brute force, through the table and
 * without it (a grammar whose table is full walks). */
static void test_fill_callers(void **state) {
  (void)state;
  static const char *const pieces[] = {
      "1", "2", "3", "4", "x", "y", "z", "w", "!", "@", "#", "$", ";", "x$", "x$#", "x$#@",
      "x$#@!", "x$#@!$", "x$#@!$#", "x$#@!$#@!;", "y!", "y!$", "y!$#@!", "z@!", "w#@", "x#",
      "x@$", "$#@!$#@!", "!;", "@!;", "1x$", "2y!$", "#@", "w#@!;", "z@!$#", "#@!;", "!$;",
      "3z@", "x!", "x;", "y!;", "z@!;", "w#@!$"};
  enum { N = sizeof pieces / sizeof *pieces };
  const uint8_t *b[N];
  size_t lens[N];
  for (size_t i = 0; i < N; i++) b[i] = (const uint8_t *)pieces[i], lens[i] = strlen(pieces[i]);
  pd_vocab *v = NULL;
  assert_int_equal(pd_vocab_from_list(b, lens, NULL, N, NULL, &v, NULL), PD_OK);
  const char *ring = "root ::= l1 \";\" root | l1\nl1 ::= \"1\" l2 \"!\" | \"x\"\n"
                     "l2 ::= \"2\" l3 \"@\" | \"y\"\nl3 ::= \"3\" l4 \"#\" | \"z\"\n"
                     "l4 ::= \"4\" l1 \"$\" | \"w\"";
  for (int full = 0; full < 2; full++) {
    pd_grammar *g = NULL;
    assert_int_equal(pd_grammar_compile_gbnf(ring, strlen(ring), v, NULL, &g, NULL), PD_OK);
    pd_masks *mk = g->masks;
    if (full) mk->pair_bytes = SIZE_MAX / 2; /* no room: every cd set is walked */
    pdt_diff d = {0};
    uint64_t rng = 7;
    pdt__walks(g, v, 40, 60, &rng, &d);
    printf("callers%s: %zu masks compared, %zu differences, %zu caller classes\n",
           full ? " (table full)" : "", d.masks, d.differences, mk->n_pairs);
    assert_true(d.masks > 1000);
    assert_int_equal(d.differences, 0);
    if (full) assert_int_equal(mk->n_pairs, 0);
    else assert_true(mk->n_pairs > 10);
    pd_grammar_free(g);
  }
  pd_vocab_free(v);
}

/* Two threads walk matchers of one fresh grammar at once, so classes and
 * caller classes are made while the other thread reads the tables (run
 * under TSan too); every mask still equals brute force. */
typedef struct pdt__walker {
  pd_grammar *g;
  pd_vocab *v;
  uint64_t seed;
  pdt_diff d;
} pdt__walker;

static void *pdt__walk_thread(void *arg) {
  pdt__walker *w = arg;
  for (int i = 0; i < 12; i++) {
    pd_matcher *m = NULL;
    if (pd_matcher_new(w->g, &m, NULL) != PD_OK) return NULL;
    pdt_diff_walk(m, w->v, 50, &w->seed, &w->d);
    pd_matcher_free(m);
  }
  return NULL;
}

static void test_fill_callers_threads(void **state) {
  (void)state;
  pd_vocab *v = pdt__vocab();
  const char *gbnf = pdt__grammars[7]; /* json-like: strings end inside tokens ("\",") */
  pd_grammar *g = NULL;
  assert_int_equal(pd_grammar_compile_gbnf(gbnf, strlen(gbnf), v, NULL, &g, NULL), PD_OK);
  pdt__walker w[2] = {{g, v, 11, {0}}, {g, v, 12, {0}}};
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, pdt__walk_thread, &w[1]), 0);
  pdt__walk_thread(&w[0]);
  assert_int_equal(pthread_join(th, NULL), 0);
  printf("two threads: %zu + %zu masks compared, %zu differences, %zu caller classes\n",
         w[0].d.masks, w[1].d.masks, w[0].d.differences + w[1].d.differences,
         g->masks->n_pairs);
  assert_true(w[0].d.masks > 100 && w[1].d.masks > 100);
  assert_int_equal(w[0].d.differences + w[1].d.differences, 0);
  pd_grammar_free(g);
  pd_vocab_free(v);
}

/* Long repetitions lower to blocks in two phases (pda.h): walks long enough to
 * cross block and phase boundaries, near the bounds too. */
static void test_fill_long_repeats(void **state) {
  (void)state;
  static const char *const rep[] = {
      "root ::= [abxy]{0,70} \"+\" | \"(\" [ab]{37,40} \")\"",
      "root ::= (\"a\" | \"b\" | \"\xc3\xa9\"){5,45} \"\\\"\"",
      "root ::= [^\"]{33,} \"\\\"\" | \"x\"{64}",
      "root ::= (\"ab\"{1,3} \"x\"?){2,40} \")\"",
      "root ::= s (\",\" s){0,90}\ns ::= \"\\\"\" [a-z]{1,35} \"\\\"\"",
  };
  pd_vocab *v = pdt__vocab();
  pdt_diff d = {0};
  for (size_t i = 0; i < sizeof rep / sizeof *rep; i++) pdt__check(v, rep[i], 12, 90, &d);
  printf("long repeats: %zu masks compared, %zu differences\n", d.masks, d.differences);
  assert_true(d.masks > 500);
  assert_int_equal(d.differences, 0);
  pd_vocab_free(v);
}

/* Long strings over a vocabulary of every string of 1-3 letters (8,000 of
 * them, and a quote): near the end of a block most tokens may outlive it, so
 * the row's cd sets pass the bound past which their drop is kept by the
 * grammar (drop.c); walks come back to the same rows block after block, so
 * kept drops are read again, and each mask still equals brute force. */
static void test_fill_kept_drops(void **state) {
  (void)state;
  enum { L = 20, N = L + L * L + L * L * L + 1 };
  static char text[N][4];
  const uint8_t *b[N];
  size_t lens[N], n = 0;
  for (int len = 1; len <= 3; len++)
    for (int x = 0; x < (len == 1 ? L : len == 2 ? L * L : L * L * L); x++) {
      for (int i = 0, y = x; i < len; i++, y /= L) text[n][i] = (char)('a' + y % L);
      b[n] = (const uint8_t *)text[n], lens[n++] = (size_t)len;
    }
  b[n] = (const uint8_t *)"\"", lens[n++] = 1;
  pd_vocab_options o = {.width = N};
  pd_vocab *v = NULL;
  assert_int_equal(pd_vocab_from_list(b, lens, NULL, n, &o, &v, NULL), PD_OK);
  const char *gbnf = "root ::= \"\\\"\" [a-s]{0,300} \"\\\"\"";
  pd_grammar *g = NULL;
  assert_int_equal(pd_grammar_compile_gbnf(gbnf, strlen(gbnf), v, NULL, &g, NULL), PD_OK);
  pdt_diff d = {0};
  uint64_t rng = 7;
  pdt__walks(g, v, 3, 70, &rng, &d);
  printf("kept drops: %zu masks compared, %zu differences, %zu bytes kept\n", d.masks,
         d.differences, g->masks->drop_bytes);
  assert_true(d.masks > 100);
  assert_true(g->masks->drop_bytes > 0);
  assert_int_equal(d.differences, 0);
  pd_grammar_free(g);
  pd_vocab_free(v);
}

/* Objects with additional properties: every state of a key-complement trie
 * is classified from a donor (classify.h), walking only the first bytes where
 * the two differ; escapes spell declared names too. */
static const char *const pdt__schemas[] = {
    "{\"type\":\"object\",\"properties\":{\"ab\":{\"type\":\"string\"},"
    "\"b\":{\"type\":\"integer\"}}}",
    "{\"properties\":{\"a\":{\"type\":\"boolean\"},\"aab\":{\"type\":\"null\"},\"ba\":{}},"
    "\"required\":[\"a\"]}",
    "{\"properties\":{\"ab\":{\"properties\":{\"b\":{\"type\":\"array\",\"items\":{\"type\":"
    "\"integer\"}}}}},\"additionalProperties\":{\"type\":\"integer\"}}",
    /* patterns and names in one automaton, a key rule per state
     * (schema_object.c): past their first byte, the states that left the
     * names' trie share the language of the rest of the key (classify.c) */
    "{\"properties\":{\"ab\":{\"type\":\"integer\"},\"ba\":{\"type\":\"boolean\"}},"
    "\"patternProperties\":{\"^x\":{\"type\":\"null\"}},"
    "\"additionalProperties\":{\"type\":\"string\"}}",
    /* no declared names: keys call the shared string rule, and the tokens
     * that close a key are decided through the member's rule (pair.c) */
    "{\"additionalProperties\":{\"additionalProperties\":{\"type\":\"integer\"},"
    "\"maxProperties\":2},\"minProperties\":1}",
};

/* Positions of a string with a length take a donor's class for the tokens
 * without a quote up to the nearer maximum (classify.c: before the minimum the
 * positions differ at once, where a quote may close them): tokens longer than
 * the trie's long-list threshold, quotes inside, at the end, escaped. */
static const char *const pdt__long_pieces[] = {
    "a", "b", "ab", "aaaa", "abababab", "aaaaaaaaa", "bbbbbbbbbbbb", "abcdefghijklmnop",
    "\"", "\"a", "a\"", "aaaaaaaaa\"", "\"aaaaaaaaaa", "aaaa\"bbbb", "aaaaaaaaaaaa\",\"",
    "\",", ",", "{", "}", "\":", ":", "{\"", "\\u0061", "\\\"", "aaaaaaa\\\"a",
    "\xc3\xa9", "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", "s", "\"s\":\"", "<eos>"};

static void test_fill_string_lengths(void **state) {
  (void)state;
  size_t n = sizeof pdt__long_pieces / sizeof *pdt__long_pieces;
  pd_vocab *v = pdt__vocab_of(pdt__long_pieces, n, n);
  static const char *const schemas[] = {
      "{\"type\":\"string\",\"minLength\":6,\"maxLength\":30}",
      "{\"type\":\"object\",\"properties\":{\"s\":{\"type\":\"string\",\"minLength\":3,"
      "\"maxLength\":20}},\"required\":[\"s\"]}",
      "{\"type\":\"array\",\"items\":{\"type\":\"string\",\"minLength\":12,\"maxLength\":14}}"};
  pdt__check_schemas(v, schemas, sizeof schemas / sizeof *schemas, 40, 25, "string lengths", 500);
  pd_vocab_free(v);
}

/* A key's name is a narrow path (classify.c): its tokens are found by binary
 * search in the trie, with escapes beside each character, and past
 * PD__NARROW_DEPTH bytes (64) the plain walk goes on from the pushed rows. A
 * literal of 100 bytes before a call (so the Earley walk classifies it), and
 * tokens that end on it, leave it, or run past its end. */
static void test_fill_narrow(void **state) {
  (void)state;
  static char a64[65], a70[71], a100b[102], a99[100];
  memset(a64, 'a', 64), memset(a70, 'a', 70), memset(a99, 'a', 99), memset(a100b, 'a', 100);
  a100b[100] = 'b';
  const char *pieces[] = {"a", "aa", "aaaa", a64, a70, a99, a100b, "ab", "b", "c", "ac",
                          "\\u0061", "\\u00", "\"", "\":", "x", "<eos>"};
  size_t n = sizeof pieces / sizeof *pieces;
  pd_vocab *v = pdt__vocab_of(pieces, n, n);
  char g[300];
  snprintf(g, sizeof g, "root ::= \"%s\" x\nx ::= \"b\" | \"c\" x", a99);
  pdt_diff d = {0};
  pdt__check(v, g, 30, 40, &d);
  assert_true(d.masks > 100);
  assert_int_equal(d.differences, 0);
  static const char *const schemas[] = {
      "{\"properties\":{\"aaaa\":{\"type\":\"integer\"},\"ab\":{\"type\":\"string\"}},"
      "\"required\":[\"ab\"]}"};
  pdt__check_schemas(v, schemas, 1, 30, 20, "narrow keys", 100);
  pd_vocab_free(v);
}

static void test_fill_schema(void **state) {
  (void)state;
  pd_vocab *v = pdt__vocab();
  pdt_diff d = {0};
  for (int any = 0; any < 2; any++) /* declared order, then any order (other rules) */
    for (size_t i = 0; i < sizeof pdt__schemas / sizeof *pdt__schemas; i++)
      pdt__check_as(v, pdt__schemas[i], true, any, 30, 30, &d);
  printf("schemas: %zu masks compared, %zu differences\n", d.masks, d.differences);
  assert_true(d.masks > 600);
  assert_int_equal(d.differences, 0);
  pd_vocab_free(v);
}

/* Caller classes are kept by the vocabulary, keyed by the places of the
 * state and its return states (pair.c): these grammars share the member rule
 * of "a" (and the string below it) but not the rules around it, so the
 * later ones find the classes of the first where the chain stays in shared
 * rules and must make their own past it. Each grammar's masks still equal
 * brute force, and the later grammars find entries the first one stored. */
static void test_fill_shared_pairs(void **state) {
  (void)state;
  static const char *const schemas[] = {
      "{\"properties\":{\"a\":{\"type\":\"string\"},\"b\":{\"type\":\"integer\"}},"
      "\"additionalProperties\":false}",
      "{\"properties\":{\"a\":{\"type\":\"string\"},\"c\":{\"type\":\"boolean\"}},"
      "\"required\":[\"a\"],\"additionalProperties\":false}",
      "{\"type\":\"array\",\"items\":{\"properties\":{\"a\":{\"type\":\"string\"}},"
      "\"additionalProperties\":false}}",
  };
  pd_vocab *v = pdt__vocab();
  pdt_diff d = {0};
  pd_cache_stats s0, s1;
  pdt__check_as(v, schemas[0], true, false, 20, 30, &d);
  pd_vocab_cache_stats(v, &s0);
  for (int round = 0; round < 2; round++) /* the second round finds everything */
    for (size_t i = 1; i < sizeof schemas / sizeof *schemas; i++)
      pdt__check_as(v, schemas[i], true, false, 20, 30, &d);
  pd_vocab_cache_stats(v, &s1);
  printf("shared pairs: %zu masks compared, %zu differences; hits %zu -> %zu\n", d.masks,
         d.differences, s0.hits, s1.hits);
  assert_true(d.masks > 200);
  assert_int_equal(d.differences, 0);
  assert_true(s1.hits > s0.hits);
  pd_vocab_free(v);
}

/* A grammar compiled again over the same vocabulary takes the classes of its
 * first compile from the cache's snapshot: the masks stay exact, including
 * states the first compile never needed (classified on first use again). */
static void test_fill_snapshot(void **state) {
  (void)state;
  pd_vocab *v = pdt__vocab();
  pd_mask_cache *c = NULL;
  assert_int_equal(pd_mask_cache_get(v, &c, NULL), PD_OK);
  pdt_diff d = {0};
  for (int pass = 0; pass < 3; pass++) {
    for (size_t i = 0; i < sizeof pdt__grammars / sizeof *pdt__grammars; i++)
      pdt__check(v, pdt__grammars[i], pass == 0 ? 2 : 10, 25, &d);
    if (pass == 0) assert_true(c->n_snap_entries > 0);
  }
  assert_true(d.masks > 500);
  assert_int_equal(d.differences, 0);
  pd_vocab_free(v);
}

/* Past the cache's memory bound the grammar keeps its own classes: same masks,
 * and the cache stays under the bound. A tight bound on interned closures too
 * makes some keys write every callee out (statekey.h): masks stay exact; so
 * does a bound on a closure's length, and no room for snapshots. The schemas
 * compile twice: the second compile reads the snapshot of the first, which
 * must hold none of the first grammar's own classes, also where a state
 * shares a donor's (a key complement, classify.h), or they are read freed. */
static void test_fill_bounded_cache(void **state) {
  (void)state;
  for (int tight = 0; tight < 3; tight++) {
    pd_vocab *v = pdt__vocab();
    pd_mask_cache *c = NULL;
    assert_int_equal(pd_mask_cache_get(v, &c, NULL), PD_OK);
    c->max_bytes = 600;
    if (tight == 1) c->max_intern_bytes = 200, c->max_full_key = 24; /* some states go keyless */
    if (tight == 2) c->max_closure = 16, c->max_snap_bytes = 0;
    pdt_diff d = {0};
    for (size_t i = 0; i < sizeof pdt__grammars / sizeof *pdt__grammars; i++)
      pdt__check(v, pdt__grammars[i], 5, 20, &d);
    for (int pass = 0; pass < 2; pass++)
      for (size_t i = 0; i < sizeof pdt__schemas / sizeof *pdt__schemas; i++)
        pdt__check_as(v, pdt__schemas[i], true, false, 5, 20, &d);
    assert_true(c->bytes <= 600);
    assert_true(c->intern_bytes <= (tight == 1 ? 200 : c->max_intern_bytes));
    if (tight == 2) assert_int_equal(c->n_snap_entries, 0);
    assert_true(d.masks > 50);
    assert_int_equal(d.differences, 0);
    pd_cache_stats cs;
    pd_vocab_cache_stats(v, &cs);
    assert_int_equal(cs.limit, 600);
    assert_true(cs.bytes <= 600 && cs.misses > 0);
    pd_vocab_free(v);
  }
}

/* pd_vocab_options.cache_bytes sets the bound the stats report. */
static void test_fill_cache_option(void **state) {
  (void)state;
  const uint8_t *b[PDT_N];
  size_t lens[PDT_N];
  for (size_t i = 0; i < PDT_N; i++) {
    b[i] = (const uint8_t *)pdt__pieces[i];
    lens[i] = strlen(pdt__pieces[i]);
  }
  pd_vocab_options o = {.width = PDT_N, .cache_bytes = 1u << 20};
  pd_vocab *v = NULL;
  assert_int_equal(pd_vocab_from_list(b, lens, NULL, PDT_N, &o, &v, NULL), PD_OK);
  pd_cache_stats cs;
  pd_vocab_cache_stats(v, &cs);
  assert_int_equal(cs.limit, 1u << 20);
  assert_int_equal(cs.classes, 0);
  pdt_diff d = {0};
  pdt__check(v, pdt__grammars[7], 2, 10, &d); /* the JSON-like grammar */
  pdt__check(v, pdt__grammars[7], 2, 10, &d); /* again: found in the cache */
  pd_vocab_cache_stats(v, &cs);
  assert_true(cs.classes > 0 && cs.bytes > 0 && cs.bytes <= cs.limit);
  assert_true(cs.misses >= cs.classes); /* the second compile reads its snapshot */
  assert_int_equal(d.differences, 0);
  pd_vocab_free(v);
}

/* Sampled: a few short walks per grammar and tokenizer (brute force costs a
 * full pass over the vocabulary per mask). */
/* The masks after each of the given lengths of text, against brute force. */
static void pdt__check_text(pd_vocab *v, const char *schema, const char *text, const size_t *cuts,
                            size_t n_cuts, pdt_diff *d) {
  pd_grammar *g = NULL;
  pd_matcher *m = NULL;
  assert_int_equal(pd_grammar_compile_json_schema(schema, strlen(schema), v, NULL, &g, NULL), PD_OK);
  assert_int_equal(pd_matcher_new(g, &m, NULL), PD_OK);
  size_t n_words = (pd_vocab_width(v) + 31) / 32, at = 0;
  uint32_t *fast = calloc(n_words, 4), *slow = calloc(n_words, 4);
  assert_true(fast && slow);
  for (size_t c = 0; c < n_cuts; c++) {
    size_t ok = 0;
    assert_int_equal(pd_matcher_accept_bytes(m, (const uint8_t *)text + at, cuts[c] - at, &ok, NULL),
                     PD_OK);
    at = cuts[c];
    assert_int_equal(pd_matcher_fill_bitmask(m, fast, n_words, NULL, NULL), PD_OK);
    assert_int_equal(pdt_brute_mask(m, pd_vocab_size(v), slow, n_words), PD_OK);
    d->masks++;
    for (size_t w = 0; w < n_words; w++) d->differences += (size_t)__builtin_popcount(fast[w] ^ slow[w]);
  }
  free(fast);
  free(slow);
  pd_matcher_free(m);
  pd_grammar_free(g);
}

static void test_fill_real(void **state) {
  (void)state;
  static const char *const toks[] = {"llama3", "qwen3", "gemma3", "gpt4o"};
  static const char *const grammars[] = {"json.gbnf", "arithmetic.gbnf", "list.gbnf"};
  pdt_diff d = {0};
  for (size_t t = 0; t < 4; t++) {
    char rel[256];
    snprintf(rel, sizeof rel, "tokenizers/%s/tokenizer.json", toks[t]);
    const char *path = pdt_data(rel);
    if (!path) skip();
    pd_vocab *v = NULL;
    if (pd_vocab_load_hf(path, NULL, NULL, &v, NULL) != PD_OK) continue;
    for (size_t g = t % 3; g < 3; g += 3) {
      snprintf(rel, sizeof rel, "grammars/gbnf/%s", grammars[g]);
      const char *gp = pdt_data(rel);
      if (!gp) continue;
      char *text = pdt_read_file(gp, NULL);
      pdt__check(v, text, 1, 3, &d);
      free(text);
    }
    if (t == 0) { /* key states of a real vocabulary, from donors */
      pdt__check_as(v, pdt__schemas[0], true, false, 2, 6, &d);
      pdt__check_as(v, pdt__schemas[3], true, false, 2, 6, &d);
      /* a key searched for 32 hex digits: its Earley walks meet more rows
       * than the walk by configurations interns, and go on by pushes */
      static const char text[] = "{\"0123456789abcdef0123456789abcdef\": true";
      static const size_t cuts[] = {2, 10, 34, 35, 36};
      pdt__check_text(v, "{\"patternProperties\": {\"[0-9a-f]{32}\": {\"type\": \"boolean\"}}}", text,
                      cuts, 5, &d);
    }
    pd_vocab_free(v);
  }
  printf("real: %zu masks compared, %zu differences\n", d.masks, d.differences);
  assert_int_equal(d.differences, 0);
}

/* A vocabulary of the n strings, then an EOS token "<eos>". */
static pd_vocab *pdt__strings_vocab(const char *const *strs, size_t n) {
  const uint8_t **b = calloc(n + 1, sizeof *b);
  size_t *lens = calloc(n + 1, sizeof *lens);
  uint32_t *flags = calloc(n + 1, sizeof *flags);
  assert_true(b && lens && flags);
  for (size_t i = 0; i < n; i++) b[i] = (const uint8_t *)strs[i], lens[i] = strlen(strs[i]);
  b[n] = (const uint8_t *)"<eos>", lens[n] = 5, flags[n] = PD_TOKEN_EOS | PD_TOKEN_SPECIAL;
  pd_vocab *v = NULL;
  assert_int_equal(pd_vocab_from_list(b, lens, flags, n + 1, NULL, &v, NULL), PD_OK);
  free(b);
  free(lens);
  free(flags);
  return v;
}

/* Caller classes through one call site at several depths: in nested arrays
 * a string's callers are the same return state (after an element), one array
 * further out each time, so a chain of callers is that state again and again.
 * A parse through such a chain must tell the frames apart: "\"]]]" ends
 * three arrays, and only the third caller's end leaves the chain. The
 * string's cd set (a quote, then closers and separators) holds more than
 * the 16 tokens past which a parse walks by configurations (classify.c),
 * where an item of a caller keeps the mark of its frame. */
static void test_fill_nested_callers(void **state) {
  (void)state;
  static const char *const pieces[] = {
      "[", "[[", "[[[", "[[[[", "[\"", "[[\"", "[[[\"", "\"", "a", "b", "ab", "ba", ",", ",\"",
      "\",", "\",\"", ",[", "],[", "]", "]]", "]]]", "]]]]", "],", "]],", "[]", "[[]]", "\"]",
      "\"]]", "\"],", "\"]],", "\"],\"", "\"]],\"", "\"],[", "\"]],[", "\",[", "a\"", "a\"]",
      "a\"]]", "a\",", "b\",\"", "\"\""};
  /* and a letter or two, a quote and three closers or more: enough for the
   * parses through two and three callers to walk by configurations too */
  static const char *const letters[] = {"", "a", "b", "ab"};
  static const char *const closers[] = {"]]]", "]]]]", "]]]]]", "]]],", "]]]],", "]]],\""};
  /* and words no state takes: a caller class is made for a cd set kept as
   * a list of ids, which a set takes when it is smaller than a bitset of the
   * vocabulary, so the vocabulary must be some 32 times the set */
  enum { N0 = sizeof pieces / sizeof *pieces, NL = 4, NC = 6, NF = 2048, N = N0 + NL * NC + NF };
  static char made[NL * NC + NF][16];
  static const char *strs[N];
  for (size_t i = 0; i < N0; i++) strs[i] = pieces[i];
  for (size_t i = 0; i < NL * NC + NF; i++) {
    if (i < NL * NC) snprintf(made[i], sizeof made[i], "%s\"%s", letters[i / NC], closers[i % NC]);
    else snprintf(made[i], sizeof made[i], "~%zu", i);
    strs[N0 + i] = made[i];
  }
  pd_vocab *v = pdt__strings_vocab(strs, N);
  const char *nest = "root ::= arr\narr ::= \"[\" ( val ( \",\" val )* )? \"]\"\n"
                     "val ::= arr | str\nstr ::= \"\\\"\" [a-z]* \"\\\"\"";
  pd_grammar *g = NULL;
  assert_int_equal(pd_grammar_compile_gbnf(nest, strlen(nest), v, NULL, &g, NULL), PD_OK);
  pdt_diff d = {0};
  uint64_t rng = 11;
  /* first a mask inside a string three to seven arrays deep (ids of pieces), then at random */
  static const uint32_t deep[][4] = {{2, 7, 8, UINT32_MAX}, {3, 6, 10, UINT32_MAX}, {0, 1, 6, 9}};
  for (size_t i = 0; i < sizeof deep / sizeof *deep; i++) {
    pd_matcher *m = NULL;
    assert_int_equal(pd_matcher_new(g, &m, NULL), PD_OK);
    for (size_t j = 0; j < 4 && deep[i][j] != UINT32_MAX; j++)
      assert_int_equal(pd_matcher_accept_token(m, deep[i][j], NULL), PD_OK);
    assert_int_equal(pdt_diff_walk(m, v, 1, &rng, &d), PD_OK);
    pd_matcher_free(m);
  }
  pdt__walks(g, v, 120, 40, &rng, &d);
  printf("nested callers: %zu masks compared, %zu differences, %zu caller classes\n", d.masks,
         d.differences, g->masks->n_pairs);
  assert_int_equal(d.differences, 0);
  assert_true(d.masks > 1000);
  assert_true(g->masks->n_pairs > 10);
  pd_grammar_free(g);
  pd_vocab_free(v);
}

/* Every string of 1 to 4 of ten bytes that JSON text mixes (quotes,
 * escapes, separators): 11,110 tokens, most beginning with a byte a string
 * takes, enough for the survivors' pass (classify.c). */
static pd_vocab *pdt__dense_vocab(void) {
  static const char alphabet[] = "ab\"\\u0:, }";
  enum { A = sizeof alphabet - 1, N = A + A * A + A * A * A + A * A * A * A };
  static char text[N][5];
  static const char *strs[N];
  size_t n = 0;
  for (size_t len = 1; len <= 4; len++) {
    size_t count = 1;
    for (size_t i = 0; i < len; i++) count *= A;
    for (size_t x = 0; x < count; x++, n++) {
      for (size_t i = 0, y = x; i < len; i++, y /= A) text[n][i] = alphabet[y % A];
      text[n][len] = 0;
      strs[n] = text[n];
    }
  }
  return pdt__strings_vocab(strs, n);
}

/* Two bytes after a whitespace rule (follow.h): tokens that run from the
 * whitespace into a word ("  the", "\ntr", " Qza") are rejected at
 * classification where the word's second byte may not follow, else left to
 * the walk; every mask still equals brute force. */
/* A state whose part of its rule is long is keyed by its place in the rule's
 * interned closure (statekey.h), and where that closure is too long to
 * intern (PD_MASK_CACHE_MAX_CLOSURE words: a rule of 2,000 random words, one
 * automaton state for most letters), by its part written out after all. */
static void test_fill_unplaced(void **state) {
  (void)state;
  enum { NW = 2000, LEN = 10, NT = 29 + 300 };
  static char words[NW][LEN + 1], toks[NT][LEN + 3];
  static const char *strs[NT];
  uint64_t rng = 5;
  size_t cap = 64 + (size_t)NW * (LEN + 5), n = 0; /* each | "word" */
  char *gbnf = malloc(cap);
  assert_non_null(gbnf);
  n += (size_t)snprintf(gbnf, cap, "root ::= \"[\" word ( \",\" word )* \"]\"\nword ::= ");
  for (size_t i = 0; i < NW; i++) {
    for (size_t j = 0; j < LEN; j++) words[i][j] = (char)('a' + pdt_lcg(&rng) % 26);
    n += (size_t)snprintf(gbnf + n, cap - n, "%s\"%s\"", i ? " | " : "", words[i]);
  }
  /* the letters, the brackets and the comma, then whole words, some with a
   * comma or a bracket */
  for (size_t i = 0; i < NT; i++) {
    const char *w = words[pdt_lcg(&rng) % NW], *sep[] = {"", ",", "]", "["};
    size_t k = i % 4;
    if (i < 26) toks[i][0] = (char)('a' + i);
    else if (i < 29) toks[i][0] = "[,]"[i - 26];
    else snprintf(toks[i], sizeof toks[i], "%s%s%s", k == 3 ? sep[3] : "", w, k < 3 ? sep[k] : "");
    strs[i] = toks[i];
  }
  pd_vocab *v = pdt__strings_vocab(strs, NT);
  pd_grammar *g = NULL;
  assert_true(n < cap);
  assert_int_equal(pd_grammar_compile_gbnf(gbnf, n, v, NULL, &g, NULL), PD_OK);
  free(gbnf);
  pdt_diff d = {0};
  pdt__walks(g, v, 100, 24, &rng, &d);
  size_t longest = 0; /* a long part keyed by its place would take a few dozen words */
  for (uint32_t r = 0; r < g->pda.n_rules; r++) { /* the words' rule's start has them all */
    const uint32_t *key;
    size_t kn;
    uint64_t h;
    uint32_t s = pd_pda_rules(&g->pda)[r].start;
    assert_int_equal(pd_statekey_get(g->masks->sk, s, &key, &kn, &h, NULL), PD_OK);
    if (kn > longest) longest = kn;
  }
  printf("unplaced: %zu masks compared, %zu differences, longest key %zu words\n", d.masks,
         d.differences, longest);
  assert_int_equal(d.differences, 0);
  assert_true(d.masks > 500);
  assert_true(longest > 4096);
  pd_grammar_free(g);
  pd_vocab_free(v);
}

static void test_fill_two_bytes(void **state) {
  (void)state;
  static const char *const spaces[] = {"", " ", "\n", "  ", " \n"};
  static const char *const words[] = {"t", "tr", "true", "the", "to", "tx", "txa", "f", "fa",
                                      "false", "fo", "n", "nu", "null", "no", "x", "Xy", "ab",
                                      "b", "Q", "Qz", "Qza", ",", ")", "(", "[", "]", "!", "1",
                                      "12", "\"", "{", "}", ":", "<", "a", "c", "-"};
  static const char *const ends[] = {"", ",", ")", " ", "\n", "\""};
  enum { NS = 5, NW = sizeof words / sizeof *words, NE = 6, N = NS * NW * NE };
  static char text[N][16];
  static const char *strs[N];
  size_t n = 0;
  for (size_t i = 0; i < NS; i++)
    for (size_t j = 0; j < NW; j++)
      for (size_t e = 0; e < NE; e++, n++) {
        snprintf(text[n], sizeof text[n], "%s%s%s", spaces[i], words[j], ends[e]);
        strs[n] = text[n];
      }
  pd_vocab *v = pdt__strings_vocab(strs, n);
  static const char *const grammars[] = {
      "root ::= \"(\" ws list ws \")\" | item ws end?\nlist ::= item (ws \",\" ws item)* | opt\n"
      "opt ::= \"to\" ws2 | \"the\" | \"<\" opt\nitem ::= \"true\" | \"tx\" [a-c]* | "
      "\"[\" ws2 list? ws2 \"]\" | [0-9]+ | opt | opt \"Qz\"\nend ::= \"!\"\n"
      "ws ::= [ \\t\\n]*\nws2 ::= [ ]*",
      "root ::= (ws (\"null\" | \"fa\" [a-z]* | \"x\"))+ ws\nws ::= (\"\\n\" [ ]*)?",
  };
  static const char *const schemas[] = {
      "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"boolean\"},\"b\":{\"type\":"
      "[\"null\",\"integer\"]},\"c\":{\"type\":\"array\",\"items\":{\"enum\":[true,\"to\"]}}}}",
      "{\"type\":\"array\",\"items\":{\"type\":[\"boolean\",\"null\"]}}",
  };
  pdt__check_lists(v, grammars, sizeof grammars / sizeof *grammars, schemas,
                   sizeof schemas / sizeof *schemas, 12, 30, "two bytes", 200);
  pd_vocab_free(v);
}

/* The survivors' pass: a state that loops over most bytes (a string's
 * interior, the any* before a search's pattern) takes the tokens its own
 * automaton keeps alive as accepted and walks only the others through the
 * Earley rows (a quote, an escape, what follows the string). */
static void test_fill_survivors(void **state) {
  (void)state;
  static const char *const schemas[] = {
      /* patterns too long to copy into the string's rule: searched from a
       * rule of their own (regex.c), beside the loop */
      "{\"type\":\"string\",\"pattern\":\"a[ab]{70}\"}",
      "{\"type\":\"array\",\"items\":{\"type\":\"string\",\"pattern\":\"(ab|ba){40}\"}}",
      "{\"additionalProperties\":{\"type\":\"string\",\"pattern\":\"b{70}:\"}}",
      "{\"type\":\"array\",\"items\":{\"type\":\"string\"}}",
  };
  pd_vocab *v = pdt__dense_vocab();
  pdt__check_schemas(v, schemas, sizeof schemas / sizeof *schemas, 6, 30, "survivors", 300);
  pd_vocab_free(v);
}

/* A vocabulary of concatenated pieces (seeded): many tokens end with the same
 * rest after different prefixes, the case of the candidate walk's suffix memo
 * (masks/suffix.h), which may share a verdict only when the rows a rest starts
 * from hold the same items and no item started inside the token. */
static pd_vocab *pdt__suffix_vocab(void) {
  static const char *const pieces[] = {"a", "b", "c", "d", "ab", "cd", "x", "y", "\"", "\",",
                                       ",", "]", ")", "}", ":", "\":", "[", "(", "{", "\"a\"",
                                       "\"b\"", "cc", "dx", "dy", "d]", "\"]", "\"}"};
  enum { NP = sizeof pieces / sizeof *pieces, N = 1500 };
  static char text[N][32];
  size_t n = 0;
  uint64_t rng = 7;
  static const char *const pre[] = {"a", "b", "ab", "\"", "\"a", "\"b", "[\""};
  static const char *const mid[] = {"c", "cc", "cd", "ccd", "a", "ab", "abc"};
  static const char *const end[] = {"x]",   "y]",   "dx]",  "dy)",  "d!", "d)",
                                    "d}",   "\"]", "\",", "\"}", "\":"};
  for (size_t i = 0; i < NP; i++) snprintf(text[n++], sizeof text[0], "%s", pieces[i]);
  for (size_t i = 0; i < sizeof pre / sizeof *pre; i++)
    for (size_t j = 0; j < sizeof mid / sizeof *mid; j++)
      for (size_t k = 0; k < sizeof end / sizeof *end; k++)
        snprintf(text[n++], sizeof text[0], "%s%s%s", pre[i], mid[j], end[k]);
  while (n < N) {
    uint32_t r = pdt_lcg(&rng), k = 2 + r % 3;
    char *t = text[n];
    t[0] = 0;
    for (uint32_t j = 0; j < k; j++) {
      strcat(t, pieces[pdt_lcg(&rng) % NP]);
    }
    bool seen = false;
    for (size_t i = 0; i < n && !seen; i++) seen = !strcmp(text[i], t);
    if (!seen) n++;
  }
  const char *strs[N];
  for (size_t i = 0; i < N; i++) strs[i] = text[i];
  return pdt__strings_vocab(strs, N);
}

/* Random walks where every mask is also made by the trie walk over all
 * tokens (pd_masks_fill_walk, the fill of rows without tables), each compared
 * with brute force on the text tokens. */
static void pdt__check_walk(pd_vocab *v, const char *text, bool schema, size_t walks,
                            size_t steps, pdt_diff *d) {
  pd_grammar *g = NULL;
  pd_error err;
  pd_status st = schema ? pd_grammar_compile_json_schema(text, strlen(text), v, NULL, &g, &err)
                        : pd_grammar_compile_gbnf(text, strlen(text), v, NULL, &g, &err);
  assert_int_equal(st, PD_OK);
  pd_mask_cache *c = NULL;
  assert_int_equal(pd_mask_cache_get(v, &c, NULL), PD_OK);
  size_t size = pd_vocab_size(v), n_words = (pd_vocab_width(v) + 31) / 32;
  uint32_t *walk = calloc(n_words, 4), *brute = calloc(n_words, 4), *ids = calloc(size, 4);
  const uint32_t *eos;
  size_t n_eos = pd_vocab_eos(v, &eos);
  uint64_t rng = 11;
  for (size_t w = 0; w < walks; w++) {
    pd_matcher *m = NULL;
    assert_int_equal(pd_matcher_new(g, &m, NULL), PD_OK);
    for (size_t step = 0; step < steps; step++) {
      memset(walk, 0, n_words * 4);
      assert_int_equal(pd_masks_fill_walk(m, c, true, walk), PD_OK);
      assert_int_equal(pdt_brute_mask(m, size, brute, n_words), PD_OK);
      for (size_t e = 0; e < n_eos; e++) brute[eos[e] / 32] &= ~(1u << (eos[e] % 32));
      d->masks++;
      size_t n = 0;
      for (uint32_t t = 0; t < size; t++) {
        bool want = (brute[t / 32] >> (t % 32)) & 1, got = (walk[t / 32] >> (t % 32)) & 1;
        if (want != got && !d->differences++) d->first_bad_token = t;
        if (want) ids[n++] = t;
      }
      if (!n) break;
      assert_int_equal(pd_matcher_accept_token(m, ids[pdt_lcg(&rng) % n], NULL), PD_OK);
    }
    pd_matcher_free(m);
  }
  free(walk);
  free(brute);
  free(ids);
  pd_grammar_free(g);
}

static void test_fill_suffix(void **state) {
  (void)state;
  static const char *const grammars[] = {
      /* s starts inside tokens like "acd!": the rows after "ac" and "bc" are
       * the same items, but the rest "d!" is taken after one only ('!' sorts
       * first, so the walk looks the rest up from the row after "ac") */
      "root ::= w\nw ::= \"[\" (t | w) \"!\" | \"(\" (t | w) \")\" | \"{\" (t | w) \"}\"\n"
      "t ::= \"a\" s | \"b\" s \"y\" | \"ab\" s (\"x\" | \"y\")\n"
      "s ::= \"c\" \"d\" | \"c\" s \"d\" | \"cc\"",
      /* bounded strings: the closing rest is shared by every prefix */
      "root ::= \"[\" s (\",\" s)* \"]\"\ns ::= \"\\\"\" [a-d]{0,3} \"\\\"\"",
      "root ::= \"{\" p (\",\" p)* \"}\"\np ::= s \":\" (s | \"[\" s? \"]\" | root)\n"
      "s ::= \"\\\"\" [a-dxy]{1,4} \"\\\"\"",
  };
  static const char *const schemas[] = {
      "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\",\"maxLength\":3},"
      "\"b\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"maxLength\":2}}},"
      "\"required\":[\"a\"],\"additionalProperties\":false}",
      "{\"type\":\"array\",\"items\":{\"anyOf\":[{\"type\":\"string\",\"pattern\":\"^[ab]+$\"},"
      "{\"$ref\":\"#\"}]},\"maxItems\":3}",
  };
  pd_vocab *v = pdt__suffix_vocab();
  pdt_diff d = {0}, dw = {0};
  for (size_t i = 0; i < sizeof grammars / sizeof *grammars; i++) {
    pdt__check(v, grammars[i], 8, 25, &d);
    pdt__check_walk(v, grammars[i], false, 12, 12, &dw);
  }
  for (size_t i = 0; i < sizeof schemas / sizeof *schemas; i++) {
    pdt__check_as(v, schemas[i], true, false, 8, 25, &d);
    pdt__check_walk(v, schemas[i], true, 6, 12, &dw);
  }
  printf("suffixes: %zu masks compared, %zu differences; walks: %zu masks, %zu differences\n",
         d.masks, d.differences, dw.masks, dw.differences);
  assert_true(d.masks > 200 && dw.masks > 100);
  assert_int_equal(d.differences, 0);
  assert_int_equal(dw.differences, 0);
  pd_vocab_free(v);
}

/* One compile + fill under an allocator that fails its n-th allocation. */
static pd_status pdt__nomem_round(const char *gbnf) {
  const uint8_t *b[PDT_N];
  size_t lens[PDT_N];
  for (size_t i = 0; i < PDT_N; i++) {
    b[i] = (const uint8_t *)pdt__pieces[i];
    lens[i] = strlen(pdt__pieces[i]);
  }
  pd_vocab_options o = {.allocator = &pdt_allocator, .width = PDT_N + 5};
  pd_vocab *v = NULL;
  pd_grammar *g = NULL;
  pd_matcher *m = NULL;
  uint32_t row[4];
  pd_status st = pd_vocab_from_list(b, lens, NULL, PDT_N, &o, &v, NULL);
  if (st == PD_OK) st = pd_grammar_compile_gbnf(gbnf, strlen(gbnf), v, NULL, &g, NULL);
  if (st == PD_OK) st = pd_matcher_new(g, &m, NULL);
  if (st == PD_OK) st = pd_matcher_accept_bytes(m, (const uint8_t *)"(a", 2, NULL, NULL);
  if (st == PD_OK) st = pd_matcher_fill_bitmask(m, row, 4, NULL, NULL);
  pd_matcher_free(m);
  pd_grammar_free(g);
  pd_vocab_free(v);
  return st;
}

/* Tokens up to 48 bytes (runs and mixes of a few letters, a space, a quote, a
 * comma and a two-byte letter), seeded: long enough for the classes of the
 * positions of a bounded string to come from a donor for the shorter tokens
 * (the two automata agree for some bytes, classify.c) and from the walk of the
 * long ones only. */
static pd_vocab *pdt__long_vocab(void) {
  static const char *const pieces[] = {"a", "b", "c", " ", "\"", ",", "\xc3\xa9", "ab", "  "};
  enum { NP = sizeof pieces / sizeof *pieces, N = 2500 };
  static char text[N][64];
  size_t n = 0;
  uint64_t rng = 5;
  for (size_t i = 0; i < NP; i++) snprintf(text[n++], sizeof text[0], "%s", pieces[i]);
  for (int len = 2; len <= 40; len++) /* a run, then a comma: rule ends at every depth */
    for (int tail = 0; tail < 2; tail++)
      snprintf(text[n++], sizeof text[0], "%.*s,%s", len,
               "cacacacacacacacacacacacacacacacacacacacaca", tail ? "a" : "");
  while (n < N) {
    uint32_t r = pdt_lcg(&rng), len = 2 + r % 47, run = r / 64 % 3 == 0;
    char *t = text[n];
    size_t at = 0;
    while (at < len) {
      const char *p = pieces[run ? r / 256 % NP : pdt_lcg(&rng) % NP];
      if (at + strlen(p) > len) break;
      memcpy(t + at, p, strlen(p));
      at += strlen(p);
    }
    t[at] = 0;
    bool seen = at == 0;
    for (size_t i = 0; i < n && !seen; i++) seen = !strcmp(text[i], t);
    if (!seen) n++;
  }
  const char *strs[N];
  for (size_t i = 0; i < N; i++) strs[i] = text[i];
  return pdt__strings_vocab(strs, N);
}

static void test_fill_long_tokens(void **state) {
  (void)state;
  static const char *const grammars[] = {
      "root ::= \"\\\"\" [a-c ]{0,30} \"\\\"\" (\",\" root)?",
      "root ::= ([ab ] | \"\xc3\xa9\"){4,29} \",\" | \"c\"{9,31} \"\\\"\"",
      "root ::= (\"ab\" | \"c\" | \" \"){0,25} \"\\\"\" root?",
      /* n is called (too heavy to copy): its positions end it at different
       * depths before they differ in what they take */
      "root ::= n (\",\" n)* \"\\\"\"\nn ::= [ace gikmoqsuwy]{5,28}",
      "root ::= n (\",\" n)* \"\\\"\"\nn ::= [ace gikmoqsuwy]{17,30}",
  };
  static const char *const schemas[] = {
      "{\"type\":\"array\",\"items\":{\"type\":\"string\",\"maxLength\":30}}",
      "{\"type\":\"string\",\"minLength\":3,\"maxLength\":24}",
  };
  pd_vocab *v = pdt__long_vocab();
  pdt__check_lists(v, grammars, sizeof grammars / sizeof *grammars, schemas,
                   sizeof schemas / sizeof *schemas, 6, 40, "long tokens", 300);
  pd_vocab_free(v);
}

/* Out of memory anywhere in building the tables or filling is a status, and
 * leaks nothing (the vocab's cache included). */
static void test_fill_nomem(void **state) {
  (void)state;
  const char *gbnf = "root ::= \"(\" root \")\" | [a-z]+ (\",\" root)?";
  for (long n = 1;; n++) {
    pdt_alloc_reset(n);
    pd_status st = pdt__nomem_round(gbnf);
    assert_true(st == PD_OK || st == PD_ERR_NOMEM);
    assert_int_equal(pdt_alloc.live, 0);
    if (!pdt_alloc.failed) {
      assert_int_equal(st, PD_OK);
      break;
    }
  }
}

/* The checks of a grammar's masks along random walks: each walk's masks
 * against brute force, then a fork's mask, some tokens rolled back (*rolled
 * counts them) and the walk again, and speculative rows (memo transitions)
 * against the masks of a matcher that accepts the drafts. */
static void pdt__walk_checks(const pd_grammar *g, const pd_vocab *v, uint64_t rng, size_t walks,
                             size_t steps, uint32_t *fast, uint32_t *slow, size_t n_words,
                             pdt_diff *d, size_t *rolled) {
  uint32_t *rows = calloc(9 * n_words, 4), *ids = calloc(pd_vocab_size(v), 4);
  assert_true(rows && ids);
  for (size_t w = 0; w < walks; w++) {
    pd_matcher *m = NULL;
    assert_int_equal(pd_matcher_new(g, &m, NULL), PD_OK);
    assert_int_equal(pdt_diff_walk(m, v, steps, &rng, d), PD_OK);
    pd_matcher *f = NULL;
    assert_int_equal(pd_matcher_fork(m, &f, NULL), PD_OK);
    assert_int_equal(pd_matcher_fill_bitmask(f, fast, n_words, NULL, NULL), PD_OK);
    assert_int_equal(pd_matcher_fill_bitmask(m, slow, n_words, NULL, NULL), PD_OK);
    assert_memory_equal(fast, slow, n_words * 4);
    size_t back = 1 + w % 4;
    if (pd_matcher_rollback(m, back, NULL) == PD_OK) {
      ++*rolled;
      assert_int_equal(pd_matcher_fill_bitmask(m, fast, n_words, NULL, NULL), PD_OK);
      assert_int_equal(pdt_brute_mask(m, pd_vocab_size(v), slow, n_words), PD_OK);
      if (memcmp(fast, slow, n_words * 4)) d->differences++;
      assert_int_equal(pdt_diff_walk(m, v, 6, &rng, d), PD_OK);
    }
    pd_matcher_free(f);
    pd_matcher_free(m);
  }
  /* speculative rows (memo transitions, whose keys a counted row never
   * names) against the masks of a matcher that accepts the drafts */
  for (size_t w = 0; w < 20; w++) {
    uint32_t drafts[8];
    size_t k = 0, offsets[2], valid[1], unc[9];
    pd_matcher *m = NULL, *r = NULL;
    assert_int_equal(pd_matcher_new(g, &m, NULL), PD_OK);
    assert_int_equal(pd_matcher_new(g, &r, NULL), PD_OK);
    for (; k < 8; k++) { /* a path the grammar takes, long tokens likely */
      assert_int_equal(pd_matcher_fill_bitmask(r, fast, n_words, NULL, NULL), PD_OK);
      uint32_t n = 0;
      for (uint32_t t = 0; t + 1 < pd_vocab_size(v); t++)
        if (fast[t / 32] >> (t % 32) & 1) ids[n++] = t;
      if (!n || pd_matcher_accept_token(r, drafts[k] = ids[pdt_lcg(&rng) % n], NULL)) break;
    }
    pd_matcher_free(r);
    assert_int_equal(pd_matcher_new(g, &r, NULL), PD_OK);
    for (int pass = 0; pass < 2; pass++) { /* the second follows the memo's transitions */
      pd_spec_request req = {m, drafts, k, NULL};
      pd_spec_result res = {rows, n_words, offsets, valid, unc, 0};
      assert_int_equal(pd_spec_fill(&req, 1, 1, &res, NULL), PD_OK);
      assert_int_equal(valid[0], k);
      pd_matcher_reset(r);
      for (size_t j = 0; j <= k; j++) {
        assert_int_equal(pd_matcher_fill_bitmask(r, slow, n_words, NULL, NULL), PD_OK);
        if (memcmp(rows + j * n_words, slow, n_words * 4)) d->differences++;
        if (j < k) assert_int_equal(pd_matcher_accept_token(r, drafts[j], NULL), PD_OK);
      }
      d->masks += k + 1;
    }
    pd_matcher_free(m);
    pd_matcher_free(r);
  }
  free(rows);
  free(ids);
}

/* Counted strings (a maxLength far past the minimum, earley.h): tokens up to
 * 141 bytes cross the bounds in a few steps, so the masks meet rooms past
 * the longest token (tables alone), below it (tables, then the long tokens
 * checked), below PD_MASK_LONG (the walk) and two counted items in one row
 * (anyOf), and a pattern's count; after each walk some tokens are rolled
 * back and the mask compared again, and a fork must give the same masks. */
static void test_fill_counted(void **state) {
  (void)state;
  static char runs[6][160];
  memset(runs[0], 'a', 70), memset(runs[1], 'b', 100), memset(runs[2], 'a', 140);
  runs[3][0] = '"', memset(runs[3] + 1, 'a', 90);
  memset(runs[4], 'b', 80), runs[4][80] = '"';
  for (int i = 0; i < 40; i++) memcpy(runs[5] + 2 * i, "\xc3\xa9", 2);
  const char *const strs[] = {"a", "b", "ab", "\"", "\"a", "a\"", "\",", "\xc3\xa9", "\\n",
                              "\\u0061", "{", "}", ":", ",", "\"s\":", "\"t\":", "[", "]",
                              "\"]", runs[0], runs[1], runs[2], runs[3], runs[4], runs[5]};
  static const char *const schemas[] = {
      "{\"type\":\"string\",\"maxLength\":130}",
      "{\"type\":\"string\",\"minLength\":3,\"maxLength\":140}",
      "{\"type\":\"object\",\"properties\":{\"s\":{\"type\":\"string\",\"maxLength\":150},"
      "\"t\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":200}},\"required\":[\"s\"],"
      "\"additionalProperties\":false}",
      "{\"anyOf\":[{\"type\":\"string\",\"maxLength\":129},"
      "{\"type\":\"string\",\"minLength\":5,\"maxLength\":300}]}",
      "{\"type\":\"array\",\"items\":{\"type\":\"string\",\"maxLength\":128}}",
      /* a pattern whose automaton times the counts is past the product's
       * budget: the maximum counted (schema_string.c), the minimum in it */
      "{\"type\":\"string\",\"pattern\":\"abababababababababababababab|b\\\"\",\"minLength\":2,"
      "\"maxLength\":200}"};
  pd_vocab *v = pdt__strings_vocab(strs, sizeof strs / sizeof *strs);
  size_t n_words = (pd_vocab_width(v) + 31) / 32;
  uint32_t *fast = calloc(n_words, 4), *slow = calloc(n_words, 4);
  assert_true(fast && slow);
  pdt_diff d = {0};
  size_t rolled = 0;
  for (size_t i = 0; i < sizeof schemas / sizeof *schemas; i++) {
    pd_grammar *g = NULL;
    pd_error err;
    if (pd_grammar_compile_json_schema(schemas[i], strlen(schemas[i]), v, NULL, &g, &err))
      fail_msg("%s: %s", schemas[i], err.message);
    assert_true(g->pda.n_counted > 0);
    pdt__walk_checks(g, v, 7 + i, 40, 12, fast, slow, n_words, &d, &rolled);
    if (d.differences)
      fail_msg("%s: %zu differences (first token %u), in walks or speculative rows", schemas[i],
               d.differences, d.first_bad_token);
    pd_grammar_free(g);
  }
  { /* positions 0 and 70 of a maxLength 300 string share a key (room capped),
     * yet "a"*140 leaves 90 units from one and 90 - 70 from the other: the
     * second batch must not follow a transition the first recorded */
    const char *s300 = "{\"type\":\"string\",\"maxLength\":300}";
    pd_grammar *g = NULL;
    assert_int_equal(pd_grammar_compile_json_schema(s300, strlen(s300), v, NULL, &g, NULL), PD_OK);
    const uint32_t path[] = {3, 19, 19, 21}, first[] = {19, 21}, second[] = {21};
    for (int b = 0; b < 2; b++) {
      pd_matcher *m = NULL, *r = NULL;
      assert_int_equal(pd_matcher_new(g, &m, NULL), PD_OK);
      assert_int_equal(pd_matcher_new(g, &r, NULL), PD_OK);
      size_t at = b ? 3 : 1, k = b ? 1 : 2, offsets[2], valid[1], unc[3];
      uint32_t rows[3 * 2];
      for (size_t j = 0; j < at; j++) assert_int_equal(pd_matcher_accept_token(m, path[j], NULL), PD_OK);
      pd_spec_request req = {m, b ? second : first, k, NULL};
      pd_spec_result res = {rows, n_words, offsets, valid, unc, 0};
      assert_int_equal(pd_spec_fill(&req, 1, 1, &res, NULL), PD_OK);
      for (size_t j = 0; j < at; j++) assert_int_equal(pd_matcher_accept_token(r, path[j], NULL), PD_OK);
      for (size_t j = 0; j <= k; j++) { /* row j: after j drafts */
        assert_int_equal(pd_matcher_fill_bitmask(r, slow, n_words, NULL, NULL), PD_OK);
        assert_memory_equal(rows + j * n_words, slow, n_words * 4);
        if (j < k) assert_int_equal(pd_matcher_accept_token(r, req.drafts[j], NULL), PD_OK);
      }
      pd_matcher_free(m);
      pd_matcher_free(r);
    }
    pd_grammar_free(g);
  }
  printf("counted: %zu masks compared over %zu tokens, %zu rollbacks, %zu differences\n", d.masks,
         d.tokens, rolled, d.differences);
  assert_true(d.masks > 1000 && rolled > 50);
  free(fast);
  free(slow);
  pd_vocab_free(v);
}

/* Set rules (earley.h): an object of 16 required properties in any order,
 * two optional ones that may repeat and no others. Its masks come from the
 * parser alone: against brute force along walks that roll back, fork and
 * draft; and every walk that picks allowed tokens ends accepting (a member
 * written is neither predicted nor completed again, so no dead ends). */
static void test_fill_sets(void **state) {
  (void)state;
  char schema[2048], keys[18][8], commas[3][18][12];
  size_t r = (size_t)snprintf(schema, sizeof schema, "{\"type\":\"object\",\"properties\":{");
  for (int i = 0; i < 18; i++)
    r += (size_t)snprintf(schema + r, sizeof schema - r, "%s\"k%02d\":{\"type\":\"%s\"}",
                          i ? "," : "", i, i % 2 ? "string" : "integer");
  r += (size_t)snprintf(schema + r, sizeof schema - r, "},\"required\":[");
  for (int i = 0; i < 16; i++)
    r += (size_t)snprintf(schema + r, sizeof schema - r, "%s\"k%02d\"", i ? "," : "", i);
  snprintf(schema + r, sizeof schema - r, "],\"additionalProperties\":false}");
  /* every byte the language uses is a token: a dead end would be the grammar's */
  const char *strs[96] = {"{", "}", ",", ":", " ", "\"", "k", "0", "1", "2", "3", "4", "5", "6",
                          "7", "8", "9", "23", "\"k", "\"k1", "5\":", "\":", "}<", "\"k0", "a"};
  size_t n = 25;
  /* whole keys; for every third, the separator and key alone, and behind the
   * end of a value: from inside a value, whether the next member may be that
   * one is the set's to say, and no item of the set rule is in the row */
  static const char *const ends[3] = {"", "\"", "1"};
  for (int i = 0; i < 18; i++) {
    snprintf(keys[i], sizeof keys[i], "\"k%02d\"", i);
    strs[n++] = keys[i];
    for (int e = 0; e < 3 && i % 3 == 0; e++) {
      snprintf(commas[e][i], sizeof commas[e][i], "%s,\"k%02d\":", ends[e], i);
      strs[n++] = commas[e][i];
    }
  }
  pd_vocab *v = pdt__strings_vocab(strs, n);
  pd_grammar_options o = {0};
  o.any_order = true;
  pd_grammar *g = NULL;
  pd_error err;
  if (pd_grammar_compile_json_schema(schema, strlen(schema), v, &o, &g, &err))
    fail_msg("%s", err.message);
  assert_int_equal(g->pda.n_set, 1);
  size_t n_words = (pd_vocab_width(v) + 31) / 32, rolled = 0, ended = 0;
  uint32_t *fast = calloc(n_words, 4), *slow = calloc(n_words, 4);
  assert_true(fast && slow);
  pdt_diff d = {0};
  pdt__walk_checks(g, v, 11, 30, 40, fast, slow, n_words, &d, &rolled);
  if (d.differences)
    fail_msg("%zu differences (first token %u), in walks or speculative rows", d.differences,
             d.first_bad_token);
  { /* a member written is not offered again; the others are */
    pd_matcher *m = NULL;
    const char *text = "{\"k00\":1,";
    assert_int_equal(pd_matcher_new(g, &m, NULL), PD_OK);
    assert_int_equal(pd_matcher_accept_bytes(m, (const uint8_t *)text, strlen(text), NULL, NULL),
                     PD_OK);
    assert_int_equal(pd_matcher_fill_bitmask(m, fast, n_words, NULL, NULL), PD_OK);
    for (uint32_t t = 0; t < n; t++) {
      bool key = strs[t][0] == '"' && strlen(strs[t]) == 5, on = fast[t / 32] >> (t % 32) & 1;
      if (key && on != (strcmp(strs[t], "\"k00\"") != 0)) fail_msg("key %s: %d", strs[t], on);
    }
    pd_matcher_free(m);
  }
  uint64_t rng = 5;
  for (int w = 0; w < 20; w++) {
    pd_matcher *m = NULL;
    assert_int_equal(pd_matcher_new(g, &m, NULL), PD_OK);
    for (int step = 0; step < 4000 && !pd_matcher_is_terminated(m); step++) {
      assert_int_equal(pd_matcher_fill_bitmask(m, fast, n_words, NULL, NULL), PD_OK);
      uint32_t ids[96], k = 0, eos = (uint32_t)n;
      for (uint32_t t = 0; t < n; t++)
        if (fast[t / 32] >> (t % 32) & 1) ids[k++] = t;
      bool stop = fast[eos / 32] >> (eos % 32) & 1;
      if (!k && !stop) fail_msg("walk %d: no token allowed after %d tokens", w, step);
      assert_int_equal(pd_matcher_accept_token(m, stop ? eos : ids[pdt_lcg(&rng) % k], NULL), PD_OK);
    }
    ended += pd_matcher_is_terminated(m);
    pd_matcher_free(m);
  }
  printf("sets: %zu masks compared over %zu tokens, %zu rollbacks, %zu of 20 walks ended\n",
         d.masks, d.tokens, rolled, ended);
  assert_int_equal(ended, 20);
  assert_true(d.masks > 500 && rolled > 10);
  free(fast);
  free(slow);
  pd_grammar_free(g);
  pd_vocab_free(v);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fill_small),
      cmocka_unit_test(test_fill_schema),
      cmocka_unit_test(test_fill_string_lengths),
      cmocka_unit_test(test_fill_narrow),
      cmocka_unit_test(test_fill_shared_pairs),
      cmocka_unit_test(test_fill_survivors),
      cmocka_unit_test(test_fill_two_bytes),
      cmocka_unit_test(test_fill_cache_option),
      cmocka_unit_test(test_fill_long_repeats),
      cmocka_unit_test(test_fill_kept_drops),
      cmocka_unit_test(test_fill_tail_calls),
      cmocka_unit_test(test_fill_callers),
      cmocka_unit_test(test_fill_nested_callers),
      cmocka_unit_test(test_fill_unplaced),
      cmocka_unit_test(test_fill_callers_threads),
      cmocka_unit_test(test_fill_snapshot),
      cmocka_unit_test(test_fill_bounded_cache),
      cmocka_unit_test(test_fill_suffix),
      cmocka_unit_test(test_fill_long_tokens),
      cmocka_unit_test(test_fill_counted),
      cmocka_unit_test(test_fill_sets),
      cmocka_unit_test(test_fill_real),
      cmocka_unit_test(test_fill_nomem),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
