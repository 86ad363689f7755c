/* bits.h - bit counting without a libgcc call: __builtin_popcount becomes a
 * function call on x86-64 builds without -mpopcnt, and it sat on the hot path
 * of token classification. */
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

#endif
