/* test_regex.c - the ECMA-262 front end, one construct at a time: accepted and
 * rejected strings (anchored and search forms), errors with their offsets,
 * limits, targets, and allocation failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir_eval.h"
#include "pda/grammar.h"
#include "pda/regex.h"
#include "regex_check.h"
#include "support.h"

typedef struct verdict_case {
  const char *pattern;
  bool search;
  const char *accept[8];
  const char *reject[8];
} verdict_case;

static void run_cases(const verdict_case *cases, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const verdict_case *c = &cases[i];
    pd_status st;
    pd_error err;
    pdt_regex *r = pdt_regex_new(c->pattern, strlen(c->pattern), &st, &err);
    if (!r) {
      print_error("/%s/: %s\n", c->pattern, err.message);
      fail();
    }
    for (int k = 0; k < 8 && c->accept[k]; k++)
      if (pdt_regex_verdict(r, c->accept[k], strlen(c->accept[k]), c->search) != 1) {
        print_error("/%s/ (search %d) should accept \"%s\"\n", c->pattern, c->search, c->accept[k]);
        fail();
      }
    for (int k = 0; k < 8 && c->reject[k]; k++)
      if (pdt_regex_verdict(r, c->reject[k], strlen(c->reject[k]), c->search) != 0) {
        print_error("/%s/ (search %d) should reject \"%s\"\n", c->pattern, c->search, c->reject[k]);
        fail();
      }
    pdt_regex_free(r);
  }
}

#define RUN(cases) run_cases(cases, sizeof cases / sizeof *cases)

static void test_literals_and_escapes(void **state) {
  (void)state;
  static const verdict_case cases[] = {
      {"abc", false, {"abc"}, {"", "ab", "abcd", "abd"}},
      {"ww\xE6\x88\x91\xF0\x9F\x98\x81", false, {"ww\xE6\x88\x91\xF0\x9F\x98\x81"}, {"ww"}},
      {"\\^\\$\\.\\*\\+\\?\\\\\\(\\)\\[\\]\\{\\}\\|\\/", false, {"^$.*+?\\()[]{}|/"}, {""}},
      {"\\f\\n\\r\\t\\v", false, {"\f\n\r\t\v"}, {"fnrtv"}},
      {"\\x41\\u0042\\u{43}\\u{1F600}", false, {"ABC\xF0\x9F\x98\x80"}, {"ABC"}},
      {"\\uD83D\\uDE00", false, {"\xF0\x9F\x98\x80"}, {""}},
      {"\\cJ\\ca", false, {"\n\x01"}, {"cJ"}},
      {"\\-\\\"\\'\\@\\ \\_", false, {"-\"'@ _"}, {""}},
      {"a{b", false, {"a{b"}, {"ab"}},
      {"a{1,x}", false, {"a{1,x}"}, {"a"}},
      {"]}", false, {"]}"}, {""}},
      {"\\uD800", false, {NULL}, {"", "\xED\xA0\x80"}},
  };
  RUN(cases);
  pd_status st;
  pdt_regex *r = pdt_regex_new("a\\0b[\\0]", 8, &st, NULL);
  assert_non_null(r);
  assert_int_equal(pdt_regex_verdict(r, "a\0b\0", 4, false), 1);
  assert_int_equal(pdt_regex_verdict(r, "a0b0", 4, false), 0);
  pdt_regex_free(r);
}

static void test_classes(void **state) {
  (void)state;
  static const verdict_case cases[] = {
      {"[abc]", false, {"a", "b", "c"}, {"d", "", "ab"}},
      {"[^abc]", false, {"d", "\xC3\xA9", "\n"}, {"a", ""}},
      {"[a-cx-z]+", false, {"abz", "y"}, {"d", "w"}},
      {"[\\r\\n\\$\\u0010-\\u006F\\]\\--]+", false, {"\r\n$ -", "]", "o"}, {"p", "\x0f"}},
      {"[-a-zA-Z+--]+", false, {"a-+", "Z,"}, {"_", "."}},
      {"[a-]", false, {"a", "-"}, {"b"}},
      {"[-a]", false, {"a", "-"}, {"b"}},
      {"[\\b]", false, {"\b"}, {"b"}},
      {"[\\d.]", false, {"5", "."}, {"a"}},
      {"[\\w-]", false, {"a", "-", "_"}, {"."}},
      {"[\\w-.]+", false, {"a-.", "_"}, {",", "/"}},
      {"[.-\\d]+", false, {".-1"}, {"/", "a"}},
      {"[\\s-\\d]", false, {" ", "-", "5"}, {"a"}},
      {"[^\\s]", false, {"a"}, {" ", "\t"}},
      {"[\\D]", false, {"a"}, {"1"}},
      {"[]", false, {NULL}, {"", "a", "]"}},
      {"a[]|b", false, {"b"}, {"a"}},
      {"[^]", false, {"a", "\n", "\xF0\x9F\x98\x80"}, {"", "ab"}},
      {"[\\u{1F600}-\\u{1F64F}]", false, {"\xF0\x9F\x98\x80", "\xF0\x9F\x99\x8F"}, {"a"}},
      {"[\\uD83D\\uDE00]", false, {"\xF0\x9F\x98\x80"}, {"\xED\xA0\xBD"}},
      {"[\xC3\xA9-\xC3\xAB]", false, {"\xC3\xA9", "\xC3\xAA"}, {"\xC3\xAC", "e"}},
  };
  RUN(cases);
}

static void test_class_escapes(void **state) {
  (void)state;
  static const verdict_case cases[] = {
      {"\\d+", false, {"0123456789"}, {"a", "\xD9\xA1"}},
      {"\\D", false, {"a", "\xD9\xA1"}, {"1"}},
      {"\\w+", false, {"azAZ09_"}, {"-", "\xC3\xA9"}},
      {"\\W", false, {"-", "\xC3\xA9"}, {"a", "_"}},
      /* ECMA's \s: WhiteSpace and LineTerminator, including the Zs separators */
      {"\\s",
       false,
       {" ", "\t", "\n", "\v", "\f", "\r", "\xC2\xA0", "\xEF\xBB\xBF"},
       {"a", "\x1c"}},
      {"\\s",
       false,
       {"\xE1\x9A\x80", "\xE2\x80\x80", "\xE2\x80\x8A", "\xE2\x80\xA8", "\xE2\x80\xA9",
        "\xE2\x80\xAF", "\xE2\x81\x9F", "\xE3\x80\x80"},
       {"\xE2\x80\x8B", "\xC2\x85"}},
      {"\\S", false, {"[", "a", "\xC2\x85"}, {" ", "\xE3\x80\x80"}},
      {"\\w\\w\\W\\d\\D\\s\\S", false, {"A_ 1b 0"}, {"A_11b 0"}},
      /* `.`: any code point but \n \r U+2028 U+2029 */
      {".",
       false,
       {"a", "\t", "\xC2\x85", "\xF0\x9F\x98\x80", "\x7f"},
       {"\n", "\r", "\xE2\x80\xA8", "\xE2\x80\xA9", ""}},
  };
  RUN(cases);
}

