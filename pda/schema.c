/* schema.c - JSON Schema -> grammar IR: the public entry points and the driver
 * (conjunctions, allOf / anyOf / oneOf / if / not, enum / const, type dispatch).
 * The model is described in schema_ctx.h. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "pda/grammar.h"
#include "pda/schema.h"
#include "pda/schema_ctx.h"
#include "pda/uri.h"

/* In FIXED mode with an indent the whitespace depends on the nesting level, so
 * each level needs its own rules; deeper values than this are refused (a
 * documented false negative, never a false positive). */
#define PD_SC_INDENT_DEPTH 32u

/* ------------------------------------------------------------ keywords */

typedef enum { PD__KW_ENFORCED, PD__KW_REFUSED, PD__KW_ANNOTATION } pd__kw_how;

typedef struct pd__kw {
  const char *name;
  uint32_t types; /* the instance types the keyword constrains */
  pd__kw_how how;
} pd__kw;

/* Every keyword the compiler knows. Unknown keywords are ignored, as the
 * specification says; REFUSED ones fail (or are dropped under lenient) when
 * they constrain a type the position allows. */
static const pd__kw pd__keywords[] = {
    {"type", PD_SC_ALL, PD__KW_ENFORCED},
    {"enum", PD_SC_ALL, PD__KW_ENFORCED},
    {"const", PD_SC_ALL, PD__KW_ENFORCED},
    {"allOf", PD_SC_ALL, PD__KW_ENFORCED},
    {"anyOf", PD_SC_ALL, PD__KW_ENFORCED},
    {"oneOf", PD_SC_ALL, PD__KW_ENFORCED},
    {"not", PD_SC_ALL, PD__KW_ENFORCED},
    {"if", PD_SC_ALL, PD__KW_ENFORCED},
    {"then", PD_SC_ALL, PD__KW_ENFORCED},
    {"else", PD_SC_ALL, PD__KW_ENFORCED},
    {"$ref", PD_SC_ALL, PD__KW_ENFORCED},
    {"minLength", PD_SC_STR, PD__KW_ENFORCED},
    {"maxLength", PD_SC_STR, PD__KW_ENFORCED},
    {"pattern", PD_SC_STR, PD__KW_ENFORCED},
    {"format", PD_SC_STR, PD__KW_ENFORCED},
    {"minimum", PD_SC_NUM, PD__KW_ENFORCED},
    {"maximum", PD_SC_NUM, PD__KW_ENFORCED},
    {"exclusiveMinimum", PD_SC_NUM, PD__KW_ENFORCED},
    {"exclusiveMaximum", PD_SC_NUM, PD__KW_ENFORCED},
    {"multipleOf", PD_SC_NUM, PD__KW_ENFORCED},
    {"items", PD_SC_ARR, PD__KW_ENFORCED},
    {"prefixItems", PD_SC_ARR, PD__KW_ENFORCED},
    {"additionalItems", PD_SC_ARR, PD__KW_ENFORCED},
    {"minItems", PD_SC_ARR, PD__KW_ENFORCED},
    {"maxItems", PD_SC_ARR, PD__KW_ENFORCED},
    {"uniqueItems", PD_SC_ARR, PD__KW_ENFORCED},
    {"contains", PD_SC_ARR, PD__KW_ENFORCED},
    {"minContains", PD_SC_ARR, PD__KW_ENFORCED},
    {"maxContains", PD_SC_ARR, PD__KW_ENFORCED},
    {"unevaluatedItems", PD_SC_ARR, PD__KW_ENFORCED},
    {"properties", PD_SC_OBJ, PD__KW_ENFORCED},
    {"required", PD_SC_OBJ, PD__KW_ENFORCED},
    {"additionalProperties", PD_SC_OBJ, PD__KW_ENFORCED},
    {"minProperties", PD_SC_OBJ, PD__KW_ENFORCED},
    {"maxProperties", PD_SC_OBJ, PD__KW_ENFORCED},
    {"patternProperties", PD_SC_OBJ, PD__KW_ENFORCED},
    {"propertyNames", PD_SC_OBJ, PD__KW_ENFORCED},
    {"dependentRequired", PD_SC_OBJ, PD__KW_ENFORCED},
    {"dependentSchemas", PD_SC_OBJ, PD__KW_ENFORCED},
    {"dependencies", PD_SC_OBJ, PD__KW_ENFORCED}, /* array form; schema form as dependentSchemas */
    {"unevaluatedProperties", PD_SC_OBJ, PD__KW_ENFORCED},
    {"$dynamicRef", PD_SC_ALL, PD__KW_ENFORCED}, /* where it is a static $ref */
    {PD_SC_NOT_IN, PD_SC_STR, PD__KW_ENFORCED},  /* on derived schemas: proofs see them */
    {PD_SC_NOT_PATTERN, PD_SC_STR, PD__KW_ENFORCED},
    {PD_SC_NOT_MULTIPLE, PD_SC_NUM, PD__KW_ENFORCED},
    {PD_SC_NOT_FORMAT, PD_SC_STR, PD__KW_ENFORCED},
    {PD_SC_SOME_KEY, PD_SC_OBJ, PD__KW_ENFORCED},
    {PD_SC_SOME_VALUE, PD_SC_OBJ, PD__KW_ENFORCED},
    {PD_SC_SOME_PATTERN, PD_SC_OBJ, PD__KW_ENFORCED},
    {PD_SC_SOME_NOT_MATCHING, PD_SC_OBJ, PD__KW_ENFORCED},
    {PD_SC_NEG_OF, PD_SC_ALL, PD__KW_ENFORCED},
    {"$recursiveRef", PD_SC_ALL, PD__KW_REFUSED},
};

static const pd__kw *pd__kw_find(const char *name) {
  for (size_t i = 0; i < sizeof pd__keywords / sizeof pd__keywords[0]; i++)
    if (strcmp(pd__keywords[i].name, name) == 0) return &pd__keywords[i];
  return NULL;
}

bool pd_sc_kw_asserts(const char *name) {
  const pd__kw *kw = pd__kw_find(name);
  return kw && kw->how != PD__KW_ANNOTATION;
}

uint32_t pd_sc_kw_constrains(const char *name) {
  const pd__kw *kw = pd__kw_find(name);
  return kw && kw->how != PD__KW_ANNOTATION ? kw->types : 0;
}

/* ------------------------------------------------------------ errors */

static void pd__pointer(pd_sc *sc, uint32_t at, char *buf, size_t cap) {
  if (at == PD_JSON_NONE) {
    snprintf(buf, cap, "(generated)");
    return;
  }
  pd_json_pointer(&sc->doc, at, buf, cap);
  if (!buf[0]) snprintf(buf, cap, "/");
}

pd_status pd_sc_fail(pd_sc *sc, pd_status code, uint32_t at, const char *fmt, ...) {
  char msg[160], ptr[96];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  pd__pointer(sc, at, ptr, sizeof ptr);
  size_t pos = at == PD_JSON_NONE ? 0 : pd_json_at(&sc->doc, at)->pos;
  if (at != PD_JSON_NONE && at >= sc->n_main && at < sc->n_parsed) { /* in a schema_docs[i] */
    uint32_t top = at;
    while (pd_json_at(&sc->doc, top)->parent != PD_JSON_NONE)
      top = pd_json_at(&sc->doc, top)->parent;
    for (size_t i = 0; i < sc->doc_roots.len; i++)
      if (sc->doc_roots.data[i] == top)
        return pd__fail(sc->err, code, "%s at %s in %s", msg, ptr, sc->opts.schema_docs[i].uri);
  }
  return pd__fail_at(sc->err, code, sc->text, pos, "%s at %s", msg, ptr);
}

pd_status pd_sc_unsupported(pd_sc *sc, uint32_t at, const char *kw, const char *why) {
  char ptr[96];
  pd__pointer(sc, at, ptr, sizeof ptr);
  if (!sc->opts.lenient)
    return pd_sc_fail(sc, PD_ERR_UNSUPPORTED, at, "keyword '%s' cannot be enforced exactly (%s)",
                      kw, why);
  size_t need = strlen(kw) + strlen(ptr) + 6;
  if (!pd_array_reserve(sc->ir.alloc, &sc->relaxed, need)) return pd__nomem(sc->err);
  sc->relaxed.len +=
      (size_t)snprintf(sc->relaxed.data + sc->relaxed.len, need, "%s at %s\n", kw, ptr);
  return PD_OK;
}

pd_status pd_sc_ir_status(pd_sc *sc) {
  return sc->ir.oom ? pd__nomem(sc->err) : PD_OK;
}

/* ------------------------------------------------------------ helpers */

uint32_t pd_sc_kw(const pd_sc *sc, const pd_sc_conj *c, size_t i, const char *kw) {
  return pd_json_get(&sc->doc, pd_sc_member(sc, c, i), kw);
}

bool pd_sc_uint(const pd_sc *sc, uint32_t node, uint32_t *out) {
  if (node == PD_JSON_NONE || pd_json_at(&sc->doc, node)->kind != PD_JSON_NUMBER) return false;
  char buf[64];
  if (pd_json_at(&sc->doc, node)->n >= sizeof buf) return false;
  pd_json_dec d;
  pd_json_number(&sc->doc, node, buf, &d);
  if (d.neg || !pd_json_dec_is_int(&d) || d.exp > 10) return false;
  uint64_t v = 0;
  for (int64_t k = 0; k < d.exp; k++)
    v = v * 10 + ((size_t)k < d.n ? (uint64_t)(d.digits[k] - '0') : 0);
  if (v >= UINT32_MAX) return false;
  *out = (uint32_t)v;
  return true;
}

