/* masks_internal.h - the layout of pd_masks, shared by masks.c and fill.c. */
#ifndef PD_MASKS_MASKS_INTERNAL_H
#define PD_MASKS_MASKS_INTERNAL_H
#include "masks/cache.h"
#include "masks/masks.h"
#include "masks/memo.h"

struct pd_masks {
  pd_mask_cache *cache;          /* the vocab's (borrowed) */
  uint32_t n_states;
  const pd_mask_class **cls;     /* [n_states]; NULL entries: classify on the fly (walk) */
  pd_mask_class *owned;          /* [n_states] classes the cache did not keep */
  size_t bytes;                  /* memory of the tables above */
  pd_memo memo;                  /* whole masks by configuration (memo.h) */
  bool memo_ok;                  /* memo initialized */
};

#endif
