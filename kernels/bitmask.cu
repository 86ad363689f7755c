/* bitmask.cu - in-place bitmask apply on the GPU: disallowed logits -> -inf.
 *
 * One thread owns a 16-byte chunk of a row (4 fp32 or 8 fp16/bf16 logits), so a warp
 * touches 512 contiguous bytes. Its bits of the mask word decide: all allowed -> no
 * logits traffic at all; none allowed -> one 16-byte store of -inf without reading;
 * otherwise load, blend, store. Rows whose stride or base is not 16-byte aligned, and
 * the ragged end of a row, take the per-element path. */
#include "device.cuh"

template <typename T>
struct pd_vec;  /* the 16-byte chunk type and its element count */
template <>
struct pd_vec<uint32_t> {
  enum { N = 4 };
};
template <>
struct pd_vec<uint16_t> {
  enum { N = 8 };
};

/* bits [first, first + n) of the mask row as the low n bits; ids past it read as 0. */
__device__ __forceinline__ uint32_t pd_chunk_bits(const uint32_t *mask, uint64_t n_words,
                                                  uint64_t first, unsigned n) {
  uint64_t w = first / 32;
  uint32_t word = w < n_words ? __ldg(mask + w) : 0u;
  return (word >> (first % 32)) & ((1u << n) - 1u);
}

template <typename T>
__device__ __forceinline__ void pd_chunk_apply(T *x, uint32_t bits, T neg, bool vec) {
  const unsigned n = pd_vec<T>::N;
  const uint32_t full = (1u << n) - 1u;
  if (bits == full) return;
  if (vec) {
    union {
      uint4 v;
      T e[pd_vec<T>::N];
    } c;
    if (bits) c.v = *(const uint4 *)x;
    for (unsigned b = 0; b < n; b++)
      if (!((bits >> b) & 1u)) c.e[b] = neg;
    *(uint4 *)x = c.v;
    return;
  }
  for (unsigned b = 0; b < n; b++)
    if (!((bits >> b) & 1u)) x[b] = neg;
}

template <typename T>
__global__ void pd_apply_kernel(T *logits, uint64_t rows, uint64_t width, uint64_t stride,
                                const uint32_t *bitmask, uint64_t n_words,
                                const int32_t *indices, T neg, bool aligned) {
  const unsigned n = pd_vec<T>::N;
  uint64_t chunks = (width + n - 1) / n;
  for (uint64_t r = blockIdx.y; r < rows; r += gridDim.y) {
    int64_t b = indices ? (int64_t)__ldg(indices + r) : (int64_t)r;
    if (b < 0) continue;
    const uint32_t *mask = bitmask + (uint64_t)b * n_words;
    T *row = logits + r * stride;
    for (uint64_t c = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; c < chunks;
         c += (uint64_t)gridDim.x * blockDim.x) {
      uint64_t first = c * n;
      if (first + n <= width) {
        pd_chunk_apply(row + first, pd_chunk_bits(mask, n_words, first, n), neg, aligned);
      } else {
        unsigned tail = (unsigned)(width - first);
        uint32_t bits = pd_chunk_bits(mask, n_words, first, tail);
        for (unsigned e = 0; e < tail; e++)
          if (!((bits >> e) & 1u)) row[first + e] = neg;
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
  size_t esize = dtype == PD_F32 ? 4 : 2, n = 16 / esize;
  bool aligned = ((uintptr_t)logits % 16 == 0) && (row_stride * esize) % 16 == 0;
  size_t chunks = (width + n - 1) / n;
  dim3 block(256);
  dim3 grid((unsigned)((chunks + 255) / 256), (unsigned)(rows < 65535 ? rows : 65535));
  cudaStream_t s = (cudaStream_t)stream;
  if (dtype == PD_F32)
    pd_apply_kernel<uint32_t><<<grid, block, 0, s>>>((uint32_t *)logits, rows, width,
                                                     row_stride, bitmask, n_words, indices,
                                                     0xFF800000u, aligned);
  else
    pd_apply_kernel<uint16_t><<<grid, block, 0, s>>>(
        (uint16_t *)logits, rows, width, row_stride, bitmask, n_words, indices,
        (uint16_t)(dtype == PD_F16 ? 0xFC00u : 0xFF80u), aligned);
  return pd_cuda_check_launch("apply_bitmask", err);
}
