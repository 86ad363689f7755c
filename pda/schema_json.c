/* schema_json.c - the JSON syntax around values: whitespace and separators in
 * each pd_ws_mode, any JSON value, and literal values (const / enum). */
#include <string.h>

#include "pda/schema_ctx.h"

bool pd_sc_indented(const pd_sc *sc) {
  return sc->opts.ws_mode == PD_WS_FIXED && sc->opts.indent >= 0;
}

/* ws = [ \t\n\r]{0,max_ws_run} */
uint32_t pd_sc_ws(pd_sc *sc, pd_sc_ws_at at) {
  if (sc->opts.ws_mode != PD_WS_FLEXIBLE) return pd_ir_empty(&sc->ir);
  if (sc->ws_rule[at] == PD_IR_NONE) {
    static const uint32_t ws[] = {' ', ' ', '\t', '\n', '\r', '\r'};
    static const char *const name[PD_SC_WS_PLACES] = {"ws", "ws-key", "ws-after"};
    uint32_t r = pd_ir_rule_named(&sc->ir, name[at], strlen(name[at]));
    uint32_t max = sc->opts.max_ws_run ? sc->opts.max_ws_run : PD_IR_INF;
    uint32_t body = pd_ir_repeat(&sc->ir, pd_ir_class(&sc->ir, ws, 3, false), 0, max);
    pd_ir_rule_define(&sc->ir, r, body);
    pd_ir_rule_flag(&sc->ir, r, PD_IR_RULE_DISTINCT);
    if (sc->ir.oom) return PD_IR_NONE;
    sc->ws_rule[at] = r;
  }
  return pd_ir_ref(&sc->ir, sc->ws_rule[at]);
}

/* "\n" followed by level * indent spaces. */
static uint32_t pd__newline(pd_sc *sc, uint32_t level) {
  uint64_t n = (uint64_t)level * (uint32_t)sc->opts.indent;
  uint32_t nl = pd_ir_bytes(&sc->ir, "\n", 1);
  if (n == 0) return nl;
  return pd_ir_seq2(&sc->ir, nl,
                    pd_ir_repeat(&sc->ir, pd_ir_bytes(&sc->ir, " ", 1), (uint32_t)n, (uint32_t)n));
}

uint32_t pd_sc_open_ws(pd_sc *sc, uint32_t depth, bool obj) {
  if (pd_sc_indented(sc)) return pd__newline(sc, depth + 1);
  return pd_sc_ws(sc, obj ? PD_SC_WS_KEY : PD_SC_WS_VALUE);
}

uint32_t pd_sc_close_ws(pd_sc *sc, uint32_t depth) {
  if (pd_sc_indented(sc)) return pd__newline(sc, depth);
  return pd_sc_ws(sc, PD_SC_WS_AFTER);
}

uint32_t pd_sc_empty_ws(pd_sc *sc) {
  return pd_sc_ws(sc, PD_SC_WS_AFTER);
}

static uint32_t pd__fixed(pd_sc *sc, const char *s, const char *dflt) {
  if (!s) s = dflt;
  return pd_ir_bytes(&sc->ir, s, strlen(s));
}

uint32_t pd_sc_item_sep(pd_sc *sc, uint32_t depth, bool obj) {
  if (sc->opts.ws_mode == PD_WS_COMPACT) return pd_ir_bytes(&sc->ir, ",", 1);
  if (sc->opts.ws_mode == PD_WS_FIXED) {
    uint32_t sep = pd__fixed(sc, sc->opts.item_separator, ",");
    return pd_sc_indented(sc) ? pd_ir_seq2(&sc->ir, sep, pd__newline(sc, depth + 1)) : sep;
  }
  uint32_t k[3] = {pd_sc_ws(sc, PD_SC_WS_AFTER), pd_ir_bytes(&sc->ir, ",", 1),
                   pd_sc_ws(sc, obj ? PD_SC_WS_KEY : PD_SC_WS_VALUE)};
  return pd_ir_seq(&sc->ir, k, 3);
}

