/* sort.c - LSD radix sort of 32-bit keys (sort.h). */
#include "sort.h"

#include <string.h>

#define PD__SMALL 48 /* below this insertion sort wins (no counting passes) */

static void pd__insertion(uint32_t *a, size_t n) {
  for (size_t i = 1; i < n; i++) {
    uint32_t x = a[i];
    size_t j = i;
    for (; j && a[j - 1] > x; j--) a[j] = a[j - 1];
    a[j] = x;
  }
}

void pd_sort_u32(uint32_t *a, size_t n, uint32_t *tmp) {
  if (n < PD__SMALL) {
    pd__insertion(a, n);
    return;
  }
  uint32_t all = 0;
  for (size_t i = 0; i < n; i++) all |= a[i];
  uint32_t *src = a, *dst = tmp;
  for (unsigned shift = 0; shift < 32 && all >> shift; shift += 8) {
    size_t count[256] = {0};
    for (size_t i = 0; i < n; i++) count[src[i] >> shift & 255]++;
    size_t at = 0;
    for (unsigned d = 0; d < 256; d++) {
      size_t c = count[d];
      count[d] = at;
      at += c;
    }
    for (size_t i = 0; i < n; i++) dst[count[src[i] >> shift & 255]++] = src[i];
    uint32_t *t = src;
    src = dst, dst = t;
  }
  if (src != a) memcpy(a, src, n * sizeof *a);
}
