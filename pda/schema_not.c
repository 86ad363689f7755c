/* schema_not.c - negating schemas: the ways an instance can fail a schema of
 * types, bounds, required names, constants, patterns, member and element
 * schemas and combinators, as schemas of their own (for not, oneOf and
 * if/then/else), and the finite value sets of const / enum.
 * The model is described in schema_ctx.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "pda/schema_ctx.h"


typedef pd_sc_lit pd__lit;
#define PD__MAX_LITS PD_SC_MAX_LITS

/* Each bound keyword and the keyword accepting exactly the values it rejects,
 * on the type it constrains; counts shift by one (a minimum of 0 rejects
 * nothing). */
static const struct {
  const char *kw, *neg;
  uint32_t types;
  int shift;
} pd__neg_bounds[] = {
    {"minimum", "exclusiveMaximum", PD_SC_NUM, 0},
    {"maximum", "exclusiveMinimum", PD_SC_NUM, 0},
    {"exclusiveMinimum", "maximum", PD_SC_NUM, 0},
    {"exclusiveMaximum", "minimum", PD_SC_NUM, 0},
    {"minLength", "maxLength", PD_SC_STR, -1},
    {"maxLength", "minLength", PD_SC_STR, 1},
    {"minItems", "maxItems", PD_SC_ARR, -1},
    {"maxItems", "minItems", PD_SC_ARR, 1},
    {"minProperties", "maxProperties", PD_SC_OBJ, -1},
    {"maxProperties", "minProperties", PD_SC_OBJ, 1},
};

/* sc->negs: derived schemas memoized by the node they derive from. */
static bool pd__negs_find(const pd_sc *sc, uint32_t from, uint32_t *out) {
  for (size_t i = 0; i + 1 < sc->negs.len; i += 2)
    if (sc->negs.data[i] == from) return *out = sc->negs.data[i + 1], true;
  return false;
}

static pd_status pd__negs_put(pd_sc *sc, uint32_t from, uint32_t derived) {
  if (!pd_array_reserve(sc->ir.alloc, &sc->negs, 2)) return pd__nomem(sc->err);
  sc->negs.data[sc->negs.len++] = from;
  sc->negs.data[sc->negs.len++] = derived;
  return PD_OK;
}

uint32_t pd_sc_derived_number(pd_sc *sc, const char *kw, const char *text, size_t n) {
  uint32_t kv[2] = {pd_json_add(&sc->doc, PD_JSON_STRING, kw, strlen(kw), NULL, 0),
                    pd_json_add(&sc->doc, PD_JSON_NUMBER, text, n, NULL, 0)};
  if (kv[0] == PD_JSON_NONE || kv[1] == PD_JSON_NONE) return PD_JSON_NONE;
  return pd_json_add(&sc->doc, PD_JSON_OBJECT, NULL, 0, kv, 2);
}

/* {neg: v'} for bound b with value node v, made once per v (memoizable
 * conjs); *out PD_JSON_NONE when nothing fails the bound, *ok false when v
 * is not a usable value. */
static pd_status pd__neg_bound(pd_sc *sc, size_t b, uint32_t v, uint32_t *out, bool *ok) {
  if (pd__negs_find(sc, v, out)) return PD_OK;
  char text[64];
  size_t n;
  uint32_t x;
  if (pd__neg_bounds[b].shift == 0) {
    n = pd_json_at(&sc->doc, v)->n;
    if (pd_json_at(&sc->doc, v)->kind != PD_JSON_NUMBER || n >= sizeof text) {
      *ok = false;
      return PD_OK;
    }
    memcpy(text, pd_json_str(&sc->doc, v), n); /* adding nodes may move the bytes */
  } else if (!pd_sc_uint(sc, v, &x)) {
    *ok = false;
    return PD_OK;
  } else if (pd__neg_bounds[b].shift < 0 && x == 0) {
    n = 0;
  } else {
    n = (size_t)snprintf(text, sizeof text, "%lu",
                         (unsigned long)((uint64_t)x + (uint64_t)(int64_t)pd__neg_bounds[b].shift));
  }
  uint32_t obj = PD_JSON_NONE;
  if (n > 0 &&
      (obj = pd_sc_derived_number(sc, pd__neg_bounds[b].neg, text, n)) == PD_JSON_NONE)
    return pd__nomem(sc->err);
  *out = obj;
  return pd__negs_put(sc, v, obj);
}

/* A derived schema {kw: v} or {kw1: v1, kw2: v2} (v, v1, v2 copied). */
static uint32_t pd__derived(pd_sc *sc, const char *kw1, uint32_t v1, const char *kw2, uint32_t v2) {
  uint32_t kv[4], n = 0;
  const char *kws[2] = {kw1, kw2};
  uint32_t vs[2] = {v1, v2};
  for (int k = 0; k < 2 && kws[k]; k++) {
    pd_json_kind kind = (pd_json_kind)pd_json_at(&sc->doc, vs[k])->kind;
    size_t len = kind == PD_JSON_NUMBER ? pd_json_at(&sc->doc, vs[k])->n : 0;
    char *copy = pd__malloc(sc->ir.alloc, len + 1); /* adding nodes may move the bytes */
    if (!copy) return PD_JSON_NONE;
    if (len) memcpy(copy, pd_json_str(&sc->doc, vs[k]), len);
    kv[n++] = pd_json_add(&sc->doc, PD_JSON_STRING, kws[k], strlen(kws[k]), NULL, 0);
    kv[n++] = pd_json_add(&sc->doc, kind, copy, len, NULL, 0);
    pd__free(sc->ir.alloc, copy);
    if (kv[n - 1] == PD_JSON_NONE || kv[n - 2] == PD_JSON_NONE) return PD_JSON_NONE;
  }
  return pd_json_add(&sc->doc, PD_JSON_OBJECT, NULL, 0, kv, n);
}

