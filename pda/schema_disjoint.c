/* schema_disjoint.c - what two schemas can share: the proofs that no instance
 * of a type satisfies both (for oneOf, which is anyOf only when its branches
 * are disjoint), and what they build on: the types a schema can accept, its
 * finite value set, the schemas it implies, whether it takes a whole type.
 * Every test is sound and none is complete: a pair not proven disjoint goes
 * to the other constructions of schema.c, or is refused. */
#include <string.h>

#include "base/error.h"
#include "pda/schema_ctx.h"

/* The types a schema can possibly accept, from its type / const / enum, those
 * of its allOf members and $ref target, and the union of its anyOf / oneOf
 * branches' (a sound over-approximation). *steps bounds the schemas visited. */
static uint32_t pd__types_in(pd_sc *sc, uint32_t s, int budget, int *steps) {
  const pd_json_node *n = pd_json_at(&sc->doc, s);
  if (n->kind == PD_JSON_FALSE) return 0;
  if (n->kind != PD_JSON_OBJECT || budget <= 0 || --*steps < 0) return PD_SC_ALL;
  uint32_t mask = PD_SC_ALL, t, v, target, m;
  if ((t = pd_sc_alone(sc, s)) != s) return pd__types_in(sc, t, budget - 1, steps);
  if ((t = pd_json_get(&sc->doc, s, "type")) != PD_JSON_NONE && pd_sc_type_mask_quiet(sc, t, &m))
    mask &= m;
  if ((v = pd_json_get(&sc->doc, s, "const")) != PD_JSON_NONE) mask &= pd_sc_value_type(sc, v);
  if ((v = pd_json_get(&sc->doc, s, "enum")) != PD_JSON_NONE &&
      pd_json_at(&sc->doc, v)->kind == PD_JSON_ARRAY) {
    uint32_t m = 0;
    for (uint32_t i = 0; i < pd_json_len(&sc->doc, v); i++)
      m |= pd_sc_value_type(sc, pd_json_elem(&sc->doc, v, i));
    mask &= m;
  }
  if ((v = pd_json_get(&sc->doc, s, "allOf")) != PD_JSON_NONE &&
      pd_json_at(&sc->doc, v)->kind == PD_JSON_ARRAY)
    for (uint32_t i = 0; i < pd_json_len(&sc->doc, v); i++)
      mask &= pd__types_in(sc, pd_json_elem(&sc->doc, v, i), budget - 1, steps);
  if ((v = pd_json_get(&sc->doc, s, "$ref")) != PD_JSON_NONE &&
      pd_sc_ref_quiet(sc, s, v, false, &target))
    mask &= pd__types_in(sc, target, budget - 1, steps);
  static const char *const unions[] = {"anyOf", "oneOf"};
  for (int k = 0; k < 2; k++) {
    if ((v = pd_json_get(&sc->doc, s, unions[k])) == PD_JSON_NONE ||
        pd_json_at(&sc->doc, v)->kind != PD_JSON_ARRAY)
      continue;
    uint32_t any = 0;
    for (uint32_t i = 0; i < pd_json_len(&sc->doc, v) && any != PD_SC_ALL; i++)
      any |= pd__types_in(sc, pd_json_elem(&sc->doc, v, i), budget - 1, steps);
    mask &= any;
  }
  return mask;
}

/* The same, at most 8 levels deep and 256 schemas visited (unions branch:
 * past that, every type). */
static uint32_t pd__possible_types(pd_sc *sc, uint32_t s, int budget) {
  int steps = 256;
  return pd__types_in(sc, s, budget, &steps);
}

/* Finite set of values a schema allows (const or enum), or PD_JSON_NONE. */
uint32_t pd_sc_values(pd_sc *sc, uint32_t s, bool *single) {
  uint32_t v;
  s = pd_sc_alone(sc, s);
  if (pd_json_at(&sc->doc, s)->kind != PD_JSON_OBJECT) return PD_JSON_NONE;
  if ((v = pd_json_get(&sc->doc, s, "const")) != PD_JSON_NONE) {
    *single = true;
    return v;
  }
  *single = false;
  v = pd_json_get(&sc->doc, s, "enum");
  return v != PD_JSON_NONE && pd_json_at(&sc->doc, v)->kind == PD_JSON_ARRAY ? v : PD_JSON_NONE;
}

