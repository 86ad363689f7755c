/* device.cu - device discovery, status mapping and the buffer plumbing of gpu.h. */
#include <stdlib.h>
#include <string.h>

#include <curand_kernel.h>

#include "device.cuh"
extern "C" {
#include "gpu.h"
}

extern "C" bool pd_cuda_available(char *name, size_t cap) {
  int n = 0, dev = 0;
  if (name && cap) name[0] = '\0';
  if (cudaGetDeviceCount(&n) != cudaSuccess || n <= 0) {
    cudaGetLastError(); /* clear the sticky "no device" so later checks start clean */
    return false;
  }
  cudaDeviceProp prop;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess)
    return false;
  if (name && cap) {
    strncpy(name, prop.name, cap - 1);
    name[cap - 1] = '\0';
  }
  return true;
}

/* Only the device count: it is cheap once the runtime is up, unlike the properties. */
pd_status pd_cuda_require(pd_error *err) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n <= 0) {
    cudaGetLastError();
    return pd__fail(err, PD_ERR_UNSUPPORTED, "no usable CUDA device");
  }
  return PD_OK;
}

pd_status pd_cuda_check_launch(const char *what, pd_error *err) {
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) return PD_OK;
  return pd__fail(err, PD_ERR_INTERNAL, "cuda %s: %s", what, cudaGetErrorString(e));
}

extern "C" pd_status pd_cuda_peak_bandwidth(double *gbps, pd_error *err) {
  pd_status st = pd_cuda_require(err);
  if (st != PD_OK) return st;
  int dev = 0, khz = 0, bits = 0;
  cudaGetDevice(&dev);
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&bits, cudaDevAttrGlobalMemoryBusWidth, dev) != cudaSuccess)
    return pd__fail(err, PD_ERR_INTERNAL, "cuda: memory clock / bus width not reported");
  /* double data rate: two transfers per clock over bits / 8 bytes */
  *gbps = 2.0 * (double)khz * 1e3 * ((double)bits / 8.0) / 1e9;
  return PD_OK;
}

static pd_status pd_gpu_status(cudaError_t e, const char *what, pd_error *err) {
  if (e == cudaSuccess) return PD_OK;
  cudaGetLastError();
  return pd__fail(err, e == cudaErrorMemoryAllocation ? PD_ERR_NOMEM : PD_ERR_INTERNAL,
                  "cuda %s: %s", what, cudaGetErrorString(e));
}

extern "C" pd_status pd_gpu_alloc(void **ptr, size_t bytes, pd_error *err) {
  pd_status st = pd_cuda_require(err);
  if (st != PD_OK) return st;
  return pd_gpu_status(cudaMalloc(ptr, bytes ? bytes : 1), "malloc", err);
}

extern "C" void pd_gpu_free(void *ptr) {
  if (ptr) cudaFree(ptr);
}

extern "C" pd_status pd_gpu_upload(void *dst, const void *src, size_t bytes, pd_error *err) {
  return pd_gpu_status(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice), "upload", err);
}

extern "C" pd_status pd_gpu_download(void *dst, const void *src, size_t bytes, pd_error *err) {
  return pd_gpu_status(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost), "download", err);
}

extern "C" pd_status pd_gpu_sync(pd_error *err) {
  return pd_gpu_status(cudaDeviceSynchronize(), "synchronize", err);
}

struct pd_gpu_timer {
  cudaEvent_t start, stop;
};

static void pd_gpu_timer_free(pd_gpu_timer *t) {
  if (t->start) cudaEventDestroy(t->start);
  if (t->stop) cudaEventDestroy(t->stop);
  free(t);
}

extern "C" pd_status pd_gpu_timer_start(pd_gpu_timer **t, pd_error *err) {
  *t = (pd_gpu_timer *)calloc(1, sizeof **t);
  if (!*t) return pd__fail(err, PD_ERR_NOMEM, "gpu timer: out of memory");
  pd_status st = pd_gpu_status(cudaEventCreate(&(*t)->start), "event create", err);
  if (st == PD_OK) st = pd_gpu_status(cudaEventCreate(&(*t)->stop), "event create", err);
  if (st == PD_OK) st = pd_gpu_status(cudaEventRecord((*t)->start, 0), "event record", err);
  if (st != PD_OK) pd_gpu_timer_free(*t), *t = NULL;
  return st;
}

extern "C" pd_status pd_gpu_timer_stop(pd_gpu_timer *t, double *ms, pd_error *err) {
  float f = 0.0f;
  pd_status st = pd_gpu_status(cudaEventRecord(t->stop, 0), "event record", err);
  if (st == PD_OK) st = pd_gpu_status(cudaEventSynchronize(t->stop), "event wait", err);
  if (st == PD_OK)
    st = pd_gpu_status(cudaEventElapsedTime(&f, t->start, t->stop), "event time", err);
  *ms = f;
  pd_gpu_timer_free(t);
  return st;
}

__device__ uint32_t pd_read_sink;

/* Four loads in flight a thread; the xor of what was read is stored only when it equals a
 * constant no input here makes, so the loads cannot be dropped. */
__global__ void __launch_bounds__(256) pd_read_kernel(const uint4 *p, uint64_t n) {
  uint32_t acc = 0;
  uint64_t step = (uint64_t)gridDim.x * blockDim.x;
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += 4 * step) {
    uint4 v[4];
#pragma unroll
    for (int k = 0; k < 4; k++) v[k] = i + k * step < n ? __ldcs(p + i + k * step) : uint4{};
#pragma unroll
    for (int k = 0; k < 4; k++) acc ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
  }
  if (acc == 0x9E3779B9u) pd_read_sink = acc;
}

