/* dtype.h - reading and writing fp32 / fp16 / bf16 logits on the CPU.
 *
 * fp16: 1 sign, 5 exponent (bias 15), 10 mantissa bits. bf16: the top 16 bits of an
 * fp32. Both are stored as uint16_t; -inf is 0xFC00 (fp16) and 0xFF80 (bf16). */
#ifndef PD_KERNELS_DTYPE_H
#define PD_KERNELS_DTYPE_H
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "pushdown.h"

#define PD_F16_NEG_INF 0xFC00u
#define PD_BF16_NEG_INF 0xFF80u

static inline size_t pd_dtype_size(pd_dtype t) { return t == PD_F32 ? 4 : 2; }

static inline float pd_bf16_to_float(uint16_t h) {
  uint32_t bits = (uint32_t)h << 16;
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

/* Exact: every fp16 value is an fp32 value. Subnormals are m * 2^-24. */
static inline float pd_f16_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 0x1F, m = h & 0x3FF;
  uint32_t bits;
  if (e == 0x1F) {
    bits = sign | 0x7F800000u | (m << 13);
  } else if (e == 0) {
    float f = (float)m * (1.0f / 16777216.0f);
    return sign ? -f : f;
  } else {
    bits = sign | ((e + 112) << 23) | (m << 13);
  }
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

/* Round to nearest even; used by tests and benchmarks to make inputs. */
static inline uint16_t pd_float_to_bf16(float f) {
  uint32_t bits;
  memcpy(&bits, &f, sizeof bits);
  if (isnan(f)) return (uint16_t)((bits >> 16) | 0x40);
  bits += 0x7FFFu + ((bits >> 16) & 1);
  return (uint16_t)(bits >> 16);
}

static inline uint16_t pd_float_to_f16(float f) {
  uint32_t bits;
  memcpy(&bits, &f, sizeof bits);
  uint16_t sign = (uint16_t)((bits >> 16) & 0x8000);
  float a = fabsf(f);
  if (isnan(f)) return sign | 0x7E00;
  if (a >= 65520.0f) return sign | 0x7C00; /* rounds past the largest fp16, 65504 */
  if (a < 6.103515625e-05f) /* subnormal: multiples of 2^-24, nearest even by rint */
    return sign | (uint16_t)lrintf(a * 16777216.0f);
  uint32_t e = ((bits >> 23) & 0xFF) - 112, m = bits & 0x7FFFFF;
  uint32_t h = (e << 10) | (m >> 13), rest = m & 0x1FFF;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) h++; /* carry may bump the exponent */
  return sign | (uint16_t)h;
}

/* Bit b of a mask word is pd_bit32[b] (of a half word, pd_bit16[b]): a table rather than
 * a shift, so per-token blends vectorize with plain SSE2 (no per-lane shifts there). */
#define PD_B4(n) 1u << (n), 1u << ((n) + 1), 1u << ((n) + 2), 1u << ((n) + 3)
static const uint32_t pd_bit32[32] = {PD_B4(0),  PD_B4(4),  PD_B4(8),  PD_B4(12),
                                      PD_B4(16), PD_B4(20), PD_B4(24), PD_B4(28)};
static const uint16_t pd_bit16[16] = {PD_B4(0), PD_B4(4), PD_B4(8), PD_B4(12)};
#undef PD_B4

/* Element j of a logits row as fp32. */
static inline float pd_dtype_load(const void *row, pd_dtype t, size_t j) {
  if (t == PD_F32) return ((const float *)row)[j];
  uint16_t h = ((const uint16_t *)row)[j];
  return t == PD_BF16 ? pd_bf16_to_float(h) : pd_f16_to_float(h);
}

#endif
