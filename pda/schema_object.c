/* schema_object.c - objects: properties (in declared order), required,
 * additionalProperties (and the strict option), patternProperties,
 * minProperties / maxProperties, dependentRequired, propertyNames,
 * unevaluatedProperties.
 *
 * Language: the declared properties in the order they are first declared,
 * each present or (unless required) absent, then any additional members, all
 * comma-separated. Additional keys are strings whose decoded value is none of
 * the declared names, so a declared property is always checked against its
 * own schema (an escape such as "\u0061" is the same key as "a").
 *
 * patternProperties in general: an automaton over code points follows every
 * pattern and the declared names at once (pd_regex_dfa_build); additional
 * keys are split by the set of patterns they match, each set with its own key
 * language and value schema (the matching patterns' schemas, or
 * additionalProperties when none of a member's patterns matches).
 */
#include <string.h>

#include "base/bits.h"
#include "base/error.h"
#include "pda/regex.h"
#include "pda/schema_ctx.h"

/* One declared property: its name (a string node) and whether it is required. */
typedef struct pd__prop {
  uint32_t name;
  bool required, forbidden; /* forbidden: absent in this dependentRequired case */
  bool base_required;       /* required by "required" itself */
} pd__prop;

/* A dependentRequired entry: when key is present, so are names[]. */
typedef struct pd__dep {
  uint32_t key, names; /* string node, array node */
} pd__dep;

/* A member's unevaluatedProperties: the schema, and the nodes whose
 * "properties" count as evaluated for it (reach == NULL: every key is). */
typedef struct pd__uneval {
  uint32_t schema;
  uint32_t *reach;
  size_t n;
} pd__uneval;

/* One pattern of patternProperties: the member holding it, its regex (a
 * string node) and its schema. */
typedef struct pd__pat {
  uint32_t member, regex, schema;
} pd__pat;

typedef struct pd__obj {
  pd_sc *sc;
  const pd_sc_conj *c;
  uint32_t depth;
  PD_ARRAY(pd__prop) props;
  PD_ARRAY(pd__uneval) unevals;
  PD_ARRAY(pd__dep) deps;
  /* patternProperties: one pattern of one member, in one of two exact forms */
  enum { PD__PAT_NONE, PD__PAT_UNIVERSAL, PD__PAT_RESTRICTED, PD__PAT_GENERAL } pat_mode;
  uint32_t pat_member, pat_regex, pat_schema;
  /* PD__PAT_GENERAL: every pattern of every member (bit i of a key's pattern
   * set is pats[i]), and the automaton telling keys apart by that set */
  PD_ARRAY(struct pd__pat) pats;
  pd_regex_dfa dfa;
  uint32_t names_schema; /* propertyNames, when it applies (no declared names) */
  uint32_t min, max; /* minProperties, maxProperties (PD_IR_INF: none) */
  /* a negated additionalProperties (PD_SC_SOME_KEY): some member's key is
   * none of some_names' keys and its value meets some_value. Written as
   * cases: declared property `mark` carries it, or (mark = props.len) an
   * additional member does */
  uint32_t some_names, some_value;
  uint32_t some_pattern, some_none; /* the key matches this pattern / none of these (or NONE) */
  uint32_t mark;
  uint32_t with; /* a schema the next member's value meets as well, or NONE */
} pd__obj;

static bool pd__same_name(const pd_sc *sc, uint32_t a, uint32_t b) {
  return pd_json_equal(&sc->doc, a, b);
}

static pd_status pd__declare(pd__obj *o, uint32_t name, bool required) {
  for (size_t i = 0; i < o->props.len; i++)
    if (pd__same_name(o->sc, o->props.data[i].name, name)) {
      o->props.data[i].required |= required;
      return PD_OK;
    }
  pd__prop p = {name, required, false, false};
  return pd_array_push(o->sc->ir.alloc, &o->props, p) ? PD_OK : pd__nomem(o->sc->err);
}

/* Declared names from every member's properties, then required names. */
static pd_status pd__collect(pd__obj *o) {
  pd_sc *sc = o->sc;
  pd_status st;
  for (size_t i = 0; i < o->c->n; i++) {
    uint32_t p = pd_sc_kw(sc, o->c, i, "properties");
    if (p == PD_JSON_NONE) continue;
    if (pd_json_at(&sc->doc, p)->kind != PD_JSON_OBJECT)
      return pd_sc_fail(sc, PD_ERR_SEMANTIC, p, "'properties' must be an object");
    for (uint32_t k = 0; k < pd_json_len(&sc->doc, p); k++)
      if ((st = pd__declare(o, pd_json_mkey(&sc->doc, p, k), false))) return st;
  }
  for (size_t i = 0; i < o->c->n; i++) {
    uint32_t r = pd_sc_kw(sc, o->c, i, "required");
    if (r == PD_JSON_NONE) continue;
    if (pd_json_at(&sc->doc, r)->kind != PD_JSON_ARRAY)
      return pd_sc_fail(sc, PD_ERR_SEMANTIC, r, "'required' must be an array");
    for (uint32_t k = 0; k < pd_json_len(&sc->doc, r); k++) {
      uint32_t name = pd_json_elem(&sc->doc, r, k);
      if (pd_json_at(&sc->doc, name)->kind != PD_JSON_STRING)
        return pd_sc_fail(sc, PD_ERR_SEMANTIC, name, "'required' must list strings");
      if ((st = pd__declare(o, name, true))) return st;
    }
  }
  return PD_OK;
}

/* additionalProperties of member s, with the strict option's default. */
static uint32_t pd__additional(pd__obj *o, uint32_t s, bool *forbid) {
  *forbid = pd_sc_strict_closes(o->sc, s);
  return pd_json_get(&o->sc->doc, s, "additionalProperties");
}

/* unevaluatedProperties of every member, with what each sees evaluated. A
 * branch sees only its own annotations (fewer than the instance may have), so
 * the result can only be stricter than the specification, never looser. */
static pd_status pd__unevaluated(pd__obj *o) {
  pd_sc *sc = o->sc;
  for (size_t i = 0; i < o->c->n; i++) {
    uint32_t m = pd_sc_member(sc, o->c, i), u = pd_json_get(&sc->doc, m, "unevaluatedProperties");
    if (u == PD_JSON_NONE) continue;
    pd__uneval e = {u, NULL, 0};
    e.reach = pd_sc_reach(sc, o->c, m, &e.n);
    if (!e.reach) return pd__nomem(sc->err);
    for (size_t k = 0; k < e.n && e.reach; k++) {
      uint32_t r = e.reach[k];
      if (pd_json_get(&sc->doc, r, "additionalProperties") != PD_JSON_NONE ||
          (r != m && pd_json_get(&sc->doc, r, "unevaluatedProperties") != PD_JSON_NONE)) {
        pd__free(sc->ir.alloc, e.reach); /* every key is evaluated: no effect */
        e.reach = NULL;
      }
    }
    if (e.reach && !pd_array_push(sc->ir.alloc, &o->unevals, e)) {
      pd__free(sc->ir.alloc, e.reach);
      return pd__nomem(sc->err);
    }
  }
  return PD_OK;
}

static bool pd__named(pd__obj *o, const pd__uneval *u, uint32_t name);
static pd_status pd__pattern_matches(pd__obj *o, size_t i, uint32_t name, bool *m);

static bool pd__in_reach(const pd__uneval *u, uint32_t node) {
  for (size_t k = 0; k < u->n; k++)
    if (u->reach[k] == node) return true;
  return false;
}

/* Whether some node of u's reach evaluates the key: its "properties" name it,
 * or (general patterns) one of its patterns matches it: bit i of set for an
 * additional key, pd_sc_pattern_test for a named one. */
