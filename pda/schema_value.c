/* schema_value.c - whether a JSON value written in the schema (a const or an
 * enum member) is valid against a schema: yes, no, or not known here.
 *
 * The compiler writes such values as literals, so a sibling keyword only
 * filters them; deciding it on the value itself keeps the enum exact where
 * the keyword's own language (an object's properties, an array's items, a
 * multiple) is not needed at all. Every keyword answers in three values and
 * an unknown one refuses the enum, as before; a decided one is the
 * specification's verdict on that value. Recursion through $ref and
 * subschemas is bounded in depth and steps (unknown past them). */
#include <string.h>

#include "base/alloc.h"
#include "pda/schema_ctx.h"

#define PD__DEPTH 32
#define PD__STEPS 100000u

typedef struct pd__val {
  pd_sc *sc;
  uint32_t steps;
} pd__val;

static pd_sc_verdict pd__and(pd_sc_verdict a, pd_sc_verdict b) {
  if (a == PD_SC_NO || b == PD_SC_NO) return PD_SC_NO;
  return a == PD_SC_UNKNOWN || b == PD_SC_UNKNOWN ? PD_SC_UNKNOWN : PD_SC_YES;
}

static pd_sc_verdict pd__not(pd_sc_verdict a) {
  return a == PD_SC_UNKNOWN ? a : a == PD_SC_YES ? PD_SC_NO : PD_SC_YES;
}

static pd_sc_verdict pd__of(bool b) { return b ? PD_SC_YES : PD_SC_NO; }

static pd_status pd__schema(pd__val *c, uint32_t v, uint32_t s, int depth, pd_sc_verdict *out);

/* The type bit of v as the schema's draft reads it (draft-04: an integer has
 * neither fraction nor exponent). */
static uint32_t pd__type(pd_sc *sc, uint32_t v) {
  uint32_t t = pd_sc_value_type(sc, v);
  if (t == PD_SC_INT && sc->int_no_frac) {
    const char *s = pd_json_str(&sc->doc, v);
    size_t n = pd_json_at(&sc->doc, v)->n;
    if (memchr(s, '.', n) || memchr(s, 'e', n) || memchr(s, 'E', n)) t = PD_SC_FRAC;
  }
  return t;
}

/* Whether member i of object v is the last with its key (a parser keeps that
 * one); false also for a key with a NUL inside, which lookups cannot name. */
static bool pd__kept(pd_sc *sc, uint32_t v, uint32_t i) {
  uint32_t k = pd_json_mkey(&sc->doc, v, i);
  if (strlen(pd_json_str(&sc->doc, k)) != pd_json_at(&sc->doc, k)->n) return false;
  for (uint32_t j = i + 1; j < pd_json_len(&sc->doc, v); j++)
    if (pd_json_equal(&sc->doc, k, pd_json_mkey(&sc->doc, v, j))) return false;
  return true;
}

static bool pd__has_nul_key(pd_sc *sc, uint32_t v) {
  for (uint32_t i = 0; i < pd_json_len(&sc->doc, v); i++) {
    uint32_t k = pd_json_mkey(&sc->doc, v, i);
    if (strlen(pd_json_str(&sc->doc, k)) != pd_json_at(&sc->doc, k)->n) return true;
  }
  return false;
}

/* v against every schema of list, ANDed into *acc. */
static pd_status pd__all(pd__val *c, uint32_t v, uint32_t list, int depth, pd_sc_verdict *acc) {
  for (uint32_t i = 0; i < pd_json_len(&c->sc->doc, list) && *acc != PD_SC_NO; i++) {
    pd_sc_verdict r;
    pd_status st = pd__schema(c, v, pd_json_elem(&c->sc->doc, list, i), depth + 1, &r);
    if (st) return st;
    *acc = pd__and(*acc, r);
  }
  return PD_OK;
}

