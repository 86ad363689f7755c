/* verify.cu - the fused masked speculative verifier on the GPU, the twin of verify.c.
 *
 * Kernel 1 (one block per row g) reads the row's logits and bitmask once, 16 bytes per
 * thread and step: the argmax, the online softmax (running max m and sum S rescaled when
 * m grows), and the exponential race for the draw the row may need (the bonus, or p
 * without the draft for SAMPLE_POINT), with cuRAND's Philox at the positions pushdown.h
 * fixes. The race keys do not depend on m (sampling.h), so one pass is enough.
 * Kernel 2 (one block per request) walks the request's rows with those statistics,
 * accepts or rejects each draft, and for SAMPLE draws the replacement from
 * max(0, p - q), which needs the final S: one more pass over the rejected row only. */
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

/* Tokens per 16-byte chunk. */
template <int DT>
struct pd_elems {
  enum { N = DT == PD_F32 ? 4 : 8 };
};

/* c_j of the chunk of tokens j0 .. j0 + N - 1 (j0 a multiple of N); -inf past width. */
template <int DT, bool VEC>
__device__ __forceinline__ void pd_load_chunk(const pd_row_ctx &c, uint64_t j0, float *x) {
  const int n = pd_elems<DT>::N;
  if (VEC && j0 + n <= c.width) {
    uint4 v = __ldg((const uint4 *)c.row + j0 / n);
    uint32_t w[4] = {v.x, v.y, v.z, v.w};
    for (int e = 0; e < n; e++) {
      if (DT == PD_F32) {
        x[e] = __uint_as_float(w[e]);
      } else {
        unsigned short h = (unsigned short)(w[e >> 1] >> (16 * (e & 1)));
        x[e] = DT == PD_BF16 ? __uint_as_float((uint32_t)h << 16)
                             : __half2float(__ushort_as_half(h));
      }
    }
  } else {
    for (int e = 0; e < n; e++) x[e] = j0 + e < c.width ? pd_load<DT>(c.row, j0 + e) : 0.0f;
  }
  uint32_t bits = 0xFFFFFFFFu;
  if (c.mask) {
    uint64_t w = j0 / 32;
    bits = w < c.n_words ? __ldg(c.mask + w) >> (j0 % 32) : 0u;
  }
  for (int e = 0; e < n; e++)
    x[e] = pd_sampling_clamp(x[e], (int)((bits >> e) & 1u) && j0 + e < c.width);
}

/* Offers a group of 4 tokens j0.. (j0 % 4 == 0) to a thread's race; the Philox values
 * come from curand_init(seed, g, offset + 4 + j0) and curand4, as the CPU twin's do. */
__device__ __forceinline__ void pd_race_group(const double *lw, uint64_t j0,
                                              unsigned long long seed, uint64_t g,
                                              unsigned long long offset, pd_best_d *best) {
  bool live = false;
  for (int i = 0; i < 4; i++)
    live |= lw[i] != -INFINITY && (lw[i] + PD_RACE_BOUND >= best->v || best->id == PD_NONE);
  if (!live) return;
  curandStatePhilox4_32_10_t st;
  curand_init(seed, g, offset + PD_RACE_BASE + j0, &st);
  uint4 v4 = curand4(&st);
  uint32_t v[4] = {v4.x, v4.y, v4.z, v4.w};
  for (int i = 0; i < 4; i++) {
    if (lw[i] == -INFINITY || lw[i] + PD_RACE_BOUND < best->v) continue;
    if (lw[i] + pd_sampling_gumbel_bound(v[i]) < best->v) continue;
    pd_best_d cand = {pd_sampling_key(lw[i], v[i]), (uint32_t)(j0 + i)};
    *best = pd_best_d_pick(*best, cand);
  }
}

/* A thread's share of a row in kernel 1. */
struct pd_acc {
  pd_best mx;     /* running max and its lowest id */
  float s;        /* sum of exp((c - mx.v) / T) */
  pd_best_d race; /* best race key so far */
};

__device__ __forceinline__ void pd_acc_add(pd_acc *a, float c, uint32_t j, float inv_t,
                                           bool sums) {
  if (c == -INFINITY) return;
  if (c > a->mx.v) {
    if (sums) a->s = a->s * expf((a->mx.v - c) * inv_t) + 1.0f;
    a->mx.v = c;
    a->mx.id = j;
  } else if (sums) {
    a->s += expf((c - a->mx.v) * inv_t);
  }
}

struct pd_verify_dev {
  pd_verify_args a;
  int greedy;
};