static void test_quantifiers(void **state) {
  (void)state;
  static const verdict_case cases[] = {
      {"a*b+c?", false, {"b", "aaabbc"}, {"c", "abcc"}},
      {"a{2,4}", false, {"aa", "aaa", "aaaa"}, {"a", "aaaaa"}},
      {"a{3}", false, {"aaa"}, {"aa", "aaaa"}},
      {"a{2,}", false, {"aa", "aaaaaaa"}, {"a"}},
      {"a{0}b", false, {"b"}, {"ab"}},
      {"a{1,3}?", false, {"a", "aa", "aaa"}, {"aaaa", ""}},
      {"a+?", false, {"a", "aaa"}, {""}},
      {"a*?", false, {"", "aa"}, {"b"}},
      {"a??", false, {"", "a"}, {"aa"}},
      {"a{2,}?b{0,1}?", false, {"aa", "aaab"}, {"ab"}},
      {"(a|[bc]{4,}){2,3}",
       false,
       {"aaa", "abcbc", "bcbcbcbcbc", "bcbcbcbcbcbcbcb"},
       {"d", "aaaa"}},
      {"(ab)*", false, {"", "abab"}, {"aba"}},
      {"(a*)*", false, {"", "aaa"}, {"b"}},
      {"(a|)+b", false, {"b", "aab"}, {"a"}},
      {"[abc]+?abc", false, {"aabc"}, {"abc"}},
  };
  RUN(cases);
}