/* anyOf (one = false) and oneOf (one = true) over the schemas of list. */
static pd_status pd__some(pd__val *c, uint32_t v, uint32_t list, bool one, int depth,
                          pd_sc_verdict *out) {
  uint32_t yes = 0, unknown = 0;
  for (uint32_t i = 0; i < pd_json_len(&c->sc->doc, list); i++) {
    pd_sc_verdict r;
    pd_status st = pd__schema(c, v, pd_json_elem(&c->sc->doc, list, i), depth + 1, &r);
    if (st) return st;
    yes += r == PD_SC_YES, unknown += r == PD_SC_UNKNOWN;
  }
  if (!one) *out = yes ? PD_SC_YES : unknown ? PD_SC_UNKNOWN : PD_SC_NO;
  else *out = yes > 1 ? PD_SC_NO : unknown ? PD_SC_UNKNOWN : pd__of(yes == 1);
  return PD_OK;
}

/* Items of array v from index `from` on (to the end) against schema sub. */
static pd_status pd__items(pd__val *c, uint32_t v, uint32_t from, uint32_t sub, int depth,
                           pd_sc_verdict *acc) {
  for (uint32_t i = from; i < pd_json_len(&c->sc->doc, v) && *acc != PD_SC_NO; i++) {
    pd_sc_verdict r;
    pd_status st = pd__schema(c, pd_json_elem(&c->sc->doc, v, i), sub, depth + 1, &r);
    if (st) return st;
    *acc = pd__and(*acc, r);
  }
  return PD_OK;
}

/* contains with its sibling minContains (default 1) and maxContains. */
static pd_status pd__contains(pd__val *c, uint32_t v, uint32_t s, uint32_t sub, int depth,
                              pd_sc_verdict *out) {
  pd_sc *sc = c->sc;
  uint32_t lo = 1, hi = UINT32_MAX, yes = 0, unknown = 0;
  uint32_t mn = pd_json_get(&sc->doc, s, "minContains");
  uint32_t mx = pd_json_get(&sc->doc, s, "maxContains");
  if ((mn != PD_JSON_NONE && !pd_sc_uint(sc, mn, &lo)) ||
      (mx != PD_JSON_NONE && !pd_sc_uint(sc, mx, &hi)))
    return *out = PD_SC_UNKNOWN, PD_OK;
  for (uint32_t i = 0; i < pd_json_len(&sc->doc, v); i++) {
    pd_sc_verdict r;
    pd_status st = pd__schema(c, pd_json_elem(&sc->doc, v, i), sub, depth + 1, &r);
    if (st) return st;
    yes += r == PD_SC_YES, unknown += r == PD_SC_UNKNOWN;
  }
  if (yes >= lo && yes + unknown <= hi) *out = PD_SC_YES;
  else if (yes + unknown < lo || yes > hi) *out = PD_SC_NO;
  else *out = PD_SC_UNKNOWN;
  return PD_OK;
}

/* Whether key (a string node) is named by properties or matched by a pattern
 * of patternProperties of schema s: *named, or UNKNOWN when a pattern cannot
 * be tested. */
static pd_status pd__covered(pd__val *c, uint32_t s, uint32_t key, pd_sc_verdict *named) {
  pd_sc *sc = c->sc;
  uint32_t props = pd_json_get(&sc->doc, s, "properties");
  uint32_t pats = pd_json_get(&sc->doc, s, "patternProperties");
  *named = pd__of(pd_json_get(&sc->doc, props, pd_json_str(&sc->doc, key)) != PD_JSON_NONE);
  uint32_t n_pats = pats == PD_JSON_NONE ? 0 : pd_json_len(&sc->doc, pats);
  for (uint32_t i = 0; i < n_pats && *named != PD_SC_YES; i++) {
    bool m;
    if (pd_sc_pattern_test(sc, pd_json_mkey(&sc->doc, pats, i), pd_json_str(&sc->doc, key),
                           pd_json_at(&sc->doc, key)->n, &m))
      return *named = PD_SC_UNKNOWN, PD_OK;
    if (m) *named = PD_SC_YES;
  }
  return PD_OK;
}

