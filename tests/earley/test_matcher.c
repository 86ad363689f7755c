/* test_matcher.c - the Earley matcher on hand-built grammars. */
#include <stdlib.h>

#include "helpers.h"

/* root ::= root "+" t | t ; t ::= [0-9]+ */
static void test_left_recursion(void **state) {
  (void)state;
  pd_ir ir;
  pd_ir_init(&ir, NULL);
  uint32_t alt[2] = {pd_ir_seq2(&ir, pdt_ref(&ir, "root"), pd_ir_seq2(&ir, pdt_lit(&ir, "+"),
                                                                      pdt_ref(&ir, "t"))),
                     pdt_ref(&ir, "t")};
  pdt_def(&ir, "root", pd_ir_alt(&ir, alt, 2));
  pdt_def(&ir, "t", pd_ir_repeat(&ir, pdt_range(&ir, '0', '9'), 1, PD_IR_INF));
  pd_grammar *g = pdt_compile(&ir, NULL);
  assert_int_equal(PDT_V(g, "1"), 2);
  assert_int_equal(PDT_V(g, "12+3+45"), 2);
  assert_int_equal(PDT_V(g, "12+"), 1);
  assert_int_equal(PDT_V(g, ""), 1);
  assert_int_equal(PDT_V(g, "+"), 0);
  assert_int_equal(PDT_V(g, "1++"), 0);
  pd_grammar_free(g);
  pd_ir_free(&ir);
}


/* root ::= a root | "" where a ::= "" | "x"  (hidden left/right recursion through a nullable
 * rule), plus unit cycles u ::= v | "y", v ::= u */
static void test_nullable_and_cycles(void **state) {
  (void)state;
  pd_ir ir;
  pd_ir_init(&ir, NULL);
  /* root ::= a root "z" | u ; a ::= "" | "x" ; u ::= v | "y" ; v ::= u | w ; w ::= "" */
  uint32_t r1[3] = {pdt_ref(&ir, "a"), pdt_ref(&ir, "root"), pdt_lit(&ir, "z")};
  pdt_def(&ir, "root", pd_ir_alt2(&ir, pd_ir_seq(&ir, r1, 3), pdt_ref(&ir, "u")));
  pdt_def(&ir, "a", pd_ir_alt2(&ir, pd_ir_empty(&ir), pdt_lit(&ir, "x")));
  pdt_def(&ir, "u", pd_ir_alt2(&ir, pdt_ref(&ir, "v"), pdt_lit(&ir, "y")));
  pdt_def(&ir, "v", pd_ir_alt2(&ir, pdt_ref(&ir, "u"), pdt_ref(&ir, "w")));
  pdt_def(&ir, "w", pd_ir_empty(&ir));
  pd_grammar *g = pdt_compile(&ir, NULL);
  assert_int_equal(PDT_V(g, ""), 2);
  assert_int_equal(PDT_V(g, "y"), 2);
  assert_int_equal(PDT_V(g, "z"), 2);
  assert_int_equal(PDT_V(g, "xz"), 2);
  assert_int_equal(PDT_V(g, "xxyzz"), 2);
  assert_int_equal(PDT_V(g, "xzz"), 2);
  assert_int_equal(PDT_V(g, "xxy"), 1);
  assert_int_equal(PDT_V(g, "yy"), 0);
  assert_int_equal(PDT_V(g, "zx"), 0);
  pd_grammar_free(g);
  pd_ir_free(&ir);
}

static int pdt_item_cmp(const void *a, const void *b) {
  const pd_earley_item *x = a, *y = b;
  return x->state != y->state ? (x->state > y->state ? 1 : -1)
                              : (x->origin > y->origin) - (x->origin < y->origin);
}

/* root ::= root root | "a" (massively ambiguous) */
static void test_ambiguity(void **state) {
  (void)state;
  pd_ir ir;
  pd_ir_init(&ir, NULL);
  pdt_def(&ir, "root", pd_ir_alt2(&ir, pd_ir_seq2(&ir, pdt_ref(&ir, "root"), pdt_ref(&ir, "root")),
                                  pdt_lit(&ir, "a")));
  pd_grammar *g = pdt_compile(&ir, NULL);
  char buf[200];
  memset(buf, 'a', sizeof buf);
  assert_int_equal(pdt_verdict(g, buf, sizeof buf), 2);
  /* After n bytes the row holds, for every k < n, the end of a root over
   * k..n and the item waiting for a second root after it, and the start
   * predicted at n: 2n + 1 distinct items. Past 8 origins a state's items
   * are deduplicated through a hash table instead of its chain (row.c). */
  pd_matcher *m = NULL;
  assert_int_equal(pd_matcher_new(g, &m, NULL), PD_OK);
  pd_earley_item row[2 * sizeof buf + 1];
  for (size_t n = 1; n <= sizeof buf; n++) {
    assert_int_equal(pd_earley_push_byte(m, 'a'), PD_OK);
    size_t k;
    const pd_earley_item *it = pd_earley_current(m, &k);
    assert_int_equal(k, 2 * n + 1);
    memcpy(row, it, k * sizeof *it);
    qsort(row, k, sizeof *row, pdt_item_cmp);
    for (size_t i = 1; i < k; i++) assert_true(pdt_item_cmp(&row[i - 1], &row[i]) < 0);
  }
  pd_matcher_free(m);
  buf[150] = 'b';
  assert_int_equal(pdt_verdict(g, buf, sizeof buf), 0);
  pd_grammar_free(g);
  pd_ir_free(&ir);
}

