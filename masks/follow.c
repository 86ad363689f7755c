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

/* Whether rule r is whitespace: call-free, with byte edges, each within
 * \t \n \r and space. */
static bool pd__whitespace_rule(const pd_pda *p, uint32_t r) {
  const pd_pda_state *st = pd_pda_states(p);
  const pd_pda_edge *ed = pd_pda_edges(p);
  const pd_pda_rule *ru = &pd_pda_rules(p)[r];
  bool any = false;
  for (uint32_t s = ru->start; s < ru->start + ru->n_states; s++) {
    if (st[s].n_call || st[s].n_token) return false;
    for (uint32_t i = 0; i < st[s].n_byte; i++) {
      const pd_pda_edge *e = &ed[st[s].edges + i];
      bool ws = (e->lo == ' ' && e->hi == ' ') || (e->lo >= '\t' && e->hi <= '\n') ||
                (e->lo == '\r' && e->hi == '\r');
      if (!ws) return false;
      any = true;
    }
  }
  return any;
}

/* The first bytes that get a second: letters, where a vocabulary glues a
 * space to a word (" the"). A row after a quote or a digit (a string's
 * pattern, a number's digits) would lengthen the keys of the whitespace
 * states for few tokens: over MaskBench, every byte or letters only made the
 * same classes (548 k). */
#define PD__WORD_BYTE(c) (((c) | 0x20) >= 'a' && ((c) | 0x20) <= 'z')

/* Scratch of the two-byte pass: rows[256 * 8] of second bytes, free[8] (the
 * first bytes left unrestricted), the visit marks (gen), the stack, and the
 * call sites of the whitespace rules (rule r's return states:
 * site[at[r] .. at[r + 1]), at[r] == at[r + 1] for the others). */
typedef struct pd__two {
  uint32_t rows[256 * 8], free[8];
  uint32_t *mark, gen, *stack, budget;
  uint32_t *at, *site;
} pd__two;

/* Adds the pairs that may follow a whitespace rule from a call site that
 * returns to t (follow.h); false past the budget. */
static bool pd__two_site(const pd_pda *p, const uint32_t *first, const uint8_t *ne,
                         const uint32_t *follow, uint32_t t, pd__two *w) {
  const pd_pda_state *st = pd_pda_states(p);
  const pd_pda_edge *ed = pd_pda_edges(p);
  const pd_pda_rule *ru = pd_pda_rules(p);
  uint32_t top = 0, home = st[t].rule;
  w->gen++;
  w->stack[top++] = t, w->mark[t] = w->gen;
  while (top) {
    uint32_t x = w->stack[--top];
    if (!w->budget--) return false;
    if (ne[x] && st[x].rule == home) pd__or8(w->free, follow + 8 * (size_t)home);
    const pd_pda_edge *e = ed + st[x].edges;
    for (uint32_t i = 0; i < st[x].n_byte; i++) {
      uint32_t u = e[i].to, add[8];
      memcpy(add, first + 8 * (size_t)u, sizeof add);
      if (ne[u]) pd__or8(add, follow + 8 * (size_t)st[u].rule);
      for (unsigned c = e[i].lo; c <= e[i].hi; c++) pd__or8(w->rows + 8 * c, add);
    }
    for (uint32_t i = st[x].n_byte; i < st[x].n_byte + st[x].n_call; i++) {
      uint32_t y[2] = {ru[e[i].arg].start, e[i].to};
      for (int j = 0; j < ((ru[e[i].arg].flags & PD_RULE_NULLABLE) ? 2 : 1); j++)
        if (w->mark[y[j]] != w->gen) w->mark[y[j]] = w->gen, w->stack[top++] = y[j];
    }
  }
  return true;
}

/* Appends whitespace rule r's block to *out (n words so far); its offset
 * goes to (*out)[8 n_rules + r]. false out of memory. */
