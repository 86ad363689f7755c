/* nfa.c - one rule body of the IR -> a Thompson NFA over bytes, calls and tokens.
 *
 * Code-point classes become byte-range paths: a range [lo,hi] is first split at
 * the UTF-8 length boundaries (U+007F/0080, 07FF/0800, FFFF/10000), then each
 * same-length piece is split until every byte position ranges independently
 * ("rectangles"), which is exactly when a sequence of byte ranges is exact. */
#include <string.h>

#include "base/check.h"
#include "base/error.h"
#include "build.h"

static uint32_t pd__state(pd_nfa *n) { return n->n_states++; }

static bool pd__edge(pd_nfa *n, pd_nfa_edge e) { return pd_array_push(n->a, &n->edges, e); }

static bool pd__eps(pd_nfa *n, uint32_t from, uint32_t to) {
  return pd__edge(n, (pd_nfa_edge){.from = from, .to = to, .kind = PD_NFA_EPS});
}

static bool pd__byte(pd_nfa *n, uint32_t from, uint32_t to, uint8_t lo, uint8_t hi) {
  return pd__edge(n,
                  (pd_nfa_edge){.from = from, .to = to, .kind = PD_EDGE_BYTE, .lo = lo, .hi = hi});
}

/* UTF-8 encoding of c into out; returns the length. */
static int pd__utf8(uint32_t c, uint8_t out[4]) {
  if (c < 0x80) {
    out[0] = (uint8_t)c;
    return 1;
  }
  if (c < 0x800) {
    out[0] = (uint8_t)(0xC0 | (c >> 6));
    out[1] = (uint8_t)(0x80 | (c & 0x3F));
    return 2;
  }
  if (c < 0x10000) {
    out[0] = (uint8_t)(0xE0 | (c >> 12));
    out[1] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
    out[2] = (uint8_t)(0x80 | (c & 0x3F));
    return 3;
  }
  out[0] = (uint8_t)(0xF0 | (c >> 18));
  out[1] = (uint8_t)(0x80 | ((c >> 12) & 0x3F));
  out[2] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
  out[3] = (uint8_t)(0x80 | (c & 0x3F));
  return 4;
}

/* A path in -> out through the byte ranges enc(lo)[k] .. enc(hi)[k]. */
static bool pd__seq_path(pd_nfa *n, uint32_t in, uint32_t out, uint32_t lo, uint32_t hi) {
  uint8_t a[4], b[4];
  int len = pd__utf8(lo, a);
  pd__utf8(hi, b);
  uint32_t cur = in;
  for (int k = 0; k < len; k++) {
    uint32_t next = k + 1 == len ? out : pd__state(n);
    if (!pd__byte(n, cur, next, a[k], b[k])) return false;
    cur = next;
  }
  return true;
}

/* [lo,hi], both of the same encoded length, as rectangles of byte ranges. */
static bool pd__same_len(pd_nfa *n, uint32_t in, uint32_t out, uint32_t lo, uint32_t hi) {
  for (int i = 1; i < 4; i++) {
    uint32_t m = (1u << (6 * i)) - 1; /* the low i continuation bytes */
    if ((lo & ~m) == (hi & ~m)) continue;
    if ((lo & m) != 0)
      return pd__same_len(n, in, out, lo, lo | m) && pd__same_len(n, in, out, (lo | m) + 1, hi);
    if ((hi & m) != m)
      return pd__same_len(n, in, out, lo, (hi & ~m) - 1) && pd__same_len(n, in, out, hi & ~m, hi);
  }
  return pd__seq_path(n, in, out, lo, hi);
}

static bool pd__codepoints(pd_nfa *n, uint32_t in, uint32_t out, uint32_t lo, uint32_t hi) {
  static const uint32_t bound[4][2] = {
      {0, 0x7F}, {0x80, 0x7FF}, {0x800, 0xFFFF}, {0x10000, 0x10FFFF}};
  for (int k = 0; k < 4; k++) {
    uint32_t a = lo > bound[k][0] ? lo : bound[k][0], b = hi < bound[k][1] ? hi : bound[k][1];
    if (a <= b && !pd__same_len(n, in, out, a, b)) return false;
  }
  return true;
}

