/* sets.h - interned sets of NFA states, for the subset constructions of dfa.c
 * and nfa_diff.c (internal to pda/).
 *
 * Set k is pool[sets[k].off .. +sets[k].len), sorted. A caller appends a new
 * set's members at the end of pool and calls pd_sets_intern: an equal set
 * already there gives its index and the members are cut off again. */
#ifndef PD_PDA_SETS_H
#define PD_PDA_SETS_H
#include "base/array.h"
#include "pushdown.h"

typedef struct pd_set_span {
  uint32_t off, len;
} pd_set_span;

typedef struct pd_sets {
  const pd_allocator *a;
  PD_ARRAY(uint32_t) pool;
  PD_ARRAY(pd_set_span) sets;
  uint32_t *table; /* open addressing: set index + 1; 0 = empty */
  size_t cap;
  uint32_t limit;  /* sets allowed: past it, PD_ERR_LIMIT */
  PD_ARRAY(uint32_t) tmp; /* the sort's scratch */
} pd_sets;

/* Interns pool[base .. pool.len) (sorted): *id = its set. */
pd_status pd_sets_intern(pd_sets *s, size_t base, uint32_t *id, pd_error *err);
/* Sorts pool[base .. pool.len); false when out of memory. */
bool pd_sets_sort_tail(pd_sets *s, size_t base);
void pd_sets_free(pd_sets *s);

#endif
