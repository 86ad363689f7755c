/* tokset.h - a set of token ids in whichever of three forms is smallest.
 *
 *   IDS      data[0..n) sorted ids                       4n bytes
 *   ALL_BUT  the universe minus sorted ids data[0..n)    4n bytes
 *   BITS     bit t of data[t / 32] (n = words)           4 * words bytes
 *
 * The universe is the vocabulary's text tokens (pd_trie's tokens), given as a
 * bitset wherever a set is read, so ALL_BUT never yields a special, EOS, hole
 * or padding id. An empty set is IDS with n = 0 and data NULL.
 */
#ifndef PD_MASKS_TOKSET_H
#define PD_MASKS_TOKSET_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pushdown.h"

typedef enum pd_tokset_kind { PD_TOKSET_IDS, PD_TOKSET_ALL_BUT, PD_TOKSET_BITS } pd_tokset_kind;

typedef struct pd_tokset {
  uint32_t kind; /* pd_tokset_kind */
  uint32_t n;
  uint32_t *data;
} pd_tokset;

/* The universe a set is relative to: the text tokens as a bitset. */
typedef struct pd_universe {
  const uint32_t *bits;
  size_t n_words; /* ceil(width / 32) */
  size_t count;   /* members */
} pd_universe;

/* Stores the members of bits (a subset of u, u->n_words long, count members)
 * in the smallest form. */
pd_status pd_tokset_from_bits(pd_tokset *s, const uint32_t *bits, size_t count,
                              const pd_universe *u, const pd_allocator *a, pd_error *err);
/* The same where bits is zero outside the distinct words[0..n) (sorted here):
 * a small set costs its words, not the row. */
pd_status pd_tokset_from_words(pd_tokset *s, const uint32_t *bits, uint32_t *words, size_t n,
                               const pd_universe *u, const pd_allocator *a, pd_error *err);
void pd_tokset_free(pd_tokset *s, const pd_allocator *a);
bool pd_tokset_has(const pd_tokset *s, uint32_t id, const pd_universe *u);
size_t pd_tokset_count(const pd_tokset *s, const pd_universe *u);
size_t pd_tokset_bytes(const pd_tokset *s);
/* Copies s into a new set with the same form. */
pd_status pd_tokset_copy(pd_tokset *dst, const pd_tokset *s, const pd_allocator *a,
                         pd_error *err);

/* row[0..u->n_words) = union of sets[0..n). */
void pd_tokset_union(const pd_tokset *const *sets, size_t n, uint32_t *row, const pd_universe *u);
/* row |= s. s must not be ALL_BUT (use pd_tokset_union). */
void pd_tokset_or(const pd_tokset *s, uint32_t *row);

static inline bool pd_bit_get(const uint32_t *w, uint32_t t) { return (w[t >> 5] >> (t & 31)) & 1; }
static inline void pd_bit_set(uint32_t *w, uint32_t t) { w[t >> 5] |= 1u << (t & 31); }
static inline void pd_bit_clear(uint32_t *w, uint32_t t) { w[t >> 5] &= ~(1u << (t & 31)); }
/* Sets bits lo .. hi-1. */
static inline void pd_bits_set_range(uint32_t *w, uint32_t lo, uint32_t hi) {
  if (lo >= hi) return;
  uint32_t a = lo >> 5, b = (hi - 1) >> 5;
  uint32_t first = ~0u << (lo & 31), last = ~0u >> (31 - ((hi - 1) & 31));
  if (a == b) {
    w[a] |= first & last;
    return;
  }
  w[a] |= first;
  for (uint32_t i = a + 1; i < b; i++) w[i] = ~0u;
  w[b] |= last;
}

#endif