pd_status pd_sc_bound(pd_sc *sc, const pd_sc_conj *c, const char *kw, bool want_max,
                      uint32_t *out) {
  *out = want_max ? PD_IR_INF : 0;
  for (size_t i = 0; i < c->n; i++) {
    uint32_t v = pd_sc_kw(sc, c, i, kw), x;
    if (v == PD_JSON_NONE) continue;
    if (!pd_sc_uint(sc, v, &x)) {
      const pd_json_node *n = pd_json_at(&sc->doc, v);
      char first = n->kind == PD_JSON_NUMBER ? pd_json_str(&sc->doc, v)[0] : '-';
      bool integral = n->kind == PD_JSON_NUMBER && !strchr(pd_json_str(&sc->doc, v), '.') &&
                      !strpbrk(pd_json_str(&sc->doc, v), "eE");
      if (first == '-' || !integral)
        return pd_sc_fail(sc, PD_ERR_SEMANTIC, v, "'%s' must be a non-negative integer", kw);
      if (!want_max) return pd_sc_unsupported(sc, v, kw, "bound too large");
      continue; /* a maximum beyond 2^32 does not constrain a generated value */
    }
    if (want_max ? x < *out : x > *out) *out = x;
  }
  return PD_OK;
}

static uint32_t pd__type_bit(const pd_sc *sc, uint32_t name) {
  static const char *const names[] = {"null",   "boolean", "integer", "number",
                                      "string", "array",   "object"};
  static const uint32_t bits[] = {PD_SC_NULL, PD_SC_BOOL, PD_SC_INT, PD_SC_NUM,
                                  PD_SC_STR,  PD_SC_ARR,  PD_SC_OBJ};
  for (int k = 0; k < 7; k++)
    if (pd_json_str_eq(&sc->doc, name, names[k])) return bits[k];
  return 0;
}

/* The types a "type" keyword value allows. */
pd_status pd_sc_type_mask(pd_sc *sc, uint32_t t, uint32_t *mask) {
  const pd_json_node *n = pd_json_at(&sc->doc, t);
  if (n->kind == PD_JSON_STRING) {
    *mask = pd__type_bit(sc, t);
    if (!*mask) return pd_sc_fail(sc, PD_ERR_SEMANTIC, t, "unknown type");
    return PD_OK;
  }
  if (n->kind != PD_JSON_ARRAY) return pd_sc_fail(sc, PD_ERR_SEMANTIC, t, "bad 'type'");
  *mask = 0;
  for (uint32_t i = 0; i < n->n; i++) {
    uint32_t e = pd_json_elem(&sc->doc, t, i), b;
    if (pd_json_at(&sc->doc, e)->kind != PD_JSON_STRING || !(b = pd__type_bit(sc, e)))
      return pd_sc_fail(sc, PD_ERR_SEMANTIC, e, "unknown type");
    *mask |= b;
  }
  return PD_OK;
}

/* The type of a JSON value as a mask bit. */
bool pd_sc_type_mask_quiet(pd_sc *sc, uint32_t t, uint32_t *mask) {
  pd_error *saved = sc->err;
  sc->err = NULL;
  bool ok = pd_sc_type_mask(sc, t, mask) == PD_OK;
  sc->err = saved;
  return ok;
}

uint32_t pd_sc_value_type(pd_sc *sc, uint32_t v) {
  const pd_json_node *n = pd_json_at(&sc->doc, v);
  switch ((pd_json_kind)n->kind) {
    case PD_JSON_NULL:
      return PD_SC_NULL;
    case PD_JSON_FALSE:
    case PD_JSON_TRUE:
      return PD_SC_BOOL;
    case PD_JSON_STRING:
      return PD_SC_STR;
    case PD_JSON_ARRAY:
      return PD_SC_ARR;
    case PD_JSON_OBJECT:
      return PD_SC_OBJ;
    case PD_JSON_NUMBER:
      break;
  }
  /* integral iff no fraction digit is nonzero beyond what the exponent shifts:
   * decided on the decimal form, so any length works without a buffer */
  const char *t = pd_json_str(&sc->doc, v);
  size_t len = n->n, i = 0, frac_end = 0;
  int64_t frac_digits = 0, exp = 0;
  while (i < len && t[i] != '.' && t[i] != 'e' && t[i] != 'E') i++;
  if (i < len && t[i] == '.') {
    size_t start = ++i;
    while (i < len && t[i] >= '0' && t[i] <= '9') i++;
    frac_end = i;
    while (frac_end > start && t[frac_end - 1] == '0') frac_end--;
    frac_digits = (int64_t)(frac_end - start);
  }
  if (i < len && (t[i] == 'e' || t[i] == 'E')) {
    bool neg = t[++i] == '-';
    if (t[i] == '-' || t[i] == '+') i++;
    for (; i < len && exp < ((int64_t)1 << 40); i++) exp = exp * 10 + (t[i] - '0');
    if (neg) exp = -exp;
  }
  if (frac_digits <= exp) return PD_SC_INT;
  if (frac_digits > 0) return PD_SC_FRAC; /* its last nonzero digit stays below the point */
  /* no fraction, negative exponent ("100e-2"): integral iff enough trailing zeros */
  pd_json_dec d;
  char *buf = pd__malloc(sc->ir.alloc, len + 1);
  if (!buf) {
    sc->ir.oom = true; /* surfaces as PD_ERR_NOMEM at the next status check */
    return PD_SC_FRAC;
  }
  pd_json_number(&sc->doc, v, buf, &d);
  uint32_t r = pd_json_dec_is_int(&d) ? PD_SC_INT : PD_SC_FRAC;
  pd__free(sc->ir.alloc, buf);
  return r;
}

/* ------------------------------------------------------------ annotations */

static bool pd__in_conj(const pd_sc *sc, const pd_sc_conj *c, uint32_t node) {
  for (size_t i = 0; i < c->n; i++)
    if (pd_sc_member(sc, c, i) == node) return true;
  return false;
}

typedef PD_ARRAY(uint32_t) pd__u32s;

static bool pd__reach_add(pd_sc *sc, pd__u32s *r, uint32_t node) {
  if (node == PD_JSON_NONE) return true;
  for (size_t i = 0; i < r->len; i++)
    if (r->data[i] == node) return true;
  return pd_array_push(sc->ir.alloc, r, node);
}

/* Adds the elements of array kw of s (only those in the conj when in_conj). */
static bool pd__reach_list(pd_sc *sc, const pd_sc_conj *c, pd__u32s *r, uint32_t s, const char *kw,
                           bool in_conj) {
  uint32_t a = pd_json_get(&sc->doc, s, kw);
  if (a == PD_JSON_NONE || pd_json_at(&sc->doc, a)->kind != PD_JSON_ARRAY) return true;
  for (uint32_t i = 0; i < pd_json_len(&sc->doc, a); i++) {
    uint32_t e = pd_json_elem(&sc->doc, a, i);
    if ((!in_conj || pd__in_conj(sc, c, e)) && !pd__reach_add(sc, r, e)) return false;
  }
  return true;
}

uint32_t *pd_sc_reach(pd_sc *sc, const pd_sc_conj *c, uint32_t m, size_t *n) {
  pd__u32s r = {0};
  bool ok = pd__reach_add(sc, &r, m);
  for (size_t i = 0; ok && i < r.len; i++) {
    uint32_t s = r.data[i], ref, t;
    if (pd_json_at(&sc->doc, s)->kind != PD_JSON_OBJECT) continue;
    ok = pd__reach_list(sc, c, &r, s, "allOf", false) &&
         pd__reach_list(sc, c, &r, s, "anyOf", true) && pd__reach_list(sc, c, &r, s, "oneOf", true);
    for (int d = 0; d < 2 && ok; d++) {
      uint32_t deps = pd_json_get(&sc->doc, s, d ? "dependencies" : "dependentSchemas");
      if (deps != PD_JSON_NONE && pd_json_at(&sc->doc, deps)->kind == PD_JSON_OBJECT)
        for (uint32_t k = 0; k < pd_json_len(&sc->doc, deps) && ok; k++) {
          uint32_t b = pd_json_mval(&sc->doc, deps, k);
          if (pd__in_conj(sc, c, b)) ok = pd__reach_add(sc, &r, b);
        }
    }
    for (int k = 0; k < 3 && ok; k++) { /* "if" is a member where it held */
      uint32_t b = pd_json_get(&sc->doc, s, k == 2 ? "if" : k ? "else" : "then");
      if (b != PD_JSON_NONE && pd__in_conj(sc, c, b)) ok = pd__reach_add(sc, &r, b);
    }
    for (int k = 0; k < 2 && ok; k++) {
      if ((ref = pd_json_get(&sc->doc, s, k ? "$dynamicRef" : "$ref")) == PD_JSON_NONE) continue;
      if (pd_sc_ref_quiet(sc, s, ref, k, &t)) ok = pd__reach_add(sc, &r, t);
    }
  }
  if (!ok) {
    pd_array_free(sc->ir.alloc, &r);
    return NULL;
  }
  *n = r.len;
  if (!r.data) r.data = pd__malloc(sc->ir.alloc, sizeof(uint32_t));
  return r.data;
}

/* ------------------------------------------------------------ the pool */

static pd_status pd__push(pd_sc *sc, uint32_t entry) {
  return pd_array_push(sc->ir.alloc, &sc->pool, entry) ? PD_OK : pd__nomem(sc->err);
}

/* Adds entry to the conj at [off, pool.len), merging flags with a duplicate. */
static pd_status pd__add(pd_sc *sc, size_t off, uint32_t entry) {
  for (size_t i = off; i < sc->pool.len; i++)
    if (PD_SC_NODE(sc->pool.data[i]) == PD_SC_NODE(entry)) {
      sc->pool.data[i] |= PD_SC_FLAGS(entry);
      return PD_OK;
    }
  return pd__push(sc, entry);
}

