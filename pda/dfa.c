/* dfa.c - subset construction: one rule's NFA -> a deterministic automaton.
 *
 * A DFA state is an epsilon-closed set of NFA states, interned (sets.h).
 * Its byte edges are the elementary intervals between the boundaries of the
 * NFA byte edges it contains, merged when neighbours reach the same set, so
 * byte edges come out sorted and disjoint; calls and tokens are grouped by
 * callee / (id, negated). */
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "build.h"
#include "sets.h"

typedef struct pd__sub {
  const pd_nfa *nfa;
  const pd_allocator *a;
  pd_sets s;      /* the DFA states as interned sets (sets.h) */
  uint32_t *mark; /* per NFA state: generation it was last added to the closure */
  uint32_t gen;
  PD_ARRAY(uint32_t) stack, seed;
  PD_ARRAY(pd_nfa_edge) out; /* the non-epsilon edges of the set being expanded */
} pd__sub;

/* Epsilon closure of u->seed, appended (sorted) at the end of the pool. */
static bool pd__closure(pd__sub *u) {
  const pd_nfa *n = u->nfa;
  u->gen++;
  pd_array_clear(&u->stack);
  size_t base = u->s.pool.len;
  for (size_t i = 0; i < u->seed.len; i++) {
    uint32_t q = u->seed.data[i];
    if (u->mark[q] == u->gen) continue;
    u->mark[q] = u->gen;
    if (!pd_array_push(u->a, &u->stack, q) || !pd_array_push(u->a, &u->s.pool, q)) return false;
  }
  while (u->stack.len) {
    uint32_t q = u->stack.data[--u->stack.len];
    for (uint32_t e = n->first.data[q]; e < n->first.data[q + 1]; e++) {
      const pd_nfa_edge *ed = &n->edges.data[e];
      if (ed->kind != PD_NFA_EPS || u->mark[ed->to] == u->gen) continue;
      u->mark[ed->to] = u->gen;
      if (!pd_array_push(u->a, &u->stack, ed->to) || !pd_array_push(u->a, &u->s.pool, ed->to))
        return false;
    }
  }
  return pd_sets_sort_tail(&u->s, base);
}

/* Interns the closure of u->seed; *id gets its DFA state (new or old). */
static pd_status pd__intern(pd__sub *u, uint32_t *id, pd_error *err) {
  size_t base = u->s.pool.len;
  if (!pd__closure(u)) return pd__nomem(err);
  return pd_sets_intern(&u->s, base, id, err);
}

static int pd__cmp_edge(const void *x, const void *y) {
  const pd_nfa_edge *a = x, *b = y;
  if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
  if (a->arg != b->arg) return a->arg < b->arg ? -1 : 1;
  if (a->neg != b->neg) return a->neg < b->neg ? -1 : 1;
  return (a->to > b->to) - (a->to < b->to);
}

static bool pd__emit(pd_pda_builder *b, uint8_t kind, uint8_t lo, uint8_t hi, uint8_t neg,
                     uint32_t arg, uint32_t to) {
  pd_pda_edge e = {kind, lo, hi, neg, arg, to};
  return pd_array_push(b->a, &b->edges, e);
}

/* Byte edges of the current set: elementary intervals, merged when equal. */
static pd_status pd__bytes(pd__sub *u, pd_pda_builder *b, size_t nb, uint32_t start,
                           uint32_t *count, pd_error *err) {
  uint64_t cut[5] = {0}; /* interval starts, as bits 0..256 */
  for (size_t i = 0; i < nb; i++) {
    unsigned a = u->out.data[i].lo, z = u->out.data[i].hi + 1u;
    cut[a / 64] |= 1ull << (a % 64);
    cut[z / 64] |= 1ull << (z % 64);
  }
  cut[4] |= 1; /* 256 ends the last interval */
  size_t first_edge = b->edges.len;
  uint32_t prev_id = UINT32_MAX; /* the previous interval's seed and set */
  for (int lo = 0; lo < 256;) {
    unsigned w = (unsigned)(lo + 1) / 64; /* the next start after lo */
    uint64_t bits = cut[w] & (~0ull << ((unsigned)(lo + 1) % 64));
    while (!bits) bits = cut[++w];
    int hi = (int)(w * 64 + (unsigned)__builtin_ctzll(bits)) - 1;
    /* the seed: targets of the edges covering [lo, hi]; neighbours often share
     * it (a class split only by another edge's boundary), then so do their sets */
    size_t n = 0;
    bool same = prev_id != UINT32_MAX;
    for (size_t i = 0; i < nb; i++) {
      const pd_nfa_edge *e = &u->out.data[i];
      if (e->lo > lo || hi > e->hi) continue;
      if (same && (n >= u->seed.len || u->seed.data[n] != e->to)) same = false;
      if (!same) {
        if (n < u->seed.len) {
          u->seed.data[n] = e->to;
        } else if (!pd_array_push(u->a, &u->seed, e->to)) {
          return pd__nomem(err);
        }
      }
      n++;
    }
    same = same && n == u->seed.len;
    u->seed.len = n;
    if (n) {
      uint32_t id = prev_id;
      if (!same) {
        pd_status s = pd__intern(u, &id, err);
        if (s) return s;
      }
      prev_id = id;
      pd_pda_edge *last = b->edges.len > first_edge ? &pd_array_last(&b->edges) : NULL;
      if (last && last->to == start + id && last->hi + 1 == lo)
        last->hi = (uint8_t)hi;
      else if (!pd__emit(b, PD_EDGE_BYTE, (uint8_t)lo, (uint8_t)hi, 0, 0, start + id))
        return pd__nomem(err);
    }
    lo = hi + 1;
  }
  *count = (uint32_t)(b->edges.len - first_edge);
  return PD_OK;
}