static pd_status pd__evaluated(pd__obj *o, const pd__uneval *u, uint32_t name, uint32_t set,
                               bool *yes) {
  *yes = false;
  for (size_t i = 0; o->pat_mode == PD__PAT_GENERAL && i < o->pats.len && !*yes; i++) {
    if (!pd__in_reach(u, o->pats.data[i].member)) continue;
    if (name == PD_JSON_NONE) {
      *yes = set >> i & 1;
      continue;
    }
    pd_status st = pd__pattern_matches(o, i, name, yes);
    if (st) return st;
  }
  if (*yes || name == PD_JSON_NONE) return PD_OK;
  *yes = pd__named(o, u, name);
  return PD_OK;
}

/* Whether general pattern i matches key name: by the automaton once built
 * (it reads the decoded key), else by compiling the pattern. */
static pd_status pd__pattern_matches(pd__obj *o, size_t i, uint32_t name, bool *m) {
  const pd_regex_dfa *d = &o->dfa;
  const uint8_t *t = (const uint8_t *)pd_json_str(&o->sc->doc, name);
  size_t n = pd_json_at(&o->sc->doc, name)->n;
  if (!d->label)
    return pd_sc_pattern_test(o->sc, o->pats.data[i].regex, (const char *)t, n, m);
  uint32_t q = 0;
  for (size_t j = 0, k; j < n; j += k) {
    k = t[j] < 0x80 ? 1 : t[j] < 0xE0 ? 2 : t[j] < 0xF0 ? 3 : 4;
    if (j + k > n) k = n - j;
    uint32_t cp = k == 1 ? t[j] : k == 2 ? t[j] & 0x1Fu : k == 3 ? t[j] & 0x0Fu : t[j] & 0x07u;
    for (size_t b = 1; b < k; b++) cp = cp << 6 | (t[j + b] & 0x3Fu);
    for (uint32_t e = d->first[q]; e < d->first[q + 1]; e++)
      if (d->edges[3 * e] <= cp && cp <= d->edges[3 * e + 1]) {
        q = d->edges[3 * e + 2];
        break;
      }
  }
  *m = d->label[q] >> i & 1;
  return PD_OK;
}

/* Whether the "properties" of some node of u's reach names key. */
static bool pd__named(pd__obj *o, const pd__uneval *u, uint32_t name) {
  for (size_t k = 0; k < u->n; k++) {
    uint32_t p = pd_json_get(&o->sc->doc, u->reach[k], "properties");
    if (p == PD_JSON_NONE || pd_json_at(&o->sc->doc, p)->kind != PD_JSON_OBJECT) continue;
    for (uint32_t j = 0; j < pd_json_len(&o->sc->doc, p); j++)
      if (pd__same_name(o->sc, pd_json_mkey(&o->sc->doc, p, j), name)) return true;
  }
  return false;
}

/* The value schema for key name (NONE = additional keys): every member's
 * properties[name], else its additionalProperties; and unevaluatedProperties
 * where the key is not evaluated. */
static pd_status pd__value_set(pd__obj *o, uint32_t name, uint32_t set, uint32_t *node);

/* General patterns of member s that match the key (name, or pattern set
 * `set` of an additional key): their schemas are pushed; *any whether one
 * matched. */
static pd_status pd__general_match(pd__obj *o, uint32_t s, uint32_t name, uint32_t set, bool *any) {
  pd_sc *sc = o->sc;
  *any = false;
  for (size_t i = 0; o->pat_mode == PD__PAT_GENERAL && i < o->pats.len; i++) {
    if (o->pats.data[i].member != s) continue;
    bool m = set >> i & 1;
    if (name != PD_JSON_NONE) {
      pd_status st = pd__pattern_matches(o, i, name, &m);
      if (st) return st;
    }
    if (!m) continue;
    *any = true;
    if (!pd_array_push(sc->ir.alloc, &sc->pool, PD_SC_ENTRY(o->pats.data[i].schema, 0)))
      return pd__nomem(sc->err);
  }
  return PD_OK;
}

static pd_status pd__value_set(pd__obj *o, uint32_t name, uint32_t set, uint32_t *node) {
  pd_sc *sc = o->sc;
  size_t off = sc->pool.len;
  pd_status st;
  if (o->with != PD_JSON_NONE && !pd_array_push(sc->ir.alloc, &sc->pool, PD_SC_ENTRY(o->with, 0)))
    return pd__nomem(sc->err);
  for (size_t i = 0; i < o->unevals.len; i++) {
    bool ev;
    if ((st = pd__evaluated(o, &o->unevals.data[i], name, set, &ev))) return st;
    if (!ev && !pd_array_push(sc->ir.alloc, &sc->pool, PD_SC_ENTRY(o->unevals.data[i].schema, 0)))
      return pd__nomem(sc->err);
  }
  for (size_t i = 0; i < o->c->n; i++) {
    uint32_t s = pd_sc_member(sc, o->c, i), p = pd_json_get(&sc->doc, s, "properties"),
             v = PD_JSON_NONE;
    bool forbid = false;
    if (name != PD_JSON_NONE && p != PD_JSON_NONE) {
      for (uint32_t k = 0; k < pd_json_len(&sc->doc, p); k++)
        if (pd__same_name(sc, pd_json_mkey(&sc->doc, p, k), name)) v = pd_json_mval(&sc->doc, p, k);
    }
    /* the pattern member: every extra key (and, universal, every key) matches */
    bool matched = (o->pat_mode == PD__PAT_UNIVERSAL || o->pat_mode == PD__PAT_RESTRICTED) &&
                   s == o->pat_member && (name == PD_JSON_NONE || o->pat_mode == PD__PAT_UNIVERSAL);
    if (matched && !pd_array_push(sc->ir.alloc, &sc->pool, PD_SC_ENTRY(o->pat_schema, 0)))
      return pd__nomem(sc->err);
    bool gm;
    if ((st = pd__general_match(o, s, name, set, &gm))) return st;
    matched = matched || gm;
    if (v == PD_JSON_NONE && !matched) v = pd__additional(o, s, &forbid);
    if (v == PD_JSON_NONE && forbid) {
      sc->pool.len = off;
      *node = pd_ir_nothing(&sc->ir);
      return pd_sc_ir_status(sc);
    }
    if (v != PD_JSON_NONE && !pd_array_push(sc->ir.alloc, &sc->pool, PD_SC_ENTRY(v, 0)))
      return pd__nomem(sc->err);
  }
  return pd_sc_compile(sc, off, sc->pool.len - off, PD_SC_ALL, o->depth + 1, node);
}

static bool pd__trivial(const pd_sc *sc, uint32_t s) {
  const pd_json_node *n = pd_json_at(&sc->doc, s);
  return n->kind == PD_JSON_TRUE || (n->kind == PD_JSON_OBJECT && n->n == 0);
}

/* propertyNames: exact when no property is declared (every key is then an
 * additional key, written as a string N accepts); a trivial N is ignored;
 * otherwise refused. Called once declared names are known. */
static pd_status pd__property_names(pd__obj *o) {
  pd_sc *sc = o->sc;
  o->names_schema = PD_JSON_NONE;
  for (size_t i = 0; i < o->c->n; i++) {
    uint32_t v = pd_sc_kw(sc, o->c, i, "propertyNames");
    if (v == PD_JSON_NONE || pd__trivial(sc, v)) continue;
    if (o->props.len > 0 || o->names_schema != PD_JSON_NONE || o->pat_mode == PD__PAT_RESTRICTED ||
        o->pat_mode == PD__PAT_GENERAL)
      return pd_sc_unsupported(sc, v, "propertyNames", "with declared names or patterns");
    o->names_schema = v;
  }
  return PD_OK;
}

static pd_status pd__extra_key(pd__obj *o, uint32_t *key);

static pd_status pd__member_set(pd__obj *o, uint32_t key, uint32_t name, uint32_t set,
                                uint32_t *node);
static pd_status pd__member(pd__obj *o, uint32_t key, uint32_t name, uint32_t *node);

/* The automaton of the general form: every pattern, and the declared names
 * (keys of declared properties are not additional). */
