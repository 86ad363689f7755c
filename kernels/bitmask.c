/* bitmask.c - the CPU twin of the in-place bitmask apply: disallowed logits -> -inf.
 *
 * Logits are handled as raw bits (uint32_t for fp32, uint16_t for fp16/bf16), since
 * the operation only ever keeps a value or overwrites it with -inf. Per 32-token group:
 * all ones -> untouched, all zeros -> filled without reading, otherwise a blend the
 * compiler vectorizes. */
#include "base/error.h"
#include "dtype.h"

#define PD__F32_NEG_INF 0xFF800000u

/* Word w of a bitmask row, or 0 past its end (ids beyond the bitmask are disallowed). */
static inline uint32_t pd__word(const uint32_t *mask, size_t n_words, size_t w) {
  return w < n_words ? mask[w] : 0;
}

/* A full group of 32 logits (fixed trip counts: the compiler vectorizes these). */
static void pd__group32(uint32_t *x, uint32_t word) {
  for (int b = 0; b < 32; b++) x[b] = (word & pd_bit32[b]) ? x[b] : PD__F32_NEG_INF;
}

static void pd__group16(uint16_t *x, uint32_t word, uint16_t neg_inf) {
  uint16_t lo = (uint16_t)word, hi = (uint16_t)(word >> 16);
  for (int b = 0; b < 16; b++) x[b] = (lo & pd_bit16[b]) ? x[b] : neg_inf;
  for (int b = 0; b < 16; b++) x[16 + b] = (hi & pd_bit16[b]) ? x[16 + b] : neg_inf;
}

static void pd__mask_row32(uint32_t *row, size_t width, const uint32_t *mask, size_t n_words) {
  for (size_t base = 0; base < width; base += 32) {
    uint32_t word = pd__word(mask, n_words, base / 32);
    size_t n = width - base < 32 ? width - base : 32;
    uint32_t *x = row + base;
    if (word == 0xFFFFFFFFu) continue;
    if (n == 32 && word == 0) {
      for (int b = 0; b < 32; b++) x[b] = PD__F32_NEG_INF;
    } else if (n == 32) {
      pd__group32(x, word);
    } else {
      for (size_t b = 0; b < n; b++) x[b] = (word >> b) & 1 ? x[b] : PD__F32_NEG_INF;
    }
  }
}

static void pd__mask_row16(uint16_t *row, size_t width, const uint32_t *mask, size_t n_words,
                           uint16_t neg_inf) {
  for (size_t base = 0; base < width; base += 32) {
    uint32_t word = pd__word(mask, n_words, base / 32);
    size_t n = width - base < 32 ? width - base : 32;
    uint16_t *x = row + base;
    if (word == 0xFFFFFFFFu) continue;
    if (n == 32 && word == 0) {
      for (int b = 0; b < 32; b++) x[b] = neg_inf;
    } else if (n == 32) {
      pd__group16(x, word, neg_inf);
    } else {
      for (size_t b = 0; b < n; b++) x[b] = (word >> b) & 1 ? x[b] : neg_inf;
    }
  }
}

static pd_status pd__check_apply(const void *logits, pd_dtype dtype, size_t rows, size_t width,
                                 size_t row_stride, const uint32_t *bitmask,
                                 size_t bitmask_rows, size_t n_words, const int32_t *indices,
                                 pd_error *err) {
  if (dtype != PD_F32 && dtype != PD_F16 && dtype != PD_BF16)
    return pd__fail(err, PD_ERR_ARG, "apply_bitmask: unknown dtype %d", (int)dtype);
  if (rows == 0) return PD_OK;
  if (!logits || (n_words && !bitmask))
    return pd__fail(err, PD_ERR_ARG, "apply_bitmask: NULL logits or bitmask");
  if (width > row_stride)
    return pd__fail(err, PD_ERR_ARG, "apply_bitmask: width %zu > row stride %zu", width,
                    row_stride);
  if (rows > SIZE_MAX / pd_dtype_size(dtype) / row_stride)
    return pd__fail(err, PD_ERR_ARG, "apply_bitmask: logits size overflows");
  for (size_t r = 0; r < rows; r++) {
    int64_t b = indices ? indices[r] : (int64_t)r;
    if (b >= 0 && (uint64_t)b >= bitmask_rows)
      return pd__fail(err, PD_ERR_ARG, "apply_bitmask: row %zu uses bitmask row %lld of %zu", r,
                      (long long)b, bitmask_rows);
  }
  return PD_OK;
}

pd_status pd_cpu_apply_bitmask(void *logits, pd_dtype dtype, size_t rows, size_t width,
                               size_t row_stride, const uint32_t *bitmask, size_t bitmask_rows,
                               size_t n_words, const int32_t *indices, pd_error *err) {
  pd_status st = pd__check_apply(logits, dtype, rows, width, row_stride, bitmask, bitmask_rows,
                                 n_words, indices, err);
  if (st != PD_OK || rows == 0) return st;
  for (size_t r = 0; r < rows; r++) {
    int64_t b = indices ? indices[r] : (int64_t)r;
    if (b < 0) continue;
    const uint32_t *mask = n_words ? bitmask + (size_t)b * n_words : NULL;
    if (dtype == PD_F32)
      pd__mask_row32((uint32_t *)logits + r * row_stride, width, mask, n_words);
    else
      pd__mask_row16((uint16_t *)logits + r * row_stride, width, mask, n_words,
                     dtype == PD_F16 ? PD_F16_NEG_INF : PD_BF16_NEG_INF);
  }
  return PD_OK;
}
