/* masks.h - per-grammar token classification tables (internal).
 * The grammar builder calls pd_masks_build when the grammar has a vocab;
 * pd_matcher_fill_bitmask (masks/fill.c) reads the tables. */
#ifndef PD_MASKS_MASKS_H
#define PD_MASKS_MASKS_H
#include "pushdown.h"

typedef struct pd_masks pd_masks;
struct pd_grammar;

/* Builds the tables for g (g's vocab is non-NULL). *out may be NULL on
 * success when there is nothing to precompute. */
pd_status pd_masks_build(const struct pd_grammar *g, pd_masks **out, pd_error *err);
void pd_masks_free(pd_masks *mk, const pd_allocator *a);

#endif