static pd_status pd__general_dfa(pd__obj *o) {
  pd_sc *sc = o->sc;
  size_t np = o->pats.len, nn = o->props.len;
  const char **strs = pd__malloc(sc->ir.alloc, (np + nn + 1) * sizeof *strs);
  size_t *lens = pd__malloc(sc->ir.alloc, (np + nn + 1) * sizeof *lens);
  pd_status st = PD_OK;
  if (!strs || !lens) {
    st = pd__nomem(sc->err);
  } else {
    for (size_t i = 0; i < np; i++) {
      strs[i] = pd_json_str(&sc->doc, o->pats.data[i].regex);
      lens[i] = pd_json_at(&sc->doc, o->pats.data[i].regex)->n;
    }
    for (size_t i = 0; i < nn; i++) {
      strs[np + i] = pd_json_str(&sc->doc, o->props.data[i].name);
      lens[np + i] = pd_json_at(&sc->doc, o->props.data[i].name)->n;
    }
    pd_error e;
    st = pd_regex_dfa_build(strs, lens, (uint32_t)np, strs + np, lens + np, (uint32_t)nn, &sc->opts,
                            sc->ir.alloc, &o->dfa, &e);
    if (st == PD_ERR_NOMEM)
      st = pd__nomem(sc->err);
    else if (st == PD_ERR_UNSUPPORTED || st == PD_ERR_LIMIT)
      st = pd_sc_unsupported(sc, o->pats.data[0].regex, "patternProperties", e.message);
    else if (st)
      st = pd_sc_fail(sc, st, o->pats.data[0].regex, "pattern: %s", e.message);
  }
  pd__free(sc->ir.alloc, strs);
  pd__free(sc->ir.alloc, lens);
  return st;
}

/* Whether state q of the automaton ends a key with pattern set `set` (not a
 * declared name). */
static bool pd__key_end(const pd_regex_dfa *d, uint32_t q, uint32_t set) {
  return !(d->label[q] & PD_REGEX_DFA_NAME) && d->label[q] == set;
}

/* The keys (quoted) whose pattern set is `set`: one rule per state that can
 * still reach such an end, R(q) = chars(q->t) R(t) ... | '"' (q an end). */
static pd_status pd__set_key(pd__obj *o, uint32_t set, uint32_t *key) {
  pd_sc *sc = o->sc;
  pd_ir *ir = &sc->ir;
  const pd_regex_dfa *d = &o->dfa;
  uint32_t n = d->n_states, *rule = pd__malloc(ir->alloc, n * sizeof *rule);
  uint8_t *live = pd__malloc(ir->alloc, n + 1);
  uint32_t *pairs = pd__malloc(ir->alloc, (2 * (size_t)d->first[n] + 4) * 2 * sizeof *pairs);
  pd_status st = PD_OK;
  if (!rule || !live || !pairs) {
    st = pd__nomem(sc->err);
    goto out;
  }
  for (uint32_t q = 0; q < n; q++) live[q] = pd__key_end(d, q, set);
  for (bool grew = true; grew;) { /* states from which an end is reachable */
    grew = false;
    for (uint32_t q = 0; q < n; q++)
      for (uint32_t k = d->first[q]; k < d->first[q + 1] && !live[q]; k++)
        if (live[d->edges[3 * k + 2]]) live[q] = 1, grew = true;
  }
  for (uint32_t q = 0; q < n; q++) rule[q] = live[q] ? pd_ir_rule_fresh(ir, "pkey") : PD_IR_NONE;
  for (uint32_t q = 0; q < n && !ir->oom; q++) {
    if (!live[q]) continue;
    uint32_t acc = pd__key_end(d, q, set) ? pd_ir_bytes(ir, "\"", 1) : pd_ir_nothing(ir);
    for (uint32_t k = d->first[q]; k < d->first[q + 1]; k++) {
      uint32_t t = d->edges[3 * k + 2], m = 0;
      if (!live[t]) continue;
      bool first = true; /* each target once: gather all its intervals */
      for (uint32_t j = d->first[q]; j < k && first; j++) first = d->edges[3 * j + 2] != t;
      if (!first) continue;
      for (uint32_t j = k; j < d->first[q + 1]; j++) {
        if (d->edges[3 * j + 2] != t) continue;
        uint32_t lo = d->edges[3 * j], hi = d->edges[3 * j + 1];
        if (lo < 0xD800 && hi >= 0xD800) { /* no surrogates */
          pairs[2 * m] = lo, pairs[2 * m + 1] = 0xD7FF, m++;
          lo = 0xE000;
        } else if (lo >= 0xD800 && lo <= 0xDFFF) {
          lo = 0xE000;
        }
        if (lo <= hi) pairs[2 * m] = lo, pairs[2 * m + 1] = hi, m++;
      }
      if (m == 0) continue;
      acc = pd_ir_alt2(ir, acc,
                       pd_ir_seq2(ir, pd_sc_jchar(ir, pairs, m, NULL), pd_ir_ref(ir, rule[t])));
    }
    pd_ir_rule_define(ir, rule[q], acc);
  }
  *key = live[0] ? pd_ir_seq2(ir, pd_ir_bytes(ir, "\"", 1), pd_ir_ref(ir, rule[0]))
                 : pd_ir_nothing(ir);
  st = pd_sc_ir_status(sc);
out:
  pd__free(ir->alloc, rule);
  pd__free(ir->alloc, live);
  pd__free(ir->alloc, pairs);
  return st;
}

/* The additional member: key ":" value, where in the general form the key's
 * pattern set picks the value schema (one alternative per set that occurs). */
static pd_status pd__extra_member(pd__obj *o, uint32_t *extra) {
  pd_sc *sc = o->sc;
  pd_status st;
  uint32_t key;
  if (o->pat_mode != PD__PAT_GENERAL) {
    if ((st = pd__extra_key(o, &key))) return st;
    return pd__member(o, key, PD_JSON_NONE, extra);
  }
  if (!o->dfa.label && (st = pd__general_dfa(o))) return st;
  if (!o->dfa.label) { /* lenient dropped the patterns: as if absent */
    o->pat_mode = PD__PAT_NONE;
    return pd__extra_member(o, extra);
  }
  *extra = pd_ir_nothing(&sc->ir);
  for (uint32_t q = 0; q < o->dfa.n_states; q++) {
    uint32_t set = o->dfa.label[q], one;
    if (set & PD_REGEX_DFA_NAME) continue;
    bool seen = false; /* each set once */
    for (uint32_t p = 0; p < q && !seen; p++) seen = o->dfa.label[p] == set;
    if (seen) continue;
    if ((st = pd__set_key(o, set, &key)) || (st = pd__member_set(o, key, PD_JSON_NONE, set, &one)))
      return st;
    if (pd_ir_at(&sc->ir, one)->kind != PD_IR_NOTHING) *extra = pd_ir_alt2(&sc->ir, *extra, one);
  }
  return pd_sc_ir_status(sc);
}

/* member = key ":" value, as a rule of its own: the chains refer to each
 * member from many states, and a reference keeps each automaton small. */
static pd_status pd__member(pd__obj *o, uint32_t key, uint32_t name, uint32_t *node) {
  return pd__member_set(o, key, name, 0, node);
}

static pd_status pd__member_set(pd__obj *o, uint32_t key, uint32_t name, uint32_t set,
                                uint32_t *node) {
  uint32_t value;
  pd_ir *ir = &o->sc->ir;
  pd_status st = pd__value_set(o, name, set, &value);
  if (st) return st;
  if (pd_ir_at(ir, value)->kind == PD_IR_NOTHING) { /* forbidden key */
    *node = value;
    return PD_OK;
  }
  uint32_t k[3] = {key, pd_sc_key_sep(o->sc), value}, rule = pd_ir_rule_fresh(ir, "om");
  pd_ir_rule_define(ir, rule, pd_ir_seq(ir, k, 3));
  pd_ir_rule_flag(ir, rule, PD_IR_RULE_NO_MINIMIZE);
  *node = pd_ir_ref(ir, rule);
  return pd_sc_ir_status(o->sc);
}

/* The count of members, as a state: 0..cap where cap stands for "cap or more". */
static uint32_t pd__cap(const pd__obj *o) {
  uint32_t cap = o->min;
  if (o->max != PD_IR_INF && o->max + 1 > cap) cap = o->max + 1;
  return cap;
}