pd_status pd_sc_compile_nodes(pd_sc *sc, const uint32_t *list, size_t k, uint32_t depth,
                              uint32_t *node) {
  size_t off = sc->pool.len;
  for (size_t i = 0; i < k; i++) {
    if (list[i] == PD_JSON_NONE) continue;
    pd_status st = pd__add(sc, off, PD_SC_ENTRY(list[i], 0));
    if (st) return st;
  }
  return pd_sc_compile(sc, off, sc->pool.len - off, PD_SC_ALL, depth, node);
}

/* ------------------------------------------------------------ flattening */

/* Adds every member of the allOf array at node a. */
static pd_status pd__add_all_of(pd_sc *sc, size_t off, uint32_t a) {
  if (pd_json_at(&sc->doc, a)->kind != PD_JSON_ARRAY || pd_json_len(&sc->doc, a) == 0)
    return pd_sc_fail(sc, PD_ERR_SEMANTIC, a, "'allOf' must be a non-empty array");
  for (uint32_t i = 0; i < pd_json_len(&sc->doc, a); i++) {
    pd_status st = pd__add(sc, off, PD_SC_ENTRY(pd_json_elem(&sc->doc, a, i), 0));
    if (st) return st;
  }
  return PD_OK;
}

/* X when s has "not": {"not": X} and nothing else asserted in the outer
 * "not" (double negation), else NONE. */
static uint32_t pd__double_negation(const pd_sc *sc, uint32_t s) {
  uint32_t n = pd_json_get(&sc->doc, s, "not");
  if (n == PD_JSON_NONE || pd_json_at(&sc->doc, n)->kind != PD_JSON_OBJECT) return PD_JSON_NONE;
  uint32_t inner = pd_json_get(&sc->doc, n, "not");
  if (inner == PD_JSON_NONE) return PD_JSON_NONE;
  for (uint32_t i = 0; i < pd_json_len(&sc->doc, n); i++) {
    const char *k = pd_json_str(&sc->doc, pd_json_mkey(&sc->doc, n, i));
    const pd__kw *kw = pd__kw_find(k);
    if (kw && kw->how != PD__KW_ANNOTATION && strcmp(k, "not") != 0) return PD_JSON_NONE;
  }
  return inner;
}

#define PD__REF_HOPS 256 /* past this many, a "$ref" chain is conjoined as in 2020-12 */

/* Copies conj [off, off+n) to the pool top, following $ref and allOf, dropping
 * `true`. *is_false is set when a member is `false`. */
static pd_status pd__flatten(pd_sc *sc, size_t off, size_t n, size_t *out_off, bool *is_false) {
  size_t base = sc->pool.len;
  pd_status st;
  uint32_t hops = 0; /* "$ref" members replaced by their targets (draft-07 and before) */
  *out_off = base;
  *is_false = false;
  for (size_t i = 0; i < n; i++)
    if ((st = pd__add(sc, base, sc->pool.data[off + i]))) return st;
  for (size_t i = base; i < sc->pool.len; i++) {
    uint32_t s = PD_SC_NODE(sc->pool.data[i]), ref, all;
    pd_json_kind k = (pd_json_kind)pd_json_at(&sc->doc, s)->kind;
    if (k == PD_JSON_FALSE) *is_false = true;
    if (k != PD_JSON_OBJECT) {
      if (k != PD_JSON_TRUE && k != PD_JSON_FALSE)
        return pd_sc_fail(sc, PD_ERR_SEMANTIC, s, "a schema must be an object or a boolean");
      continue;
    }
    if ((ref = pd_json_get(&sc->doc, s, "$ref")) != PD_JSON_NONE) {
      uint32_t target;
      if ((st = pd_sc_ref_resolve(sc, s, ref, &target))) return st;
      if (sc->ref_alone && target != PD_JSON_NONE && target != s && hops++ < PD__REF_HOPS) {
        /* the member is its target alone; a target already here stays as it
         * is (with its flags: an allOf that brings the "$ref" back on every
         * flatten must not undo what was distributed) */
        bool had = false;
        for (size_t j = base; j < sc->pool.len && !had; j++)
          had = PD_SC_NODE(sc->pool.data[j]) == target;
        sc->pool.data[i] = had ? sc->pool.data[--sc->pool.len] : PD_SC_ENTRY(target, 0);
        i--;
        continue;
      }
      if (target != PD_JSON_NONE && (st = pd__add(sc, base, PD_SC_ENTRY(target, 0)))) return st;
    }
    if ((ref = pd_json_get(&sc->doc, s, "$dynamicRef")) != PD_JSON_NONE) {
      uint32_t target;
      if ((st = pd_sc_dynref_resolve(sc, s, ref, &target))) return st;
      if (target != PD_JSON_NONE && (st = pd__add(sc, base, PD_SC_ENTRY(target, 0)))) return st;
    }
    if ((all = pd_json_get(&sc->doc, s, "allOf")) != PD_JSON_NONE &&
        (st = pd__add_all_of(sc, base, all)))
      return st;
    uint32_t inner = pd__double_negation(sc, s);
    if (inner != PD_JSON_NONE && (st = pd__add(sc, base, PD_SC_ENTRY(inner, 0)))) return st;
    if ((ref = pd_sc_derived_kw(sc, s, PD_SC_NEG_OF)) != PD_JSON_NONE) { /* a recursive negation */
      uint32_t target = pd_sc_neg_target(sc, ref);
      if (target == PD_JSON_NONE)
        return pd__fail(sc->err, PD_ERR_INTERNAL, "a negation refers to one never made");
      if ((st = pd__add(sc, base, PD_SC_ENTRY(target, 0)))) return st;
    }
  }
  /* keep only object members: booleans are decided above */
  size_t w = base;
  for (size_t i = base; i < sc->pool.len; i++)
    if (pd_json_at(&sc->doc, PD_SC_NODE(sc->pool.data[i]))->kind == PD_JSON_OBJECT)
      sc->pool.data[w++] = sc->pool.data[i];
  sc->pool.len = w;
  return PD_OK;
}

/* ------------------------------------------------------------ memo */

static int pd__cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

static uint64_t pd__conj_hash(const uint32_t *e, size_t n, uint32_t types, uint32_t depth) {
  uint64_t h = 1469598103934665603ull ^ types ^ ((uint64_t)depth << 32);
  for (size_t i = 0; i < n; i++) h = (h ^ e[i]) * 1099511628211ull;
  return h;
}

static uint32_t pd__memo_find(pd_sc *sc, const uint32_t *e, size_t n, uint32_t types,
                              uint32_t depth, uint64_t h) {
  for (size_t i = 0; i < sc->memo.len; i++) {
    const pd_sc_memo *m = &sc->memo.data[i];
    if (m->hash == h && m->n == n && m->types == types && m->depth == depth &&
        (n == 0 || memcmp(sc->memo_keys.data + m->off, e, n * sizeof *e) == 0))
      return m->rule;
  }
  return PD_IR_NONE;
}

static pd_status pd__memo_add(pd_sc *sc, size_t off, size_t n, uint32_t types, uint32_t depth,
                              uint64_t h, uint32_t rule) {
  if (!pd_array_reserve(sc->ir.alloc, &sc->memo_keys, n) ||
      !pd_array_reserve(sc->ir.alloc, &sc->memo, 1))
    return pd__nomem(sc->err);
  pd_sc_memo m = {h, (uint32_t)sc->memo_keys.len, (uint32_t)n, types, depth, rule};
  if (n) memcpy(sc->memo_keys.data + sc->memo_keys.len, sc->pool.data + off, n * sizeof(uint32_t));
  sc->memo_keys.len += n;
  sc->memo.data[sc->memo.len++] = m;
  return PD_OK;
}

/* ------------------------------------------------------------ combinators */

static pd_status pd__build(pd_sc *sc, const pd_sc_conj *c, uint32_t depth, uint32_t *node);

/* Compiles conj c plus schema extra (with member i's flags raised by flag),
 * restricted to types. */
static pd_status pd__branch(pd_sc *sc, const pd_sc_conj *c, size_t i, uint32_t flag, uint32_t extra,
                            uint32_t types, uint32_t depth, uint32_t *node) {
  size_t off = sc->pool.len;
  pd_status st;
  for (size_t k = 0; k < c->n; k++)
    if ((st = pd__push(sc, sc->pool.data[c->off + k] | (k == i ? flag : 0)))) return st;
  if (extra != PD_JSON_NONE && (st = pd__add(sc, off, PD_SC_ENTRY(extra, 0)))) return st;
  return pd_sc_compile(sc, off, sc->pool.len - off, types, depth, node);
}

/* Compiles conj c plus the schemas extra[0..k) (PD_JSON_NONE skipped), with
 * member i's flags raised by flag, restricted to types. */
static pd_status pd__branch_n(pd_sc *sc, const pd_sc_conj *c, size_t i, uint32_t flag,
                              const uint32_t *extra, size_t k, uint32_t types, uint32_t depth,
                              uint32_t *node) {
  size_t off = sc->pool.len;
  pd_status st;
  for (size_t m = 0; m < c->n; m++)
    if ((st = pd__push(sc, sc->pool.data[c->off + m] | (m == i ? flag : 0)))) return st;
  for (size_t m = 0; m < k; m++)
    if (extra[m] != PD_JSON_NONE && (st = pd__add(sc, off, PD_SC_ENTRY(extra[m], 0)))) return st;
  return pd_sc_compile(sc, off, sc->pool.len - off, types, depth, node);
}