int pd_sc_value_cmp(pd_sc *sc, uint32_t a, uint32_t b) {
  char *ba = pd__malloc(sc->ir.alloc, pd_json_at(&sc->doc, a)->n + 1);
  char *bb = pd__malloc(sc->ir.alloc, pd_json_at(&sc->doc, b)->n + 1);
  int r = 0;
  if (ba && bb) {
    pd_json_dec da, db;
    pd_json_number(&sc->doc, a, ba, &da);
    pd_json_number(&sc->doc, b, bb, &db);
    r = pd_json_dec_cmp(&da, &db);
  } else {
    sc->ir.oom = true;
  }
  pd__free(sc->ir.alloc, ba);
  pd__free(sc->ir.alloc, bb);
  return r;
}

/* The derived schema {PD_SC_NOT_IN: [the strings of v]}: strings other than
 * those (schema_string.c enforces it on derived nodes only). */
static uint32_t pd__not_in_schema(pd_sc *sc, uint32_t v, bool single) {
  uint32_t count = single ? 1 : pd_json_len(&sc->doc, v), m = 0;
  uint32_t *strs = pd__malloc(sc->ir.alloc, (count + 1) * sizeof *strs);
  if (!strs) return PD_JSON_NONE;
  for (uint32_t k = 0; k < count; k++) {
    uint32_t x = single ? v : pd_json_elem(&sc->doc, v, k);
    if (pd_json_at(&sc->doc, x)->kind != PD_JSON_STRING) continue;
    size_t len = pd_json_at(&sc->doc, x)->n;
    char *copy = pd__malloc(sc->ir.alloc, len + 1); /* adding nodes may move the bytes */
    uint32_t e = PD_JSON_NONE;
    if (copy) {
      if (len) memcpy(copy, pd_json_str(&sc->doc, x), len);
      e = pd_json_add(&sc->doc, PD_JSON_STRING, copy, len, NULL, 0);
      pd__free(sc->ir.alloc, copy);
    }
    if (e == PD_JSON_NONE) {
      pd__free(sc->ir.alloc, strs);
      return PD_JSON_NONE;
    }
    strs[m++] = e;
  }
  uint32_t kv[2] = {
      pd_json_add(&sc->doc, PD_JSON_STRING, PD_SC_NOT_IN, strlen(PD_SC_NOT_IN), NULL, 0),
      pd_json_add(&sc->doc, PD_JSON_ARRAY, NULL, 0, strs, m)};
  pd__free(sc->ir.alloc, strs);
  if (kv[0] == PD_JSON_NONE || kv[1] == PD_JSON_NONE) return PD_JSON_NONE;
  return pd_json_add(&sc->doc, PD_JSON_OBJECT, NULL, 0, kv, 2);
}

/* const / enum of scalars: numbers fail between and around the listed
 * values (open intervals), booleans by the other value, strings by being
 * none of the listed ones;
 * the other types by *mask (set by the caller from the listed types). Made
 * once per const/enum node. */
static pd_status pd__negate_values(pd_sc *sc, uint32_t v, bool single, pd__lit *lits, size_t *n,
                                   bool *ok) {
  uint32_t count = single ? 1 : pd_json_len(&sc->doc, v), nums[PD__MAX_LITS], nn = 0, ns = 0;
  bool has_true = false, has_false = false, has_bool = false;
  if (!single && pd_json_at(&sc->doc, v)->kind != PD_JSON_ARRAY) return *ok = false, PD_OK;
  for (uint32_t k = 0; k < count && *ok; k++) {
    uint32_t x = single ? v : pd_json_elem(&sc->doc, v, k);
    switch ((pd_json_kind)pd_json_at(&sc->doc, x)->kind) {
      case PD_JSON_NULL:
        break;
      case PD_JSON_TRUE:
        has_true = has_bool = true;
        break;
      case PD_JSON_FALSE:
        has_false = has_bool = true;
        break;
      case PD_JSON_NUMBER:
        if (nn + 1 >= PD__MAX_LITS) return *ok = false, PD_OK;
        nums[nn++] = x;
        break;
      case PD_JSON_STRING:
        ns++;
        break;
      default:
        return *ok = false, PD_OK; /* arrays, objects */
    }
  }
  for (uint32_t a = 1; a < nn; a++) /* sort by value (insertion) */
    for (uint32_t b = a; b > 0 && pd_sc_value_cmp(sc, nums[b - 1], nums[b]) > 0; b--) {
      uint32_t t = nums[b];
      nums[b] = nums[b - 1];
      nums[b - 1] = t;
    }
  /* cached: the derived schemas are keyed by v in sc->negs, one lit list per v */
  uint32_t list;
  if (pd__negs_find(sc, v, &list)) {
    for (uint32_t k = 0; k < pd_json_len(&sc->doc, list); k++) {
      if (*n >= PD__MAX_LITS) return *ok = false, PD_OK;
      uint32_t e = pd_json_elem(&sc->doc, list, k);
      lits[(*n)++] =
          (pd__lit){e, pd_json_get(&sc->doc, e, "const") != PD_JSON_NONE        ? PD_SC_BOOL
                       : pd_json_get(&sc->doc, e, PD_SC_NOT_IN) != PD_JSON_NONE ? PD_SC_STR
                                                                                : PD_SC_NUM};
    }
    return PD_OK;
  }
  uint32_t made[PD__MAX_LITS + 2], m = 0;
  for (uint32_t k = 0; k <= nn && nn > 0; k++) {
    const char *lo = k > 0 ? "exclusiveMinimum" : NULL, *hi = k < nn ? "exclusiveMaximum" : NULL;
    if (k > 0 && k < nn && pd_sc_value_cmp(sc, nums[k - 1], nums[k]) == 0) continue;
    made[m++] = lo && hi ? pd__derived(sc, lo, nums[k - 1], hi, nums[k])
                : lo     ? pd__derived(sc, lo, nums[k - 1], NULL, 0)
                         : pd__derived(sc, hi, nums[k], NULL, 0);
  }
  if (has_bool && has_true != has_false) {
    uint32_t other =
        pd_json_add(&sc->doc, has_true ? PD_JSON_FALSE : PD_JSON_TRUE, NULL, 0, NULL, 0);
    made[m++] = other == PD_JSON_NONE ? PD_JSON_NONE : pd__derived(sc, "const", other, NULL, 0);
  }
  if (ns > 0) made[m++] = pd__not_in_schema(sc, v, single);
  for (uint32_t k = 0; k < m; k++)
    if (made[k] == PD_JSON_NONE) return pd__nomem(sc->err);
  list = pd_json_add(&sc->doc, PD_JSON_ARRAY, NULL, 0, made, m);
  pd_status st = list == PD_JSON_NONE ? pd__nomem(sc->err) : pd__negs_put(sc, v, list);
  return st ? st : pd__negate_values(sc, v, single, lits, n, ok); /* now cached */
}

