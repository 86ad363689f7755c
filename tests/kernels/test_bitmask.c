/* test_bitmask.c - pd_cpu_apply_bitmask against a naive per-token loop, for every dtype,
 * widths that are not multiples of 32, short bitmask rows, strides, index lists. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "kernels/dtype.h"

static uint64_t pdt_rng = 0x9E3779B97F4A7C15ull;
static uint32_t pdt_next(void) { /* xorshift64*: test inputs only */
  pdt_rng ^= pdt_rng >> 12;
  pdt_rng ^= pdt_rng << 25;
  pdt_rng ^= pdt_rng >> 27;
  return (uint32_t)((pdt_rng * 0x2545F4914F6CDD1Dull) >> 32);
}

/* Words of four kinds, so every path (skip, fill, blend) runs. */
static uint32_t pdt_word(void) {
  switch (pdt_next() % 4) {
    case 0: return 0;
    case 1: return 0xFFFFFFFFu;
    case 2: return 1u << (pdt_next() % 32);
    default: return pdt_next();
  }
}

/* The naive reference on fp32 values: disallowed -> -inf. */
static void pdt_naive(float *x, size_t rows, size_t width, size_t stride, const uint32_t *mask,
                      size_t n_words, const int32_t *idx) {
  for (size_t r = 0; r < rows; r++) {
    int32_t b = idx ? idx[r] : (int32_t)r;
    if (b < 0) continue;
    for (size_t j = 0; j < width; j++) {
      int ok = j / 32 < n_words && (mask[(size_t)b * n_words + j / 32] >> (j % 32)) & 1;
      if (!ok) x[r * stride + j] = -INFINITY;
    }
  }
}

static void pdt_fill(float *ref, void *buf, pd_dtype t, size_t n) {
  for (size_t i = 0; i < n; i++) {
    float v = (float)((int)(pdt_next() % 2001) - 1000) / 37.0f;
    if (t == PD_F32) {
      ((float *)buf)[i] = ref[i] = v;
    } else if (t == PD_BF16) {
      ((uint16_t *)buf)[i] = pd_float_to_bf16(v);
      ref[i] = pd_bf16_to_float(((uint16_t *)buf)[i]);
    } else {
      ((uint16_t *)buf)[i] = pd_float_to_f16(v);
      ref[i] = pd_f16_to_float(((uint16_t *)buf)[i]);
    }
  }
}

static void pdt_compare(const float *ref, const void *buf, pd_dtype t, size_t n) {
  for (size_t i = 0; i < n; i++) {
    float got = pd_dtype_load(buf, t, i);
    if (isinf(ref[i])) {
      assert_true(isinf(got) && got < 0);
    } else {
      assert_true(got == ref[i]);
    }
  }
}

static void pdt_case(pd_dtype t, size_t rows, size_t width, size_t stride, size_t n_words,
                     size_t mask_rows, int use_idx) {
  size_t n = rows * stride;
  float *ref = malloc((n ? n : 1) * sizeof *ref);
  void *buf = malloc((n ? n : 1) * 4);
  uint32_t *mask = malloc((mask_rows * n_words + 1) * sizeof *mask);
  int32_t *idx = malloc((rows + 1) * sizeof *idx);
  assert_non_null(ref), assert_non_null(buf), assert_non_null(mask), assert_non_null(idx);
  pdt_fill(ref, buf, t, n);
  for (size_t i = 0; i < mask_rows * n_words; i++) mask[i] = pdt_word();
  for (size_t r = 0; r < rows; r++) idx[r] = (int32_t)(pdt_next() % (mask_rows + 1)) - 1;
  pd_error err;
  assert_int_equal(pd_cpu_apply_bitmask(buf, t, rows, width, stride, mask, mask_rows, n_words,
                                        use_idx ? idx : NULL, &err),
                   PD_OK);
  pdt_naive(ref, rows, width, stride, mask, n_words, use_idx ? idx : NULL);
  pdt_compare(ref, buf, t, n);
  free(ref), free(buf), free(mask), free(idx);
}

static void test_matches_naive(void **state) {
  (void)state;
  const size_t widths[] = {1, 31, 32, 33, 64, 100, 1000, 4099};
  for (int t = PD_F32; t <= PD_BF16; t++)
    for (size_t w = 0; w < 8; w++) {
      size_t words = (widths[w] + 31) / 32;
      pdt_case((pd_dtype)t, 5, widths[w], widths[w], words, 5, 0);
      pdt_case((pd_dtype)t, 4, widths[w], widths[w] + 7, words, 4, 0);   /* stride */
      pdt_case((pd_dtype)t, 6, widths[w], widths[w], words, 3, 1);       /* index list */
      pdt_case((pd_dtype)t, 3, widths[w], widths[w], words / 2, 3, 0);   /* short mask */
      pdt_case((pd_dtype)t, 3, widths[w], widths[w], words + 2, 3, 0);   /* long mask */
    }
}

