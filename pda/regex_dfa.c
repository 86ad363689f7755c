/* regex_dfa.c - automata over code points for sets of patterns and names
 * (pd_regex_dfa_build, regex.h): the keys of an object told apart by the
 * patternProperties they match.
 *
 * Thompson NFA from the raw-UTF-8 IR of each pattern (pd_regex_to_ir with a
 * NULL target: CLASS nodes are code-point classes, BYTES nodes UTF-8 text),
 * every pattern's accepting state tagged with its bit; the subset
 * construction then tracks all patterns at once, so a DFA state's label says
 * which patterns match the input read so far. Edge lo = PD__EPS: epsilon. */

#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "pda/grammar.h"
#include "regex.h"

#define PD__EPS UINT32_MAX
#define PD__NFA_MAX 200000u
#define PD__DFA_MAX 4096u
#define PD__CP_END 0x110000u

typedef struct pd__nedge {
  uint32_t from, lo, hi, to;
} pd__nedge;

typedef struct pd__nfa {
  const pd_allocator *a;
  const pd_ir *ir;
  PD_ARRAY(pd__nedge) edges;
  PD_ARRAY(uint32_t) tag; /* per state: pattern bits accepting there */
  uint32_t *first;        /* after indexing: edges of state s at [first[s], first[s+1]) */
  bool oom, big;
} pd__nfa;

static uint32_t pd__nstate(pd__nfa *n) {
  if (n->tag.len >= PD__NFA_MAX) n->big = true;
  if (n->big || !pd_array_push(n->a, &n->tag, 0u)) {
    n->oom = n->oom || !n->big;
    return 0;
  }
  return (uint32_t)n->tag.len - 1;
}

static void pd__nedge_add(pd__nfa *n, uint32_t from, uint32_t lo, uint32_t hi, uint32_t to) {
  pd__nedge e = {from, lo, hi, to};
  if (!pd_array_push(n->a, &n->edges, e)) n->oom = true;
}

static uint32_t pd__nbuild(pd__nfa *n, uint32_t node, uint32_t in, int depth);

static uint32_t pd__nrepeat(pd__nfa *n, const pd_ir_node *nd, uint32_t in, int depth) {
  uint32_t min = nd->off, max = nd->n, cur = in;
  for (uint32_t k = 0; k < min && !n->big && !n->oom; k++) cur = pd__nbuild(n, nd->a, cur, depth);
  if (max == PD_IR_INF) { /* x*: a loop through a fresh state */
    uint32_t loop = pd__nstate(n);
    pd__nedge_add(n, cur, PD__EPS, 0, loop);
    uint32_t back = pd__nbuild(n, nd->a, loop, depth);
    pd__nedge_add(n, back, PD__EPS, 0, loop);
    return loop;
  }
  uint32_t out = pd__nstate(n);
  pd__nedge_add(n, cur, PD__EPS, 0, out);
  for (uint32_t k = min; k < max && !n->big && !n->oom; k++) {
    cur = pd__nbuild(n, nd->a, cur, depth);
    pd__nedge_add(n, cur, PD__EPS, 0, out);
  }
  return out;
}

/* Adds the language of node from state in; returns the exit state. */
static uint32_t pd__nproduct(pd__nfa *n, const pd_ir_node *nd, uint32_t in, int depth);

