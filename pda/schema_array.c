/* schema_array.c - arrays: prefixItems / items (and the draft-04 tuple form
 * items + additionalItems), minItems, maxItems, contains / minContains /
 * maxContains (counters; maxContains needs a negatable contains schema), and
 * uniqueItems where elements come from finite sets (or at most one element). */
#include "base/bits.h"
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

/* The conj of what every member says about element i and the schemas
 * extra[0..n_extra), compiled. */
static pd_status pd__element_n(pd_sc *sc, const pd_sc_conj *c, uint32_t i, uint32_t depth,
                               const uint32_t *extra, size_t n_extra, uint32_t types,
                               uint32_t *node) {
  size_t off = sc->pool.len;
  for (size_t x = 0; x < n_extra; x++)
    if (!pd_array_push(sc->ir.alloc, &sc->pool, PD_SC_ENTRY(extra[x], 0)))
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
  return pd_sc_compile(sc, off, sc->pool.len - off, types, depth + 1, node);
}

/* The same with one extra schema (PD_JSON_NONE: none), restricted to types. */
static pd_status pd__element_t(pd_sc *sc, const pd_sc_conj *c, uint32_t i, uint32_t depth,
                               uint32_t extra, uint32_t types, uint32_t *node) {
  return pd__element_n(sc, c, i, depth, &extra, extra != PD_JSON_NONE, types, node);
}

static pd_status pd__element(pd_sc *sc, const pd_sc_conj *c, uint32_t i, uint32_t depth,
                             uint32_t extra, uint32_t *node) {
  return pd__element_t(sc, c, i, depth, extra, PD_SC_ALL, node);
}

/* Element 0's schemas AND NOT cs, when cs is negatable (pd_sc_negate): the
 * union of the ways to fail it. */
static pd_status pd__non_match(pd_sc *sc, const pd_sc_conj *c, uint32_t depth, uint32_t cs,
                               uint32_t at, uint32_t *node) {
  uint32_t mask, one;
  pd_sc_lit lits[PD_SC_MAX_LITS];
  size_t n;
  bool ok;
  pd_status st = pd_sc_negate(sc, cs, &mask, lits, &n, &ok);
  if (st) return st;
  if (!ok) { /* lenient: maxContains is dropped (and noted) */
    *node = PD_IR_NONE;
    return pd_sc_unsupported(sc, at, "maxContains", "a contains schema that cannot be negated");
  }
  if ((st = pd__element_t(sc, c, 0, depth, PD_JSON_NONE, PD_SC_ALL & ~mask, node))) return st;
  for (size_t k = 0; k < n; k++) {
    if ((st = pd__element_t(sc, c, 0, depth, lits[k].node, mask & lits[k].types, &one))) return st;
    *node = pd_ir_alt2(&sc->ir, *node, one);
  }
  return pd_sc_ir_status(sc);
}

/* uniqueItems true where it constrains (more than one element): its node. */
static uint32_t pd__unique(pd_sc *sc, const pd_sc_conj *c, uint32_t max) {
  for (size_t i = 0; i < c->n; i++) {
    uint32_t u = pd_sc_kw(sc, c, i, "uniqueItems");
    if (u != PD_JSON_NONE && pd_json_at(&sc->doc, u)->kind == PD_JSON_TRUE && max > 1) return u;
  }
  return PD_JSON_NONE;
}

#define PD__UNIQUE_VALUES 10u /* distinct values: 2^n rules */

/* The element values of a uniqueItems array when they form finite sets: one
 * member holds prefixItems / items, each a finite set (pd_sc_finite_values;
 * items may go unused when maxItems <= the prefix), no other member speaks
 * of elements. dom[i] (i <= k; k = the tail) is a bit set over vals. */