bool pd_sc_in_values(pd_sc *sc, uint32_t vals, bool single, uint32_t x) {
  if (single) return pd_json_equal(&sc->doc, vals, x);
  for (uint32_t i = 0; i < pd_json_len(&sc->doc, vals); i++)
    if (pd_json_equal(&sc->doc, pd_json_elem(&sc->doc, vals, i), x)) return true;
  return false;
}

/* Two const/enum value sets have no common value. */
static bool pd__values_disjoint(pd_sc *sc, uint32_t a, bool sa, uint32_t b, bool sb) {
  uint32_t n = sa ? 1 : pd_json_len(&sc->doc, a);
  for (uint32_t i = 0; i < n; i++)
    if (pd_sc_in_values(sc, b, sb, sa ? a : pd_json_elem(&sc->doc, a, i))) return false;
  return true;
}

static bool pd__requires(pd_sc *sc, uint32_t s, uint32_t key) {
  uint32_t r = pd_json_get(&sc->doc, s, "required");
  if (r == PD_JSON_NONE || pd_json_at(&sc->doc, r)->kind != PD_JSON_ARRAY) return false;
  for (uint32_t i = 0; i < pd_json_len(&sc->doc, r); i++)
    if (pd_json_equal(&sc->doc, pd_json_elem(&sc->doc, r, i), key)) return true;
  return false;
}

/* Object schema a rules key out (*yes): properties[key] is false, or a is
 * closed (additionalProperties false) without declaring key, and none of its
 * patternProperties matches key (each decided by its automaton; an undecided
 * one proves nothing). */
static pd_status pd__forbids(pd_sc *sc, uint32_t a, uint32_t key, bool *yes) {
  uint32_t props = pd_json_get(&sc->doc, a, "properties"), v = PD_JSON_NONE;
  *yes = false;
  if (props != PD_JSON_NONE && pd_json_at(&sc->doc, props)->kind == PD_JSON_OBJECT)
    for (uint32_t i = 0; i < pd_json_len(&sc->doc, props); i++)
      if (pd_json_equal(&sc->doc, pd_json_mkey(&sc->doc, props, i), key))
        v = pd_json_mval(&sc->doc, props, i);
  if (v != PD_JSON_NONE) return *yes = pd_json_at(&sc->doc, v)->kind == PD_JSON_FALSE, PD_OK;
  uint32_t add = pd_json_get(&sc->doc, a, "additionalProperties");
  if (add == PD_JSON_NONE || pd_json_at(&sc->doc, add)->kind != PD_JSON_FALSE) return PD_OK;
  uint32_t pp = pd_json_get(&sc->doc, a, "patternProperties");
  if (pp != PD_JSON_NONE && pd_json_at(&sc->doc, pp)->kind != PD_JSON_OBJECT) return PD_OK;
  for (uint32_t i = 0; pp != PD_JSON_NONE && i < pd_json_len(&sc->doc, pp); i++) {
    bool known, match;
    pd_status st = pd_sc_string_meets(sc, "pattern", pd_json_mkey(&sc->doc, pp, i),
                                      pd_json_str(&sc->doc, key), pd_json_at(&sc->doc, key)->n,
                                      &known, &match);
    if (st || !known || match) return st;
  }
  *yes = true;
  return PD_OK;
}

/* Whether a and b are closed objects (additionalProperties false, no
 * patternProperties) that name no property in common (each name one of them
 * declares the other forbids): their only common instance can be {}. */
