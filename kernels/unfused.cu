/* unfused.cu - the baseline the benchmark sets beside the fused verifier: what serving
 * engines run today as separate kernels, each a full pass over global memory.
 *   1. apply the bitmask to the logits in place (pd_cuda_apply_bitmask)
 *   2. softmax with temperature: read the logits, write fp32 probabilities
 *   3. per row, read the probabilities (and draft probabilities) and draw the row's
 *      candidate (argmax, residual, or bonus) with an exponential race
 *   4. per request, accept / reject the drafts from the stored probabilities */
#include <curand_kernel.h>

#include "device.cuh"
extern "C" {
#include "gpu.h"
#include "verify.h"
}

template <int DT>
__global__ void __launch_bounds__(PD_BLOCK) pd_softmax_kernel(const void *logits, uint64_t width,
                                                              float inv_t, float *probs) {
  __shared__ pd_best sbest[32];
  __shared__ float ssum[32];
  uint64_t g = blockIdx.x;
  size_t esize = DT == PD_F32 ? 4 : 2;
  const void *row = (const char *)logits + g * width * esize;
  pd_best mx = {-INFINITY, PD_NONE};
  for (uint64_t j = threadIdx.x; j < width; j += blockDim.x) {
    pd_best c = {pd_sampling_clamp(pd_load<DT>(row, j), 1), (uint32_t)j};
    if (c.v > mx.v) mx = c;
  }
  float m = pd_block_best(mx, sbest).v, s = 0.0f;
  for (uint64_t j = threadIdx.x; j < width; j += blockDim.x)
    s += expf(pd_sampling_logw(pd_sampling_clamp(pd_load<DT>(row, j), 1), m, inv_t));
  s = pd_block_sum(s, ssum);
  float *p = probs + g * width;
  for (uint64_t j = threadIdx.x; j < width; j += blockDim.x)
    p[j] = m == -INFINITY ? 0.0f
                          : expf(pd_sampling_logw(pd_sampling_clamp(pd_load<DT>(row, j), 1), m,
                                                  inv_t)) / s;
}

__global__ void __launch_bounds__(PD_BLOCK) pd_draw_kernel(pd_verify_args a, int greedy,
                                                           const float *probs, uint32_t *draw) {
  __shared__ pd_best_d sbest[32];
  uint64_t g = blockIdx.x, r = pd_find_request(a.draft_offsets, a.n, g);
  uint64_t d0 = a.draft_offsets[r], k = a.draft_offsets[r + 1] - d0, i = g - d0 - r;
  const float *p = probs + g * a.width;
  const float *q = (!greedy && a.mode == PD_VERIFY_SAMPLE && i < k)
                       ? a.draft_probs + (d0 + i) * a.width : NULL;
  pd_best_d best = {-INFINITY, PD_NONE};
  for (uint64_t j0 = (uint64_t)threadIdx.x * 4; j0 < a.width; j0 += (uint64_t)blockDim.x * 4) {
    float w[4];
    bool any = false;
    for (int e = 0; e < 4; e++) {
      uint64_t j = j0 + e;
      w[e] = j < a.width ? p[j] - (q ? pd_sampling_q(q[j]) : 0.0f) : 0.0f;
      if (greedy && j < a.width && p[j] > 0.0f && p[j] > best.v) best = {p[j], (uint32_t)j};
      any |= w[e] > 0.0f;
    }
    if (greedy || !any) continue;
    curandStatePhilox4_32_10_t st;
    curand_init(a.seed, g, a.offset + PD_RACE_BASE + j0, &st);
    uint4 v4 = curand4(&st);
    uint32_t v[4] = {v4.x, v4.y, v4.z, v4.w};
    for (int e = 0; e < 4; e++)
      if (w[e] > 0.0f)
        best = pd_best_d_pick(best, {pd_sampling_key(pd_sampling_log(w[e]), v[e]),
                                     (uint32_t)(j0 + e)});
  }
  best = pd_block_best_d(best, sbest);
  if (threadIdx.x == 0) draw[g] = best.id;
}