static uint32_t pd__nbuild(pd__nfa *n, uint32_t node, uint32_t in, int depth) {
  const pd_ir *ir = n->ir;
  const pd_ir_node *nd = pd_ir_at(ir, node);
  if (n->big || n->oom || depth > 200) {
    n->big = true;
    return in;
  }
  switch ((pd_ir_kind)nd->kind) {
    case PD_IR_EMPTY:
      return in;
    case PD_IR_NOTHING:
      return pd__nstate(n); /* unreachable exit */
    case PD_IR_BYTES: {
      const uint8_t *b = ir->bytes.data + nd->off;
      for (size_t i = 0, k; i < nd->n; i += k) {
        uint8_t c = b[i];
        k = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
        if (i + k > nd->n) k = nd->n - i;
        uint32_t cp = k == 1 ? c : k == 2 ? c & 0x1Fu : k == 3 ? c & 0x0Fu : c & 0x07u;
        for (size_t j = 1; j < k; j++) cp = cp << 6 | (b[i + j] & 0x3Fu);
        uint32_t next = pd__nstate(n);
        pd__nedge_add(n, in, cp, cp, next);
        in = next;
      }
      return in;
    }
    case PD_IR_CLASS: {
      uint32_t out = pd__nstate(n);
      for (uint32_t i = 0; i < nd->n; i++)
        pd__nedge_add(n, in, ir->ranges.data[nd->off + 2 * i], ir->ranges.data[nd->off + 2 * i + 1],
                      out);
      return out;
    }
    case PD_IR_REF:
      return pd__nbuild(n, ir->rules.data[nd->a].body, in, depth + 1);
    case PD_IR_SEQ:
      for (uint32_t i = 0; i < nd->n; i++)
        in = pd__nbuild(n, ir->kids.data[nd->off + i], in, depth + 1);
      return in;
    case PD_IR_ALT: {
      uint32_t out = pd__nstate(n);
      for (uint32_t i = 0; i < nd->n; i++)
        pd__nedge_add(n, pd__nbuild(n, ir->kids.data[nd->off + i], in, depth + 1), PD__EPS, 0, out);
      return out;
    }
    case PD_IR_REPEAT:
      return pd__nrepeat(n, nd, in, depth + 1);
    case PD_IR_DIFF:
    case PD_IR_AND:
      if (!nd->n) return pd__nproduct(n, nd, in, depth + 1);
      break;
    case PD_IR_TOKEN: break;
  }
  n->big = true; /* not produced by the regex front end */
  return in;
}

static int pd__nedge_cmp(const void *x, const void *y) {
  const pd__nedge *a = x, *b = y;
  return a->from < b->from ? -1 : a->from > b->from;
}

static bool pd__nindex(pd__nfa *n) {
  qsort(n->edges.data, n->edges.len, sizeof *n->edges.data, pd__nedge_cmp);
  n->first = pd__malloc(n->a, (n->tag.len + 1) * sizeof *n->first);
  if (!n->first) return false;
  size_t e = 0;
  for (uint32_t s = 0; s <= n->tag.len; s++) {
    while (e < n->edges.len && n->edges.data[e].from < s) e++;
    n->first[s] = (uint32_t)e;
  }
  return true;
}

typedef PD_ARRAY(uint32_t) pd__u32v;

static int pd__cmp_lo_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

/* The epsilon closure of set (sorted, unique on return). */
static bool pd__closure_of(pd__nfa *n, pd__u32v *set, uint8_t *mark) {
  for (size_t i = 0; i < set->len; i++) mark[set->data[i]] = 1;
  for (size_t i = 0; i < set->len; i++) {
    uint32_t s = set->data[i];
    for (uint32_t e = n->first[s]; e < n->first[s + 1]; e++) {
      const pd__nedge *ed = &n->edges.data[e];
      if (ed->lo != PD__EPS || mark[ed->to]) continue;
      mark[ed->to] = 1;
      if (!pd_array_push(n->a, set, ed->to)) return false;
    }
  }
  for (size_t i = 0; i < set->len; i++) mark[set->data[i]] = 0;
  qsort(set->data, set->len, sizeof *set->data, pd__cmp_lo_u32);
  return true;
}

typedef struct pd__dfab {
  pd__nfa *n;
  uint8_t *mark;
  pd__u32v pool, set_off, set_len, first, edges, label;
} pd__dfab;

