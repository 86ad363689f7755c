/* verify.cu - the fused masked speculative verifier on the GPU, the twin of verify.c.
 *
 * Four short launches, each spread over enough blocks to fill the GPU at any batch size:
 *  1. stats: every row is cut into `splits` slices; a block reads its slice's logits and
 *     mask once (16-byte loads, mask words one step ahead, 32-token groups without an
 *     allowed id not read; fp16/bf16 maxima two at a time) and keeps the argmax (the
 *     first chunk reaching each thread's maximum, without branches; the id inside it is
 *     found after the loop) and, when sampling, the online softmax sum (one MUFU op a
 *     token, in independent partial sums) and the largest c of each segment of 32 chunks.
 *     Slices and segment maxima go to the workspace.
 *  2. walk: one warp per request merges its rows' slices in order, accepts or rejects each
 *     draft as verify.c does, writes the accepted tokens, and leaves at most one draw per
 *     request (the bonus, p without the rejected draft, or the residual max(0, p - q)),
 *     seeded with the keys of the slices' argmax tokens.
 *  3. race: the draw's row, again cut into slices, runs the exponential race with Philox
 *     at the positions pushdown.h fixes. Blocks share the best key found so far (shared
 *     memory, and the request's slot in global memory); a token whose bound cannot reach
 *     it costs no Philox values, one whose value's Gumbel bound cannot, no logarithms
 *     (judged for a chunk at once, without branches), and one whose fp32 key cannot, no
 *     double logarithms; a segment whose largest c bounds every lw in it below the best
 *     key is not read at all (with a confident model's logits, most of the row). When
 *     every draw is from p (not SAMPLE) the kernel is built without the residual's state.
 *  4. finish: one block per request merges the race slices and appends the draw; rarely it
 *     redraws alone over the whole row (empty residual: p without the draft; or a draw
 *     from p whose winner fell below the starting threshold tau, see pd_job).
 * Greedy needs only 1 and 2. Pruning only skips tokens whose key is provably below the
 * final winner's, so the winner (largest key, lowest id on ties) is the CPU twin's. Row
 * sums are added in another order than verify.c's (and with exp2f), as before: decisions
 * agree up to that rounding, as pushdown.h says. */
#include "device.cuh"
extern "C" {
#include "verify.h"
}

#define PD_VBLOCK 256 /* threads of the row kernels */
#ifndef PD_UNROLL
#define PD_UNROLL 2 /* 16-byte chunks a thread has in flight in the stats pass */
#endif
#ifndef PD_STATS_MINB
#define PD_STATS_MINB 8 /* stats blocks per SM the registers must allow, when summing */
#endif
#ifndef PD_RACE_MINB
#define PD_RACE_MINB 3 /* race blocks per SM the registers must allow */
#endif

/* What a stats block learns about its slice of a row. */
struct pd_part1 {
  float m;     /* largest clamped allowed logit; -inf = none */
  uint32_t id; /* lowest id reaching m */
  float s;     /* sum of exp((c - m) / T) over the slice; 0 in greedy */
  uint32_t pad;
};

enum { PD_JOB_NONE = 0, PD_JOB_P, PD_JOB_RESIDUAL };

/* The draw a request still needs after the walk. */
struct pd_job {
  uint32_t kind;
  uint32_t exclude;  /* a token left out of a draw from p; PD_NONE = none */
  uint32_t accepted; /* drafts accepted: the draw goes to out position accepted */
  uint32_t pad;
  uint64_t g;         /* the row */
  uint64_t draft_row; /* the row of draft_probs (residual) */
  float m, s;         /* the row's statistics */
  unsigned long long best; /* best race key so far, ordered bits (0 = none) */
  double tau; /* a draw from p: LSE - 3, which the winner's key falls below with
                 probability exp(-e^3) = 2e-9; pruning starts there and finish redraws
                 without it when the winner is below (so the result stays exact) */
};

struct pd_part2 {
  double key;
  uint32_t id;
  uint32_t pad;
};

struct pd_verify_dev {
  pd_verify_args a;
  int greedy;
  float inv_t;
  float *segmax;  /* [rows][nseg]: the largest c of each 32-chunk segment (sampling only) */
  uint32_t nseg;  /* segments a row: whole chunks / 32, rounded up */
};

/* Doubles as unsigned integers that order like the doubles (0 below every key). */
__device__ __forceinline__ unsigned long long pd_key_bits(double k) {
  unsigned long long b = (unsigned long long)__double_as_longlong(k);
  return (b >> 63) ? ~b : b | 0x8000000000000000ull;
}
__device__ __forceinline__ double pd_bits_key(unsigned long long b) {
  if (b == 0) return -INFINITY;
  return __longlong_as_double((long long)((b >> 63) ? b & 0x7FFFFFFFFFFFFFFFull : ~b));
}

