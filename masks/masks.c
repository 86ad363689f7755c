/* masks.c - PLACEHOLDER until the token-mask work lands; must not survive to a release. */
#include "masks.h"

#include "base/error.h"

pd_status pd_masks_build(const struct pd_grammar *g, pd_masks **out, pd_error *err) {
  (void)g;
  (void)err;
  *out = NULL;
  return PD_OK;
}

void pd_masks_free(pd_masks *mk, const pd_allocator *a) {
  (void)mk;
  (void)a;
}

pd_status pd_matcher_fill_bitmask(pd_matcher *m, uint32_t *words, size_t n_words,
                                  bool *all_allowed, pd_error *err) {
  (void)m;
  (void)words;
  (void)n_words;
  (void)all_allowed;
  return pd__fail(err, PD_ERR_UNSUPPORTED, "bitmask fill is not built yet");
}