template <int DT, bool VEC>
__global__ void __launch_bounds__(PD_BLOCK) pd_row_kernel(pd_verify_dev d, pd_row_stats *stats) {
  __shared__ pd_best sbest[32];
  __shared__ pd_best_d srace[32];
  __shared__ float ssum[32];
  const pd_verify_args &a = d.a;
  const int n = pd_elems<DT>::N;
  uint64_t g = blockIdx.x, r = pd_find_request(a.draft_offsets, a.n, g);
  uint64_t d0 = a.draft_offsets[r], k = a.draft_offsets[r + 1] - d0, i = g - d0 - r;
  size_t esize = DT == PD_F32 ? 4 : 2;
  pd_row_ctx c = {(const char *)a.target_logits + g * a.width * esize,
                  a.bitmask ? a.bitmask + g * a.n_words : NULL, a.bitmask ? a.n_words : 0,
                  a.width, 0.0f, a.temperature >= FLT_MIN ? 1.0f / a.temperature : 0.0f};
  uint64_t x = i < k ? a.draft_tokens[d0 + i] : PD_NONE;
  bool sums = !d.greedy, race = sums && (i == k || a.mode == PD_VERIFY_SAMPLE_POINT);
  uint64_t exclude = i < k ? x : PD_NONE;
  pd_acc acc = {{-INFINITY, PD_NONE}, 0.0f, {-INFINITY, PD_NONE}};
  for (uint64_t j0 = (uint64_t)threadIdx.x * n; j0 < c.width; j0 += (uint64_t)blockDim.x * n) {
    float cv[pd_elems<DT>::N];
    pd_load_chunk<DT, VEC>(c, j0, cv);
    for (int e = 0; e < n; e++) pd_acc_add(&acc, cv[e], (uint32_t)(j0 + e), c.inv_t, sums);
    if (!race) continue;
    for (int h = 0; h < n; h += 4) {
      double lw[4];
      for (int e = 0; e < 4; e++)
        lw[e] = j0 + h + e == exclude ? -INFINITY : pd_sampling_race_lw(cv[h + e], c.inv_t);
      pd_race_group(lw, j0 + h, a.seed, g, a.offset, &acc.race);
    }
  }
  pd_best mx = pd_block_best(acc.mx, sbest);
  pd_row_stats out = {mx.v, 0.0f, -INFINITY, mx.id, PD_NONE, {0, 0, 0}};
  if (sums && mx.id != PD_NONE) {
    float mine = acc.mx.id == PD_NONE ? 0.0f : acc.s * expf((acc.mx.v - mx.v) * c.inv_t);
    out.s = pd_block_sum(mine, ssum);
    c.m = mx.v;
    if (x < c.width) out.logw_x = pd_sampling_logw(pd_row_c<DT>(c, x), c.m, c.inv_t);
  }
  if (race && mx.id != PD_NONE) out.draw = pd_block_best_d(acc.race, srace).id;
  if (threadIdx.x == 0) stats[g] = out;
}

/* The draws of kernel 2 (rare: one rejected row of a request), token by token: from
 * max(0, p - q) when q is given, else from p without token exclude. */
template <int DT>
__device__ pd_best_d pd_race_row(const pd_row_ctx &c, float s, const float *q, uint64_t exclude,
                                 unsigned long long seed, uint64_t g,
                                 unsigned long long offset) {
  pd_best_d best = {-INFINITY, PD_NONE};
  for (uint64_t j0 = (uint64_t)threadIdx.x * 4; j0 < c.width; j0 += (uint64_t)blockDim.x * 4) {
    double lw[4];
    for (int i = 0; i < 4; i++) {
      uint64_t j = j0 + i;
      float cj = j < c.width ? pd_row_c<DT>(c, j) : -INFINITY;
      if (q) {
        float p = expf(pd_sampling_logw(cj, c.m, c.inv_t)) / s;
        float rr = j < c.width ? p - pd_sampling_q(q[j]) : 0.0f;
        lw[i] = rr > 0.0f ? pd_sampling_log(rr) : -INFINITY;
      } else {
        lw[i] = j == exclude ? -INFINITY : pd_sampling_race_lw(cj, c.inv_t);
      }
    }
    pd_race_group(lw, j0, seed, g, offset, &best);
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
      float q = 1.0f; /* a draft id past the width (unchecked on the device) is rejected */
      if (a.mode == PD_VERIFY_SAMPLE) q = x < a.width ? a.draft_probs[(d0 + i) * a.width + x] : 0;
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
  __shared__ pd_best_d srace[32];
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
    const float *q = a.draft_probs + (d0 + i) * a.width;
    pd_best_d b = pd_block_best_d(pd_race_row<DT>(c, st.s, q, PD_NONE, a.seed, g, a.offset),
                                  srace);
    if (b.id == PD_NONE) /* empty residual: p without the draft */
      b = pd_block_best_d(pd_race_row<DT>(c, st.s, NULL, a.draft_tokens[d0 + i], a.seed, g,
                                          a.offset), srace);
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

/* 16-byte loads when every row starts on a 16-byte boundary. */
template <int DT>
static void pd_verify_launch(const pd_verify_dev &d, size_t n_rows, pd_row_stats *stats,
                             cudaStream_t s) {
  size_t esize = DT == PD_F32 ? 4 : 2;
  bool vec = (uintptr_t)d.a.target_logits % 16 == 0 && (d.a.width * esize) % 16 == 0;
  if (vec) pd_row_kernel<DT, true><<<(unsigned)n_rows, PD_BLOCK, 0, s>>>(d, stats);
  else pd_row_kernel<DT, false><<<(unsigned)n_rows, PD_BLOCK, 0, s>>>(d, stats);
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