/* anyOf / oneOf at member i: the union of (conj AND branch). */
static pd_status pd__union(pd_sc *sc, const pd_sc_conj *c, size_t i, uint32_t arr, uint32_t flag,
                           uint32_t depth, uint32_t *node) {
  uint32_t n = pd_json_len(&sc->doc, arr);
  uint32_t *alts = pd__malloc(sc->ir.alloc, (n + 1) * sizeof *alts); /* one list, not nested pairs */
  if (!alts) return pd__nomem(sc->err);
  for (uint32_t b = 0; b < n; b++) {
    pd_status st =
        pd__branch(sc, c, i, flag, pd_json_elem(&sc->doc, arr, b), c->types, depth, &alts[b]);
    if (st) {
      pd__free(sc->ir.alloc, alts);
      return st;
    }
  }
  *node = pd_ir_alt(&sc->ir, alts, n);
  pd__free(sc->ir.alloc, alts);
  return pd_sc_ir_status(sc);
}


/* The set of instances schema s accepts when that is a set of types (a
 * boolean, or an object whose only assertion is "type"); false otherwise. */
static bool pd__type_only(pd_sc *sc, uint32_t s, uint32_t *mask) {
  static const char *const type_kw[] = {"type", NULL};
  const pd_json_node *n = pd_json_at(&sc->doc, s);
  if (n->kind == PD_JSON_TRUE || n->kind == PD_JSON_FALSE) {
    *mask = n->kind == PD_JSON_TRUE ? PD_SC_ALL : 0;
    return true;
  }
  if (n->kind != PD_JSON_OBJECT || !pd_sc_only_keys(sc, s, type_kw)) return false;
  uint32_t t = pd_json_get(&sc->doc, s, "type");
  *mask = PD_SC_ALL;
  if (t == PD_JSON_NONE) return true;
  /* strict closes its objects: {"type": "object"} takes only {} then */
  return pd_sc_type_mask_quiet(sc, t, mask) && !(pd_sc_strict_closes(sc, s) && (*mask & PD_SC_OBJ));
}

static bool pd__conj_has(const pd_sc *sc, const pd_sc_conj *c, const char *kw) {
  for (size_t i = 0; i < c->n; i++)
    if (pd_sc_kw(sc, c, i, kw) != PD_JSON_NONE) return true;
  return false;
}

bool pd_sc_strict_closes(const pd_sc *sc, uint32_t s) {
  /* a derived schema (a way another one fails) is no schema the option closes */
  return sc->opts.strict && !pd_sc_derived(sc, s) &&
         pd_json_at(&sc->doc, s)->kind == PD_JSON_OBJECT &&
         pd_json_get(&sc->doc, s, "additionalProperties") == PD_JSON_NONE &&
         (pd_json_get(&sc->doc, s, "properties") != PD_JSON_NONE ||
          pd_json_get(&sc->doc, s, "type") != PD_JSON_NONE);
}

/* Absent, true or {}: accepts every instance. */
bool pd_sc_trivial_schema(const pd_sc *sc, uint32_t s) {
  if (s == PD_JSON_NONE) return true;
  const pd_json_node *n = pd_json_at(&sc->doc, s);
  return n->kind == PD_JSON_TRUE || (n->kind == PD_JSON_OBJECT && n->n == 0);
}

/* "not" at member i, when its schema is negatable and not a set of types
 * (pd__narrow_types takes those): the union of the ways it fails. */
static pd_status pd__not(pd_sc *sc, const pd_sc_conj *c, size_t i, uint32_t x, uint32_t depth,
                         uint32_t *node, bool *ok) {
  uint32_t mask, one;
  pd_sc_lit lits[PD_SC_MAX_LITS];
  size_t nl;
  pd_status st = pd_sc_negate(sc, x, &mask, lits, &nl, ok);
  if (st || !*ok) return st;
  uint32_t acc;
  if ((st = pd__branch(sc, c, i, PD_SC_NOT_DONE, PD_JSON_NONE, c->types & ~mask, depth, &acc)))
    return st;
  for (size_t k = 0; k < nl; k++) {
    st = pd__branch(sc, c, i, PD_SC_NOT_DONE, lits[k].node, c->types & mask & lits[k].types, depth,
                    &one);
    if (st) return st;
    acc = pd_ir_alt2(&sc->ir, acc, one);
  }
  *node = acc;
  return pd_sc_ir_status(sc);
}

#define PD__ONEOF_NEG_MAX 16u    /* branches */
#define PD__ONEOF_STR_MAX 4u /* branches whose strings are told apart by automata (7 took 2 s) */
#define PD__ONEOF_NEG_CASES 256u /* conjs compiled */

/* oneOf by negation, when every branch is negatable (pd__negate): exactly
 * one holds = OR over i of (B_i AND, for each j != i, one way B_j fails).
 * Only the ways of failing open to the conj's types count (a branch of
 * "required" alone fails one way: its names absent). *ok false when the
 * branches do not have that shape, there are too many cases, or more than
 * PD__ONEOF_STR_MAX branches fail on strings. */
static pd_status pd__one_of_neg(pd_sc *sc, const pd_sc_conj *c, size_t i, uint32_t arr,
                                uint32_t depth, uint32_t *node, bool *ok) {
  uint32_t n = pd_json_len(&sc->doc, arr), mask[PD__ONEOF_NEG_MAX];
  pd_sc_lit lits[PD__ONEOF_NEG_MAX][PD_SC_MAX_LITS];
  /* per branch, its ways of failing: 0 a type outside its mask, k > 0 lit k - 1 */
  uint8_t way[PD__ONEOF_NEG_MAX][PD_SC_MAX_LITS + 1];
  size_t nl[PD__ONEOF_NEG_MAX], nw[PD__ONEOF_NEG_MAX], cases = 0;
  pd_status st;
  *ok = n <= PD__ONEOF_NEG_MAX; /* failed branches' annotations are dropped: the derived
                                 * members are outside every reach */
  for (uint32_t b = 0; b < n && *ok; b++) {
    if ((st = pd_sc_negate(sc, pd_json_elem(&sc->doc, arr, b), &mask[b], lits[b], &nl[b], ok)))
      return st;
    nw[b] = 0;
    if (c->types & ~mask[b]) way[b][nw[b]++] = 0;
    for (size_t k = 0; *ok && k < nl[b]; k++)
      if (c->types & mask[b] & lits[b][k].types) {
        way[b][nw[b]++] = (uint8_t)(k + 1);
        /* a string's ways (patterns, formats) meet in product automata */
        *ok = n <= PD__ONEOF_STR_MAX || !(c->types & mask[b] & lits[b][k].types & PD_SC_STR);
      }
  }
  for (uint32_t b = 0; b < n && *ok; b++) {
    size_t prod = 1;
    for (uint32_t j = 0; j < n && prod <= PD__ONEOF_NEG_CASES; j++) prod *= j == b ? 1 : nw[j];
    cases += prod;
  }
  if (!*ok || cases > PD__ONEOF_NEG_CASES) return *ok = false, PD_OK;
  uint32_t acc = pd_ir_nothing(&sc->ir), one;
  for (uint32_t b = 0; b < n; b++) {
    size_t choice[PD__ONEOF_NEG_MAX] = {0}; /* per other branch: an index into way[j] */
    bool none = false; /* some other branch cannot fail: B_b never holds alone */
    for (uint32_t j = 0; j < n; j++) none |= j != b && !nw[j];
    while (!none) {
      uint32_t extra[PD__ONEOF_NEG_MAX], types = c->types;
      size_t k = 0;
      extra[k++] = pd_json_elem(&sc->doc, arr, b);
      for (uint32_t j = 0; j < n; j++) {
        if (j == b) continue;
        uint8_t w = way[j][choice[j]];
        if (w == 0) {
          types &= ~mask[j];
        } else {
          types &= mask[j] & lits[j][w - 1].types;
          extra[k++] = lits[j][w - 1].node;
        }
      }
      if (types) {
        if ((st = pd__branch_n(sc, c, i, PD_SC_ONEOF_DONE, extra, k, types, depth, &one)))
          return st;
        acc = pd_ir_alt2(&sc->ir, acc, one);
      }
      uint32_t j = 0; /* next combination, mixed radix over j != b */
      for (; j < n; j++) {
        if (j == b) continue;
        if (++choice[j] < nw[j]) break;
        choice[j] = 0;
      }
      if (j == n) break;
    }
  }
  *node = acc;
  return pd_sc_ir_status(sc);
}

/* Whether schema s, at this level or through $ref and the combinators, asks
 * for a hostname: its automaton is a chain of 253 rules, too deep to be
 * copied into the automata that tell the branches' strings apart. */
static bool pd__asks_hostname(pd_sc *sc, uint32_t s, int depth) {
  static const char *const subs[] = {"allOf", "anyOf", "oneOf", "not", "if", "then", "else"};
  if (depth > 8 || pd_json_at(&sc->doc, s)->kind != PD_JSON_OBJECT) return depth > 8;
  uint32_t f = pd_json_get(&sc->doc, s, "format"), ref, t;
  if (f != PD_JSON_NONE && (pd_json_str_eq(&sc->doc, f, "hostname") ||
                            pd_json_str_eq(&sc->doc, f, "idn-hostname")))
    return true;
  if ((ref = pd_json_get(&sc->doc, s, "$ref")) != PD_JSON_NONE &&
      (!pd_sc_ref_quiet(sc, s, ref, false, &t) || pd__asks_hostname(sc, t, depth + 1)))
    return true;
  for (size_t k = 0; k < sizeof subs / sizeof *subs; k++) {
    uint32_t v = pd_json_get(&sc->doc, s, subs[k]);
    if (v == PD_JSON_NONE) continue;
    if (pd_json_at(&sc->doc, v)->kind != PD_JSON_ARRAY) {
      if (pd__asks_hostname(sc, v, depth + 1)) return true;
      continue;
    }
    for (uint32_t j = 0; j < pd_json_len(&sc->doc, v); j++)
      if (pd__asks_hostname(sc, pd_json_elem(&sc->doc, v, j), depth + 1)) return true;
  }
  return false;
}