static bool pd__count_ok(const pd__obj *o, uint32_t n) {
  return n >= o->min && (o->max == PD_IR_INF || n <= o->max);
}

/* Rules F(i, n) (nothing written yet) and T(i, n) (something written) for the
 * members from declared property i on, n members written so far:
 *   F(i,n) = elem_i T(i+1,n+1) | F(i+1,n)            (second only if optional)
 *   T(i,n) = sep elem_i T(i+1,n+1) | T(i+1,n)
 *   F(P,n) = extra X(n+1);  T(P,n) = X(n);  X(n) = sep extra X(n+1) | ""
 * (pd__chain_build), or with each position's choices in one rule
 * (pd__chain_flat), the same language. */
typedef struct pd__chain {
  uint32_t first_f, first_t, first_x; /* rule ids: F(i,n) = first_f + i*(cap+1) + n */
  uint32_t first_x0; /* the case of an additional member that meets some_value: X0(n),
                      * additional members before that one (UINT32_MAX: not this case) */
  uint32_t cap;
} pd__chain;

static uint32_t pd__at(const pd__chain *ch, uint32_t base, uint32_t i, uint32_t n) {
  return base + i * (ch->cap + 1) + (n > ch->cap ? ch->cap : n);
}

static pd_status pd__rules(pd__obj *o, pd__chain *ch) {
  pd_ir *ir = &o->sc->ir;
  size_t p = o->props.len, per = (size_t)ch->cap + 1;
  bool x0 = o->some_names != PD_JSON_NONE && o->mark == p; /* the X0 rules too */
  if (ir->rules.len + (2 * (p + 1) + 1 + x0) * per > o->sc->opts.max_rules)
    return pd__fail(o->sc->err, PD_ERR_LIMIT, "object needs more than %u rules",
                    o->sc->opts.max_rules);
  ch->first_f = (uint32_t)ir->rules.len;
  for (size_t k = 0; k < (p + 1) * per; k++) pd_ir_rule_fresh(ir, "of");
  ch->first_t = (uint32_t)ir->rules.len;
  for (size_t k = 0; k < (p + 1) * per; k++) pd_ir_rule_fresh(ir, "ot");
  ch->first_x = (uint32_t)ir->rules.len;
  for (size_t k = 0; k < per; k++) pd_ir_rule_fresh(ir, "ox");
  ch->first_x0 = UINT32_MAX;
  if (x0) {
    ch->first_x0 = (uint32_t)ir->rules.len;
    for (size_t k = 0; k < per; k++) pd_ir_rule_fresh(ir, "ox");
  }
  return pd_sc_ir_status(o->sc);
}

/* The additional member that meets some_value: a key none of the declared
 * names nor some_names' keys. */
static pd_status pd__some_member(pd__obj *o, uint32_t *node) {
  pd_sc *sc = o->sc;
  uint32_t n_some = pd_json_len(&sc->doc, o->some_names);
  size_t n = o->props.len + n_some;
  uint32_t *names = pd__malloc(sc->ir.alloc, (n + 1) * sizeof *names);
  if (!names) return pd__nomem(sc->err);
  for (size_t i = 0; i < o->props.len; i++) names[i] = o->props.data[i].name;
  for (uint32_t k = 0; k < n_some; k++)
    names[o->props.len + k] = pd_json_mkey(&sc->doc, o->some_names, k);
  uint32_t key = pd_sc_string_not_in(sc, names, n), p;
  pd__free(sc->ir.alloc, names);
  pd_status st = pd_sc_ir_status(sc);
  if (!st && o->some_pattern != PD_JSON_NONE && !(st = pd_sc_pattern_key(sc, o->some_pattern, &p)))
    key = pd_ir_and(&sc->ir, key, p);
  for (uint32_t k = 0; !st && o->some_none != PD_JSON_NONE && k < pd_json_len(&sc->doc, o->some_none);
       k++)
    if (!(st = pd_sc_pattern_key(sc, pd_json_elem(&sc->doc, o->some_none, k), &p)))
      key = pd_ir_diff(&sc->ir, key, p);
  o->with = o->some_value;
  if (!st) st = pd_sc_ir_status(sc) ? pd_sc_ir_status(sc) : pd__member(o, key, PD_JSON_NONE, node);
  o->with = PD_JSON_NONE;
  return st;
}

/* Additional members: X(n) rules (and X0(n)), the extra-member node and the
 * member that meets some_value (*some, in the X0 case). */
static pd_status pd__extras(pd__obj *o, const pd__chain *ch, uint32_t *extra, uint32_t *some) {
  pd_sc *sc = o->sc;
  pd_ir *ir = &sc->ir;
  pd_status st = pd__extra_member(o, extra);
  if (st) return st;
  uint32_t sep = pd_sc_item_sep(sc, o->depth, true);
  *some = PD_IR_NONE;
  if (ch->first_x0 != UINT32_MAX && (st = pd__some_member(o, some))) return st;
  for (uint32_t n = 0; n <= ch->cap; n++) {
    bool over = n == ch->cap && o->max != PD_IR_INF; /* past the maximum */
    uint32_t more = pd_ir_seq(
        ir, (uint32_t[]){sep, *extra, pd_ir_ref(ir, pd__at(ch, ch->first_x, 0, n + 1))}, 3);
    if (over) more = pd_ir_nothing(ir);
    bool end_ok = pd__count_ok(o, n);
    pd_ir_rule_define(ir, ch->first_x + n, end_ok ? pd_ir_alt2(ir, more, pd_ir_empty(ir)) : more);
    if (ch->first_x0 == UINT32_MAX) continue;
    /* X0(n) = sep extra X0(n+1) | sep some X(n+1): no end before that member */
    uint32_t more0 = pd_ir_seq(
        ir, (uint32_t[]){sep, *extra, pd_ir_ref(ir, pd__at(ch, ch->first_x0, 0, n + 1))}, 3);
    uint32_t met = pd_ir_seq(
        ir, (uint32_t[]){sep, *some, pd_ir_ref(ir, pd__at(ch, ch->first_x, 0, n + 1))}, 3);
    pd_ir_rule_define(ir, ch->first_x0 + n, over ? pd_ir_nothing(ir) : pd_ir_alt2(ir, more0, met));
  }
  return pd_sc_ir_status(sc);
}

/* The member of declared property i (nothing when it is forbidden). */
static pd_status pd__prop_elem(pd__obj *o, uint32_t i, uint32_t *elem) {
  pd_sc *sc = o->sc;
  const pd__prop *p = &o->props.data[i];
  pd_status st = PD_OK;
  if (o->some_names != PD_JSON_NONE && o->mark == i) o->with = o->some_value;
  if (p->forbidden)
    *elem = pd_ir_nothing(&sc->ir);
  else
    st = pd__member(o,
                    pd_sc_string_literal(sc, pd_json_str(&sc->doc, p->name),
                                         pd_json_at(&sc->doc, p->name)->n),
                    p->name, elem);
  o->with = PD_JSON_NONE;
  return st;
}

/* The chain with each position's choices in one rule:
 *   F(i,n) = elem_j T(j+1,n+1) for j = i .. r  (| F(P,n) when r = P)
 *   T(i,n) = sep (elem_j T(j+1,n+1) for j = i .. r)  (| T(P,n) when r = P)
 * where r is the first required position from i on (P: none): the language
 * of pd__chain_build's chain, where T(i,n) = sep elem_i T(i+1,n+1) | T(i+1,n)
 * for an optional i. That chain leaves three items per member still allowed
 * in every row between members (T(j) waiting on the separator, its tail call
 * and its end), and a mask there pushes its candidates through all of them:
 * an object of 201 optional properties (Github_ultra/o46322) made rows of 600
 * items. Here the row holds one item of T(i) and the members it predicts. The
 * rules hold every choice, up to PD__FLAT_MAX of them in all (a sum over the
 * positions, quadratic in a run of optional properties); past it, the chain. */
#define PD__FLAT_MAX 65536u