/* The object keywords; v is an object without NUL in its keys. */
static pd_status pd__object_kw(pd__val *c, uint32_t v, uint32_t s, const char *name, uint32_t x,
                               int depth, pd_sc_verdict *out) {
  pd_sc *sc = c->sc;
  const pd_json_doc *d = &sc->doc;
  uint32_t n = 0, bound;
  pd_status st = PD_OK;
  for (uint32_t i = 0; i < pd_json_len(d, v); i++) n += pd__kept(sc, v, i);
  *out = PD_SC_YES;
  if (!strcmp(name, "minProperties") || !strcmp(name, "maxProperties")) {
    if (!pd_sc_uint(sc, x, &bound)) return *out = PD_SC_UNKNOWN, PD_OK;
    *out = pd__of(name[1] == 'i' ? n >= bound : n <= bound);
  } else if (!strcmp(name, "required")) {
    if (pd_json_at(d, x)->kind != PD_JSON_ARRAY) return *out = PD_SC_UNKNOWN, PD_OK;
    for (uint32_t i = 0; i < pd_json_len(d, x) && *out == PD_SC_YES; i++) {
      uint32_t k = pd_json_elem(d, x, i);
      if (pd_json_at(d, k)->kind != PD_JSON_STRING ||
          strlen(pd_json_str(d, k)) != pd_json_at(d, k)->n) /* a lookup cannot name a NUL */
        return *out = PD_SC_UNKNOWN, PD_OK;
      *out = pd__of(pd_json_get(d, v, pd_json_str(d, k)) != PD_JSON_NONE);
    }
  } else if (!strcmp(name, "properties") || !strcmp(name, "patternProperties") ||
             !strcmp(name, "additionalProperties") || !strcmp(name, "propertyNames")) {
    bool props = !strcmp(name, "properties"), pats = !strcmp(name, "patternProperties");
    bool names = !strcmp(name, "propertyNames");
    if ((props || pats) && pd_json_at(d, x)->kind != PD_JSON_OBJECT)
      return *out = PD_SC_UNKNOWN, PD_OK;
    for (uint32_t i = 0; i < pd_json_len(d, v) && *out != PD_SC_NO && !st; i++) {
      if (!pd__kept(sc, v, i)) continue;
      uint32_t key = pd_json_mkey(d, v, i), val = pd_json_mval(d, v, i), sub = PD_JSON_NONE;
      pd_sc_verdict r = PD_SC_YES;
      if (props) {
        sub = pd_json_get(d, x, pd_json_str(d, key));
      } else if (names) { /* the key as a string value */
        st = pd__schema(c, key, x, depth + 1, &r);
      } else if (pats) { /* every pattern that matches */
        for (uint32_t k = 0; k < pd_json_len(d, x) && r != PD_SC_NO && !st; k++) {
          bool m;
          if (pd_sc_pattern_test(sc, pd_json_mkey(d, x, k), pd_json_str(d, key),
                                 pd_json_at(d, key)->n, &m)) {
            r = PD_SC_UNKNOWN;
            break;
          }
          pd_sc_verdict one = PD_SC_YES;
          if (m) st = pd__schema(c, val, pd_json_mval(d, x, k), depth + 1, &one);
          r = pd__and(r, one);
        }
      } else { /* additionalProperties: the keys neither named nor matched */
        pd_sc_verdict named;
        if ((st = pd__covered(c, s, key, &named))) return st;
        if (named == PD_SC_NO) sub = x;
        else r = named;
      }
      if (sub != PD_JSON_NONE && !st) st = pd__schema(c, val, sub, depth + 1, &r);
      *out = pd__and(*out, r);
    }
  } else if (!strcmp(name, "dependentRequired") || !strcmp(name, "dependentSchemas") ||
             !strcmp(name, "dependencies")) {
    bool lists = strcmp(name, "dependentSchemas"), schemas = strcmp(name, "dependentRequired");
    if (pd_json_at(d, x)->kind != PD_JSON_OBJECT) return *out = PD_SC_UNKNOWN, PD_OK;
    for (uint32_t i = 0; i < pd_json_len(d, x) && *out != PD_SC_NO && !st; i++) {
      uint32_t k = pd_json_mkey(d, x, i), dep = pd_json_mval(d, x, i);
      if (strlen(pd_json_str(d, k)) != pd_json_at(d, k)->n) return *out = PD_SC_UNKNOWN, PD_OK;
      if (pd_json_get(d, v, pd_json_str(d, k)) == PD_JSON_NONE) continue;
      pd_sc_verdict r = PD_SC_UNKNOWN;
      if (pd_json_at(d, dep)->kind == PD_JSON_ARRAY && lists)
        st = pd__object_kw(c, v, s, "required", dep, depth, &r);
      else if (pd_json_at(d, dep)->kind != PD_JSON_ARRAY && schemas)
        st = pd__schema(c, v, dep, depth + 1, &r);
      *out = pd__and(*out, r);
    }
  } else {
    *out = PD_SC_UNKNOWN; /* unevaluatedProperties */
  }
  return st;
}

