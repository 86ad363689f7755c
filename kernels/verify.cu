/* verify.cu - the fused masked speculative verifier on the GPU, the twin of verify.c.
 *
 * Kernel 1 (one block per row g) reads the row's logits and bitmask: pass 1 finds the
 * largest allowed logit m and the argmax; the sampling modes then sum S = sum exp(z_j)
 * and run the exponential race for the draw this row may need (the bonus, or p without
 * the draft for SAMPLE_POINT) with cuRAND's Philox at the positions pushdown.h fixes.
 * The second pass re-reads a row the same block just read, so it is served by L2.
 * Kernel 2 (one block per request) walks the request's rows with those statistics,
 * accepts or rejects each draft, and for SAMPLE draws the replacement from
 * max(0, p - q) with one more pass over the rejected row only. */
#include <curand_kernel.h>

#include "device.cuh"
extern "C" {
#include "verify.h"
}

/* What kernel 1 learns about a row (the workspace holds one per row). */
struct pd_row_stats {
  float m;         /* largest clamped allowed logit; -inf = dead row */
  float s;         /* sum of exp(z_j); 0 when not computed (greedy) */
  float logw_x;    /* z of the row's draft token; -inf when none */
  uint32_t argmax; /* lowest id reaching m */
  uint32_t draw;   /* race winner over p (without the draft for SAMPLE_POINT) */
  uint32_t pad[3];
};

struct pd_row_ctx {
  const void *row;
  const uint32_t *mask; /* NULL = unconstrained */
  uint64_t n_words, width;
  float m, inv_t;
};

template <int DT>
__device__ __forceinline__ float pd_row_c(const pd_row_ctx &c, uint64_t j) {
  int allowed = pd_sampling_allowed(c.mask, c.n_words, j);
  return pd_sampling_clamp(allowed ? pd_load<DT>(c.row, j) : 0.0f, allowed);
}

/* Race over tokens of the block's share, groups of 4 as the CPU twin takes them:
 * group j0 uses curand4 after curand_init(seed, g, offset + 4 + j0). */
template <int DT>
__device__ pd_best pd_race_p(const pd_row_ctx &c, uint64_t exclude, unsigned long long seed,
                             uint64_t g, unsigned long long offset) {
  pd_best best = {-INFINITY, PD_NONE};
  for (uint64_t j0 = (uint64_t)threadIdx.x * 4; j0 < c.width; j0 += (uint64_t)blockDim.x * 4) {
    float lw[4];
    bool live = false;
    for (int i = 0; i < 4; i++) {
      uint64_t j = j0 + i;
      lw[i] = (j < c.width && j != exclude) ? pd_sampling_logw(pd_row_c<DT>(c, j), c.m, c.inv_t)
                                            : -INFINITY;
      live |= lw[i] != -INFINITY && (lw[i] + PD_RACE_BOUND >= best.v || best.id == PD_NONE);
    }
    if (!live) continue;
    curandStatePhilox4_32_10_t st;
    curand_init(seed, g, offset + PD_RACE_BASE + j0, &st);
    uint4 v4 = curand4(&st);
    uint32_t v[4] = {v4.x, v4.y, v4.z, v4.w};
    for (int i = 0; i < 4; i++) {
      if (lw[i] == -INFINITY || lw[i] + PD_RACE_BOUND < best.v) continue;
      pd_best cand = {pd_sampling_key(lw[i], v[i]), (uint32_t)(j0 + i)};
      best = pd_best_pick(best, cand);
    }
  }
  return best;
}

struct pd_verify_dev {
  pd_verify_args a;
  int greedy;
};