static bool pd__unique_domains(pd_sc *sc, const pd_sc_conj *c, uint32_t max, uint32_t *vals,
                               size_t *nv, uint32_t *dom, uint32_t *k) {
  static const char *const kws[] = {"items", "prefixItems", "additionalItems", "contains",
                                    "unevaluatedItems"};
  uint32_t owner = PD_JSON_NONE;
  for (size_t i = 0; i < c->n; i++)
    for (int w = 0; w < 5; w++)
      if (pd_sc_kw(sc, c, i, kws[w]) != PD_JSON_NONE) {
        if (w >= 3 || (owner != PD_JSON_NONE && owner != pd_sc_member(sc, c, i))) return false;
        owner = pd_sc_member(sc, c, i);
      }
  if (owner == PD_JSON_NONE) return false;
  uint32_t pre = pd_json_get(&sc->doc, owner, "prefixItems"),
           items = pd_json_get(&sc->doc, owner, "items");
  if (items != PD_JSON_NONE && pd_json_at(&sc->doc, items)->kind == PD_JSON_ARRAY) return false;
  *k = pre != PD_JSON_NONE && pd_json_at(&sc->doc, pre)->kind == PD_JSON_ARRAY
           ? pd_json_len(&sc->doc, pre)
           : 0;
  if (*k > 16) return false;
  *nv = 0;
  for (uint32_t i = 0; i <= *k; i++) {
    uint32_t s = i < *k ? pd_json_elem(&sc->doc, pre, i) : items, one[PD__UNIQUE_VALUES];
    size_t n;
    dom[i] = 0;
    if (i == *k && max != PD_IR_INF && max <= *k) break; /* the tail is never used */
    if (s == PD_JSON_NONE || !pd_sc_finite_values(sc, s, one, PD__UNIQUE_VALUES, &n)) return false;
    for (size_t j = 0; j < n; j++) {
      size_t at = 0;
      while (at < *nv && !pd_json_equal(&sc->doc, vals[at], one[j])) at++;
      if (at == *nv) {
        if (*nv >= PD__UNIQUE_VALUES) return false;
        vals[(*nv)++] = one[j];
      }
      dom[i] |= 1u << at;
    }
  }
  return true;
}

/* uniqueItems over finite element sets: the state is the set S of values
 * written (its size is the count, and picks the position's set):
 *   U(S) = "" (count fits) | sep v U(S + v)   for v in dom(|S|) \ S */
static pd_status pd__array_unique(pd_sc *sc, const pd_sc_conj *c, uint32_t depth, uint32_t min,
                                  uint32_t max, uint32_t *node, bool *ok) {
  pd_ir *ir = &sc->ir;
  uint32_t vals[PD__UNIQUE_VALUES], dom[17], k, lit[PD__UNIQUE_VALUES];
  size_t nv;
  *ok = pd__unique_domains(sc, c, max, vals, &nv, dom, &k);
  if (sc->ir.oom) return pd__nomem(sc->err);
  if (!*ok) return PD_OK;
  /* draft-04: an integral value as its digits alone, as its "integer" asks
   * (where the type also takes fractions, "1.0" is a false negative) */
  for (size_t v = 0; v < nv; v++)
    lit[v] = sc->int_no_frac && pd_sc_value_type(sc, vals[v]) == PD_SC_INT
                 ? pd_sc_number_literal(sc, vals[v], true)
                 : pd_sc_literal(sc, vals[v], depth + 1);
  uint32_t sep = pd_sc_item_sep(sc, depth, false), first = (uint32_t)ir->rules.len, full = 1u << nv;
  for (uint32_t S = 0; S < full; S++) pd_ir_rule_fresh(ir, "uq");
  for (uint32_t S = 0; S < full && !ir->oom; S++) {
    uint32_t n = pd_popcount32(S), d = dom[n < k ? n : k];
    uint32_t acc =
        S && n >= min && (max == PD_IR_INF || n <= max) ? pd_ir_empty(ir) : pd_ir_nothing(ir);
    for (uint32_t v = 0; v < nv && (max == PD_IR_INF || n < max); v++) {
      if (!(d >> v & 1) || (S >> v & 1)) continue;
      uint32_t next = pd_ir_ref(ir, first + (S | 1u << v));
      acc = pd_ir_alt2(
          ir, acc,
          S ? pd_ir_seq(ir, (uint32_t[]){sep, lit[v], next}, 3) : pd_ir_seq2(ir, lit[v], next));
    }
    pd_ir_rule_define(ir, first + S, acc);
  }
  uint32_t open = pd_ir_bytes(ir, "[", 1), close = pd_ir_bytes(ir, "]", 1);
  *node = pd_ir_seq(ir,
                    (uint32_t[]){open, pd_sc_open_ws(sc, depth, false), pd_ir_ref(ir, first),
                                 pd_sc_close_ws(sc, depth), close},
                    5);
  if (min == 0)
    *node = pd_ir_alt2(ir, *node, pd_ir_seq(ir, (uint32_t[]){open, pd_sc_empty_ws(sc), close}, 3));
  return pd_sc_ir_status(sc);
}

