/* test_choice.c - the choice constraint: the trie's shape, exact membership
 * (through the IR interpreter and the matcher), deep and large lists,
 * arguments, and allocation failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir_eval.h"
#include "pda/choice.h"
#include "support.h"

static bool matcher_accepts(pd_matcher *m, const char *s, size_t len) {
  pd_matcher_reset(m);
  pd_status st = pd_matcher_accept_bytes(m, (const uint8_t *)s, len, NULL, NULL);
  if (st == PD_ERR_REJECTED) return false;
  assert_int_equal(st, PD_OK);
  return pd_matcher_is_accepting(m);
}

static void test_trie_shape(void **state) {
  (void)state;
  const char *words[] = {"banana", "band", "ban", "apple", "band", ""};
  pd_ir ir;
  pd_ir_init(&ir, NULL);
  uint32_t node;
  assert_int_equal(pd_choice_to_ir(&ir, words, NULL, 6, &node, NULL), PD_OK);
  pd_ir_rule_define(&ir, pd_ir_rule_named(&ir, "root", 4), node);
  char *dump;
  assert_int_equal(pd_ir_dump(&ir, &dump), PD_OK);
  assert_string_equal(dump, "root ::= (\"\" | \"apple\" | (\"ban\" (\"\" | \"ana\" | \"d\")))\n");
  pd__free(ir.alloc, dump);
  pd_ir_free(&ir);
}

static void test_membership(void **state) {
  (void)state;
  const char *words[] = {"yes", "no", "maybe", "y\0s", "nope", "no"};
  const size_t lens[] = {3, 2, 5, 3, 4, 2};
  const char *others[] = {"", "y", "ye", "yess", "n", "nop", "nopee", "maybee", "y\0", "Yes"};
  const size_t other_lens[] = {0, 1, 2, 4, 1, 3, 5, 6, 2, 3};
  pd_ir ir;
  pd_ir_init(&ir, NULL);
  uint32_t node;
  assert_int_equal(pd_choice_to_ir(&ir, words, lens, 6, &node, NULL), PD_OK);
  pd_grammar *g;
  pd_error err;
  assert_int_equal(pd_grammar_compile_choice(words, lens, 6, NULL, NULL, &g, &err), PD_OK);
  pd_matcher *m;
  assert_int_equal(pd_matcher_new(g, &m, NULL), PD_OK);
  for (size_t i = 0; i < 6; i++) {
    assert_int_equal(pdt_ir_matches(&ir, node, words[i], lens[i]), 1);
    assert_true(matcher_accepts(m, words[i], lens[i]));
  }
  for (size_t i = 0; i < 10; i++) {
    assert_int_equal(pdt_ir_matches(&ir, node, others[i], other_lens[i]), 0);
    assert_false(matcher_accepts(m, others[i], other_lens[i]));
  }
  pd_matcher_free(m);
  pd_grammar_free(g);
  pd_ir_free(&ir);
}

/* "a", "aa", ... nests one trie level per string: levels beyond the nesting
 * bound go to rules of their own, so neither the builder nor the IR recurse deeply. */
static void test_deep_chain(void **state) {
  (void)state;
  enum { N = 3000 };
  char *buf = malloc(N);
  memset(buf, 'a', N);
  const char **words = malloc(N * sizeof *words);
  size_t *lens = malloc(N * sizeof *lens);
  for (size_t i = 0; i < N; i++) {
    words[i] = buf;
    lens[i] = i + 1;
  }
  pd_grammar *g;
  pd_error err;
  assert_int_equal(pd_grammar_compile_choice(words, lens, N, NULL, NULL, &g, &err), PD_OK);
  pd_matcher *m;
  assert_int_equal(pd_matcher_new(g, &m, NULL), PD_OK);
  assert_true(matcher_accepts(m, buf, 1));
  assert_true(matcher_accepts(m, buf, 1777));
  assert_true(matcher_accepts(m, buf, N));
  assert_false(matcher_accepts(m, buf, 0));
  pd_matcher_reset(m);
  assert_int_equal(pd_matcher_accept_bytes(m, (const uint8_t *)buf, N, NULL, NULL), PD_OK);
  assert_int_equal(pd_matcher_accept_bytes(m, (const uint8_t *)"a", 1, NULL, NULL),
                   PD_ERR_REJECTED);
  pd_matcher_free(m);
  pd_grammar_free(g);
  free(lens);
  free(words);
  free(buf);
}

