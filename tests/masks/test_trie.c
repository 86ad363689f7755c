/* test_trie.c - the vocabulary trie (true prefix skips) and adaptive token sets. */
#include "support.h"

#include <stdlib.h>
#include <string.h>

#include "masks/tokset.h"
#include "masks/trie.h"

static pd_vocab *pdt__vocab(const char *const *toks, const uint32_t *flags, size_t n,
                            const pd_allocator *a) {
  const uint8_t *b[64];
  size_t lens[64];
  for (size_t i = 0; i < n; i++) {
    b[i] = (const uint8_t *)toks[i];
    lens[i] = strlen(toks[i]);
  }
  pd_vocab_options o = {.allocator = a, .width = (uint32_t)n + 7};
  pd_vocab *v = NULL;
  assert_int_equal(pd_vocab_from_list(b, lens, flags, n, &o, &v, NULL), PD_OK);
  return v;
}

static const char *const pdt__toks[] = {"ab", "a", "abc", "b", "", "ba", "abd", "xab", "ab",
                                        "<s>", "\xc3\xa9", "\xc3", "a\xc3"};
#define PDT_NTOKS (sizeof pdt__toks / sizeof pdt__toks[0])

static bool pdt__prefix(const char *p, const char *s) { return !strncmp(p, s, strlen(p)); }

/* lcp and skip agree with the definitions, checked pairwise. */
static void test_trie_definitions(void **state) {
  (void)state;
  uint32_t flags[PDT_NTOKS] = {0};
  flags[9] = PD_TOKEN_SPECIAL;
  pd_vocab *v = pdt__vocab(pdt__toks, flags, PDT_NTOKS, NULL);
  pd_trie t;
  assert_int_equal(pd_trie_build(&t, v, NULL, NULL), PD_OK);
  assert_int_equal(t.n, PDT_NTOKS - 2); /* no empty token, no special */
  assert_int_equal(t.max_len, 3);
  for (uint32_t i = 0; i < t.n; i++) {
    const char *s = pdt__toks[t.order[i]];
    assert_true(t.order[i] != 4 && t.order[i] != 9);
    if (i) assert_true(strcmp(pdt__toks[t.order[i - 1]], s) <= 0);
    uint32_t k = i + 1;
    while (k < t.n && pdt__prefix(s, pdt__toks[t.order[k]])) k++;
    assert_int_equal(t.skip[i], k);
    for (uint32_t d = 0; d <= strlen(s); d++) {
      uint32_t e = i + 1;
      while (e < t.n && !strncmp(s, pdt__toks[t.order[e]], d)) e++;
      assert_int_equal(pd_trie_skip_depth(&t, i, d), e);
    }
  }
  /* "xab" contains "ab" but does not begin with it: a substring test would skip it */
  uint32_t ab = 0;
  while (strcmp(pdt__toks[t.order[ab]], "ab")) ab++;
  for (uint32_t k = ab + 1; k < t.skip[ab]; k++)
    assert_true(pdt__prefix("ab", pdt__toks[t.order[k]]));
  pd_trie_free(&t, NULL);
  pd_vocab_free(v);
}

static void test_trie_nomem(void **state) {
  (void)state;
  for (long n = 1;; n++) {
    pd_vocab *v = pdt__vocab(pdt__toks, NULL, PDT_NTOKS, NULL);
    pdt_alloc_reset(n);
    pd_trie t;
    pd_status st = pd_trie_build(&t, v, &pdt_allocator, NULL);
    if (st == PD_OK) pd_trie_free(&t, &pdt_allocator);
    assert_true(st == PD_OK || st == PD_ERR_NOMEM);
    assert_int_equal(pdt_alloc.live, 0);
    pd_vocab_free(v);
    if (!pdt_alloc.failed) break;
  }
}

/* Every density picks the smallest form and reads back the same members. */
static void test_tokset_forms(void **state) {
  (void)state;
  enum { W = 40, BITS = W * 32 };
  uint32_t uni[W], bits[W], row[W];
  srand(7);
  for (int round = 0; round < 200; round++) {
    size_t ucount = 0, count = 0;
    int density = rand() % 101;
    for (int w = 0; w < W; w++) uni[w] = (uint32_t)rand() ^ ((uint32_t)rand() << 16);
    memset(bits, 0, sizeof bits);
    for (uint32_t t = 0; t < BITS; t++)
      if (pd_bit_get(uni, t)) {
        ucount++;
        if (rand() % 100 < density) pd_bit_set(bits, t), count++;
      }
    pd_universe u = {uni, W, ucount};
    pd_tokset s;
    assert_int_equal(pd_tokset_from_bits(&s, bits, count, &u, NULL, NULL), PD_OK);
    size_t best = count < ucount - count ? count : ucount - count;
    if (best > W) best = W;
    assert_int_equal(s.n, best);
    assert_int_equal(pd_tokset_count(&s, &u), count);
    for (uint32_t t = 0; t < BITS + 40; t++)
      assert_int_equal(pd_tokset_has(&s, t, &u), t < BITS && pd_bit_get(bits, t));
    const pd_tokset *one = &s;
    pd_tokset_union(&one, 1, row, &u);
    assert_memory_equal(row, bits, sizeof bits);
    pd_tokset_free(&s, NULL);
  }
}

/* Unions of mixed forms, including several complements, equal the plain OR. */
static void test_tokset_union(void **state) {
  (void)state;
  enum { W = 8, BITS = W * 32, K = 4 };
  uint32_t uni[W], bits[K][W], want[W], row[W];
  srand(11);
  for (int round = 0; round < 300; round++) {
    size_t ucount = 0;
    for (int w = 0; w < W; w++) uni[w] = (uint32_t)rand() | 0x0f0f0f0fu;
    for (uint32_t t = 0; t < BITS; t++) ucount += pd_bit_get(uni, t);
    pd_universe u = {uni, W, ucount};
    pd_tokset sets[K];
    const pd_tokset *ptr[K];
    memset(want, 0, sizeof want);
    size_t n = (size_t)(rand() % (K + 1));
    for (size_t k = 0; k < n; k++) {
      int density = (int[]){2, 50, 97, 100}[rand() % 4];
      size_t count = 0;
      memset(bits[k], 0, sizeof bits[k]);
      for (uint32_t t = 0; t < BITS; t++)
        if (pd_bit_get(uni, t) && rand() % 100 < density) pd_bit_set(bits[k], t), count++;
      for (int w = 0; w < W; w++) want[w] |= bits[k][w];
      assert_int_equal(pd_tokset_from_bits(&sets[k], bits[k], count, &u, NULL, NULL), PD_OK);
      ptr[k] = &sets[k];
    }
    pd_tokset_union(ptr, n, row, &u);
    assert_memory_equal(row, want, sizeof want);
    for (size_t k = 0; k < n; k++) pd_tokset_free(&sets[k], NULL);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_trie_definitions),
      cmocka_unit_test(test_trie_nomem),
      cmocka_unit_test(test_tokset_forms),
      cmocka_unit_test(test_tokset_union),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