/* The distinct contains schemas of the conj (equal ones merged), each with
 * minContains (how many elements must match at least, default 1) and
 * maxContains (at most; PD_IR_INF: no bound, xat its keyword). A schema
 * nothing binds (minContains 0, no maximum) is left out. */
#define PD__CONTAINS_MAX 3u
typedef struct pd__cont {
  uint32_t n, cs[PD__CONTAINS_MAX], mc[PD__CONTAINS_MAX], xc[PD__CONTAINS_MAX],
      xat[PD__CONTAINS_MAX];
} pd__cont;

static pd_status pd__contains(pd_sc *sc, const pd_sc_conj *c, pd__cont *k) {
  pd_status st;
  k->n = 0;
  for (size_t i = 0; i < c->n; i++) {
    uint32_t x = pd_sc_kw(sc, c, i, "contains"), mn = pd_sc_kw(sc, c, i, "minContains"), v, j = 0;
    uint32_t mx = pd_sc_kw(sc, c, i, "maxContains");
    if (x == PD_JSON_NONE) continue;
    while (j < k->n && !pd_json_equal(&sc->doc, k->cs[j], x)) j++;
    if (j == k->n) {
      if (j == PD__CONTAINS_MAX) {
        if ((st = pd_sc_unsupported(sc, x, "contains", "more than 3 different contains")))
          return st;
        continue;
      }
      k->cs[j] = x, k->mc[j] = 0, k->xc[j] = PD_IR_INF, k->xat[j] = PD_JSON_NONE, k->n++;
    }
    /* every member's bounds hold: the largest minimum (1 where a member
     * gives none: a minContains 0 beside it binds nothing) */
    v = 1;
    if (mn != PD_JSON_NONE && !pd_sc_uint(sc, mn, &v))
      return pd_sc_fail(sc, PD_ERR_SEMANTIC, mn, "bad minContains");
    if (v > k->mc[j]) k->mc[j] = v;
    if (mx != PD_JSON_NONE) {
      if (!pd_sc_uint(sc, mx, &v)) return pd_sc_fail(sc, PD_ERR_SEMANTIC, mx, "bad maxContains");
      if (v < k->xc[j]) k->xc[j] = v, k->xat[j] = mx;
    }
  }
  for (uint32_t j = 0; j < k->n; j++)
    if (k->mc[j] == 0 && k->xc[j] == PD_IR_INF) { /* binds nothing */
      k->n--;
      k->cs[j] = k->cs[k->n], k->mc[j] = k->mc[k->n], k->xc[j] = k->xc[k->n];
      k->xat[j] = k->xat[k->n];
      j--;
    }
  return PD_OK;
}