static pd_status pd__negate(pd_sc *sc, uint32_t s, uint32_t *mask, pd__lit *lits, size_t *n,
                            bool *ok);

/* A "type" value node naming exactly the types of mask, or a schema for them
 * ({"type": "number", "not": {"type": "integer"}} for non-integral numbers). */
static uint32_t pd__types_schema(pd_sc *sc, uint32_t mask) {
  static const char *const names[] = {"null", "boolean", "string", "array", "object"};
  static const uint32_t bits[] = {PD_SC_NULL, PD_SC_BOOL, PD_SC_STR, PD_SC_ARR, PD_SC_OBJ};
  uint32_t e[7], n = 0;
  for (int k = 0; k < 5; k++)
    if (mask & bits[k])
      e[n++] = pd_json_add(&sc->doc, PD_JSON_STRING, names[k], strlen(names[k]), NULL, 0);
  if ((mask & PD_SC_NUM) == PD_SC_NUM)
    e[n++] = pd_json_add(&sc->doc, PD_JSON_STRING, "number", 6, NULL, 0);
  else if (mask & PD_SC_INT)
    e[n++] = pd_json_add(&sc->doc, PD_JSON_STRING, "integer", 7, NULL, 0);
  for (uint32_t k = 0; k < n; k++)
    if (e[k] == PD_JSON_NONE) return PD_JSON_NONE;
  uint32_t kv[2] = {pd_json_add(&sc->doc, PD_JSON_STRING, "type", 4, NULL, 0),
                    pd_json_add(&sc->doc, PD_JSON_ARRAY, NULL, 0, e, n)};
  if (kv[0] == PD_JSON_NONE || kv[1] == PD_JSON_NONE) return PD_JSON_NONE;
  uint32_t t = pd_json_add(&sc->doc, PD_JSON_OBJECT, NULL, 0, kv, 2);
  if (!((mask & PD_SC_NUM) == PD_SC_FRAC) || t == PD_JSON_NONE) return t;
  /* non-integral numbers: anyOf [t, {"type": "number", "not": {"type": "integer"}}] */
  uint32_t in[2] = {pd_json_add(&sc->doc, PD_JSON_STRING, "type", 4, NULL, 0),
                    pd_json_add(&sc->doc, PD_JSON_STRING, "integer", 7, NULL, 0)};
  uint32_t nt = in[0] == PD_JSON_NONE || in[1] == PD_JSON_NONE
                    ? PD_JSON_NONE
                    : pd_json_add(&sc->doc, PD_JSON_OBJECT, NULL, 0, in, 2);
  uint32_t fr[4] = {pd_json_add(&sc->doc, PD_JSON_STRING, "type", 4, NULL, 0),
                    pd_json_add(&sc->doc, PD_JSON_STRING, "number", 6, NULL, 0),
                    pd_json_add(&sc->doc, PD_JSON_STRING, "not", 3, NULL, 0), nt};
  for (int k = 0; k < 4; k++)
    if (fr[k] == PD_JSON_NONE) return PD_JSON_NONE;
  uint32_t frac = pd_json_add(&sc->doc, PD_JSON_OBJECT, NULL, 0, fr, 4);
  uint32_t alts[2] = {t, frac};
  uint32_t arr =
      frac == PD_JSON_NONE ? PD_JSON_NONE : pd_json_add(&sc->doc, PD_JSON_ARRAY, NULL, 0, alts, 2);
  uint32_t ak[2] = {pd_json_add(&sc->doc, PD_JSON_STRING, "anyOf", 5, NULL, 0), arr};
  if (arr == PD_JSON_NONE || ak[0] == PD_JSON_NONE) return PD_JSON_NONE;
  return pd_json_add(&sc->doc, PD_JSON_OBJECT, NULL, 0, ak, 2);
}

/* Copies string node x (adding nodes may move the bytes). */
static uint32_t pd__copy_string(pd_sc *sc, uint32_t x) {
  size_t len = pd_json_at(&sc->doc, x)->n;
  char *copy = pd__malloc(sc->ir.alloc, len + 1);
  if (!copy) return PD_JSON_NONE;
  if (len) memcpy(copy, pd_json_str(&sc->doc, x), len);
  uint32_t r = pd_json_add(&sc->doc, PD_JSON_STRING, copy, len, NULL, 0);
  pd__free(sc->ir.alloc, copy);
  return r;
}

/* An object node from n key names and value nodes. */
static uint32_t pd__object(pd_sc *sc, const char *const *keys, const uint32_t *vals, uint32_t n) {
  uint32_t kv[8];
  for (uint32_t i = 0; i < n; i++) {
    kv[2 * i] = pd_json_add(&sc->doc, PD_JSON_STRING, keys[i], strlen(keys[i]), NULL, 0);
    kv[2 * i + 1] = vals[i];
    if (kv[2 * i] == PD_JSON_NONE || vals[i] == PD_JSON_NONE) return PD_JSON_NONE;
  }
  return pd_json_add(&sc->doc, PD_JSON_OBJECT, NULL, 0, kv, 2 * n);
}

/* A schema accepting exactly the instances S rejects, {"anyOf": [the ways S
 * fails]} (false when S accepts everything); made once per S. */
