/* schema_array.c - arrays: prefixItems / items (and the draft-04 tuple form
 * items + additionalItems), minItems, maxItems; uniqueItems where trivial. */
#include "base/error.h"
#include "pda/schema_ctx.h"

/* The schema member s imposes on element i (PD_JSON_NONE = none). */
static uint32_t pd__item_at(const pd_sc *sc, uint32_t s, uint32_t i) {
  const pd_json_doc *d = &sc->doc;
  uint32_t items = pd_json_get(d, s, "items"), prefix = pd_json_get(d, s, "prefixItems");
  if (items != PD_JSON_NONE && pd_json_at(d, items)->kind == PD_JSON_ARRAY) { /* draft-04 tuple */
    if (i < pd_json_len(d, items)) return pd_json_elem(d, items, i);
    return pd_json_get(d, s, "additionalItems");
  }
  if (prefix != PD_JSON_NONE && pd_json_at(d, prefix)->kind == PD_JSON_ARRAY &&
      i < pd_json_len(d, prefix))
    return pd_json_elem(d, prefix, i);
  return items;
}

/* Positions before which elements have their own schemas. */
static uint32_t pd__prefix_len(const pd_sc *sc, const pd_sc_conj *c) {
  uint32_t k = 0;
  for (size_t i = 0; i < c->n; i++) {
    uint32_t s = pd_sc_member(sc, c, i), a = pd_json_get(&sc->doc, s, "prefixItems");
    uint32_t items = pd_json_get(&sc->doc, s, "items");
    if (items != PD_JSON_NONE && pd_json_at(&sc->doc, items)->kind == PD_JSON_ARRAY) a = items;
    if (a != PD_JSON_NONE && pd_json_at(&sc->doc, a)->kind == PD_JSON_ARRAY &&
        pd_json_len(&sc->doc, a) > k)
      k = pd_json_len(&sc->doc, a);
  }
  return k;
}

/* Whether member m's unevaluatedItems applies to element i: no node of its
 * reach evaluates that position (by prefixItems / tuple items of that
 * length, a schema "items", or a nested unevaluatedItems). *applies false
 * also when m has none. */
static pd_status pd__unevaluated_at(pd_sc *sc, const pd_sc_conj *c, uint32_t m, uint32_t i,
                                    bool *applies) {
  const pd_json_doc *d = &sc->doc;
  *applies = false;
  if (pd_json_get(d, m, "unevaluatedItems") == PD_JSON_NONE) return PD_OK;
  size_t n;
  uint32_t *reach = pd_sc_reach(sc, c, m, &n);
  if (!reach) return pd__nomem(sc->err);
  bool evaluated = false;
  for (size_t k = 0; k < n && !evaluated; k++) {
    uint32_t r = reach[k], items = pd_json_get(d, r, "items"),
             pre = pd_json_get(d, r, "prefixItems");
    if (r != m && pd_json_get(d, r, "unevaluatedItems") != PD_JSON_NONE) evaluated = true;
    if (items != PD_JSON_NONE) {
      if (pd_json_at(d, items)->kind != PD_JSON_ARRAY)
        evaluated = true;
      else
        evaluated =
            i < pd_json_len(d, items) || pd_json_get(d, r, "additionalItems") != PD_JSON_NONE;
    }
    if (pre != PD_JSON_NONE && pd_json_at(d, pre)->kind == PD_JSON_ARRAY && i < pd_json_len(d, pre))
      evaluated = true;
  }
  pd__free(sc->ir.alloc, reach);
  *applies = !evaluated;
  return PD_OK;
}

/* The conj of what every member says about element i, compiled. */
static pd_status pd__element(pd_sc *sc, const pd_sc_conj *c, uint32_t i, uint32_t depth,
                             uint32_t extra, uint32_t *node) {
  size_t off = sc->pool.len;
  if (extra != PD_JSON_NONE && !pd_array_push(sc->ir.alloc, &sc->pool, PD_SC_ENTRY(extra, 0)))
    return pd__nomem(sc->err);
  for (size_t m = 0; m < c->n; m++) {
    bool uneval;
    pd_status st = pd__unevaluated_at(sc, c, pd_sc_member(sc, c, m), i, &uneval);
    if (st) return st;
    if (uneval &&
        !pd_array_push(
            sc->ir.alloc, &sc->pool,
            PD_SC_ENTRY(pd_json_get(&sc->doc, pd_sc_member(sc, c, m), "unevaluatedItems"), 0)))
      return pd__nomem(sc->err);
    uint32_t s = pd__item_at(sc, pd_sc_member(sc, c, m), i);
    if (s == PD_JSON_NONE) continue;
    bool dup = false;
    for (size_t j = off; j < sc->pool.len; j++) dup = dup || PD_SC_NODE(sc->pool.data[j]) == s;
    if (!dup && !pd_array_push(sc->ir.alloc, &sc->pool, PD_SC_ENTRY(s, 0)))
      return pd__nomem(sc->err);
  }
  return pd_sc_compile(sc, off, sc->pool.len - off, PD_SC_ALL, depth + 1, node);
}