/* With contains: R(n, j) after n elements of which j (capped at mc) match:
 *   R(n,j) = sep elem R(n+1,j) | sep match R(n+1,j+1) | "" (n >= min, j >= mc)
 * where match = elem AND contains; n is capped at max (or at min when
 * unbounded). With maxContains xc, j counts exactly (up to xc), elem is an
 * element NOT matching contains, and match needs j < xc. */
static pd_status pd__array_contains(pd_sc *sc, const pd_sc_conj *c, uint32_t depth, uint32_t cs,
                                    uint32_t mc, uint32_t xc, uint32_t xat, uint32_t min,
                                    uint32_t max, uint32_t *node) {
  pd_ir *ir = &sc->ir;
  uint32_t e, m, ncap = max != PD_IR_INF ? max : min > 1 ? min : 1;
  pd_status st;
  bool exact = xc != PD_IR_INF;
  e = PD_IR_NONE;
  if (exact && (st = pd__non_match(sc, c, depth, cs, xat, &e))) return st;
  if (e == PD_IR_NONE) { /* no maxContains (or dropped): count matches up to mc */
    exact = false;
    if ((st = pd__element(sc, c, 0, depth, PD_JSON_NONE, &e))) return st;
  }
  uint32_t C = exact ? xc : mc; /* counter states 0..C; saturating unless exact */
  if ((size_t)(ncap + 1) * (C + 1) > 100000 || C > sc->opts.max_repeat)
    return pd__fail(sc->err, PD_ERR_LIMIT, "contains: too many counter states");
  if ((st = pd__element(sc, c, 0, depth, cs, &m))) return st;
  uint32_t sep = pd_sc_item_sep(sc, depth, false); /* first: it may add the whitespace rules */
  uint32_t first = (uint32_t)ir->rules.len;
  for (uint32_t k = 0; k < (ncap + 1) * (C + 1); k++) pd_ir_rule_fresh(ir, "ac");
    /* the state after one more matching element from count j; NONE: not allowed */
#define PD__NEXT_J(j) ((j) < C ? (j) + 1 : exact ? PD_IR_NONE : C)
  for (uint32_t n = 0; n <= ncap && !ir->oom; n++)
    for (uint32_t j = 0; j <= C; j++) {
      uint32_t acc = n >= min && j >= mc ? pd_ir_empty(ir) : pd_ir_nothing(ir);
      uint32_t n2 = n + 1 > ncap ? ncap : n + 1, j2 = PD__NEXT_J(j);
      if (max == PD_IR_INF || n < max) {
        uint32_t a =
            pd_ir_seq(ir, (uint32_t[]){sep, e, pd_ir_ref(ir, first + n2 * (C + 1) + j)}, 3);
        uint32_t b =
            j2 == PD_IR_NONE
                ? pd_ir_nothing(ir)
                : pd_ir_seq(ir, (uint32_t[]){sep, m, pd_ir_ref(ir, first + n2 * (C + 1) + j2)}, 3);
        acc = pd_ir_alt(ir, (uint32_t[]){acc, a, b}, 3);
      }
      pd_ir_rule_define(ir, first + n * (C + 1) + j, acc);
    }
  uint32_t one = 1 > ncap ? ncap : 1, jm = PD__NEXT_J(0);
#undef PD__NEXT_J
  uint32_t start = pd_ir_seq2(ir, e, pd_ir_ref(ir, first + one * (C + 1)));
  if (jm != PD_IR_NONE)
    start = pd_ir_alt2(ir, start, pd_ir_seq2(ir, m, pd_ir_ref(ir, first + one * (C + 1) + jm)));
  if (max == 0) start = pd_ir_nothing(ir);
  uint32_t open = pd_ir_bytes(ir, "[", 1), close = pd_ir_bytes(ir, "]", 1);
  uint32_t ws_open = pd_sc_open_ws(sc, depth, false), ws_close = pd_sc_close_ws(sc, depth);
  *node = pd_ir_seq(ir, (uint32_t[]){open, ws_open, start, ws_close, close}, 5);
  if (min == 0 && mc == 0) /* minContains 0 (with maxContains): [] too */
    *node = pd_ir_alt2(ir, *node, pd_ir_seq(ir, (uint32_t[]){open, pd_sc_empty_ws(sc), close}, 3));
  return pd_sc_ir_status(sc);
}