static pd_status pd__neg_schema(pd_sc *sc, uint32_t S, uint32_t *out, bool *ok) {
  for (size_t i = 0; i + 1 < sc->negsch.len; i += 2)
    if (sc->negsch.data[i] == S) {
      *out = sc->negsch.data[i + 1];
      return PD_OK;
    }
  /* a schema met again inside its own negation (a recursive one): its
   * negation is recursive too, and refers to itself there by S */
  for (size_t i = 0; i < sc->negating.len; i++)
    if (sc->negating.data[i] == S) { /* S keeps its parent (pd_json_add) */
      *out = pd__object(sc, (const char *const[]){PD_SC_NEG_OF}, &S, 1);
      return *out == PD_JSON_NONE ? pd__nomem(sc->err) : PD_OK;
    }
  if (!pd_array_push(sc->ir.alloc, &sc->negating, S)) return pd__nomem(sc->err);
  pd__lit lits[PD__MAX_LITS];
  size_t n;
  uint32_t mask;
  pd_status st = pd__negate(sc, S, &mask, lits, &n, ok);
  sc->negating.len--;
  if (st || !*ok) return st;
  uint32_t alts[PD__MAX_LITS + 1], m = 0;
  if (mask != PD_SC_ALL) alts[m++] = pd__types_schema(sc, PD_SC_ALL & ~mask);
  for (size_t j = 0; j < n; j++) { /* restrict each to its types: lits assume them */
    uint32_t both[2] = {pd__types_schema(sc, mask & lits[j].types), lits[j].node};
    uint32_t arr = both[0] == PD_JSON_NONE ? PD_JSON_NONE
                                           : pd_json_add(&sc->doc, PD_JSON_ARRAY, NULL, 0, both, 2);
    alts[m++] = pd__object(sc, (const char *const[]){"allOf"}, &arr, 1);
  }
  for (uint32_t j = 0; j < m; j++)
    if (alts[j] == PD_JSON_NONE) return pd__nomem(sc->err);
  uint32_t arr = m ? pd_json_add(&sc->doc, PD_JSON_ARRAY, NULL, 0, alts, m) : PD_JSON_NONE;
  *out = m == 0 ? pd_json_add(&sc->doc, PD_JSON_FALSE, NULL, 0, NULL, 0)
                : pd__object(sc, (const char *const[]){"anyOf"}, &arr, 1);
  if (*out == PD_JSON_NONE || !pd_array_reserve(sc->ir.alloc, &sc->negsch, 2))
    return pd__nomem(sc->err);
  sc->negsch.data[sc->negsch.len++] = S;
  sc->negsch.data[sc->negsch.len++] = *out;
  return PD_OK;
}

#define PD__NEG_BRANCHES 8u /* branches of a negated anyOf */

/* {"allOf": [the negation of each schema of array arr]}: every one fails
 * (*ok false past PD__NEG_BRANCHES or where one is not negatable). */
static pd_status pd__neg_all(pd_sc *sc, uint32_t arr, uint32_t *out, bool *ok) {
  uint32_t negs[PD__NEG_BRANCHES], n = pd_json_len(&sc->doc, arr);
  if (pd_json_at(&sc->doc, arr)->kind != PD_JSON_ARRAY || n == 0 || n > PD__NEG_BRANCHES)
    return *ok = false, PD_OK;
  for (uint32_t j = 0; j < n; j++) {
    pd_status st = pd__neg_schema(sc, pd_json_elem(&sc->doc, arr, j), &negs[j], ok);
    if (st || !*ok) return st;
  }
  uint32_t list = pd_json_add(&sc->doc, PD_JSON_ARRAY, NULL, 0, negs, n);
  *out = list == PD_JSON_NONE ? PD_JSON_NONE
                              : pd__object(sc, (const char *const[]){"allOf"}, &list, 1);
  return *out == PD_JSON_NONE ? pd__nomem(sc->err) : PD_OK;
}

/* The ways an instance fails a combinator of a negated schema: not X (it
 * matches X), anyOf (every branch fails), oneOf (every branch fails, or two
 * hold: {"allOf": [B_i, B_j]} per pair). */
static pd_status pd__negate_comb(pd_sc *sc, const char *name, uint32_t v, pd__lit *lits,
                                 size_t *n, bool *ok) {
  if (strcmp(name, "not") == 0) {
    if (pd_json_at(&sc->doc, v)->kind == PD_JSON_FALSE) return PD_OK; /* not false holds */
    if (*n >= PD__MAX_LITS) return *ok = false, PD_OK;
    lits[(*n)++] = (pd__lit){v, PD_SC_ALL};
    return PD_OK;
  }
  bool one = strcmp(name, "oneOf") == 0; /* before nodes are added: they may move name */
  uint32_t none = PD_JSON_NONE;
  pd_status st = pd__neg_all(sc, v, &none, ok);
  if (st || !*ok) return st;
  uint32_t b = pd_json_len(&sc->doc, v);
  if (*n + 1 + (one ? b * (b - 1) / 2 : 0) > PD__MAX_LITS) return *ok = false, PD_OK;
  lits[(*n)++] = (pd__lit){none, PD_SC_ALL};
  for (uint32_t i = 0; one && i < b; i++)
    for (uint32_t j = i + 1; j < b; j++) {
      uint32_t two[2] = {pd_json_elem(&sc->doc, v, i), pd_json_elem(&sc->doc, v, j)};
      uint32_t list = pd_json_add(&sc->doc, PD_JSON_ARRAY, NULL, 0, two, 2);
      uint32_t both = list == PD_JSON_NONE
                          ? PD_JSON_NONE
                          : pd__object(sc, (const char *const[]){"allOf"}, &list, 1);
      if (both == PD_JSON_NONE) return pd__nomem(sc->err);
      lits[(*n)++] = (pd__lit){both, PD_SC_ALL};
    }
  return PD_OK;
}

/* The way property k of "properties" value v fails: the key is present and
 * its value fails the property's schema,
 * {"required": [key], "properties": {key: not-S}}. Made once per key node. */
