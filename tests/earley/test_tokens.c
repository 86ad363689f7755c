/* test_tokens.c - tokens, EOS, rollback, fork, validate, forced bytes, limits,
 * API misuse and allocation failure. */
#include <stdlib.h>

#include "helpers.h"

/* vocab: 0 "a", 1 "b", 2 "ab", 3 "<s>" special, 4 "</s>" eos, 5 hole, 6 "", 7 "{", 8 "}" */
static pd_vocab *pdt_vocab(const pd_allocator *alloc) {
  static const char *texts[] = {"a", "b", "ab", "<s>", "</s>", "", "", "{", "}"};
  const uint8_t *t[9];
  size_t lens[9];
  uint32_t flags[9] = {0, 0, 0, PD_TOKEN_SPECIAL, PD_TOKEN_EOS, PD_TOKEN_HOLE, 0, 0, 0};
  for (int i = 0; i < 9; i++) {
    t[i] = (const uint8_t *)texts[i];
    lens[i] = strlen(texts[i]);
  }
  pd_vocab_options o = {.allocator = alloc};
  pd_vocab *v = NULL;
  if (pd_vocab_from_list(t, lens, flags, 9, &o, &v, NULL)) return NULL;
  return v;
}

/* root ::= ("a" | "b")* <[3]> "b"? | "{" !<[0]> "}" */
static void pdt_token_ir(pd_ir *ir) {
  uint32_t ab = pd_ir_alt2(ir, pdt_lit(ir, "a"), pdt_lit(ir, "b"));
  uint32_t k[3] = {pd_ir_repeat(ir, ab, 0, PD_IR_INF), pd_ir_token(ir, 3, false),
                   pd_ir_repeat(ir, pdt_lit(ir, "b"), 0, 1)};
  uint32_t k2[3] = {pdt_lit(ir, "{"), pd_ir_token(ir, 0, true), pdt_lit(ir, "}")};
  pdt_def(ir, "root", pd_ir_alt2(ir, pd_ir_seq(ir, k, 3), pd_ir_seq(ir, k2, 3)));
}

static void test_token_edges_and_eos(void **state) {
  (void)state;
  pd_vocab *v = pdt_vocab(NULL);
  pd_ir ir;
  pd_ir_init(&ir, NULL);
  pdt_token_ir(&ir);
  pd_grammar *g = pdt_compile(&ir, v);
  pd_matcher *m = NULL;
  pd_error err;
  assert_int_equal(pd_matcher_new(g, &m, NULL), PD_OK);
  assert_int_equal(pd_matcher_accept_token(m, 2, NULL), PD_OK);           /* "ab" */
  assert_int_equal(pd_matcher_accept_token(m, 4, &err), PD_ERR_REJECTED); /* not complete */
  assert_int_equal(pd_matcher_accept_bytes(m, (const uint8_t *)"<s>", 3, NULL, NULL),
                   PD_ERR_REJECTED);                            /* special text never matches */
  assert_int_equal(pd_matcher_accept_token(m, 3, NULL), PD_OK); /* <[3]> */
  assert_true(pd_matcher_is_accepting(m));
  assert_false(pd_matcher_is_terminated(m));
  assert_int_equal(pd_matcher_accept_token(m, 1, NULL), PD_OK); /* "b" */
  assert_true(pd_matcher_is_terminated(m));                     /* accepting, nothing can follow */
  assert_int_equal(pd_matcher_accept_token(m, 4, NULL), PD_OK); /* EOS */
  assert_true(pd_matcher_is_terminated(m));
  assert_int_equal(pd_matcher_accept_token(m, 0, &err), PD_ERR_STATE);
  assert_int_equal(pd_matcher_accept_bytes(m, (const uint8_t *)"a", 1, NULL, &err), PD_ERR_STATE);
  assert_int_equal(pd_matcher_num_tokens(m), 4);
  assert_int_equal(pd_matcher_rollback(m, 1, NULL), PD_OK);
  assert_false(pd_matcher_is_terminated(m) && pd_matcher_num_tokens(m) != 3);
  /* bad ids */
  assert_int_equal(pd_matcher_accept_token(m, 5, &err), PD_ERR_REJECTED);
  assert_int_equal(pd_matcher_accept_token(m, 99, &err), PD_ERR_REJECTED);
  assert_true(strstr(err.message, "outside") != NULL);
  /* negated token edge: any token but 0, including specials */
  pd_matcher_reset(m);
  assert_int_equal(pd_matcher_accept_token(m, 7, NULL), PD_OK);
  assert_int_equal(pd_matcher_accept_token(m, 0, NULL), PD_ERR_REJECTED);
  assert_int_equal(pd_matcher_accept_token(m, 3, NULL), PD_OK);
  assert_int_equal(pd_matcher_accept_token(m, 8, NULL), PD_OK);
  assert_true(pd_matcher_is_accepting(m));
  /* zero-byte normal token: always accepted */
  assert_int_equal(pd_matcher_accept_token(m, 6, NULL), PD_OK);
  pd_matcher_free(m);
  pd_grammar_free(g);
  /* without a vocab: tokens are a state error */
  g = pdt_compile(&ir, NULL);
  assert_int_equal(pd_matcher_new(g, &m, NULL), PD_OK);
  assert_int_equal(pd_matcher_accept_token(m, 0, &err), PD_ERR_STATE);
  pd_matcher_free(m);
  pd_grammar_free(g);
  pd_ir_free(&ir);
  pd_vocab_free(v);
}

