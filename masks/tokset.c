/* tokset.c - adaptive token-set storage and unions (see tokset.h). */
#include "tokset.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/bits.h"
#include "base/error.h"

/* Writes the ids whose bit in bits equals want, within the universe. */
static void pd__list_ids(const uint32_t *bits, const pd_universe *u, bool want, uint32_t *out) {
  size_t k = 0;
  for (size_t w = 0; w < u->n_words; w++) {
    uint32_t x = want ? bits[w] : (u->bits[w] & ~bits[w]);
    while (x) {
      out[k++] = (uint32_t)(w * 32 + (unsigned)__builtin_ctz(x));
      x &= x - 1;
    }
  }
}

/* The smallest form for count members; sizes in 32-bit words: ids = count,
 * complement = rest, bitset = n_words. */
static void pd__pick_form(pd_tokset *s, size_t count, const pd_universe *u) {
  memset(s, 0, sizeof *s);
  size_t rest = u->count - count, words = u->n_words;
  if (count <= rest && count <= words)
    s->kind = PD_TOKSET_IDS, s->n = (uint32_t)count;
  else if (rest <= words)
    s->kind = PD_TOKSET_ALL_BUT, s->n = (uint32_t)rest;
  else
    s->kind = PD_TOKSET_BITS, s->n = (uint32_t)words;
}

pd_status pd_tokset_from_bits(pd_tokset *s, const uint32_t *bits, size_t count,
                              const pd_universe *u, const pd_allocator *a, pd_error *err) {
  pd__pick_form(s, count, u);
  size_t n = s->n;
  if (!n) return PD_OK;
  s->data = pd__malloc(a, n * sizeof *s->data);
  if (!s->data) return pd__nomem(err);
  if (s->kind == PD_TOKSET_BITS)
    memcpy(s->data, bits, u->n_words * sizeof *bits);
  else
    pd__list_ids(bits, u, s->kind == PD_TOKSET_IDS, s->data);
  return PD_OK;
}

static int pd__word_cmp(const void *pa, const void *pb) {
  uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
  return (a > b) - (a < b);
}

pd_status pd_tokset_from_words(pd_tokset *s, const uint32_t *bits, uint32_t *words, size_t n,
                               const pd_universe *u, const pd_allocator *a, pd_error *err) {
  qsort(words, n, sizeof *words, pd__word_cmp);
  size_t count = 0;
  for (size_t i = 0; i < n; i++) count += pd_popcount32(bits[words[i]]);
  pd__pick_form(s, count, u);
  if (s->kind != PD_TOKSET_IDS) return pd_tokset_from_bits(s, bits, count, u, a, err);
  if (!count) return PD_OK;
  if (!(s->data = pd__malloc(a, count * sizeof *s->data))) return pd__nomem(err);
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    for (uint32_t x = bits[words[i]]; x; x &= x - 1)
      s->data[k++] = words[i] * 32 + (uint32_t)__builtin_ctz(x);
  return PD_OK;
}

void pd_tokset_free(pd_tokset *s, const pd_allocator *a) {
  pd__free(a, s->data);
  memset(s, 0, sizeof *s);
}

static bool pd__sorted_has(const uint32_t *ids, uint32_t n, uint32_t id) {
  uint32_t lo = 0, hi = n;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (ids[mid] < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && ids[lo] == id;
}

bool pd_tokset_has(const pd_tokset *s, uint32_t id, const pd_universe *u) {
  if (id >= u->n_words * 32) return false;
  switch (s->kind) {
  case PD_TOKSET_IDS: return pd__sorted_has(s->data, s->n, id);
  case PD_TOKSET_ALL_BUT: return pd_bit_get(u->bits, id) && !pd__sorted_has(s->data, s->n, id);
  default: return pd_bit_get(s->data, id);
  }
}

size_t pd_tokset_count(const pd_tokset *s, const pd_universe *u) {
  if (s->kind == PD_TOKSET_IDS) return s->n;
  if (s->kind == PD_TOKSET_ALL_BUT) return u->count - s->n;
  return pd_popcount_words(s->data, s->n);
}

size_t pd_tokset_bytes(const pd_tokset *s) { return sizeof *s + s->n * sizeof *s->data; }

pd_status pd_tokset_copy(pd_tokset *dst, const pd_tokset *s, const pd_allocator *a,
                         pd_error *err) {
  *dst = *s;
  dst->data = NULL;
  if (!s->n) return PD_OK;
  dst->data = pd__malloc(a, s->n * sizeof *s->data);
  if (!dst->data) return pd__nomem(err);
  memcpy(dst->data, s->data, s->n * sizeof *s->data);
  return PD_OK;
}

void pd_tokset_or(const pd_tokset *s, uint32_t *row) {
  if (s->kind == PD_TOKSET_BITS) {
    for (uint32_t w = 0; w < s->n; w++) row[w] |= s->data[w];
    return;
  }
  for (uint32_t i = 0; i < s->n; i++) pd_bit_set(row, s->data[i]);
}

/* Re-admits the ids of first (already cleared from row) that other does not
 * exclude: the union of two complements excludes only their intersection. */
static void pd__readmit(const pd_tokset *first, const pd_tokset *other, uint32_t *row) {
  uint32_t j = 0;
  for (uint32_t i = 0; i < first->n; i++) {
    uint32_t id = first->data[i];
    while (j < other->n && other->data[j] < id) j++;
    if (j >= other->n || other->data[j] != id) pd_bit_set(row, id);
  }
}

void pd_tokset_union(const pd_tokset *const *sets, size_t n, uint32_t *row, const pd_universe *u) {
  const pd_tokset *first = NULL;
  for (size_t i = 0; i < n && !first; i++)
    if (sets[i]->kind == PD_TOKSET_ALL_BUT) first = sets[i];
  if (!first) {
    memset(row, 0, u->n_words * sizeof *row);
  } else {
    memcpy(row, u->bits, u->n_words * sizeof *row);
    for (uint32_t i = 0; i < first->n; i++) pd_bit_clear(row, first->data[i]);
  }
  for (size_t i = 0; i < n; i++) {
    if (sets[i] == first) continue;
    if (sets[i]->kind == PD_TOKSET_ALL_BUT)
      pd__readmit(first, sets[i], row);
    else
      pd_tokset_or(sets[i], row);
  }
}