pd_status pd_sc_closed_apart(pd_sc *sc, uint32_t a, uint32_t b, bool *yes) {
  uint32_t s[2] = {pd_sc_alone(sc, a), pd_sc_alone(sc, b)};
  *yes = false;
  for (int k = 0; k < 2; k++) {
    if (pd_json_at(&sc->doc, s[k])->kind != PD_JSON_OBJECT) return PD_OK;
    uint32_t add = pd_json_get(&sc->doc, s[k], "additionalProperties");
    if (add == PD_JSON_NONE || pd_json_at(&sc->doc, add)->kind != PD_JSON_FALSE ||
        pd_json_get(&sc->doc, s[k], "patternProperties") != PD_JSON_NONE)
      return PD_OK;
  }
  for (int k = 0; k < 2; k++) {
    uint32_t props = pd_json_get(&sc->doc, s[k], "properties");
    if (props == PD_JSON_NONE) continue;
    if (pd_json_at(&sc->doc, props)->kind != PD_JSON_OBJECT) return PD_OK;
    for (uint32_t i = 0; i < pd_json_len(&sc->doc, props); i++) {
      bool gone;
      if (pd_json_at(&sc->doc, pd_json_mval(&sc->doc, props, i))->kind == PD_JSON_FALSE) continue;
      pd_status st = pd__forbids(sc, s[1 - k], pd_json_mkey(&sc->doc, props, i), &gone);
      if (st || !gone) return st;
    }
  }
  *yes = true;
  return PD_OK;
}

pd_sc_verdict pd_sc_takes_empty_object(pd_sc *sc, uint32_t s) {
  /* the keywords that hold for {} whatever their values (required and
   * minProperties: when empty or zero) */
  static const char *const vacuous[] = {
      "type",          "properties",        "additionalProperties", "patternProperties",
      "maxProperties", "propertyNames",     "dependentRequired",    "dependentSchemas",
      "dependencies",  "unevaluatedProperties", "required",         "minProperties"};
  s = pd_sc_alone(sc, s);
  const pd_json_node *n = pd_json_at(&sc->doc, s);
  if (n->kind == PD_JSON_TRUE || n->kind == PD_JSON_FALSE)
    return n->kind == PD_JSON_TRUE ? PD_SC_YES : PD_SC_NO;
  if (n->kind != PD_JSON_OBJECT) return PD_SC_UNKNOWN;
  uint32_t t = pd_json_get(&sc->doc, s, "type"), mask;
  if (t != PD_JSON_NONE) {
    if (!pd_sc_type_mask_quiet(sc, t, &mask)) return PD_SC_UNKNOWN;
    if (!(mask & PD_SC_OBJ)) return PD_SC_NO;
  }
  uint32_t r = pd_json_get(&sc->doc, s, "required");
  if (r != PD_JSON_NONE) {
    if (pd_json_at(&sc->doc, r)->kind != PD_JSON_ARRAY) return PD_SC_UNKNOWN;
    if (pd_json_len(&sc->doc, r)) return PD_SC_NO;
  }
  uint32_t m = pd_json_get(&sc->doc, s, "minProperties"), v;
  if (m != PD_JSON_NONE) {
    if (!pd_sc_uint(sc, m, &v)) return PD_SC_UNKNOWN;
    if (v) return PD_SC_NO;
  }
  for (uint32_t i = 0; i < pd_json_len(&sc->doc, s); i++) {
    const char *k = pd_json_str(&sc->doc, pd_json_mkey(&sc->doc, s, i));
    if (!pd_sc_kw_asserts(k) || !(pd_sc_kw_constrains(k) & PD_SC_OBJ)) continue;
    bool ok = false;
    for (size_t j = 0; j < sizeof vacuous / sizeof *vacuous && !ok; j++) ok = !strcmp(vacuous[j], k);
    if (!ok) return PD_SC_UNKNOWN;
  }
  return PD_SC_YES;
}

/* Some key b requires is one a forbids (*yes). */
static pd_status pd__required_forbidden(pd_sc *sc, uint32_t a, uint32_t b, bool *yes) {
  uint32_t r = pd_json_get(&sc->doc, b, "required");
  *yes = false;
  if (r == PD_JSON_NONE || pd_json_at(&sc->doc, r)->kind != PD_JSON_ARRAY) return PD_OK;
  for (uint32_t i = 0; i < pd_json_len(&sc->doc, r) && !*yes; i++) {
    if (pd_json_at(&sc->doc, pd_json_elem(&sc->doc, r, i))->kind != PD_JSON_STRING) continue;
    pd_status st = pd__forbids(sc, a, pd_json_elem(&sc->doc, r, i), yes);
    if (st) return st;
  }
  return PD_OK;
}