/* Many random words: each is accepted, and each with one byte changed only
 * when the change gives another word of the list. */
static void test_many_words(void **state) {
  (void)state;
  enum { N = 5000, LEN = 8 };
  char(*store)[LEN + 1] = calloc(N, sizeof *store);
  const char **words = malloc(N * sizeof *words);
  uint32_t x = 12345;
  for (size_t i = 0; i < N; i++) {
    size_t len = 1 + i % LEN;
    for (size_t k = 0; k < len; k++) {
      x = x * 1103515245u + 12345u;
      store[i][k] = (char)('a' + (x >> 16) % 4);
    }
    words[i] = store[i];
  }
  pd_ir ir;
  pd_ir_init(&ir, NULL);
  uint32_t node;
  assert_int_equal(pd_choice_to_ir(&ir, words, NULL, N, &node, NULL), PD_OK);
  pd_grammar *g;
  assert_int_equal(pd_grammar_compile_choice(words, NULL, N, NULL, NULL, &g, NULL), PD_OK);
  pd_matcher *m;
  assert_int_equal(pd_matcher_new(g, &m, NULL), PD_OK);
  for (size_t i = 0; i < N; i += 7) {
    size_t len = strlen(words[i]);
    assert_true(matcher_accepts(m, words[i], len));
    char changed[LEN + 2];
    memcpy(changed, words[i], len + 1);
    changed[i % len] = 'e';
    assert_false(matcher_accepts(m, changed, len));
    changed[len] = 'a';
    bool listed = false;
    for (size_t j = 0; j < N && !listed; j++)
      listed = strlen(words[j]) == len + 1 && memcmp(words[j], words[i], len) == 0 &&
               words[j][len] == 'a';
    memcpy(changed, words[i], len);
    assert_int_equal(matcher_accepts(m, changed, len + 1), listed);
    assert_int_equal(pdt_ir_matches(&ir, node, changed, len + 1), listed);
  }
  pd_matcher_free(m);
  pd_grammar_free(g);
  pd_ir_free(&ir);
  free(words);
  free(store);
}

static void test_arguments(void **state) {
  (void)state;
  pd_grammar *g = (pd_grammar *)&g;
  pd_error err;
  const char *one[] = {"x"};
  assert_int_equal(pd_grammar_compile_choice(one, NULL, 0, NULL, NULL, &g, &err), PD_ERR_ARG);
  assert_null(g);
  assert_non_null(strstr(err.message, "no strings"));
  assert_int_equal(pd_grammar_compile_choice(NULL, NULL, 1, NULL, NULL, &g, &err), PD_ERR_ARG);
  const char *holes[] = {"x", NULL};
  const size_t lens[] = {1, 3};
  assert_int_equal(pd_grammar_compile_choice(holes, lens, 2, NULL, NULL, &g, &err), PD_ERR_ARG);
  assert_int_equal(pd_grammar_compile_choice(one, NULL, 1, NULL, NULL, NULL, &err), PD_ERR_ARG);
  /* a NULL string of length 0 is the empty string */
  const size_t zero[] = {1, 0};
  assert_int_equal(pd_grammar_compile_choice(holes, zero, 2, NULL, NULL, &g, &err), PD_OK);
  pd_grammar_free(g);
}

/* Every allocation fails in turn: NOMEM, nothing leaks. */
static void test_alloc_failure(void **state) {
  (void)state;
  const char *words[] = {"alpha", "alps", "beta", "be", "gamma", "alpha"};
  pd_grammar_options opts = {0};
  opts.allocator = &pdt_allocator;
  for (long n = 1;; n++) {
    pdt_alloc_reset(n);
    pd_grammar *g = NULL;
    pd_error err;
    pd_status st = pd_grammar_compile_choice(words, NULL, 6, NULL, &opts, &g, &err);
    if (pdt_alloc.failed) {
      assert_int_equal(st, PD_ERR_NOMEM);
      assert_null(g);
    } else {
      assert_int_equal(st, PD_OK);
    }
    pd_grammar_free(g);
    assert_int_equal(pdt_alloc.live, 0);
    if (!pdt_alloc.failed) break;
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_trie_shape), cmocka_unit_test(test_membership),
      cmocka_unit_test(test_deep_chain), cmocka_unit_test(test_many_words),
      cmocka_unit_test(test_arguments),  cmocka_unit_test(test_alloc_failure),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