/* The array keywords. */
static pd_status pd__array_kw(pd__val *c, uint32_t v, uint32_t s, const char *name, uint32_t x,
                              int depth, pd_sc_verdict *out) {
  pd_sc *sc = c->sc;
  const pd_json_doc *d = &sc->doc;
  uint32_t n = pd_json_len(d, v), bound;
  uint32_t items = pd_json_get(d, s, "items"), prefix = pd_json_get(d, s, "prefixItems");
  bool tuple = items != PD_JSON_NONE && pd_json_at(d, items)->kind == PD_JSON_ARRAY;
  *out = PD_SC_YES;
  if (!strcmp(name, "minItems") || !strcmp(name, "maxItems")) {
    if (!pd_sc_uint(sc, x, &bound)) return *out = PD_SC_UNKNOWN, PD_OK;
    *out = pd__of(name[1] == 'i' ? n >= bound : n <= bound);
  } else if (!strcmp(name, "prefixItems") || (!strcmp(name, "items") && tuple)) {
    if (pd_json_at(d, x)->kind != PD_JSON_ARRAY || (tuple && prefix != PD_JSON_NONE))
      return *out = PD_SC_UNKNOWN, PD_OK; /* both tuple forms at once */
    for (uint32_t i = 0; i < n && i < pd_json_len(d, x) && *out != PD_SC_NO; i++) {
      pd_sc_verdict r;
      pd_status st = pd__schema(c, pd_json_elem(d, v, i), pd_json_elem(d, x, i), depth + 1, &r);
      if (st) return st;
      *out = pd__and(*out, r);
    }
  } else if (!strcmp(name, "items")) { /* after prefixItems' */
    uint32_t from = 0;
    if (prefix != PD_JSON_NONE) {
      if (pd_json_at(d, prefix)->kind != PD_JSON_ARRAY) return *out = PD_SC_UNKNOWN, PD_OK;
      from = pd_json_len(d, prefix);
    }
    return pd__items(c, v, from, x, depth, out);
  } else if (!strcmp(name, "additionalItems")) { /* only after a tuple of items */
    if (tuple) return pd__items(c, v, pd_json_len(d, items), x, depth, out);
  } else if (!strcmp(name, "uniqueItems")) {
    if (pd_json_at(d, x)->kind == PD_JSON_TRUE)
      for (uint32_t i = 0; i < n && *out == PD_SC_YES; i++)
        for (uint32_t j = i + 1; j < n && *out == PD_SC_YES; j++)
          if (pd_json_equal(d, pd_json_elem(d, v, i), pd_json_elem(d, v, j))) *out = PD_SC_NO;
  } else if (!strcmp(name, "contains")) {
    return pd__contains(c, v, s, x, depth, out);
  } else if (strcmp(name, "minContains") && strcmp(name, "maxContains")) {
    *out = PD_SC_UNKNOWN; /* unevaluatedItems */
  }
  return PD_OK;
}

