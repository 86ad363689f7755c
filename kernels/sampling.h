/* sampling.h - the per-token formulas of masked sampling, shared by the C twin and the
 * CUDA kernels so both evaluate the same expressions in the same order.
 *
 *   c_j = clamp(l_j, -FLT_MAX, FLT_MAX) if j is allowed and l_j is not NaN, else -inf
 *   m   = max_j c_j                    (-inf: the row is dead, nothing can be drawn)
 *   z_j = (c_j - m) * (1 / T)          (log-weight; -inf for excluded tokens)
 *   S   = sum_j exp(z_j),  p_j = exp(z_j) / S
 *   key_j = lw_j - log(E_j),  E_j = -log(u_j)   (exponential race: argmax wins; both logs
 *                                                 are pd_sampling_log, in double)
 *
 * A draw from p uses lw_j = c_j * (1 / T) in double, which is exact (a product of two
 * 24-bit significands) and needs no m: the GPU finds it in the same single pass as m and
 * S, and CPU and GPU keys agree bit for bit. A draw from the residual uses
 * lw_j = pd_sampling_log(max(0, p_j - q_j)), p_j and q_j in fp32. */
#ifndef PD_KERNELS_SAMPLING_H
#define PD_KERNELS_SAMPLING_H
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "philox.h"

PD_HD float pd_sampling_clamp(float l, int allowed) {
  if (!allowed || l != l) return -INFINITY;
  return l > FLT_MAX ? FLT_MAX : (l < -FLT_MAX ? -INFINITY : l);
}

/* c - m can overflow to -inf for c near -FLT_MAX and m near FLT_MAX: weight 0, right. */
PD_HD float pd_sampling_logw(float c, float m, float inv_t) {
  if (c == -INFINITY) return -INFINITY;
  return (c - m) * inv_t;
}

/* Natural log of a positive normal double from IEEE basic operations only (no library
 * call, no fused multiply-add: nvcc builds with --fmad=false), so the C twin and the GPU
 * compute the same bits. x = 2^e m with m in [sqrt(1/2), sqrt(2)); log m = 2 atanh(s),
 * s = (m - 1) / (m + 1), |s| <= 0.172, by its series to s^15 (relative error < 1e-13). */
PD_HD double pd_sampling_log(double x) {
  uint64_t bits;
  memcpy(&bits, &x, sizeof bits);
  int e = (int)((bits >> 52) & 0x7FF) - 1023;
  bits = (bits & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull;
  double m;
  memcpy(&m, &bits, sizeof m);
  if (m > 1.4142135623730951) {
    m *= 0.5;
    e++;
  }
  double f = m - 1.0, s = f / (2.0 + f), z = s * s;
  double t = 1.0 / 13 + z * (1.0 / 15);
  t = 1.0 / 11 + z * t;
  t = 1.0 / 9 + z * t;
  t = 1.0 / 7 + z * t;
  t = 1.0 / 5 + z * t;
  t = 1.0 / 3 + z * t;
  t = 1.0 + z * t;
  return (double)e * 0.6931471805599453 + 2.0 * s * t;
}

PD_HD double pd_sampling_key(double lw, uint32_t v) {
  double u = (double)pd_philox_uniform(v);
  return lw - pd_sampling_log(-pd_sampling_log(u));
}

/* lw of a draw from p; -inf stays -inf. */
PD_HD double pd_sampling_race_lw(float c, float inv_t) {
  return c == -INFINITY ? -INFINITY : (double)c * (double)inv_t;
}

/* An upper bound (with 1e-3 to spare for rounding) of the -log(E) that pd_sampling_key
 * adds for value v, from integer operations only: -log u >= 1 - u gives
 * -log(-log u) <= -log(1 - u) = ln 2 * (24 - log2 t) with t = 2^24 (1 - u) =
 * 2^24 - 1 - 2 (v >> 9) (an integer), and log2 t >= 31 - clz(t). A token whose log-weight
 * plus this bound is below the best key so far cannot win (ties go to the earlier id), so
 * its logarithms are skipped: the result is the same, the work is not. */
PD_HD float pd_sampling_gumbel_bound(uint32_t v) {
  uint32_t t = 16777215u - 2u * (v >> 9);
#ifdef __CUDA_ARCH__
  int lz = __clz((int)t);
#else
  int lz = __builtin_clz(t);
#endif
  return 0.69314718f * (float)(lz - 7) + 1e-3f;
}

/* Bit j of a bitmask row; ids past the row's words are disallowed; NULL = all allowed. */
PD_HD int pd_sampling_allowed(const uint32_t *mask, uint64_t n_words, uint64_t j) {
  if (!mask) return 1;
  return j / 32 < n_words ? (int)((mask[j / 32] >> (j % 32)) & 1u) : 0;
}

/* Draft probabilities that are NaN or negative count as 0. */
PD_HD float pd_sampling_q(float q) { return q > 0.0f ? q : 0.0f; }

#endif
