/* test_trie.c - the vocabulary trie (true prefix skips), adaptive token sets,
 * and the cache's entries (packed keys, shared sets). */
#include "support.h"

#include <stdlib.h>
#include <string.h>

#include "base/bits.h"
#include "masks/cache.h"
#include "masks/tokset.h"
#include "masks/trie.h"
#include "masks/vocab.h"

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
  for (uint32_t id = 0; id < PDT_NTOKS; id++) /* pos inverts order */
    assert_true(t.pos[id] == UINT32_MAX ? id == 4 || id == 9 : t.order[t.pos[id]] == id);
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
  assert_int_equal(t.first[0], 0); /* first[b]: the positions of first byte b, in order */
  assert_int_equal(t.first[256], t.n);
  for (uint32_t b = 0; b < 256; b++)
    for (uint32_t i = t.first[b]; i < t.first[b + 1]; i++)
      assert_int_equal((uint8_t)pdt__toks[t.order[i]][0], b);
  /* "xab" contains "ab" but does not begin with it: a substring test would skip it */
  uint32_t ab = 0;
  while (strcmp(pdt__toks[t.order[ab]], "ab")) ab++;
  for (uint32_t k = ab + 1; k < t.skip[ab]; k++)
    assert_true(pdt__prefix("ab", pdt__toks[t.order[k]]));
  pd_trie_free(&t, NULL);
  pd_vocab_free(v);
}

/* The node arrays against the tokens: a node is a distinct prefix, met in
 * walk order, with the first token through it, the tokens ending there (the
 * two "ab" end at one node) and the end of its subtree. */
