/* schema_object.c - objects: properties (in declared order), required,
 * additionalProperties (and the strict option), minProperties /
 * maxProperties, dependentRequired.
 *
 * Language: the declared properties in the order they are first declared,
 * each present or (unless required) absent, then any additional members, all
 * comma-separated. Additional keys are strings whose decoded value is none of
 * the declared names, so a declared property is always checked against its
 * own schema (an escape such as "\u0061" is the same key as "a").
 */
#include <string.h>

#include "base/error.h"
#include "pda/schema_ctx.h"

/* One declared property: its name (a string node) and whether it is required. */
typedef struct pd__prop {
  uint32_t name;
  bool required;
} pd__prop;

typedef struct pd__obj {
  pd_sc *sc;
  const pd_sc_conj *c;
  uint32_t depth;
  PD_ARRAY(pd__prop) props;
  uint32_t min, max; /* minProperties, maxProperties (PD_IR_INF: none) */
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
  pd__prop p = {name, required};
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
  uint32_t a = pd_json_get(&o->sc->doc, s, "additionalProperties");
  *forbid = false;
  if (a == PD_JSON_NONE && o->sc->opts.strict &&
      (pd_json_get(&o->sc->doc, s, "properties") != PD_JSON_NONE ||
       pd_json_get(&o->sc->doc, s, "type") != PD_JSON_NONE))
    *forbid = true;
  return a;
}

/* The value schema for key name (NONE = additional keys): every member's
 * properties[name], else its additionalProperties. */