static void test_groups_and_alternation(void **state) {
  (void)state;
  static const verdict_case cases[] = {
      {"abc|de(f|g)", false, {"abc", "def", "deg"}, {"de", "abcdef"}},
      {" abc | df | g ", false, {" abc ", " df ", " g "}, {"abc"}},
      {"(?:abc)", false, {"abc"}, {""}},
      {"(?<name>abc)(?<n2>d)", false, {"abcd"}, {"abc"}},
      {"()", false, {""}, {"a"}},
      {"(())", false, {""}, {"a"}},
      {"()|()", false, {""}, {"a"}},
      {"a()b", false, {"ab"}, {"a"}},
      {"(a|)", false, {"a", ""}, {"b"}},
      {"|a", false, {"", "a"}, {"aa"}},
      {"", false, {""}, {"a"}},
      {"(a|b)?[a-z]+(abc)*", false, {"adddabcabc", "z"}, {"", "1"}},
  };
  RUN(cases);
}

static void test_anchors(void **state) {
  (void)state;
  static const verdict_case cases[] = {
      {"^abc$", false, {"abc"}, {"abcd"}},
      {"^", false, {""}, {"a"}},
      {"$", false, {""}, {"a"}},
      {"^$|^https://x\\.com/", false, {"", "https://x.com/"}, {"a"}},
      {"a^b", false, {NULL}, {"ab", ""}},
      {"a$b", false, {NULL}, {"ab"}},
      {"$^", false, {""}, {"a"}},
      {"(^a|b)+", false, {"a", "ab", "abbb", "b"}, {"ba", "aa"}},
      {"(a|b$)*", false, {"", "aab", "b"}, {"ba", "bb"}},
      {"(^|a)b", false, {"b", "ab"}, {"aab"}},
      {"(^)*a", false, {"a"}, {""}},
      {"(a$|b)(c|$)", false, {"a", "b", "bc"}, {"ac"}},
      {"(^a|b){2,3}", false, {"ab", "abb", "bb", "bbb"}, {"aa", "abbb", "b"}},
      {"x(^|$)", false, {"x"}, {"xy"}},
      {"(?:^a$)?", false, {"", "a"}, {"aa"}},
  };
  RUN(cases);
}

static void test_search(void **state) {
  (void)state;
  static const verdict_case cases[] = {
      {"abc", true, {"abc", "xxabcxx", "abcabc"}, {"", "ab", "acb"}},
      {"^abc", true, {"abc", "abcxx"}, {"xabc"}},
      {"abc$", true, {"abc", "xxabc"}, {"abcx"}},
      {"^abc$", true, {"abc"}, {"xabc", "abcx"}},
      {"^a|b$", true, {"a", "ax", "xb", "b", "ab"}, {"xa", "bx", "", "xax"}},
      {"", true, {"", "anything"}, {NULL}},
      {"a*", true, {"", "bbb"}, {NULL}},
      {"^$", true, {""}, {"a"}},
      {"a^", true, {NULL}, {"a", "ab", ""}},
      {"(^a|b)c", true, {"ac", "xbcx"}, {"xac"}},
      {"[]", true, {NULL}, {"", "a"}},
      {"^[a-z]+(-[a-z]+)*$", true, {"ab-cd"}, {"ab-", "-ab", "a b"}},
      {"\\d{3}", true, {"a123b"}, {"12a3"}},
      /* at a free end a search keeps what decides the match (regex.c):
       * x+ as x, x{m,n} as x{m}, nullable parts dropped */
      {".+", true, {"a", "\n\nz", "abc"}, {"", "\n", "\r\n"}},
      {"a{3,}b", true, {"aaab", "xaaaabx"}, {"aab", "aaa", "ab"}},
      {"x*y+z?", true, {"y", "xxyzz", "ay"}, {"", "xz", "zx"}},
      {"(ab)+c?", true, {"ab", "xabababz"}, {"a", "ba", "acb"}},
      {"b+a*$", true, {"b", "ab", "xbaa", "ba b"}, {"bax", "", "a"}},
      {"^a?b{2,4}", true, {"bb", "abbx", "abbbbbb"}, {"ab", "xbb", "b"}},
      {"(a+|b)(c|d+)", true, {"ac", "bdd", "xaaadx"}, {"a", "cd", "ba"}},
      {"^a{2,3}b", true, {"aab", "aaabx"}, {"ab", "aaaab", "xaab"}},
      {"(a{2,3}b)$", true, {"aab", "xaaab"}, {"ab", "aabx"}},
      {"^(x+y)|z{2,}$", true, {"xy", "xxyq", "qzz", "zzz"}, {"qxy", "zzq", "z"}},
  };
  RUN(cases);
}