/* The strings of a oneOf at member i: those of exactly one branch, each
 * branch's strings (with the conj) less the others', as automata (IR DIFF). */
static pd_status pd__one_of_strings(pd_sc *sc, const pd_sc_conj *c, size_t i, uint32_t arr,
                                    uint32_t depth, uint32_t *node) {
  uint32_t n = pd_json_len(&sc->doc, arr), ls[PD__ONEOF_STR_MAX];
  for (uint32_t b = 0; b < n; b++) {
    pd_status st = pd__branch(sc, c, i, PD_SC_ONEOF_DONE, pd_json_elem(&sc->doc, arr, b),
                              PD_SC_STR, depth, &ls[b]);
    if (st) return st;
  }
  pd_ir *ir = &sc->ir;
  uint32_t acc = pd_ir_nothing(ir);
  for (uint32_t b = 0; b < n; b++) {
    uint32_t others = pd_ir_nothing(ir);
    for (uint32_t j = 0; j < n; j++)
      if (j != b) others = pd_ir_alt2(ir, others, ls[j]);
    acc = pd_ir_alt2(ir, acc, pd_ir_diff(ir, ls[b], others));
  }
  *node = acc;
  return pd_sc_ir_status(sc);
}

/* The objects of a oneOf at member i whose closed branches share {} only
 * (pd_sc_closed_apart), when two or more take it: every branch with one
 * member at least. */
static pd_status pd__one_of_members(pd_sc *sc, const pd_sc_conj *c, size_t i, uint32_t arr,
                                    uint32_t depth, uint32_t *node) {
  uint32_t some = pd_sc_derived_number(sc, "minProperties", "1", 1);
  if (some == PD_JSON_NONE) return pd__nomem(sc->err);
  uint32_t acc = pd_ir_nothing(&sc->ir), one;
  for (uint32_t b = 0; b < pd_json_len(&sc->doc, arr); b++) {
    uint32_t extra[2] = {pd_json_elem(&sc->doc, arr, b), some};
    pd_status st = pd__branch_n(sc, c, i, PD_SC_ONEOF_DONE, extra, 2, PD_SC_OBJ, depth, &one);
    if (st) return st;
    acc = pd_ir_alt2(&sc->ir, acc, one);
  }
  *node = acc;
  return pd_sc_ir_status(sc);
}

/* oneOf is anyOf when its branches are pairwise disjoint; proving that is
 * required, never assumed. Per type: a type for which two branches accept
 * every instance has no valid instance (both match), so it is dropped; every
 * other type must be proven disjoint for every pair, except strings, which
 * can be told apart by automata (pd__one_of_strings), and closed objects that
 * share no name, whose only common instance is {} (pd__one_of_members when
 * two branches or more take it). Otherwise it is exact by negation when the
 * branches allow it. */
static pd_status pd__one_of(pd_sc *sc, const pd_sc_conj *c, size_t i, uint32_t arr, uint32_t depth,
                            uint32_t *node) {
  uint32_t n = pd_json_len(&sc->doc, arr), dropped = 0, strings = 0, apart = 0, ctx[16];
  bool proven = true; /* every type of every pair disjoint, dropped, or strings */
  size_t n_ctx = 0; /* the conj's members: what they require holds in every branch */
  for (size_t m = 0; m < c->n && n_ctx < 16; m++) ctx[n_ctx++] = pd_sc_member(sc, c, m);
  for (uint32_t a = 0; a < n && proven; a++)
    for (uint32_t b = a + 1; b < n && proven; b++) {
      uint32_t x = pd_json_elem(&sc->doc, arr, a), y = pd_json_elem(&sc->doc, arr, b), disjoint;
      pd_status st = pd_sc_disjoint(sc, x, y, c->types, ctx, n_ctx, &disjoint);
      if (st) return st;
      uint32_t open = c->types & ~disjoint & ~dropped;
      for (uint32_t t = 1; open && t <= PD_SC_ALL && proven; t <<= 1) {
        if (!(open & t)) continue;
        if (pd_sc_accepts_all(sc, x, t) && pd_sc_accepts_all(sc, y, t))
          dropped |= t;
        else if (t == PD_SC_STR && n <= PD__ONEOF_STR_MAX && !pd__asks_hostname(sc, x, 0) &&
                 !pd__asks_hostname(sc, y, 0))
          strings = PD_SC_STR;
        else if (t != PD_SC_OBJ)
          proven = false;
        else if ((st = pd_sc_closed_apart(sc, x, y, &proven)))
          return st;
        else if (proven)
          apart = PD_SC_OBJ;
      }
    }
  apart &= ~dropped;
  uint32_t takes_empty = 0; /* branches that take {} */
  for (uint32_t b = 0; b < n && apart && proven; b++) {
    pd_sc_verdict v = pd_sc_takes_empty_object(sc, pd_json_elem(&sc->doc, arr, b));
    proven = v != PD_SC_UNKNOWN;
    takes_empty += v == PD_SC_YES;
  }
  if (takes_empty < 2) apart = 0; /* then no object is in two branches */
  uint32_t automata = strings & ~dropped; /* strings to tell apart by automata */
  for (size_t m = 0; m < c->n && automata && proven; m++) /* the conj's own string keywords */
    proven = !pd__asks_hostname(sc, pd_sc_member(sc, c, m), 0);
  bool ok;
  pd_status st;
  if (!proven || automata) { /* negation, when it works, is exact and cheaper than automata */
    if ((st = pd__one_of_neg(sc, c, i, arr, depth, node, &ok)) || ok) return st;
  }
  if (proven) {
    pd_sc_conj kept = *c;
    kept.types &= ~dropped & ~automata & ~apart;
    st = pd__union(sc, &kept, i, arr, PD_SC_ONEOF_DONE, depth, node);
    uint32_t more = PD_IR_NONE;
    if (!st && (apart & c->types) && !(st = pd__one_of_members(sc, c, i, arr, depth, &more)))
      *node = pd_ir_alt2(&sc->ir, *node, more);
    if (st || !automata) return st ? st : pd_sc_ir_status(sc);
    if ((st = pd__one_of_strings(sc, c, i, arr, depth, &more))) return st;
    *node = pd_ir_alt2(&sc->ir, *node, more);
    return pd_sc_ir_status(sc);
  }
  st = pd_sc_unsupported(sc, arr, "oneOf", "branches not provably disjoint");
  if (st) return st;
  return pd__union(sc, c, i, arr, PD_SC_ONEOF_DONE, depth, node); /* lenient: as anyOf */
}

/* if / then / else at member i: (if AND then) OR (NOT if AND else), exact
 * when "if" can be negated (pd__negate). */
static pd_status pd__if(pd_sc *sc, const pd_sc_conj *c, size_t i, uint32_t s, uint32_t depth,
                        uint32_t *node) {
  uint32_t cond = pd_json_get(&sc->doc, s, "if"), then_s = pd_json_get(&sc->doc, s, "then"),
           else_s = pd_json_get(&sc->doc, s, "else"), mask, acc, one;
  /* unevaluated* would see the annotations of "if", which are not tracked */
  bool uneval =
      pd__conj_has(sc, c, "unevaluatedProperties") || pd__conj_has(sc, c, "unevaluatedItems");
  if (pd_sc_trivial_schema(sc, then_s) && pd_sc_trivial_schema(sc, else_s) && !uneval)
    return pd__branch(sc, c, i, PD_SC_IF_DONE, PD_JSON_NONE, c->types, depth, node);
  pd_sc_lit lits[PD_SC_MAX_LITS];
  size_t nl;
  bool ok;
  pd_status st = pd_sc_negate(sc, cond, &mask, lits, &nl, &ok);
  if (st) return st;
  if (!ok) {
    st = pd_sc_unsupported(sc, cond, "if",
                           "only a condition on types, bounds and required is exact");
    if (st) return st;
    return pd__branch(sc, c, i, PD_SC_IF_DONE, PD_JSON_NONE, c->types, depth, node);
  }
  uint32_t ex[2] = {cond, then_s};
  if ((st = pd__branch_n(sc, c, i, PD_SC_IF_DONE, ex, 2, c->types, depth, &acc)) ||
      (st = pd__branch(sc, c, i, PD_SC_IF_DONE, else_s, c->types & ~mask, depth, &one)))
    return st;
  acc = pd_ir_alt2(&sc->ir, acc, one);
  for (size_t k = 0; k < nl; k++) {
    uint32_t ex2[2] = {else_s, lits[k].node};
    st =
        pd__branch_n(sc, c, i, PD_SC_IF_DONE, ex2, 2, c->types & mask & lits[k].types, depth, &one);
    if (st) return st;
    acc = pd_ir_alt2(&sc->ir, acc, one);
  }
  *node = acc;
  return pd_sc_ir_status(sc);
}

/* The derived schemas {"required": [key]} (*req) and {"properties": {key:
 * false}} (*forbid) for the string node key, made once per key so that
 * conjs holding them stay memoizable. */