static pd_status pd__neg_property(pd_sc *sc, uint32_t v, uint32_t k, uint32_t *out, bool *ok) {
  uint32_t key = pd_json_mkey(&sc->doc, v, k), neg;
  if (pd__negs_find(sc, key, out)) return PD_OK;
  pd_status st = pd__neg_schema(sc, pd_json_mval(&sc->doc, v, k), &neg, ok);
  if (st || !*ok) return st;
  uint32_t k1 = pd__copy_string(sc, key), k2 = pd__copy_string(sc, key);
  uint32_t req =
      k1 == PD_JSON_NONE ? PD_JSON_NONE : pd_json_add(&sc->doc, PD_JSON_ARRAY, NULL, 0, &k1, 1);
  uint32_t pv[2] = {k2, neg};
  uint32_t props =
      k2 == PD_JSON_NONE ? PD_JSON_NONE : pd_json_add(&sc->doc, PD_JSON_OBJECT, NULL, 0, pv, 2);
  *out =
      pd__object(sc, (const char *const[]){"required", "properties"}, (uint32_t[]){req, props}, 2);
  return *out == PD_JSON_NONE ? pd__nomem(sc->err) : pd__negs_put(sc, key, *out);
}

/* The way element i of "prefixItems" value v fails: there are more than i
 * elements and element i fails its schema,
 * {"minItems": i+1, "prefixItems": [true x i, not-S]}. Made once per element
 * node (keyed in sc->negs by v's element). */
static pd_status pd__neg_prefix(pd_sc *sc, uint32_t v, uint32_t i, uint32_t *out, bool *ok) {
  uint32_t S = pd_json_elem(&sc->doc, v, i), neg;
  if (pd__negs_find(sc, S, out)) return PD_OK;
  pd_status st = pd__neg_schema(sc, S, &neg, ok);
  if (st || !*ok) return st;
  uint32_t *items = pd__malloc(sc->ir.alloc, (i + 1) * sizeof *items);
  if (!items) return pd__nomem(sc->err);
  for (uint32_t k = 0; k < i; k++) items[k] = pd_json_add(&sc->doc, PD_JSON_TRUE, NULL, 0, NULL, 0);
  items[i] = neg;
  bool fine = true;
  for (uint32_t k = 0; k < i; k++) fine = fine && items[k] != PD_JSON_NONE;
  uint32_t arr = fine ? pd_json_add(&sc->doc, PD_JSON_ARRAY, NULL, 0, items, i + 1) : PD_JSON_NONE;
  pd__free(sc->ir.alloc, items);
  char text[16];
  int len = snprintf(text, sizeof text, "%u", i + 1);
  uint32_t min = pd_json_add(&sc->doc, PD_JSON_NUMBER, text, (size_t)len, NULL, 0);
  *out =
      pd__object(sc, (const char *const[]){"minItems", "prefixItems"}, (uint32_t[]){min, arr}, 2);
  return *out == PD_JSON_NONE ? pd__nomem(sc->err) : pd__negs_put(sc, S, *out);
}

/* The way an array fails "items" value S (no prefixItems beside it): some
 * element fails S, {"contains": not-S}. Made once per S. */
static pd_status pd__neg_items(pd_sc *sc, uint32_t S, uint32_t *out, bool *ok) {
  uint32_t neg;
  if (pd__negs_find(sc, S, out)) return PD_OK;
  pd_status st = pd__neg_schema(sc, S, &neg, ok);
  if (st || !*ok) return st;
  *out = pd__object(sc, (const char *const[]){"contains"}, &neg, 1);
  return *out == PD_JSON_NONE ? pd__nomem(sc->err) : pd__negs_put(sc, S, *out);
}

/* The way an object fails "additionalProperties" value S of schema s: a
 * member whose key s neither declares nor matches by one of its
 * patternProperties has a value S rejects (any value when S is false). Made
 * once per S. */
static pd_status pd__neg_additional(pd_sc *sc, uint32_t s, uint32_t S, uint32_t *out, bool *ok) {
  uint32_t neg, props = pd_json_get(&sc->doc, s, "properties");
  uint32_t pp = pd_json_get(&sc->doc, s, "patternProperties"), pats = PD_JSON_NONE;
  if (pd__negs_find(sc, S, out)) return PD_OK;
  pd_status st = PD_OK;
  if (pd_json_at(&sc->doc, S)->kind == PD_JSON_FALSE)
    neg = pd_json_add(&sc->doc, PD_JSON_TRUE, NULL, 0, NULL, 0);
  else if ((st = pd__neg_schema(sc, S, &neg, ok)) || !*ok)
    return st;
  if (props == PD_JSON_NONE) props = pd_json_add(&sc->doc, PD_JSON_OBJECT, NULL, 0, NULL, 0);
  if (pp != PD_JSON_NONE) { /* the patterns, copied: the keys of an object node */
    uint32_t n_pp = pd_json_at(&sc->doc, pp)->kind == PD_JSON_OBJECT ? pd_json_len(&sc->doc, pp) : 0;
    uint32_t *copies = pd__malloc(sc->ir.alloc, (n_pp + 1) * sizeof *copies);
    if (!copies) return pd__nomem(sc->err);
    bool fine = true;
    for (uint32_t k = 0; k < n_pp; k++)
      fine = (copies[k] = pd__copy_string(sc, pd_json_mkey(&sc->doc, pp, k))) != PD_JSON_NONE && fine;
    pats = fine ? pd_json_add(&sc->doc, PD_JSON_ARRAY, NULL, 0, copies, n_pp) : PD_JSON_NONE;
    pd__free(sc->ir.alloc, copies);
    if (pats == PD_JSON_NONE) return pd__nomem(sc->err);
  }
  if (neg == PD_JSON_NONE || props == PD_JSON_NONE) return pd__nomem(sc->err);
  *out = pats == PD_JSON_NONE
             ? pd__object(sc, (const char *const[]){PD_SC_SOME_KEY, PD_SC_SOME_VALUE},
                          (uint32_t[]){props, neg}, 2)
             : pd__object(sc, (const char *const[]){PD_SC_SOME_KEY, PD_SC_SOME_VALUE,
                                                   PD_SC_SOME_NOT_MATCHING},
                          (uint32_t[]){props, neg, pats}, 3);
  return *out == PD_JSON_NONE ? pd__nomem(sc->err) : pd__negs_put(sc, S, *out);
}

