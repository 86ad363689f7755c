/* calls.c - the calls waiting in a wide row, indexed by callee.
 *
 * A completion advances every item of the origin row that calls the finished
 * rule. Scanning the row for them costs its length, and inside a wide object
 * the row where the members were predicted holds hundreds of items: every
 * member value that ends completes into it, and the walk of a mask's
 * context-dependent tokens pushes such ends over and over (most of a mask's
 * time went there). A row's calls are listed once, sorted by callee, the
 * first time a completion reaches it; rows never change once closed, and an
 * index is found again by the row's id, which no other row of the matcher
 * ever has (a popped row's index is never looked up again). */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "earley.h"

#define PD__MAX_POOL (1u << 20)  /* calls kept before the indexes start over */
#define PD__MAX_ROWS (1u << 14)  /* rows indexed before they start over */

typedef struct pd__cslot {
  uint64_t row_id; /* + 1; 0 = empty */
  uint32_t off, n;
} pd__cslot;

struct pd_earley_calls {
  pd__cslot *slots;
  uint32_t n_slots, n_used;
  PD_ARRAY(pd_earley_call) pool;
};

void pd_earley_calls_free(pd_earley_calls *c, const pd_allocator *a) {
  if (!c) return;
  pd__free(a, c->slots);
  pd_array_free(a, &c->pool);
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

/* By callee, then by the caller's place in the row (the order a scan meets them). */
static int pd__call_cmp(const void *pa, const void *pb) {
  const pd_earley_call *a = pa, *b = pb;
  if (a->rule != b->rule) return (a->rule > b->rule) - (a->rule < b->rule);
  return (a->at > b->at) - (a->at < b->at);
}

/* Row's calls, all callees (made on first use); NULL out of memory. */
static const pd_earley_call *pd__calls_of(pd_matcher *m, uint32_t row, uint32_t *n) {
  pd_earley_calls *c = m->calls;
  if (!c && !(c = m->calls = pd__calloc(m->alloc, 1, sizeof *c))) return NULL;
  uint64_t id = m->row_ids.data[row];
  if (c->n_slots) {
    pd__cslot *e = pd__slot_of(c, id);
    if (e->row_id) return *n = e->n, c->pool.data + e->off;
  }
  if (c->pool.len > PD__MAX_POOL || c->n_used > PD__MAX_ROWS) { /* most of their rows are gone */
    memset(c->slots, 0, c->n_slots * sizeof *c->slots);
    c->n_used = 0;
    c->pool.len = 0;
  }
  if (!pd__room(c, m->alloc)) return NULL;
  size_t k, start = c->pool.len;
  const pd_earley_item *it = pd_earley_row(m, row, &k);
  for (size_t i = 0; i < k; i++) {
    const pd_pda_state *st = &m->states[it[i].state];
    const pd_pda_edge *e = m->edges + st->edges + st->n_byte;
    if (!pd_array_reserve(m->alloc, &c->pool, st->n_call)) return c->pool.len = start, NULL;
    for (uint32_t j = 0; j < st->n_call; j++)
      c->pool.data[c->pool.len++] = (pd_earley_call){e[j].arg, e[j].to, it[i].origin, (uint32_t)i};
  }
  qsort(c->pool.data + start, c->pool.len - start, sizeof *c->pool.data, pd__call_cmp);
  *pd__slot_of(c, id) = (pd__cslot){id + 1, (uint32_t)start, (uint32_t)(c->pool.len - start)};
  c->n_used++;
  *n = (uint32_t)(c->pool.len - start);
  return c->pool.data + start;
}

const pd_earley_call *pd_earley_calls_to(pd_matcher *m, uint32_t row, uint32_t rule, uint32_t *n) {
  size_t k;
  pd_earley_row(m, row, &k);
  uint32_t all;
  const pd_earley_call *c = k >= PD_EARLEY_WIDE_ROW ? pd__calls_of(m, row, &all) : NULL;
  if (!c) return NULL;
  uint32_t lo = 0, hi = all;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (c[mid].rule < rule) lo = mid + 1;
    else hi = mid;
  }
  for (hi = lo; hi < all && c[hi].rule == rule;) hi++;
  *n = hi - lo;
  return c + lo;
}
