/* test_jumper.c - jump-forward: forced bytes -> canonical tokens, holding back
 * the tail a longer token could extend. */
#include <stdlib.h>
#include <string.h>

#include "support.h"

static pd_vocab *pdt_llama;

static int pdt__load(void **state) {
  (void)state;
  const char *path = pdt_data("tokenizers/llama3/tokenizer.json");
  if (path && pd_vocab_load_hf(path, NULL, NULL, &pdt_llama, NULL) != PD_OK) return -1;
  return 0;
}

static int pdt__unload(void **state) {
  (void)state;
  pd_vocab_free(pdt_llama);
  return 0;
}

static pd_grammar *pdt__gbnf(pd_vocab *v, const char *text) {
  pd_grammar *g = NULL;
  pd_error err;
  assert_int_equal(pd_grammar_compile_gbnf(text, strlen(text), v, NULL, &g, &err), PD_OK);
  return g;
}

/* Concatenated bytes of ids[0..n) into buf; returns the length. */
static size_t pdt__bytes(const pd_vocab *v, const uint32_t *ids, size_t n, char *buf) {
  size_t len = 0;
  for (size_t i = 0; i < n; i++) {
    const uint8_t *b;
    size_t bl;
    uint32_t flags;
    assert_int_equal(pd_vocab_token(v, ids[i], &b, &bl, &flags), PD_OK);
    memcpy(buf + len, b, bl);
    len += bl;
  }
  return len;
}

/* Whether some normal token of v has s[0..len) as a proper prefix (brute force). */
static bool pdt__extended(const pd_vocab *v, const char *s, size_t len) {
  for (uint32_t id = 0; id < pd_vocab_size(v); id++) {
    const uint8_t *b;
    size_t bl;
    uint32_t flags;
    if (pd_vocab_token(v, id, &b, &bl, &flags) == PD_OK && !flags && bl > len &&
        !memcmp(b, s, len))
      return true;
  }
  return false;
}

static void test_forced_prefix_is_canonical_and_safe(void **state) {
  (void)state;
  if (!pdt_llama) skip();
  pd_grammar *g =
      pdt__gbnf(pdt_llama, "root ::= \"{\\\"name\\\": \\\"\" [a-z]+ \"\\\", \\\"id\\\": 1}\"\n");
  pd_jumper *j;
  assert_int_equal(pd_jumper_new(pdt_llama, &j, NULL), PD_OK);
  pd_matcher *m;
  assert_int_equal(pd_matcher_new(g, &m, NULL), PD_OK);
  uint32_t ids[64];
  size_t n = 0;
  assert_int_equal(pd_jumper_tokens(j, m, ids, 64, &n, NULL), PD_OK);
  const char *forced = "{\"name\": \"";
  size_t flen = strlen(forced);
  char got[256];
  size_t glen = pdt__bytes(pdt_llama, ids, n, got);
  assert_true(n > 0 && glen < flen);           /* something, but not the tail */
  assert_memory_equal(got, forced, glen);      /* a prefix of the forced text */
  uint32_t *enc;
  size_t n_enc;
  assert_int_equal(pd_vocab_encode(pdt_llama, (const uint8_t *)forced, flen, &enc, &n_enc, NULL),
                   PD_OK);
  assert_true(n <= n_enc);
  assert_memory_equal(ids, enc, n * sizeof *ids); /* the canonical tokens */
  pd_free_ids(pdt_llama, enc);
  for (size_t p = 0; p < glen; p++) assert_false(pdt__extended(pdt_llama, forced + p, flen - p));
  bool held = false;
  for (size_t p = glen; p < flen; p++) held |= pdt__extended(pdt_llama, forced + p, flen - p);
  assert_true(held); /* the held-back tail really could be extended */
  assert_int_equal(pd_matcher_num_tokens(m), 0);
  /* emit them; inside [a-z]+ nothing is forced */
  for (size_t i = 0; i < n; i++) assert_int_equal(pd_matcher_accept_token(m, ids[i], NULL), PD_OK);
  assert_int_equal(pd_matcher_accept_bytes(m, (const uint8_t *)forced + glen, flen - glen, NULL,
                                           NULL), PD_OK);
  assert_int_equal(pd_jumper_tokens(j, m, ids, 64, &n, NULL), PD_OK);
  assert_int_equal(n, 0);
  /* after the name's closing quote the rest is forced up to the end */
  assert_int_equal(pd_matcher_accept_bytes(m, (const uint8_t *)"bob\"", 4, NULL, NULL), PD_OK);
  assert_int_equal(pd_jumper_tokens(j, m, ids, 64, &n, NULL), PD_OK);
  glen = pdt__bytes(pdt_llama, ids, n, got);
  assert_true(n > 0);
  assert_memory_equal(got, ", \"id\": 1}", glen);
  /* cap */
  assert_int_equal(pd_jumper_tokens(j, m, ids, 1, &n, NULL), PD_OK);
  assert_int_equal(n, 1);
  pd_matcher_free(m);
  pd_jumper_free(j);
  pd_grammar_free(g);
}

static void test_list_vocab_and_arguments(void **state) {
  (void)state;
  const uint8_t *t[3] = {(const uint8_t *)"a", (const uint8_t *)"b", (const uint8_t *)"ab"};
  size_t lens[3] = {1, 1, 2};
  for (long fail = 1;; fail++) {
    pdt_alloc_reset(fail);
    pd_vocab_options o = {.allocator = &pdt_allocator};
    pd_vocab *v = NULL;
    pd_jumper *j = NULL;
    pd_status st = pd_vocab_from_list(t, lens, NULL, 3, &o, &v, NULL);
    if (st == PD_OK) st = pd_jumper_new(v, &j, NULL);
    if (st != PD_OK) assert_int_equal(st, PD_ERR_NOMEM);
    pd_jumper_free(j);
    pd_vocab_free(v);
    assert_int_equal(pdt_alloc.live, 0);
    if (!pdt_alloc.failed) break;
  }
  pd_vocab *v;
  assert_int_equal(pd_vocab_from_list(t, lens, NULL, 3, NULL, &v, NULL), PD_OK);
  pd_jumper *j;
  assert_int_equal(pd_jumper_new(v, &j, NULL), PD_OK);
  pd_grammar *g = pdt__gbnf(v, "root ::= \"ab\" [ab]\n");
  pd_matcher *m;
  assert_int_equal(pd_matcher_new(g, &m, NULL), PD_OK);
  uint32_t ids[4];
  size_t n = 7;
  pd_error err;
  /* a plain list has no canonical encoder: said, not guessed */
  assert_int_equal(pd_jumper_tokens(j, m, ids, 4, &n, &err), PD_ERR_UNSUPPORTED);
  assert_int_equal(n, 0);
  assert_int_equal(pd_jumper_tokens(j, m, ids, 0, &n, &err), PD_OK);
  assert_int_equal(n, 0);
  assert_int_equal(pd_jumper_tokens(NULL, m, ids, 4, &n, &err), PD_ERR_ARG);
  assert_int_equal(pd_jumper_new(NULL, &j, &err), PD_ERR_ARG);
  pd_matcher_free(m);
  pd_grammar_free(g);
  pd_jumper_free(j);
  pd_vocab_free(v);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_forced_prefix_is_canonical_and_safe),
      cmocka_unit_test(test_list_vocab_and_arguments),
  };
  return cmocka_run_group_tests(tests, pdt__load, pdt__unload);
}
