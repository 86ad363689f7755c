/* sampling.h - the per-token formulas of masked sampling, shared by the C twin and the
 * CUDA kernels so both evaluate the same expressions in the same order.
 *
 *   c_j = clamp(l_j, -FLT_MAX, FLT_MAX) if j is allowed and l_j is not NaN, else -inf
 *   m   = max_j c_j                    (-inf: the row is dead, nothing can be drawn)
 *   z_j = (c_j - m) * (1 / T)          (log-weight; -inf for excluded tokens)
 *   S   = sum_j exp(z_j),  p_j = exp(z_j) / S
 *   key_j = log(w_j) - log(E_j),  E_j = -log(u_j)   (exponential race: argmax wins) */
#ifndef PD_KERNELS_SAMPLING_H
#define PD_KERNELS_SAMPLING_H
#include <float.h>
#include <math.h>
#include <stdint.h>

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

PD_HD float pd_sampling_key(float logw, uint32_t v) {
  float u = pd_philox_uniform(v);
  return logw - logf(-logf(u));
}

/* Bit j of a bitmask row; ids past the row's words are disallowed; NULL = all allowed. */
PD_HD int pd_sampling_allowed(const uint32_t *mask, uint64_t n_words, uint64_t j) {
  if (!mask) return 1;
  return j / 32 < n_words ? (int)((mask[j / 32] >> (j % 32)) & 1u) : 0;
}

/* Draft probabilities that are NaN or negative count as 0. */
PD_HD float pd_sampling_q(float q) { return q > 0.0f ? q : 0.0f; }

#endif