/* multipleOf: v = V 10^a and x = X 10^b (V, X their significant digits) give
 * v / x = V / X 10^(a-b). For a >= b that is whether X divides V 10^(a-b),
 * digit by digit modulo X; for a < b never, as V has no trailing zero while
 * X 10^(b-a) ends in one. Decided for X below 2^32 and short numbers. */
static pd_sc_verdict pd__multiple(pd_sc *sc, uint32_t v, uint32_t x) {
  const pd_json_doc *d = &sc->doc;
  char bv[64], bx[64];
  pd_json_dec a, b;
  if (pd_json_at(d, x)->kind != PD_JSON_NUMBER || pd_json_at(d, v)->n >= sizeof bv ||
      pd_json_at(d, x)->n >= sizeof bx)
    return PD_SC_UNKNOWN;
  pd_json_number(d, v, bv, &a);
  pd_json_number(d, x, bx, &b);
  if (b.n == 0 || b.neg || b.n > 9) return PD_SC_UNKNOWN; /* not positive, or too long */
  if (a.n == 0) return PD_SC_YES;                        /* zero */
  int64_t shift = (a.exp - (int64_t)a.n) - (b.exp - (int64_t)b.n);
  if (shift < 0) return PD_SC_NO;
  if (shift > 4096) return PD_SC_UNKNOWN;
  uint64_t X = 0, r = 0;
  for (size_t i = 0; i < b.n; i++) X = X * 10 + (uint64_t)(b.digits[i] - '0');
  for (size_t i = 0; i < a.n; i++) r = (r * 10 + (uint64_t)(a.digits[i] - '0')) % X;
  for (int64_t i = 0; i < shift; i++) r = r * 10 % X;
  return pd__of(r == 0);
}

/* The number bounds (draft-04: a boolean exclusive bound turns its sibling
 * strict) and multipleOf. */
static pd_sc_verdict pd__number_kw(pd_sc *sc, uint32_t v, uint32_t s, const char *name,
                                   uint32_t x) {
  const pd_json_doc *d = &sc->doc;
  bool low = strstr(name, "inimum") != NULL, excl = name[0] == 'e';
  if (!strcmp(name, "multipleOf")) return pd__multiple(sc, v, x);
  if (!strcmp(name, PD_SC_NOT_MULTIPLE)) return pd__not(pd__multiple(sc, v, x));
  if (!strstr(name, "imum")) return PD_SC_UNKNOWN;
  if (pd_json_at(d, x)->kind == PD_JSON_TRUE || pd_json_at(d, x)->kind == PD_JSON_FALSE)
    return excl ? PD_SC_YES : PD_SC_UNKNOWN; /* decided with the sibling bound */
  if (pd_json_at(d, x)->kind != PD_JSON_NUMBER) return PD_SC_UNKNOWN;
  if (!excl) {
    uint32_t e = pd_json_get(d, s, low ? "exclusiveMinimum" : "exclusiveMaximum");
    excl = e != PD_JSON_NONE && pd_json_at(d, e)->kind == PD_JSON_TRUE;
  }
  int cmp = pd_sc_value_cmp(sc, v, x);
  return pd__of(low ? (excl ? cmp > 0 : cmp >= 0) : (excl ? cmp < 0 : cmp <= 0));
}