pd_status pd_sc_key_schemas(pd_sc *sc, uint32_t key, uint32_t *req, uint32_t *forbid) {
  for (size_t i = 0; i + 2 < sc->synth.len; i += 3)
    if (sc->synth.data[i] == key) {
      *req = sc->synth.data[i + 1];
      *forbid = sc->synth.data[i + 2];
      return PD_OK;
    }
  pd_json_doc *d = &sc->doc;
  size_t n = pd_json_at(d, key)->n;
  char *copy = pd__malloc(sc->ir.alloc, n + 1); /* adding nodes may move d->bytes */
  if (!copy) return pd__nomem(sc->err);
  if (n) memcpy(copy, pd_json_str(d, key), n);
  uint32_t k1 = pd_json_add(d, PD_JSON_STRING, copy, n, NULL, 0);
  uint32_t k2 = pd_json_add(d, PD_JSON_STRING, copy, n, NULL, 0);
  uint32_t w1 = pd_json_add(d, PD_JSON_STRING, "required", 8, NULL, 0);
  uint32_t w2 = pd_json_add(d, PD_JSON_STRING, "properties", 10, NULL, 0);
  uint32_t f = pd_json_add(d, PD_JSON_FALSE, NULL, 0, NULL, 0);
  pd__free(sc->ir.alloc, copy);
  uint32_t arr = PD_JSON_NONE, props = PD_JSON_NONE;
  if (k1 != PD_JSON_NONE && k2 != PD_JSON_NONE && w1 != PD_JSON_NONE && w2 != PD_JSON_NONE &&
      f != PD_JSON_NONE) {
    arr = pd_json_add(d, PD_JSON_ARRAY, NULL, 0, &k1, 1);
    props = pd_json_add(d, PD_JSON_OBJECT, NULL, 0, (uint32_t[]){k2, f}, 2);
  }
  if (arr != PD_JSON_NONE && props != PD_JSON_NONE) {
    *req = pd_json_add(d, PD_JSON_OBJECT, NULL, 0, (uint32_t[]){w1, arr}, 2);
    *forbid = pd_json_add(d, PD_JSON_OBJECT, NULL, 0, (uint32_t[]){w2, props}, 2);
  }
  if (arr == PD_JSON_NONE || props == PD_JSON_NONE || *req == PD_JSON_NONE ||
      *forbid == PD_JSON_NONE || !pd_array_reserve(sc->ir.alloc, &sc->synth, 3))
    return pd__nomem(sc->err);
  sc->synth.data[sc->synth.len++] = key;
  sc->synth.data[sc->synth.len++] = *req;
  sc->synth.data[sc->synth.len++] = *forbid;
  return PD_OK;
}

#define PD__MAX_DEP_SCHEMAS 6u

/* The schema dependencies of member s: dependentSchemas, and draft-07
 * "dependencies" whose values are schemas (its arrays are dependentRequired,
 * schema_object.c). keys[], schemas[] get at most cap of them; *n counts all. */
static pd_status pd__dep_list(pd_sc *sc, uint32_t s, uint32_t *keys, uint32_t *schemas,
                              uint32_t cap, uint32_t *n) {
  static const char *const kws[2] = {"dependentSchemas", "dependencies"};
  *n = 0;
  for (int k = 0; k < 2; k++) {
    uint32_t d = pd_json_get(&sc->doc, s, kws[k]);
    if (d == PD_JSON_NONE) continue;
    if (pd_json_at(&sc->doc, d)->kind != PD_JSON_OBJECT)
      return pd_sc_fail(sc, PD_ERR_SEMANTIC, d, "'%s' must be an object", kws[k]);
    for (uint32_t j = 0; j < pd_json_len(&sc->doc, d); j++) {
      uint32_t v = pd_json_mval(&sc->doc, d, j);
      if (k == 1 && pd_json_at(&sc->doc, v)->kind == PD_JSON_ARRAY) continue;
      if (*n < cap) keys[*n] = pd_json_mkey(&sc->doc, d, j), schemas[*n] = v;
      ++*n;
    }
  }
  return PD_OK;
}

/* Schema dependencies at member i (pd__dep_list): for objects, one case per
 * subset of their keys (present: the key is required and its schema holds;
 * absent: the key is forbidden); other types are untouched. */
static pd_status pd__dep_schemas(pd_sc *sc, const pd_sc_conj *c, size_t i, uint32_t depth,
                                 uint32_t *node) {
  uint32_t keys[PD__MAX_DEP_SCHEMAS], schemas[PD__MAX_DEP_SCHEMAS], k;
  uint32_t acc = pd_ir_nothing(&sc->ir), one, s = pd_sc_member(sc, c, i);
  pd_status st = pd__dep_list(sc, s, keys, schemas, PD__MAX_DEP_SCHEMAS, &k);
  if (st) return st;
  if (k > PD__MAX_DEP_SCHEMAS && (c->types & PD_SC_OBJ)) {
    uint32_t where = pd_json_get(&sc->doc, s, "dependentSchemas");
    if (where == PD_JSON_NONE) where = pd_json_get(&sc->doc, s, "dependencies");
    if ((st = pd_sc_unsupported(sc, where, "dependentSchemas", "more than 6 keys"))) return st;
    return pd__branch(sc, c, i, PD_SC_DEP_DONE, PD_JSON_NONE, c->types, depth, node);
  }
  if (c->types & ~PD_SC_OBJ) {
    st = pd__branch(sc, c, i, PD_SC_DEP_DONE, PD_JSON_NONE, c->types & ~PD_SC_OBJ, depth, &acc);
    if (st) return st;
  }
  for (uint32_t mask = 0; (c->types & PD_SC_OBJ) && mask < (1u << k); mask++) {
    size_t off = sc->pool.len;
    for (size_t m = 0; m < c->n; m++)
      if ((st = pd__push(sc, sc->pool.data[c->off + m] | (m == i ? PD_SC_DEP_DONE : 0)))) return st;
    for (uint32_t j = 0; j < k; j++) {
      uint32_t req, forbid;
      if ((st = pd_sc_key_schemas(sc, keys[j], &req, &forbid))) return st;
      if (mask >> j & 1) {
        if ((st = pd__add(sc, off, PD_SC_ENTRY(req, 0))) ||
            (st = pd__add(sc, off, PD_SC_ENTRY(schemas[j], 0))))
          return st;
      } else if ((st = pd__add(sc, off, PD_SC_ENTRY(forbid, 0)))) {
        return st;
      }
    }
    if ((st = pd_sc_compile(sc, off, sc->pool.len - off, PD_SC_OBJ, depth, &one))) return st;
    acc = pd_ir_alt2(&sc->ir, acc, one);
  }
  *node = acc;
  return pd_sc_ir_status(sc);
}

/* Whether some member lists the values (const / enum). */
static bool pd__has_values(pd_sc *sc, const pd_sc_conj *c) {
  bool single;
  for (size_t i = 0; i < c->n; i++)
    if (pd_sc_values(sc, pd_sc_member(sc, c, i), &single) != PD_JSON_NONE) return true;
  return false;
}

/* Distributes the first pending disjunction; *done false when none is left. */
static pd_status pd__disjunction(pd_sc *sc, const pd_sc_conj *c, uint32_t depth, uint32_t *node,
                                 bool *done) {
  *done = true;
  for (size_t i = 0; i < c->n; i++) {
    uint32_t e = sc->pool.data[c->off + i], s = PD_SC_NODE(e), arr;
    if (!(e & PD_SC_ANYOF_DONE) && (arr = pd_json_get(&sc->doc, s, "anyOf")) != PD_JSON_NONE) {
      if (pd_json_at(&sc->doc, arr)->kind != PD_JSON_ARRAY || !pd_json_len(&sc->doc, arr))
        return pd_sc_fail(sc, PD_ERR_SEMANTIC, arr, "'anyOf' must be a non-empty array");
      return pd__union(sc, c, i, arr, PD_SC_ANYOF_DONE, depth, node);
    }
    if (!(e & PD_SC_ONEOF_DONE) && (arr = pd_json_get(&sc->doc, s, "oneOf")) != PD_JSON_NONE) {
      if (pd_json_at(&sc->doc, arr)->kind != PD_JSON_ARRAY || !pd_json_len(&sc->doc, arr))
        return pd_sc_fail(sc, PD_ERR_SEMANTIC, arr, "'oneOf' must be a non-empty array");
      return pd__one_of(sc, c, i, arr, depth, node);
    }
    if (!(e & PD_SC_IF_DONE) && pd_json_get(&sc->doc, s, "if") != PD_JSON_NONE)
      return pd__if(sc, c, i, s, depth, node);
    uint32_t n_deps;
    if (!(e & PD_SC_DEP_DONE)) {
      pd_status st = pd__dep_list(sc, s, NULL, NULL, 0, &n_deps);
      if (st) return st;
      if (n_deps) return pd__dep_schemas(sc, c, i, depth, node);
    }
    uint32_t mask;
    if (!(e & PD_SC_NOT_DONE) && (arr = pd_json_get(&sc->doc, s, "not")) != PD_JSON_NONE &&
        pd__double_negation(sc, s) == PD_JSON_NONE && !pd__type_only(sc, arr, &mask) &&
        !pd__has_values(sc, c)) { /* beside values it is decided on each (pd__enum) */
      bool ok;
      pd_status st = pd__not(sc, c, i, arr, depth, node, &ok);
      if (st || ok) return st; /* else pd__narrow_not refuses it */
    }
  }
  *done = false;
  return PD_OK;
}

/* ------------------------------------------------------------ types */

/* Narrows c->types by every member's "type". */
static pd_status pd__narrow_types(pd_sc *sc, pd_sc_conj *c) {
  for (size_t i = 0; i < c->n; i++) {
    uint32_t t = pd_sc_kw(sc, c, i, "type"), mask;
    pd_status st;
    if (t == PD_JSON_NONE) continue;
    if ((st = pd_sc_type_mask(sc, t, &mask))) return st;
    c->types &= mask;
  }
  return PD_OK;
}

/* Narrows c->types by every member's type-only "not" (after the disjunctions:
 * a "not" they distribute is a member of its own). Beside const / enum any
 * other "not" is decided on each listed value instead (pd__value_meets_all). */