/* A normal token matching both as text and through a token edge: both paths live. */
static void test_text_and_token_edge(void **state) {
  (void)state;
  pd_vocab *v = pdt_vocab(NULL);
  pd_ir ir;
  pd_ir_init(&ir, NULL);
  /* root ::= "a" "x" | <[0]> "y" | "a" <[2]> */
  uint32_t alts[3] = {pdt_lit(&ir, "ax"),
                      pd_ir_seq2(&ir, pd_ir_token(&ir, 0, false), pdt_lit(&ir, "y")),
                      pd_ir_seq2(&ir, pdt_lit(&ir, "a"), pd_ir_token(&ir, 2, false))};
  pdt_def(&ir, "root", pd_ir_alt(&ir, alts, 3));
  pd_grammar *g = pdt_compile(&ir, v);
  pd_matcher *m = NULL, *f = NULL;
  assert_int_equal(pd_matcher_new(g, &m, NULL), PD_OK);
  assert_int_equal(pd_matcher_accept_token(m, 0, NULL), PD_OK);
  assert_int_equal(pd_matcher_fork(m, &f, NULL), PD_OK);
  assert_int_equal(pd_matcher_accept_bytes(m, (const uint8_t *)"x", 1, NULL, NULL), PD_OK);
  assert_true(pd_matcher_is_accepting(m));
  assert_int_equal(pd_matcher_rollback(m, 1, NULL), PD_OK); /* drops the bytes after it too */
  assert_int_equal(pd_matcher_accept_token(m, 0, NULL), PD_OK);
  assert_int_equal(pd_matcher_accept_bytes(m, (const uint8_t *)"y", 1, NULL, NULL), PD_OK);
  assert_true(pd_matcher_is_accepting(m));
  assert_int_equal(pd_matcher_accept_token(f, 2, NULL), PD_OK); /* "ab" only as token 2 */
  assert_true(pd_matcher_is_accepting(f));
  pd_matcher_free(f);
  pd_matcher_free(m);
  pd_grammar_free(g);
  pd_ir_free(&ir);
  pd_vocab_free(v);
}