typedef struct error_case {
  const char *pattern;
  pd_status code;
  size_t offset;
  const char *words; /* part of the message */
} error_case;

static void test_errors(void **state) {
  (void)state;
  static const error_case cases[] = {
      {"(ab", PD_ERR_SYNTAX, 0, "unterminated group"},
      {"ab)", PD_ERR_SYNTAX, 2, "unmatched )"},
      {"[ab", PD_ERR_SYNTAX, 0, "unterminated class"},
      {"*a", PD_ERR_SYNTAX, 0, "nothing to repeat"},
      {"a**", PD_ERR_SYNTAX, 2, "nothing to repeat"},
      {"a|+", PD_ERR_SYNTAX, 2, "nothing to repeat"},
      {"{2}", PD_ERR_SYNTAX, 0, "nothing to repeat"},
      {"a{3,2}", PD_ERR_SYNTAX, 1, "out of order"},
      {"[z-a]", PD_ERR_SYNTAX, 1, "out of order"},
      {"^*", PD_ERR_SYNTAX, 1, "anchor"},
      {"ab\\", PD_ERR_SYNTAX, 2, "end of pattern"},
      {"\\xG1", PD_ERR_SYNTAX, 0, "\\x"},
      {"\\u12", PD_ERR_SYNTAX, 0, "\\u"},
      {"\\u{110000}", PD_ERR_SYNTAX, 0, "10FFFF"},
      {"\\u{}", PD_ERR_SYNTAX, 0, "\\u{"},
      {"\\c1", PD_ERR_SYNTAX, 0, "\\c"},
      {"\\01", PD_ERR_SYNTAX, 0, "octal"},
      {"a\\e", PD_ERR_SYNTAX, 1, "unknown escape"},
      {"(?x)", PD_ERR_SYNTAX, 0, "group kind"},
      {"(?<1a>x)", PD_ERR_SYNTAX, 0, "group name"},
      {"a\xFF", PD_ERR_SYNTAX, 1, "UTF-8"},
      {"\xED\xA0\x80", PD_ERR_SYNTAX, 0, "UTF-8"},
      {"(a)\\1", PD_ERR_UNSUPPORTED, 3, "backreference"},
      {"(?<n>a)\\k<n>", PD_ERR_UNSUPPORTED, 7, "backreference"},
      {"(a(?=b))", PD_ERR_UNSUPPORTED, 2, "lookahead inside a group"},
      {"(?:(?<!a)b)", PD_ERR_UNSUPPORTED, 3, "lookbehind inside a group"},
      {"(?=(?!a))", PD_ERR_UNSUPPORTED, 3, "lookahead inside a group"},
      {"(?=a)*b", PD_ERR_UNSUPPORTED, 5, "repeated lookaround"},
      {"(?=a)(?<=b)", PD_ERR_UNSUPPORTED, 5, "lookbehind after a lookahead"},
      {"(?=^a)b", PD_ERR_UNSUPPORTED, 0, "`^` inside a lookahead"},
      {"(?<=a$)b", PD_ERR_UNSUPPORTED, 0, "`$` inside a lookbehind"},
      {"a$(?=b)", PD_ERR_UNSUPPORTED, 2, "far side of a lookaround"},
      {"x|(?<=b)^a", PD_ERR_UNSUPPORTED, 2, "far side of a lookaround"},
      {"(?=a", PD_ERR_SYNTAX, 0, "unterminated group"},
      {"a\\bb", PD_ERR_UNSUPPORTED, 1, "word boundary"},
      {"\\B", PD_ERR_UNSUPPORTED, 0, "word boundary"},
      {"\\p{L}", PD_ERR_UNSUPPORTED, 0, "property"},
      {"[\\P{L}]", PD_ERR_UNSUPPORTED, 1, "property"},
      {"a{16777217}", PD_ERR_LIMIT, 1, "max_repeat"},
      {"a{1,4294967296}", PD_ERR_LIMIT, 1, "max_repeat"},
      {"(^a){33}", PD_ERR_UNSUPPORTED, 0, "anchor"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    pd_ir ir;
    pd_ir_init(&ir, NULL);
    pd_error err;
    uint32_t node = 12345;
    const char *p = cases[i].pattern;
    pd_status st = pd_regex_to_ir(&ir, p, strlen(p), NULL, false, NULL, &node, &err);
    if (st != cases[i].code || err.offset != cases[i].offset ||
        !strstr(err.message, cases[i].words)) {
      print_error("/%s/: got %s at %zu: %s\n", p, pd_status_str(st), err.offset, err.message);
      fail();
    }
    assert_int_equal(err.code, cases[i].code);
    assert_int_equal(err.column, cases[i].offset + 1);
    assert_int_equal(node, 12345);
    pd_ir_free(&ir);
    pd_grammar *g = NULL;
    assert_int_equal(pd_grammar_compile_regex(p, strlen(p), NULL, NULL, &g, NULL), cases[i].code);
    assert_null(g);
  }
}

static void test_limits(void **state) {
  (void)state;
  pd_grammar_options opts = {0};
  opts.max_repeat = 10;
  opts.max_depth = 3;
  pd_ir ir;
  pd_ir_init(&ir, NULL);
  uint32_t node;
  pd_error err;
  assert_int_equal(pd_regex_to_ir(&ir, "a{10}", 5, NULL, false, &opts, &node, &err), PD_OK);
  assert_int_equal(pd_regex_to_ir(&ir, "a{11}", 5, NULL, false, &opts, &node, &err), PD_ERR_LIMIT);
  assert_int_equal(pd_regex_to_ir(&ir, "a{2,}", 5, NULL, false, &opts, &node, &err), PD_OK);
  assert_int_equal(pd_regex_to_ir(&ir, "((()))", 6, NULL, false, &opts, &node, &err), PD_OK);
  assert_int_equal(pd_regex_to_ir(&ir, "(((())))", 8, NULL, false, &opts, &node, &err),
                   PD_ERR_LIMIT);
  assert_int_equal(err.offset, 3);
  pd_ir_free(&ir);
  /* the default depth bound keeps deep nesting from exhausting the stack */
  size_t n = 100000;
  char *deep = malloc(2 * n);
  memset(deep, '(', n);
  memset(deep + n, ')', n);
  pd_ir_init(&ir, NULL);
  assert_int_equal(pd_regex_to_ir(&ir, deep, 2 * n, NULL, false, NULL, &node, &err), PD_ERR_LIMIT);
  pd_ir_free(&ir);
  free(deep);
}

/* A target that writes a character as its code point in brackets, "<97>", so
 * the test can see every character went through it. */
static uint32_t bracket_target(pd_ir *ir, const uint32_t *pairs, size_t n_pairs, void *ud) {
  int *calls = ud;
  (*calls)++;
  uint32_t digits[] = {'0', '9'};
  uint32_t kids[3] = {pd_ir_bytes(ir, "<", 1),
                      pd_ir_repeat(ir, pd_ir_class(ir, digits, 1, false), 1, 7),
                      pd_ir_bytes(ir, ">", 1)};
  (void)pairs;
  (void)n_pairs;
  return pd_ir_seq(ir, kids, 3);
}

static void test_target(void **state) {
  (void)state;
  int calls = 0;
  pd_regex_target t = {bracket_target, &calls};
  pd_ir ir;
  pd_ir_init(&ir, NULL);
  uint32_t full, search;
  assert_int_equal(pd_regex_to_ir(&ir, "a[bc]\\d", 7, &t, false, NULL, &full, NULL), PD_OK);
  assert_int_equal(calls, 3);
  assert_int_equal(pdt_ir_matches(&ir, full, "<97><98><5>", 11), 1);
  assert_int_equal(pdt_ir_matches(&ir, full, "abc", 3), 0);
  assert_int_equal(pd_regex_to_ir(&ir, "^a", 2, &t, true, NULL, &search, NULL), PD_OK);
  assert_int_equal(pdt_ir_matches(&ir, search, "<97><1><2>", 10), 1);
  assert_int_equal(pdt_ir_matches(&ir, search, "<97>x", 5), 0);
  pd_regex_target bad = {NULL, NULL};
  assert_int_equal(pd_regex_to_ir(&ir, "a", 1, &bad, false, NULL, &full, NULL), PD_ERR_ARG);
  pd_ir_free(&ir);
}

static void test_dump(void **state) {
  (void)state;
  pd_ir ir;
  pd_ir_init(&ir, NULL);
  uint32_t node;
  assert_int_equal(pd_regex_to_ir(&ir, "ab[0-9]{2,}|c?", 14, NULL, false, NULL, &node, NULL),
                   PD_OK);
  uint32_t root = pd_ir_rule_named(&ir, "root", 4);
  pd_ir_rule_define(&ir, root, node);
  char *dump;
  assert_int_equal(pd_ir_dump(&ir, &dump), PD_OK);
  assert_string_equal(dump, "root ::= ((\"a\" \"b\" [0-9]{2,}) | \"c\"{0,1})\n");
  pd__free(ir.alloc, dump);
  pd_ir_free(&ir);
}

/* Every allocation fails in turn: the status is NOMEM and nothing leaks. */
static void test_alloc_failure(void **state) {
  (void)state;
  static const char *patterns[] = {"^(a|b$)*c{2,5}[^x-z\\d]|(?:^|q)\\w+$", "abc|d", "(^a){3}"};
  for (size_t p = 0; p < sizeof patterns / sizeof *patterns; p++) {
    for (long n = 1;; n++) {
      pdt_alloc_reset(n);
      pd_ir ir;
      pd_ir_init(&ir, &pdt_allocator);
      uint32_t node;
      pd_error err;
      pd_status st =
          pd_regex_to_ir(&ir, patterns[p], strlen(patterns[p]), NULL, true, NULL, &node, &err);
      if (pdt_alloc.failed) {
        assert_int_equal(st, PD_ERR_NOMEM);
        assert_int_equal(err.code, PD_ERR_NOMEM);
      } else {
        assert_int_equal(st, PD_OK);
      }
      pd_ir_free(&ir);
      assert_int_equal(pdt_alloc.live, 0);
      if (!pdt_alloc.failed) break;
    }
  }
  const char *cut = "^$|^[a-z](ab)*[a-z1]*$";
  for (long n = 1;; n++) {
    pdt_alloc_reset(n);
    pd_ir ir;
    pd_ir_init(&ir, &pdt_allocator);
    uint32_t node;
    pd_status st = pd_regex_to_ir_len(&ir, cut, strlen(cut), NULL, true, 2, 9, NULL, &node, NULL);
    assert_int_equal(st, pdt_alloc.failed ? PD_ERR_NOMEM : PD_ERR_UNSUPPORTED);
    st = pd_regex_to_ir_len(&ir, "^[a-z]+$", 8, NULL, true, 2, 9, NULL, &node, NULL);
    assert_int_equal(st, pdt_alloc.failed ? PD_ERR_NOMEM : PD_OK);
    pd_ir_free(&ir);
    assert_int_equal(pdt_alloc.live, 0);
    if (!pdt_alloc.failed) break;
  }
}

/* Code points in s[0..len). */
static size_t count_chars(const char *s, size_t len) {
  size_t k = 0;
  for (size_t i = 0; i < len; i++) k += ((unsigned char)s[i] & 0xC0) != 0x80;
  return k;
}

/* pd_regex_to_ir_len against brute force: every string over a small alphabet
 * (up to 5 characters) matches the cut form iff it matches the pattern and its
 * length fits; shapes the cut cannot make exact are refused. */
static void test_length_cut(void **state) {
  (void)state;
  typedef struct {
    const char *pattern;
    bool search;
    uint32_t min, max;
    pd_status want;
  } len_case;
  static const len_case cases[] = {
      {"^[a-z]+$", false, 2, 4, PD_OK},
      {"^[a-z]*$", true, 0, 3, PD_OK},
      {"^$|^[a-z][a-z1]*$", true, 2, PD_IR_INF, PD_OK},
      {"^(ab)+$", false, 3, 5, PD_OK},
      {"a\\d{2}b?", false, 4, 4, PD_OK},
      {"(\\xE9|b|1)[ab]{0,3}", false, 1, 3, PD_OK},
      {"(\\xE9|ab|1)[ab]{0,3}", false, 1, 3, PD_ERR_UNSUPPORTED},
      {"a|bb|^1{2,}$", false, 2, 3, PD_OK},
      {"^a$|^bb|^1{2,}$", true, 2, 3, PD_OK},
      {"", true, 1, 2, PD_OK},
      {"^(a|b1)*$", true, 0, 2, PD_ERR_UNSUPPORTED},
      {"a", true, 2, 3, PD_ERR_UNSUPPORTED},
      {"a+b+", false, 2, 3, PD_ERR_UNSUPPORTED},
  };
  static const char *alphabet[] = {"a", "b", "1", "\xC3\xA9"};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const len_case *lc = &cases[i];
    pd_ir ir;
    pd_ir_init(&ir, NULL);
    uint32_t plain, cut;
    pd_error err;
    size_t plen = strlen(lc->pattern);
    assert_int_equal(pd_regex_to_ir(&ir, lc->pattern, plen, NULL, lc->search, NULL, &plain, &err),
                     PD_OK);
    pd_status st = pd_regex_to_ir_len(&ir, lc->pattern, plen, NULL, lc->search, lc->min, lc->max,
                                      NULL, &cut, &err);
    if (st != lc->want) print_error("/%s/: %s\n", lc->pattern, err.message);
    assert_int_equal(st, lc->want);
    if (st != PD_OK) {
      pd_ir_free(&ir);
      continue;
    }
    long checked = 0;
    for (int n = 0; n <= 5; n++) {
      for (int code = 0; code < 1 << (2 * n); code++) {
        char s[32];
        size_t len = 0;
        for (int k = 0; k < n; k++) {
          const char *ch = alphabet[code >> (2 * k) & 3];
          memcpy(s + len, ch, strlen(ch));
          len += strlen(ch);
        }
        size_t chars = count_chars(s, len);
        int want = pdt_ir_matches(&ir, plain, s, len) && chars >= lc->min && chars <= lc->max;
        if (pdt_ir_matches(&ir, cut, s, len) != want) {
          print_error("/%s/ {%u,%u} on \"%.*s\": want %d\n", lc->pattern, lc->min, lc->max,
                      (int)len, s, want);
          fail();
        }
        checked++;
      }
    }
    assert_true(checked > 1000);
    uint32_t root = pd_ir_rule_named(&ir, "root", 4);
    pd_ir_rule_define(&ir, root, cut);
    ir.root = root;
    pd_grammar *g = NULL;
    pd_status gs = pd_grammar_from_ir(&ir, NULL, NULL, &g, NULL);
    assert_true(gs == PD_OK || (gs == PD_ERR_SEMANTIC && pd_ir_at(&ir, cut)->kind == PD_IR_NOTHING));
    pd_grammar_free(g);
    pd_ir_free(&ir);
  }
}

