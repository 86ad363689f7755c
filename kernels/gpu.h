/* gpu.h - device plumbing for the CLI's self-test and benchmark (not public API):
 * buffers, copies, synchronisation and the unfused baseline the benchmark compares
 * against. In a build without CUDA every call returns PD_ERR_UNSUPPORTED. */
#ifndef PD_KERNELS_GPU_H
#define PD_KERNELS_GPU_H
#include "pushdown.h"

#ifdef __cplusplus
extern "C" {
#endif

pd_status pd_gpu_alloc(void **ptr, size_t bytes, pd_error *err);
void pd_gpu_free(void *ptr);
pd_status pd_gpu_upload(void *dst, const void *src, size_t bytes, pd_error *err);
pd_status pd_gpu_download(void *dst, const void *src, size_t bytes, pd_error *err);
/* Waits for all queued work; reports errors raised by kernels meanwhile. */
pd_status pd_gpu_sync(pd_error *err);
/* Device time of the work queued between start and stop on the default stream (CUDA
 * events): launches queued back to back are timed without the host's launch latency
 * between them. stop waits for the work and frees the timer. */
typedef struct pd_gpu_timer pd_gpu_timer;
pd_status pd_gpu_timer_start(pd_gpu_timer **t, pd_error *err);
pd_status pd_gpu_timer_stop(pd_gpu_timer *t, double *ms, pd_error *err);

/* Physical floors for the benchmark: read `bytes` of buf once (16-byte loads over the
 * whole GPU), or copy them (cudaMemcpy device to device: a read and a write of each byte). */
pd_status pd_gpu_read(const void *buf, size_t bytes, pd_error *err);
pd_status pd_gpu_copy(void *dst, const void *src, size_t bytes, pd_error *err);

/* The path serving engines take today, as separate kernels: apply the bitmask in place,
 * a softmax that writes fp32 probabilities [n_rows, width] to probs, then a rejection
 * sampler that reads those probabilities. Same arguments and outputs as pd_cuda_verify
 * (probs: pd_gpu_unfused_probs_bytes of device memory); numerically its own path, used
 * for timing. */
size_t pd_gpu_unfused_probs_bytes(size_t n_rows, size_t width);
pd_status pd_gpu_verify_unfused(const pd_verify_args *a, size_t n_rows, void *logits_rw,
                                void *probs, void *stream, pd_error *err);

/* Inputs made on the device (the benchmark's batches are too large to make on the
 * host): logits uniform in [-8, 8) from (seed, i); bitmask rows of `density` 0 = all
 * allowed, 1 = each token with probability 1/2, 2 = about 3% of the 32-token groups
 * partly allowed and the rest all masked (a typical grammar state). Ids past width are 0. */
pd_status pd_gpu_fill_logits(void *logits, pd_dtype dtype, size_t count, uint64_t seed,
                             pd_error *err);
/* Logits shaped like a confident model's: one token in 4,099 (about 31 a row of 128,256)
 * raised to 20 + 8u, above the bulk in [-8, 8) that pd_gpu_fill_logits made. */
pd_status pd_gpu_peak_logits(void *logits, pd_dtype dtype, size_t count, uint64_t seed,
                             pd_error *err);
pd_status pd_gpu_fill_mask(uint32_t *mask, size_t rows, size_t n_words, size_t width,
                           int density, uint64_t seed, pd_error *err);

/* cuRAND itself: seq[i] = the i-th value of curand() after curand_init(seed, sub,
 * offset); init[4 i .. 4 i + 3] = curand4() after curand_init(seed, sub, offset + 4 i). */
pd_status pd_gpu_philox(uint64_t seed, uint64_t sub, uint64_t offset, size_t n, uint32_t *seq,
                        uint32_t *init, pd_error *err);

#ifdef __cplusplus
}
#endif
#endif
