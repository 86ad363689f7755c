/* vocab.h - the vocabulary object (internal layout). Token id i has bytes
 * bytes[offs[i] .. offs[i+1]) and flags[i] (PD_TOKEN_*). Ids in
 * [size, width) are padding: never allowed.
 *
 * index is an open-addressing hash of the non-hole ids by their bytes:
 * index_mask + 1 slots (a power of two, at least twice the ids), each holding
 * id + 1 or 0 for empty, probed linearly from hash(bytes) & index_mask. Ids are
 * inserted in increasing order and equal byte strings keep only the first, so
 * a lookup answers the lowest id with those bytes. */
#ifndef PD_MASKS_VOCAB_H
#define PD_MASKS_VOCAB_H
#include <stdbool.h>

#include "pushdown.h"

struct pd_encoder;
struct pd_mask_cache;
struct pd_rule_cache;

struct pd_vocab {
  const pd_allocator *alloc;
  size_t size;      /* tokenizer ids: 0 .. size-1 */
  size_t width;     /* logit width >= size */
  uint8_t *bytes;   /* all token bytes, concatenated */
  uint32_t *offs;   /* [size + 1] */
  uint32_t *flags;  /* [size] PD_TOKEN_* */
  uint32_t *eos;    /* stop token ids */
  size_t n_eos;
  uint32_t *index;  /* [index_mask + 1] hash of ids by bytes, see above */
  size_t index_mask;
  struct pd_encoder *enc; /* canonical encoder; NULL for plain lists */
  struct pd_mask_cache *mask_cache; /* masks/cache.h: made on first use, atomically */
  size_t cache_bytes;               /* its bound (pd_vocab_options); 0 = the default */
  struct pd_rule_cache *rule_cache; /* pda/rule_cache.h: made on first use, atomically */
  size_t rule_cache_bytes;          /* its bound (pd_vocab_options); 0 = the default */
};

/* The hash of a byte string used by the index (FNV-1a, 64-bit). */
uint64_t pd_vocab_hash(const uint8_t *bytes, size_t len);
/* The lowest non-hole id whose bytes are exactly bytes[0..len); false if none. */
bool pd_vocab_lookup(const pd_vocab *v, const uint8_t *bytes, size_t len, uint32_t *id);

#endif