static bool pd__flat_fits(const pd__obj *o, const pd__chain *ch) {
  size_t n = 0, P = o->props.len;
  for (size_t i = 0; i < P && n <= PD__FLAT_MAX; i++)
    for (size_t j = i; j < P; j++) {
      n += ch->cap + 1;
      if (o->props.data[j].required) break;
    }
  return n <= PD__FLAT_MAX;
}

static pd_status pd__chain_flat(pd__obj *o, pd__chain *ch, uint32_t sep) {
  pd_sc *sc = o->sc;
  pd_ir *ir = &sc->ir;
  uint32_t P = (uint32_t)o->props.len;
  pd_status st = PD_OK;
  /* elems[j], then the node "member j, then the rest" (made once a count:
   * every position before the next required one lists it) */
  uint32_t *elems = pd__malloc(ir->alloc, (P + 1) * sizeof *elems);
  uint32_t *then = pd__malloc(ir->alloc, (P + 1) * sizeof *then);
  if (!elems || !then) {
    pd__free(ir->alloc, elems);
    pd__free(ir->alloc, then);
    return pd__nomem(sc->err);
  }
  for (uint32_t i = P; i-- > 0 && !st;) st = pd__prop_elem(o, i, &elems[i]);
  for (uint32_t n = 0; n <= ch->cap && !st; n++) {
    bool over = o->max != PD_IR_INF && n >= o->max;
    for (uint32_t j = 0; j < P && !over; j++)
      then[j] = pd_ir_seq2(ir, elems[j], pd_ir_ref(ir, pd__at(ch, ch->first_t, j + 1, n + 1)));
    for (uint32_t i = 0, r = 0; i < P; i++) { /* r: the first required position from i on, or P */
      if (!i || r < i)
        for (r = i; r < P && !o->props.data[r].required;) r++;
      bool to_end = r == P;
      uint32_t members = over ? pd_ir_nothing(ir) : pd_ir_alt(ir, then + i, (to_end ? P : r + 1) - i);
      uint32_t f = members, t = pd_ir_seq2(ir, sep, members);
      if (to_end) {
        f = pd_ir_alt2(ir, f, pd_ir_ref(ir, pd__at(ch, ch->first_f, P, n)));
        t = pd_ir_alt2(ir, t, pd_ir_ref(ir, pd__at(ch, ch->first_t, P, n)));
      }
      pd_ir_rule_define(ir, pd__at(ch, ch->first_f, i, n), f);
      pd_ir_rule_define(ir, pd__at(ch, ch->first_t, i, n), t);
    }
  }
  pd__free(ir->alloc, elems);
  pd__free(ir->alloc, then);
  return st ? st : pd_sc_ir_status(sc);
}

static pd_status pd__chain_build(pd__obj *o, pd__chain *ch) {
  pd_sc *sc = o->sc;
  pd_ir *ir = &sc->ir;
  uint32_t extra, some, P = (uint32_t)o->props.len;
  pd_status st = pd__extras(o, ch, &extra, &some);
  if (st) return st;
  uint32_t sep = pd_sc_item_sep(sc, o->depth, true);
  bool x0 = ch->first_x0 != UINT32_MAX; /* then X0 until the member that meets some_value */
  for (uint32_t n = 0; n <= ch->cap; n++) {
    uint32_t xs = x0 ? ch->first_x0 : ch->first_x;
    uint32_t f = pd_ir_seq2(ir, extra, pd_ir_ref(ir, pd__at(ch, xs, 0, n + 1)));
    if (x0) /* or the member that meets it, then plain additional ones */
      f = pd_ir_alt2(ir, f, pd_ir_seq2(ir, some, pd_ir_ref(ir, pd__at(ch, ch->first_x, 0, n + 1))));
    pd_ir_rule_define(ir, pd__at(ch, ch->first_f, P, n), f);
    pd_ir_rule_define(ir, pd__at(ch, ch->first_t, P, n), pd_ir_ref(ir, pd__at(ch, xs, 0, n)));
  }
  if (pd__flat_fits(o, ch)) return pd__chain_flat(o, ch, sep);
  for (uint32_t i = P; i-- > 0;) {
    const pd__prop *p = &o->props.data[i];
    uint32_t elem;
    if ((st = pd__prop_elem(o, i, &elem))) return st;
    for (uint32_t n = 0; n <= ch->cap; n++) {
      bool over = o->max != PD_IR_INF && n >= o->max;
      uint32_t f = over
                       ? pd_ir_nothing(ir)
                       : pd_ir_seq2(ir, elem, pd_ir_ref(ir, pd__at(ch, ch->first_t, i + 1, n + 1)));
      uint32_t t =
          over ? pd_ir_nothing(ir)
               : pd_ir_seq(
                     ir,
                     (uint32_t[]){sep, elem, pd_ir_ref(ir, pd__at(ch, ch->first_t, i + 1, n + 1))},
                     3);
      if (!p->required) {
        f = pd_ir_alt2(ir, f, pd_ir_ref(ir, pd__at(ch, ch->first_f, i + 1, n)));
        t = pd_ir_alt2(ir, t, pd_ir_ref(ir, pd__at(ch, ch->first_t, i + 1, n)));
      }
      pd_ir_rule_define(ir, pd__at(ch, ch->first_f, i, n), f);
      pd_ir_rule_define(ir, pd__at(ch, ch->first_t, i, n), t);
    }
  }
  return pd_sc_ir_status(sc);
}

/* Declared properties in any order. The state is the set of tracked
 * properties written and the count of free members (capped as in pd__cap):
 *   START     = track_p T({p}, 0) | free T({}, 1)
 *   T(mask,e) = sep track_p T(mask + p, e) (p not in mask) | sep free T(mask, e+1)
 *               | "" (when mask holds every required property and the count fits)
 * Up to 12 declared properties every one is tracked, so each appears at most
 * once, and the free members are the additional ones. Past that only the
 * required ones are tracked (at most 14: 2^14 states compile in 0.1-0.2 s,
 * which MaskBench's schemas with 14 required properties pay; tracking every
 * property of the 30 with 13 or 14 declared cost them as much, for the repeats
 * of optional ones only): an optional declared property may
 * then repeat, as an additional key always may. A JSON parser keeps a
 * repeated key's last value, and every value written was checked against the
 * property's schema, so the parsed object is valid; only minProperties would
 * count the repeats, so the wide form needs it implied by the required ones.
 * Past 14 required ones (up to 32), the states are the matcher's: one set
 * rule (pd_ir_set) whose items carry the set written, with no rule per set
 * (o82248 of MaskBench has 18: 2^18 rules would not fit max_rules). */
#define PD__ANY_ORDER_MAX 12u
#define PD__ANY_ORDER_REQUIRED_MAX 14u
#define PD__MAX_PATTERNS 8u

typedef struct pd__anyo {
  uint32_t first, cap, req, T, free, sep;
  uint32_t *elems; /* of the tracked properties */
  bool frees;
} pd__anyo;

static uint32_t pd__anyo_ref(pd__obj *o, const pd__anyo *a, uint32_t m, uint32_t e) {
  if (e > a->cap) e = a->cap;
  if (o->max != PD_IR_INF && pd_popcount32(m) + e > o->max) return pd_ir_nothing(&o->sc->ir);
  return pd_ir_ref(&o->sc->ir, a->first + m * (a->cap + 1) + e);
}

/* T(m, e), its alternatives as one list: a chain of pairs was as deep as the
 * property count, and every pass over the IR walks it once per rule. */
static void pd__anyo_rule(pd__obj *o, const pd__anyo *a, uint32_t m, uint32_t e) {
  pd_ir *ir = &o->sc->ir;
  uint32_t n = pd_popcount32(m) + e, alts[PD__ANY_ORDER_REQUIRED_MAX + 2], k = 0;
  if ((m & a->req) == a->req && (pd__count_ok(o, n) || (e == a->cap && o->max == PD_IR_INF)))
    alts[k++] = pd_ir_empty(ir);
  if (a->frees)
    alts[k++] = pd_ir_seq(ir, (uint32_t[]){a->sep, a->free, pd__anyo_ref(o, a, m, e + 1)}, 3);
  for (uint32_t p = 0; p < a->T; p++)
    if (!(m >> p & 1))
      alts[k++] =
          pd_ir_seq(ir, (uint32_t[]){a->sep, a->elems[p], pd__anyo_ref(o, a, m | 1u << p, e)}, 3);
  pd_ir_rule_define(ir, a->first + m * (a->cap + 1) + e, pd_ir_alt(ir, alts, k));
}