/* Call or token edges out[i..j) (sorted): one DFA edge per (kind, arg, neg). */
static pd_status pd__grouped(pd__sub *u, pd_pda_builder *b, size_t i, size_t j, uint32_t start,
                             uint32_t *count, pd_error *err) {
  *count = 0;
  while (i < j) {
    size_t k = i;
    pd_array_clear(&u->seed);
    for (; k < j && u->out.data[k].arg == u->out.data[i].arg &&
           u->out.data[k].neg == u->out.data[i].neg;
         k++)
      if (!pd_array_push(u->a, &u->seed, u->out.data[k].to)) return pd__nomem(err);
    uint32_t id;
    pd_status s = pd__intern(u, &id, err);
    if (s) return s;
    pd_nfa_edge e = u->out.data[i];
    if (!pd__emit(b, e.kind, 0, 0, e.neg, e.arg, start + id)) return pd__nomem(err);
    ++*count;
    i = k;
  }
  return PD_OK;
}

/* Expands DFA state d (already interned) into a builder state with its edges. */
static pd_status pd__expand(pd__sub *u, pd_pda_builder *b, uint32_t d, uint32_t rule,
                            uint32_t start, pd_error *err) {
  pd_array_clear(&u->out);
  pd_pda_state st = {rule, (uint32_t)b->edges.len, 0, 0, 0, 0};
  for (uint32_t k = 0; k < u->s.sets.data[d].len; k++) {
    uint32_t q = u->s.pool.data[u->s.sets.data[d].off + k];
    if (q == u->nfa->final) st.flags |= PD_STATE_FINAL;
    for (uint32_t e = u->nfa->first.data[q]; e < u->nfa->first.data[q + 1]; e++)
      if (u->nfa->edges.data[e].kind != PD_NFA_EPS &&
          !pd_array_push(u->a, &u->out, u->nfa->edges.data[e]))
        return pd__nomem(err);
  }
  /* byte edges first, in any order (pd__bytes reads them all); the calls and
   * tokens after them sorted, so equal (kind, arg, neg) are adjacent */
  size_t nb = 0;
  for (size_t i = 0; i < u->out.len; i++)
    if (u->out.data[i].kind == PD_EDGE_BYTE) {
      pd_nfa_edge x = u->out.data[i];
      u->out.data[i] = u->out.data[nb];
      u->out.data[nb++] = x;
    }
  size_t n_rest = u->out.len - nb;
  pd_nfa_edge *rest = n_rest ? u->out.data + nb : NULL; /* out may be unallocated */
  if (n_rest > 24) {
    qsort(rest, n_rest, sizeof *rest, pd__cmp_edge);
  } else {
    for (size_t i = 1; i < n_rest; i++) {
      pd_nfa_edge x = rest[i];
      size_t j = i;
      for (; j && pd__cmp_edge(&rest[j - 1], &x) > 0; j--) rest[j] = rest[j - 1];
      rest[j] = x;
    }
  }
  size_t nc = nb;
  while (nc < u->out.len && u->out.data[nc].kind == PD_EDGE_CALL) nc++;
  pd_status s = pd__bytes(u, b, nb, start, &st.n_byte, err);
  if (!s) s = pd__grouped(u, b, nb, nc, start, &st.n_call, err);
  if (!s) s = pd__grouped(u, b, nc, u->out.len, start, &st.n_token, err);
  if (s) return s;
  return pd_array_push(b->a, &b->states, st) ? PD_OK : pd__nomem(err);
}

static void pd__sub_free(pd__sub *u) {
  pd_sets_free(&u->s);
  pd_array_free(u->a, &u->stack);
  pd_array_free(u->a, &u->seed);
  pd_array_free(u->a, &u->out);
  pd__free(u->a, u->mark);
}

pd_status pd_pda_dfa_build(pd_pda_builder *b, const pd_nfa *nfa, uint32_t rule, pd_error *err) {
  uint32_t start = (uint32_t)b->states.len;
  pd__sub u = {.nfa = nfa, .a = b->a, .s = {.a = b->a}};
  u.s.limit = b->max_states > start ? b->max_states - start : 0;
  if (u.s.limit > PD_PDA_RULE_MAX_STATES) u.s.limit = PD_PDA_RULE_MAX_STATES;
  u.mark = pd__calloc(b->a, nfa->n_states ? nfa->n_states : 1, sizeof *u.mark);
  pd_status s = u.mark ? PD_OK : pd__nomem(err);
  uint32_t id;
  if (!s && !pd_array_push(b->a, &u.seed, nfa->start)) s = pd__nomem(err);
  if (!s) s = pd__intern(&u, &id, err);
  for (uint32_t d = 0; !s && d < u.s.sets.len; d++) s = pd__expand(&u, b, d, rule, start, err);
  if (!s) b->rules.data[rule] = (pd_pda_rule){.start = start, .n_states = (uint32_t)u.s.sets.len};
  pd__sub_free(&u);
  return s;
}