/* The schema objects a schema implies (itself, its $ref target and allOf
 * members, transitively): it accepts no more than any of them. */
static size_t pd__conjuncts(pd_sc *sc, uint32_t s, uint32_t *out, size_t n, size_t cap) {
  s = pd_sc_alone(sc, s);
  if (n >= cap || pd_json_at(&sc->doc, s)->kind != PD_JSON_OBJECT) return n;
  for (size_t i = 0; i < n; i++)
    if (out[i] == s) return n;
  out[n++] = s;
  uint32_t ref = pd_json_get(&sc->doc, s, "$ref"), all = pd_json_get(&sc->doc, s, "allOf"), t;
  if (ref != PD_JSON_NONE && pd_sc_ref_quiet(sc, s, ref, false, &t))
    n = pd__conjuncts(sc, t, out, n, cap);
  if (all != PD_JSON_NONE && pd_json_at(&sc->doc, all)->kind == PD_JSON_ARRAY)
    for (uint32_t i = 0; i < pd_json_len(&sc->doc, all); i++)
      n = pd__conjuncts(sc, pd_json_elem(&sc->doc, all, i), out, n, cap);
  return n;
}

/* The finite value set some conjunct of schema v gives (a property's value:
 * the set bounds it whatever else holds), or NONE. */
static uint32_t pd__some_values(pd_sc *sc, uint32_t v, bool *single) {
  uint32_t cv[16], x;
  size_t n = pd__conjuncts(sc, v, cv, 0, 16);
  for (size_t i = 0; i < n; i++)
    if ((x = pd_sc_values(sc, cv[i], single)) != PD_JSON_NONE) return x;
  return PD_JSON_NONE;
}

static bool pd__some_requires(pd_sc *sc, const uint32_t *s, size_t n, uint32_t key) {
  for (size_t i = 0; i < n; i++)
    if (pd__requires(sc, s[i], key)) return true;
  return false;
}

/* A tagged union (the "discriminator"): some conjunct of a and some of b
 * give property key disjoint finite value sets, and a, b or the context (the
 * conjuncts of the schema around the oneOf) requires key. An object of both
 * then holds key, whose value no set shares. */
static bool pd__tagged(pd_sc *sc, const uint32_t *ca, size_t na, const uint32_t *cb, size_t nb,
                       const uint32_t *cx, size_t nx) {
  for (size_t i = 0; i < na; i++) {
    uint32_t pa = pd_json_get(&sc->doc, ca[i], "properties");
    if (pa == PD_JSON_NONE || pd_json_at(&sc->doc, pa)->kind != PD_JSON_OBJECT) continue;
    for (uint32_t k = 0; k < pd_json_len(&sc->doc, pa); k++) {
      uint32_t key = pd_json_mkey(&sc->doc, pa, k), xa, xb;
      bool sa, sb;
      if (pd_json_at(&sc->doc, key)->n != strlen(pd_json_str(&sc->doc, key)) ||
          (xa = pd__some_values(sc, pd_json_mval(&sc->doc, pa, k), &sa)) == PD_JSON_NONE)
        continue;
      if (!pd__some_requires(sc, ca, na, key) && !pd__some_requires(sc, cb, nb, key) &&
          !pd__some_requires(sc, cx, nx, key))
        continue;
      for (size_t j = 0; j < nb; j++) {
        uint32_t pb = pd_json_get(&sc->doc, cb[j], "properties"), vb;
        if (pb == PD_JSON_NONE || pd_json_at(&sc->doc, pb)->kind != PD_JSON_OBJECT ||
            (vb = pd_json_get(&sc->doc, pb, pd_json_str(&sc->doc, key))) == PD_JSON_NONE ||
            (xb = pd__some_values(sc, vb, &sb)) == PD_JSON_NONE)
          continue;
        if (pd__values_disjoint(sc, xa, sa, xb, sb)) return true;
      }
    }
  }
  return false;
}

/* A finite value set and a schema whose strings all match a pattern (or a
 * format's regex) share no string: each string value fails it. */