/* uniqueItems: true holds trivially for at most one element; otherwise refused. */
static pd_status pd__unique(pd_sc *sc, const pd_sc_conj *c, uint32_t max) {
  for (size_t i = 0; i < c->n; i++) {
    uint32_t u = pd_sc_kw(sc, c, i, "uniqueItems");
    if (u == PD_JSON_NONE || pd_json_at(&sc->doc, u)->kind != PD_JSON_TRUE || max <= 1) continue;
    pd_status st = pd_sc_unsupported(sc, u, "uniqueItems", "unique elements");
    if (st) return st;
  }
  return PD_OK;
}

/* contains / minContains of the conj: *cs = the schema (NONE when there is no
 * constraint), *mc = how many elements must match. maxContains is refused. */
static pd_status pd__contains(pd_sc *sc, const pd_sc_conj *c, uint32_t *cs, uint32_t *mc) {
  pd_status st;
  *cs = PD_JSON_NONE;
  *mc = 1;
  for (size_t i = 0; i < c->n; i++) {
    uint32_t x = pd_sc_kw(sc, c, i, "contains"), mn = pd_sc_kw(sc, c, i, "minContains"), v;
    uint32_t mx = pd_sc_kw(sc, c, i, "maxContains");
    if (x == PD_JSON_NONE) continue;
    if (*cs != PD_JSON_NONE && !pd_json_equal(&sc->doc, *cs, x)) {
      if ((st = pd_sc_unsupported(sc, x, "contains", "two different contains"))) return st;
      continue;
    }
    *cs = x;
    if (mn != PD_JSON_NONE) {
      if (!pd_sc_uint(sc, mn, &v)) return pd_sc_fail(sc, PD_ERR_SEMANTIC, mn, "bad minContains");
      if (v > *mc || v == 0) *mc = v;
    }
    if (mx != PD_JSON_NONE && (st = pd_sc_unsupported(sc, mx, "maxContains", "not implemented")))
      return st;
  }
  if (*mc == 0) *cs = PD_JSON_NONE;
  return PD_OK;
}

/* With contains: R(n, j) after n elements of which j (capped at mc) match:
 *   R(n,j) = sep elem R(n+1,j) | sep match R(n+1,j+1) | "" (n >= min, j >= mc)
 * where match = elem AND contains; n is capped at max (or at min when unbounded). */
static pd_status pd__array_contains(pd_sc *sc, const pd_sc_conj *c, uint32_t depth, uint32_t cs,
                                    uint32_t mc, uint32_t min, uint32_t max, uint32_t *node) {
  pd_ir *ir = &sc->ir;
  uint32_t e, m, ncap = max != PD_IR_INF ? max : min > 1 ? min : 1;
  pd_status st;
  if ((size_t)(ncap + 1) * (mc + 1) > 100000 || mc > sc->opts.max_repeat)
    return pd__fail(sc->err, PD_ERR_LIMIT, "contains: too many counter states");
  if ((st = pd__element(sc, c, 0, depth, PD_JSON_NONE, &e)) ||
      (st = pd__element(sc, c, 0, depth, cs, &m)))
    return st;
  uint32_t first = (uint32_t)ir->rules.len, sep = pd_sc_item_sep(sc, depth);
  for (uint32_t k = 0; k < (ncap + 1) * (mc + 1); k++) pd_ir_rule_fresh(ir, "ac");
  for (uint32_t n = 0; n <= ncap && !ir->oom; n++)
    for (uint32_t j = 0; j <= mc; j++) {
      uint32_t acc = n >= min && j >= mc ? pd_ir_empty(ir) : pd_ir_nothing(ir);
      uint32_t n2 = n + 1 > ncap ? ncap : n + 1, j2 = j + 1 > mc ? mc : j + 1;
      if (max == PD_IR_INF || n < max) {
        uint32_t a =
            pd_ir_seq(ir, (uint32_t[]){sep, e, pd_ir_ref(ir, first + n2 * (mc + 1) + j)}, 3);
        uint32_t b =
            pd_ir_seq(ir, (uint32_t[]){sep, m, pd_ir_ref(ir, first + n2 * (mc + 1) + j2)}, 3);
        acc = pd_ir_alt(ir, (uint32_t[]){acc, a, b}, 3);
      }
      pd_ir_rule_define(ir, first + n * (mc + 1) + j, acc);
    }
  uint32_t one = 1 > ncap ? ncap : 1, jm = 1 > mc ? mc : 1;
  uint32_t start = max == 0
                       ? pd_ir_nothing(ir)
                       : pd_ir_alt2(ir, pd_ir_seq2(ir, e, pd_ir_ref(ir, first + one * (mc + 1))),
                                    pd_ir_seq2(ir, m, pd_ir_ref(ir, first + one * (mc + 1) + jm)));
  *node = pd_ir_seq(ir,
                    (uint32_t[]){pd_ir_bytes(ir, "[", 1), pd_sc_open_ws(sc, depth), start,
                                 pd_sc_close_ws(sc, depth), pd_ir_bytes(ir, "]", 1)},
                    5);
  return pd_sc_ir_status(sc);
}