static uint32_t pd__required_count(const pd__obj *o) {
  uint32_t r = 0;
  for (size_t i = 0; i < o->props.len; i++) r += o->props.data[i].required;
  return r;
}

/* How an object takes any order: by rules per subset of its tracked
 * properties, by a set rule (the matcher keeps the set in its items), or not
 * at all (the declared order). */
typedef enum { PD__ORDER_DECLARED, PD__ORDER_SUBSETS, PD__ORDER_SET } pd__order;

/* The tracked properties are every declared one, or past 12 the required
 * ones when they imply minProperties. Subsets: at most 14 tracked, and the
 * rules fit what is left of max_rules and of the schema's budget for any
 * order (schema.c). Past 14 a set rule, which counts no members: up to 32
 * tracked and no maxProperties. */
static pd__order pd__any_order_fits(const pd__obj *o, bool *wide) {
  size_t P = o->props.len, some = o->some_names != PD_JSON_NONE && o->mark == P, T = P + some;
  *wide = P > PD__ANY_ORDER_MAX;
  if (*wide) {
    T = pd__required_count(o) + some;
    if (o->min > T) return PD__ORDER_DECLARED;
    if (T > PD__ANY_ORDER_REQUIRED_MAX)
      return T <= 32 && o->max == PD_IR_INF ? PD__ORDER_SET : PD__ORDER_DECLARED;
  }
  size_t n = ((size_t)1 << T) * (pd__cap(o) + 1);
  return n <= o->sc->any_order_left && o->sc->ir.rules.len + n <= o->sc->opts.max_rules
             ? PD__ORDER_SUBSETS
             : PD__ORDER_DECLARED;
}

/* The members of any order: a->elems the tracked ones (a->req the required
 * among them), a->free those that may come any number of times, a->sep. */
static pd_status pd__anyo_members(pd__obj *o, bool wide, pd__anyo *a) {
  pd_sc *sc = o->sc;
  pd_ir *ir = &sc->ir;
  pd_status st = pd__extra_member(o, &a->free);
  if (st) return st;
  a->elems = pd__malloc(ir->alloc, (o->props.len + 1) * sizeof *a->elems);
  /* the free members as one list: past 12 declared, every optional one */
  uint32_t *fr = pd__malloc(ir->alloc, (o->props.len + 1) * sizeof *fr), nf = 0;
  if (!a->elems || !fr) {
    pd__free(ir->alloc, fr);
    return pd__nomem(sc->err);
  }
  fr[nf++] = a->free;
  for (size_t i = 0; i < o->props.len && !st; i++) {
    const pd__prop *p = &o->props.data[i];
    uint32_t elem;
    st = pd__prop_elem(o, (uint32_t)i, &elem);
    if (wide && !p->required) {
      fr[nf++] = elem;
      continue;
    }
    if (p->required) a->req |= 1u << a->T;
    a->elems[a->T++] = elem;
  }
  /* the additional member that meets some_value: tracked as one more required
   * element (more such members may follow as free ones) */
  if (!st && o->some_names != PD_JSON_NONE && o->mark == o->props.len &&
      !(st = pd__some_member(o, &a->elems[a->T])))
    a->req |= 1u << a->T++;
  a->free = pd_ir_alt(ir, fr, nf);
  pd__free(ir->alloc, fr);
  if (st || (st = pd_sc_ir_status(sc))) return st; /* a->free may be no node */
  a->frees = pd_ir_at(ir, a->free)->kind != PD_IR_NOTHING;
  a->sep = pd_sc_item_sep(sc, o->depth, true); /* first: it may add the whitespace rules */
  return pd_sc_ir_status(sc);
}

static pd_status pd__anyo_subsets(pd__obj *o, pd__anyo *a, uint32_t *start) {
  pd_sc *sc = o->sc;
  pd_ir *ir = &sc->ir;
  a->cap = pd__cap(o);
  a->first = (uint32_t)ir->rules.len;
  size_t count = ((size_t)1 << a->T) * (a->cap + 1);
  sc->any_order_left -= count;
  for (size_t k = 0; k < count; k++) pd_ir_rule_fresh(ir, "oa");
  for (uint32_t m = 0; m < (1u << a->T) && !ir->oom; m++)
    for (uint32_t e = 0; e <= a->cap; e++) pd__anyo_rule(o, a, m, e);
  uint32_t acc = a->frees ? pd_ir_seq2(ir, a->free, pd__anyo_ref(o, a, 0, 1)) : pd_ir_nothing(ir);
  for (uint32_t p = 0; p < a->T; p++)
    acc = pd_ir_alt2(ir, acc, pd_ir_seq2(ir, a->elems[p], pd__anyo_ref(o, a, 1u << p, 0)));
  *start = acc;
  return pd_sc_ir_status(sc);
}

/* One set rule: (first)(next)* where first is a tracked member or a free one,
 * and next is the same behind the separator. The separator is inside each
 * tracked member's rule, so that once every tracked member is written and no
 * free one may follow, no separator is read either (the matcher predicts only
 * the members not yet written). Every tracked member is required here. */
static pd_status pd__anyo_set(pd__obj *o, pd__anyo *a, uint32_t *start) {
  pd_ir *ir = &o->sc->ir;
  uint32_t *first = pd__malloc(ir->alloc, 2 * ((size_t)a->T + 1) * sizeof *first);
  if (!first) return pd__nomem(o->sc->err);
  uint32_t *next = first + a->T + 1, n = 0;
  bool empty = false;
  for (uint32_t p = 0; p < a->T; p++) {
    empty = empty || pd_ir_at(ir, a->elems[p])->kind == PD_IR_NOTHING;
    first[n] = pd_ir_set_member(ir, a->elems[p], p);
    next[n++] = pd_ir_set_member(ir, pd_ir_seq2(ir, a->sep, a->elems[p]), p);
  }
  if (a->frees) first[n] = a->free, next[n++] = pd_ir_seq2(ir, a->sep, a->free);
  uint32_t body = pd_ir_seq2(ir, pd_ir_alt(ir, first, n),
                             pd_ir_repeat(ir, pd_ir_alt(ir, next, n), 0, PD_IR_INF));
  pd__free(ir->alloc, first);
  *start = empty ? pd_ir_nothing(ir) : pd_ir_set(ir, body, a->req);
  return pd_sc_ir_status(o->sc);
}

static pd_status pd__any_order(pd__obj *o, pd__order how, bool wide, uint32_t *start) {
  pd__anyo a = {0};
  pd_status st = pd__anyo_members(o, wide, &a);
  if (!st)
    st = how == PD__ORDER_SET ? pd__anyo_set(o, &a, start) : pd__anyo_subsets(o, &a, start);
  pd__free(o->sc->ir.alloc, a.elems);
  return st;
}

/* The empty object is allowed: nothing required and minProperties 0. */
static bool pd__empty_ok(const pd__obj *o) {
  if (o->some_names != PD_JSON_NONE) return false; /* some member must be there */
  for (size_t i = 0; i < o->props.len; i++)
    if (o->props.data[i].required) return false;
  return o->min == 0;
}

/* A pattern every string matches: no anchors, and it matches "" (a search). */
static pd_status pd__universal(pd__obj *o, uint32_t pat, bool *yes) {
  const char *p = pd_json_str(&o->sc->doc, pat);
  *yes = false;
  if (memchr(p, '^', pd_json_at(&o->sc->doc, pat)->n) ||
      memchr(p, '$', pd_json_at(&o->sc->doc, pat)->n))
    return PD_OK;
  return pd_sc_pattern_test(o->sc, pat, "", 0, yes);
}

