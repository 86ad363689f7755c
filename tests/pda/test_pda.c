/* test_pda.c - the rule automata: UTF-8 expansion (exhaustive), invariants on
 * random grammars, repetition chains, pruning, limits, dump. */
#include <stdio.h>
#include <stdlib.h>

#include "../earley/helpers.h"
#include "../earley/reference.h"
#include "pda/pda.h"

/* Runs bytes through the automaton of a call-free rule; true when it ends final. */
static bool pdt_run_rule(const pd_pda *p, uint32_t rule, const uint8_t *b, int n) {
  const pd_pda_state *st = pd_pda_states(p);
  const pd_pda_edge *ed = pd_pda_edges(p);
  uint32_t s = pd_pda_rules(p)[rule].start;
  for (int i = 0; i < n; i++) {
    const pd_pda_state *x = &st[s];
    uint32_t k = 0;
    while (k < x->n_byte && !(ed[x->edges + k].lo <= b[i] && b[i] <= ed[x->edges + k].hi)) k++;
    if (k == x->n_byte) return false;
    s = ed[x->edges + k].to;
  }
  return st[s].flags & PD_STATE_FINAL;
}

static int pdt_encode(uint32_t c, uint8_t *b) {
  if (c < 0x80) return b[0] = (uint8_t)c, 1;
  if (c < 0x800) return b[0] = (uint8_t)(0xC0 | c >> 6), b[1] = (uint8_t)(0x80 | (c & 63)), 2;
  if (c < 0x10000) {
    b[0] = (uint8_t)(0xE0 | c >> 12);
    b[1] = (uint8_t)(0x80 | (c >> 6 & 63));
    b[2] = (uint8_t)(0x80 | (c & 63));
    return 3;
  }
  b[0] = (uint8_t)(0xF0 | c >> 18);
  b[1] = (uint8_t)(0x80 | (c >> 12 & 63));
  b[2] = (uint8_t)(0x80 | (c >> 6 & 63));
  b[3] = (uint8_t)(0x80 | (c & 63));
  return 4;
}

static bool pdt_in(const uint32_t *pairs, size_t n, uint32_t c, bool neg) {
  bool in = false;
  for (size_t i = 0; i < n; i++) in |= pairs[2 * i] <= c && c <= pairs[2 * i + 1];
  return (in != neg) && !(c >= 0xD800 && c <= 0xDFFF);
}

/* Every code point of U+0000..U+10FFFF against a class, and malformed UTF-8. */
static void test_utf8_exhaustive(void **state) {
  (void)state;
  static const uint32_t sets[][6] = {{0, 0x10FFFF, 1, 0, 0, 0},
                                     {0x41, 0x5A, 0x7F, 0x800, 0xFFFF, 0x10000},
                                     {0x7FF, 0x7FF, 0xE000, 0x10FFFF, 0, 0},
                                     {0x3F, 0x81, 0xD7FF, 0xE000, 0xFFFE, 0x10001},
                                     {0x80, 0x7FF, 0x10000, 0x1FFFF, 0x100000, 0x10FFFF}};
  for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++)
    for (int neg = 0; neg < 2; neg++) {
      size_t np = k == 0 ? 1 : 3;
      pd_ir ir;
      pd_ir_init(&ir, NULL);
      pdt_def(&ir, "root", pd_ir_class(&ir, sets[k], np, neg));
      pd_grammar *g = NULL;
      ir.root = 0;
      pd_status s = pd_grammar_from_ir(&ir, NULL, NULL, &g, NULL);
      if (k == 0 && neg) { /* the empty class derives nothing */
        assert_int_equal(s, PD_ERR_SEMANTIC);
        pd_ir_free(&ir);
        continue;
      }
      assert_int_equal(s, PD_OK);
      for (uint32_t c = 0; c <= 0x10FFFF; c++) {
        uint8_t b[4];
        int n = pdt_encode(c, b);
        if (pdt_run_rule(&g->pda, 0, b, n) != pdt_in(sets[k], np, c, neg))
          fail_msg("class %zu neg %d: U+%04X", k, neg, c);
      }
      static const uint8_t bad[][4] = {{0xC0, 0x80},
                                       {0xC1, 0xBF},
                                       {0xE0, 0x80, 0x80},
                                       {0xED, 0xA0, 0x80},
                                       {0xF0, 0x80, 0x80, 0x80},
                                       {0xF4, 0x90, 0x80, 0x80},
                                       {0xF8, 0x88, 0x80, 0x80},
                                       {0x80}};
      static const int bad_len[] = {2, 2, 3, 3, 4, 4, 4, 1};
      for (size_t i = 0; i < 8; i++) assert_false(pdt_run_rule(&g->pda, 0, bad[i], bad_len[i]));
      pd_grammar_free(g);
      pd_ir_free(&ir);
    }
}