/* array = "[" [ elem ( sep elem )* ] "]" with min..max elements, element i
 * from position-specific schemas up to the prefix length k, then the tail. */
pd_status pd_sc_array(pd_sc *sc, const pd_sc_conj *c, uint32_t depth, uint32_t *node) {
  pd_ir *ir = &sc->ir;
  uint32_t min, max, k = pd__prefix_len(sc, c), tail, rest;
  pd_status st;
  if ((st = pd_sc_bound(sc, c, "minItems", false, &min)) ||
      (st = pd_sc_bound(sc, c, "maxItems", true, &max)) || (st = pd__unique(sc, c, max)))
    return st;
  if (min > sc->opts.max_repeat || (max != PD_IR_INF && max > sc->opts.max_repeat) ||
      k > sc->opts.max_repeat)
    return pd__fail(sc->err, PD_ERR_LIMIT, "array bound over max_repeat (%u)", sc->opts.max_repeat);
  if (max != PD_IR_INF && k > max) k = max;
  uint32_t cs, mc;
  if ((st = pd__contains(sc, c, &cs, &mc))) return st;
  if (cs != PD_JSON_NONE) {
    if (k == 0) return pd__array_contains(sc, c, depth, cs, mc, min, max, node);
    if ((st = pd_sc_unsupported(sc, cs, "contains", "contains with prefixItems"))) return st;
  }
  if ((st = pd__element(sc, c, k, depth, PD_JSON_NONE, &tail))) return st;
  uint32_t sep = pd_sc_item_sep(sc, depth);
  /* rest after i elements, built from the back: R(i) for i = k down to 1 */
  uint32_t lo = min > k ? min - k : 0, hi = max == PD_IR_INF ? PD_IR_INF : max - k;
  rest = pd_ir_repeat(ir, pd_ir_seq2(ir, sep, tail), lo, hi);
  uint32_t first = PD_IR_NONE; /* content when k == 0 */
  if (k == 0) {
    first = hi == 0 ? pd_ir_nothing(ir)
                    : pd_ir_seq2(ir, tail,
                                 pd_ir_repeat(ir, pd_ir_seq2(ir, sep, tail), lo > 0 ? lo - 1 : 0,
                                              hi == PD_IR_INF ? PD_IR_INF : hi - 1));
  }
  for (uint32_t i = k; i-- > 0;) {
    uint32_t e;
    if ((st = pd__element(sc, c, i, depth, PD_JSON_NONE, &e))) return st;
    uint32_t with = i == 0 ? pd_ir_seq2(ir, e, rest) : pd_ir_seq(ir, (uint32_t[]){sep, e, rest}, 3);
    if (i == 0)
      first = with;
    else
      rest = i >= min ? pd_ir_alt2(ir, with, pd_ir_empty(ir)) : with;
  }
  uint32_t open = pd_ir_bytes(ir, "[", 1), close = pd_ir_bytes(ir, "]", 1);
  uint32_t full = pd_ir_seq(
      ir, (uint32_t[]){open, pd_sc_open_ws(sc, depth), first, pd_sc_close_ws(sc, depth), close}, 5);
  if (min == 0)
    full = pd_ir_alt2(ir, full, pd_ir_seq(ir, (uint32_t[]){open, pd_sc_empty_ws(sc), close}, 3));
  *node = full;
  return pd_sc_ir_status(sc);
}