static pd_status pd__values_miss(pd_sc *sc, uint32_t vals, bool single, uint32_t b, bool *miss) {
  static const char *const kws[] = {"pattern", "format"};
  *miss = false;
  for (int k = 0; k < 2 && !*miss; k++) {
    uint32_t x = pd_json_get(&sc->doc, b, kws[k]);
    if (x == PD_JSON_NONE) continue;
    bool all_fail = true;
    uint32_t n = single ? 1 : pd_json_len(&sc->doc, vals);
    for (uint32_t i = 0; i < n && all_fail; i++) {
      uint32_t v = single ? vals : pd_json_elem(&sc->doc, vals, i);
      if (pd_json_at(&sc->doc, v)->kind != PD_JSON_STRING) continue;
      bool known, match;
      pd_status st = pd_sc_string_meets(sc, kws[k], x, pd_json_str(&sc->doc, v),
                                        pd_json_at(&sc->doc, v)->n, &known, &match);
      if (st) return st;
      all_fail = known && !match;
    }
    *miss = all_fail;
  }
  return PD_OK;
}

/* No string satisfies both a and b: a's values miss b's pattern (or format)
 * or the other way round, or no string matches both patterns. */
static pd_status pd__strings_disjoint(pd_sc *sc, uint32_t a, uint32_t b, bool *yes) {
  bool sa, sb;
  uint32_t xa = pd_sc_values(sc, a, &sa), xb = pd_sc_values(sc, b, &sb);
  pd_status st = PD_OK;
  *yes = false;
  if (xa != PD_JSON_NONE) st = pd__values_miss(sc, xa, sa, b, yes);
  if (!st && !*yes && xb != PD_JSON_NONE) st = pd__values_miss(sc, xb, sb, a, yes);
  uint32_t pa = pd_json_get(&sc->doc, a, "pattern"), pb = pd_json_get(&sc->doc, b, "pattern");
  if (!st && !*yes && pa != PD_JSON_NONE && pb != PD_JSON_NONE) {
    bool known, meet;
    st = pd_sc_patterns_meet(sc, pa, pb, &known, &meet);
    *yes = known && !meet;
  }
  return st;
}

/* The number of distinct names s requires: an object of s has that many
 * members at least. */
static uint64_t pd__required_names(pd_sc *sc, uint32_t s) {
  uint32_t r = pd_json_get(&sc->doc, s, "required");
  if (r == PD_JSON_NONE || pd_json_at(&sc->doc, r)->kind != PD_JSON_ARRAY) return 0;
  uint64_t n = 0;
  for (uint32_t i = 0; i < pd_json_len(&sc->doc, r); i++) {
    uint32_t x = pd_json_elem(&sc->doc, r, i), j = 0;
    while (j < i && !pd_json_equal(&sc->doc, pd_json_elem(&sc->doc, r, j), x)) j++;
    n += j == i && pd_json_at(&sc->doc, x)->kind == PD_JSON_STRING;
  }
  return n;
}

/* The count or length range of schema object s from keywords lo_kw, hi_kw
 * (and for members, the names it requires). */
static void pd__count_range(pd_sc *sc, uint32_t s, const char *lo_kw, const char *hi_kw,
                            uint64_t *lo, uint64_t *hi) {
  uint32_t v, x;
  *lo = 0, *hi = UINT64_MAX;
  if ((v = pd_json_get(&sc->doc, s, lo_kw)) != PD_JSON_NONE && pd_sc_uint(sc, v, &x)) *lo = x;
  if ((v = pd_json_get(&sc->doc, s, hi_kw)) != PD_JSON_NONE && pd_sc_uint(sc, v, &x)) *hi = x;
  if (!strcmp(lo_kw, "minProperties")) {
    uint64_t r = pd__required_names(sc, s);
    if (r > *lo) *lo = r;
  }
}

static bool pd__counts_apart(pd_sc *sc, uint32_t a, uint32_t b, const char *lo_kw,
                             const char *hi_kw) {
  uint64_t la, ha, lb, hb;
  pd__count_range(sc, a, lo_kw, hi_kw, &la, &ha);
  pd__count_range(sc, b, lo_kw, hi_kw, &lb, &hb);
  return ha < lb || hb < la;
}

