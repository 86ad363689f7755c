/* follow.c - FOLLOW1 byte sets of the rules (see follow.h), by fixed points. */
#include "follow.h"

#include <string.h>

#include "base/alloc.h"
#include "base/error.h"

static bool pd__or8(uint32_t *dst, const uint32_t *src) {
  bool changed = false;
  for (int i = 0; i < 8; i++) {
    uint32_t x = dst[i] | src[i];
    changed |= x != dst[i];
    dst[i] = x;
  }
  return changed;
}

/* Sets bits lo..hi a word at a time (a JSON character's ranges span a hundred
 * bytes, and setting them one by one was a third of this file's time). */
static void pd__range(uint32_t *set, unsigned lo, unsigned hi) {
  for (unsigned w = lo / 32; w <= hi / 32; w++) {
    uint32_t from = w == lo / 32 ? ~0u << (lo % 32) : ~0u;
    uint32_t to = w == hi / 32 ? ~0u >> (31 - hi % 32) : ~0u;
    set[w] |= from & to;
  }
}

/* nullable_to_end[s]: s reaches a final state of its rule consuming nothing. */
static void pd__nullable_to_end(const pd_pda *p, uint8_t *ne) {
  const pd_pda_state *st = pd_pda_states(p);
  const pd_pda_edge *ed = pd_pda_edges(p);
  const pd_pda_rule *ru = pd_pda_rules(p);
  for (uint32_t s = 0; s < p->n_states; s++) ne[s] = (st[s].flags & PD_STATE_FINAL) != 0;
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t s = 0; s < p->n_states; s++) {
      const pd_pda_edge *e = ed + st[s].edges + st[s].n_byte;
      for (uint32_t c = 0; c < st[s].n_call && !ne[s]; c++)
        if ((ru[e[c].arg].flags & PD_RULE_NULLABLE) && ne[e[c].to]) ne[s] = 1, changed = true;
    }
  }
}

/* The dependencies of a union system as lists: dst[off[x] .. off[x + 1]) are
 * the sets that take in set x. Each fixed point below then redoes only what a
 * change reaches, where a pass over every state took 3-4 rounds (a pass per
 * link of a chain of calls numbered against the pass). */
typedef struct pd__deps {
  uint32_t *off, *dst, *stack;
  uint8_t *queued;
} pd__deps;

static void pd__deps_free(const pd_allocator *a, pd__deps *d) {
  pd__free(a, d->off);
  pd__free(a, d->dst);
  pd__free(a, d->stack);
  pd__free(a, d->queued);
}