/* Philox4x32-10 block `blk` of subsequence sub: what curand_init / curand4 compute. */
__device__ __forceinline__ uint4 pd_philox(uint64_t blk, uint64_t sub, uint64_t seed) {
  uint32_t c0 = (uint32_t)blk, c1 = (uint32_t)(blk >> 32), c2 = (uint32_t)sub,
           c3 = (uint32_t)(sub >> 32), k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
#pragma unroll
  for (int i = 0; i < 10; i++) {
    uint32_t lo0 = c0 * 0xD2511F53u, hi0 = __umulhi(c0, 0xD2511F53u);
    uint32_t lo1 = c2 * 0xCD9E8D57u, hi1 = __umulhi(c2, 0xCD9E8D57u);
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return make_uint4(c0, c1, c2, c3);
}

__device__ __forceinline__ uint32_t pd_u4_at(uint4 v, unsigned i) {
  return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
}

/* Value v (counted from the start of subsequence sub) of the stream. */
__device__ __forceinline__ uint32_t pd_philox_value(uint64_t seed, uint64_t sub, uint64_t v) {
  return pd_u4_at(pd_philox(v >> 2, sub, seed), (unsigned)(v & 3));
}

/* Tokens per 16-byte chunk. */
template <int DT>
struct pd_elems {
  enum { N = DT == PD_F32 ? 4 : 8 };
};

/* The mask bits of tokens j0.. (j0 % 32 + N <= 32) as the low bits; all ones without a
 * mask, 0 past its words. */
__device__ __forceinline__ uint32_t pd_bits_at(const uint32_t *mask, uint64_t n_words,
                                               uint64_t j0) {
  if (!mask) return 0xFFFFFFFFu;
  uint64_t w = j0 / 32;
  return w < n_words ? __ldg(mask + w) >> (j0 % 32) : 0u;
}

/* The raw logits of chunk j0.. (16-byte load when VEC and whole). */
template <int DT, bool VEC>
__device__ __forceinline__ uint4 pd_chunk_load(const void *row, uint64_t width, uint64_t j0) {
  const int n = pd_elems<DT>::N;
  if (VEC && j0 + n <= width) return __ldcs((const uint4 *)row + j0 / n); /* evict first */
  uint32_t w[4] = {0, 0, 0, 0};
  for (int e = 0; e < n && j0 + e < width; e++) {
    uint32_t h = DT == PD_F32 ? __float_as_uint(__ldg((const float *)row + j0 + e))
                              : (uint32_t)__ldg((const unsigned short *)row + j0 + e);
    if (DT == PD_F32) w[e] = h;
    else w[e >> 1] |= h << (16 * (e & 1));
  }
  return make_uint4(w[0], w[1], w[2], w[3]);
}

/* The chunk's N mask bits, ids past width (or past the mask's words) cleared. */
template <int DT>
__device__ __forceinline__ uint32_t pd_chunk_bits(const uint32_t *mask, uint64_t n_words,
                                                  uint64_t width, uint64_t j0) {
  const int n = pd_elems<DT>::N;
  if (j0 >= width) return 0u;
  uint32_t b = pd_bits_at(mask, n_words, j0) & ((1u << n) - 1u);
  return j0 + n > width ? b & ((1u << (width - j0)) - 1u) : b;
}

/* pd_sampling_clamp without branches: fmaxf turns NaN into -inf, fminf +inf into FLT_MAX. */
__device__ __forceinline__ float pd_clamp(float f, uint32_t allowed) {
  return allowed ? fminf(fmaxf(f, -INFINITY), FLT_MAX) : -INFINITY;
}

/* Half e of a 16-bit pair as fp32. */
template <int DT>
__device__ __forceinline__ float pd_half(uint32_t w, int e) {
  if (DT == PD_BF16) return __uint_as_float(e ? w & 0xFFFF0000u : w << 16);
  return __half2float(__ushort_as_half((unsigned short)(e ? w >> 16 : w)));
}

/* c_j of the chunk's tokens (bits from pd_chunk_bits). */
template <int DT>
__device__ __forceinline__ void pd_chunk_c(uint4 v, uint32_t bits, float *x) {
  const int n = pd_elems<DT>::N;
  uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (int e = 0; e < n; e++)
    x[e] = pd_clamp(DT == PD_F32 ? __uint_as_float(w[e]) : pd_half<DT>(w[e >> 1], e & 1),
                    (bits >> e) & 1u);
}

/* max of two 16-bit pairs; a NaN loses to the other operand. */
template <int DT>
__device__ __forceinline__ uint32_t pd_hmax2(uint32_t a, uint32_t b) {
  uint32_t d;
  if (DT == PD_BF16) asm("max.bf16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  else asm("max.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
}

/* 16-bit chunk: disallowed and NaN halves become -inf, two at a time; returns the max
 * as a clamped c (+inf -> FLT_MAX, which keeps the order: no fp16/bf16 value is FLT_MAX). */
template <int DT>
__device__ __forceinline__ float pd_chunk_pairs(uint4 v, uint32_t bits, uint32_t *w) {
  const uint32_t neg = DT == PD_BF16 ? 0xFF80FF80u : 0xFC00FC00u;
  w[0] = v.x, w[1] = v.y, w[2] = v.z, w[3] = v.w;
#pragma unroll
  for (int i = 0; i < 4; i++) {
    uint32_t lo = (uint32_t)((int32_t)(bits << (31 - 2 * i)) >> 31);
    uint32_t hi = (uint32_t)((int32_t)(bits << (30 - 2 * i)) >> 31);
    uint32_t m = (lo & 0xFFFFu) | (hi & 0xFFFF0000u);
    w[i] = pd_hmax2<DT>((w[i] & m) | (neg & ~m), neg);
  }
  uint32_t t = pd_hmax2<DT>(pd_hmax2<DT>(w[0], w[1]), pd_hmax2<DT>(w[2], w[3]));
  return fminf(fmaxf(pd_half<DT>(t, 0), pd_half<DT>(t, 1)), FLT_MAX);
}

/* Token e of a stats chunk as a clamped c: x for fp32, the -inf-masked pairs w for 16-bit
 * types (+inf -> FLT_MAX). */
template <int DT>
__device__ __forceinline__ float pd_stats_x(const float *x, const uint32_t *w, int e) {
  if (DT == PD_F32) return x[e];
  return fminf(pd_half<DT>(w[e >> 1], e & 1), FLT_MAX);
}

/* j0 + the lowest e whose token in a stats chunk (x or w, as pd_stats_x reads them) is v;
 * none: id. */
template <int DT>
__device__ __forceinline__ uint32_t pd_chunk_first(const float *x, const uint32_t *w, float v,
                                                   uint32_t j0, uint32_t id) {
#pragma unroll
  for (int e = pd_elems<DT>::N - 1; e >= 0; e--)
    if (pd_stats_x<DT>(x, w, e) == v) id = j0 + (uint32_t)e;
  return id;
}

/* 2^z in one MUFU op, results below 2^-126 flushed to 0: a row sum holds its largest term,
 * 1, so a flushed term changes it by less than 1e-38 (exp2f adds a denormal fix-up of a
 * few instructions a token). */
__device__ __forceinline__ float pd_ex2(float z) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(z));
  return r;
}

/* Slices of a row: whole segments of 32 chunks (whole mask words and 16-byte chunks; a
 * warp's 32 chunks of a step fall in one segment). */
static unsigned pd_splits(size_t units, size_t target) {
  size_t s = (target + units - 1) / units;
  return (unsigned)(s < 1 ? 1 : s > 64 ? 64 : s);
}
static uint32_t pd_span(uint64_t width, unsigned splits, unsigned n) {
  return (uint32_t)(((width + splits - 1) / splits + 32 * n - 1) / (32 * n) * (32 * n));
}
#ifndef PD_RACE_TARGET
#define PD_RACE_TARGET 1024 /* race slices */
#endif
#ifndef PD_STATS_TARGET
#define PD_STATS_TARGET 4096 /* row slices in the stats pass: several waves of blocks */
#endif

