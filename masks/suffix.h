/* suffix.h - verdicts of token suffixes by the Earley row they start from,
 * for one walk of candidate tokens over the live parser (fill.c).
 *
 * During the walk the rows up to base (the row the walk starts from) do not
 * change. A row R pushed by the walk whose every item has its origin at or
 * below base, or at R itself (predicted there), depends on nothing pushed
 * before it: completions from R and from the rows after it reach only rows
 * <= base, R, or rows built after R. So the outcome of pushing bytes s from R
 * is a function of (items of R, s), with origin R written as "here", and
 * tokens whose different prefixes lead to the same R with the same rest share
 * it: inside a JSON string with a length bound, "abc", and "xyz", both end with
 * the rest `",` from the same counting state, and only the first pays for the
 * closing quote's completion into a large object row.
 *
 *   key   = [n, state_1, origin_1, ..., state_n, origin_n, len(s), s packed 4 bytes a word]
 *           (origin R as UINT32_MAX)
 *   value = taken, and when not taken the bytes of s that were alive
 *
 * The memo is a cache: when its memory cannot be had it stops caching and the
 * walk goes on pushing, with the same result. */
#ifndef PD_MASKS_SUFFIX_H
#define PD_MASKS_SUFFIX_H
#include <stdbool.h>
#include <stdint.h>

#include "base/array.h"
#include "earley/earley.h"

#define PD_SUFFIX_MAX_ITEMS 16u /* larger rows are not keys: keying them costs what pushing does */
#define PD_SUFFIX_MAX_REST 64u  /* longer rests are not keys */
#define PD_SUFFIX_WARMUP 32u    /* candidates walked before the memo starts: short
                                   walks would pay for its table and keys */
#define PD_SUFFIX_WIDE 4u       /* the memo starts when the rows pushed average this
                                   many items: narrower rows are cheaper to push
                                   than to key (inside a JSON string: one item) */

typedef struct pd_suffix_entry {
  uint64_t hash;
  uint32_t off, n;   /* the key: pool[off .. off + n) */
  uint32_t alive;    /* bytes of the rest pushed before it died (when !taken) */
  bool taken;
} pd_suffix_entry;

typedef struct pd_suffix_memo {
  const pd_allocator *alloc;
  uint32_t base;                      /* the walk's first row */
  uint32_t *slots;                    /* open addressing: entry index + 1; 0 = empty */
  size_t n_slots;                     /* a power of two, or 0 before the first put */
  PD_ARRAY(pd_suffix_entry) entries;
  PD_ARRAY(uint32_t) pool;
  bool always;                        /* no warm-up or width test (tests) */
  uint32_t seen;                      /* candidates walked so far */
  uint64_t pushes, items;             /* rows pushed by the walk, and their items */
  bool off;                           /* out of memory or full: no more puts */
} pd_suffix_memo;

/* always: the memo from the first candidate on, whatever the rows (tests
 * check the memo itself so; walks use the gate of pd_suffix_on). */
void pd_suffix_init(pd_suffix_memo *sm, const pd_matcher *m, bool always);
void pd_suffix_free(pd_suffix_memo *sm);

/* Whether the walk should look suffixes up: past its warm-up, over wide
 * rows, and on. */
static inline bool pd_suffix_on(pd_suffix_memo *sm) {
  if (sm->off) return false;
  return sm->always || (++sm->seen > PD_SUFFIX_WARMUP && sm->items >= PD_SUFFIX_WIDE * sm->pushes);
}

/* Whether row (pushed by the walk, so row > base) can key a suffix. */
bool pd_suffix_keyable(const pd_suffix_memo *sm, const pd_matcher *m, uint32_t row);

/* Looks up the suffix rest[0..n) from row; true when known, with its verdict. */
bool pd_suffix_find(const pd_suffix_memo *sm, const pd_matcher *m, uint32_t row,
                    const uint8_t *rest, uint32_t n, bool *taken, uint32_t *alive);

/* Records the verdict of rest[0..n) from row (a keyable row still on the stack). */
void pd_suffix_put(pd_suffix_memo *sm, const pd_matcher *m, uint32_t row, const uint8_t *rest,
                   uint32_t n, bool taken, uint32_t alive);

#endif