static pd_status pd__build(pd_nfa *n, const pd_ir *w, uint32_t node, uint32_t in, uint32_t *out,
                           int depth, pd_error *err);

static pd_status pd__nomem_or_limit(pd_nfa *n, pd_error *err) {
  if (n->n_states > n->max_states)
    return pd__fail(err, PD_ERR_LIMIT, "grammar needs more than %u automaton states",
                    n->max_states);
  return pd__nomem(err);
}

/* Edges appended since edge `from` that lead to PD__LATER now lead to `to`:
 * an exit state is numbered after what leads to it, so nfa_tails.c, which
 * goes from the highest number down, meets a tail's states end first. */
#define PD__LATER UINT32_MAX
static uint32_t pd__later(pd_nfa *n, size_t from) {
  uint32_t to = pd__state(n);
  for (size_t e = from; e < n->edges.len; e++)
    if (n->edges.data[e].to == PD__LATER) n->edges.data[e].to = to;
  return to;
}

/* Rule r's finished automaton copied between in and a fresh exit: the body's
 * language, as a minimal DFA's states instead of a new Thompson expansion. A
 * schema inlines its string rules into every member, and a JSON character
 * alone expands to some 110 NFA states where its automaton has 23; the
 * subset construction and the minimizer then meet the small form. */
static pd_status pd__splice(pd_nfa *n, uint32_t r, uint32_t in, uint32_t *out, pd_error *err) {
  const pd_pda_builder *b = n->built;
  const pd_pda_rule *ru = &b->rules.data[r];
  uint32_t base = n->n_states;
  n->n_states += ru->n_states;
  if (n->n_states > n->max_states) return pd__nomem_or_limit(n, err);
  if (!pd__eps(n, in, base)) return pd__nomem(err); /* the start is the rule's first state */
  size_t first = n->edges.len;
  for (uint32_t i = 0; i < ru->n_states; i++) {
    const pd_pda_state *st = &b->states.data[ru->start + i];
    for (uint32_t k = 0; k < st->n_byte + st->n_call + st->n_token; k++) {
      const pd_pda_edge *e = &b->edges.data[st->edges + k];
      pd_nfa_edge x = {.from = base + i, .to = base + (e->to - ru->start), .kind = e->kind,
                       .lo = e->lo, .hi = e->hi, .neg = e->neg, .arg = e->arg};
      if (!pd__edge(n, x)) return pd__nomem(err);
    }
    if ((st->flags & PD_STATE_FINAL) && !pd__eps(n, base + i, PD__LATER)) return pd__nomem(err);
  }
  *out = pd__later(n, first);
  return PD_OK;
}

/* Whether rule r's finished automaton reads bytes only: then a product's
 * operand (copy_all) may splice it rather than build its body again (a
 * string's character rule in every negated name list). */
static bool pd__bytes_only(const pd_nfa *n, uint32_t r) {
  if (!n->ready || !n->ready[r]) return false;
  const pd_pda_builder *b = n->built;
  const pd_pda_rule *ru = &b->rules.data[r];
  for (uint32_t i = 0; i < ru->n_states; i++) {
    const pd_pda_state *st = &b->states.data[ru->start + i];
    if (st->n_call || st->n_token) return false;
  }
  return true;
}