/* ------------------------------------------------------------------ 1. stats */

/* The mask bits of whole chunk c (c * n + n <= the mask's words x 32), all ones without a mask. */
template <int DT>
__device__ __forceinline__ uint32_t pd_whole_bits(const uint32_t *mask, uint32_t c) {
  const int n = pd_elems<DT>::N;
  if (!mask) return (1u << n) - 1u;
  return (__ldg(mask + c / (32 / n)) >> ((c % (32 / n)) * n)) & ((1u << n) - 1u);
}

/* The raw logits of whole chunk c (inside the row): pd_chunk_load with no bound to test. */
template <int DT, bool VEC>
__device__ __forceinline__ uint4 pd_whole_load(const void *row, uint32_t c) {
  const uint64_t j0 = (uint64_t)c * pd_elems<DT>::N;
  return pd_chunk_load<DT, VEC>(row, j0 + pd_elems<DT>::N, j0);
}

/* Floats as ints that order like them (an involution; NaN does not occur here). */
__device__ __forceinline__ int pd_ord(float f) {
  int i = __float_as_int(f);
  return i >= 0 ? i : i ^ 0x7FFFFFFF;
}

__device__ __forceinline__ float pd_unord(int i) {
  return __int_as_float(i >= 0 ? i : i ^ 0x7FFFFFFF);
}

/* A stats thread's running state: its largest c; where it is, the lowest id reaching it
 * (greedy) or the first chunk reaching it (when summing); and the partial sums of
 * exp((c - mv) / T), one per chunk of a step (independent chains). */
template <int DT, bool SUMS>
struct pd_stats_acc {
  float mv = -INFINITY;
  uint32_t at = 0;
  float s[PD_UNROLL] = {0.0f};

  /* One step: chunks c0 + u * PD_VBLOCK with their raw logits and mask bits. 16-bit
   * chunks keep their pairs with disallowed halves -inf (w). Greedy finds the id inside
   * the chunk where the maximum rises (in a warp, often in the first steps, then seldom):
   * finding it after the loop loaded each thread's chunk and mask word again, a sector or
   * two a thread, 12% more DRAM traffic than the row (greedy 136 -> 122 us at batch 256,
   * k = 4, on an H100). When summing, that branch cost more than the load (sample-point
   * 257 -> 275 us): the chunk is kept without branches, and the block's best chunk is
   * loaded again once, after the block's reduction. */
  __device__ __forceinline__ void step(const uint4 *raw, const uint32_t *cur, uint32_t c0,
                                       float l2t, float *cms) {
    const int n = pd_elems<DT>::N;
    float x[PD_UNROLL][pd_elems<DT>::N];
    uint32_t w[PD_UNROLL][4];
    float old = mv;
#pragma unroll
    for (int u = 0; u < PD_UNROLL; u++) {
      float cm;
      if (DT == PD_F32) {
        pd_chunk_c<DT>(raw[u], cur[u], x[u]);
        cm = fmaxf(fmaxf(x[u][0], x[u][1]), fmaxf(x[u][2], x[u][3]));
      } else {
        cm = pd_chunk_pairs<DT>(raw[u], cur[u], w[u]);
      }
      uint32_t c = c0 + (uint32_t)u * PD_VBLOCK;
      if (SUMS) {
        bool up = cm > mv;
        mv = up ? cm : mv;
        at = up ? c : at;
      } else if (cm > mv) {
        mv = cm;
        at = c * n + pd_chunk_first<DT>(x[u], w[u], cm, 0, 0);
      }
      cms[u] = cm;
    }
    if (!SUMS || mv == -INFINITY) return;
    float f = mv > old ? pd_ex2((old - mv) * l2t) : 1.0f; /* rescale; from -inf: 0 */
#pragma unroll
    for (int u = 0; u < PD_UNROLL; u++) s[u] *= f;
#pragma unroll
    for (int u = 0; u < PD_UNROLL; u++) /* one MUFU op a token; -inf adds 0 */
#pragma unroll
      for (int e = 0; e < n; e++) s[u] += pd_ex2((pd_stats_x<DT>(x[u], w[u], e) - mv) * l2t);
  }
};

/* Chunks wholly inside the row and the mask's words take the lean loop (32-bit chunk
 * indices, no bounds per chunk); a ragged last chunk (width not a multiple of n) is one
 * more step of one thread. Tokens past the mask's words are disallowed: nothing to read.
 * When sampling (SUMS), each warp also writes the largest c of the segment of 32 chunks it
 * read in a step (its ragged chunk aside), which lets the race skip whole segments. */