/* The DFA state of closed set (sorted), added when new; *q = its id. */
static bool pd__dstate(pd__dfab *b, const pd__u32v *set, uint32_t *q) {
  const pd_allocator *a = b->n->a;
  for (uint32_t i = 0; i < b->set_off.len; i++)
    if (b->set_len.data[i] == set->len &&
        (set->len == 0 ||
         memcmp(b->pool.data + b->set_off.data[i], set->data, set->len * sizeof *set->data) == 0)) {
      *q = i;
      return true;
    }
  uint32_t lab = 0;
  for (size_t i = 0; i < set->len; i++) lab |= b->n->tag.data[set->data[i]];
  *q = (uint32_t)b->set_off.len;
  if (!pd_array_push(a, &b->set_off, (uint32_t)b->pool.len) ||
      !pd_array_push(a, &b->set_len, (uint32_t)set->len) || !pd_array_push(a, &b->label, lab) ||
      !pd_array_reserve(a, &b->pool, set->len ? set->len : 1))
    return false;
  if (set->len) memcpy(b->pool.data + b->pool.len, set->data, set->len * sizeof *set->data);
  b->pool.len += set->len;
  return true;
}

/* The transitions of DFA state q: one edge per maximal interval with the
 * same target, covering every code point. */
static pd_status pd__dexpand(pd__dfab *b, uint32_t q, pd__u32v *bounds, pd__u32v *target) {
  pd__nfa *n = b->n;
  const pd_allocator *a = n->a;
  bounds->len = 0;
  if (!pd_array_push(a, bounds, 0u) || !pd_array_push(a, bounds, PD__CP_END)) return PD_ERR_NOMEM;
  uint32_t off = b->set_off.data[q], len = b->set_len.data[q];
  for (uint32_t i = 0; i < len; i++) {
    uint32_t s = b->pool.data[off + i];
    for (uint32_t e = n->first[s]; e < n->first[s + 1]; e++) {
      const pd__nedge *ed = &n->edges.data[e];
      if (ed->lo == PD__EPS) continue;
      if (!pd_array_push(a, bounds, ed->lo) || !pd_array_push(a, bounds, ed->hi + 1))
        return PD_ERR_NOMEM;
    }
  }
  qsort(bounds->data, bounds->len, sizeof *bounds->data, pd__cmp_lo_u32);
  size_t w = 0;
  for (size_t i = 0; i < bounds->len; i++)
    if (bounds->data[i] <= PD__CP_END && (w == 0 || bounds->data[w - 1] != bounds->data[i]))
      bounds->data[w++] = bounds->data[i];
  bounds->len = w;
  uint32_t prev = UINT32_MAX;
  for (size_t k = 0; k + 1 < bounds->len; k++) {
    uint32_t lo = bounds->data[k], hi = bounds->data[k + 1] - 1, t;
    target->len = 0;
    off = b->set_off.data[q]; /* the pool may have moved */
    for (uint32_t i = 0; i < len; i++) {
      uint32_t s = b->pool.data[off + i];
      for (uint32_t e = n->first[s]; e < n->first[s + 1]; e++) {
        const pd__nedge *ed = &n->edges.data[e];
        if (ed->lo != PD__EPS && ed->lo <= lo && lo <= ed->hi && !b->mark[ed->to]) {
          b->mark[ed->to] = 1;
          if (!pd_array_push(a, target, ed->to)) return PD_ERR_NOMEM;
        }
      }
    }
    for (size_t i = 0; i < target->len; i++) b->mark[target->data[i]] = 0;
    if (!pd__closure_of(n, target, b->mark) || !pd__dstate(b, target, &t)) return PD_ERR_NOMEM;
    if (b->set_off.len > PD__DFA_MAX) return PD_ERR_LIMIT;
    if (t == prev) { /* extend the previous edge */
      b->edges.data[b->edges.len - 2] = hi;
      continue;
    }
    if (!pd_array_push(a, &b->edges, lo) || !pd_array_push(a, &b->edges, hi) ||
        !pd_array_push(a, &b->edges, t))
      return PD_ERR_NOMEM;
    prev = t;
  }
  return PD_OK;
}

/* The DFA of NFA n from its state 0 into b (n indexed); PD_ERR_LIMIT past
 * PD__DFA_MAX states. */
