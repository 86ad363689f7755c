/* cuda_none.c - the CUDA entry points (pushdown.h, gpu.h) of a build without CUDA: they
 * link, and say so. */
#include "base/error.h"
#include "gpu.h"

bool pd_cuda_available(char *name, size_t cap) {
  if (name && cap) name[0] = '\0';
  return false;
}

pd_status pd_cuda_peak_bandwidth(double *gbps, pd_error *err) {
  if (gbps) *gbps = 0.0;
  return pd__fail(err, PD_ERR_UNSUPPORTED, "built without CUDA");
}

pd_status pd_cuda_apply_bitmask(void *logits, pd_dtype dtype, size_t rows, size_t width,
                                size_t row_stride, const uint32_t *bitmask,
                                size_t bitmask_rows, size_t n_words, const int32_t *indices,
                                void *stream, pd_error *err) {
  (void)logits, (void)dtype, (void)rows, (void)width, (void)row_stride, (void)bitmask;
  (void)bitmask_rows, (void)n_words, (void)indices, (void)stream;
  return pd__fail(err, PD_ERR_UNSUPPORTED, "built without CUDA");
}

size_t pd_cuda_verify_workspace(size_t n_rows, size_t width) {
  (void)n_rows, (void)width;
  return 0;
}

pd_status pd_cuda_verify(const pd_verify_args *a, size_t n_rows, void *workspace,
                         size_t workspace_bytes, void *stream, pd_error *err) {
  (void)a, (void)n_rows, (void)workspace, (void)workspace_bytes, (void)stream;
  return pd__fail(err, PD_ERR_UNSUPPORTED, "built without CUDA");
}

pd_status pd_gpu_alloc(void **ptr, size_t bytes, pd_error *err) {
  (void)bytes;
  if (ptr) *ptr = NULL;
  return pd__fail(err, PD_ERR_UNSUPPORTED, "built without CUDA");
}

void pd_gpu_free(void *ptr) { (void)ptr; }

pd_status pd_gpu_upload(void *dst, const void *src, size_t bytes, pd_error *err) {
  (void)dst, (void)src, (void)bytes;
  return pd__fail(err, PD_ERR_UNSUPPORTED, "built without CUDA");
}

pd_status pd_gpu_download(void *dst, const void *src, size_t bytes, pd_error *err) {
  (void)dst, (void)src, (void)bytes;
  return pd__fail(err, PD_ERR_UNSUPPORTED, "built without CUDA");
}

pd_status pd_gpu_sync(pd_error *err) {
  return pd__fail(err, PD_ERR_UNSUPPORTED, "built without CUDA");
}

pd_status pd_gpu_timer_start(pd_gpu_timer **t, pd_error *err) {
  if (t) *t = NULL;
  return pd__fail(err, PD_ERR_UNSUPPORTED, "built without CUDA");
}

pd_status pd_gpu_timer_stop(pd_gpu_timer *t, double *ms, pd_error *err) {
  (void)t;
  if (ms) *ms = 0.0;
  return pd__fail(err, PD_ERR_UNSUPPORTED, "built without CUDA");
}

pd_status pd_gpu_read(const void *buf, size_t bytes, pd_error *err) {
  (void)buf, (void)bytes;
  return pd__fail(err, PD_ERR_UNSUPPORTED, "built without CUDA");
}

pd_status pd_gpu_copy(void *dst, const void *src, size_t bytes, pd_error *err) {
  (void)dst, (void)src, (void)bytes;
  return pd__fail(err, PD_ERR_UNSUPPORTED, "built without CUDA");
}

size_t pd_gpu_unfused_probs_bytes(size_t n_rows, size_t width) {
  (void)n_rows, (void)width;
  return 0;
}

pd_status pd_gpu_verify_unfused(const pd_verify_args *a, size_t n_rows, void *logits_rw,
                                void *probs, void *stream, pd_error *err) {
  (void)a, (void)n_rows, (void)logits_rw, (void)probs, (void)stream;
  return pd__fail(err, PD_ERR_UNSUPPORTED, "built without CUDA");
}

pd_status pd_gpu_fill_logits(void *logits, pd_dtype dtype, size_t count, uint64_t seed,
                             pd_error *err) {
  (void)logits, (void)dtype, (void)count, (void)seed;
  return pd__fail(err, PD_ERR_UNSUPPORTED, "built without CUDA");
}

pd_status pd_gpu_peak_logits(void *logits, pd_dtype dtype, size_t count, uint64_t seed,
                             pd_error *err) {
  (void)logits, (void)dtype, (void)count, (void)seed;
  return pd__fail(err, PD_ERR_UNSUPPORTED, "built without CUDA");
}

pd_status pd_gpu_fill_mask(uint32_t *mask, size_t rows, size_t n_words, size_t width,
                           int density, uint64_t seed, pd_error *err) {
  (void)mask, (void)rows, (void)n_words, (void)width, (void)density, (void)seed;
  return pd__fail(err, PD_ERR_UNSUPPORTED, "built without CUDA");
}

pd_status pd_gpu_philox(uint64_t seed, uint64_t sub, uint64_t offset, size_t n, uint32_t *seq,
                        uint32_t *init, pd_error *err) {
  (void)seed, (void)sub, (void)offset, (void)n, (void)seq, (void)init;
  return pd__fail(err, PD_ERR_UNSUPPORTED, "built without CUDA");
}