template <int DT, bool VEC, bool SUMS>
__global__ void __launch_bounds__(PD_VBLOCK, SUMS ? PD_STATS_MINB : 1)
    pd_stats_kernel(pd_verify_dev d, unsigned splits, uint32_t span, pd_part1 *part) {
  __shared__ pd_best sbest[32];
  __shared__ float ssum[32];
  const pd_verify_args &a = d.a;
  const int n = pd_elems<DT>::N;
  uint32_t g = blockIdx.x / splits, jb = (blockIdx.x % splits) * span;
  uint64_t je = (uint64_t)jb + span < a.width ? (uint64_t)jb + span : a.width;
  if (a.bitmask && a.n_words * 32 < je) je = a.n_words * 32;
  if (je < jb) je = jb; /* a slice past the row's end (or its mask's) has nothing */
  const uint32_t cf = (uint32_t)(je / n); /* chunks [jb / n, cf) are whole */
  const bool ragged = je % n != 0;        /* chunk cf: the row's last, cut by width */
  size_t esize = DT == PD_F32 ? 4 : 2;
  const void *row = (const char *)a.target_logits + (uint64_t)g * a.width * esize;
  const uint32_t *mask = a.bitmask ? a.bitmask + (uint64_t)g * a.n_words : NULL;
  float inv_t = d.inv_t, l2t = inv_t * 1.44269504f; /* exp(z) = 2^(z log2 e) */
  pd_stats_acc<DT, SUMS> acc;
  float cms[PD_UNROLL];
  const uint32_t lane = threadIdx.x & 31;
  float *segmax = SUMS ? d.segmax + (uint64_t)g * d.nseg : NULL;
  uint32_t c0 = jb / n + threadIdx.x;
  uint32_t bits[PD_UNROLL]; /* mask bits of the step: loaded one step ahead */
#pragma unroll
  for (int u = 0; u < PD_UNROLL; u++) {
    uint32_t c = c0 + (uint32_t)u * PD_VBLOCK;
    bits[u] = c < cf ? pd_whole_bits<DT>(mask, c) : 0u;
  }
  for (; c0 - lane < cf; c0 += PD_UNROLL * PD_VBLOCK) { /* the whole warp turns together */
    uint4 raw[PD_UNROLL];
#pragma unroll
    for (int u = 0; u < PD_UNROLL; u++) /* no read where nothing is allowed */
      raw[u] = bits[u] ? pd_whole_load<DT, VEC>(row, c0 + (uint32_t)u * PD_VBLOCK)
                       : make_uint4(0, 0, 0, 0);
    uint32_t cur[PD_UNROLL];
#pragma unroll
    for (int u = 0; u < PD_UNROLL; u++) {
      uint32_t c = c0 + (uint32_t)(u + PD_UNROLL) * PD_VBLOCK;
      cur[u] = bits[u];
      bits[u] = c < cf ? pd_whole_bits<DT>(mask, c) : 0u;
    }
    acc.step(raw, cur, c0, l2t, cms);
#pragma unroll
    for (int u = 0; SUMS && u < PD_UNROLL; u++) { /* one REDUX a segment */
      uint32_t first = c0 - lane + (uint32_t)u * PD_VBLOCK;
      int m = __reduce_max_sync(0xFFFFFFFFu, pd_ord(cms[u]));
      if (lane == 0 && first < cf) segmax[first / 32] = pd_unord(m);
    }
  }
  if (ragged && threadIdx.x == 0) { /* the last chunk of the row, after this thread's others */
    uint4 raw[PD_UNROLL];
    uint32_t cur[PD_UNROLL];
#pragma unroll
    for (int u = 0; u < PD_UNROLL; u++) raw[u] = make_uint4(0, 0, 0, 0), cur[u] = 0;
    cur[0] = pd_chunk_bits<DT>(mask, a.n_words, a.width, (uint64_t)cf * n);
    if (cur[0]) raw[0] = pd_chunk_load<DT, false>(row, a.width, (uint64_t)cf * n);
    acc.step(raw, cur, cf, l2t, cms);
  }
  /* when summing, ids are chunks until the block's best is known (the lowest chunk
   * holding the maximum holds its lowest id); then thread 0 loads that one chunk again */
  pd_best mx = {acc.mv, acc.mv == -INFINITY ? PD_NONE : acc.at};
  float st = 0.0f;
#pragma unroll
  for (int u = 0; u < PD_UNROLL; u++) st += acc.s[u];
  pd_best bm = pd_block_best(mx, sbest);
  pd_part1 out = {bm.v, bm.id, 0.0f, 0};
  if (SUMS && bm.id != PD_NONE)
    out.s = pd_block_sum(mx.id == PD_NONE ? 0.0f : st * expf((mx.v - bm.v) * inv_t), ssum);
  if (SUMS && bm.id != PD_NONE && threadIdx.x == 0) {
    uint64_t j0 = (uint64_t)bm.id * n;
    uint4 r = pd_chunk_load<DT, VEC>(row, a.width, j0);
    uint32_t b = pd_chunk_bits<DT>(mask, a.n_words, a.width, j0);
    float xr[pd_elems<DT>::N];
    uint32_t wr[4];
    if (DT == PD_F32) pd_chunk_c<DT>(r, b, xr);
    else pd_chunk_pairs<DT>(r, b, wr);
    out.id = pd_chunk_first<DT>(xr, wr, bm.v, (uint32_t)j0, out.id);
  }
  if (threadIdx.x == 0) part[blockIdx.x] = out;
}

/* ------------------------------------------------------------------ 2. walk */