static pd_status pd__narrow_not(pd_sc *sc, pd_sc_conj *c) {
  bool values = pd__has_values(sc, c);
  for (size_t i = 0; i < c->n; i++) {
    uint32_t n = pd_sc_kw(sc, c, i, "not"), mask;
    pd_status st;
    if (n == PD_JSON_NONE || pd__double_negation(sc, pd_sc_member(sc, c, i)) != PD_JSON_NONE ||
        (sc->pool.data[c->off + i] & PD_SC_NOT_DONE))
      continue; /* not-not: the inner schema is a member (pd__flatten); or distributed */
    if (pd__type_only(sc, n, &mask))
      c->types &= ~mask;
    else if (!values &&
             (st = pd_sc_unsupported(sc, n, "not", "only a negated set of types is exact")))
      return st;
  }
  return PD_OK;
}

/* Refused keywords constraining an allowed type. */
static pd_status pd__check_refused(pd_sc *sc, const pd_sc_conj *c) {
  for (size_t i = 0; i < c->n; i++) {
    uint32_t s = pd_sc_member(sc, c, i);
    for (uint32_t k = 0; k < pd_json_len(&sc->doc, s); k++) {
      const pd__kw *kw = pd__kw_find(pd_json_str(&sc->doc, pd_json_mkey(&sc->doc, s, k)));
      if (!kw || kw->how != PD__KW_REFUSED || !(kw->types & c->types)) continue;
      pd_status st =
          pd_sc_unsupported(sc, pd_json_mval(&sc->doc, s, k), kw->name, "not implemented");
      if (st) return st;
    }
  }
  return PD_OK;
}

/* Whether value v (of type bit t) meets every sibling assertion on its type
 * (*ok); *refuse = the first one not decided here (PD_JSON_NONE when all are). */
static pd_status pd__value_meets_all(pd_sc *sc, const pd_sc_conj *c, uint32_t v, uint32_t t,
                                     bool *ok, uint32_t *refuse) {
  *ok = true;
  *refuse = PD_JSON_NONE;
  for (size_t i = 0; i < c->n; i++) {
    uint32_t s = pd_sc_member(sc, c, i);
    for (uint32_t k = 0; k < pd_json_len(&sc->doc, s); k++) {
      const char *name = pd_json_str(&sc->doc, pd_json_mkey(&sc->doc, s, k));
      const pd__kw *kw = pd__kw_find(name);
      /* a "not" left whole (pd__narrow_not) is decided here; one distributed
       * (NOT_DONE) is in the branch already */
      bool whole_not = !strcmp(name, "not") && !(sc->pool.data[c->off + i] & PD_SC_NOT_DONE);
      if (!whole_not &&
          (!kw || kw->how == PD__KW_ANNOTATION || kw->types == PD_SC_ALL || !(kw->types & t)))
        continue;
      pd_sc_verdict r;
      pd_status st = pd_sc_value_kw(sc, v, s, name, pd_json_mval(&sc->doc, s, k), &r);
      if (st) return st;
      if (r == PD_SC_UNKNOWN) {
        *refuse = pd_json_mval(&sc->doc, s, k);
        *ok = false;
        return PD_OK;
      }
      *ok = *ok && r == PD_SC_YES;
    }
    pd_sc_verdict r;
    pd_status st = t == PD_SC_OBJ ? pd_sc_value_closed(sc, v, s, &r) : PD_OK;
    if (st) return st;
    if (t == PD_SC_OBJ && r == PD_SC_UNKNOWN) {
      *refuse = s;
      *ok = false;
      return PD_OK;
    }
    *ok = *ok && (t != PD_SC_OBJ || r == PD_SC_YES);
  }
  return PD_OK;
}

/* const / enum: the listed values every member allows, of allowed types. */
static pd_status pd__enum(pd_sc *sc, const pd_sc_conj *c, uint32_t depth, uint32_t *node) {
  size_t first = c->n;
  uint32_t vals = PD_JSON_NONE;
  bool single = false;
  for (size_t i = 0; i < c->n && first == c->n; i++)
    if ((vals = pd_sc_values(sc, pd_sc_member(sc, c, i), &single)) != PD_JSON_NONE) first = i;
  uint32_t count = single ? 1 : pd_json_len(&sc->doc, vals), n = 0;
  uint32_t *lits = pd__malloc(sc->ir.alloc, (count + 1) * sizeof *lits); /* one list of literals */
  if (!lits) return pd__nomem(sc->err);
  for (uint32_t k = 0; k < count; k++) {
    uint32_t v = single ? vals : pd_json_elem(&sc->doc, vals, k), t = pd_sc_value_type(sc, v);
    if (!(t & c->types)) continue;
    bool ok = true;
    for (size_t i = 0; i < c->n && ok; i++) {
      bool s2;
      uint32_t other = pd_sc_values(sc, pd_sc_member(sc, c, i), &s2);
      if (other != PD_JSON_NONE && i != first) ok = pd_sc_in_values(sc, other, s2, v);
    }
    if (!ok) continue;
    uint32_t sib;
    pd_status st = pd__value_meets_all(sc, c, v, t, &ok, &sib);
    if (!st && !ok && sib != PD_JSON_NONE)
      st = pd_sc_unsupported(sc, sib, "enum", "const/enum with sibling assertions");
    else if (!st && !ok)
      continue; /* a sibling rejects it */
    if (st) {
      pd__free(sc->ir.alloc, lits);
      return st;
    }
    /* a draft-04 "integer" is written without fraction or exponent */
    lits[n++] = t == PD_SC_INT && sc->int_no_frac && !(c->types & PD_SC_FRAC)
                    ? pd_sc_number_literal(sc, v, true)
                    : pd_sc_literal(sc, v, depth);
  }
  *node = pd_ir_alt(&sc->ir, lits, n);
  pd__free(sc->ir.alloc, lits);
  return pd_sc_ir_status(sc);
}

/* The union over allowed types of each type's builder. */
static pd_status pd__by_type(pd_sc *sc, const pd_sc_conj *c, uint32_t depth, uint32_t *node) {
  uint32_t alts[6], n = 0, t = c->types;
  pd_status st = PD_OK;
  if (t & PD_SC_NULL) alts[n++] = pd_ir_bytes(&sc->ir, "null", 4);
  if (t & PD_SC_BOOL)
    alts[n++] =
        pd_ir_alt2(&sc->ir, pd_ir_bytes(&sc->ir, "true", 4), pd_ir_bytes(&sc->ir, "false", 5));
  if ((t & PD_SC_NUM) && !(st = pd_sc_number(sc, c, &alts[n]))) n++;
  if (!st && (t & PD_SC_STR) && !(st = pd_sc_string(sc, c, &alts[n]))) n++;
  if (!st && (t & PD_SC_ARR) && !(st = pd_sc_array(sc, c, depth, &alts[n]))) n++;
  if (!st && (t & PD_SC_OBJ) && !(st = pd_sc_object(sc, c, depth, &alts[n]))) n++;
  if (st) return st;
  *node = pd_ir_alt(&sc->ir, alts, n);
  return pd_sc_ir_status(sc);
}

/* The body of a flattened conj. */
static pd_status pd__build(pd_sc *sc, const pd_sc_conj *c0, uint32_t depth, uint32_t *node) {
  pd_sc_conj c = *c0;
  bool pending;
  /* the members' "type" first: a oneOf's branches need to be disjoint only
   * on the types the conj allows */
  pd_status st = pd__narrow_types(sc, &c);
  if (!st) st = pd__disjunction(sc, &c, depth, node, &pending);
  if (st || pending) return st;
  if ((st = pd__narrow_not(sc, &c))) return st;
  for (size_t i = 0; i < c.n; i++) {
    uint32_t e = pd_sc_kw(sc, &c, i, "enum");
    if (e != PD_JSON_NONE && pd_json_at(&sc->doc, e)->kind != PD_JSON_ARRAY)
      return pd_sc_fail(sc, PD_ERR_SEMANTIC, e, "'enum' must be an array");
  }
  if (pd__has_values(sc, &c)) return pd__enum(sc, &c, depth, node);
  if ((st = pd__check_refused(sc, &c))) return st;
  return pd__by_type(sc, &c, depth, node);
}

pd_status pd_sc_compile(pd_sc *sc, size_t off, size_t n, uint32_t types, uint32_t depth,
                        uint32_t *node) {
  size_t foff;
  bool is_false;
  pd_status st;
  if (pd_sc_indented(sc) && depth > PD_SC_INDENT_DEPTH) {
    sc->pool.len = off;
    *node = pd_ir_nothing(&sc->ir);
    return pd_sc_ir_status(sc);
  }
  if (++sc->depth > sc->opts.max_depth) {
    sc->depth--;
    return pd__fail(sc->err, PD_ERR_LIMIT, "schema nested deeper than %u", sc->opts.max_depth);
  }
  if ((st = pd__flatten(sc, off, n, &foff, &is_false))) goto out;
  size_t fn = sc->pool.len - foff;
  if (is_false || types == 0) {
    *node = pd_ir_nothing(&sc->ir);
    st = pd_sc_ir_status(sc);
    goto out;
  }
  qsort(sc->pool.data + foff, fn, sizeof(uint32_t), pd__cmp_u32);
  uint32_t key_depth = pd_sc_indented(sc) ? depth : 0;
  uint64_t h = pd__conj_hash(sc->pool.data + foff, fn, types, key_depth);
  uint32_t rule = pd__memo_find(sc, sc->pool.data + foff, fn, types, key_depth, h);
  if (rule != PD_IR_NONE) {
    *node = pd_ir_ref(&sc->ir, rule);
    st = pd_sc_ir_status(sc);
    goto out;
  }
  if (sc->ir.rules.len >= sc->opts.max_rules) {
    st = pd__fail(sc->err, PD_ERR_LIMIT, "schema needs more than %u rules", sc->opts.max_rules);
    goto out;
  }
  rule = pd_ir_rule_fresh(&sc->ir, "s");
  if ((st = pd_sc_ir_status(sc)) || (st = pd__memo_add(sc, foff, fn, types, key_depth, h, rule)))
    goto out;
  pd_sc_conj c = {foff, fn, types};
  uint32_t body;
  if ((st = pd__build(sc, &c, depth, &body))) goto out;
  pd_ir_rule_define(&sc->ir, rule, body);
  *node = pd_ir_ref(&sc->ir, rule);
  st = pd_sc_ir_status(sc);
out:
  sc->depth--;
  sc->pool.len = off;
  return st;
}

