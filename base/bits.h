/* bits.h - bit counting without a libgcc call (__builtin_popcount becomes a
 * function call on x86-64 builds without -mpopcnt, and it sat on the hot path
 * of token classification), and word hashing for open-addressing tables. */
#ifndef PD_BASE_BITS_H
#define PD_BASE_BITS_H
#include <stddef.h>
#include <stdint.h>

static inline uint32_t pd_popcount32(uint32_t x) {
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  return (((x + (x >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24;
}

/* Set bits in w[0..n). */
static inline size_t pd_popcount_words(const uint32_t *w, size_t n) {
  size_t c = 0;
  for (size_t i = 0; i < n; i++) c += pd_popcount32(w[i]);
  return c;
}

/* A hash of words for a table indexed by its low bits. FNV over whole words
 * alone leaves the low bits a plain XOR of the words' low bits (the multiplier
 * is odd), which piles similar sets into one probe run; the final avalanche
 * (MurmurHash3's fmix32) spreads every input bit over the low ones. */
static inline uint32_t pd_hash_words(const uint32_t *w, size_t n) {
  uint32_t h = 2166136261u ^ (uint32_t)n;
  for (size_t i = 0; i < n; i++) h = (h ^ w[i]) * 16777619u;
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  return h ^ (h >> 16);
}

#endif