__global__ void pd_accept_kernel(pd_verify_args a, int greedy, const float *probs,
                                 const uint32_t *draw) {
  uint64_t r = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= a.n) return;
  uint64_t d0 = a.draft_offsets[r], k = a.draft_offsets[r + 1] - d0;
  uint32_t *out = a.out_tokens + d0 + r, n_out = 0, acc = 0;
  for (uint64_t i = 0; i <= k; i++) {
    uint64_t g = d0 + r + i;
    if (i == k) {
      if (draw[g] != PD_NONE) out[n_out++] = draw[g];
      break;
    }
    uint32_t x = a.draft_tokens[d0 + i];
    if (x >= a.width) x = (uint32_t)a.width - 1; /* unchecked on the device: stay in bounds */
    float p = probs[g * a.width + x];
    bool ok;
    if (greedy) {
      ok = x == draw[g];
    } else {
      float q = a.mode == PD_VERIFY_SAMPLE ? a.draft_probs[(d0 + i) * a.width + x] : 1.0f;
      curandStatePhilox4_32_10_t st;
      curand_init(a.seed, g, a.offset, &st);
      ok = pd_philox_uniform(curand(&st)) * pd_sampling_q(q) < p;
    }
    if (ok) {
      out[n_out++] = x;
      acc++;
      continue;
    }
    if (draw[g] != PD_NONE) out[n_out++] = draw[g];
    break;
  }
  a.out_counts[r] = n_out;
  if (a.out_accepted) a.out_accepted[r] = acc;
}

extern "C" size_t pd_gpu_unfused_probs_bytes(size_t n_rows, size_t width) {
  return n_rows * width * sizeof(float) + n_rows * sizeof(uint32_t);
}

extern "C" pd_status pd_gpu_verify_unfused(const pd_verify_args *a, size_t n_rows,
                                           void *logits_rw, void *probs, void *stream,
                                           pd_error *err) {
  pd_status st = pd_kernels_check_verify(a, err);
  if (st != PD_OK || (st = pd_cuda_require(err)) != PD_OK || a->n == 0) return st;
  if (n_rows < a->n || n_rows > 0x7FFFFFFFu)
    return pd__fail(err, PD_ERR_ARG, "unfused verify: bad row count %zu", n_rows);
  cudaStream_t s = (cudaStream_t)stream;
  if (a->bitmask) {
    st = pd_cuda_apply_bitmask(logits_rw, a->dtype, n_rows, a->width, a->width, a->bitmask,
                               n_rows, a->n_words, NULL, stream, err);
    if (st != PD_OK) return st;
  }
  int greedy = a->mode == PD_VERIFY_GREEDY || a->temperature < FLT_MIN;
  float inv_t = greedy ? 1.0f : 1.0f / a->temperature;
  float *p = (float *)probs;
  uint32_t *draw = (uint32_t *)(p + n_rows * a->width);
  if (a->dtype == PD_F32)
    pd_softmax_kernel<PD_F32><<<(unsigned)n_rows, PD_BLOCK, 0, s>>>(logits_rw, a->width, inv_t, p);
  else if (a->dtype == PD_F16)
    pd_softmax_kernel<PD_F16><<<(unsigned)n_rows, PD_BLOCK, 0, s>>>(logits_rw, a->width, inv_t, p);
  else
    pd_softmax_kernel<PD_BF16><<<(unsigned)n_rows, PD_BLOCK, 0, s>>>(logits_rw, a->width, inv_t,
                                                                     p);
  pd_draw_kernel<<<(unsigned)n_rows, PD_BLOCK, 0, s>>>(*a, greedy, p, draw);
  pd_accept_kernel<<<(unsigned)((a->n + 127) / 128), 128, 0, s>>>(*a, greedy, p, draw);
  return pd_cuda_check_launch("unfused verify", err);
}
