/* earley.h - the Earley matcher over the rule automata (internal interface).
 *
 * An item is (state, origin): the automaton of rule states[state].rule has read
 * some input since row origin, where that rule was called (predicted), and is
 * now in state. Row i holds the items after i consumed units (bytes, or whole
 * tokens matched by token edges); rows live back to back in one array:
 *
 *   row i = items.data[rows.data[i] .. end(i)),  end(i) = rows.data[i+1] for
 *           i + 1 < rows.len, else items.len
 *   current row = rows.len - 1  (row 0, the start, always exists)
 *
 * Building a row: scan (items of the previous row whose byte edge matches) ->
 * closure, in order over the new row: a final item (s, o) with o < row completes
 * every item of row o with a call edge to rules(s) (advances it to the return
 * state); an item with a call edge to R predicts (start(R), row), and when R is
 * nullable also advances over the call at once (Aycock-Horspool), which is why
 * completions with o == row are never needed. Items are deduplicated with a
 * per-state generation stamp plus a short chain of origins (no hashing).
 *
 * Popping k rows truncates both arrays: rollback does no recomputation.
 *
 * Counted rules (pda.h, a JSON string's maxLength): an item of one also has a
 * count, the units its instance has begun (counts[i], parallel to items; the
 * array exists only when the grammar has such rules). An edge out of a
 * PD_STATE_UNIT_START state begins a unit: it is refused once count units
 * have begun, and the new item has one more. The rule's automaton is a DFA,
 * so (state, origin) fixes the bytes read since origin and thus the count:
 * deduplication by (state, origin) stays exact.
 *
 * Set rules (pda.h, a JSON object's members in any order): an item of one
 * also has a set, the members (rules with a set bit) completed into it since
 * origin, in counts[i]. Completing a member already in the set is refused, and
 * so is predicting it (so every row stays a viable prefix); the item may end
 * only once its set holds the rule's set_need. Items are deduplicated by
 * (state, origin, set).
 *
 * Token semantics (the definition pd_matcher_fill_bitmask must reproduce):
 * token t is accepted in the current state iff
 *   - t < vocab size and t is not a PD_TOKEN_HOLE, the matcher is not
 *     terminated, and
 *   - PD_TOKEN_EOS: the current row is accepting (pd_earley_accepting); then the
 *     matcher is terminated. EOS tokens match nothing else (no text, no token edge);
 *   - otherwise: some item of the current row has a token edge matching t
 *     (arg == t and !neg, or arg != t and neg), or t is not PD_TOKEN_SPECIAL and
 *     its bytes can be pushed one by one (pd_earley_push_byte). A normal token
 *     with zero bytes is always accepted.
 */
#ifndef PD_EARLEY_EARLEY_H
#define PD_EARLEY_EARLEY_H
#include <stdbool.h>
#include <stdint.h>

#include "base/array.h"
#include "pda/grammar.h"
#include "pda/pda.h"
#include "pushdown.h"

typedef struct pd_earley_item {
  uint32_t state;  /* global automaton state */
  uint32_t origin; /* row where its rule was predicted */
} pd_earley_item;

/* One accepted token: the rows before and after it. Rollback of n tokens
 * restores rows_before of the n-th most recent token. */
typedef struct pd_earley_token {
  uint32_t rows_before, rows_after;
  uint32_t eos; /* 1 when it was a stop token: the matcher is terminated after it */
} pd_earley_token;

struct pd_matcher {
  const pd_grammar *g;
  const pd_allocator *alloc;
  /* cached views of g->pda */
  const pd_pda_state *states;
  const pd_pda_edge *edges;
  const pd_pda_rule *rules;
  uint32_t root;
  uint32_t max_items;                /* g->opts.max_items_per_row */
  PD_ARRAY(pd_earley_item) items;    /* every row, back to back */
  PD_ARRAY(uint32_t) rows;           /* first item of each row */
  PD_ARRAY(uint64_t) row_ids;        /* per row: an id no other row of this matcher has had, so
                                        what masks/memo.c keeps about a row dies with it */
  uint64_t next_row_id;
  PD_ARRAY(pd_earley_token) tokens;  /* history since the last reset */
  bool terminated;                   /* an EOS token was accepted */
  /* dedup scratch for the row being built: head[s] is valid iff stamp[s] == gen;
   * head[s] = index (into items) of the last item with state s in the row, and
   * chain[i - row start] links to the previous one (UINT32_MAX ends) */
  uint32_t *stamp, *head;
  uint32_t gen;
  PD_ARRAY(uint32_t) chain;
  /* once a state's chain in the row grows long (row.c), the row's items go
   * to an open-addressing table of (state, origin) keys as well: hkey[i] is
   * valid iff hstamp[i] == gen; 2^hbits slots, made on first use */
  bool hashed;
  uint64_t *hkey;
  uint32_t *hstamp, hbits;
  uint32_t *counts;                    /* per item, see above; NULL without counted or set rules */
  bool sets;                           /* the grammar has set rules */
  size_t counts_cap;
  struct pd_memo_scratch *key_scratch; /* masks/memo.c's, made by the first mask key */
  struct pd_earley_calls *calls;       /* calls.c's index of wide rows, made on first use */
};

