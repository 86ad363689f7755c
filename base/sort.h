/* sort.h - sorting 32-bit keys without a comparison callback. */
#ifndef PD_BASE_SORT_H
#define PD_BASE_SORT_H
#include <stddef.h>
#include <stdint.h>

/* Sorts a[0..n) ascending; tmp holds n words of scratch. Token ids sorted
 * with qsort were a fifth of the time spent making caller classes (pair.c):
 * a radix sort by bytes makes one pass per byte that some key uses. */
void pd_sort_u32(uint32_t *a, size_t n, uint32_t *tmp);

#endif