/* The way an object fails pattern k of "patternProperties" value v: a member
 * whose key the pattern matches has a value its schema rejects. Made once
 * per schema node. */
static pd_status pd__neg_pattern(pd_sc *sc, uint32_t v, uint32_t k, uint32_t *out, bool *ok) {
  uint32_t S = pd_json_mval(&sc->doc, v, k), neg;
  if (pd__negs_find(sc, S, out)) return PD_OK;
  pd_status st = pd__neg_schema(sc, S, &neg, ok);
  if (st || !*ok) return st;
  uint32_t none = pd_json_add(&sc->doc, PD_JSON_OBJECT, NULL, 0, NULL, 0);
  uint32_t pat = pd__copy_string(sc, pd_json_mkey(&sc->doc, v, k));
  if (none == PD_JSON_NONE || pat == PD_JSON_NONE) return pd__nomem(sc->err);
  *out = pd__object(sc, (const char *const[]){PD_SC_SOME_KEY, PD_SC_SOME_VALUE, PD_SC_SOME_PATTERN},
                    (uint32_t[]){none, neg, pat}, 3);
  return *out == PD_JSON_NONE ? pd__nomem(sc->err) : pd__negs_put(sc, S, *out);
}

/* {PD_SC_NOT_MULTIPLE: k} for a multipleOf of integer value k, 1..10000
 * (schema_number.c enforces it); other values are not negated (*ok false). */
static pd_status pd__neg_multiple(pd_sc *sc, uint32_t v, pd__lit *lits, size_t *n, bool *ok) {
  uint32_t lit;
  if (!pd__negs_find(sc, v, &lit)) {
    const pd_json_node *x = pd_json_at(&sc->doc, v);
    char text[8];
    if (x->kind != PD_JSON_NUMBER || x->n >= sizeof text) return *ok = false, PD_OK;
    memcpy(text, pd_json_str(&sc->doc, v), x->n);
    text[x->n] = 0;
    size_t len = strspn(text, "0123456789");
    if (!len || len != x->n || text[0] == '0' || atoi(text) > 10000) return *ok = false, PD_OK;
    uint32_t k = pd_json_add(&sc->doc, PD_JSON_NUMBER, text, len, NULL, 0);
    lit = pd__object(sc, (const char *const[]){PD_SC_NOT_MULTIPLE}, &k, 1);
    pd_status st = lit == PD_JSON_NONE ? pd__nomem(sc->err) : pd__negs_put(sc, v, lit);
    if (st) return st;
  }
  if (*n >= PD__MAX_LITS) return *ok = false, PD_OK;
  lits[(*n)++] = (pd__lit){lit, PD_SC_NUM};
  return PD_OK;
}

/* {kw: v} (a derived string keyword, v a string node copied), made once per
 * v, as a way strings fail. */
static pd_status pd__string_lit(pd_sc *sc, const char *kw, uint32_t v, pd__lit *lits, size_t *n,
                                bool *ok) {
  uint32_t lit;
  if (*n >= PD__MAX_LITS) return *ok = false, PD_OK;
  if (!pd__negs_find(sc, v, &lit)) {
    uint32_t copy = pd__copy_string(sc, v);
    lit = pd__object(sc, (const char *const[]){kw}, &copy, 1);
    if (lit == PD_JSON_NONE) return pd__nomem(sc->err);
    pd_status st = pd__negs_put(sc, v, lit);
    if (st) return st;
  }
  lits[(*n)++] = (pd__lit){lit, PD_SC_STR};
  return PD_OK;
}

/* The literals of keyword name (value v) of a negatable schema. */
static pd_status pd__negate_kw(pd_sc *sc, const char *name, uint32_t v, pd__lit *lits, size_t *n,
                               bool *ok) {
  pd_status st;
  if (strcmp(name, "required") == 0) {
    if (pd_json_at(&sc->doc, v)->kind != PD_JSON_ARRAY) return *ok = false, PD_OK;
    for (uint32_t k = 0; k < pd_json_len(&sc->doc, v) && *ok; k++) {
      uint32_t e = pd_json_elem(&sc->doc, v, k), req, forbid;
      if (pd_json_at(&sc->doc, e)->kind != PD_JSON_STRING || *n >= PD__MAX_LITS)
        return *ok = false, PD_OK;
      if ((st = pd_sc_key_schemas(sc, e, &req, &forbid))) return st;
      lits[(*n)++] = (pd__lit){forbid, PD_SC_OBJ};
    }
    return PD_OK;
  }
  if (strcmp(name, "properties") == 0 && pd_json_at(&sc->doc, v)->kind == PD_JSON_OBJECT) {
    for (uint32_t k = 0; k < pd_json_len(&sc->doc, v) && *ok; k++) {
      if (pd_sc_trivial_schema(sc, pd_json_mval(&sc->doc, v, k))) continue; /* asserts nothing */
      uint32_t lit = PD_JSON_NONE;
      if (*n >= PD__MAX_LITS) return *ok = false, PD_OK;
      if ((st = pd__neg_property(sc, v, k, &lit, ok)) || !*ok) return st;
      lits[(*n)++] = (pd__lit){lit, PD_SC_OBJ};
    }
    return PD_OK;
  }
  if (strcmp(name, "const") == 0 || strcmp(name, "enum") == 0)
    return pd__negate_values(sc, v, strcmp(name, "const") == 0, lits, n, ok);
  if (strcmp(name, "pattern") == 0) { /* the strings it does not match */
    if (pd_json_at(&sc->doc, v)->kind != PD_JSON_STRING) return *ok = false, PD_OK;
    return pd__string_lit(sc, PD_SC_NOT_PATTERN, v, lits, n, ok);
  }
  if (strcmp(name, "format") == 0) { /* the strings it does not take, where a regex decides */
    int kind = pd_sc_format_kind(sc, v);
    if (kind == 0) return PD_OK; /* an annotation: nothing fails it */
    if (kind != 1) return *ok = false, PD_OK;
    return pd__string_lit(sc, PD_SC_NOT_FORMAT, v, lits, n, ok);
  }
  if (strcmp(name, "multipleOf") == 0) /* the numbers that are not multiples */
    return pd__neg_multiple(sc, v, lits, n, ok);
  bool tuple = pd_json_at(&sc->doc, v)->kind == PD_JSON_ARRAY; /* items as an array: draft 4 */
  if (strcmp(name, "items") == 0 && !tuple) {
    uint32_t lit = PD_JSON_NONE;
    if (pd_sc_trivial_schema(sc, v)) return PD_OK; /* asserts nothing */
    if (*n >= PD__MAX_LITS) return *ok = false, PD_OK;
    if ((st = pd__neg_items(sc, v, &lit, ok)) || !*ok) return st;
    lits[(*n)++] = (pd__lit){lit, PD_SC_ARR};
    return PD_OK;
  }
  if ((strcmp(name, "prefixItems") == 0 || strcmp(name, "items") == 0) && tuple) {
    for (uint32_t k = 0; k < pd_json_len(&sc->doc, v) && *ok; k++) {
      if (pd_sc_trivial_schema(sc, pd_json_elem(&sc->doc, v, k))) continue; /* asserts nothing */
      uint32_t lit = PD_JSON_NONE;
      if (*n >= PD__MAX_LITS) return *ok = false, PD_OK;
      if ((st = pd__neg_prefix(sc, v, k, &lit, ok)) || !*ok) return st;
      lits[(*n)++] = (pd__lit){lit, PD_SC_ARR};
    }
    return PD_OK;
  }
  for (size_t b = 0; b < sizeof pd__neg_bounds / sizeof pd__neg_bounds[0]; b++) {
    if (strcmp(name, pd__neg_bounds[b].kw) != 0) continue;
    uint32_t node = PD_JSON_NONE;
    if ((st = pd__neg_bound(sc, b, v, &node, ok)) || !*ok) return st;
    if (node == PD_JSON_NONE) return PD_OK;
    if (*n >= PD__MAX_LITS) return *ok = false, PD_OK;
    lits[(*n)++] = (pd__lit){node, pd__neg_bounds[b].types};
    return PD_OK;
  }
  *ok = false;
  return PD_OK;
}

