/* minimize.c - merges equivalent states of one rule's automaton: two states
 * are equivalent when both or neither are final and their edges, label by
 * label, reach equivalent states. Fewer states mean fewer token
 * classifications in masks/.
 *
 * Hopcroft's partition refinement, O(m log n) in edges m and states n (up to
 * the sort of each splitter's edges): the first partition groups states by
 * finality and the labels of their edges in order, (kind, neg, lo, hi, arg)
 * each, so within a block the k-th edge means one label and "the k-th edge"
 * is a partial function whose domain is the whole block or none of it. A
 * splitter block B splits every block by whether its k-th edge enters B,
 * for each k; when a block splits, the smaller half becomes a splitter (both,
 * when the block was one still waiting). Moore's rounds, which this replaced,
 * take as many passes over the rule as its longest chain of states told apart
 * only far ahead (a pattern's run of 1,919 characters beside maxLength 200:
 * 1.1 s, against 0.06 s). */
#include <stdlib.h>
#include <string.h>

#include "base/bits.h"
#include "base/error.h"
#include "build.h"

typedef struct pd__min {
  const pd_allocator *a;
  pd_pda_builder *b;
  uint32_t start, n; /* the rule's states: start .. start+n-1 */
  uint32_t *cls;     /* block per state; at the end, classes in order of first member */
  /* blocks: elems[first[x] .. end[x]) are block x's states, marked ones first */
  uint32_t *elems, *loc, *first, *end, *marked, n_blocks;
  uint32_t *work, n_work; /* splitters waiting, and whether each waits */
  uint8_t *waits;
  uint32_t *in_at; /* [n + 1]: incoming edges by target, in_edge[in_at[t] ..) */
  uint64_t *in_edge; /* (k << 32 | source) */
} pd__min;

static uint32_t pd__n_edges(const pd_pda_state *st) {
  return st->n_byte + st->n_call + st->n_token;
}

/* The first partition: block numbers of the states' labels (finality, then
 * each edge's label without its target), equal labels one block. */
static bool pd__first_blocks(pd__min *m) {
  size_t cap = 16;
  while (cap < 2 * (size_t)m->n) cap *= 2;
  uint32_t *table = pd__calloc(m->a, cap, sizeof *table); /* state + 1 of a representative */
  uint32_t *sig_at = pd__malloc(m->a, ((size_t)m->n + 1) * sizeof *sig_at);
  PD_ARRAY(uint32_t) sig = {0};
  bool ok = table && sig_at;
  for (uint32_t i = 0; ok && i < m->n; i++) {
    const pd_pda_state *st = &m->b->states.data[m->start + i];
    uint32_t ne = pd__n_edges(st);
    sig_at[i] = (uint32_t)sig.len;
    if (!(ok = pd_array_reserve(m->a, &sig, 1 + 2 * (size_t)ne))) break;
    sig.data[sig.len++] = st->flags & PD_STATE_FINAL;
    for (uint32_t k = 0; k < ne; k++) {
      const pd_pda_edge *e = &m->b->edges.data[st->edges + k];
      sig.data[sig.len++] = (uint32_t)e->kind << 17 | (uint32_t)e->neg << 16 |
                            (uint32_t)e->lo << 8 | e->hi;
      sig.data[sig.len++] = e->arg;
    }
  }
  if (ok) sig_at[m->n] = (uint32_t)sig.len;
  for (uint32_t i = 0; ok && i < m->n; i++) {
    const uint32_t *x = sig.data + sig_at[i];
    uint32_t len = sig_at[i + 1] - sig_at[i];
    for (size_t h = pd_hash_words(x, len) & (cap - 1);; h = (h + 1) & (cap - 1)) {
      uint32_t r = table[h];
      if (!r) {
        table[h] = i + 1;
        m->cls[i] = m->n_blocks++;
        break;
      }
      r--;
      if (sig_at[r + 1] - sig_at[r] == len && !memcmp(sig.data + sig_at[r], x, len * sizeof *x)) {
        m->cls[i] = m->cls[r];
        break;
      }
    }
  }
  pd__free(m->a, table);
  pd__free(m->a, sig_at);
  pd_array_free(m->a, &sig);
  return ok;
}

/* Blocks laid out by a counting sort of the first partition, every one a
 * splitter; incoming edges by target. */
