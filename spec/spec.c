/* spec.c - PLACEHOLDER until its owner writes it; must not survive to a release. */
#include "pushdown.h"
pd_status pd_spec_fill(pd_spec_request *reqs, size_t n, unsigned n_threads, pd_spec_result *out,
                       pd_error *err) {
  (void)reqs; (void)n; (void)n_threads; (void)out; (void)err;
  return PD_ERR_UNSUPPORTED;
}
pd_status pd_spec_advance(pd_spec_request *reqs, size_t n, const size_t *accepted,
                          const uint32_t *next, pd_error *err) {
  (void)reqs; (void)n; (void)accepted; (void)next; (void)err;
  return PD_ERR_UNSUPPORTED;
}
