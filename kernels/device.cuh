/* device.cuh - what the CUDA files share: host-side status mapping, logit loads, and
 * block reductions with the CPU twin's tie rules (lowest id wins among equals). */
#ifndef PD_KERNELS_DEVICE_CUH
#define PD_KERNELS_DEVICE_CUH
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

extern "C" {
#include "base/error.h"
}
#include "sampling.h"

#define PD_NONE 0xFFFFFFFFu
#define PD_BLOCK 512 /* threads of the row kernels; a multiple of 32 */

/* PD_ERR_UNSUPPORTED unless a device is usable (no driver, no GPU, ...). */
pd_status pd_cuda_require(pd_error *err);
/* Maps the launch status of the last kernel to a pd_status. */
pd_status pd_cuda_check_launch(const char *what, pd_error *err);

/* Logit j of a row as fp32: T = float, or uint16_t holding fp16 / bf16 bits. */
template <int DT> __device__ __forceinline__ float pd_load(const void *row, uint64_t j);
template <> __device__ __forceinline__ float pd_load<PD_F32>(const void *row, uint64_t j) {
  return __ldg((const float *)row + j);
}
template <> __device__ __forceinline__ float pd_load<PD_BF16>(const void *row, uint64_t j) {
  return __uint_as_float((uint32_t)__ldg((const unsigned short *)row + j) << 16);
}
template <> __device__ __forceinline__ float pd_load<PD_F16>(const void *row, uint64_t j) {
  return __half2float(__ushort_as_half(__ldg((const unsigned short *)row + j)));
}

/* A candidate of an argmax: value and id; PD_NONE = no candidate yet. */
struct pd_best {
  float v;
  uint32_t id;
};

__device__ __forceinline__ pd_best pd_best_pick(pd_best a, pd_best b) {
  if (b.id == PD_NONE) return a;
  if (a.id == PD_NONE || b.v > a.v || (b.v == a.v && b.id < a.id)) return b;
  return a;
}

/* A race candidate: its key in double (see sampling.h) and id. */
struct pd_best_d {
  double v;
  uint32_t id;
};

__device__ __forceinline__ pd_best_d pd_best_d_pick(pd_best_d a, pd_best_d b) {
  if (b.id == PD_NONE) return a;
  if (a.id == PD_NONE || b.v > a.v || (b.v == a.v && b.id < a.id)) return b;
  return a;
}

/* Block-wide reductions; every thread gets the result. scratch: 32 entries. */
__device__ __forceinline__ pd_best pd_block_best(pd_best x, pd_best *scratch) {
  for (int o = 16; o; o >>= 1) {
    pd_best y = {__shfl_xor_sync(0xFFFFFFFFu, x.v, o), __shfl_xor_sync(0xFFFFFFFFu, x.id, o)};
    x = pd_best_pick(x, y);
  }
  __syncthreads();
  if ((threadIdx.x & 31) == 0) scratch[threadIdx.x >> 5] = x;
  __syncthreads();
  x = scratch[0];
  for (unsigned w = 1; w < blockDim.x / 32; w++) x = pd_best_pick(x, scratch[w]);
  return x;
}

__device__ __forceinline__ pd_best_d pd_block_best_d(pd_best_d x, pd_best_d *scratch) {
  for (int o = 16; o; o >>= 1) {
    pd_best_d y = {__shfl_xor_sync(0xFFFFFFFFu, x.v, o), __shfl_xor_sync(0xFFFFFFFFu, x.id, o)};
    x = pd_best_d_pick(x, y);
  }
  __syncthreads();
  if ((threadIdx.x & 31) == 0) scratch[threadIdx.x >> 5] = x;
  __syncthreads();
  x = scratch[0];
  for (unsigned w = 1; w < blockDim.x / 32; w++) x = pd_best_d_pick(x, scratch[w]);
  return x;
}

__device__ __forceinline__ float pd_block_sum(float x, float *scratch) {
  for (int o = 16; o; o >>= 1) x += __shfl_xor_sync(0xFFFFFFFFu, x, o);
  __syncthreads();
  if ((threadIdx.x & 31) == 0) scratch[threadIdx.x >> 5] = x;
  __syncthreads();
  x = 0.0f;
  for (unsigned w = 0; w < blockDim.x / 32; w++) x += scratch[w];
  return x;
}

/* Request r of global row g: the r with offs[r] + r <= g < offs[r + 1] + r + 1. */
__device__ __forceinline__ uint64_t pd_find_request(const size_t *offs, uint64_t n, uint64_t g) {
  uint64_t lo = 0, hi = n; /* invariant: offs[lo] + lo <= g, answer < hi */
  while (hi - lo > 1) {
    uint64_t mid = (lo + hi) / 2;
    if (offs[mid] + mid <= g) lo = mid;
    else hi = mid;
  }
  return lo;
}

#endif