/* A call waiting in a row: its item (at, an index in the row; origin) calls
 * rule and returns to state to. */
typedef struct pd_earley_call {
  uint32_t rule, to, origin, at;
} pd_earley_call;
typedef struct pd_earley_calls pd_earley_calls;
#define PD_EARLEY_WIDE_ROW 16 /* rows of this many items are searched through an index */
/* The calls waiting in row that may be to rule (n of them, in row order:
 * those to rule and a few to rules of the same hash, to skip), borrowed
 * until the next call; NULL when row is narrower than PD_EARLEY_WIDE_ROW or
 * memory fails: then scan the row. (calls.c) */
const pd_earley_call *pd_earley_calls_to(pd_matcher *m, uint32_t row, uint32_t rule, uint32_t *n);
void pd_earley_calls_free(pd_earley_calls *c, const pd_allocator *a);

/* The units the counted rule of item i (an index into items) may still begin;
 * UINT32_MAX when its rule is not counted. */
static inline uint32_t pd_earley_room(const pd_matcher *m, size_t i) {
  if (!m->counts) return UINT32_MAX; /* the memo key asks for every item: no loads then */
  uint32_t bound = m->rules[m->states[m->items.data[i].state].rule].count;
  return bound ? bound - m->counts[i] : UINT32_MAX;
}
/* Whether item i may take an edge out of its state: false only for an item of
 * a counted rule between units once its bound is reached. */
static inline bool pd_earley_may_leave(const pd_matcher *m, size_t i) {
  if (!m->counts) return true;
  const pd_pda_state *st = &m->states[m->items.data[i].state];
  return !(st->flags & PD_STATE_UNIT_START) || m->counts[i] < m->rules[st->rule].count;
}

/* ---- fast row operations (the per-token hot path of masks/fill.c) ---- */

/* Scan byte into a new row and close it. PD_OK: one row pushed. PD_ERR_REJECTED:
 * no item can take byte, nothing added (no error text is written: cheap).
 * PD_ERR_LIMIT (more than max_items_per_row) / PD_ERR_NOMEM: nothing added.
 * Ignores termination and the token history. */
pd_status pd_earley_push_byte(pd_matcher *m, uint8_t byte);
/* Whether pushing byte would succeed (some item of the current row scans it),
 * without building the row: the last byte of a token decides its acceptance
 * by this alone, and its row's closure (a completion into an object that
 * predicts a hundred members) is only needed by a longer token. */
bool pd_earley_scans(const pd_matcher *m, uint8_t byte);
/* Pushes the rows of token id (its bytes and/or token edges) per the token
 * semantics above, without touching the token history; *pushed gets the rows
 * added (0 is possible: a zero-byte token). EOS tokens are not handled here
 * (see pd_earley_accepting). PD_ERR_REJECTED: nothing added. id must be < vocab
 * size (checked: PD_ERR_ARG). */
pd_status pd_earley_push_token(pd_matcher *m, uint32_t id, uint32_t *pushed);
/* Removes the last k rows (k < number of rows: row 0 stays). */
static inline void pd_earley_pop(pd_matcher *m, uint32_t k) {
  if (!k) return;
  m->rows.len -= k;
  m->row_ids.len = m->rows.len;
  m->items.len = m->rows.data[m->rows.len];
}
static inline uint32_t pd_earley_num_rows(const pd_matcher *m) { return (uint32_t)m->rows.len; }
/* Items of row i (0 <= i < number of rows). */
static inline const pd_earley_item *pd_earley_row(const pd_matcher *m, uint32_t i, size_t *n) {
  size_t a = m->rows.data[i], e = i + 1 < m->rows.len ? m->rows.data[i + 1] : m->items.len;
  *n = e - a;
  return m->items.data + a;
}
/* The current (last) row. */
static inline const pd_earley_item *pd_earley_current(const pd_matcher *m, size_t *n) {
  return pd_earley_row(m, (uint32_t)m->rows.len - 1, n);
}
/* Whether the current row accepts: the input so far is a complete sentence. */
bool pd_earley_accepting(const pd_matcher *m);
/* Live edges of the current row: bytes[b / 32] bit (b % 32) is set iff some item
 * has a byte edge containing b; *any_token is set when some item has a token edge
 * (walk the row's items and their token edges to see which). */
void pd_earley_live(const pd_matcher *m, uint32_t bytes[8], bool *any_token);
/* Whether token id matches a token edge of some item in the current row / row. */
bool pd_earley_token_edge_matches(const pd_matcher *m, uint32_t id);
bool pd_earley_token_edge_matches_row(const pd_matcher *m, uint32_t row, uint32_t id);
/* (Re)builds row 0 alone: the root predicted at origin 0 and closed. On failure
 * the matcher has no rows (it must not be used). */
pd_status pd_earley_start(pd_matcher *m);

#endif