/* ------------------------------------------------------------ entry points */

static void pd__resolve(const pd_grammar_options *in, pd_grammar_options *o) {
  static const pd_grammar_options zero;
  *o = in ? *in : zero;
  if (!o->max_rules) o->max_rules = PD_DEFAULT_MAX_RULES;
  if (!o->max_states) o->max_states = PD_DEFAULT_MAX_STATES;
  if (!o->max_items_per_row) o->max_items_per_row = PD_DEFAULT_MAX_ITEMS_PER_ROW;
  if (!o->max_depth) o->max_depth = PD_DEFAULT_MAX_DEPTH;
  if (!o->max_repeat) o->max_repeat = PD_DEFAULT_MAX_REPEAT;
}

static void pd__sc_free(pd_sc *sc) {
  const pd_allocator *a = sc->ir.alloc;
  pd_array_free(a, &sc->pool);
  pd_array_free(a, &sc->memo);
  pd_array_free(a, &sc->memo_keys);
  pd_array_free(a, &sc->relaxed);
  pd_array_free(a, &sc->synth);
  pd_array_free(a, &sc->negs);
  pd_array_free(a, &sc->negsch);
  pd_array_free(a, &sc->negating);
  pd_array_free(a, &sc->res);
  pd_array_free(a, &sc->uris);
  pd_array_free(a, &sc->doc_roots);
  pd_json_free(&sc->doc);
}

/* root = [ws] value [ws] (whitespace around the root only in FLEXIBLE mode) */
static pd_status pd__root(pd_sc *sc, bool has_doc, bool object_only) {
  uint32_t value, root = pd_ir_rule_named(&sc->ir, "root", 4);
  pd_status st;
  if (has_doc) {
    uint32_t one = sc->doc.root;
    st = pd_sc_compile_nodes(sc, &one, 1, 0, &value);
  } else {
    st = pd_sc_compile(sc, sc->pool.len, 0, object_only ? PD_SC_OBJ : PD_SC_ALL, 0, &value);
  }
  if (st) return st;
  uint32_t k[3] = {pd_sc_ws(sc, PD_SC_WS_VALUE), value, pd_sc_ws(sc, PD_SC_WS_AFTER)};
  pd_ir_rule_define(&sc->ir, root, pd_ir_seq(&sc->ir, k, 3));
  sc->ir.root = root;
  return pd_sc_ir_status(sc);
}

/* Parses opts.schema_docs into sc->doc beside the schema. */
static pd_status pd__docs(pd_sc *sc) {
  for (size_t i = 0; i < sc->opts.n_schema_docs; i++) {
    const pd_schema_doc *d = &sc->opts.schema_docs[i];
    const char *u = d->uri;
    if (!u || !pd_uri_absolute(u, strlen(u)) || !d->json)
      return pd__fail(sc->err, PD_ERR_ARG,
                      "schema_docs[%zu]: needs an absolute uri (scheme:...) and its json", i);
    pd_json_doc one = {.alloc = sc->ir.alloc, .root = PD_JSON_NONE};
    pd_status st = pd_json_parse(&one, sc->ir.alloc, d->json, d->len, sc->opts.max_depth, sc->err);
    if (st) {
      if (sc->err) { /* the position is in that document, not the schema */
        char msg[sizeof sc->err->message];
        snprintf(msg, sizeof msg, "%s", sc->err->message);
        pd__fail(sc->err, st, "schema_docs[%zu] (%s): %s", i, u, msg);
      }
      return st;
    }
    uint32_t root = pd_json_graft(&sc->doc, &one);
    pd_json_free(&one);
    if (root == PD_JSON_NONE || !pd_array_push(sc->ir.alloc, &sc->doc_roots, root))
      return pd__nomem(sc->err);
  }
  return PD_OK;
}

/* One compile into ir. *any_order_rules: the rules the objects in any order
 * may take, on entry; the rules they took, on return. */
static pd_status pd__to_ir(const char *json, size_t len, bool object_only,
                           const pd_grammar_options *opts, size_t *any_order_rules, pd_ir *ir,
                           char **relaxed, pd_error *err) {
  pd_sc sc;
  memset(&sc, 0, sizeof sc);
  pd__resolve(opts, &sc.opts);
  sc.any_order_left = *any_order_rules;
  sc.ir = *ir;
  sc.err = err;
  sc.text = json;
  for (int i = 0; i < PD_SC_WS_PLACES; i++) sc.ws_rule[i] = PD_IR_NONE;
  sc.value_rule = sc.string_rule = sc.number_rule = sc.jchar_rule = PD_IR_NONE;
  sc.host_rule = PD_IR_NONE;
  sc.doc.alloc = ir->alloc;
  sc.doc.root = PD_JSON_NONE;
  *relaxed = NULL;
  pd_status st = PD_OK;
  if (json) st = pd_json_parse(&sc.doc, ir->alloc, json, len, sc.opts.max_depth, err);
  sc.n_main = (uint32_t)sc.doc.nodes.len;
  if (!st && json) st = pd__docs(&sc);
  sc.n_parsed = (uint32_t)sc.doc.nodes.len;
  if (!st && json) { /* draft-04 (and 03): 1.0 is a number but not an integer */
    uint32_t v = pd_json_get(&sc.doc, sc.doc.root, "$schema");
    const char *u = v != PD_JSON_NONE && pd_json_at(&sc.doc, v)->kind == PD_JSON_STRING
                        ? pd_json_str(&sc.doc, v)
                        : "";
    sc.int_no_frac = strstr(u, "draft-04") || strstr(u, "draft-03");
    sc.ref_alone = sc.int_no_frac || strstr(u, "draft-06") || strstr(u, "draft-07");
  }
  if (!st) st = pd__root(&sc, json != NULL, object_only);
  if (st && st != PD_ERR_NOMEM && sc.ir.oom) st = pd__nomem(err); /* it may have caused st */
  if (!st && !pd_array_push(ir->alloc, &sc.relaxed, '\0')) st = pd__nomem(err);
  if (!st) {
    *relaxed = sc.relaxed.data;
    sc.relaxed.data = NULL;
  }
  *ir = sc.ir;
  *any_order_rules -= sc.any_order_left;
  pd__sc_free(&sc);
  return st;
}

#define PD__ANY_ORDER_TRIES 5 /* bounded compiles after the first, the last with none */

/* Objects in any order take 2^k rules each; where together they run the
 * schema past max_rules (a Kubernetes schema of many objects of 10 to 12
 * properties), the compile is tried again with their rules bounded by half of
 * what the failed try gave them, then half of that, and at last none; the
 * objects past the bound keep the declared order. */
pd_status pd_schema_to_ir(const char *json, size_t len, bool object_only,
                          const pd_grammar_options *opts, pd_ir *ir, char **relaxed,
                          pd_error *err) {
  const pd_allocator *a = ir->alloc;
  size_t used = SIZE_MAX; /* no bound at first */
  pd_status st = pd__to_ir(json, len, object_only, opts, &used, ir, relaxed, err);
  for (int tries = 1; st == PD_ERR_LIMIT && used && tries <= PD__ANY_ORDER_TRIES; tries++) {
    used = tries < PD__ANY_ORDER_TRIES ? used / 2 : 0;
    pd_ir_free(ir);
    pd_ir_init(ir, a);
    st = pd__to_ir(json, len, object_only, opts, &used, ir, relaxed, err);
  }
  return st;
}

static pd_status pd__compile(const char *json, size_t len, bool object_only, pd_vocab *vocab,
                             const pd_grammar_options *opts, pd_grammar **out, pd_error *err) {
  if (!out) return pd__fail(err, PD_ERR_ARG, "out is NULL");
  *out = NULL;
  pd_ir ir;
  pd_ir_init(&ir, opts ? opts->allocator : NULL);
  char *relaxed = NULL;
  pd_status st = pd_schema_to_ir(json, len, object_only, opts, &ir, &relaxed, err);
  if (!st) st = pd_grammar_from_ir(&ir, vocab, opts, out, err);
  if (!st && relaxed && relaxed[0] && (st = pd_grammar_set_relaxed(*out, relaxed))) {
    pd_grammar_free(*out);
    *out = NULL;
  }
  pd__free(ir.alloc, relaxed);
  pd_ir_free(&ir);
  return st;
}

pd_status pd_grammar_compile_json_schema(const char *json, size_t len, pd_vocab *vocab,
                                         const pd_grammar_options *opts, pd_grammar **out,
                                         pd_error *err) {
  if (!json) return pd__fail(err, PD_ERR_ARG, "schema text is NULL");
  return pd__compile(json, len, false, vocab, opts, out, err);
}

pd_status pd_grammar_compile_json(bool object_only, pd_vocab *vocab, const pd_grammar_options *opts,
                                  pd_grammar **out, pd_error *err) {
  return pd__compile(NULL, 0, object_only, vocab, opts, out, err);
}
