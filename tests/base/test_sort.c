/* test_sort.c - pd_sort_u32 against qsort on random and shaped inputs. */
#include <stdlib.h>
#include <string.h>

#include "base/sort.h"
#include "support.h"

static int pd__cmp(const void *pa, const void *pb) {
  uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
  return (a > b) - (a < b);
}

static uint64_t pd__rng = 0x243f6a8885a308d3u;

static uint32_t pd__next(void) {
  pd__rng ^= pd__rng << 13, pd__rng ^= pd__rng >> 7, pd__rng ^= pd__rng << 17;
  return (uint32_t)(pd__rng >> 16);
}

/* Sorts n keys drawn by shape and compares with qsort's order. */
static void pd__check(size_t n, int shape) {
  uint32_t *a = malloc((n ? n : 1) * sizeof *a), *b = malloc((n ? n : 1) * sizeof *b);
  uint32_t *tmp = malloc((n ? n : 1) * sizeof *tmp);
  assert_non_null(a);
  assert_non_null(b);
  assert_non_null(tmp);
  for (size_t i = 0; i < n; i++) {
    uint32_t x = pd__next();
    switch (shape) {
      case 0: x &= 0x1ffff; break;            /* token ids of a 128k vocabulary */
      case 1: x = (uint32_t)(n - i); break;   /* descending */
      case 2: x &= 7; break;                  /* many equal keys */
      case 3: x = x << 16 | (x & 0xffff); break; /* every byte in use */
      default: x = 0xffffffffu - (x & 3); break; /* the top of the range */
    }
    a[i] = b[i] = x;
  }
  pd_sort_u32(a, n, tmp);
  qsort(b, n, sizeof *b, pd__cmp);
  assert_memory_equal(a, b, n * sizeof *a);
  free(a);
  free(b);
  free(tmp);
}

static void test_sort_matches_qsort(void **state) {
  (void)state;
  static const size_t sizes[] = {0, 1, 2, 3, 47, 48, 49, 255, 256, 1000, 4096, 100000};
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
    for (int shape = 0; shape < 5; shape++) pd__check(sizes[s], shape);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_sort_matches_qsort)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