static pd_status pd__determinize(pd__dfab *b) {
  const pd_allocator *a = b->n->a;
  pd__u32v bounds = {0}, target = {0};
  uint32_t q0;
  pd_status st = PD_OK;
  if (!(b->mark = pd__calloc(a, b->n->tag.len + 1, 1)) || !pd_array_push(a, &target, 0u) ||
      !pd__closure_of(b->n, &target, b->mark) || !pd__dstate(b, &target, &q0))
    st = PD_ERR_NOMEM;
  for (uint32_t q = 0; !st && q < b->set_off.len; q++) {
    if (!pd_array_push(a, &b->first, (uint32_t)(b->edges.len / 3))) st = PD_ERR_NOMEM;
    if (!st) st = pd__dexpand(b, q, &bounds, &target);
  }
  if (!st && !pd_array_push(a, &b->first, (uint32_t)(b->edges.len / 3))) st = PD_ERR_NOMEM;
  pd_array_free(a, &bounds);
  pd_array_free(a, &target);
  return st;
}

static void pd__dfab_free(pd__dfab *b) {
  const pd_allocator *a = b->n->a;
  pd_array_free(a, &b->pool);
  pd_array_free(a, &b->set_off);
  pd_array_free(a, &b->set_len);
  pd_array_free(a, &b->first);
  pd_array_free(a, &b->edges);
  pd_array_free(a, &b->label);
  pd__free(a, b->mark);
}

static void pd__nfa_free(pd__nfa *n) {
  pd__free(n->a, n->first);
  pd_array_free(n->a, &n->edges);
  pd_array_free(n->a, &n->tag);
}

/* A product (a lookaround's AND or DIFF) into n after state in: both
 * operands side by side in an NFA of their own (final bits 1 and 2),
 * determinized, its states copied in; those where both operands accept
 * (AND), or the first alone (DIFF), lead to the returned exit. */
static uint32_t pd__nproduct(pd__nfa *n, const pd_ir_node *nd, uint32_t in, int depth) {
  bool diff = nd->kind == PD_IR_DIFF;
  uint32_t operand[2] = {nd->a, nd->off};
  pd__nfa sub = {.a = n->a, .ir = n->ir};
  pd__dfab d = {.n = &sub};
  uint32_t s0 = pd__nstate(&sub);
  for (int k = 0; k < 2; k++) {
    uint32_t start = pd__nstate(&sub);
    pd__nedge_add(&sub, s0, PD__EPS, 0, start);
    uint32_t fin = pd__nbuild(&sub, operand[k], start, depth);
    if (!sub.oom && !sub.big) sub.tag.data[fin] |= 1u << k;
  }
  pd_status st = sub.oom ? PD_ERR_NOMEM : sub.big ? PD_ERR_LIMIT : PD_OK;
  if (!st) st = pd__nindex(&sub) ? pd__determinize(&d) : PD_ERR_NOMEM;
  uint32_t out = in;
  if (!st) {
    uint32_t base = (uint32_t)n->tag.len, n_q = (uint32_t)d.set_off.len;
    for (uint32_t q = 0; q < n_q && !n->big && !n->oom; q++) pd__nstate(n);
    out = pd__nstate(n);
    pd__nedge_add(n, in, PD__EPS, 0, base);
    for (uint32_t q = 0; q < n_q && !n->big && !n->oom; q++) {
      for (uint32_t k = d.first.data[q]; k < d.first.data[q + 1]; k++)
        pd__nedge_add(n, base + q, d.edges.data[3 * k], d.edges.data[3 * k + 1],
                      base + d.edges.data[3 * k + 2]);
      uint32_t lab = d.label.data[q];
      if (diff ? (lab & 1) && !(lab & 2) : (lab & 3) == 3)
        pd__nedge_add(n, base + q, PD__EPS, 0, out);
    }
  }
  if (st == PD_ERR_NOMEM) n->oom = true;
  if (st == PD_ERR_LIMIT) n->big = true;
  pd__dfab_free(&d);
  pd__nfa_free(&sub);
  return out;
}

/* NFA of every pattern (bit i) and of the names (PD_REGEX_DFA_NAME), from
 * state 0. */