/* Layout invariants of pda.h on random grammars. */
static void pdt_check_invariants(const pd_pda *p) {
  const pd_pda_rule *ru = pd_pda_rules(p);
  const pd_pda_state *st = pd_pda_states(p);
  const pd_pda_edge *ed = pd_pda_edges(p);
  for (uint32_t r = 0; r < p->n_rules; r++)
    for (uint32_t s = ru[r].start; s < ru[r].start + ru[r].n_states; s++) {
      assert_int_equal(st[s].rule, r);
      const pd_pda_edge *e = ed + st[s].edges;
      for (uint32_t k = 0; k < st[s].n_byte; k++) {
        assert_int_equal(e[k].kind, PD_EDGE_BYTE);
        assert_true(e[k].lo <= e[k].hi);
        if (k) assert_true(e[k - 1].hi < e[k].lo);
      }
      for (uint32_t k = st[s].n_byte; k < st[s].n_byte + st[s].n_call; k++) {
        assert_int_equal(e[k].kind, PD_EDGE_CALL);
        assert_true(e[k].arg < p->n_rules);
        if (k > st[s].n_byte) assert_true(e[k - 1].arg < e[k].arg);
      }
      uint32_t all = st[s].n_byte + st[s].n_call + st[s].n_token;
      for (uint32_t k = 0; k < all; k++)
        assert_true(e[k].to >= ru[r].start && e[k].to < ru[r].start + ru[r].n_states);
    }
}

static void test_random_invariants(void **state) {
  (void)state;
  uint64_t x = 88172645463325252ull;
  for (int seed = 0; seed < 400; seed++) {
    uint8_t data[64];
    pd_ir ir;
    pdr_generate_next(&ir, &x, data, sizeof data);
    pd_grammar *g = NULL;
    if (pd_grammar_from_ir(&ir, NULL, NULL, &g, NULL) == PD_OK) {
      pdt_check_invariants(&g->pda);
      /* nullable(root) iff the reference accepts "" */
      bool complete, viable;
      pdr_run(&ir, data, 0, &complete, &viable);
      assert_int_equal(!!(pd_pda_rules(&g->pda)[g->pda.root].flags & PD_RULE_NULLABLE), complete);
    }
    pd_grammar_free(g);
    pd_ir_free(&ir);
  }
}

/* x{0,100000} costs O(log n) rules and a few states each; bounds exact. */
static void test_repeat_chain(void **state) {
  (void)state;
  pd_ir ir;
  pd_ir_init(&ir, NULL);
  pdt_def(&ir, "root", pd_ir_repeat(&ir, pdt_range(&ir, 'a', 'b'), 0, 100000));
  pd_grammar *g = pdt_compile(&ir, NULL);
  size_t rules, states;
  pd_grammar_stats(g, &rules, &states, NULL);
  assert_true(rules < 60);
  assert_true(states < 300);
  char *buf = malloc(100001);
  memset(buf, 'a', 100001);
  assert_int_equal(pdt_verdict(g, buf, 100000), 2);
  assert_int_equal(pdt_verdict(g, buf, 100001), 0);
  assert_int_equal(pdt_verdict(g, buf, 77777), 2);
  free(buf);
  pd_grammar_free(g);
  pd_ir_free(&ir);
}