/* The whole pipeline under allocation failure, through the grammar compiler. */
static void test_compile_alloc_failure(void **state) {
  (void)state;
  const char *p = "^(a|b$)*c{2,5}[^x-z\\d]|\\w+$";
  pd_grammar_options opts = {0};
  opts.allocator = &pdt_allocator;
  for (long n = 1;; n++) {
    pdt_alloc_reset(n);
    pd_grammar *g = NULL;
    pd_status st = pd_grammar_compile_regex(p, strlen(p), NULL, &opts, &g, NULL);
    assert_int_equal(st, pdt_alloc.failed ? PD_ERR_NOMEM : PD_OK);
    pd_grammar_free(g);
    assert_int_equal(pdt_alloc.live, 0);
    if (!pdt_alloc.failed) break;
  }
}

/* Masks of regex grammars equal the brute force (accepting each token on a
 * fork) along random walks over a small vocabulary with multi-byte tokens. */
static void test_mask_brute_force(void **state) {
  (void)state;
  static const char *toks[] = {"a", "b", "c", "1", "2", "-", ".", " ", "ab", "abc", "ba", "--",
                               "1.", "12", "\xC3\xA9", "\xC3", "\xA9", "a-", "c1", "x", "</s>"};
  enum { NT = sizeof toks / sizeof *toks };
  const uint8_t *bytes[NT];
  size_t lens[NT];
  uint32_t flags[NT] = {0};
  for (size_t i = 0; i < NT; i++) {
    bytes[i] = (const uint8_t *)toks[i];
    lens[i] = strlen(toks[i]);
  }
  flags[NT - 1] = PD_TOKEN_EOS;
  pd_vocab *v;
  assert_int_equal(pd_vocab_from_list(bytes, lens, flags, NT, NULL, &v, NULL), PD_OK);
  static const char *patterns[] = {"^[a-c]+(-[0-9]+)?$", "(ab|c)*\\d{2,3}", "a.b|\\s*\\.",
                                   "(^a|b)+c?", "[^a]{1,4}", "\\xE9+-?"};
  uint32_t x = 7;
  for (size_t p = 0; p < sizeof patterns / sizeof *patterns; p++) {
    pd_grammar *g;
    pd_error err;
    assert_int_equal(pd_grammar_compile_regex(patterns[p], strlen(patterns[p]), v, NULL, &g, &err),
                     PD_OK);
    for (int walk = 0; walk < 20; walk++) {
      pd_matcher *m;
      assert_int_equal(pd_matcher_new(g, &m, NULL), PD_OK);
      for (int step = 0; step < 12 && !pd_matcher_is_terminated(m); step++) {
        uint32_t words[1];
        assert_int_equal(pd_matcher_fill_bitmask(m, words, 1, NULL, NULL), PD_OK);
        uint32_t allowed[NT], n_allowed = 0;
        for (uint32_t t = 0; t < NT; t++) {
          pd_matcher *f;
          assert_int_equal(pd_matcher_fork(m, &f, NULL), PD_OK);
          bool ok = pd_matcher_accept_token(f, t, NULL) == PD_OK;
          pd_matcher_free(f);
          if ((words[0] >> t & 1) != ok) {
            print_error("/%s/ step %d: token %u mask %u brute %d\n", patterns[p], step, t,
                        words[0] >> t & 1, ok);
            fail();
          }
          if (ok) allowed[n_allowed++] = t;
        }
        if (!n_allowed) break;
        x = x * 1103515245u + 12345u;
        assert_int_equal(pd_matcher_accept_token(m, allowed[(x >> 16) % n_allowed], NULL), PD_OK);
      }
      pd_matcher_free(m);
    }
    pd_grammar_free(g);
  }
  pd_vocab_free(v);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_literals_and_escapes),
      cmocka_unit_test(test_classes),
      cmocka_unit_test(test_class_escapes),
      cmocka_unit_test(test_quantifiers),
      cmocka_unit_test(test_groups_and_alternation),
      cmocka_unit_test(test_anchors),
      cmocka_unit_test(test_search),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_limits),
      cmocka_unit_test(test_target),
      cmocka_unit_test(test_dump),
      cmocka_unit_test(test_alloc_failure),
      cmocka_unit_test(test_compile_alloc_failure),
      cmocka_unit_test(test_length_cut),
      cmocka_unit_test(test_mask_brute_force),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