/* x{min,max} copied inline: min copies, then max-min optional ones (or a loop). */
static pd_status pd__repeat(pd_nfa *n, const pd_ir *w, const pd_ir_node *nd, uint32_t in,
                            uint32_t *out, int depth, pd_error *err) {
  uint32_t cur = in, e;
  pd_status s;
  for (uint32_t i = 0; i < nd->off; i++) {
    if ((s = pd__build(n, w, nd->a, cur, &e, depth + 1, err))) return s;
    cur = e;
  }
  if (nd->n == PD_IR_INF) {
    uint32_t loop = pd__state(n);
    if (!pd__eps(n, cur, loop)) return pd__nomem(err);
    if ((s = pd__build(n, w, nd->a, loop, &e, depth + 1, err))) return s;
    if (!pd__eps(n, e, loop)) return pd__nomem(err);
    *out = loop;
    return PD_OK;
  }
  if (nd->off == nd->n) {
    *out = cur;
    return PD_OK;
  }
  /* every optional copy may stop straight to one exit, so the subset of the
   * determinized automaton after j copies stays small (not j exits deep) */
  size_t first = n->edges.len;
  for (uint32_t i = nd->off; i < nd->n; i++) {
    if (!pd__eps(n, cur, PD__LATER)) return pd__nomem(err);
    if ((s = pd__build(n, w, nd->a, cur, &e, depth + 1, err))) return s;
    if (e == cur) break; /* x matched the empty string only: no further copies */
    cur = e;
  }
  if (!pd__eps(n, cur, PD__LATER)) return pd__nomem(err);
  *out = pd__later(n, first);
  return PD_OK;
}

static pd_status pd__list(pd_nfa *n, const pd_ir *w, const pd_ir_node *nd, uint32_t in,
                          uint32_t *out, int depth, pd_error *err) {
  uint32_t cur = in, e;
  size_t first = n->edges.len;
  for (uint32_t i = 0; i < nd->n; i++) {
    pd_status s = pd__build(n, w, w->kids.data[nd->off + i], nd->kind == PD_IR_ALT ? in : cur, &e,
                            depth + 1, err);
    if (s) return s;
    if (nd->kind == PD_IR_SEQ)
      cur = e;
    else if (!pd__eps(n, e, PD__LATER))
      return pd__nomem(err);
  }
  *out = nd->kind == PD_IR_ALT ? pd__later(n, first) : cur;
  return PD_OK;
}

/* Builds node starting at state in; *out gets the state where it ends. A fresh
 * state is made wherever a loop could otherwise leak into a shared entry. */
static pd_status pd__build(pd_nfa *n, const pd_ir *w, uint32_t node, uint32_t in, uint32_t *out,
                           int depth, pd_error *err) {
  if (depth > PD_PDA_MAX_NESTING)
    return pd__fail(err, PD_ERR_LIMIT, "grammar expressions nest deeper than %d",
                    PD_PDA_MAX_NESTING);
  if (n->n_states > n->max_states) return pd__nomem_or_limit(n, err);
  const pd_ir_node *nd = pd_ir_at(w, node);
  uint32_t o;
  switch ((pd_ir_kind)nd->kind) {
    case PD_IR_EMPTY: *out = in; return PD_OK;
    case PD_IR_NOTHING: *out = pd__state(n); return PD_OK;
    case PD_IR_BYTES:
      for (uint32_t i = 0; i < nd->n; i++) {
        uint8_t b = w->bytes.data[nd->off + i];
        o = pd__state(n);
        if (!pd__byte(n, in, o, b, b)) return pd__nomem(err);
        in = o;
      }
      *out = in;
      return PD_OK;
    case PD_IR_CLASS: {
      size_t first = n->edges.len;
      for (uint32_t i = 0; i < nd->n; i++)
        if (!pd__codepoints(n, in, PD__LATER, w->ranges.data[nd->off + 2 * i],
                            w->ranges.data[nd->off + 2 * i + 1]))
          return pd__nomem(err);
      *out = pd__later(n, first);
      return PD_OK;
    }
    case PD_IR_REF:
      /* a product's operand is copied whole: a counted rule's bound would be lost */
      if (n->copy_all && w->rules.data[nd->a].count)
        return pd__fail(err, PD_ERR_UNSUPPORTED,
                        "a counted string length (a maxLength far past its minLength) inside a "
                        "difference or intersection of languages (oneOf, not)");
      if (n->copy_all || (n->inl && n->inl[nd->a] != PD_IR_NONE)) /* copied in */
        return (n->copy_all ? pd__bytes_only(n, nd->a) : n->ready && n->ready[nd->a])
                   ? pd__splice(n, nd->a, in, out, err)
                   : pd__build(n, w, w->rules.data[nd->a].body, in, out, depth + 1, err);
      *out = pd__state(n);
      return pd__edge(n, (pd_nfa_edge){.from = in, .to = *out, .kind = PD_EDGE_CALL, .arg = nd->a})
                 ? PD_OK
                 : pd__nomem(err);
    case PD_IR_TOKEN:
      *out = pd__state(n);
      return pd__edge(n, (pd_nfa_edge){.from = in,
                                       .to = *out,
                                       .kind = PD_EDGE_TOKEN,
                                       .arg = nd->a,
                                       .neg = nd->negated ? 1 : 0})
                 ? PD_OK
                 : pd__nomem(err);
    case PD_IR_SEQ:
    case PD_IR_ALT: return pd__list(n, w, nd, in, out, depth, err);
    case PD_IR_REPEAT: return pd__repeat(n, w, nd, in, out, depth, err);
    case PD_IR_DIFF: return pd_pda_nfa_diff(n, w, nd->a, nd->off, in, out, err);
    case PD_IR_AND: return pd_pda_nfa_and(n, w, nd->a, nd->off, nd->n != 0, in, out, err);
  }
  return pd__fail(err, PD_ERR_INTERNAL, "unknown IR node kind %u", nd->kind);
}

