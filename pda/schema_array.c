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

/* The conj of what every member says about element i, compiled. */
static pd_status pd__element(pd_sc *sc, const pd_sc_conj *c, uint32_t i, uint32_t depth,
                             uint32_t *node) {
  size_t off = sc->pool.len;
  for (size_t m = 0; m < c->n; m++) {
    uint32_t s = pd__item_at(sc, pd_sc_member(sc, c, m), i);
    if (s == PD_JSON_NONE) continue;
    bool dup = false;
    for (size_t j = off; j < sc->pool.len; j++) dup = dup || PD_SC_NODE(sc->pool.data[j]) == s;
    if (!dup && !pd_array_push(sc->ir.alloc, &sc->pool, PD_SC_ENTRY(s, 0))) return pd__nomem(sc->err);
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
  if ((st = pd__element(sc, c, k, depth, &tail))) return st;
  uint32_t sep = pd_sc_item_sep(sc, depth);
  /* rest after i elements, built from the back: R(i) for i = k down to 1 */
  uint32_t lo = min > k ? min - k : 0, hi = max == PD_IR_INF ? PD_IR_INF : max - k;
  rest = pd_ir_repeat(ir, pd_ir_seq2(ir, sep, tail), lo, hi);
  uint32_t first = PD_IR_NONE; /* content when k == 0 */
  if (k == 0) {
    first = hi == 0 ? pd_ir_nothing(ir)
                    : pd_ir_seq2(ir, tail, pd_ir_repeat(ir, pd_ir_seq2(ir, sep, tail),
                                                        lo > 0 ? lo - 1 : 0,
                                                        hi == PD_IR_INF ? PD_IR_INF : hi - 1));
  }
  for (uint32_t i = k; i-- > 0;) {
    uint32_t e;
    if ((st = pd__element(sc, c, i, depth, &e))) return st;
    uint32_t with = i == 0 ? pd_ir_seq2(ir, e, rest) : pd_ir_seq(ir, (uint32_t[]){sep, e, rest}, 3);
    if (i == 0) first = with;
    else rest = i >= min ? pd_ir_alt2(ir, with, pd_ir_empty(ir)) : with;
  }
  uint32_t open = pd_ir_bytes(ir, "[", 1), close = pd_ir_bytes(ir, "]", 1);
  uint32_t full = pd_ir_seq(ir, (uint32_t[]){open, pd_sc_open_ws(sc, depth), first,
                                             pd_sc_close_ws(sc, depth), close}, 5);
  if (min == 0) full = pd_ir_alt2(ir, full, pd_ir_seq(ir, (uint32_t[]){open, pd_sc_empty_ws(sc), close}, 3));
  *node = full;
  return pd_sc_ir_status(sc);
}