/* Rollback to every depth equals replaying the prefix on a fresh matcher. */
static void test_rollback_replay(void **state) {
  (void)state;
  pd_vocab *v = pdt_vocab(NULL);
  pd_ir ir;
  pd_ir_init(&ir, NULL);
  pdt_token_ir(&ir);
  pd_grammar *g = pdt_compile(&ir, v);
  uint32_t ids[] = {0, 2, 1, 6, 0, 0, 2, 3, 1};
  size_t n = sizeof ids / sizeof ids[0];
  pd_matcher *m = NULL, *f = NULL;
  assert_int_equal(pd_matcher_new(g, &m, NULL), PD_OK);
  for (size_t i = 0; i < n; i++) assert_int_equal(pd_matcher_accept_token(m, ids[i], NULL), PD_OK);
  size_t ok = 99;
  assert_int_equal(pd_matcher_validate_tokens(m, ids, 2, &ok, NULL), PD_OK);
  assert_int_equal(ok, 0); /* nothing follows the final "b" */
  for (size_t depth = 0; depth <= n; depth++) {
    assert_int_equal(pd_matcher_fork(m, &f, NULL), PD_OK);
    assert_int_equal(pd_matcher_rollback(f, depth, NULL), PD_OK);
    pd_matcher *fresh = NULL;
    assert_int_equal(pd_matcher_new(g, &fresh, NULL), PD_OK);
    for (size_t i = 0; i < n - depth; i++)
      assert_int_equal(pd_matcher_accept_token(fresh, ids[i], NULL), PD_OK);
    size_t a, b;
    const pd_earley_item *x = pd_earley_current(f, &a), *y = pd_earley_current(fresh, &b);
    assert_int_equal(a, b);
    assert_memory_equal(x, y, a * sizeof *x);
    assert_int_equal(f->rows.len, fresh->rows.len);
    assert_int_equal(pd_matcher_num_tokens(f), n - depth);
    pd_matcher_free(fresh);
    pd_matcher_free(f);
  }
  assert_int_equal(pd_matcher_rollback(m, n + 1, NULL), PD_ERR_ARG);
  /* validate: how many in a row */
  pd_matcher_reset(m);
  uint32_t seq[] = {0, 1, 3, 4, 0};
  assert_int_equal(pd_matcher_validate_tokens(m, seq, 5, &ok, NULL), PD_OK);
  assert_int_equal(ok, 4);
  assert_int_equal(pd_matcher_num_tokens(m), 0);
  /* fork independence */
  assert_int_equal(pd_matcher_fork(m, &f, NULL), PD_OK);
  assert_int_equal(pd_matcher_accept_token(f, 7, NULL), PD_OK);
  assert_int_equal(pd_matcher_num_tokens(m), 0);
  assert_int_equal(pd_matcher_accept_token(m, 0, NULL), PD_OK);
  assert_int_equal(pd_matcher_accept_token(f, 0, NULL), PD_ERR_REJECTED);
  pd_matcher_free(f);
  pd_matcher_free(m);
  pd_grammar_free(g);
  pd_ir_free(&ir);
  pd_vocab_free(v);
}

static void test_forced_bytes(void **state) {
  (void)state;
  pd_ir ir;
  pd_ir_init(&ir, NULL);
  /* root ::= "{\"key\":" ("1" | "2") "}" */
  uint32_t k[3] = {pdt_lit(&ir, "{\"key\":"), pd_ir_alt2(&ir, pdt_lit(&ir, "1"), pdt_lit(&ir, "2")),
                   pdt_lit(&ir, "}")};
  pdt_def(&ir, "root", pd_ir_seq(&ir, k, 3));
  pd_grammar *g = pdt_compile(&ir, NULL);
  pd_matcher *m = NULL;
  assert_int_equal(pd_matcher_new(g, &m, NULL), PD_OK);
  uint8_t buf[32];
  size_t len;
  assert_int_equal(pd_matcher_forced_bytes(m, buf, sizeof buf, &len, NULL), PD_OK);
  assert_int_equal(len, 7);
  assert_memory_equal(buf, "{\"key\":", 7);
  assert_int_equal(pd_matcher_forced_bytes(m, buf, 3, &len, NULL), PD_OK);
  assert_int_equal(len, 3);
  assert_int_equal(pd_matcher_accept_bytes(m, buf, 3, NULL, NULL), PD_OK);
  assert_int_equal(pd_matcher_accept_bytes(m, (const uint8_t *)"ey\":2", 5, NULL, NULL), PD_OK);
  assert_int_equal(pd_matcher_forced_bytes(m, buf, sizeof buf, &len, NULL), PD_OK);
  assert_int_equal(len, 1);
  assert_int_equal(buf[0], '}');
  assert_int_equal(pd_matcher_forced_bytes(m, NULL, 4, &len, NULL), PD_ERR_ARG);
  pd_matcher_free(m);
  pd_grammar_free(g);
  pd_ir_free(&ir);
}