/* root ::= "a" | "b" bad ; bad ::= bad "c": "b" leads nowhere, so it is no prefix. */
static void test_pruning(void **state) {
  (void)state;
  pd_ir ir;
  pd_ir_init(&ir, NULL);
  pdt_def(
      &ir, "root",
      pd_ir_alt2(&ir, pdt_lit(&ir, "a"), pd_ir_seq2(&ir, pdt_lit(&ir, "b"), pdt_ref(&ir, "bad"))));
  pdt_def(&ir, "bad", pd_ir_seq2(&ir, pdt_ref(&ir, "bad"), pdt_lit(&ir, "c")));
  pd_grammar *g = pdt_compile(&ir, NULL);
  assert_int_equal(PDT_V(g, "a"), 2);
  assert_int_equal(PDT_V(g, "b"), 0);
  pd_grammar_free(g);
  pd_ir_free(&ir);
}

static void test_limits(void **state) {
  (void)state;
  pd_ir ir;
  pd_ir_init(&ir, NULL);
  uint32_t alts[40];
  char w[4] = "w00";
  for (int i = 0; i < 40; i++) {
    w[1] = (char)('0' + i / 10), w[2] = (char)('0' + i % 10);
    alts[i] = pd_ir_bytes(&ir, w, 3);
  }
  pdt_def(&ir, "root", pd_ir_seq2(&ir, pd_ir_alt(&ir, alts, 40), pdt_ref(&ir, "x")));
  pdt_def(&ir, "x", pdt_lit(&ir, "x"));
  ir.root = 0;
  pd_grammar *g = NULL;
  pd_error err;
  pd_grammar_options o = {.max_states = 20};
  assert_int_equal(pd_grammar_from_ir(&ir, NULL, &o, &g, &err), PD_ERR_LIMIT);
  assert_null(g);
  o = (pd_grammar_options){.max_rules = 1};
  assert_int_equal(pd_grammar_from_ir(&ir, NULL, &o, &g, &err), PD_ERR_LIMIT);
  o = (pd_grammar_options){0};
  assert_int_equal(pd_grammar_from_ir(&ir, NULL, &o, &g, &err), PD_OK);
  assert_int_equal(pd_grammar_set_relaxed(g, "minLength at /a"), PD_OK);
  assert_string_equal(pd_grammar_relaxed(g), "minLength at /a");
  assert_int_equal(pd_grammar_set_relaxed(g, NULL), PD_OK);
  assert_string_equal(pd_grammar_relaxed(g), "");
  pd_grammar_free(g);
  pd_ir_free(&ir);
}

static void test_dump(void **state) {
  (void)state;
  pd_ir ir;
  pd_ir_init(&ir, NULL);
  uint32_t root = pd_ir_rule_named(&ir, "root", 4);
  pd_ir_rule_define(&ir, root,
                    pd_ir_seq2(&ir, pdt_lit(&ir, "a"), pd_ir_repeat(&ir, pdt_ref(&ir, "b"), 0, 1)));
  pdt_def(&ir, "b", pd_ir_alt2(&ir, pdt_range(&ir, '0', '9'), pd_ir_token(&ir, 7, true)));
  pd_grammar *g = pdt_compile(&ir, NULL);
  char *dump = NULL;
  assert_int_equal(pd_pda_dump(&g->pda, g->alloc, &dump), PD_OK);
  assert_string_equal(dump,
                      "root root\n"
                      "  0\n"
                      "    [61] -> 1\n"
                      "  1 final\n"
                      "    [30-39] -> 2\n"
                      "    !<[7]> -> 2\n"
                      "  2 final\n"
                      "b\n"
                      "  3\n"
                      "    [30-39] -> 4\n"
                      "    !<[7]> -> 4\n"
                      "  4 final\n");
  pd__free(g->alloc, dump);
  pd_grammar_free(g);
  pd_ir_free(&ir);
}

/* Small non-recursive rules are copied into their callers; recursive ones and
 * the repetition counters stay calls. */