/* Every number a accepts lies below every number b accepts: an upper bound of
 * a under a lower bound of b (equal ones when either is exclusive). A draft-04
 * boolean exclusiveMaximum leaves its maximum read as inclusive: sound. */
static bool pd__numbers_below(pd_sc *sc, uint32_t a, uint32_t b) {
  static const char *const up[2] = {"maximum", "exclusiveMaximum"};
  static const char *const low[2] = {"minimum", "exclusiveMinimum"};
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) {
      uint32_t u = pd_json_get(&sc->doc, a, up[i]), l = pd_json_get(&sc->doc, b, low[j]);
      if (u == PD_JSON_NONE || l == PD_JSON_NONE || pd_json_at(&sc->doc, u)->kind != PD_JSON_NUMBER ||
          pd_json_at(&sc->doc, l)->kind != PD_JSON_NUMBER)
        continue;
      int c = pd_sc_value_cmp(sc, u, l);
      if (c < 0 || (c == 0 && (i || j))) return true;
    }
  return false;
}

/* b is {"not": X, ...} and every value of a's set satisfies X (X being only
 * a const/enum, and a type, after its $ref): b takes none of them. */
static bool pd__values_negated(pd_sc *sc, uint32_t vals, bool single, uint32_t b) {
  static const char *const only[] = {"enum", "const", "type", NULL};
  uint32_t x = pd_json_get(&sc->doc, b, "not"), ref, t;
  for (int hops = 0; x != PD_JSON_NONE && hops < 8; hops++) {
    if (pd_json_at(&sc->doc, x)->kind != PD_JSON_OBJECT ||
        (ref = pd_json_get(&sc->doc, x, "$ref")) == PD_JSON_NONE || pd_json_len(&sc->doc, x) != 1)
      break;
    x = pd_sc_ref_quiet(sc, x, ref, false, &t) ? t : PD_JSON_NONE;
  }
  bool sx;
  uint32_t xv;
  if (x == PD_JSON_NONE || pd_json_at(&sc->doc, x)->kind != PD_JSON_OBJECT ||
      !pd_sc_only_keys(sc, x, only) || (xv = pd_sc_values(sc, x, &sx)) == PD_JSON_NONE ||
      (pd_json_get(&sc->doc, x, "const") != PD_JSON_NONE &&
       pd_json_get(&sc->doc, x, "enum") != PD_JSON_NONE)) /* both: a value must be in each */
    return false;
  uint32_t n = single ? 1 : pd_json_len(&sc->doc, vals), types = pd__possible_types(sc, x, 8);
  for (uint32_t i = 0; i < n; i++) {
    uint32_t v = single ? vals : pd_json_elem(&sc->doc, vals, i);
    if (!(pd_sc_value_type(sc, v) & types) || !pd_sc_in_values(sc, xv, sx, v)) return false;
  }
  return true;
}

/* The types of common for which two schema objects share no instance. */
static pd_status pd__basic_disjoint(pd_sc *sc, uint32_t a, uint32_t b, uint32_t common,
                                    uint32_t *proved) {
  bool sa, sb, yes;
  uint32_t xa = pd_sc_values(sc, a, &sa), xb = pd_sc_values(sc, b, &sb);
  *proved = 0;
  if ((xa != PD_JSON_NONE && xb != PD_JSON_NONE && pd__values_disjoint(sc, xa, sa, xb, sb)) ||
      (xa != PD_JSON_NONE && pd__values_negated(sc, xa, sa, b)) ||
      (xb != PD_JSON_NONE && pd__values_negated(sc, xb, sb, a))) {
    *proved = common;
    return PD_OK;
  }
  if (pd__counts_apart(sc, a, b, "minLength", "maxLength")) *proved |= PD_SC_STR;
  if (pd__counts_apart(sc, a, b, "minItems", "maxItems")) *proved |= PD_SC_ARR;
  if (pd__counts_apart(sc, a, b, "minProperties", "maxProperties")) *proved |= PD_SC_OBJ;
  if (pd__numbers_below(sc, a, b) || pd__numbers_below(sc, b, a)) *proved |= PD_SC_NUM;
  *proved &= common;
  pd_status st;
  if ((common & PD_SC_OBJ) && !(*proved & PD_SC_OBJ)) {
    if ((st = pd__required_forbidden(sc, a, b, &yes)) ||
        (!yes && (st = pd__required_forbidden(sc, b, a, &yes))))
      return st;
    if (yes) *proved |= PD_SC_OBJ;
  }
  if (!(common & PD_SC_STR)) return PD_OK;
  st = pd__strings_disjoint(sc, a, b, &yes);
  if (yes) *proved |= PD_SC_STR;
  return st;
}