static void pd__layout(pd__min *m) {
  memset(m->end, 0, m->n_blocks * sizeof *m->end);
  for (uint32_t i = 0; i < m->n; i++) m->end[m->cls[i]]++;
  for (uint32_t x = 0, at = 0; x < m->n_blocks; x++) {
    m->first[x] = at, at += m->end[x], m->end[x] = m->first[x];
    m->marked[x] = 0, m->waits[x] = 1, m->work[m->n_work++] = x;
  }
  for (uint32_t i = 0; i < m->n; i++) m->loc[i] = m->end[m->cls[i]]++, m->elems[m->loc[i]] = i;
  memset(m->in_at, 0, ((size_t)m->n + 1) * sizeof *m->in_at);
  for (uint32_t i = 0; i < m->n; i++) {
    const pd_pda_state *st = &m->b->states.data[m->start + i];
    for (uint32_t k = 0; k < pd__n_edges(st); k++)
      m->in_at[m->b->edges.data[st->edges + k].to - m->start + 1]++;
  }
  for (uint32_t t = 0; t < m->n; t++) m->in_at[t + 1] += m->in_at[t];
  for (uint32_t i = 0; i < m->n; i++) {
    const pd_pda_state *st = &m->b->states.data[m->start + i];
    for (uint32_t k = 0; k < pd__n_edges(st); k++) {
      uint32_t t = m->b->edges.data[st->edges + k].to - m->start;
      m->in_edge[m->in_at[t]++] = (uint64_t)k << 32 | i;
    }
  }
  for (uint32_t t = m->n; t > 0; t--) m->in_at[t] = m->in_at[t - 1]; /* back to starts */
  m->in_at[0] = 0;
}

/* Moves state s to the marked front of its block; *touched lists the blocks. */
static void pd__mark(pd__min *m, uint32_t s, uint32_t *touched, uint32_t *n_touched) {
  uint32_t x = m->cls[s], at = m->first[x] + m->marked[x];
  if (m->loc[s] < at) return; /* marked already */
  if (!m->marked[x]) touched[(*n_touched)++] = x;
  uint32_t other = m->elems[at];
  m->elems[at] = s, m->elems[m->loc[s]] = other;
  m->loc[other] = m->loc[s], m->loc[s] = at;
  m->marked[x]++;
}

/* Splits block x into its marked front (a new block) and the rest. */
static void pd__split(pd__min *m, uint32_t x) {
  uint32_t k = m->marked[x], size = m->end[x] - m->first[x];
  m->marked[x] = 0;
  if (k == size) return;
  uint32_t y = m->n_blocks++;
  m->first[y] = m->first[x], m->end[y] = m->first[x] + k, m->marked[y] = 0;
  m->first[x] = m->end[y];
  for (uint32_t i = m->first[y]; i < m->end[y]; i++) m->cls[m->elems[i]] = y;
  uint32_t push = m->waits[x] || k <= size - k ? y : x;
  m->waits[y] = 0;
  if (m->waits[x] && push == y) m->waits[y] = 1, m->work[m->n_work++] = y;
  else if (!m->waits[push]) m->waits[push] = 1, m->work[m->n_work++] = push;
}

static int pd__cmp_u64(const void *x, const void *y) {
  uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
  return (a > b) - (a < b);
}

/* Refines until no splitter waits. */
static bool pd__refine(pd__min *m) {
  uint64_t *g = pd__malloc(m->a, ((size_t)m->in_at[m->n] + 1) * sizeof *g);
  uint32_t *touched = pd__malloc(m->a, (size_t)m->n * sizeof *touched);
  bool ok = g && touched;
  while (ok && m->n_work) {
    uint32_t b = m->work[--m->n_work], n_g = 0;
    m->waits[b] = 0;
    for (uint32_t i = m->first[b]; i < m->end[b]; i++)
      for (uint32_t e = m->in_at[m->elems[i]]; e < m->in_at[m->elems[i] + 1]; e++)
        g[n_g++] = m->in_edge[e];
    qsort(g, n_g, sizeof *g, pd__cmp_u64); /* by edge position k, then source */
    for (uint32_t i = 0; i < n_g;) {
      uint32_t j = i, n_touched = 0;
      for (; j < n_g && g[j] >> 32 == g[i] >> 32; j++)
        pd__mark(m, (uint32_t)g[j], touched, &n_touched);
      for (uint32_t t = 0; t < n_touched; t++) pd__split(m, touched[t]);
      i = j;
    }
  }
  pd__free(m->a, g);
  pd__free(m->a, touched);
  return ok;
}

/* Classes numbered in order of first member (the start state's is 0); returns
 * their number. */
