/* minimize.c - merges equivalent states of one rule's automaton (Moore's
 * partition refinement): two states are equivalent when both or neither are
 * final and their edges, label by label, reach equivalent states. Fewer states
 * mean fewer token classifications in masks/.
 *
 * Each round gives every state the signature
 *   [class(s), then per edge: (kind, neg, lo, hi) in one word, arg, class(to)]
 * and numbers distinct signatures in order of first appearance (so the start
 * state keeps class 0); it stops when the number of classes stops growing.
 * Moore needs as many rounds as the longest chain of states told apart only
 * far ahead (x{0,63}: 63 rounds over the whole rule), so the first partition
 * is already split by the longest path to a final state, which equivalent
 * states share. */
#include <string.h>

#include "base/bits.h"
#include "base/error.h"
#include "build.h"

typedef struct pd__min {
  const pd_allocator *a;
  pd_pda_builder *b;
  uint32_t start, n;      /* the rule's states: start .. start+n-1 */
  uint32_t *cls, *next;   /* class per state, this round and the next */
  PD_ARRAY(uint32_t) sig; /* signatures, back to back */
  uint32_t *sig_at;       /* [n + 1] */
  uint32_t *table;        /* open addressing: state + 1 of a class representative */
  size_t table_cap;
} pd__min;

#define PD__CYCLIC UINT32_MAX /* a cycle is in reach: no longest path */

/* d[i] = the most edges on a path from state i to a final state, or
 * PD__CYCLIC (an iterative depth-first search; a state that reaches a state
 * still on the search stack, or a cyclic one, is cyclic). */
static bool pd__longest(pd__min *m, uint32_t *d) {
  uint32_t *stack = pd__malloc(m->a, 2 * (size_t)m->n * sizeof *stack);
  uint8_t *color = pd__calloc(m->a, m->n, 1); /* 0 new, 1 on the stack, 2 done */
  bool ok = stack && color;
  for (uint32_t root = 0; ok && root < m->n; root++) {
    if (color[root]) continue;
    size_t sp = 0;
    stack[sp++] = root, stack[sp++] = 0;
    color[root] = 1;
    d[root] = 0;
    while (sp) {
      uint32_t i = stack[sp - 2], k = stack[sp - 1];
      const pd_pda_state *st = &m->b->states.data[m->start + i];
      if (k < st->n_byte + st->n_call + st->n_token) {
        stack[sp - 1]++;
        uint32_t t = m->b->edges.data[st->edges + k].to - m->start;
        if (color[t] == 0) {
          color[t] = 1, d[t] = 0;
          stack[sp++] = t, stack[sp++] = 0;
        } else if (color[t] == 1 || d[t] == PD__CYCLIC) {
          d[i] = PD__CYCLIC;
        } else if (d[i] != PD__CYCLIC && d[t] + 1 > d[i]) {
          d[i] = d[t] + 1;
        }
        continue;
      }
      color[i] = 2; /* done: hand the result to the parent */
      sp -= 2;
      if (sp) {
        uint32_t p = stack[sp - 2];
        if (d[i] == PD__CYCLIC) d[p] = PD__CYCLIC;
        else if (d[p] != PD__CYCLIC && d[i] + 1 > d[p]) d[p] = d[i] + 1;
      }
    }
  }
  pd__free(m->a, stack);
  pd__free(m->a, color);
  return ok;
}

static uint32_t pd__sig_hash(const uint32_t *s, uint32_t n) { return pd_hash_words(s, n); }

static bool pd__signatures(pd__min *m) {
  pd_array_clear(&m->sig);
  for (uint32_t i = 0; i < m->n; i++) {
    const pd_pda_state *st = &m->b->states.data[m->start + i];
    uint32_t ne = st->n_byte + st->n_call + st->n_token;
    m->sig_at[i] = (uint32_t)m->sig.len;
    if (!pd_array_reserve(m->a, &m->sig, 1 + 3 * (size_t)ne)) return false;
    m->sig.data[m->sig.len++] = m->cls[i];
    for (uint32_t k = 0; k < ne; k++) {
      const pd_pda_edge *e = &m->b->edges.data[st->edges + k];
      uint32_t w[3] = {(uint32_t)e->kind << 17 | (uint32_t)e->neg << 16 | (uint32_t)e->lo << 8 | e->hi,
                       e->arg, m->cls[e->to - m->start]};
      memcpy(m->sig.data + m->sig.len, w, sizeof w);
      m->sig.len += 3;
    }
  }
  m->sig_at[m->n] = (uint32_t)m->sig.len;
  return true;
}

/* Numbers the distinct signatures; returns the number of classes. */
static uint32_t pd__refine(pd__min *m) {
  memset(m->table, 0, m->table_cap * sizeof *m->table);
  uint32_t classes = 0;
  for (uint32_t i = 0; i < m->n; i++) {
    const uint32_t *s = m->sig.data + m->sig_at[i];
    uint32_t len = m->sig_at[i + 1] - m->sig_at[i];
    size_t h = pd__sig_hash(s, len) & (m->table_cap - 1);
    for (;; h = (h + 1) & (m->table_cap - 1)) {
      uint32_t r = m->table[h];
      if (!r) {
        m->table[h] = i + 1;
        m->next[i] = classes++;
        break;
      }
      r--;
      if (m->sig_at[r + 1] - m->sig_at[r] == len &&
          !memcmp(m->sig.data + m->sig_at[r], s, len * sizeof *s)) {
        m->next[i] = m->next[r];
        break;
      }
    }
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
  m.table_cap = 16;
  while (m.table_cap < 2 * (size_t)m.n) m.table_cap *= 2;
  m.cls = pd__calloc(m.a, m.n, sizeof *m.cls);
  m.next = pd__malloc(m.a, m.n * sizeof *m.next);
  m.sig_at = pd__malloc(m.a, (m.n + 1) * sizeof *m.sig_at);
  m.table = pd__malloc(m.a, m.table_cap * sizeof *m.table);
  bool ok = m.cls && m.next && m.sig_at && m.table;
  /* first partition: final or not, and the longest path to a final state */
  if (ok) ok = pd__longest(&m, m.next);
  for (uint32_t i = 0; ok && i < m.n; i++) {
    uint32_t d = m.next[i];
    m.cls[i] = (b->states.data[m.start + i].flags & PD_STATE_FINAL) | (d == PD__CYCLIC ? 0 : 2 + 2 * d);
  }
  for (uint32_t classes = 0, prev = UINT32_MAX; ok && classes != prev;) {
    prev = classes;
    ok = pd__signatures(&m);
    if (ok) classes = pd__refine(&m);
    if (ok) memcpy(m.cls, m.next, m.n * sizeof *m.cls);
    if (ok && classes == prev) ok = pd__rebuild(&m, classes);
  }
  if (ok) pd__merge_ranges(b, m.start);
  pd__free(m.a, m.cls);
  pd__free(m.a, m.next);
  pd__free(m.a, m.sig_at);
  pd__free(m.a, m.table);
  pd_array_free(m.a, &m.sig);
  return ok ? PD_OK : pd__nomem(err);
}
