/* memo.h - whole-mask memoization, keyed by the parser configuration.
 *
 * A mask depends only on what the parser can still do: the items of the
 * current row, and for completions, the items of their origin rows that call
 * the completed rule, and so on down the stack (the graph-structured stack
 * reachable from the current row). pd_memo_key serializes that graph with rows
 * renumbered in discovery order (row 0 keeps number 0: the root's origin), so
 * two configurations with equal keys accept the same byte strings and tokens,
 * and have the same mask. Keys are compared in full; the hash only finds them.
 *
 * Two kinds of items are left out because they cannot change what follows:
 * an item of the current row that is final without edges (its completion is
 * done), and a caller whose call is its last step (a tail call: it ends its
 * rule when the callee does), which its own callers replace, recursively.
 * Neither is ever the root rule's (its end is acceptance). So right
 * recursion (an object's member rules, a repetition chain) does not make the
 * key grow, and the configurations at each depth share one mask.
 *
 * An item of a counted rule (earley.h) also writes its room, the units it
 * may still begin, capped at the longest token's bytes: a token begins at
 * most that many, so rooms past the cap give the same mask (a long string's
 * positions share one). Such a key no longer fixes the configuration, so
 * fill.c records no transitions from or to it.
 *
 * Key layout (uint32 words):
 *   n_current, then (state, row#[, room]) per kept item of the current row;
 *   then per expanded (row#, rule): row#, rule, n, then per caller the item
 *   it becomes when rule ends: (return state, row#) (tail callers replaced;
 *   sorted by state and origin row, no repeats). A caller's state alone
 *   would not say which rule an elided chain has it wait on.
 *
 * Transitions: a key holds all the parser can still do, so the configuration
 * after a token is a function of the key and the token. The memo records
 * them between stored configurations (named by their stored masks), and the
 * speculative fill follows them instead of accepting each draft and keying
 * each row (spec/spec.c).
 *
 * The memo belongs to a grammar and is shared by its matchers and threads:
 * stores take a mutex, lookups take none (memo.c), and entries are never
 * changed or evicted once stored. It stops storing at max_bytes.
 */
#ifndef PD_MASKS_MEMO_H
#define PD_MASKS_MEMO_H
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "pushdown.h"

#define PD_MEMO_MAX_BYTES ((size_t)32 << 20) /* per grammar */
#define PD_MEMO_KEY_MAX 2048u                /* longer keys are not memoized */

typedef struct pd_memo_entry pd_memo_entry;
typedef struct pd_memo_link pd_memo_link;
typedef struct pd_memo_entries pd_memo_entries;
typedef struct pd_memo_links pd_memo_links;

/* Lookups take no lock (memo.c); stores take it. */
typedef struct pd_memo {
  pthread_mutex_t lock;
  pd_memo_entries *table; /* open addressing, a power of two of slots */
  size_t n_entries, bytes, max_bytes;
  size_t n_words;         /* words of a stored mask */
  pd_memo_links *links;   /* transitions, open addressing, a power of two of slots */
  size_t n_linked;
} pd_memo;

pd_status pd_memo_init(pd_memo *mo, size_t n_words, pd_error *err);
void pd_memo_free(pd_memo *mo, const pd_allocator *a);

struct pd_matcher;
/* Serializes m's configuration into key[0..PD_MEMO_KEY_MAX); false when it
 * does not fit (then no memoization). m->key_scratch (made on first use)
 * keeps the callers of its rows (memo.c). */
typedef struct pd_memo_scratch pd_memo_scratch;
bool pd_memo_key(struct pd_matcher *m, uint32_t room_cap, uint32_t *key, size_t *n);
void pd_memo_scratch_free(pd_memo_scratch *sc, const pd_allocator *a);
/* The callers of rule waiting in row, as a key writes them: n (return state,
 * origin row) pairs at *pairs, tail callers replaced by theirs; borrowed
 * until the next call that makes a list. False when they cannot be made. */
bool pd_memo_callers(struct pd_matcher *m, uint32_t row, uint32_t rule, const uint32_t **pairs,
                     uint32_t *n);
/* The stored mask for key, borrowed (immutable, lives as long as the memo). */
const uint32_t *pd_memo_find(pd_memo *mo, const uint32_t *key, size_t n, uint64_t h);
/* Stores a copy of mask under key; returns the stored mask (one stored
 * before by another matcher too), or NULL past the bound or out of memory. */
const uint32_t *pd_memo_put(pd_memo *mo, const pd_allocator *a, const uint32_t *key, size_t n,
                            uint64_t h, const uint32_t *mask);

/* The stored configuration that token leads to from the one whose stored
 * mask is from, or NULL when not recorded. */
const uint32_t *pd_memo_next(pd_memo *mo, const uint32_t *from, uint32_t token);
/* Records that token leads from stored mask from to stored mask to (no-op
 * past the bound or out of memory). */
void pd_memo_link_put(pd_memo *mo, const pd_allocator *a, const uint32_t *from, uint32_t token,
                      const uint32_t *to);

#endif