/* Every pattern of every member, for the general form (keys told apart by
 * the set of patterns they match, with an automaton). */
static pd_status pd__general(pd__obj *o) {
  pd_sc *sc = o->sc;
  o->pat_mode = PD__PAT_GENERAL;
  o->pats.len = 0;
  for (size_t i = 0; i < o->c->n; i++) {
    uint32_t m = pd_sc_member(sc, o->c, i), pp = pd_json_get(&sc->doc, m, "patternProperties");
    if (pp == PD_JSON_NONE) continue;
    if (pd_json_at(&sc->doc, pp)->kind != PD_JSON_OBJECT)
      return pd_sc_fail(sc, PD_ERR_SEMANTIC, pp, "'patternProperties' must be an object");
    for (uint32_t k = 0; k < pd_json_len(&sc->doc, pp); k++) {
      pd__pat p = {m, pd_json_mkey(&sc->doc, pp, k), pd_json_mval(&sc->doc, pp, k)};
      if (o->pats.len >= PD__MAX_PATTERNS)
        return pd_sc_unsupported(sc, pp, "patternProperties", "more than 8 patterns");
      if (!pd_array_push(sc->ir.alloc, &o->pats, p)) return pd__nomem(sc->err);
    }
  }
  return PD_OK;
}

/* patternProperties, exact in two forms: a pattern every key matches (its
 * schema then applies to every value), or a closed object (additionalProperties
 * false) whose extra keys are exactly the pattern's strings, none declared.
 * A pattern whose schema is trivial only exempts keys from additionalProperties,
 * which changes nothing when there is none. Everything else is refused. */
static pd_status pd__patterns(pd__obj *o) {
  pd_sc *sc = o->sc;
  pd_status st;
  for (size_t i = 0; i < o->c->n; i++) {
    uint32_t m = pd_sc_member(sc, o->c, i), pp = pd_json_get(&sc->doc, m, "patternProperties");
    bool forbid, universal;
    if (pp == PD_JSON_NONE) continue;
    if (pd_json_at(&sc->doc, pp)->kind != PD_JSON_OBJECT)
      return pd_sc_fail(sc, PD_ERR_SEMANTIC, pp, "'patternProperties' must be an object");
    uint32_t add = pd__additional(o, m, &forbid);
    bool all_trivial = true;
    for (uint32_t k = 0; k < pd_json_len(&sc->doc, pp); k++)
      all_trivial = all_trivial && pd__trivial(sc, pd_json_mval(&sc->doc, pp, k));
    if (all_trivial && add == PD_JSON_NONE && !forbid && o->unevals.len == 0) continue;
    if (pd_json_len(&sc->doc, pp) != 1 || o->pat_mode != PD__PAT_NONE) return pd__general(o);
    uint32_t pat = pd_json_mkey(&sc->doc, pp, 0);
    if ((st = pd__universal(o, pat, &universal))) return st;
    o->pat_member = m;
    o->pat_regex = pat;
    o->pat_schema = pd_json_mval(&sc->doc, pp, 0);
    if (universal) {
      o->pat_mode = PD__PAT_UNIVERSAL;
      continue;
    }
    bool closed =
        forbid || (add != PD_JSON_NONE && pd_json_at(&sc->doc, add)->kind == PD_JSON_FALSE);
    if (!closed) return pd__general(o);
    o->pat_mode = PD__PAT_RESTRICTED;
  }
  return PD_OK;
}

/* In the closed form no declared name may match the pattern (extra keys are
 * the pattern's strings, which must exclude them). Called once names are known. */
static pd_status pd__patterns_check(pd__obj *o) {
  if (o->pat_mode != PD__PAT_RESTRICTED) return PD_OK;
  for (size_t i = 0; i < o->props.len; i++) {
    uint32_t nm = o->props.data[i].name;
    bool match;
    pd_status st = pd_sc_pattern_test(o->sc, o->pat_regex, pd_json_str(&o->sc->doc, nm),
                                      pd_json_at(&o->sc->doc, nm)->n, &match);
    if (st) return st;
    if (match) return pd__general(o);
  }
  return PD_OK;
}

/* The key of an additional member. */
static pd_status pd__extra_key(pd__obj *o, uint32_t *key) {
  if (o->pat_mode == PD__PAT_RESTRICTED) return pd_sc_pattern_key(o->sc, o->pat_regex, key);
  if (o->names_schema != PD_JSON_NONE) { /* no declared names: keys are N's strings */
    size_t off = o->sc->pool.len;
    if (!pd_array_push(o->sc->ir.alloc, &o->sc->pool, PD_SC_ENTRY(o->names_schema, 0)))
      return pd__nomem(o->sc->err);
    return pd_sc_compile(o->sc, off, 1, PD_SC_STR, 0, key);
  }
  pd_ir *ir = &o->sc->ir;
  /* No names and a schema for every key: any string, as a call of the string
   * rule every grammar shares rather than inline. Inline, the key's interior
   * is a state of this member alone, classified over the whole vocabulary
   * for each such object (5 ms with Llama-3); called, only the tokens that
   * close the key are the member's to decide (pair.c). Objects of any JSON
   * value keep the inline key: their member rule is the same in every grammar
   * and its classes come from the cache. */
  if (!o->props.len)
    for (size_t i = 0; i < o->c->n; i++) {
      uint32_t ap = pd_sc_kw(o->sc, o->c, i, "additionalProperties");
      if (ap != PD_JSON_NONE && pd_json_at(&o->sc->doc, ap)->kind == PD_JSON_OBJECT &&
          pd_json_len(&o->sc->doc, ap)) {
        *key = pd_sc_any_string(o->sc);
        return pd_sc_ir_status(o->sc);
      }
    }
  uint32_t *names = pd__malloc(ir->alloc, (o->props.len + 1) * sizeof *names);
  if (!names) return pd__nomem(o->sc->err);
  for (size_t i = 0; i < o->props.len; i++) names[i] = o->props.data[i].name;
  *key = pd_sc_string_not_in(o->sc, names, o->props.len);
  pd__free(ir->alloc, names);
  return pd_sc_ir_status(o->sc);
}

/* dependentRequired, and draft-07 "dependencies" with array values (its
 * schema values are dependentSchemas, schema.c). Every key involved is declared. */
static pd_status pd__dependencies(pd__obj *o) {
  pd_sc *sc = o->sc;
  static const char *const kws[2] = {"dependentRequired", "dependencies"};
  pd_status st;
  for (size_t i = 0; i < o->c->n; i++)
    for (int k = 0; k < 2; k++) {
      uint32_t d = pd_sc_kw(sc, o->c, i, kws[k]);
      if (d == PD_JSON_NONE) continue;
      if (pd_json_at(&sc->doc, d)->kind != PD_JSON_OBJECT)
        return pd_sc_fail(sc, PD_ERR_SEMANTIC, d, "'%s' must be an object", kws[k]);
      for (uint32_t j = 0; j < pd_json_len(&sc->doc, d); j++) {
        uint32_t key = pd_json_mkey(&sc->doc, d, j), v = pd_json_mval(&sc->doc, d, j);
        if (pd_json_at(&sc->doc, v)->kind != PD_JSON_ARRAY) {
          if (k == 0)
            return pd_sc_fail(sc, PD_ERR_SEMANTIC, v, "dependentRequired values must be arrays");
          continue; /* a schema: already distributed (pd__dep_schemas) */
        }
        if ((st = pd__declare(o, key, false))) return st;
        for (uint32_t q = 0; q < pd_json_len(&sc->doc, v); q++) {
          uint32_t nm = pd_json_elem(&sc->doc, v, q);
          if (pd_json_at(&sc->doc, nm)->kind != PD_JSON_STRING)
            return pd_sc_fail(sc, PD_ERR_SEMANTIC, nm, "dependencies must list strings");
          if ((st = pd__declare(o, nm, false))) return st;
        }
        pd__dep dep = {key, v};
        if (!pd_array_push(sc->ir.alloc, &o->deps, dep)) return pd__nomem(sc->err);
      }
    }
  return PD_OK;
}