static void test_inline(void **state) {
  (void)state;
  pd_ir ir;
  pd_ir_init(&ir, NULL);
  uint32_t k[3] = {pdt_ref(&ir, "d"), pdt_ref(&ir, "p"), pdt_ref(&ir, "d")};
  pdt_def(&ir, "root", pd_ir_seq(&ir, k, 3));
  pdt_def(&ir, "d", pdt_range(&ir, '0', '9'));
  uint32_t nest[3] = {pdt_lit(&ir, "("), pdt_ref(&ir, "p"), pdt_lit(&ir, ")")};
  pdt_def(&ir, "p", pd_ir_alt2(&ir, pd_ir_seq(&ir, nest, 3), pdt_lit(&ir, "x")));
  pd_grammar *g = pdt_compile(&ir, NULL);
  char *dump = NULL;
  assert_int_equal(pd_pda_dump(&g->pda, g->alloc, &dump), PD_OK);
  assert_null(strstr(dump, "call d"));
  assert_non_null(strstr(dump, "call p"));
  assert_int_equal(pdt_verdict(g, "1((x))2", 7), 2);
  assert_int_equal(pdt_verdict(g, "1((x)2", 6), 0);
  pd__free(g->alloc, dump);
  pd_grammar_free(g);
  pd_ir_free(&ir);
}

/* root ::= "a" "x"* | "b" "x"*, minimized (2 states: the start and the loop)
 * or, flagged PD_IR_RULE_NO_MINIMIZE, left as built (5); the same language. */
static pd_grammar *pdt_two_loops(bool flag) {
  pd_ir ir;
  pd_ir_init(&ir, NULL);
  uint32_t x1 = pd_ir_repeat(&ir, pdt_lit(&ir, "x"), 0, PD_IR_INF);
  uint32_t x2 = pd_ir_repeat(&ir, pdt_lit(&ir, "x"), 0, PD_IR_INF);
  pdt_def(&ir, "root", pd_ir_alt2(&ir, pd_ir_seq2(&ir, pdt_lit(&ir, "a"), x1),
                                  pd_ir_seq2(&ir, pdt_lit(&ir, "b"), x2)));
  if (flag) pd_ir_rule_flag(&ir, pd_ir_rule_find(&ir, "root", 4), PD_IR_RULE_NO_MINIMIZE);
  pd_grammar *g = pdt_compile(&ir, NULL);
  pd_ir_free(&ir);
  return g;
}

static void test_no_minimize(void **state) {
  (void)state;
  static const char *const in[] = {"a", "b", "axxx", "bx"}, *const out[] = {"x", "ab", "axa", "c"};
  for (int flag = 0; flag < 2; flag++) {
    pd_grammar *g = pdt_two_loops(flag);
    assert_int_equal(pd_pda_rules(&g->pda)[g->pda.root].n_states, flag ? 5 : 2);
    for (size_t i = 0; i < 4; i++) {
      assert_int_equal(PDT_V(g, in[i]), 2);
      assert_int_equal(PDT_V(g, out[i]), 0);
    }
    assert_int_equal(PDT_V(g, ""), 1);
    pd_grammar_free(g);
  }
}

/* Minimal state counts: states told apart only far ahead (a chain of 30
 * optional x's before "y"), a loop whose states differ by what they end on,
 * and equivalent branches built apart (byte ranges that meet). */
