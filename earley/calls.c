/* calls.c - the calls waiting in a wide row, indexed by callee.
 *
 * A completion advances every item of the origin row that calls the finished
 * rule. Scanning the row for them costs its length, and inside a wide object
 * the row where the members were predicted holds hundreds of items: every
 * member value that ends completes into it, and the walk of a mask's
 * context-dependent tokens pushes such ends over and over (most of a mask's
 * time went there). A row's calls are listed once, the second time a
 * completion reaches it (most rows that walk pushes get at most one), grouped by a hash of the callee (a counting sort:
 * linear, and each group keeps the row's order, so completions add items in
 * the order a scan would). Rows never change once closed, and an index is
 * found again by the row's id, which no other row of the matcher ever has (a
 * popped row's index is never looked up again). */
#include <string.h>

#include "base/alloc.h"
#include "earley.h"

#define PD__MAX_POOL (1u << 20)  /* calls kept before the indexes start over */
#define PD__MAX_ROWS (1u << 14)  /* rows indexed before they start over */
#define PD__SCANNED 0xffffffffu  /* shift of a row completed into once, not indexed */

typedef struct pd__cslot {
  uint64_t row_id; /* + 1; 0 = empty */
  uint32_t calls, groups, shift; /* pool offsets; group of rule r: (r * K) >> shift */
} pd__cslot;

struct pd_earley_calls {
  pd__cslot *slots;
  uint32_t n_slots, n_used;
  PD_ARRAY(pd_earley_call) pool;
  PD_ARRAY(uint32_t) starts; /* per indexed row: 2^(32 - shift) + 1 group starts */
};

void pd_earley_calls_free(pd_earley_calls *c, const pd_allocator *a) {
  if (!c) return;
  pd__free(a, c->slots);
  pd_array_free(a, &c->pool);
  pd_array_free(a, &c->starts);
  pd__free(a, c);
}

static pd__cslot *pd__slot_of(const pd_earley_calls *c, uint64_t id) {
  uint32_t i = (uint32_t)((id * 0x9E3779B97F4A7C15ull) >> 32) & (c->n_slots - 1);
  while (c->slots[i].row_id && c->slots[i].row_id != id + 1) i = (i + 1) & (c->n_slots - 1);
  return &c->slots[i];
}

/* Room for one more row: the table doubles. */
static bool pd__room(pd_earley_calls *c, const pd_allocator *a) {
  if ((c->n_used + 1) * 2 <= c->n_slots) return true;
  uint32_t n = c->n_slots ? c->n_slots * 2 : 64;
  pd__cslot *old = c->slots, *t = pd__calloc(a, n, sizeof *t);
  if (!t) return false;
  uint32_t n_old = c->n_slots;
  c->slots = t, c->n_slots = n;
  for (uint32_t i = 0; i < n_old; i++)
    if (old[i].row_id) *pd__slot_of(c, old[i].row_id - 1) = old[i];
  pd__free(a, old);
  return true;
}

static uint32_t pd__group(uint32_t rule, uint32_t shift) { return (rule * 0x9E3779B1u) >> shift; }

/* Indexes row into a fresh slot; false out of memory. */
static bool pd__index(pd_matcher *m, pd_earley_calls *c, uint32_t row, pd__cslot *e) {
  size_t k, n = 0;
  const pd_earley_item *it = pd_earley_row(m, row, &k);
  for (size_t i = 0; i < k; i++) n += m->states[it[i].state].n_call;
  uint32_t bits = 2; /* at least twice as many groups as calls: few callees share one */
  while (bits < 31 && ((size_t)1 << bits) < 2 * n) bits++;
  size_t groups = (size_t)1 << bits;
  if (!pd_array_reserve(m->alloc, &c->pool, n) ||
      !pd_array_reserve(m->alloc, &c->starts, 2 * groups + 1))
    return false;
  *e = (pd__cslot){0, (uint32_t)c->pool.len, (uint32_t)c->starts.len, 32 - bits};
  uint32_t *start = c->starts.data + e->groups, *next = start + groups + 1;
  memset(start, 0, (groups + 1) * sizeof *start);
  for (size_t i = 0; i < k; i++) { /* sizes, then starts, then the calls in row order */
    const pd_pda_state *st = &m->states[it[i].state];
    const pd_pda_edge *ed = m->edges + st->edges + st->n_byte;
    for (uint32_t j = 0; j < st->n_call; j++) start[pd__group(ed[j].arg, e->shift) + 1]++;
  }
  for (size_t g = 0; g < groups; g++) start[g + 1] += start[g];
  memcpy(next, start, groups * sizeof *next);
  pd_earley_call *out = n ? c->pool.data + e->calls : NULL;
  for (size_t i = 0; i < k; i++) {
    const pd_pda_state *st = &m->states[it[i].state];
    const pd_pda_edge *ed = m->edges + st->edges + st->n_byte;
    for (uint32_t j = 0; j < st->n_call; j++)
      out[next[pd__group(ed[j].arg, e->shift)]++] =
          (pd_earley_call){ed[j].arg, ed[j].to, it[i].origin, (uint32_t)i};
  }
  c->pool.len += n;
  c->starts.len += groups + 1; /* the cursors after them were scratch */
  return true;
}

const pd_earley_call *pd_earley_calls_to(pd_matcher *m, uint32_t row, uint32_t rule, uint32_t *n) {
  size_t k;
  pd_earley_row(m, row, &k);
  if (k < PD_EARLEY_WIDE_ROW) return NULL;
  pd_earley_calls *c = m->calls;
  if (!c && !(c = m->calls = pd__calloc(m->alloc, 1, sizeof *c))) return NULL;
  uint64_t id = m->row_ids.data[row];
  pd__cslot *e = c->n_slots ? pd__slot_of(c, id) : NULL;
  if (!e || !e->row_id) { /* the first completion scans: most rows the walk pushes get one */
    if (c->pool.len > PD__MAX_POOL || c->n_used > PD__MAX_ROWS) { /* most of their rows are gone */
      memset(c->slots, 0, c->n_slots * sizeof *c->slots);
      c->n_used = 0;
      c->pool.len = c->starts.len = 0;
    }
    if (!pd__room(c, m->alloc)) return NULL;
    *pd__slot_of(c, id) = (pd__cslot){id + 1, 0, 0, PD__SCANNED};
    c->n_used++;
    return NULL;
  }
  if (e->shift == PD__SCANNED) {
    pd__cslot fresh;
    if (!pd__index(m, c, row, &fresh)) return NULL;
    fresh.row_id = id + 1;
    *e = fresh;
  }
  static const pd_earley_call none; /* a row without calls: nothing to scan either */
  const uint32_t *start = c->starts.data + e->groups;
  uint32_t g = pd__group(rule, e->shift);
  *n = start[g + 1] - start[g];
  return *n ? c->pool.data + e->calls + start[g] : &none;
}
