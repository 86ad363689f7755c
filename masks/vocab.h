/* vocab.h - the vocabulary object (internal layout). Token id i has bytes
 * bytes[offs[i] .. offs[i+1]) and flags[i] (PD_TOKEN_*). Ids in
 * [size, width) are padding: never allowed. */
#ifndef PD_MASKS_VOCAB_H
#define PD_MASKS_VOCAB_H
#include "pushdown.h"

struct pd_vocab {
  const pd_allocator *alloc;
  size_t size;      /* tokenizer ids: 0 .. size-1 */
  size_t width;     /* logit width >= size */
  uint8_t *bytes;   /* all token bytes, concatenated */
  uint32_t *offs;   /* [size + 1] */
  uint32_t *flags;  /* [size] PD_TOKEN_* */
  uint32_t *eos;    /* stop token ids */
  size_t n_eos;
};

#endif