static pd__prop *pd__prop_of(pd__obj *o, uint32_t name) {
  for (size_t i = 0; i < o->props.len; i++)
    if (pd__same_name(o->sc, o->props.data[i].name, name)) return &o->props.data[i];
  return NULL;
}

/* Flags for dependency case mask: bit j set = key j present with its names. */
static void pd__dep_case(pd__obj *o, uint32_t mask) {
  for (size_t i = 0; i < o->props.len; i++) {
    o->props.data[i].required = o->props.data[i].base_required;
    o->props.data[i].forbidden = false;
  }
  for (size_t j = 0; j < o->deps.len; j++) {
    pd__prop *k = pd__prop_of(o, o->deps.data[j].key);
    if (!(mask >> j & 1)) {
      k->forbidden = true;
      continue;
    }
    k->required = true;
    uint32_t v = o->deps.data[j].names;
    for (uint32_t q = 0; q < pd_json_len(&o->sc->doc, v); q++)
      pd__prop_of(o, pd_json_elem(&o->sc->doc, v, q))->required = true;
  }
}

/* object = "{" members "}" for the current property flags. */
static pd_status pd__one_object(pd__obj *o, uint32_t *node) {
  pd_sc *sc = o->sc;
  pd_ir *ir = &sc->ir;
  pd_status st;
  pd__chain ch = {.cap = pd__cap(o)};
  uint32_t start = PD_IR_NONE;
  bool wide;
  pd__order how = sc->opts.any_order ? pd__any_order_fits(o, &wide) : PD__ORDER_DECLARED;
  if (how != PD__ORDER_DECLARED) {
    if ((st = pd__any_order(o, how, wide, &start))) return st;
  } else {
    if ((st = pd__rules(o, &ch)) || (st = pd__chain_build(o, &ch))) return st;
    start = pd_ir_ref(ir, pd__at(&ch, ch.first_f, 0, 0));
  }
  uint32_t open = pd_ir_bytes(ir, "{", 1), close = pd_ir_bytes(ir, "}", 1);
  uint32_t ws_open = pd_sc_open_ws(sc, o->depth, true), ws_close = pd_sc_close_ws(sc, o->depth);
  uint32_t full = pd_ir_seq(ir, (uint32_t[]){open, ws_open, start, ws_close, close}, 5);
  if (pd__empty_ok(o))
    full = pd_ir_alt2(ir, full, pd_ir_seq(ir, (uint32_t[]){open, pd_sc_empty_ws(sc), close}, 3));
  *node = full;
  return pd_sc_ir_status(sc);
}

/* Whether key name cannot carry the negated member: one of some_names' keys,
 * not matching some_pattern, or matching one of some_none. */
static pd_status pd__some_excludes(pd__obj *o, uint32_t name, bool *out) {
  pd_sc *sc = o->sc;
  const char *s = pd_json_str(&sc->doc, name);
  size_t n = pd_json_at(&sc->doc, name)->n;
  bool m;
  pd_status st;
  *out = true;
  for (uint32_t k = 0; k < pd_json_len(&sc->doc, o->some_names); k++)
    if (pd__same_name(sc, pd_json_mkey(&sc->doc, o->some_names, k), name)) return PD_OK;
  if (o->some_pattern != PD_JSON_NONE) {
    if ((st = pd_sc_pattern_test(sc, o->some_pattern, s, n, &m))) return st;
    if (!m) return PD_OK;
  }
  for (uint32_t k = 0; o->some_none != PD_JSON_NONE && k < pd_json_len(&sc->doc, o->some_none); k++) {
    if ((st = pd_sc_pattern_test(sc, pd_json_elem(&sc->doc, o->some_none, k), s, n, &m))) return st;
    if (m) return PD_OK;
  }
  *out = false;
  return PD_OK;
}

/* The member's negated additionalProperties (schema_not.c), at most one,
 * where the additional keys are plain (no patterns, no propertyNames). */
static pd_status pd__some(pd__obj *o) {
  pd_sc *sc = o->sc;
  for (size_t i = 0; i < o->c->n; i++) {
    uint32_t m = pd_sc_member(sc, o->c, i), names = pd_sc_derived_kw(sc, m, PD_SC_SOME_KEY);
    if (names == PD_JSON_NONE) continue;
    if (o->some_names != PD_JSON_NONE || o->pat_mode != PD__PAT_NONE ||
        o->names_schema != PD_JSON_NONE)
      return pd_sc_unsupported(sc, pd_sc_neg_origin(sc, m), "additionalProperties",
                               "a negated additionalProperties beside patterns, propertyNames "
                               "or another one");
    o->some_names = names;
    o->some_value = pd_json_get(&sc->doc, m, PD_SC_SOME_VALUE);
    o->some_pattern = pd_json_get(&sc->doc, m, PD_SC_SOME_PATTERN);
    o->some_none = pd_json_get(&sc->doc, m, PD_SC_SOME_NOT_MATCHING);
  }
  return PD_OK;
}

#define PD__MAX_DEPS 6u

pd_status pd_sc_object(pd_sc *sc, const pd_sc_conj *c, uint32_t depth, uint32_t *node) {
  pd__obj o = {.sc = sc, .c = c, .depth = depth};
  pd_ir *ir = &sc->ir;
  pd_status st;
  o.names_schema = o.some_names = o.some_value = o.with = PD_JSON_NONE;
  o.some_pattern = o.some_none = PD_JSON_NONE;
  if ((st = pd__unevaluated(&o)) ||
      (st = pd_sc_bound(sc, c, "minProperties", false, &o.min)) ||
      (st = pd_sc_bound(sc, c, "maxProperties", true, &o.max)) || (st = pd__patterns(&o)) ||
      (st = pd__collect(&o)) || (st = pd__dependencies(&o)) || (st = pd__patterns_check(&o)) ||
      (st = pd__property_names(&o)))
    goto out;
  if (pd__cap(&o) > 64) {
    st = pd_sc_unsupported(sc, pd_sc_kw(sc, c, 0, "minProperties"), "minProperties",
                           "member counts above 64");
    if (st) goto out;
    o.min = 0;
    o.max = PD_IR_INF;
  }
  if (o.deps.len > PD__MAX_DEPS) {
    st = pd_sc_unsupported(sc, pd_sc_kw(sc, c, 0, "dependentRequired"), "dependentRequired",
                           "more than 6 dependencies");
    if (st) goto out;
    o.deps.len = 0;
  }
  if ((st = pd__some(&o))) goto out;
  for (size_t i = 0; i < o.props.len; i++) o.props.data[i].base_required = o.props.data[i].required;
  uint32_t acc = pd_ir_nothing(ir);
  uint32_t marks = o.some_names == PD_JSON_NONE ? 1 : (uint32_t)o.props.len + 1;
  for (uint32_t mask = 0; mask < (1u << o.deps.len) && !st; mask++)
    for (o.mark = 0; o.mark < marks && !st; o.mark++) {
      uint32_t one;
      pd__dep_case(&o, mask);
      if (o.some_names != PD_JSON_NONE && o.mark < o.props.len) { /* declared: present, and met */
        pd__prop *p = &o.props.data[o.mark];
        bool excluded;
        if ((st = pd__some_excludes(&o, p->name, &excluded))) break;
        if (p->forbidden || excluded) continue;
        p->required = true;
      }
      if (!(st = pd__one_object(&o, &one))) acc = pd_ir_alt2(ir, acc, one);
    }
  *node = acc;
  if (!st) st = pd_sc_ir_status(sc);
out:
  for (size_t i = 0; i < o.unevals.len; i++) pd__free(ir->alloc, o.unevals.data[i].reach);
  pd_array_free(ir->alloc, &o.unevals);
  pd_array_free(ir->alloc, &o.deps);
  pd_array_free(ir->alloc, &o.props);
  pd_array_free(ir->alloc, &o.pats);
  pd_regex_dfa_free(&o.dfa);
  return st;
}