extern "C" pd_status pd_gpu_read(const void *buf, size_t bytes, pd_error *err) {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  pd_read_kernel<<<(sms > 0 ? sms : 1) * 8, 256>>>((const uint4 *)buf, bytes / 16);
  return pd_gpu_status(cudaGetLastError(), "read", err);
}

extern "C" pd_status pd_gpu_copy(void *dst, const void *src, size_t bytes, pd_error *err) {
  return pd_gpu_status(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, 0), "copy",
                       err);
}

__global__ void pd_fill_logits_kernel(void *logits, int dtype, uint64_t count, uint64_t seed) {
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (uint64_t)gridDim.x * blockDim.x) {
    curandStatePhilox4_32_10_t st;
    curand_init(seed, 0, i, &st);
    float v = pd_philox_uniform(curand(&st)) * 16.0f - 8.0f;
    if (dtype == PD_F32) ((float *)logits)[i] = v;
    else if (dtype == PD_F16) ((__half *)logits)[i] = __float2half_rn(v);
    else ((uint16_t *)logits)[i] = (uint16_t)(__float_as_uint(v) >> 16); /* exact: rounds down */
  }
}

__global__ void pd_fill_mask_kernel(uint32_t *mask, uint64_t rows, uint64_t n_words,
                                    uint64_t width, int density, uint64_t seed) {
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < rows * n_words;
       i += (uint64_t)gridDim.x * blockDim.x) {
    curandStatePhilox4_32_10_t st;
    curand_init(seed, 1, i * 4, &st);
    uint4 v = curand4(&st);
    uint32_t w = density == 0 ? 0xFFFFFFFFu : density == 1 ? v.x : (v.y % 32 == 0 ? v.x : 0u);
    uint64_t first = (i % n_words) * 32;
    if (first >= width) w = 0;
    else if (width - first < 32) w &= (1u << (width - first)) - 1u;
    mask[i] = w;
  }
}

static unsigned pd_fill_blocks(uint64_t count) {
  uint64_t b = (count + 255) / 256;
  return (unsigned)(b < 65536 ? (b ? b : 1) : 65536);
}

__global__ void pd_peak_logits_kernel(void *logits, int dtype, uint64_t count, uint64_t seed) {
  for (uint64_t i = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) * 4099; i < count;
       i += (uint64_t)gridDim.x * blockDim.x * 4099) {
    curandStatePhilox4_32_10_t st;
    curand_init(seed, 2, i, &st);
    float v = 20.0f + 8.0f * pd_philox_uniform(curand(&st));
    if (dtype == PD_F32) ((float *)logits)[i] = v;
    else if (dtype == PD_F16) ((__half *)logits)[i] = __float2half_rn(v);
    else ((uint16_t *)logits)[i] = (uint16_t)(__float_as_uint(v) >> 16);
  }
}

extern "C" pd_status pd_gpu_peak_logits(void *logits, pd_dtype dtype, size_t count,
                                        uint64_t seed, pd_error *err) {
  pd_status st = pd_cuda_require(err);
  if (st != PD_OK) return st;
  pd_peak_logits_kernel<<<pd_fill_blocks(count / 4099 + 1), 256>>>(logits, (int)dtype, count,
                                                                    seed);
  return pd_cuda_check_launch("peak logits", err);
}

extern "C" pd_status pd_gpu_fill_logits(void *logits, pd_dtype dtype, size_t count,
                                        uint64_t seed, pd_error *err) {
  pd_status st = pd_cuda_require(err);
  if (st != PD_OK) return st;
  pd_fill_logits_kernel<<<pd_fill_blocks(count), 256>>>(logits, (int)dtype, count, seed);
  return pd_cuda_check_launch("fill logits", err);
}

extern "C" pd_status pd_gpu_fill_mask(uint32_t *mask, size_t rows, size_t n_words, size_t width,
                                      int density, uint64_t seed, pd_error *err) {
  pd_status st = pd_cuda_require(err);
  if (st != PD_OK) return st;
  pd_fill_mask_kernel<<<pd_fill_blocks(rows * n_words), 256>>>(mask, rows, n_words, width,
                                                               density, seed);
  return pd_cuda_check_launch("fill mask", err);
}

__global__ void pd_philox_kernel(uint64_t seed, uint64_t sub, uint64_t offset, uint64_t n,
                                 uint32_t *seq, uint32_t *init) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) {
    curandStatePhilox4_32_10_t st;
    curand_init(seed, sub, offset, &st);
    for (uint64_t j = 0; j < n; j++) seq[j] = curand(&st);
  }
  if (i < n) {
    curandStatePhilox4_32_10_t st;
    curand_init(seed, sub, offset + 4 * i, &st);
    uint4 v = curand4(&st);
    init[4 * i] = v.x, init[4 * i + 1] = v.y, init[4 * i + 2] = v.z, init[4 * i + 3] = v.w;
  }
}

extern "C" pd_status pd_gpu_philox(uint64_t seed, uint64_t sub, uint64_t offset, size_t n,
                                   uint32_t *seq, uint32_t *init, pd_error *err) {
  pd_status st = pd_cuda_require(err);
  if (st != PD_OK || n == 0) return st;
  pd_philox_kernel<<<(unsigned)((n + 127) / 128), 128>>>(seed, sub, offset, n, seq, init);
  return pd_cuda_check_launch("philox", err);
}
