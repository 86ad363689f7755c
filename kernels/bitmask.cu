/* bitmask.cu - in-place bitmask apply on the GPU: disallowed logits -> -inf.
 *
 * A warp owns a tile of SEGS segments of 32 mask words (1024 tokens each): each
 * lane loads one word per segment, all loads issued together so the mask read alone keeps
 * the memory system busy. A segment whose words are all ones is skipped with no logits
 * traffic. Otherwise each lane takes 16-byte chunks of the segment (a warp touches 512
 * contiguous bytes per step) with its 4 or 8 bits fetched from the owning lane by a
 * shuffle: none allowed -> one store of -inf without reading; some -> load, blend, store.
 * Rows whose stride or base is not 16-byte aligned, and ragged chunks at the row end,
 * take the per-element path. */
#include "device.cuh"

/* Tuning, per element size (measured on an H100 at [256, 128256], README): segments per
 * warp, and the streaming (evict-first) hint on logits loads (CS bit 0) and stores (bit 1). */
#ifndef PD_SEGS_32
#define PD_SEGS_32 2
#endif
#ifndef PD_CS_32
#define PD_CS_32 2
#endif
#ifndef PD_SEGS_16
#define PD_SEGS_16 1
#endif
#ifndef PD_CS_16
#define PD_CS_16 3
#endif

template <typename T>
struct pd_vec; /* a 16-byte chunk's element count, and the tuning above */
template <>
struct pd_vec<uint32_t> {
  enum { N = 4, SEGS = PD_SEGS_32, CS = PD_CS_32 };
};
template <>
struct pd_vec<uint16_t> {
  enum { N = 8, SEGS = PD_SEGS_16, CS = PD_CS_16 };
};

template <typename T>
__device__ __forceinline__ uint4 pd_ld16(const T *p) {
  return (pd_vec<T>::CS & 1) ? __ldcs((const uint4 *)p) : *(const uint4 *)p;
}
template <typename T>
__device__ __forceinline__ void pd_st16(T *p, uint4 v) {
  if (pd_vec<T>::CS & 2) __stcs((uint4 *)p, v);
  else *(uint4 *)p = v;
}

/* One 32-word segment whose words (one per lane) are not all ones: 16-byte chunks. */
template <typename T>
__device__ __forceinline__ void pd_apply_segment(T *row, uint64_t width, uint64_t seg0,
                                                 uint32_t word, unsigned lane, T neg) {
  const unsigned n = pd_vec<T>::N, cpw = 32 / n; /* chunks per mask word */
  const uint32_t full = (1u << n) - 1u;
  uint32_t bits[cpw];
  uint4 v[cpw];
#pragma unroll
  for (unsigned i = 0; i < cpw; i++) {
    unsigned c = lane + 32 * i; /* chunk of the segment */
    uint32_t w = __shfl_sync(0xFFFFFFFFu, word, c / cpw);
    bits[i] = (w >> ((c % cpw) * n)) & full;
  }
#pragma unroll
  for (unsigned i = 0; i < cpw; i++) { /* all loads first: several in flight per lane */
    uint64_t first = seg0 + (uint64_t)(lane + 32 * i) * n;
    if (bits[i] != 0 && bits[i] != full && first + n <= width)
      v[i] = pd_ld16(row + first);
  }
#pragma unroll
  for (unsigned i = 0; i < cpw; i++) {
    uint64_t first = seg0 + (uint64_t)(lane + 32 * i) * n;
    if (bits[i] == full || first >= width) continue;
    if (first + n <= width) {
      union {
        uint4 v;
        T e[pd_vec<T>::N];
      } c;
      c.v = v[i];
#pragma unroll
      for (unsigned b = 0; b < n; b++)
        if (!((bits[i] >> b) & 1u)) c.e[b] = neg;
      pd_st16(row + first, c.v);
    } else {
      for (unsigned b = 0; first + b < width; b++)
        if (!((bits[i] >> b) & 1u)) row[first + b] = neg;
    }
  }
}