/* One warp per request; every lane follows the same walk (lane 0's values decide). */
template <int DT>
__global__ void __launch_bounds__(128) pd_walk_kernel(pd_verify_dev d, unsigned splits,
                                                      const pd_part1 *part, pd_job *jobs) {
  const pd_verify_args &a = d.a;
  const unsigned full = 0xFFFFFFFFu, lane = threadIdx.x & 31;
  uint64_t r = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (r >= a.n) return;
  uint64_t d0 = a.draft_offsets[r], k = a.draft_offsets[r + 1] - d0;
  size_t esize = DT == PD_F32 ? 4 : 2;
  pd_job job = {PD_JOB_NONE, PD_NONE, 0, 0, 0, 0, 0.0f, 0.0f, 0ull};
  uint32_t accepted = 0, next = PD_NONE;
  for (uint64_t i = 0; i <= k; i++) {
    uint64_t g = d0 + r + i;
    const pd_part1 *p = part + g * splits;
    pd_best mx = {-INFINITY, PD_NONE};
    for (unsigned t = lane; t < splits; t += 32) mx = pd_best_pick(mx, {p[t].m, p[t].id});
    for (int o = 16; o; o >>= 1) /* a total order: every lane ends with the same */
      mx = pd_best_pick(mx, {__shfl_xor_sync(full, mx.v, o), __shfl_xor_sync(full, mx.id, o)});
    if (mx.id == PD_NONE) break; /* dead row: nothing can be drawn */
    float s = 0.0f;
    if (!d.greedy) {
      for (unsigned t = lane; t < splits; t += 32)
        if (p[t].id != PD_NONE) s += p[t].s * expf((p[t].m - mx.v) * d.inv_t);
      for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(full, s, o);
      s = __shfl_sync(full, s, 0);
    }
    if (i == k) {
      if (d.greedy) next = mx.id;
      else job = {PD_JOB_P, PD_NONE, 0, 0, g, 0, mx.v, s, 0ull};
      break;
    }
    uint32_t x = a.draft_tokens[d0 + i];
    bool ok;
    if (d.greedy) {
      ok = x == mx.id;
    } else { /* a draft id past the width (unchecked on the device) is rejected */
      float cx = -INFINITY, q = 1.0f;
      if (x < a.width) {
        const void *row = (const char *)a.target_logits + g * a.width * esize;
        int al = pd_sampling_allowed(a.bitmask ? a.bitmask + g * a.n_words : NULL,
                                     a.bitmask ? a.n_words : 0, x);
        cx = pd_sampling_clamp(al ? pd_load<DT>(row, x) : 0.0f, al);
      }
      if (a.mode == PD_VERIFY_SAMPLE) q = x < a.width ? a.draft_probs[(d0 + i) * a.width + x] : 0;
      float u = pd_philox_uniform(pd_philox_value(a.seed, g, a.offset));
      ok = u * pd_sampling_q(q) < expf(pd_sampling_logw(cx, mx.v, d.inv_t)) / s;
    }
    ok = __shfl_sync(full, ok, 0);
    if (ok) {
      accepted++;
      continue;
    }
    if (d.greedy) next = mx.id;
    else if (a.mode == PD_VERIFY_SAMPLE) job = {PD_JOB_RESIDUAL, x, 0, 0, g, d0 + i, mx.v, s, 0ull};
    else job = {PD_JOB_P, x, 0, 0, g, 0, mx.v, s, 0ull};
    break;
  }
  job.tau = -INFINITY;
  if (job.kind == PD_JOB_P) { /* the keys of a draw from p: Gumbel(LSE) distributed */
    job.tau = pd_sampling_race_lw(job.m, d.inv_t) + (double)logf(job.s) - 3.0;
    if (!(job.tau > -INFINITY && job.tau < INFINITY)) job.tau = -INFINITY;
  }
  if (job.kind != PD_JOB_NONE) { /* seed the race: the keys of the slices' argmax tokens */
    const pd_part1 *p = part + job.g * splits;
    bool resid = job.kind == PD_JOB_RESIDUAL;
    double key = -INFINITY;
    for (unsigned t = lane; t < splits; t += 32) {
      uint32_t id = p[t].id;
      if (id == PD_NONE || (!resid && id == job.exclude)) continue;
      double lw = pd_sampling_race_lw(p[t].m, d.inv_t);
      if (resid) {
        float pr = expf(pd_sampling_logw(p[t].m, job.m, d.inv_t)) / job.s;
        float rr = pr - pd_sampling_q(a.draft_probs[job.draft_row * a.width + id]);
        if (!(rr > 0.0f)) continue;
        lw = pd_sampling_log(rr);
      }
      uint32_t v = pd_philox_value(a.seed, job.g, a.offset + PD_RACE_BASE + id);
      key = fmax(key, pd_sampling_key(lw, v));
    }
    for (int o = 16; o; o >>= 1) key = fmax(key, __shfl_xor_sync(full, key, o));
    key = fmax(key, job.tau);
    job.best = key == -INFINITY ? 0ull : pd_key_bits(key);
  }
  uint32_t *out = a.out_tokens + d0 + r;
  for (uint32_t t = lane; t < accepted; t += 32) out[t] = a.draft_tokens[d0 + t];
  if (lane != 0) return;
  if (next != PD_NONE) out[accepted] = next;
  a.out_counts[r] = accepted + (next != PD_NONE);
  if (a.out_accepted) a.out_accepted[r] = accepted;
  job.accepted = accepted;
  jobs[r] = job;
}

/* ------------------------------------------------------------------ 3. race */

template <int DT, bool VEC>
__device__ __forceinline__ void pd_race_fetch(const void *row, const float *q, bool qvec,
                                              uint64_t width, uint64_t j0, uint32_t bits,
                                              uint4 *raw, float *qv) {
  const int n = pd_elems<DT>::N;
  *raw = bits ? pd_chunk_load<DT, VEC>(row, width, j0) : make_uint4(0, 0, 0, 0);
  if (!q) return;
  if (bits && qvec && j0 + n <= width) {
#pragma unroll
    for (int h = 0; h < n; h += 4) {
      float4 f = __ldg((const float4 *)(q + j0 + h));
      qv[h] = f.x, qv[h + 1] = f.y, qv[h + 2] = f.z, qv[h + 3] = f.w;
    }
  } else {
#pragma unroll
    for (int e = 0; e < n; e++) qv[e] = bits && j0 + e < width ? __ldg(q + j0 + e) : 0.0f;
  }
}