template <int DT>
__global__ void __launch_bounds__(PD_BLOCK) pd_row_kernel(pd_verify_dev d, pd_row_stats *stats) {
  __shared__ pd_best sbest[32];
  __shared__ float ssum[32];
  const pd_verify_args &a = d.a;
  uint64_t g = blockIdx.x, r = pd_find_request(a.draft_offsets, a.n, g);
  uint64_t d0 = a.draft_offsets[r], k = a.draft_offsets[r + 1] - d0, i = g - d0 - r;
  size_t esize = DT == PD_F32 ? 4 : 2;
  pd_row_ctx c = {(const char *)a.target_logits + g * a.width * esize,
                  a.bitmask ? a.bitmask + g * a.n_words : NULL, a.bitmask ? a.n_words : 0,
                  a.width, 0.0f, a.temperature >= FLT_MIN ? 1.0f / a.temperature : 0.0f};
  pd_best mx = {-INFINITY, PD_NONE};
  for (uint64_t j = threadIdx.x; j < c.width; j += blockDim.x) {
    pd_best cand = {pd_row_c<DT>(c, j), (uint32_t)j};
    if (cand.v > mx.v) mx = cand; /* ids rise: strict > keeps the lowest */
  }
  mx = pd_block_best(mx, sbest);
  c.m = mx.v;
  pd_row_stats out = {mx.v, 0.0f, -INFINITY, mx.id, PD_NONE, {0, 0, 0}};
  if (!d.greedy && mx.id != PD_NONE) {
    float s = 0.0f;
    for (uint64_t j = threadIdx.x; j < c.width; j += blockDim.x)
      s += expf(pd_sampling_logw(pd_row_c<DT>(c, j), c.m, c.inv_t));
    out.s = pd_block_sum(s, ssum);
    uint64_t x = i < k ? a.draft_tokens[d0 + i] : PD_NONE;
    if (x != PD_NONE) out.logw_x = pd_sampling_logw(pd_row_c<DT>(c, x), c.m, c.inv_t);
    if (i == k || a.mode == PD_VERIFY_SAMPLE_POINT) {
      pd_best w = pd_race_p<DT>(c, i < k ? x : (uint64_t)PD_NONE, a.seed, g, a.offset);
      out.draw = pd_block_best(w, sbest).id;
    }
  }
  if (threadIdx.x == 0) stats[g] = out;
}

/* The residual race of a rejected SAMPLE row: weights max(0, p - q). */
template <int DT>
__device__ pd_best pd_race_residual(const pd_row_ctx &c, float s, const float *q,
                                    unsigned long long seed, uint64_t g,
                                    unsigned long long offset) {
  pd_best best = {-INFINITY, PD_NONE};
  for (uint64_t j0 = (uint64_t)threadIdx.x * 4; j0 < c.width; j0 += (uint64_t)blockDim.x * 4) {
    float lw[4];
    bool live = false;
    for (int i = 0; i < 4; i++) {
      uint64_t j = j0 + i;
      lw[i] = -INFINITY;
      if (j < c.width) {
        float p = expf(pd_sampling_logw(pd_row_c<DT>(c, j), c.m, c.inv_t)) / s;
        float rr = p - pd_sampling_q(q[j]);
        lw[i] = rr > 0.0f ? logf(rr) : -INFINITY;
      }
      live |= lw[i] != -INFINITY && (lw[i] + PD_RACE_BOUND >= best.v || best.id == PD_NONE);
    }
    if (!live) continue;
    curandStatePhilox4_32_10_t st;
    curand_init(seed, g, offset + PD_RACE_BASE + j0, &st);
    uint4 v4 = curand4(&st);
    uint32_t v[4] = {v4.x, v4.y, v4.z, v4.w};
    for (int i = 0; i < 4; i++) {
      if (lw[i] == -INFINITY || lw[i] + PD_RACE_BOUND < best.v) continue;
      pd_best cand = {pd_sampling_key(lw[i], v[i]), (uint32_t)(j0 + i)};
      best = pd_best_pick(best, cand);
    }
  }
  return best;
}

/* Thread 0's walk over a request's rows: how many drafts pass, and what follows. */
struct pd_walk {
  uint32_t accepted;
  uint32_t next;     /* correction / bonus, PD_NONE = none (yet) */
  int residual_row;  /* SAMPLE: the rejected row needing the residual race, else -1 */
};

__device__ pd_walk pd_walk_request(const pd_verify_dev &d, const pd_row_stats *stats,
                                   uint64_t r) {
  const pd_verify_args &a = d.a;
  uint64_t d0 = a.draft_offsets[r], k = a.draft_offsets[r + 1] - d0;
  pd_walk w = {0, PD_NONE, -1};
  for (uint64_t i = 0; i <= k; i++) {
    uint64_t g = d0 + r + i;
    pd_row_stats st = stats[g];
    if (st.argmax == PD_NONE) return w; /* dead row */
    if (i == k) {
      w.next = d.greedy ? st.argmax : st.draw;
      return w;
    }
    uint32_t x = a.draft_tokens[d0 + i];
    bool ok;
    if (d.greedy) {
      ok = x == st.argmax;
    } else {
      float q = a.mode == PD_VERIFY_SAMPLE ? a.draft_probs[(d0 + i) * a.width + x] : 1.0f;
      curandStatePhilox4_32_10_t rs;
      curand_init(a.seed, g, a.offset, &rs);
      float u = pd_philox_uniform(curand(&rs));
      ok = u * pd_sampling_q(q) < expf(st.logw_x) / st.s;
    }
    if (ok) {
      w.accepted++;
      continue;
    }
    if (d.greedy) w.next = st.argmax;
    else if (a.mode == PD_VERIFY_SAMPLE) w.residual_row = (int)i;
    else w.next = st.draw;
    return w;
  }
  return w;
}