/* Negates schema s when it is a conjunction of "type", bounds and required
 * names (annotations ignored): an instance fails s iff its type is outside
 * *mask, or it is of lits[k].types and matches lits[k].node for some k.
 * *ok false when s has any other shape. */
#define PD__NEG_DEPTH 8 /* $ref / allOf levels followed when negating */

static pd_status pd__negate_into(pd_sc *sc, uint32_t s, uint32_t *mask, pd__lit *lits, size_t *n,
                                 bool *ok, int depth);

/* Member keywords of s that hold sub-schemas in conjunction ($ref target,
 * allOf members): their failures add up. */
static pd_status pd__negate_conj(pd_sc *sc, uint32_t s, const char *name, uint32_t v,
                                 uint32_t *mask, pd__lit *lits, size_t *n, bool *ok, int depth) {
  if (depth >= PD__NEG_DEPTH) return *ok = false, PD_OK;
  if (strcmp(name, "$ref") == 0) {
    uint32_t t;
    if (!pd_sc_ref_quiet(sc, s, v, false, &t)) return *ok = false, PD_OK;
    return pd__negate_into(sc, t, mask, lits, n, ok, depth + 1);
  }
  if (pd_json_at(&sc->doc, v)->kind != PD_JSON_ARRAY) return *ok = false, PD_OK;
  for (uint32_t k = 0; k < pd_json_len(&sc->doc, v) && *ok; k++) {
    pd_status st = pd__negate_into(sc, pd_json_elem(&sc->doc, v, k), mask, lits, n, ok, depth + 1);
    if (st) return st;
  }
  return PD_OK;
}

static pd_status pd__negate_into(pd_sc *sc, uint32_t s, uint32_t *mask, pd__lit *lits, size_t *n,
                                 bool *ok, int depth) {
  s = pd_sc_alone(sc, s);
  pd_json_kind kind = (pd_json_kind)pd_json_at(&sc->doc, s)->kind;
  if (kind == PD_JSON_FALSE) *mask = 0;
  if (kind == PD_JSON_TRUE || kind == PD_JSON_FALSE) return PD_OK;
  if (kind != PD_JSON_OBJECT) return *ok = false, PD_OK;
  for (uint32_t k = 0; k < pd_json_len(&sc->doc, s) && *ok; k++) {
    uint32_t v = pd_json_mval(&sc->doc, s, k), m;
    const char *name = pd_json_str(&sc->doc, pd_json_mkey(&sc->doc, s, k));
    pd_status st;
    if (!pd_sc_kw_asserts(name)) continue;
    if (strcmp(name, "type") == 0) {
      if (pd_sc_type_mask_quiet(sc, v, &m))
        *mask &= m;
      else
        *ok = false;
      continue;
    }
    if (strcmp(name, "$ref") == 0 || strcmp(name, "allOf") == 0) {
      if ((st = pd__negate_conj(sc, s, name, v, mask, lits, n, ok, depth))) return st;
      continue;
    }
    if (strcmp(name, "not") == 0 || strcmp(name, "anyOf") == 0 || strcmp(name, "oneOf") == 0) {
      if ((st = pd__negate_comb(sc, name, v, lits, n, ok))) return st;
      continue;
    }
    if (strcmp(name, "additionalProperties") == 0) {
      uint32_t lit = PD_JSON_NONE;
      if (pd_sc_trivial_schema(sc, v)) continue; /* asserts nothing */
      if (*n >= PD__MAX_LITS) {
        *ok = false;
        continue;
      }
      if ((st = pd__neg_additional(sc, s, v, &lit, ok)) || !*ok) return st;
      lits[(*n)++] = (pd__lit){lit, PD_SC_OBJ};
      continue;
    }
    if (strcmp(name, "patternProperties") == 0 && pd_json_at(&sc->doc, v)->kind == PD_JSON_OBJECT) {
      for (uint32_t k = 0; k < pd_json_len(&sc->doc, v) && *ok; k++) {
        uint32_t lit = PD_JSON_NONE;
        if (pd_sc_trivial_schema(sc, pd_json_mval(&sc->doc, v, k))) continue;
        if (*n >= PD__MAX_LITS) {
          *ok = false;
          break;
        }
        if ((st = pd__neg_pattern(sc, v, k, &lit, ok)) || !*ok) return st;
        lits[(*n)++] = (pd__lit){lit, PD_SC_OBJ};
      }
      continue;
    }
    if (strcmp(name, "items") == 0 && pd_json_get(&sc->doc, s, "prefixItems") != PD_JSON_NONE) {
      *ok = false; /* the elements past the prefix: no keyword says "some of those fails" */
      continue;
    }
    bool single = strcmp(name, "const") == 0;
    if (single || strcmp(name, "enum") == 0) { /* other types fail it whole */
      uint32_t count = single ? 1 : pd_json_len(&sc->doc, v), tm = 0;
      if (!single && pd_json_at(&sc->doc, v)->kind != PD_JSON_ARRAY) count = 0;
      for (uint32_t e = 0; e < count; e++) {
        uint32_t t = pd_sc_value_type(sc, single ? v : pd_json_elem(&sc->doc, v, e));
        tm |= t & PD_SC_NUM ? PD_SC_NUM : t;
      }
      *mask &= tm;
    }
    if ((st = pd__negate_kw(sc, name, v, lits, n, ok))) return st;
  }
  /* the strict option closes an object schema that says nothing of it */
  if (*ok && pd_sc_strict_closes(sc, s)) {
    uint32_t lit, closed = pd_json_add(&sc->doc, PD_JSON_FALSE, NULL, 0, NULL, 0);
    pd_status st;
    if (closed == PD_JSON_NONE) return pd__nomem(sc->err);
    if (*n >= PD__MAX_LITS) return *ok = false, PD_OK;
    if ((st = pd__neg_additional(sc, s, closed, &lit, ok)) || !*ok) return st;
    lits[(*n)++] = (pd__lit){lit, PD_SC_OBJ};
  }
  return PD_OK;
}