static uint32_t pd__number(pd__min *m) {
  uint32_t *num = m->first, classes = 0; /* reused: blocks are done */
  for (uint32_t x = 0; x < m->n_blocks; x++) num[x] = UINT32_MAX;
  for (uint32_t i = 0; i < m->n; i++) {
    uint32_t *c = &num[m->cls[i]];
    if (*c == UINT32_MAX) *c = classes++;
    m->cls[i] = *c;
  }
  return classes;
}

/* Rewrites the rule's states: one per class, edges of its first member. */
static bool pd__rebuild(pd__min *m, uint32_t classes) {
  pd_pda_builder *b = m->b;
  uint32_t first_edge = b->states.data[m->start].edges;
  PD_ARRAY(pd_pda_state) st = {0};
  PD_ARRAY(pd_pda_edge) ed = {0};
  bool ok = pd_array_reserve(m->a, &st, classes) &&
            pd_array_reserve(m->a, &ed, b->edges.len - first_edge);
  for (uint32_t i = 0, c = 0; ok && i < m->n; i++) {
    if (m->cls[i] != c) continue; /* classes are numbered in order of first member */
    c++;
    pd_pda_state s = b->states.data[m->start + i], ns = s;
    ns.edges = first_edge + (uint32_t)ed.len;
    for (uint32_t k = 0; k < s.n_byte + s.n_call + s.n_token; k++) {
      pd_pda_edge e = b->edges.data[s.edges + k];
      e.to = m->start + m->cls[e.to - m->start];
      ed.data[ed.len++] = e;
    }
    st.data[st.len++] = ns;
  }
  if (ok) {
    memcpy(b->states.data + m->start, st.data, st.len * sizeof *st.data);
    b->states.len = m->start + st.len;
    if (ed.len) memcpy(b->edges.data + first_edge, ed.data, ed.len * sizeof *ed.data);
    b->edges.len = first_edge + ed.len;
    b->rules.data[b->states.data[m->start].rule].n_states = (uint32_t)st.len;
  }
  pd_array_free(m->a, &st);
  pd_array_free(m->a, &ed);
  return ok;
}

/* Adjacent byte edges reaching the same state become one (after merging). */
static void pd__merge_ranges(pd_pda_builder *b, uint32_t start) {
  size_t w = b->states.data[start].edges;
  for (size_t s = start; s < b->states.len; s++) {
    pd_pda_state *st = &b->states.data[s];
    size_t r = st->edges, n_byte = 0, all = st->n_byte + st->n_call + st->n_token;
    st->edges = (uint32_t)w;
    for (size_t k = 0; k < all; k++) {
      pd_pda_edge e = b->edges.data[r + k];
      pd_pda_edge *last = n_byte ? &b->edges.data[w - 1] : NULL;
      if (k < st->n_byte && last && last->to == e.to && last->hi + 1 == e.lo) {
        last->hi = e.hi;
        continue;
      }
      if (k < st->n_byte) n_byte++;
      b->edges.data[w++] = e;
    }
    st->n_byte = (uint32_t)n_byte;
  }
  b->edges.len = w;
}

pd_status pd_pda_minimize(pd_pda_builder *b, uint32_t rule, bool full, pd_error *err) {
  pd__min m = {.a = b->a, .b = b, .start = b->rules.data[rule].start};
  m.n = b->rules.data[rule].n_states;
  if (!full) pd__merge_ranges(b, m.start);
  if (m.n < 2 || !full) return PD_OK;
  size_t n = m.n, n_in = 0;
  for (uint32_t i = 0; i < m.n; i++) n_in += pd__n_edges(&b->states.data[m.start + i]);
  uint32_t *all = pd__malloc(m.a, (9 * n + 1) * sizeof *all);
  m.in_edge = pd__malloc(m.a, (n_in + 1) * sizeof *m.in_edge);
  m.waits = pd__malloc(m.a, n);
  bool ok = all && m.in_edge && m.waits;
  if (ok) {
    m.cls = all, m.elems = all + n, m.loc = all + 2 * n, m.first = all + 3 * n;
    m.end = all + 4 * n, m.marked = all + 5 * n, m.work = all + 6 * n, m.in_at = all + 7 * n;
    ok = pd__first_blocks(&m);
  }
  if (ok) pd__layout(&m);
  if (ok) ok = pd__refine(&m);
  if (ok) ok = pd__rebuild(&m, pd__number(&m));
  if (ok) pd__merge_ranges(b, m.start);
  pd__free(m.a, all);
  pd__free(m.a, m.in_edge);
  pd__free(m.a, m.waits);
  return ok ? PD_OK : pd__nomem(err);
}