/* Sorts edges by source (a counting sort: stable, linear) and builds first[]. */
static pd_status pd__index(pd_nfa *n, pd_error *err) {
  size_t ne = n->edges.len, ns = n->n_states;
  pd_array_clear(&n->first);
  pd_array_clear(&n->spare);
  if (!pd_array_reserve(n->a, &n->first, ns + 1) || !pd_array_reserve(n->a, &n->spare, ne))
    return pd__nomem(err);
  uint32_t *first = n->first.data;
  memset(first, 0, (ns + 1) * sizeof *first);
  for (size_t e = 0; e < ne; e++) first[n->edges.data[e].from + 1]++;
  for (size_t q = 0; q < ns; q++) first[q + 1] += first[q];
  for (size_t e = 0; e < ne; e++) { /* first[q] walks up to first[q + 1], then is reset */
    const pd_nfa_edge *x = &n->edges.data[e];
    n->spare.data[first[x->from]++] = *x;
  }
  for (size_t q = ns; q > 0; q--) first[q] = first[q - 1];
  first[0] = 0;
  pd_nfa_edge *t = n->edges.data;
  size_t cap = n->edges.cap;
  n->edges.data = n->spare.data, n->edges.cap = n->spare.cap;
  n->spare.data = t, n->spare.cap = cap;
  n->edges.len = ne, n->spare.len = 0;
  n->first.len = ns + 1;
  return PD_OK;
}

pd_status pd_pda_nfa_build(pd_nfa *nfa, const pd_ir *w, uint32_t body, pd_error *err) {
  pd_array_clear(&nfa->edges);
  nfa->n_states = 0;
  nfa->start = pd__state(nfa);
  pd_status s = pd__build(nfa, w, body, nfa->start, &nfa->final, 0, err);
  if (s) return s;
  if (nfa->n_states > nfa->max_states) return pd__nomem_or_limit(nfa, err);
  if ((s = pd__index(nfa, err))) return s;
  return nfa->keep_tails ? PD_OK : pd_pda_nfa_merge_tails(nfa, err);
}

void pd_pda_nfa_free(pd_nfa *nfa) {
  pd_array_free(nfa->a, &nfa->edges);
  pd_array_free(nfa->a, &nfa->first);
  pd_array_free(nfa->a, &nfa->spare);
}