static void test_minimal_states(void **state) {
  (void)state;
  pd_ir ir;
  pd_ir_init(&ir, NULL);
  uint32_t chain = pd_ir_seq2(&ir, pd_ir_repeat(&ir, pdt_lit(&ir, "x"), 0, 30), pdt_lit(&ir, "y"));
  /* ("ab")* then "abc" or "d": after "a" the b may end a round or go on to c */
  uint32_t ab = pd_ir_repeat(&ir, pdt_lit(&ir, "ab"), 0, PD_IR_INF);
  uint32_t loop = pd_ir_seq2(&ir, ab, pd_ir_alt2(&ir, pdt_lit(&ir, "abc"), pdt_lit(&ir, "d")));
  uint32_t twin = pd_ir_alt2(&ir, pd_ir_seq2(&ir, pdt_range(&ir, 'a', 'c'), pdt_lit(&ir, "z")),
                             pd_ir_seq2(&ir, pdt_range(&ir, 'd', 'f'), pdt_lit(&ir, "z")));
  uint32_t k[3] = {pdt_ref(&ir, "chain"), pdt_ref(&ir, "loop"), pdt_ref(&ir, "twin")};
  pdt_def(&ir, "root", pd_ir_seq(&ir, k, 3));
  pdt_def(&ir, "chain", chain);
  pdt_def(&ir, "loop", loop);
  pdt_def(&ir, "twin", twin);
  for (const char *const *r = (const char *const[]){"chain", "loop", "twin", NULL}; *r; r++)
    pd_ir_rule_flag(&ir, pd_ir_rule_find(&ir, *r, strlen(*r)), PD_IR_RULE_CALLED);
  pd_grammar *g = pdt_compile(&ir, NULL);
  const pd_pda_rule *rules = pd_pda_rules(&g->pda);
  uint32_t want[3] = {32, 4, 3}; /* 0..30 x's read, then y; start, a, ab, the end; 3 */
  for (uint32_t i = 0; i < 3; i++) {
    const char *name = (const char *[]){"chain", "loop", "twin"}[i];
    uint32_t r = pd_ir_rule_find(&ir, name, strlen(name));
    assert_int_equal(rules[r].n_states, want[i]);
  }
  assert_int_equal(PDT_V(g, "xxyababdbz"), 2);
  assert_int_equal(PDT_V(g, "yabcaz"), 2);
  assert_int_equal(PDT_V(g, "yabaz"), 0);
  assert_int_equal(PDT_V(g, "yabzz"), 0);
  pd_grammar_free(g);
  pd_ir_free(&ir);
}

/* Rule automata reused across grammars over one vocab (pda/rule_cache.h): a
 * rule whose body was built for an earlier grammar must keep its own callees,
 * found through the slots of the key, and its calls sorted by callee even when
 * this grammar numbers them the other way round. */
static pd_grammar *pdt_cached(pd_vocab *v, const char *first, const char *second, int shape) {
  pd_ir ir;
  pd_ir_init(&ir, NULL);
  uint32_t k[2] = {pdt_ref(&ir, first), pdt_lit(&ir, "!")}; /* first is numbered first */
  pdt_def(&ir, "root", pd_ir_alt2(&ir, pd_ir_seq(&ir, k, 2), pdt_ref(&ir, "pair")));
  pdt_def(&ir, second, pd_ir_repeat(&ir, pdt_lit(&ir, second), 1, PD_IR_INF)); /* stays a call */
  pdt_def(&ir, first, pd_ir_repeat(&ir, pdt_lit(&ir, first), 1, PD_IR_INF));
  /* pair: "<" then a | b, a | a, a | b a or a | b b (the last two: same slots) */
  uint32_t other = shape == 1 ? pdt_ref(&ir, "a") : pdt_ref(&ir, "b");
  if (shape >= 2) other = pd_ir_seq2(&ir, other, pdt_ref(&ir, shape == 2 ? "a" : "b"));
  uint32_t alt = pd_ir_alt2(&ir, pdt_ref(&ir, "a"), other);
  pdt_def(&ir, "pair", pd_ir_seq2(&ir, pdt_lit(&ir, "<"), alt));
  pd_grammar *g = pdt_compile(&ir, v);
  pd_ir_free(&ir);
  return g;
}