/* Different contains schemas together (none with maxContains), a
 * saturating count j_s of matches per schema s, as pd__array_contains counts
 * one:
 *   R(n,j) = sep elem R(n+1,j) | sep match_S R(n+1,j+1_S) | "" (n >= min, each j_s >= mc_s)
 * for every nonempty set S of the schemas, match_S = elem AND each schema of
 * S (an element may count for several). j is numbered in mixed radix. */
static pd_status pd__array_contains_all(pd_sc *sc, const pd_sc_conj *c, uint32_t depth,
                                        const pd__cont *k, uint32_t min, uint32_t max,
                                        uint32_t *node) {
  pd_ir *ir = &sc->ir;
  uint32_t ncap = max != PD_IR_INF ? max : min > 1 ? min : 1, P = 1, radix[PD__CONTAINS_MAX];
  uint64_t states = (uint64_t)ncap + 1;
  for (uint32_t s = 0; s < k->n; s++) {
    radix[s] = P;
    P *= k->mc[s] + 1;
    if ((states *= (uint64_t)k->mc[s] + 1) > 100000) /* each factor is at least 1 */
      return pd__fail(sc->err, PD_ERR_LIMIT, "contains: too many counter states");
  }
  uint32_t e, m[1u << PD__CONTAINS_MAX], sub[PD__CONTAINS_MAX];
  pd_status st = pd__element(sc, c, 0, depth, PD_JSON_NONE, &e);
  uint32_t sets = 1u << k->n;
  for (uint32_t S = 1; S < sets && !st; S++) {
    size_t n_sub = 0;
    for (uint32_t s = 0; s < k->n; s++)
      if (S >> s & 1) sub[n_sub++] = k->cs[s];
    st = pd__element_n(sc, c, 0, depth, sub, n_sub, PD_SC_ALL, &m[S]);
  }
  if (st) return st;
  uint32_t sep = pd_sc_item_sep(sc, depth, false); /* first: it may add the whitespace rules */
  uint32_t first = (uint32_t)ir->rules.len;
  for (uint32_t x = 0; x < (ncap + 1) * P; x++) pd_ir_rule_fresh(ir, "ac");
  uint32_t alts[(1u << PD__CONTAINS_MAX) + 1]; /* the end, then one per set and elem */
  for (uint32_t n = 0; n <= ncap && !ir->oom; n++)
    for (uint32_t j = 0; j < P; j++) {
      uint32_t n2 = n + 1 > ncap ? ncap : n + 1, n_alts = 0;
      bool done = n >= min;
      for (uint32_t s = 0; s < k->n; s++) done = done && j / radix[s] % (k->mc[s] + 1) >= k->mc[s];
      alts[n_alts++] = done ? pd_ir_empty(ir) : pd_ir_nothing(ir);
      for (uint32_t S = 0; S < sets && (max == PD_IR_INF || n < max); S++) {
        uint32_t j2 = j; /* one more match of each schema of S, saturating */
        for (uint32_t s = 0; s < k->n; s++)
          if (S >> s & 1 && j / radix[s] % (k->mc[s] + 1) < k->mc[s]) j2 += radix[s];
        uint32_t x = S ? m[S] : e, to = pd_ir_ref(ir, first + n2 * P + j2);
        alts[n_alts++] = n ? pd_ir_seq(ir, (uint32_t[]){sep, x, to}, 3) : pd_ir_seq2(ir, x, to);
      }
      pd_ir_rule_define(ir, first + n * P + j, pd_ir_alt(ir, alts, n_alts));
    }
  /* R(0,0) takes the first element without a separator; every count is at
   * least 1, so the empty array is never one */
  uint32_t open = pd_ir_bytes(ir, "[", 1), close = pd_ir_bytes(ir, "]", 1);
  *node = pd_ir_seq(ir,
                    (uint32_t[]){open, pd_sc_open_ws(sc, depth, false), pd_ir_ref(ir, first),
                                 pd_sc_close_ws(sc, depth), close},
                    5);
  return pd_sc_ir_status(sc);
}