#define PD__CONJ_MAX 32 /* implied schemas per side */
#define PD__SPLITS 4     /* anyOf / oneOf splits on a path, both sides together */

/* A branch of a side's anyOf / oneOf, with the side's other schemas, and the
 * unions split on the way there (each is split once). */
typedef struct pd__side {
  uint32_t s[PD__CONJ_MAX], split[PD__SPLITS];
  size_t n, n_split;
} pd__side;

static bool pd__was_split(const pd__side *a, uint32_t arr) {
  for (size_t i = 0; i < a->n_split; i++)
    if (a->split[i] == arr) return true;
  return false;
}

static pd_status pd__sides_disjoint(pd_sc *sc, const pd__side *a, const pd__side *b,
                                    uint32_t common, const uint32_t *cx, size_t nx, int depth,
                                    int *steps, uint32_t *proved);

/* A side implied by the union of the branches of one of its schemas' anyOf or
 * oneOf is disjoint from the other where every branch (with the side's other
 * schemas) is: *proved = the types of common proven so. */
static pd_status pd__split(pd_sc *sc, const pd__side *a, const pd__side *b, uint32_t common,
                           const uint32_t *cx, size_t nx, int depth, int *steps, bool swap,
                           uint32_t *proved) {
  static const char *const unions[] = {"anyOf", "oneOf"};
  *proved = 0;
  for (size_t i = 0; i < a->n; i++)
    for (int k = 0; k < 2; k++) {
      uint32_t arr = pd_json_get(&sc->doc, a->s[i], unions[k]), all = common;
      if (arr == PD_JSON_NONE || pd_json_at(&sc->doc, arr)->kind != PD_JSON_ARRAY ||
          pd__was_split(a, arr) || a->n_split == PD__SPLITS)
        continue;
      for (uint32_t j = 0; j < pd_json_len(&sc->doc, arr) && all; j++) {
        uint32_t br = pd_sc_alone(sc, pd_json_elem(&sc->doc, arr, j)), one = 0;
        uint32_t open = common & pd__possible_types(sc, br, 8);
        if (!open) continue; /* the branch takes none of those types */
        pd__side a2 = *a;
        a2.split[a2.n_split++] = arr;
        a2.n = pd__conjuncts(sc, br, a2.s, a2.n, PD__CONJ_MAX);
        pd_status st = pd__sides_disjoint(sc, swap ? b : &a2, swap ? &a2 : b, open, cx, nx,
                                          depth - 1, steps, &one);
        if (st) return st;
        all &= ~open | one;
      }
      *proved |= all;
    }
  return PD_OK;
}

/* *proved = the types of common for which no instance satisfies every schema
 * of side a and every schema of side b. */
static pd_status pd__sides_disjoint(pd_sc *sc, const pd__side *a, const pd__side *b,
                                    uint32_t common, const uint32_t *cx, size_t nx, int depth,
                                    int *steps, uint32_t *proved) {
  *proved = 0;
  if (--*steps < 0) return PD_OK;
  for (size_t i = 0; i < a->n && (*proved & common) != common; i++)
    for (size_t j = 0; j < b->n && (*proved & common) != common; j++) {
      uint32_t one;
      pd_status st = pd__basic_disjoint(sc, a->s[i], b->s[j], common, &one);
      if (st) return st;
      *proved |= one;
    }
  if ((common & PD_SC_OBJ) && !(*proved & PD_SC_OBJ) &&
      pd__tagged(sc, a->s, a->n, b->s, b->n, cx, nx))
    *proved |= PD_SC_OBJ;
  for (int side = 0; side < 2 && depth > 0 && (*proved & common) != common; side++) {
    uint32_t one;
    pd_status st = pd__split(sc, side ? b : a, side ? a : b, common & ~*proved, cx, nx, depth,
                             steps, side, &one);
    if (st) return st;
    *proved |= one;
  }
  *proved &= common;
  return PD_OK;
}