/* Two Philox blocks side by side: independent chains, so they overlap in the pipeline. */
__device__ __forceinline__ void pd_philox2(uint64_t blk, uint64_t sub, uint64_t seed, uint4 *o0,
                                           uint4 *o1) {
  uint64_t b1 = blk + 1;
  uint32_t a0 = (uint32_t)blk, a1 = (uint32_t)(blk >> 32), b0_ = (uint32_t)b1,
           b1_ = (uint32_t)(b1 >> 32), c2 = (uint32_t)sub, c3 = (uint32_t)(sub >> 32);
  uint32_t a2 = c2, a3 = c3, d2 = c2, d3 = c3;
  uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
#pragma unroll
  for (int i = 0; i < 10; i++) {
    uint32_t lo0 = a0 * 0xD2511F53u, hi0 = __umulhi(a0, 0xD2511F53u);
    uint32_t lo1 = a2 * 0xCD9E8D57u, hi1 = __umulhi(a2, 0xCD9E8D57u);
    uint32_t mo0 = b0_ * 0xD2511F53u, ni0 = __umulhi(b0_, 0xD2511F53u);
    uint32_t mo1 = d2 * 0xCD9E8D57u, ni1 = __umulhi(d2, 0xCD9E8D57u);
    a0 = hi1 ^ a1 ^ k0, a1 = lo1, a2 = hi0 ^ a3 ^ k1, a3 = lo0;
    b0_ = ni1 ^ b1_ ^ k0, b1_ = mo1, d2 = ni0 ^ d3 ^ k1, d3 = mo0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  *o0 = make_uint4(a0, a1, a2, a3);
  *o1 = make_uint4(b0_, b1_, d2, d3);
}

/* Value sh + e of the three blocks (e a constant once unrolled): three selects by sh, where
 * indexing by sh + e would pick among twelve. */
__device__ __forceinline__ uint32_t pd_value_at(uint4 p0, uint4 p1, uint4 p2, unsigned sh,
                                                int e) {
  const uint32_t v[12] = {p0.x, p0.y, p0.z, p0.w, p1.x, p1.y, p1.z, p1.w,
                          p2.x, p2.y, p2.z, p2.w};
  return sh == 0 ? v[e] : sh == 1 ? v[e + 1] : sh == 2 ? v[e + 2] : v[e + 3];
}

/* One chunk of the race: its tokens' bounds, and for those that may win, their Philox
 * values and keys. */
template <int DT, bool RESID>
__device__ __forceinline__ void pd_race_chunk(const pd_verify_dev &d, const pd_job &job,
                                              bool resid, uint64_t j0, uint32_t cur, uint4 craw,
                                              const float *cq, double &thr, float &thrf,
                                              pd_best_d &best, unsigned long long *sthr) {
  const pd_verify_args &a = d.a;
  const int n = pd_elems<DT>::N;
  if (!cur) return; /* nothing allowed: no weight, no residual */
  float x[pd_elems<DT>::N], rr[pd_elems<DT>::N], ub[pd_elems<DT>::N];
  pd_chunk_c<DT>(craw, cur, x);
  uint32_t jx = job.exclude == PD_NONE ? (uint32_t)n /* the excluded token's place here */
                                       : job.exclude - (uint32_t)j0;
  bool live = false;
#pragma unroll
  for (int e = 0; e < n; e++) {
    if (RESID && resid) { /* verify.c's residual, then a bound of its log */
      float p = expf(pd_sampling_logw(x[e], job.m, d.inv_t)) / job.s;
      rr[e] = p - pd_sampling_q(cq[e]);
      ub[e] = !(rr[e] > 0.0f) ? -INFINITY
              : rr[e] >= FLT_MIN ? __logf(rr[e]) + 0.01f /* __logf: error < 1e-4 */
                                 : INFINITY;
    } else {
      ub[e] = x[e] == -INFINITY || jx == (uint32_t)e ? -INFINITY : __fmul_ru(x[e], d.inv_t);
      rr[e] = 0.0f;
    }
    live |= ub[e] != -INFINITY && __fadd_ru(ub[e], PD_RACE_BOUND) >= thrf;
  }
  if (!live) return;
  /* values offset + 4 + j of the chunk: Philox blocks b0, b0 + 1 (and b0 + 2 when the
   * offset is not a multiple of 4 and the chunk has 8 tokens) */
  uint64_t v0 = a.offset + PD_RACE_BASE + j0, b0 = v0 >> 2;
  unsigned sh = (unsigned)(v0 & 3);
  uint4 p0, p1, p2 = make_uint4(0, 0, 0, 0);
  pd_philox2(b0, job.g, a.seed, &p0, &p1);
  if (n == 8 && sh) p2 = pd_philox(b0 + 2, job.g, a.seed);
  /* the tokens whose Gumbel bound may reach the threshold, without branches: in most
   * chunks none does (the bound needs a value in the top 2^-7 or so) */
  uint32_t pass = 0;
#pragma unroll
  for (int e = 0; e < n; e++) {
    float gb = pd_sampling_gumbel_bound(pd_value_at(p0, p1, p2, sh, e));
    pass |= ub[e] != -INFINITY && __fadd_ru(ub[e], gb) >= thrf ? 1u << e : 0u;
  }
  if (!pass) return;
#pragma unroll
  for (int e = 0; e < n; e++) {
    if (!((pass >> e) & 1u)) continue;
    float u = ub[e];
    uint32_t v = pd_value_at(p0, p1, p2, sh, e);
    float gb = pd_sampling_gumbel_bound(v);
    /* the key in fp32 (logf: 1 ulp), with room for its rounding: most tokens that pass
     * the bound stop here, before the double logarithms */
    float kf = u - logf(-logf(pd_philox_uniform(v)));
    if (__fadd_ru(kf, 1e-3f + fabsf(kf) * 1e-6f) < thrf) continue;
    double lw = RESID && resid ? pd_sampling_log(rr[e]) : pd_sampling_race_lw(x[e], d.inv_t);
    if (lw + gb < thr) continue;
    pd_best_d cand = {pd_sampling_key(lw, v), (uint32_t)(j0 + e)};
    pd_best_d nb = pd_best_d_pick(best, cand);
    if (nb.id == best.id) continue;
    best = nb;
    if (best.v > thr) {
      thr = best.v, thrf = __double2float_rd(thr);
      atomicMax(sthr, pd_key_bits(thr));
    }
  }
}

/* Whole chunk c's raw logits and, for a residual, its q (zeros unless load). */
template <int DT, bool VEC>
__device__ __forceinline__ void pd_race_whole(const void *row, const float *q, bool qvec,
                                              uint32_t c, bool load, uint4 *raw, float *qv) {
  const int n = pd_elems<DT>::N;
  *raw = load ? pd_whole_load<DT, VEC>(row, c) : make_uint4(0, 0, 0, 0);
  if (!q) return;
  const float *qc = q + (uint64_t)c * n;
  if (load && qvec) {
#pragma unroll
    for (int h = 0; h < n; h += 4) {
      float4 f = __ldg((const float4 *)(qc + h));
      qv[h] = f.x, qv[h + 1] = f.y, qv[h + 2] = f.z, qv[h + 3] = f.w;
    }
  } else {
#pragma unroll
    for (int e = 0; e < n; e++) qv[e] = load ? __ldg(qc + e) : 0.0f;
  }
}

/* The calling thread's best (key, id) over tokens [jb, je) of job's draw, with the block's
 * best key in *sthr (ordered bits) and, when gbest is given, the request's in *gbest.
 * Tokens are first judged in fp32 with bounds rounded the safe way (an upper bound of lw,
 * a lower bound of the best key); only those that may still win get their exact lw and
 * key in double, as verify.c computes them. Whole chunks take the lean loop (32-bit
 * indices; a chunk's mask and logits loaded side by side, one live turn ahead); a ragged
 * last chunk is one more turn of thread 0, after its others. A warp skips a segment (its
 * 32 chunks of a turn) whose largest c bounds every lw in it below what can still win: no
 * loads, no work; it learns which of its turns are live 32 at a time, one segment maximum
 * a lane. */
template <int DT, bool VEC, bool RESID>
__device__ pd_best_d pd_race_slice(const pd_verify_dev &d, const pd_job &job, uint32_t jb,
                                   uint64_t je, unsigned long long *sthr,
                                   unsigned long long *gbest) {
  const pd_verify_args &a = d.a;
  const int n = pd_elems<DT>::N;
  size_t esize = DT == PD_F32 ? 4 : 2;
  const void *row = (const char *)a.target_logits + job.g * a.width * esize;
  const uint32_t *mask = a.bitmask ? a.bitmask + job.g * a.n_words : NULL;
  bool resid = RESID && job.kind == PD_JOB_RESIDUAL;
  const float *q = resid ? a.draft_probs + job.draft_row * a.width : NULL;
  bool qvec = resid && (uintptr_t)q % 16 == 0;
  pd_best_d best = {-INFINITY, PD_NONE};
  double thr = -INFINITY; /* the winner's key is at least this (a token's key, or tau) */
  float thrf = -INFINITY; /* thr rounded down */
  if (mask && a.n_words * 32 < je) je = a.n_words * 32; /* past the mask: disallowed */
  if (je < jb) je = jb;
  const uint32_t cf = (uint32_t)(je / n), step = blockDim.x; /* chunks below cf are whole */
  const float *segmax = d.segmax + job.g * d.nseg;
  /* an upper bound of lw over a segment of largest c sm: c / T for a draw from p;
   * log p = (c - m) / T - log s (plus rounding room) bounds the residual's log(p - q) */
  const float lse = resid ? __fadd_rd(logf(job.s), -1e-2f) : 0.0f;
  auto seg_live = [&](float sm) {
    float ub = resid ? __fsub_ru(__fmul_ru(__fsub_ru(sm, job.m), d.inv_t), lse)
                     : __fmul_ru(sm, d.inv_t);
    return !(__fadd_ru(ub, PD_RACE_BOUND) < thrf);
  };
  auto judge = [&](uint32_t c, uint32_t cur, uint4 craw, const float *cq) {
    double t = pd_bits_key(*(volatile unsigned long long *)sthr);
    if (t > thr) thr = t, thrf = __double2float_rd(t);
    pd_race_chunk<DT, RESID>(d, job, resid, (uint64_t)c * n, cur, craw, cq, thr, thrf, best,
                             sthr);
  };
  thr = pd_bits_key(*(volatile unsigned long long *)sthr), thrf = __double2float_rd(thr);
  /* chunk (cw + lane + i * step) is the lane's i-th; all 32 of a turn lie in one segment */
  const uint32_t lane = threadIdx.x & 31, cw = jb / n + (threadIdx.x - lane);
  const uint32_t turns = cw < cf ? (cf - cw + step - 1) / step : 0;
  uint4 raw;
  float qv[pd_elems<DT>::N];
  auto fetch = [&](uint32_t c) { /* mask and logits side by side: no wait between them */
    uint32_t bits = c < cf ? pd_whole_bits<DT>(mask, c) : 0u;
    pd_race_whole<DT, VEC>(row, q, qvec, c, c < cf, &raw, qv);
    return bits;
  };
  for (uint32_t t0 = 0; t0 < turns; t0 += 32) { /* the warp's turns, 32 at a time */
    /* the turns whose segment may still hold the winner, one segment maximum a lane */
    uint32_t i = t0 + lane;
    bool lv = i < turns && seg_live(__ldg(segmax + (cw + i * step) / 32));
    uint32_t live = __ballot_sync(0xFFFFFFFFu, lv);
    if (!live) continue;
    uint32_t c = cw + lane + (t0 + __ffs(live) - 1) * step;
    live &= live - 1;
    uint32_t bits = fetch(c);
    for (;;) { /* live turns only; the next one's loads go out before this one's work */
      uint32_t cur = bits, cc = c;
      uint4 craw = raw;
      float cq[pd_elems<DT>::N];
#pragma unroll
      for (int e = 0; e < n; e++) cq[e] = RESID && resid ? qv[e] : 0.0f;
      bool more = live != 0;
      if (more) {
        c = cw + lane + (t0 + __ffs(live) - 1) * step;
        live &= live - 1;
        bits = fetch(c);
      }
      /* the request's best key from the other blocks: read now, used after this chunk,
       * so thread 0 does not wait on it */
      bool trade = gbest && threadIdx.x == 0;
      unsigned long long gv = trade ? *(volatile unsigned long long *)gbest : 0;
      judge(cc, cur, craw, cq);
      if (trade) { /* trade best keys with the request's other blocks */
        unsigned long long sv = *(volatile unsigned long long *)sthr;
        if (sv > gv) atomicMax(gbest, sv);
        else if (gv > sv) atomicMax(sthr, gv);
      }
      if (!more) break;
    }
  }
  if (je % n && threadIdx.x == 0) { /* the row's last chunk, cut by width */
    uint32_t cur = pd_chunk_bits<DT>(mask, a.n_words, a.width, (uint64_t)cf * n);
    pd_race_fetch<DT, false>(row, q, false, a.width, (uint64_t)cf * n, cur, &raw, qv);
    float cq[pd_elems<DT>::N];
#pragma unroll
    for (int e = 0; e < n; e++) cq[e] = RESID && resid ? qv[e] : 0.0f;
    judge(cf, cur, raw, cq);
  }
  return best;
}

/* RESID: some jobs may draw from a residual (SAMPLE); without it every job draws from p,
 * and the kernel keeps no residual state (within the same registers, no spills). */
template <int DT, bool VEC, bool RESID>
__global__ void __launch_bounds__(PD_VBLOCK, PD_RACE_MINB)
    pd_race_kernel(pd_verify_dev d, unsigned splits, uint32_t span, pd_job *jobs,
                   pd_part2 *part) {
  __shared__ unsigned long long sthr;
  __shared__ pd_best_d sb[32];
  uint32_t r = blockIdx.x / splits, jb = (blockIdx.x % splits) * span;
  pd_job job = jobs[r];
  if (job.kind == PD_JOB_NONE) return;
  uint64_t je = (uint64_t)jb + span < d.a.width ? (uint64_t)jb + span : d.a.width;
  if (threadIdx.x == 0) sthr = *(volatile unsigned long long *)&jobs[r].best;
  __syncthreads();
  pd_best_d b =
      pd_block_best_d(pd_race_slice<DT, VEC, RESID>(d, job, jb, je, &sthr, &jobs[r].best), sb);
  if (threadIdx.x != 0) return;
  part[blockIdx.x] = {b.v, b.id, 0};
  if (b.id != PD_NONE) atomicMax(&jobs[r].best, pd_key_bits(b.v));
}

/* ------------------------------------------------------------------ 4. finish */

template <int DT, bool VEC>
__global__ void __launch_bounds__(PD_VBLOCK) pd_finish_kernel(pd_verify_dev d, unsigned splits,
                                                              const pd_job *jobs,
                                                              const pd_part2 *part) {
  __shared__ unsigned long long sthr;
  __shared__ pd_best_d sb[32];
  const pd_verify_args &a = d.a;
  uint64_t r = blockIdx.x;
  pd_job job = jobs[r];
  if (job.kind == PD_JOB_NONE) return;
  pd_best_d b = {-INFINITY, PD_NONE};
  for (unsigned t = threadIdx.x; t < splits; t += blockDim.x)
    b = pd_best_d_pick(b, {part[r * splits + t].key, part[r * splits + t].id});
  b = pd_block_best_d(b, sb);
  bool redo = job.kind == PD_JOB_P ? b.id == PD_NONE || b.v < job.tau /* tau missed */
                                    : b.id == PD_NONE; /* empty residual: p without x */
  if (redo) { /* one block over the whole row, no threshold: rare */
    if (threadIdx.x == 0) sthr = 0;
    __syncthreads();
    job.kind = PD_JOB_P;
    b = pd_block_best_d(pd_race_slice<DT, VEC, false>(d, job, 0, a.width, &sthr, NULL), sb);
  }
  if (threadIdx.x != 0 || b.id == PD_NONE) return;
  a.out_tokens[a.draft_offsets[r] + r + job.accepted] = b.id;
  a.out_counts[r] = job.accepted + 1;
}

/* ------------------------------------------------------------------ host */

/* Segments a row: 32 chunks of n tokens. */
static uint32_t pd_nseg(size_t width, unsigned n) {
  return (uint32_t)((width + 32 * n - 1) / (32 * n));
}

extern "C" size_t pd_cuda_verify_workspace(size_t n_rows, size_t width) {
  return n_rows * sizeof(pd_job) + (n_rows + PD_STATS_TARGET) * sizeof(pd_part1) +
         (n_rows + PD_RACE_TARGET) * sizeof(pd_part2) +
         n_rows * pd_nseg(width, 4) * sizeof(float); /* fp32's segments: the most */
}

template <int DT, bool VEC>
static void pd_verify_launch2(pd_verify_dev d, size_t n_rows, char *ws, cudaStream_t s) {
  const unsigned en = pd_elems<DT>::N;
  pd_job *jobs = (pd_job *)ws;
  pd_part1 *p1 = (pd_part1 *)(ws + n_rows * sizeof(pd_job));
  pd_part2 *p2 = (pd_part2 *)(p1 + n_rows + PD_STATS_TARGET);
  d.segmax = (float *)(p2 + n_rows + PD_RACE_TARGET);
  d.nseg = pd_nseg(d.a.width, en);
  unsigned s1 = pd_splits(n_rows, PD_STATS_TARGET), s2 = pd_splits(d.a.n, PD_RACE_TARGET);
  unsigned b1 = (unsigned)(n_rows * s1), n = (unsigned)d.a.n;
  uint32_t span1 = pd_span(d.a.width, s1, en), span2 = pd_span(d.a.width, s2, en);
  if (d.greedy)
    pd_stats_kernel<DT, VEC, false><<<b1, PD_VBLOCK, 0, s>>>(d, s1, span1, p1);
  else
    pd_stats_kernel<DT, VEC, true><<<b1, PD_VBLOCK, 0, s>>>(d, s1, span1, p1);
  pd_walk_kernel<DT><<<(n + 3) / 4, 128, 0, s>>>(d, s1, p1, jobs);
  if (d.greedy) return;
  if (d.a.mode == PD_VERIFY_SAMPLE)
    pd_race_kernel<DT, VEC, true><<<n * s2, PD_VBLOCK, 0, s>>>(d, s2, span2, jobs, p2);
  else
    pd_race_kernel<DT, VEC, false><<<n * s2, PD_VBLOCK, 0, s>>>(d, s2, span2, jobs, p2);
  pd_finish_kernel<DT, VEC><<<n, PD_VBLOCK, 0, s>>>(d, s2, jobs, p2);
}

/* 16-byte loads when every row starts on a 16-byte boundary. */
template <int DT>
static void pd_verify_launch(const pd_verify_dev &d, size_t n_rows, char *ws, cudaStream_t s) {
  size_t esize = DT == PD_F32 ? 4 : 2;
  bool vec = (uintptr_t)d.a.target_logits % 16 == 0 && (d.a.width * esize) % 16 == 0;
  if (vec) pd_verify_launch2<DT, true>(d, n_rows, ws, s);
  else pd_verify_launch2<DT, false>(d, n_rows, ws, s);
}

extern "C" pd_status pd_cuda_verify(const pd_verify_args *a, size_t n_rows, void *workspace,
                                    size_t workspace_bytes, void *stream, pd_error *err) {
  pd_status st = pd_kernels_check_verify(a, err);
  if (st != PD_OK) return st;
  if ((st = pd_cuda_require(err)) != PD_OK || a->n == 0) return st;
  if (n_rows < a->n || n_rows > 0x7FFFFFFFu - PD_STATS_TARGET || a->n > 0x7FFFFFFFu)
    return pd__fail(err, PD_ERR_ARG, "cuda verify: %zu rows for %zu requests", n_rows, a->n);
  if (a->width > 0x7FFFFFFFu) /* chunk and token indices are 32-bit on the device */
    return pd__fail(err, PD_ERR_ARG, "cuda verify: width %zu above 2^31 - 1", a->width);
  if (!workspace || workspace_bytes < pd_cuda_verify_workspace(n_rows, a->width))
    return pd__fail(err, PD_ERR_ARG, "cuda verify: workspace needs %zu bytes",
                    pd_cuda_verify_workspace(n_rows, a->width));
  int greedy = a->mode == PD_VERIFY_GREEDY || a->temperature < FLT_MIN;
  pd_verify_dev d = {*a, greedy, a->temperature >= FLT_MIN ? 1.0f / a->temperature : 0.0f,
                     NULL, 0};
  char *ws = (char *)workspace;
  cudaStream_t s = (cudaStream_t)stream;
  if (a->dtype == PD_F32) pd_verify_launch<PD_F32>(d, n_rows, ws, s);
  else if (a->dtype == PD_F16) pd_verify_launch<PD_F16>(d, n_rows, ws, s);
  else pd_verify_launch<PD_BF16>(d, n_rows, ws, s);
  return pd_cuda_check_launch("verify", err);
}