template <typename T>
__global__ void __launch_bounds__(256) pd_apply_kernel(T *logits, uint64_t rows, uint64_t width,
                                                       uint64_t stride, const uint32_t *bitmask,
                                                       uint64_t n_words, const int32_t *indices,
                                                       T neg, bool aligned, uint64_t tiles) {
  const unsigned lane = threadIdx.x & 31;
  const uint64_t warps = (uint64_t)gridDim.x * (blockDim.x / 32);
  const uint64_t words = (width + 31) / 32; /* words covering the row */
  for (uint64_t t = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; t < rows * tiles;
       t += warps) {
    uint64_t r = t / tiles, w0 = (t % tiles) * 32 * pd_vec<T>::SEGS;
    int64_t b = indices ? (int64_t)__ldg(indices + r) : (int64_t)r;
    if (b < 0) continue;
    const uint32_t *mask = bitmask + (uint64_t)b * n_words;
    uint32_t word[pd_vec<T>::SEGS];
#pragma unroll
    for (unsigned s = 0; s < pd_vec<T>::SEGS; s++) { /* words past the row read as all ones */
      uint64_t w = w0 + 32 * s + lane;
      word[s] = w >= words ? 0xFFFFFFFFu : w < n_words ? __ldg(mask + w) : 0u;
    }
    T *row = logits + r * stride;
#pragma unroll
    for (unsigned s = 0; s < pd_vec<T>::SEGS; s++) {
      if (__all_sync(0xFFFFFFFFu, word[s] == 0xFFFFFFFFu)) continue;
      uint64_t seg0 = (w0 + 32 * s) * 32;
      if (aligned) {
        pd_apply_segment<T>(row, width, seg0, word[s], lane, neg);
        continue;
      }
      for (unsigned e = 0; e < 32; e++) { /* per element: lane e's word, token lane of it */
        uint32_t w = __shfl_sync(0xFFFFFFFFu, word[s], e);
        uint64_t j = seg0 + 32 * e + lane;
        if (j < width && !((w >> lane) & 1u)) row[j] = neg;
      }
    }
  }
}

static pd_status pd_apply_check(const void *logits, pd_dtype dtype, size_t rows, size_t width,
                                size_t row_stride, const uint32_t *bitmask, size_t n_words,
                                pd_error *err) {
  if (dtype != PD_F32 && dtype != PD_F16 && dtype != PD_BF16)
    return pd__fail(err, PD_ERR_ARG, "cuda apply_bitmask: unknown dtype %d", (int)dtype);
  if (rows == 0) return PD_OK;
  if (!logits || (n_words && !bitmask))
    return pd__fail(err, PD_ERR_ARG, "cuda apply_bitmask: NULL logits or bitmask");
  if (width > row_stride)
    return pd__fail(err, PD_ERR_ARG, "cuda apply_bitmask: width %zu > row stride %zu", width,
                    row_stride);
  return PD_OK;
}

/* Index values cannot be checked against bitmask_rows here (they live on the device):
 * the kernel trusts them, as the header says for device arguments. */
extern "C" pd_status pd_cuda_apply_bitmask(void *logits, pd_dtype dtype, size_t rows,
                                           size_t width, size_t row_stride,
                                           const uint32_t *bitmask, size_t bitmask_rows,
                                           size_t n_words, const int32_t *indices,
                                           void *stream, pd_error *err) {
  pd_status st = pd_apply_check(logits, dtype, rows, width, row_stride, bitmask, n_words, err);
  if (st != PD_OK) return st;
  if ((st = pd_cuda_require(err)) != PD_OK || rows == 0 || width == 0) return st;
  if (!indices && bitmask_rows < rows)
    return pd__fail(err, PD_ERR_ARG, "cuda apply_bitmask: %zu rows but %zu bitmask rows", rows,
                    bitmask_rows);
  size_t esize = dtype == PD_F32 ? 4 : 2;
  bool aligned = ((uintptr_t)logits % 16 == 0) && (row_stride * esize) % 16 == 0;
  uint64_t segs =
      dtype == PD_F32 ? (uint64_t)pd_vec<uint32_t>::SEGS : (uint64_t)pd_vec<uint16_t>::SEGS;
  uint64_t tiles = ((width + 31) / 32 + 32 * segs - 1) / (32 * segs);
  uint64_t blocks = (rows * tiles + 7) / 8; /* 8 warps a block, one tile a warp */
  unsigned grid = (unsigned)(blocks < (1u << 20) ? blocks : (1u << 20));
  cudaStream_t s = (cudaStream_t)stream;
  if (dtype == PD_F32)
    pd_apply_kernel<uint32_t><<<grid, 256, 0, s>>>((uint32_t *)logits, rows, width, row_stride,
                                                   bitmask, n_words, indices, 0xFF800000u,
                                                   aligned, tiles);
  else
    pd_apply_kernel<uint16_t><<<grid, 256, 0, s>>>(
        (uint16_t *)logits, rows, width, row_stride, bitmask, n_words, indices,
        (uint16_t)(dtype == PD_F16 ? 0xFC00u : 0xFF80u), aligned, tiles);
  return pd_cuda_check_launch("apply_bitmask", err);
}