static pd_status pd__negate(pd_sc *sc, uint32_t s, uint32_t *mask, pd__lit *lits, size_t *n,
                            bool *ok) {
  *n = 0;
  *ok = true;
  *mask = PD_SC_ALL;
  return pd__negate_into(sc, s, mask, lits, n, ok, 0);
}

bool pd_sc_finite_values(pd_sc *sc, uint32_t s, uint32_t *vals, size_t cap, size_t *n) {
  s = pd_sc_alone(sc, s);
  pd_json_kind kind = (pd_json_kind)pd_json_at(&sc->doc, s)->kind;
  uint32_t mask = PD_SC_ALL, cv = PD_JSON_NONE, ev = PD_JSON_NONE, cand[3], nc = 0;
  *n = 0;
  if (kind == PD_JSON_FALSE) return true;
  if (kind != PD_JSON_OBJECT) return false;
  for (uint32_t k = 0; k < pd_json_len(&sc->doc, s); k++) {
    const char *name = pd_json_str(&sc->doc, pd_json_mkey(&sc->doc, s, k));
    uint32_t v = pd_json_mval(&sc->doc, s, k);
    if (!pd_sc_kw_asserts(name)) continue;
    if (strcmp(name, "type") == 0) {
      if (!pd_sc_type_mask_quiet(sc, v, &mask)) return false;
    } else if (strcmp(name, "const") == 0) {
      cv = v;
    } else if (strcmp(name, "enum") == 0 && pd_json_at(&sc->doc, v)->kind == PD_JSON_ARRAY) {
      ev = v;
    } else {
      return false;
    }
  }
  uint32_t count = cv != PD_JSON_NONE ? 1 : ev != PD_JSON_NONE ? pd_json_len(&sc->doc, ev) : 0;
  if (cv == PD_JSON_NONE && ev == PD_JSON_NONE) { /* null and booleans by type alone */
    if (mask & ~(PD_SC_NULL | PD_SC_BOOL)) return false;
    if (mask & PD_SC_NULL) cand[nc++] = pd_json_add(&sc->doc, PD_JSON_NULL, NULL, 0, NULL, 0);
    if (mask & PD_SC_BOOL) {
      cand[nc++] = pd_json_add(&sc->doc, PD_JSON_TRUE, NULL, 0, NULL, 0);
      cand[nc++] = pd_json_add(&sc->doc, PD_JSON_FALSE, NULL, 0, NULL, 0);
    }
    count = nc;
  }
  for (uint32_t k = 0; k < count; k++) {
    uint32_t v = nc ? cand[k] : cv != PD_JSON_NONE ? cv : pd_json_elem(&sc->doc, ev, k);
    if (v == PD_JSON_NONE) { /* out of memory: surfaces as PD_ERR_NOMEM */
      sc->ir.oom = true;
      return false;
    }
    if (!(pd_sc_value_type(sc, v) & mask)) continue;
    if (cv != PD_JSON_NONE && ev != PD_JSON_NONE && !pd_sc_in_values(sc, ev, false, v)) continue;
    bool dup = false;
    for (size_t j = 0; j < *n && !dup; j++) dup = pd_json_equal(&sc->doc, vals[j], v);
    if (dup) continue;
    if (*n >= cap) return false;
    vals[(*n)++] = v;
  }
  return true;
}

uint32_t pd_sc_neg_target(const pd_sc *sc, uint32_t S) {
  for (size_t i = 0; i + 1 < sc->negsch.len; i += 2)
    if (sc->negsch.data[i] == S) return sc->negsch.data[i + 1];
  return PD_JSON_NONE;
}

uint32_t pd_sc_neg_origin(const pd_sc *sc, uint32_t m) {
  for (size_t i = 0; i + 1 < sc->negs.len; i += 2)
    if (sc->negs.data[i + 1] == m) return sc->negs.data[i];
  return m;
}

pd_status pd_sc_negate(pd_sc *sc, uint32_t s, uint32_t *mask, pd_sc_lit *lits, size_t *n,
                       bool *ok) {
  return pd__negate(sc, s, mask, lits, n, ok);
}
