/* nfa_tails.c - merging NFA states that have the same right language.
 *
 * The Thompson construction copies a sub-expression at every place it occurs,
 * and the copies often end in the same place: the "any other character" class
 * at every node of a key-complement trie (a JSON character with its escapes,
 * some 100 states) all lead to one shared rest of the string. The subset
 * construction then meets one state per copy and the minimizer merges them
 * again; on a typical object with additional properties that was 2,600 DFA
 * states minimized to 190, most of the schema's compile time.
 *
 * Two cheap, sound merges, in PD__PASSES passes linear in the edges:
 *   - a non-final state whose only edge is an epsilon to t stands for t;
 *   - two states with the same final flag and the same edges (labels and
 *     merged targets) are one state (a bisimulation, built up from the end).
 * Passes run from the highest state number down: nfa.c numbers a successor
 * after its predecessor except on loop back edges (exits are numbered last),
 * so one pass settles whole tails; a second pass found little more than a
 * loop head, and what a pass misses stays for the minimizer. */
#include <stdlib.h>
#include <string.h>

#include "base/bits.h"
#include "base/error.h"
#include "build.h"

#define PD__PASSES 1
#define PD__SMALL 64

typedef struct pd__tails {
  pd_nfa *n;
  uint32_t *rep;   /* union-find parent; rep[q] == q for a kept state */
  uint32_t *table; /* signature hash -> state + 1 */
  size_t cap;
  PD_ARRAY(pd_nfa_edge) sig; /* the signature being built */
  PD_ARRAY(uint32_t) off;    /* kept state q: its signature is pool[off[2q] .. +off[2q+1]) */
  PD_ARRAY(pd_nfa_edge) pool;
} pd__tails;

static uint32_t pd__find(uint32_t *rep, uint32_t q) {
  uint32_t r = q;
  while (rep[r] != r) r = rep[r];
  while (rep[q] != r) {
    uint32_t nx = rep[q];
    rep[q] = r;
    q = nx;
  }
  return r;
}

static int pd__cmp(const pd_nfa_edge *a, const pd_nfa_edge *b) {
  if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
  if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
  if (a->hi != b->hi) return a->hi < b->hi ? -1 : 1;
  if (a->neg != b->neg) return a->neg < b->neg ? -1 : 1;
  if (a->arg != b->arg) return a->arg < b->arg ? -1 : 1;
  return (a->to > b->to) - (a->to < b->to);
}

/* The edges of q with merged targets, sorted and without duplicates, into
 * t->sig; from is left 0 so equal signatures compare equal as bytes. */
static bool pd__signature(pd__tails *t, uint32_t q) {
  const pd_nfa *n = t->n;
  pd_array_clear(&t->sig);
  for (uint32_t e = n->first.data[q]; e < n->first.data[q + 1]; e++) {
    pd_nfa_edge x = n->edges.data[e];
    x.from = 0;
    x.to = pd__find(t->rep, x.to);
    size_t j = t->sig.len;
    if (!pd_array_push(n->a, &t->sig, x)) return false;
    pd_nfa_edge *s = t->sig.data;
    for (; j && pd__cmp(&s[j - 1], &x) > 0; j--) s[j] = s[j - 1];
    if (j && pd__cmp(&s[j - 1], &x) == 0) { /* a duplicate: take it out again */
      memmove(s + j, s + j + 1, (t->sig.len - j - 1) * sizeof *s);
      t->sig.len--;
    } else {
      s[j] = x;
    }
  }
  return true;
}

static uint32_t pd__sig_hash(const pd__tails *t, bool final) {
  uint32_t h = pd_hash_words((const uint32_t *)(const void *)t->sig.data,
                             t->sig.len * (sizeof *t->sig.data / sizeof(uint32_t)));
  return final ? ~h : h;
}