static pd_status pd__value(pd__obj *o, uint32_t name, uint32_t *node) {
  pd_sc *sc = o->sc;
  size_t off = sc->pool.len;
  for (size_t i = 0; i < o->c->n; i++) {
    uint32_t s = pd_sc_member(sc, o->c, i), p = pd_json_get(&sc->doc, s, "properties"), v = PD_JSON_NONE;
    bool forbid;
    if (name != PD_JSON_NONE && p != PD_JSON_NONE) {
      for (uint32_t k = 0; k < pd_json_len(&sc->doc, p); k++)
        if (pd__same_name(sc, pd_json_mkey(&sc->doc, p, k), name)) v = pd_json_mval(&sc->doc, p, k);
    }
    if (v == PD_JSON_NONE) v = pd__additional(o, s, &forbid);
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

/* Keywords this builder refuses to approximate. */
static pd_status pd__refuse(pd__obj *o) {
  static const char *const kws[] = {"patternProperties", "propertyNames", "dependentRequired",
                                    "dependencies"};
  for (size_t i = 0; i < o->c->n; i++)
    for (int k = 0; k < 4; k++) {
      uint32_t v = pd_sc_kw(o->sc, o->c, i, kws[k]);
      if (v == PD_JSON_NONE) continue;
      if (pd_json_at(&o->sc->doc, v)->kind == PD_JSON_OBJECT && pd_json_len(&o->sc->doc, v) == 0)
        continue; /* empty: no constraint */
      pd_status st = pd_sc_unsupported(o->sc, v, kws[k], "not implemented");
      if (st) return st;
    }
  return PD_OK;
}

/* member = key ":" value */
static pd_status pd__member(pd__obj *o, uint32_t key, uint32_t name, uint32_t *node) {
  uint32_t value;
  pd_status st = pd__value(o, name, &value);
  if (st) return st;
  if (pd_ir_at(&o->sc->ir, value)->kind == PD_IR_NOTHING) { /* forbidden key */
    *node = value;
    return PD_OK;
  }
  uint32_t k[3] = {key, pd_sc_key_sep(o->sc), value};
  *node = pd_ir_seq(&o->sc->ir, k, 3);
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
 *   F(P,n) = extra X(n+1);  T(P,n) = X(n);  X(n) = sep extra X(n+1) | ""  */
typedef struct pd__chain {
  uint32_t first_f, first_t, first_x; /* rule ids: F(i,n) = first_f + i*(cap+1) + n */
  uint32_t cap;
} pd__chain;

static uint32_t pd__at(const pd__chain *ch, uint32_t base, uint32_t i, uint32_t n) {
  return base + i * (ch->cap + 1) + (n > ch->cap ? ch->cap : n);
}

static pd_status pd__rules(pd__obj *o, pd__chain *ch) {
  pd_ir *ir = &o->sc->ir;
  size_t p = o->props.len, per = (size_t)ch->cap + 1;
  if (ir->rules.len + (2 * (p + 1) + 1) * per > o->sc->opts.max_rules)
    return pd__fail(o->sc->err, PD_ERR_LIMIT, "object needs more than %u rules",
                    o->sc->opts.max_rules);
  ch->first_f = (uint32_t)ir->rules.len;
  for (size_t k = 0; k < (p + 1) * per; k++) pd_ir_rule_fresh(ir, "of");
  ch->first_t = (uint32_t)ir->rules.len;
  for (size_t k = 0; k < (p + 1) * per; k++) pd_ir_rule_fresh(ir, "ot");
  ch->first_x = (uint32_t)ir->rules.len;
  for (size_t k = 0; k < per; k++) pd_ir_rule_fresh(ir, "ox");
  return pd_sc_ir_status(o->sc);
}

/* Additional members: X(n) rules and the extra-member node. */
static pd_status pd__extras(pd__obj *o, const pd__chain *ch, uint32_t *extra) {
  pd_sc *sc = o->sc;
  pd_ir *ir = &sc->ir;
  uint32_t *names = pd__malloc(ir->alloc, (o->props.len + 1) * sizeof *names);
  if (!names) return pd__nomem(sc->err);
  for (size_t i = 0; i < o->props.len; i++) names[i] = o->props.data[i].name;
  uint32_t key = pd_sc_string_not_in(sc, names, o->props.len);
  pd__free(ir->alloc, names);
  pd_status st = pd__member(o, key, PD_JSON_NONE, extra);
  if (st) return st;
  uint32_t sep = pd_sc_item_sep(sc, o->depth);
  for (uint32_t n = 0; n <= ch->cap; n++) {
    uint32_t more = pd_ir_seq(ir, (uint32_t[]){sep, *extra, pd_ir_ref(ir, pd__at(ch, ch->first_x, 0, n + 1))}, 3);
    if (n == ch->cap && o->max != PD_IR_INF) more = pd_ir_nothing(ir); /* over the maximum */
    bool end_ok = pd__count_ok(o, n);
    pd_ir_rule_define(ir, ch->first_x + n, end_ok ? pd_ir_alt2(ir, more, pd_ir_empty(ir)) : more);
  }
  return pd_sc_ir_status(sc);
}

static pd_status pd__chain_build(pd__obj *o, pd__chain *ch) {
  pd_sc *sc = o->sc;
  pd_ir *ir = &sc->ir;
  uint32_t extra, P = (uint32_t)o->props.len;
  pd_status st = pd__extras(o, ch, &extra);
  if (st) return st;
  uint32_t sep = pd_sc_item_sep(sc, o->depth);
  for (uint32_t n = 0; n <= ch->cap; n++) {
    pd_ir_rule_define(ir, pd__at(ch, ch->first_f, P, n),
                      pd_ir_seq2(ir, extra, pd_ir_ref(ir, pd__at(ch, ch->first_x, 0, n + 1))));
    pd_ir_rule_define(ir, pd__at(ch, ch->first_t, P, n), pd_ir_ref(ir, pd__at(ch, ch->first_x, 0, n)));
  }
  for (uint32_t i = P; i-- > 0;) {
    const pd__prop *p = &o->props.data[i];
    uint32_t key = pd_sc_string_literal(sc, pd_json_str(&sc->doc, p->name),
                                        pd_json_at(&sc->doc, p->name)->n), elem;
    if ((st = pd__member(o, key, p->name, &elem))) return st;
    for (uint32_t n = 0; n <= ch->cap; n++) {
      bool over = o->max != PD_IR_INF && n >= o->max;
      uint32_t f = over ? pd_ir_nothing(ir) : pd_ir_seq2(ir, elem, pd_ir_ref(ir, pd__at(ch, ch->first_t, i + 1, n + 1)));
      uint32_t t = over ? pd_ir_nothing(ir)
                        : pd_ir_seq(ir, (uint32_t[]){sep, elem, pd_ir_ref(ir, pd__at(ch, ch->first_t, i + 1, n + 1))}, 3);
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

/* Declared properties in any order, each at most once, additional members
 * anywhere; the state is the set of declared properties written:
 *   START   = elem_p T({p}) | extra T({})
 *   T(mask) = sep elem_p T(mask + p) (p not in mask) | sep extra T(mask)
 *             | "" (when mask holds every required property and the count fits)
 * Member counts are the popcount of mask, so min/maxProperties are exact only
 * without additional members. */
#define PD__ANY_ORDER_MAX 12u

static pd_status pd__any_order(pd__obj *o, uint32_t *start) {
  pd_sc *sc = o->sc;
  pd_ir *ir = &sc->ir;
  uint32_t P = (uint32_t)o->props.len, extra, req = 0, *elems;
  if (P > PD__ANY_ORDER_MAX)
    return pd__fail(sc->err, PD_ERR_LIMIT, "any_order supports at most %u declared properties",
                    PD__ANY_ORDER_MAX);
  uint32_t *names = pd__malloc(ir->alloc, (P + 1) * sizeof *names);
  if (!names) return pd__nomem(sc->err);
  for (uint32_t i = 0; i < P; i++) names[i] = o->props.data[i].name;
  pd_status st = pd__member(o, pd_sc_string_not_in(sc, names, P), PD_JSON_NONE, &extra);
  pd__free(ir->alloc, names);
  if (st) return st;
  bool extras = pd_ir_at(ir, extra)->kind != PD_IR_NOTHING;
  if (extras && (o->min > 0 || o->max != PD_IR_INF))
    return pd_sc_unsupported(sc, pd_sc_kw(sc, o->c, 0, "minProperties"), "minProperties",
                             "counts with any_order and additional members");
  if (ir->rules.len + (1u << P) > sc->opts.max_rules)
    return pd__fail(sc->err, PD_ERR_LIMIT, "object needs more than %u rules", sc->opts.max_rules);
  elems = pd__malloc(ir->alloc, (P + 1) * sizeof *elems);
  if (!elems) return pd__nomem(sc->err);
  for (uint32_t i = 0; i < P && !st; i++) {
    uint32_t nm = o->props.data[i].name;
    if (o->props.data[i].required) req |= 1u << i;
    st = pd__member(o, pd_sc_string_literal(sc, pd_json_str(&sc->doc, nm), pd_json_at(&sc->doc, nm)->n),
                    nm, &elems[i]);
  }
  uint32_t first = (uint32_t)ir->rules.len, sep = pd_sc_item_sep(sc, o->depth);
  for (uint32_t m = 0; m < (1u << P) && !st; m++) pd_ir_rule_fresh(ir, "oa");
  for (uint32_t m = 0; m < (1u << P) && !st && !ir->oom; m++) {
    uint32_t n = (uint32_t)__builtin_popcount(m), acc = pd_ir_nothing(ir);
    if ((m & req) == req && pd__count_ok(o, n)) acc = pd_ir_empty(ir);
    if (extras) acc = pd_ir_alt2(ir, acc, pd_ir_seq(ir, (uint32_t[]){sep, extra, pd_ir_ref(ir, first + m)}, 3));
    for (uint32_t p = 0; p < P; p++)
      if (!(m >> p & 1) && (o->max == PD_IR_INF || n < o->max))
        acc = pd_ir_alt2(ir, acc, pd_ir_seq(ir, (uint32_t[]){sep, elems[p], pd_ir_ref(ir, first + (m | 1u << p))}, 3));
    pd_ir_rule_define(ir, first + m, acc);
  }
  uint32_t acc = extras ? pd_ir_seq2(ir, extra, pd_ir_ref(ir, first)) : pd_ir_nothing(ir);
  for (uint32_t p = 0; p < P && !st && o->max != 0; p++)
    acc = pd_ir_alt2(ir, acc, pd_ir_seq2(ir, elems[p], pd_ir_ref(ir, first + (1u << p))));
  pd__free(ir->alloc, elems);
  *start = acc;
  return st ? st : pd_sc_ir_status(sc);
}

/* The empty object is allowed: nothing required and minProperties 0. */
static bool pd__empty_ok(const pd__obj *o) {
  for (size_t i = 0; i < o->props.len; i++)
    if (o->props.data[i].required) return false;
  return o->min == 0;
}

pd_status pd_sc_object(pd_sc *sc, const pd_sc_conj *c, uint32_t depth, uint32_t *node) {
  pd__obj o = {.sc = sc, .c = c, .depth = depth};
  pd_ir *ir = &sc->ir;
  pd_status st;
  if ((st = pd__refuse(&o)) || (st = pd_sc_bound(sc, c, "minProperties", false, &o.min)) ||
      (st = pd_sc_bound(sc, c, "maxProperties", true, &o.max)) || (st = pd__collect(&o)))
    goto out;
  pd__chain ch = {.cap = pd__cap(&o)};
  if (ch.cap > 64) {
    st = pd_sc_unsupported(sc, pd_sc_kw(sc, c, 0, "minProperties"), "minProperties",
                           "member counts above 64");
    if (st) goto out;
    o.min = 0;
    o.max = PD_IR_INF;
    ch.cap = 0;
  }
  uint32_t start;
  if (sc->opts.any_order) {
    if ((st = pd__any_order(&o, &start))) goto out;
  } else {
    if ((st = pd__rules(&o, &ch)) || (st = pd__chain_build(&o, &ch))) goto out;
    start = pd_ir_ref(ir, pd__at(&ch, ch.first_f, 0, 0));
  }
  uint32_t open = pd_ir_bytes(ir, "{", 1), close = pd_ir_bytes(ir, "}", 1);
  uint32_t full = pd_ir_seq(ir, (uint32_t[]){open, pd_sc_open_ws(sc, depth), start,
                                             pd_sc_close_ws(sc, depth), close}, 5);
  if (pd__empty_ok(&o)) full = pd_ir_alt2(ir, full, pd_ir_seq(ir, (uint32_t[]){open, pd_sc_empty_ws(sc), close}, 3));
  *node = full;
  st = pd_sc_ir_status(sc);
out:
  pd_array_free(ir->alloc, &o.props);
  return st;
}
