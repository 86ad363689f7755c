/* support.h - what every test program shares: data paths and a failing allocator. */
#ifndef PD_TESTS_SUPPORT_H
#define PD_TESTS_SUPPORT_H
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the three headers above first */
#include <cmocka.h>

#include "pushdown.h"

/* Full path of rel under the shared data folder (../shared/data, or
 * $PD_SHARED_DATA), or NULL when absent; then it prints one line
 * "skip: <path> not found" so the caller can cmocka's skip(). The string is
 * static storage, valid until the next call. */
const char *pdt_data(const char *rel);
/* Reads a whole file; NULL when it cannot. Caller frees with free(). */
char *pdt_read_file(const char *path, size_t *len);

/* An allocator that counts live blocks and fails the Nth allocation
 * (N >= 1; 0 = never fails). pdt_alloc.live must be 0 after every object is
 * freed: that is the leak check of the allocation-failure tests. */
typedef struct pdt_alloc_state {
  long fail_at;   /* 1-based index of the allocation to fail; 0 = none */
  long count;     /* allocations attempted so far */
  long live;      /* blocks currently allocated */
  int failed;     /* an allocation was failed */
} pdt_alloc_state;
extern pdt_alloc_state pdt_alloc;
extern const pd_allocator pdt_allocator;
void pdt_alloc_reset(long fail_at);

#endif