static pd_status pd__kw(pd__val *c, uint32_t v, uint32_t s, const char *name, uint32_t x,
                        int depth, pd_sc_verdict *out) {
  pd_sc *sc = c->sc;
  const pd_json_doc *d = &sc->doc;
  uint32_t t = pd__type(sc, v), applies = pd_sc_kw_constrains(name), mask;
  *out = PD_SC_UNKNOWN;
  if (!strncmp(name, "$pd:", 4) && !pd_sc_derived(sc, s))
    return *out = PD_SC_YES, PD_OK; /* honoured on derived schemas only */
  if (!applies) return *out = PD_SC_YES, PD_OK; /* an annotation or unknown: ignored */
  if (applies != PD_SC_ALL && !(applies & t)) return *out = PD_SC_YES, PD_OK;
  bool list = pd_json_at(d, x)->kind == PD_JSON_ARRAY;
  if (!strcmp(name, "type")) {
    if (pd_sc_type_mask_quiet(sc, x, &mask)) *out = pd__of(mask & t);
  } else if (!strcmp(name, "enum") || !strcmp(name, "const")) {
    if (name[0] == 'c' || list) *out = pd__of(pd_sc_in_values(sc, x, name[0] == 'c', v));
  } else if (!strcmp(name, "$ref") || !strcmp(name, "$dynamicRef")) {
    uint32_t target;
    if (pd_sc_ref_quiet(sc, s, x, name[1] == 'd', &target))
      return pd__schema(c, v, target, depth + 1, out);
  } else if (!strcmp(name, "allOf") && list) {
    *out = PD_SC_YES;
    return pd__all(c, v, x, depth, out);
  } else if ((!strcmp(name, "anyOf") || !strcmp(name, "oneOf")) && list) {
    return pd__some(c, v, x, name[0] == 'o', depth, out);
  } else if (!strcmp(name, "not")) {
    pd_status st = pd__schema(c, v, x, depth + 1, out);
    *out = pd__not(*out);
    return st;
  } else if (!strcmp(name, "if")) {
    pd_sc_verdict cond, r[2] = {PD_SC_YES, PD_SC_YES};
    pd_status st = pd__schema(c, v, x, depth + 1, &cond);
    const char *branch[2] = {"then", "else"};
    for (int k = 0; k < 2 && !st; k++) {
      uint32_t b = pd_json_get(d, s, branch[k]);
      if (b != PD_JSON_NONE && cond != (k ? PD_SC_YES : PD_SC_NO))
        st = pd__schema(c, v, b, depth + 1, &r[k]);
    }
    *out = cond == PD_SC_YES ? r[0] : cond == PD_SC_NO ? r[1] : pd__and(r[0], r[1]);
    if (cond == PD_SC_UNKNOWN && *out != PD_SC_YES) *out = PD_SC_UNKNOWN;
    return st;
  } else if (!strcmp(name, "then") || !strcmp(name, "else")) {
    *out = PD_SC_YES; /* with "if" */
  } else if (t == PD_SC_STR) {
    const char *str = pd_json_str(d, v);
    uint32_t bound, len = pd_json_at(d, v)->n;
    bool m;
    if (!strcmp(name, PD_SC_NOT_IN)) {
      *out = pd__of(!pd_sc_in_values(sc, x, false, v));
    } else if (!strcmp(name, PD_SC_NOT_PATTERN)) {
      pd_status st = pd_sc_pattern_test(sc, x, str, len, &m);
      if (!st) *out = pd__of(!m);
      return st;
    } else if (!strcmp(name, PD_SC_NOT_FORMAT)) {
      bool known;
      pd_status st = pd_sc_string_meets(sc, "format", x, str, len, &known, &m);
      if (!st && known) *out = pd__of(!m);
      return st;
    } else if (!strcmp(name, "minLength") || !strcmp(name, "maxLength")) {
      uint64_t cps = 0; /* code points: bytes that do not continue a sequence */
      for (uint32_t i = 0; i < len; i++) cps += ((uint8_t)str[i] & 0xC0) != 0x80;
      if (pd_sc_uint(sc, x, &bound)) *out = pd__of(name[1] == 'i' ? cps >= bound : cps <= bound);
    } else {
      bool known, ok;
      pd_status st = pd_sc_string_meets(sc, name, x, str, len, &known, &ok);
      if (!st && known) *out = pd__of(ok);
      return st;
    }
  } else if (t & PD_SC_NUM) {
    *out = pd__number_kw(sc, v, s, name, x);
  } else if (t == PD_SC_ARR) {
    return pd__array_kw(c, v, s, name, x, depth, out);
  } else if (t == PD_SC_OBJ && !pd__has_nul_key(sc, v)) {
    return pd__object_kw(c, v, s, name, x, depth, out);
  }
  return PD_OK;
}