/* One pass; *changed tells whether any state was merged. */
static bool pd__pass(pd__tails *t, bool *changed) {
  pd_nfa *n = t->n;
  memset(t->table, 0, t->cap * sizeof *t->table);
  pd_array_clear(&t->pool);
  *changed = false;
  for (uint32_t q = n->n_states; q-- > 0;) {
    if (t->rep[q] != q) continue;
    bool final = q == n->final;
    uint32_t deg = n->first.data[q + 1] - n->first.data[q];
    if (!final && deg == 1 && n->edges.data[n->first.data[q]].kind == PD_NFA_EPS) {
      uint32_t to = pd__find(t->rep, n->edges.data[n->first.data[q]].to);
      if (to != q) {
        t->rep[q] = to;
        *changed = true;
        continue;
      }
    }
    if (!pd__signature(t, q)) return false;
    size_t i = pd__sig_hash(t, final) & (t->cap - 1);
    for (; t->table[i]; i = (i + 1) & (t->cap - 1)) {
      uint32_t p = t->table[i] - 1;
      uint32_t len = t->off.data[2 * p + 1];
      if ((p == n->final) == final && len == t->sig.len &&
          (!len || /* no edges: nothing allocated to compare */
           !memcmp(t->pool.data + t->off.data[2 * p], t->sig.data, len * sizeof *t->sig.data))) {
        t->rep[q] = p;
        *changed = true;
        break;
      }
    }
    if (t->rep[q] != q) continue;
    t->table[i] = q + 1;
    t->off.data[2 * q] = (uint32_t)t->pool.len;
    t->off.data[2 * q + 1] = (uint32_t)t->sig.len;
    for (size_t k = 0; k < t->sig.len; k++)
      if (!pd_array_push(n->a, &t->pool, t->sig.data[k])) return false;
  }
  return true;
}

/* Rewrites the edges: the kept states' signatures, with their own source. */
static pd_status pd__rewrite(pd__tails *t, pd_error *err) {
  pd_nfa *n = t->n;
  pd_array_clear(&n->spare);
  for (uint32_t q = 0; q < n->n_states; q++) {
    if (t->rep[q] != q) continue;
    if (!pd__signature(t, q)) return pd__nomem(err);
    for (size_t k = 0; k < t->sig.len; k++) {
      pd_nfa_edge x = t->sig.data[k];
      x.from = q;
      if (!pd_array_push(n->a, &n->spare, x)) return pd__nomem(err);
    }
  }
  pd_nfa_edge *d = n->edges.data;
  size_t cap = n->edges.cap;
  n->edges.data = n->spare.data, n->edges.cap = n->spare.cap, n->edges.len = n->spare.len;
  n->spare.data = d, n->spare.cap = cap, n->spare.len = 0;
  uint32_t *first = n->first.data; /* edges are in source order already */
  memset(first, 0, (n->n_states + 1) * sizeof *first);
  for (size_t e = 0; e < n->edges.len; e++) first[n->edges.data[e].from + 1]++;
  for (uint32_t q = 0; q < n->n_states; q++) first[q + 1] += first[q];
  n->start = pd__find(t->rep, n->start);
  n->final = pd__find(t->rep, n->final);
  return PD_OK;
}

pd_status pd_pda_nfa_merge_tails(pd_nfa *n, pd_error *err) {
  pd__tails t = {.n = n};
  pd_status s = PD_OK;
  if (n->n_states < PD__SMALL) return PD_OK; /* too few copies to pay for the passes */
  t.cap = 64;
  while (t.cap < 2 * (size_t)n->n_states) t.cap *= 2;
  t.rep = pd__malloc(n->a, ((size_t)n->n_states + 1) * sizeof *t.rep);
  t.table = pd__malloc(n->a, t.cap * sizeof *t.table);
  if (!t.rep || !t.table || !pd_array_reserve(n->a, &t.off, 2 * (size_t)n->n_states + 2)) {
    s = pd__nomem(err);
    goto out;
  }
  t.off.len = 2 * (size_t)n->n_states + 2;
  for (uint32_t q = 0; q < n->n_states; q++) t.rep[q] = q;
  bool any = false, changed = true;
  for (int p = 0; p < PD__PASSES && changed; p++) {
    if (!pd__pass(&t, &changed)) {
      s = pd__nomem(err);
      goto out;
    }
    any = any || changed;
  }
  if (any) s = pd__rewrite(&t, err);
out:
  pd__free(n->a, t.rep);
  pd__free(n->a, t.table);
  pd_array_free(n->a, &t.sig);
  pd_array_free(n->a, &t.off);
  pd_array_free(n->a, &t.pool);
  return s;
}
