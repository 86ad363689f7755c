/* test_ir.c - the grammar IR builder: classes, lists, rules, failure handling. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pda/ir.h"
#include "support.h"

static void test_class_normalizes(void **state) {
  (void)state;
  pd_ir ir;
  pd_ir_init(&ir, NULL);
  uint32_t pairs[] = {'c', 'z', 'a', 'd', 0xD000, 0xE100};
  uint32_t n = pd_ir_class(&ir, pairs, 3, false);
  const pd_ir_node *node = pd_ir_at(&ir, n);
  assert_int_equal(node->kind, PD_IR_CLASS);
  assert_int_equal(node->n, 3); /* a-z, D000-D7FF, E000-E100: surrogates removed */
  const uint32_t *r = ir.ranges.data + node->off;
  assert_int_equal(r[0], 'a');
  assert_int_equal(r[1], 'z');
  assert_int_equal(r[2], 0xD000);
  assert_int_equal(r[3], 0xD7FF);
  assert_int_equal(r[4], 0xE000);
  assert_int_equal(r[5], 0xE100);
  pd_ir_free(&ir);
}

static void test_class_negation(void **state) {
  (void)state;
  pd_ir ir;
  pd_ir_init(&ir, NULL);
  uint32_t pairs[] = {0, 'a' - 1, 'b', PD_IR_MAX_CODEPOINT};
  const pd_ir_node *node = pd_ir_at(&ir, pd_ir_class(&ir, pairs, 2, true));
  assert_int_equal(node->kind, PD_IR_CLASS);
  assert_int_equal(node->n, 1);
  assert_int_equal(ir.ranges.data[node->off], 'a');
  assert_int_equal(ir.ranges.data[node->off + 1], 'a');
  uint32_t all[] = {0, PD_IR_MAX_CODEPOINT};
  assert_int_equal(pd_ir_at(&ir, pd_ir_class(&ir, all, 1, true))->kind, PD_IR_NOTHING);
  const pd_ir_node *any = pd_ir_at(&ir, pd_ir_any_char(&ir));
  assert_int_equal(any->n, 2);
  pd_ir_free(&ir);
}

static void test_rules_and_dump(void **state) {
  (void)state;
  pd_ir ir;
  pd_ir_init(&ir, NULL);
  uint32_t root = pd_ir_rule_named(&ir, "root", 4);
  uint32_t item = pd_ir_rule_named(&ir, "item", 4);
  assert_int_equal(pd_ir_rule_named(&ir, "root", 4), root);
  assert_int_equal(pd_ir_rule_find(&ir, "nope", 4), PD_IR_NONE);
  pd_ir_rule_define(&ir, root, pd_ir_repeat(&ir, pd_ir_ref(&ir, item), 1, PD_IR_INF));
  pd_ir_rule_define(&ir, item, pd_ir_alt2(&ir, pd_ir_bytes(&ir, "ab", 2), pd_ir_token(&ir, 7, true)));
  uint32_t fresh = pd_ir_rule_fresh(&ir, "item");
  assert_int_not_equal(fresh, item);
  for (int i = 0; i < 200; i++) {
    char name[16];
    int len = snprintf(name, sizeof name, "r%d", i);
    assert_int_not_equal(pd_ir_rule_named(&ir, name, (size_t)len), PD_IR_NONE);
  }
  assert_int_equal(pd_ir_rule_find(&ir, "r150", 4), pd_ir_rule_find(&ir, "r150", 4));
  assert_false(ir.oom);
  char *dump = NULL;
  assert_int_equal(pd_ir_dump(&ir, &dump), PD_OK);
  assert_non_null(strstr(dump, "root ::= item{1,}\n"));
  assert_non_null(strstr(dump, "item ::= (\"ab\" | !<[7]>)\n"));
  pd__free(ir.alloc, dump);
  pd_ir_free(&ir);
}

/* Nested counts of one x fold into one count of x where the sums leave no gap:
 * (x{0,a}){m,n} is x{0,a*n}, (x{1,a}){m,n} is x{m,a*n}; others stay as written. */
static void test_repeat_folds(void **state) {
  (void)state;
  pd_ir ir;
  pd_ir_init(&ir, NULL);
  uint32_t x = pd_ir_bytes(&ir, "ab", 2);
  struct {
    uint32_t in_min, in_max, min, max, a_is_x, off, n;
  } cases[] = {
      {1, PD_IR_INF, 53, 53, 1, 53, PD_IR_INF}, /* (x+){53} */
      {1, PD_IR_INF, 0, 5, 1, 0, PD_IR_INF},    /* (x+){0,5} = x* */
      {0, 1, 3, 7, 1, 0, 7},                    /* (x?){3,7} */
      {0, 1, 2, PD_IR_INF, 1, 0, PD_IR_INF},    /* (x?){2,} = x* */
      {0, PD_IR_INF, 2, 4, 1, 0, PD_IR_INF},    /* (x*){2,4} */
      {1, 3, 2, 2, 1, 2, 6},                    /* (x{1,3}){2} */
      {0, 33, 0, 33, 1, 0, 1089},               /* (x{0,33}){0,33} */
      {1, 3, 0, PD_IR_INF, 1, 0, PD_IR_INF},    /* (x{1,3})* */
      {2, 2, 3, 3, 0, 3, 3},                    /* (x{2}){3}: stays nested */
      {2, 3, 0, 2, 0, 0, 2},                    /* (x{2,3}){0,2} (no 1): stays nested */
      {1, 100000, 1, 100000, 0, 1, 100000},     /* the product is past 2^32: stays nested */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    uint32_t inner = pd_ir_repeat(&ir, x, cases[i].in_min, cases[i].in_max);
    const pd_ir_node *r = pd_ir_at(&ir, pd_ir_repeat(&ir, inner, cases[i].min, cases[i].max));
    assert_int_equal(r->kind, PD_IR_REPEAT);
    assert_int_equal(r->a, cases[i].a_is_x ? x : inner);
    assert_int_equal(r->off, cases[i].off);
    assert_int_equal(r->n, cases[i].n);
  }
  pd_ir_free(&ir);
}

/* Every allocation of a small build fails in turn: the failure is sticky, nothing leaks. */
static void test_alloc_failure(void **state) {
  (void)state;
  for (long n = 1;; n++) {
    pdt_alloc_reset(n);
    pd_ir ir;
    pd_ir_init(&ir, &pdt_allocator);
    uint32_t r = pd_ir_rule_named(&ir, "root", 4);
    uint32_t pairs[] = {'a', 'z'};
    uint32_t k[3] = {pd_ir_bytes(&ir, "x", 1), pd_ir_class(&ir, pairs, 1, true), pd_ir_ref(&ir, r)};
    pd_ir_rule_define(&ir, r, pd_ir_alt(&ir, k, 3));
    bool failed = pdt_alloc.failed;
    assert_int_equal(ir.oom, failed);
    pd_ir_free(&ir);
    assert_int_equal(pdt_alloc.live, 0);
    if (!failed) break;
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_class_normalizes),
      cmocka_unit_test(test_class_negation),
      cmocka_unit_test(test_rules_and_dump),
      cmocka_unit_test(test_repeat_folds),
      cmocka_unit_test(test_alloc_failure),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