static void test_trie_nodes(void **state) {
  (void)state;
  pd_vocab *v = pdt__vocab(pdt__toks, NULL, PDT_NTOKS, NULL);
  pd_trie t;
  assert_int_equal(pd_trie_build(&t, v, NULL, NULL), PD_OK);
  char prefixes[64][4];
  uint32_t n_prefixes = 0, total = 0, two = 0;
  for (uint32_t i = 0; i < t.n; i++) { /* the distinct prefixes, brute force */
    const char *s = pdt__toks[t.order[i]];
    for (size_t d = 1; d <= strlen(s); d++) {
      uint32_t k = 0;
      while (k < n_prefixes && (strlen(prefixes[k]) != d || strncmp(prefixes[k], s, d))) k++;
      if (k == n_prefixes) memcpy(prefixes[n_prefixes], s, d), prefixes[n_prefixes++][d] = 0;
    }
  }
  assert_int_equal(t.n_nodes, n_prefixes);
  assert_int_equal(t.node_at[t.n], t.n_nodes);
  for (uint32_t i = 0; i < t.n; i++) {
    assert_int_equal(t.node_at[i + 1] - t.node_at[i], strlen(pdt__toks[t.order[i]]) - t.lcp[i]);
    for (uint32_t j = t.node_at[i]; j < t.node_at[i + 1]; j++) assert_int_equal(t.node_tok[j], i);
  }
  for (uint32_t j = 0; j < t.n_nodes; j++) {
    uint32_t d = t.node_info[j] >> 16, ends = t.node_info[j] >> 8 & 0xff, tok = t.node_tok[j];
    char path[4] = {0};
    memcpy(path, pdt__toks[t.order[tok]], d + 1);
    assert_int_equal((uint8_t)path[d], t.node_info[j] & 0xff);
    uint32_t first = 0, alike = 0;
    while (!pdt__prefix(path, pdt__toks[t.order[first]])) first++;
    assert_int_equal(first, tok);
    for (uint32_t i = 0; i < t.n; i++) alike += !strcmp(pdt__toks[t.order[i]], path);
    assert_int_equal(ends, alike);
    for (uint32_t i = tok; i < tok + ends; i++) assert_string_equal(pdt__toks[t.order[i]], path);
    uint32_t k = j + 1;
    while (k < t.n_nodes && (t.node_info[k] >> 16) > d) k++;
    assert_int_equal(t.node_skip[j], k);
    total += ends, two += ends == 2;
  }
  assert_int_equal(total, t.n); /* every token ends at one node */
  assert_int_equal(two, 1);
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

/* A set built from its nonzero words equals the one built from the row, in
 * every form (the words given in any order). */
static void test_tokset_from_words(void **state) {
  (void)state;
  enum { W = 64, BITS = W * 32 };
  uint32_t uni[W], bits[W], words[W];
  srand(13);
  for (int round = 0; round < 300; round++) {
    size_t ucount = 0, count = 0, n = 0;
    for (int w = 0; w < W; w++) uni[w] = (uint32_t)rand() | 0x11111111u;
    for (uint32_t t = 0; t < BITS; t++) ucount += pd_bit_get(uni, t);
    memset(bits, 0, sizeof bits);
    int density = (int[]){0, 1, 5, 50, 99, 100}[rand() % 6], spread = 1 + rand() % W;
    for (uint32_t t = 0; t < BITS; t++)
      if (pd_bit_get(uni, t) && (int)(t / 32) % spread == 0 && rand() % 100 < density)
        pd_bit_set(bits, t), count++;
    for (int w = W - 1; w >= 0; w--) /* descending: the function sorts them */
      if (bits[w]) words[n++] = (uint32_t)w;
    pd_universe u = {uni, W, ucount};
    pd_tokset a, b;
    assert_int_equal(pd_tokset_from_bits(&a, bits, count, &u, NULL, NULL), PD_OK);
    assert_int_equal(pd_tokset_from_words(&b, bits, words, n, &u, NULL, NULL), PD_OK);
    assert_int_equal(a.kind, b.kind);
    assert_int_equal(a.n, b.n);
    if (a.n) assert_memory_equal(a.data, b.data, a.n * sizeof *a.data);
    pd_tokset_free(&a, NULL);
    pd_tokset_free(&b, NULL);
  }
}

/* Cache entries: a key is found again exactly (words of every width: the
 * cache packs them), a key one word longer or different is not, and two
 * classes with the same members share them and pay for them once. */
static void test_cache_entries(void **state) {
  (void)state;
  pd_vocab *v = pdt__vocab(pdt__toks, NULL, PDT_NTOKS, NULL);
  pd_mask_cache *c;
  assert_int_equal(pd_mask_cache_get(v, &c, NULL), PD_OK);
  uint32_t k1[] = {0, 127, 128, 16383, 16384, 1u << 28, (1u << 28) - 1, UINT32_MAX, 5};
  uint32_t k2[] = {0, 127, 128, 16383, 16384, 1u << 28, (1u << 28) - 1, UINT32_MAX, 6};
  size_t n = sizeof k1 / sizeof *k1;
  uint64_t h1 = pd_hash_words(k1, n), h2 = pd_hash_words(k2, n);
  uint32_t ids[] = {1, 3, 5}, *acc1 = malloc(sizeof ids), *acc2 = malloc(sizeof ids);
  memcpy(acc1, ids, sizeof ids);
  memcpy(acc2, ids, sizeof ids);
  pd_mask_class c1 = {{PD_TOKSET_IDS, 3, acc1}, {PD_TOKSET_IDS, 0, NULL}};
  pd_mask_class c2 = {{PD_TOKSET_IDS, 3, acc2}, {PD_TOKSET_IDS, 0, NULL}};
  pd_cache_stats s0, s1, s2;
  pd_vocab_cache_stats(v, &s0);
  const pd_mask_class *e1 = pd_mask_cache_put(c, v->alloc, k1, n, h1, &c1);
  pd_vocab_cache_stats(v, &s1);
  const pd_mask_class *e2 = pd_mask_cache_put(c, v->alloc, k2, n, h2, &c2);
  pd_vocab_cache_stats(v, &s2);
  assert_non_null(e1);
  assert_non_null(e2);
  assert_ptr_not_equal(e1, e2);
  assert_null(c1.accepted.data); /* the cache took both */
  assert_null(c2.accepted.data);
  assert_ptr_equal(e1->accepted.data, e2->accepted.data);
  assert_memory_equal(e2->accepted.data, ids, sizeof ids);
  assert_int_equal(s2.classes, 2);
  assert_true(s2.bytes - s1.bytes < s1.bytes - s0.bytes); /* the second paid no set */
  assert_ptr_equal(pd_mask_cache_find(c, k1, n, h1), e1);
  assert_ptr_equal(pd_mask_cache_find(c, k2, n, h2), e2);
  uint32_t k3[sizeof k1 / sizeof *k1 + 1];
  memcpy(k3, k1, sizeof k1);
  k3[n] = 0;
  assert_null(pd_mask_cache_find(c, k3, n + 1, pd_hash_words(k3, n + 1)));
  assert_null(pd_mask_cache_find(c, k3, n - 1, pd_hash_words(k3, n - 1)));
  k3[7] = UINT32_MAX - 1; /* same hash forced: only the words differ */
  assert_null(pd_mask_cache_find(c, k3, n, h1));
  pd_vocab_free(v);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_trie_definitions),
      cmocka_unit_test(test_trie_nodes),
      cmocka_unit_test(test_trie_nomem),
      cmocka_unit_test(test_tokset_forms),
      cmocka_unit_test(test_tokset_union),
      cmocka_unit_test(test_tokset_from_words),
      cmocka_unit_test(test_cache_entries),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