/* All-ones rows leave every bit pattern alone, NaN included; all-zero rows write -inf. */
static void test_special_values(void **state) {
  (void)state;
  float x[40];
  for (int i = 0; i < 40; i++) x[i] = i % 3 ? NAN : INFINITY;
  uint32_t ones[2] = {0xFFFFFFFFu, 0xFFu}, zeros[2] = {0, 0};
  assert_int_equal(pd_cpu_apply_bitmask(x, PD_F32, 1, 40, 40, ones, 1, 2, NULL, NULL), PD_OK);
  for (int i = 0; i < 40; i++) assert_true(i % 3 ? isnan(x[i]) : isinf(x[i]) && x[i] > 0);
  assert_int_equal(pd_cpu_apply_bitmask(x, PD_F32, 1, 40, 40, zeros, 1, 2, NULL, NULL), PD_OK);
  for (int i = 0; i < 40; i++) assert_true(isinf(x[i]) && x[i] < 0);
  uint16_t h[3] = {0x3C00, 0x3C00, 0x3C00};
  uint32_t one_bit = 2;
  assert_int_equal(pd_cpu_apply_bitmask(h, PD_F16, 1, 3, 3, &one_bit, 1, 1, NULL, NULL), PD_OK);
  assert_int_equal(h[0], 0xFC00), assert_int_equal(h[1], 0x3C00), assert_int_equal(h[2], 0xFC00);
  /* no words at all: everything disallowed */
  uint16_t b[2] = {0x3F80, 0x3F80};
  assert_int_equal(pd_cpu_apply_bitmask(b, PD_BF16, 1, 2, 2, NULL, 1, 0, NULL, NULL), PD_OK);
  assert_int_equal(b[0], 0xFF80), assert_int_equal(b[1], 0xFF80);
}

static void test_bad_arguments(void **state) {
  (void)state;
  float x[64];
  for (int i = 0; i < 64; i++) x[i] = 1.0f;
  uint32_t mask[2] = {0, 0};
  int32_t bad_idx[2] = {0, 2}, ok_idx[2] = {-1, 1};
  pd_error err;
  assert_int_equal(pd_cpu_apply_bitmask(NULL, PD_F32, 1, 32, 32, mask, 1, 1, NULL, &err),
                   PD_ERR_ARG);
  assert_int_equal(err.code, PD_ERR_ARG);
  assert_int_equal(pd_cpu_apply_bitmask(x, PD_F32, 1, 32, 32, NULL, 1, 1, NULL, NULL),
                   PD_ERR_ARG);
  assert_int_equal(pd_cpu_apply_bitmask(x, PD_F32, 1, 33, 32, mask, 1, 1, NULL, NULL),
                   PD_ERR_ARG);
  assert_int_equal(pd_cpu_apply_bitmask(x, (pd_dtype)7, 1, 32, 32, mask, 1, 1, NULL, NULL),
                   PD_ERR_ARG);
  assert_int_equal(pd_cpu_apply_bitmask(x, PD_F32, 2, 32, 32, mask, 1, 1, NULL, NULL),
                   PD_ERR_ARG);
  assert_int_equal(pd_cpu_apply_bitmask(x, PD_F32, 2, 32, 32, mask, 2, 1, bad_idx, NULL),
                   PD_ERR_ARG);
  assert_int_equal(pd_cpu_apply_bitmask(x, PD_F32, SIZE_MAX / 2, 32, 32, mask, 1, 1, NULL,
                                        NULL),
                   PD_ERR_ARG);
  for (int i = 0; i < 64; i++) assert_true(x[i] == 1.0f); /* nothing was written */
  assert_int_equal(pd_cpu_apply_bitmask(x, PD_F32, 2, 32, 32, mask, 2, 1, ok_idx, NULL), PD_OK);
  for (int i = 0; i < 32; i++) assert_true(x[i] == 1.0f && isinf(x[32 + i]));
  assert_int_equal(pd_cpu_apply_bitmask(NULL, PD_F32, 0, 32, 32, NULL, 0, 1, NULL, NULL), PD_OK);
}

static void test_dtype_round_trip(void **state) {
  (void)state;
  for (uint32_t h = 0; h < 0x10000; h++) {
    float f = pd_f16_to_float((uint16_t)h);
    if (isnan(f)) continue;
    assert_int_equal(pd_float_to_f16(f), h);
    float g = pd_bf16_to_float((uint16_t)h);
    if (!isnan(g)) assert_int_equal(pd_float_to_bf16(g), h);
  }
  assert_true(pd_f16_to_float(0x7BFF) == 65504.0f);
  assert_true(pd_f16_to_float(0x0001) == 5.9604644775390625e-08f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_matches_naive),
      cmocka_unit_test(test_special_values),
      cmocka_unit_test(test_bad_arguments),
      cmocka_unit_test(test_dtype_round_trip),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
