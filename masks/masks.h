/* masks.h - per-grammar token classification tables (internal).
 *
 * The grammar builder calls pd_masks_build when the grammar has a vocab;
 * pd_matcher_fill_bitmask (masks/fill.c) reads the tables. For every automaton
 * state s the tables give two token sets (classify.h):
 *   accepted(s): text tokens the rule of s consumes entirely, starting at s;
 *   cd(s):       text tokens that may run past the end of that rule, so the
 *                parser stack decides (checked against the live matcher);
 * every other text token is rejected by s. The sets live in the vocab's cache
 * (shared across grammars) or, past its memory bound, in the grammar. */
#ifndef PD_MASKS_MASKS_H
#define PD_MASKS_MASKS_H
#include "pushdown.h"

typedef struct pd_masks pd_masks;
struct pd_grammar;
struct pd_mask_cache;

/* Builds the tables for g (g's vocab is non-NULL). *out may be NULL on
 * success when there is nothing to precompute. */
pd_status pd_masks_build(const struct pd_grammar *g, pd_masks **out, pd_error *err);
void pd_masks_free(pd_masks *mk, const pd_allocator *a);
/* Bytes the grammar's own tables hold (the shared cache not counted). */
size_t pd_masks_bytes(const pd_masks *mk);

/* Sets the bit of every text token of c's trie that the live parser m takes,
 * by walking them all (fill.c): the fill of rows the tables leave to the walk.
 * Leaves m's rows as they were. memo_always: the suffix memo (suffix.h) from
 * the first candidate on, as tests check it; fills pass false. */
/* The speculative fill's view of the memo (memo.h): pd_matcher_fill_bitmask,
 * with *entry = the memo's mask of m's configuration (NULL when not memoized);
 * the entry a token leads to from entry from, copied into words (n_words as
 * the fill took them), or NULL when not recorded; and recording one. An
 * entry comes only from a fill with the grammar's tables. */
pd_status pd_masks_fill_entry(pd_matcher *m, uint32_t *words, size_t n_words,
                              const uint32_t **entry, pd_error *err);
const uint32_t *pd_masks_next(pd_matcher *m, const uint32_t *from, uint32_t token,
                              uint32_t *words, size_t n_words);
void pd_masks_link(pd_matcher *m, const uint32_t *from, uint32_t token, const uint32_t *to);

pd_status pd_masks_fill_walk(pd_matcher *m, const struct pd_mask_cache *c, bool memo_always,
                             uint32_t *words);

#endif