static void test_rule_cache(void **state) {
  (void)state;
  const uint8_t *t[1] = {(const uint8_t *)"a"};
  size_t len[1] = {1};
  pd_vocab_options o = {.rule_cache_bytes = 1}; /* full from the start: every rule built */
  pd_vocab *full = NULL;
  assert_int_equal(pd_vocab_from_list(t, len, NULL, 1, &o, &full, NULL), PD_OK);
  for (int i = 0; i < 2; i++) {
    pd_grammar *g = pdt_cached(full, i ? "b" : "a", i ? "a" : "b", 0);
    assert_int_equal(pdt_verdict(g, "<bbb", 4), 2);
    assert_int_equal(pdt_verdict(g, "aa!", 3), i ? 0 : 2);
    pd_grammar_free(g);
  }
  pd_vocab_free(full);
  pd_vocab *v = pdr_vocab();
  assert_non_null(v);
  pd_grammar *g1 = pdt_cached(v, "a", "b", 0); /* pair calls a then b, numbered a < b */
  pd_grammar *g2 = pdt_cached(v, "b", "a", 0); /* the same pair, numbered b < a */
  pd_grammar *g3 = pdt_cached(v, "b", "a", 1); /* pair calls a twice: not the same key */
  pd_grammar *g4 = pdt_cached(v, "a", "b", 2), *g5 = pdt_cached(v, "a", "b", 3);
  for (int i = 0; i < 2; i++) {
    pd_grammar *g = i ? g2 : g1;
    assert_int_equal(pdt_verdict(g, "<aa", 3), 2);
    assert_int_equal(pdt_verdict(g, "<bbb", 4), 2);
    assert_int_equal(pdt_verdict(g, "<ab", 3), 0);
  }
  assert_int_equal(pdt_verdict(g3, "<aa", 3), 2);
  assert_int_equal(pdt_verdict(g3, "<b", 2), 0);
  assert_int_equal(pdt_verdict(g3, "bb!", 3), 2);
  assert_int_equal(pdt_verdict(g4, "<ba", 3), 2);
  assert_int_equal(pdt_verdict(g4, "<bb", 3), 1);
  assert_int_equal(pdt_verdict(g5, "<bb", 3), 2);
  assert_int_equal(pdt_verdict(g5, "<ba", 3), 0);
  pd_grammar_free(g4);
  pd_grammar_free(g5);
  pd_grammar_free(g1);
  pd_grammar_free(g2);
  pd_grammar_free(g3);
  pd_vocab_free(v);
}

/* Allocation failure at every step of compiling a grammar with every node kind. */
static void test_alloc_failure(void **state) {
  (void)state;
  for (long n = 1;; n++) {
    pdt_alloc_reset(n);
    pd_ir ir;
    pd_ir_init(&ir, &pdt_allocator);
    uint32_t k[4] = {pdt_range(&ir, 0x80, 0x10FFFF), pd_ir_repeat(&ir, pdt_lit(&ir, "xy"), 20, 400),
                     pdt_ref(&ir, "e"), pd_ir_token(&ir, 3, false)};
    pdt_def(&ir, "root", pd_ir_alt2(&ir, pd_ir_seq(&ir, k, 4), pd_ir_nothing(&ir)));
    pdt_def(
        &ir, "e",
        pd_ir_alt2(&ir, pd_ir_seq2(&ir, pdt_ref(&ir, "e"), pdt_lit(&ir, "+")), pd_ir_empty(&ir)));
    ir.root = pd_ir_rule_find(&ir, "root", 4);
    pd_grammar *g = NULL;
    pd_status s = ir.oom ? PD_ERR_NOMEM : pd_grammar_from_ir(&ir, NULL, NULL, &g, NULL);
    assert_true(s == PD_OK || s == PD_ERR_NOMEM);
    pd_grammar_free(g);
    pd_ir_free(&ir);
    assert_int_equal(pdt_alloc.live, 0);
    if (!pdt_alloc.failed) {
      assert_int_equal(s, PD_OK);
      break;
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_utf8_exhaustive), cmocka_unit_test(test_random_invariants),
      cmocka_unit_test(test_repeat_chain),    cmocka_unit_test(test_pruning),
      cmocka_unit_test(test_limits),          cmocka_unit_test(test_dump),
      cmocka_unit_test(test_inline),          cmocka_unit_test(test_rule_cache),
      cmocka_unit_test(test_alloc_failure),   cmocka_unit_test(test_no_minimize),
      cmocka_unit_test(test_minimal_states),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
