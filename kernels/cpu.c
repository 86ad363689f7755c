/* cpu.c - PLACEHOLDER until its owner writes it; must not survive to a release. */
#include "pushdown.h"
void pd_philox4x32_10(uint64_t seed, uint64_t subsequence, uint64_t offset, uint32_t out[4]) {
  (void)seed; (void)subsequence; (void)offset;
  out[0] = out[1] = out[2] = out[3] = 0;
}
pd_status pd_cpu_apply_bitmask(void *logits, pd_dtype dtype, size_t rows, size_t width,
                               size_t row_stride, const uint32_t *bitmask, size_t n_words,
                               const int32_t *indices) {
  (void)logits; (void)dtype; (void)rows; (void)width; (void)row_stride; (void)bitmask;
  (void)n_words; (void)indices;
  return PD_ERR_UNSUPPORTED;
}
pd_status pd_cpu_verify(const pd_verify_args *a, pd_error *err) {
  (void)a; (void)err;
  return PD_ERR_UNSUPPORTED;
}