/* --strict: schema s silent on additionalProperties (with properties or a
 * type) closes its objects, as the compiler does: v's keys must be declared
 * or matched. PD_SC_YES where that does not apply. */
static pd_status pd__strict_closed(pd__val *c, uint32_t v, uint32_t s, pd_sc_verdict *out) {
  pd_sc *sc = c->sc;
  const pd_json_doc *d = &sc->doc;
  *out = PD_SC_YES;
  if (pd__type(sc, v) != PD_SC_OBJ || !pd_sc_strict_closes(sc, s)) return PD_OK;
  if (pd__has_nul_key(sc, v)) return *out = PD_SC_UNKNOWN, PD_OK;
  for (uint32_t i = 0; i < pd_json_len(d, v) && *out != PD_SC_NO; i++) {
    pd_sc_verdict named;
    pd_status st = pd__covered(c, s, pd_json_mkey(d, v, i), &named);
    if (st) return st;
    *out = pd__and(*out, named);
  }
  return PD_OK;
}

pd_status pd_sc_value_closed(pd_sc *sc, uint32_t v, uint32_t s, pd_sc_verdict *out) {
  pd__val c = {sc, 0};
  return pd__strict_closed(&c, v, s, out);
}

/* Every assertion of schema s on v (draft-07 and before: a $ref alone). */
static pd_status pd__schema(pd__val *c, uint32_t v, uint32_t s, int depth, pd_sc_verdict *out) {
  pd_sc *sc = c->sc;
  const pd_json_doc *d = &sc->doc;
  *out = PD_SC_UNKNOWN;
  if (depth > PD__DEPTH || ++c->steps > PD__STEPS) return PD_OK;
  if (pd_json_at(d, s)->kind == PD_JSON_TRUE || pd_json_at(d, s)->kind == PD_JSON_FALSE)
    return *out = pd__of(pd_json_at(d, s)->kind == PD_JSON_TRUE), PD_OK;
  if (pd_json_at(d, s)->kind != PD_JSON_OBJECT) return PD_OK;
  uint32_t ref = pd_json_get(d, s, "$ref");
  if (sc->ref_alone && ref != PD_JSON_NONE) return pd__kw(c, v, s, "$ref", ref, depth, out);
  *out = PD_SC_YES;
  for (uint32_t i = 0; i < pd_json_len(d, s) && *out != PD_SC_NO; i++) {
    pd_sc_verdict r;
    pd_status st = pd__kw(c, v, s, pd_json_str(d, pd_json_mkey(d, s, i)), pd_json_mval(d, s, i),
                          depth, &r);
    if (st) return st;
    *out = pd__and(*out, r);
  }
  if (*out == PD_SC_NO) return PD_OK;
  pd_sc_verdict closed;
  pd_status st = pd__strict_closed(c, v, s, &closed);
  *out = pd__and(*out, closed);
  return st;
}

pd_status pd_sc_value_kw(pd_sc *sc, uint32_t v, uint32_t s, const char *name, uint32_t x,
                         pd_sc_verdict *out) {
  pd__val c = {sc, 0};
  if (sc->ref_alone && pd_json_get(&sc->doc, s, "$ref") != PD_JSON_NONE && strcmp(name, "$ref"))
    return *out = PD_SC_YES, PD_OK; /* a sibling of a $ref that stands alone */
  return pd__kw(&c, v, s, name, x, 0, out);
}