static void test_limits_and_misuse(void **state) {
  (void)state;
  pd_ir ir;
  pd_ir_init(&ir, NULL);
  /* root ::= root root | "a": rows grow with the input */
  pdt_def(&ir, "root",
          pd_ir_alt2(&ir, pd_ir_seq2(&ir, pdt_ref(&ir, "root"), pdt_ref(&ir, "root")),
                     pdt_lit(&ir, "a")));
  ir.root = 0;
  pd_grammar_options o = {.max_items_per_row = 40};
  pd_grammar *g = NULL;
  pd_error err;
  assert_int_equal(pd_grammar_from_ir(&ir, NULL, &o, &g, &err), PD_OK);
  pd_matcher *m = NULL;
  assert_int_equal(pd_matcher_new(g, &m, NULL), PD_OK);
  size_t ok = 0;
  const uint8_t as[64] = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
  assert_int_equal(pd_matcher_accept_bytes(m, as, 60, &ok, &err), PD_ERR_LIMIT);
  assert_true(ok > 0 && ok < 60);
  assert_int_equal(pd_earley_num_rows(m), 1); /* unchanged */
  assert_int_equal(pd_matcher_accept_bytes(m, as, ok, NULL, NULL), PD_OK);
  pd_matcher_free(m);
  pd_grammar_free(g);
  /* NULLs and bad IR */
  assert_int_equal(pd_matcher_new(NULL, &m, &err), PD_ERR_ARG);
  assert_int_equal(pd_matcher_accept_bytes(NULL, as, 1, NULL, &err), PD_ERR_ARG);
  assert_int_equal(pd_matcher_rollback(NULL, 0, &err), PD_ERR_ARG);
  assert_false(pd_matcher_is_accepting(NULL));
  pd_matcher_free(NULL);
  pd_grammar_free(NULL);
  assert_string_equal(pd_grammar_relaxed(NULL), "");
  assert_int_equal(pd_grammar_from_ir(NULL, NULL, NULL, &g, &err), PD_ERR_ARG);
  pdt_def(&ir, "root", pd_ir_seq2(&ir, pdt_lit(&ir, "x"), pdt_ref(&ir, "missing")));
  assert_int_equal(pd_grammar_from_ir(&ir, NULL, NULL, &g, &err), PD_ERR_SEMANTIC);
  assert_non_null(strstr(err.message, "missing"));
  pdt_def(&ir, "missing", pd_ir_nothing(&ir));
  assert_int_equal(pd_grammar_from_ir(&ir, NULL, NULL, &g, &err), PD_ERR_SEMANTIC);
  ir.root = PD_IR_NONE;
  assert_int_equal(pd_grammar_from_ir(&ir, NULL, NULL, &g, &err), PD_ERR_SEMANTIC);
  pd_ir_free(&ir);
}

/* Fail every allocation in turn over compile + accept: a status, no leak. */
static void test_alloc_failure(void **state) {
  (void)state;
  for (long n = 1;; n++) {
    pdt_alloc_reset(n);
    pd_vocab *v = pdt_vocab(&pdt_allocator);
    pd_ir ir;
    pd_ir_init(&ir, &pdt_allocator);
    pdt_token_ir(&ir);
    pdt_def(&ir, "big", pd_ir_repeat(&ir, pdt_lit(&ir, "ab"), 30, 300));
    ir.root = pd_ir_rule_find(&ir, "root", 4);
    pd_grammar *g = NULL;
    pd_matcher *m = NULL, *f = NULL;
    pd_status s = v ? pd_grammar_from_ir(&ir, v, NULL, &g, NULL) : PD_ERR_NOMEM;
    if (!s) s = pd_matcher_new(g, &m, NULL);
    if (!s) s = pd_matcher_accept_bytes(m, (const uint8_t *)"abba", 4, NULL, NULL);
    if (!s) s = pd_matcher_accept_token(m, 2, NULL);
    if (!s) s = pd_matcher_fork(m, &f, NULL);
    if (!s) s = pd_matcher_accept_token(f, 3, NULL);
    assert_true(s == PD_OK || s == PD_ERR_NOMEM);
    pd_matcher_free(f);
    pd_matcher_free(m);
    pd_grammar_free(g);
    pd_ir_free(&ir);
    pd_vocab_free(v);
    assert_int_equal(pdt_alloc.live, 0);
    if (!pdt_alloc.failed) {
      assert_int_equal(s, PD_OK);
      break;
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_token_edges_and_eos), cmocka_unit_test(test_rollback_replay),
      cmocka_unit_test(test_forced_bytes),        cmocka_unit_test(test_limits_and_misuse),
      cmocka_unit_test(test_alloc_failure),        cmocka_unit_test(test_text_and_token_edge),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