/* *proved = the types, of types, no instance of which satisfies both branch
 * schemas a and b (sound tests only: types, const/enum values, discriminating
 * properties, a required key the other forbids, member counts, string values
 * or patterns that miss each other; each on any pair of implied schemas, and
 * through the branches of an implied anyOf / oneOf, PD__SPLITS deep). */
pd_status pd_sc_disjoint(pd_sc *sc, uint32_t a, uint32_t b, uint32_t types, const uint32_t *ctx,
                         size_t n_ctx, uint32_t *proved) {
  a = pd_sc_alone(sc, a), b = pd_sc_alone(sc, b);
  uint32_t common = pd__possible_types(sc, a, 8) & pd__possible_types(sc, b, 8) & types, one;
  *proved = types & ~common;
  if (!common) return PD_OK;
  pd__side sa = {.n_split = 0}, sb = {.n_split = 0};
  uint32_t cx[16];
  size_t nx = 0;
  sa.n = pd__conjuncts(sc, a, sa.s, 0, PD__CONJ_MAX);
  sb.n = pd__conjuncts(sc, b, sb.s, 0, PD__CONJ_MAX);
  if (common & PD_SC_OBJ)
    for (size_t k = 0; k < n_ctx; k++) nx = pd__conjuncts(sc, ctx[k], cx, nx, 16);
  int steps = 256;
  pd_status st = pd__sides_disjoint(sc, &sa, &sb, common, cx, nx, PD__SPLITS, &steps, &one);
  *proved |= one;
  return st;
}

/* Whether schema object s, its $ref and allOf aside, accepts every instance
 * of type t (one type bit): no keyword of it constrains t, and its "type"
 * admits t. */
static bool pd__local_accepts_all(pd_sc *sc, uint32_t s, uint32_t t) {
  const pd_json_node *n = pd_json_at(&sc->doc, s);
  if (n->kind == PD_JSON_TRUE) return true;
  if (n->kind != PD_JSON_OBJECT) return false;
  if (t == PD_SC_OBJ && pd_sc_strict_closes(sc, s)) return false; /* {} alone */
  for (uint32_t k = 0; k < n->n; k++) {
    const char *name = pd_json_str(&sc->doc, pd_json_mkey(&sc->doc, s, k));
    if (!pd_sc_kw_asserts(name) || !strcmp(name, "$ref") || !strcmp(name, "allOf")) continue;
    uint32_t m;
    if (strcmp(name, "type") == 0) {
      if (!pd_sc_type_mask_quiet(sc, pd_json_mval(&sc->doc, s, k), &m) || !(m & t)) return false;
    } else if (pd_sc_kw_constrains(name) & t) {
      return false;
    }
  }
  return true;
}

/* Whether schema s accepts every instance of type t: it and every schema it
 * implies ($ref target, allOf members) do. */
bool pd_sc_accepts_all(pd_sc *sc, uint32_t s, uint32_t t) {
  s = pd_sc_alone(sc, s);
  if (pd_json_at(&sc->doc, s)->kind == PD_JSON_TRUE) return true;
  uint32_t cs[16];
  size_t n = pd__conjuncts(sc, s, cs, 0, 16);
  if (n == 0 || n == 16) return false; /* not an object, or maybe more than seen */
  for (size_t i = 0; i < n; i++)
    if (!pd__local_accepts_all(sc, cs[i], t)) return false;
  return true;
}

/* Keys of a schema object other than annotations. */
bool pd_sc_only_keys(pd_sc *sc, uint32_t s, const char *const *allowed) {
  for (uint32_t i = 0; i < pd_json_len(&sc->doc, s); i++) {
    const char *k = pd_json_str(&sc->doc, pd_json_mkey(&sc->doc, s, i));
    if (!pd_sc_kw_asserts(k)) continue;
    bool ok = false;
    for (const char *const *a = allowed; *a; a++) ok = ok || strcmp(*a, k) == 0;
    if (!ok) return false;
  }
  return true;
}