static bool pd__two_rule(const pd_pda *p, const uint32_t *first, const uint8_t *ne, uint32_t r,
                         pd__two *w, const pd_allocator *a, uint32_t **out, size_t *n) {
  bool word = false; /* no letter may follow: nothing to restrict */
  for (unsigned c = 'A'; c <= 'z' && !word; c++)
    word = PD__WORD_BYTE(c) && (*out)[8 * (size_t)r + c / 32] >> (c % 32) & 1;
  if (!word) return true;
  memset(w->rows, 0, sizeof w->rows);
  memset(w->free, 0, sizeof w->free);
  w->budget = PD_FOLLOW2_BUDGET;
  for (uint32_t i = w->at[r]; i < w->at[r + 1]; i++)
    if (!pd__two_site(p, first, ne, *out, w->site[i], w)) return true; /* one byte, as for others */
  const uint32_t *follow = *out + 8 * (size_t)r;
  uint32_t set[8] = {0}, rows = 0;
  for (unsigned c = 0; c < 256 && rows < PD_FOLLOW2_MAX_ROWS; c++)
    if ((follow[c / 32] & ~w->free[c / 32]) >> (c % 32) & 1 && PD__WORD_BYTE(c) &&
        pd_popcount_words(w->rows + 8 * c, 8) <= PD_FOLLOW2_MAX_SECOND)
      set[c / 32] |= 1u << (c % 32), rows++;
  if (!rows) return true;
  uint32_t *grown = pd__realloc(a, *out, (*n + 9 + 8 * (size_t)rows) * sizeof *grown);
  if (!grown) return false;
  *out = grown;
  grown[8 * (size_t)p->n_rules + r] = (uint32_t)*n;
  uint32_t *blk = grown + *n;
  blk[0] = rows;
  memcpy(blk + 1, set, sizeof set);
  for (unsigned c = 0, i = 0; c < 256; c++)
    if (set[c / 32] >> (c % 32) & 1) memcpy(blk + 9 + 8 * i++, w->rows + 8 * c, 8 * sizeof *blk);
  *n += 9 + 8 * (size_t)rows;
  return true;
}

/* The whitespace rules' call sites into w->at and w->site; false out of memory. */
static bool pd__two_sites(const pd_pda *p, const pd_allocator *a, pd__two *w) {
  uint32_t n = p->n_rules;
  uint8_t *ws = pd__malloc(a, n ? n : 1);
  w->at = pd__calloc(a, (size_t)n + 2, sizeof *w->at);
  if (!ws || !w->at) {
    pd__free(a, ws);
    return false;
  }
  size_t m = 0;
  for (uint32_t r = 0; r < n; r++) ws[r] = pd__whitespace_rule(p, r);
  PD__CALLS(p, s, e) {
    if (ws[e->arg]) w->at[e->arg + 2]++, m++;
  }
  for (uint32_t r = 0; r < n; r++) w->at[r + 2] += w->at[r + 1];
  w->site = pd__malloc(a, (m ? m : 1) * sizeof *w->site);
  if (!w->site) {
    pd__free(a, ws);
    return false;
  }
  PD__CALLS(p, s, e) {
    if (ws[e->arg]) w->site[w->at[e->arg + 1]++] = e->to;
  }
  pd__free(a, ws);
  return true;
}

/* The two-byte blocks of the whitespace rules (follow.h), after the follow
 * sets and the offsets in *out. */
static bool pd__two_bytes(const pd_pda *p, const uint32_t *first, const uint8_t *ne,
                          const pd_allocator *a, uint32_t **out) {
  size_t n = 9 * (size_t)p->n_rules;
  pd__two *w = pd__calloc(a, 1, sizeof *w);
  bool ok = w && pd__two_sites(p, a, w);
  for (uint32_t r = 0; ok && r < p->n_rules; r++) {
    if (w->at[r] == w->at[r + 1]) continue;
    if (!w->mark) { /* the first whitespace rule with a caller */
      w->mark = pd__calloc(a, p->n_states, sizeof *w->mark);
      w->stack = pd__malloc(a, (size_t)p->n_states * sizeof *w->stack);
      if (!w->mark || !w->stack) ok = false;
    }
    ok = ok && pd__two_rule(p, first, ne, r, w, a, out, &n);
  }
  if (w) {
    pd__free(a, w->mark);
    pd__free(a, w->stack);
    pd__free(a, w->at);
    pd__free(a, w->site);
  }
  pd__free(a, w);
  return ok;
}

pd_status pd_follow_build(const pd_pda *p, const pd_allocator *a, uint32_t **out, pd_error *err) {
  /* the follow sets, then the offsets of the two-byte blocks */
  *out = pd__calloc(a, (size_t)(p->n_rules ? p->n_rules : 1) * 9, sizeof **out);
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
  bool ok = pd__first(p, a, first) && pd__follow(p, a, first, ne, *out) &&
            pd__two_bytes(p, first, ne, a, out);
  pd__free(a, first);
  pd__free(a, ne);
  if (ok) return PD_OK;
  pd__free(a, *out);
  *out = NULL;
  return pd__nomem(err);
}