template <int DT>
__global__ void __launch_bounds__(PD_BLOCK) pd_decide_kernel(pd_verify_dev d,
                                                             const pd_row_stats *stats) {
  __shared__ pd_walk sw;
  __shared__ pd_best sbest[32];
  const pd_verify_args &a = d.a;
  uint64_t r = blockIdx.x, d0 = a.draft_offsets[r];
  if (threadIdx.x == 0) sw = pd_walk_request(d, stats, r);
  __syncthreads();
  pd_walk w = sw;
  if (w.residual_row >= 0) { /* the whole block draws the replacement */
    uint64_t i = (uint64_t)w.residual_row, g = d0 + r + i;
    size_t esize = DT == PD_F32 ? 4 : 2;
    pd_row_stats st = stats[g];
    pd_row_ctx c = {(const char *)a.target_logits + g * a.width * esize,
                    a.bitmask ? a.bitmask + g * a.n_words : NULL, a.bitmask ? a.n_words : 0,
                    a.width, st.m, a.temperature >= FLT_MIN ? 1.0f / a.temperature : 0.0f};
    pd_best b = pd_race_residual<DT>(c, st.s, a.draft_probs + (d0 + i) * a.width, a.seed, g,
                                     a.offset);
    b = pd_block_best(b, sbest);
    if (b.id == PD_NONE) /* empty residual: p without the draft */
      b = pd_block_best(pd_race_p<DT>(c, a.draft_tokens[d0 + i], a.seed, g, a.offset), sbest);
    w.next = b.id;
  }
  if (threadIdx.x != 0) return;
  uint32_t *out = a.out_tokens + d0 + r, n_out = 0;
  for (uint32_t i = 0; i < w.accepted; i++) out[n_out++] = a.draft_tokens[d0 + i];
  if (w.next != PD_NONE) out[n_out++] = w.next;
  a.out_counts[r] = n_out;
  if (a.out_accepted) a.out_accepted[r] = w.accepted;
}

extern "C" size_t pd_cuda_verify_workspace(size_t n_rows) {
  return n_rows * sizeof(pd_row_stats);
}

template <int DT>
static void pd_verify_launch(const pd_verify_dev &d, size_t n_rows, pd_row_stats *stats,
                             cudaStream_t s) {
  pd_row_kernel<DT><<<(unsigned)n_rows, PD_BLOCK, 0, s>>>(d, stats);
  pd_decide_kernel<DT><<<(unsigned)d.a.n, PD_BLOCK, 0, s>>>(d, stats);
}

extern "C" pd_status pd_cuda_verify(const pd_verify_args *a, size_t n_rows, void *workspace,
                                    size_t workspace_bytes, void *stream, pd_error *err) {
  pd_status st = pd_kernels_check_verify(a, err);
  if (st != PD_OK) return st;
  if ((st = pd_cuda_require(err)) != PD_OK || a->n == 0) return st;
  if (n_rows < a->n || n_rows > 0x7FFFFFFFu || a->n > 0x7FFFFFFFu)
    return pd__fail(err, PD_ERR_ARG, "cuda verify: %zu rows for %zu requests", n_rows, a->n);
  if (!workspace || workspace_bytes < pd_cuda_verify_workspace(n_rows))
    return pd__fail(err, PD_ERR_ARG, "cuda verify: workspace needs %zu bytes",
                    pd_cuda_verify_workspace(n_rows));
  pd_verify_dev d = {*a, a->mode == PD_VERIFY_GREEDY || a->temperature < FLT_MIN};
  pd_row_stats *stats = (pd_row_stats *)workspace;
  cudaStream_t s = (cudaStream_t)stream;
  if (a->dtype == PD_F32) pd_verify_launch<PD_F32>(d, n_rows, stats, s);
  else if (a->dtype == PD_F16) pd_verify_launch<PD_F16>(d, n_rows, stats, s);
  else pd_verify_launch<PD_BF16>(d, n_rows, stats, s);
  return pd_cuda_check_launch("verify", err);
}