static pd_status pd__nfa_all(pd__nfa *n, pd_ir *ir, const char *const *pats, const size_t *lens,
                             uint32_t n_pats, const char *const *names, const size_t *name_lens,
                             uint32_t n_names, const pd_grammar_options *opts, pd_error *err) {
  pd__nstate(n);
  for (uint32_t i = 0; i < n_pats; i++) {
    uint32_t node;
    pd_status st = pd_regex_to_ir(ir, pats[i], lens[i], NULL, true, opts, &node, err);
    if (st) return st;
    n->ir = ir;
    uint32_t in = pd__nstate(n), fin = pd__nstate(n);
    pd__nedge_add(n, 0, PD__EPS, 0, in);
    pd__nedge_add(n, pd__nbuild(n, node, in, 0), PD__EPS, 0, fin);
    if (!n->oom && !n->big) n->tag.data[fin] |= 1u << i;
  }
  for (uint32_t i = 0; i < n_names && !n->oom && !n->big; i++) {
    uint32_t cur = 0;
    const uint8_t *b = (const uint8_t *)names[i];
    for (size_t j = 0, k; j < name_lens[i]; j += k) {
      uint8_t c = b[j];
      k = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
      if (j + k > name_lens[i]) k = name_lens[i] - j;
      uint32_t cp = k == 1 ? c : k == 2 ? c & 0x1Fu : k == 3 ? c & 0x0Fu : c & 0x07u;
      for (size_t m = 1; m < k; m++) cp = cp << 6 | (b[j + m] & 0x3Fu);
      uint32_t next = pd__nstate(n);
      pd__nedge_add(n, cur, cp, cp, next);
      cur = next;
    }
    uint32_t fin = pd__nstate(n);
    pd__nedge_add(n, cur, PD__EPS, 0, fin);
    if (!n->oom && !n->big) n->tag.data[fin] |= PD_REGEX_DFA_NAME;
  }
  if (n->oom || ir->oom) return pd__nomem(err);
  if (n->big) return pd__fail(err, PD_ERR_LIMIT, "pattern automaton over %u states", PD__NFA_MAX);
  return PD_OK;
}

pd_status pd_regex_dfa_build(const char *const *pats, const size_t *lens, uint32_t n_pats,
                             const char *const *names, const size_t *name_lens, uint32_t n_names,
                             const pd_grammar_options *opts, const pd_allocator *alloc,
                             pd_regex_dfa *out, pd_error *err) {
  memset(out, 0, sizeof *out);
  alloc = pd__alloc_or_default(alloc);
  out->alloc = alloc;
  if (n_pats > 30) return pd__fail(err, PD_ERR_LIMIT, "more than 30 patterns in one automaton");
  pd_ir ir;
  pd_ir_init(&ir, alloc);
  pd__nfa n = {.a = alloc, .ir = &ir};
  pd__dfab b = {.n = &n};
  pd_status st = pd__nfa_all(&n, &ir, pats, lens, n_pats, names, name_lens, n_names, opts, err);
  if (!st) st = pd__nindex(&n) ? pd__determinize(&b) : PD_ERR_NOMEM;
  if (st == PD_ERR_NOMEM) st = pd__nomem(err);
  if (st == PD_ERR_LIMIT)
    st = pd__fail(err, PD_ERR_LIMIT, "pattern automaton over %u states", PD__DFA_MAX);
  if (!st) {
    out->n_states = (uint32_t)b.set_off.len;
    out->first = b.first.data, b.first.data = NULL;
    out->edges = b.edges.data, b.edges.data = NULL;
    out->label = b.label.data, b.label.data = NULL;
  }
  pd__dfab_free(&b);
  pd__nfa_free(&n);
  pd_ir_free(&ir);
  return st;
}

void pd_regex_dfa_free(pd_regex_dfa *d) {
  pd__free(d->alloc, d->first);
  pd__free(d->alloc, d->edges);
  pd__free(d->alloc, d->label);
  memset(d, 0, sizeof *d);
}