/* root ::= "(" root ")" | "" nested 5000 deep */
static void test_deep_nesting(void **state) {
  (void)state;
  pd_ir ir;
  pd_ir_init(&ir, NULL);
  uint32_t k[3] = {pdt_lit(&ir, "("), pdt_ref(&ir, "root"), pdt_lit(&ir, ")")};
  pdt_def(&ir, "root", pd_ir_alt2(&ir, pd_ir_seq(&ir, k, 3), pd_ir_empty(&ir)));
  pd_grammar *g = pdt_compile(&ir, NULL);
  enum { D = 5000 };
  char *buf = malloc(2 * D);
  memset(buf, '(', D);
  memset(buf + D, ')', D);
  assert_int_equal(pdt_verdict(g, buf, 2 * D), 2);
  assert_int_equal(pdt_verdict(g, buf, 2 * D - 1), 1);
  buf[D] = '(';
  assert_int_equal(pdt_verdict(g, buf, 2 * D), 1);
  free(buf);
  pd_grammar_free(g);
  pd_ir_free(&ir);
}

/* "ab"{1000,50000}: rule chains, exact counts at the bounds */
static void test_large_repetition(void **state) {
  (void)state;
  pd_ir ir;
  pd_ir_init(&ir, NULL);
  pdt_def(&ir, "root", pd_ir_seq2(&ir, pd_ir_repeat(&ir, pdt_lit(&ir, "ab"), 1000, 5000),
                                  pdt_lit(&ir, ";")));
  pd_grammar *g = pdt_compile(&ir, NULL);
  size_t rules, states;
  pd_grammar_stats(g, &rules, &states, NULL);
  assert_true(states < 400); /* no unrolled copies */
  char *buf = malloc(2 * 5001 + 1);
  for (int i = 0; i < 5001; i++) memcpy(buf + 2 * i, "ab", 2);
  for (int n = 998; n <= 1001; n++) {
    buf[2 * n] = ';';
    assert_int_equal(pdt_verdict(g, buf, 2 * n + 1), n >= 1000 ? 2 : 0);
    buf[2 * n] = 'a';
  }
  for (int n = 4999; n <= 5001; n++) {
    buf[2 * n] = ';';
    assert_int_equal(pdt_verdict(g, buf, 2 * n + 1), n <= 5000 ? 2 : 0);
    buf[2 * n] = 'a';
  }
  free(buf);
  pd_grammar_free(g);
  /* beyond max_repeat */
  pd_grammar_options o = {.max_repeat = 100};
  pd_error err;
  assert_int_equal(pd_grammar_from_ir(&ir, NULL, &o, &g, &err), PD_ERR_LIMIT);
  assert_null(g);
  pd_ir_free(&ir);
}

/* Every boundary code point in, its neighbours out. */
static void test_utf8_boundaries(void **state) {
  (void)state;
  static const uint32_t cps[][2] = {{0x7F, 0x80}, {0x7FF, 0x800}, {0xFFFF, 0x10000},
                                    {0x10FFFF, 0x10FFFF}, {0xD7FF, 0xE000}};
  for (size_t k = 0; k < sizeof cps / sizeof cps[0]; k++) {
    pd_ir ir;
    pd_ir_init(&ir, NULL);
    pdt_def(&ir, "root", pdt_range(&ir, cps[k][0], cps[k][1]));
    pd_grammar *g = pdt_compile(&ir, NULL);
    for (uint32_t c = cps[k][0] - 1; c <= cps[k][1] + 1 && c <= 0x110000; c++) {
      uint8_t b[4];
      int n = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
      uint32_t lead[5] = {0, 0, 0xC0, 0xE0, 0xF0};
      for (int i = n - 1; i > 0; i--) b[i] = (uint8_t)(0x80 | ((c >> (6 * (n - 1 - i))) & 0x3F));
      b[0] = (uint8_t)(n == 1 ? c : lead[n] | (c >> (6 * (n - 1))));
      bool in = c >= cps[k][0] && c <= cps[k][1] && !(c >= 0xD800 && c <= 0xDFFF) && c <= 0x10FFFF;
      assert_int_equal(pdt_verdict(g, (const char *)b, (size_t)n), in ? 2 : 0);
    }
    pd_grammar_free(g);
    pd_ir_free(&ir);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_left_recursion),
      cmocka_unit_test(test_nullable_and_cycles),
      cmocka_unit_test(test_ambiguity),
      cmocka_unit_test(test_deep_nesting),
      cmocka_unit_test(test_large_repetition),
      cmocka_unit_test(test_utf8_boundaries),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
