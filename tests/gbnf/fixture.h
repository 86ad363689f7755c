/* fixture.h - what the GBNF tests share: a small vocabulary with special tokens. */
#ifndef PDT_GBNF_FIXTURE_H
#define PDT_GBNF_FIXTURE_H
#include <stddef.h>
#include <stdint.h>

#include "pushdown.h"

/* Ids 0..31 are special tokens: "<|sN|>" except 20 "<|eot_id|>", 21 "<think>",
 * 22 "</think>". Ids 32..287 are the single bytes 0..255 (id = 32 + byte), so
 * any text is a sequence of tokens. */
#define PDT_N_SPECIAL 32u
#define PDT_VOCAB_SIZE (PDT_N_SPECIAL + 256u)
pd_status pdt_gbnf_vocab(const pd_allocator *alloc, pd_vocab **out);

#endif