/* array = "[" [ elem ( sep elem )* ] "]" with min..max elements, element i
 * from position-specific schemas up to the prefix length k, then the tail.
 * Each element of the prefix nests its rest one level deeper, so every
 * PD__PREFIX_CHUNK elements the rest becomes a rule of its own. */
#define PD__PREFIX_CHUNK 256u
pd_status pd_sc_array(pd_sc *sc, const pd_sc_conj *c, uint32_t depth, uint32_t *node) {
  pd_ir *ir = &sc->ir;
  uint32_t min, max, k = pd__prefix_len(sc, c), tail, rest;
  pd_status st;
  if ((st = pd_sc_bound(sc, c, "minItems", false, &min)) ||
      (st = pd_sc_bound(sc, c, "maxItems", true, &max)))
    return st;
  uint32_t u = pd__unique(sc, c, max);
  if (u != PD_JSON_NONE) {
    bool ok;
    if ((st = pd__array_unique(sc, c, depth, min, max, node, &ok)) || ok) return st;
    if ((st = pd_sc_unsupported(sc, u, "uniqueItems", "unique elements not from finite sets")))
      return st;
  }
  if (min > sc->opts.max_repeat || (max != PD_IR_INF && max > sc->opts.max_repeat) ||
      k > sc->opts.max_repeat)
    return pd__fail(sc->err, PD_ERR_LIMIT, "array bound over max_repeat (%u)", sc->opts.max_repeat);
  if (max != PD_IR_INF && k > max) k = max;
  pd__cont ct;
  if ((st = pd__contains(sc, c, &ct))) return st;
  if (ct.n && k) {
    if ((st = pd_sc_unsupported(sc, ct.cs[0], "contains", "contains with prefixItems"))) return st;
  } else if (ct.n == 1) {
    return pd__array_contains(sc, c, depth, ct.cs[0], ct.mc[0], ct.xc[0], ct.xat[0], min, max, node);
  } else if (ct.n) {
    for (uint32_t j = 0; j < ct.n; j++)
      if (ct.xc[j] != PD_IR_INF &&
          (st = pd_sc_unsupported(sc, ct.xat[j], "maxContains", "beside another contains")))
        return st;
    return pd__array_contains_all(sc, c, depth, &ct, min, max, node);
  }
  if ((st = pd__element(sc, c, k, depth, PD_JSON_NONE, &tail))) return st;
  uint32_t sep = pd_sc_item_sep(sc, depth, false);
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
    if (i % PD__PREFIX_CHUNK == 0 && i > 0) { /* a rule: its reference nests no deeper */
      uint32_t r = pd_ir_rule_fresh(ir, "pre");
      pd_ir_rule_define(ir, r, rest);
      rest = pd_ir_ref(ir, r);
    }
  }
  uint32_t open = pd_ir_bytes(ir, "[", 1), close = pd_ir_bytes(ir, "]", 1);
  uint32_t ws_open = pd_sc_open_ws(sc, depth, false), ws_close = pd_sc_close_ws(sc, depth);
  uint32_t full = pd_ir_seq(ir, (uint32_t[]){open, ws_open, first, ws_close, close}, 5);
  if (min == 0)
    full = pd_ir_alt2(ir, full, pd_ir_seq(ir, (uint32_t[]){open, pd_sc_empty_ws(sc), close}, 3));
  *node = full;
  return pd_sc_ir_status(sc);
}