uint32_t pd_sc_key_sep(pd_sc *sc) {
  if (sc->opts.ws_mode == PD_WS_COMPACT) return pd_ir_bytes(&sc->ir, ":", 1);
  if (sc->opts.ws_mode == PD_WS_FIXED) return pd__fixed(sc, sc->opts.key_separator, ":");
  uint32_t k[3] = {pd_sc_ws(sc, PD_SC_WS_AFTER), pd_ir_bytes(&sc->ir, ":", 1),
                   pd_sc_ws(sc, PD_SC_WS_VALUE)};
  return pd_ir_seq(&sc->ir, k, 3);
}

uint32_t pd_sc_any_value(pd_sc *sc, uint32_t types, uint32_t depth) {
  uint32_t node = PD_IR_NONE;
  pd_error *saved = sc->err;
  pd_status st = pd_sc_compile(sc, sc->pool.len, 0, types, depth, &node);
  sc->err = saved;
  if (st) {
    sc->ir.oom = true; /* only allocation or limits can fail an empty conj */
    return PD_IR_NONE;
  }
  return node;
}

/* open items (sep item)* close, or the empty container. items[i] built lazily. */
static uint32_t pd__container(pd_sc *sc, uint32_t v, uint32_t depth, bool obj) {
  const pd_json_doc *d = &sc->doc;
  uint32_t n = pd_json_len(d, v);
  uint32_t open = pd_ir_bytes(&sc->ir, obj ? "{" : "[", 1),
           close = pd_ir_bytes(&sc->ir, obj ? "}" : "]", 1);
  if (n == 0) {
    uint32_t k[3] = {open, pd_sc_empty_ws(sc), close};
    return pd_ir_seq(&sc->ir, k, 3);
  }
  uint32_t acc = pd_ir_seq2(&sc->ir, open, pd_sc_open_ws(sc, depth, obj));
  for (uint32_t i = 0; i < n; i++) {
    if (i) acc = pd_ir_seq2(&sc->ir, acc, pd_sc_item_sep(sc, depth, obj));
    if (obj) {
      uint32_t key = pd_json_mkey(d, v, i);
      uint32_t k[3] = {pd_sc_string_literal(sc, pd_json_str(d, key), pd_json_at(d, key)->n),
                       pd_sc_key_sep(sc), pd_sc_literal(sc, pd_json_mval(d, v, i), depth + 1)};
      acc = pd_ir_seq2(&sc->ir, acc, pd_ir_seq(&sc->ir, k, 3));
    } else {
      acc = pd_ir_seq2(&sc->ir, acc, pd_sc_literal(sc, pd_json_elem(d, v, i), depth + 1));
    }
  }
  uint32_t k[3] = {acc, pd_sc_close_ws(sc, depth), close};
  return pd_ir_seq(&sc->ir, k, 3);
}

uint32_t pd_sc_literal(pd_sc *sc, uint32_t v, uint32_t depth) {
  const pd_json_node *n = pd_json_at(&sc->doc, v);
  switch ((pd_json_kind)n->kind) {
    case PD_JSON_NULL:
      return pd_ir_bytes(&sc->ir, "null", 4);
    case PD_JSON_FALSE:
      return pd_ir_bytes(&sc->ir, "false", 5);
    case PD_JSON_TRUE:
      return pd_ir_bytes(&sc->ir, "true", 4);
    case PD_JSON_NUMBER:
      return pd_sc_number_literal(sc, v, false);
    case PD_JSON_STRING:
      return pd_sc_string_literal(sc, pd_json_str(&sc->doc, v), n->n);
    case PD_JSON_ARRAY:
      return pd__container(sc, v, depth, false);
    case PD_JSON_OBJECT:
      return pd__container(sc, v, depth, true);
  }
  return pd_ir_nothing(&sc->ir);
}