/* Call edges of p, visited as (s, e): what both systems are made of. */
#define PD__CALLS(p, s, e)                                                         \
  for (uint32_t s = 0; s < (p)->n_states; s++)                                     \
    for (const pd_pda_edge *e = pd_pda_edges(p) + pd_pda_states(p)[s].edges +     \
                                pd_pda_states(p)[s].n_byte,                        \
                           *e##_end = e + pd_pda_states(p)[s].n_call;              \
         e < e##_end; e++)

/* The dependencies of one system, from the call edges s -C-> t: for first
 * (n = states) start(C) -> s, and t -> s when C is nullable; for follow
 * (n = rules) rule(s) -> C when t ends its rule without input. One pass
 * counts them per source, a second fills the lists. */
static bool pd__deps_make(const pd_pda *p, const uint8_t *ne, bool follow, uint32_t n,
                          const pd_allocator *a, pd__deps *d) {
  const pd_pda_state *st = pd_pda_states(p);
  const pd_pda_rule *ru = pd_pda_rules(p);
  size_t m = 0;
  d->off = pd__calloc(a, (size_t)n + 2, sizeof *d->off);
  d->stack = pd__malloc(a, ((size_t)n + 1) * sizeof *d->stack);
  d->queued = pd__calloc(a, (size_t)n + 1, 1);
  if (!d->off || !d->stack || !d->queued) return false;
  for (int fill = 0; fill < 2; fill++) {
    PD__CALLS(p, s, e) {
      uint32_t x[2], y[2], k = 0;
      if (!follow) {
        x[k] = ru[e->arg].start, y[k++] = s;
        if (ru[e->arg].flags & PD_RULE_NULLABLE) x[k] = e->to, y[k++] = s;
      } else if (ne[e->to]) {
        x[k] = st[s].rule, y[k++] = e->arg;
      }
      for (uint32_t i = 0; i < k; i++) {
        if (fill)
          d->dst[d->off[x[i] + 1]++] = y[i];
        else
          d->off[x[i] + 2]++, m++;
      }
    }
    if (!fill) {
      for (uint32_t x = 0; x < n; x++) d->off[x + 2] += d->off[x + 1];
      d->dst = pd__malloc(a, (m ? m : 1) * sizeof *d->dst);
      if (!d->dst) return false;
    }
  }
  return true;
}

/* Least fixed point of set[y] |= set[x] over the dependencies, from every set
 * as it is now (8 words each). Sets are first taken in id order, or its
 * reverse (down): callees mostly come after their callers, and taking a
 * source before what depends on it saves the second visit. */
static void pd__propagate(pd__deps *d, uint32_t n, bool down, uint32_t *set) {
  uint32_t top = 0;
  for (uint32_t i = n; i-- > 0;) {
    uint32_t x = down ? n - 1 - i : i;
    d->stack[top++] = x, d->queued[x] = 1;
  }
  while (top) {
    uint32_t x = d->stack[--top];
    d->queued[x] = 0;
    for (uint32_t k = d->off[x]; k < d->off[x + 1]; k++) {
      uint32_t y = d->dst[k];
      if (pd__or8(set + 8 * (size_t)y, set + 8 * (size_t)x) && !d->queued[y])
        d->stack[top++] = y, d->queued[y] = 1;
    }
  }
}

static bool pd__first(const pd_pda *p, const pd_allocator *a, uint32_t *first) {
  const pd_pda_state *st = pd_pda_states(p);
  const pd_pda_edge *ed = pd_pda_edges(p);
  for (uint32_t s = 0; s < p->n_states; s++)
    for (uint32_t i = 0; i < st[s].n_byte; i++)
      pd__range(first + 8 * (size_t)s, ed[st[s].edges + i].lo, ed[st[s].edges + i].hi);
  pd__deps d = {0};
  bool ok = pd__deps_make(p, NULL, false, p->n_states, a, &d);
  if (ok) pd__propagate(&d, p->n_states, true, first);
  pd__deps_free(a, &d);
  return ok;
}

static bool pd__follow(const pd_pda *p, const pd_allocator *a, const uint32_t *first,
                       const uint8_t *ne, uint32_t *follow) {
  PD__CALLS(p, s, e) pd__or8(follow + 8 * (size_t)e->arg, first + 8 * (size_t)e->to);
  pd__deps d = {0};
  bool ok = pd__deps_make(p, ne, true, p->n_rules, a, &d);
  if (ok) pd__propagate(&d, p->n_rules, false, follow);
  pd__deps_free(a, &d);
  return ok;
}

pd_status pd_follow_build(const pd_pda *p, const pd_allocator *a, uint32_t **out, pd_error *err) {
  *out = pd__calloc(a, (size_t)(p->n_rules ? p->n_rules : 1) * 8, sizeof **out);
  if (!*out) return pd__nomem(err);
  if (p->n_states > PD_FOLLOW_MAX_STATES) {
    memset(*out, 0xff, (size_t)p->n_rules * 8 * sizeof **out);
    return PD_OK;
  }
  uint32_t *first = pd__calloc(a, (size_t)(p->n_states ? p->n_states : 1) * 8, sizeof *first);
  uint8_t *ne = pd__calloc(a, p->n_states ? p->n_states : 1, 1);
  if (!first || !ne) {
    pd__free(a, first);
    pd__free(a, ne);
    pd__free(a, *out);
    *out = NULL;
    return pd__nomem(err);
  }
  pd__nullable_to_end(p, ne);
  bool ok = pd__first(p, a, first) && pd__follow(p, a, first, ne, *out);
  pd__free(a, first);
  pd__free(a, ne);
  if (ok) return PD_OK;
  pd__free(a, *out);
  *out = NULL;
  return pd__nomem(err);
}
