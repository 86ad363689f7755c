/* units.c - where a counted rule's units begin: the JSON string characters
 * of its automaton (pd_ir_counted).
 *
 * A counted rule reads the body of a JSON string (the bytes between its
 * quotes) and the matcher counts its characters, as JSON Schema's lengths do:
 * a raw UTF-8 character, a two-byte escape, a \uXXXX escape, or a surrogate
 * pair of two \u escapes, each one character. A decoder of that structure
 * runs beside the rule's automaton from its start; a state is a boundary when
 * the decoder is between characters there, and a character begins on every
 * edge out of a boundary (PD_STATE_UNIT_START). The rule's automaton is a DFA,
 * so each state must meet the decoder in one position only (the decoder's
 * positions are those an automaton can tell apart), every final state
 * must be a boundary, and every byte must be one the decoder can take; a rule
 * that breaks one of these (its body is not made of JSON characters) is an
 * internal error, never a wrong count. */
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "build.h"

/* The decoder's positions. */
enum {
  PD__B,          /* between characters */
  PD__C1, PD__C2, PD__C3, /* continuation bytes left */
  PD__E,          /* after a backslash */
  PD__U0, PD__U1, PD__U2, PD__U3, /* \u: hex digits read (U1: the first was not D) */
  PD__D1,         /* \uD: a surrogate maybe */
  PD__H2, PD__H3, /* \uD8-\uDB: a high surrogate, two and three digits read */
  PD__P0, PD__P1, /* its low half: the backslash, the u */
  PD__L0, PD__L1, /* and its first hex digit (D), then the second (C-F); the last two are
                     U2's and U3's: an automaton has one state for both (the same future) */
  PD__POSITIONS,
  PD__NONE = 0xff
};

static bool pd__hex(uint8_t c) {
  return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}

/* The decoder's step from position p on byte c, or PD__NONE. Validity (the
 * ranges of UTF-8, which escapes and surrogates are characters) is the
 * automaton's; the decoder only places each byte in a character. */
static uint8_t pd__step(uint8_t p, uint8_t c) {
  switch (p) {
    case PD__B:
      if (c == '\\') return PD__E;
      if (c >= 0x20 && c < 0x80 && c != '"') return PD__B;
      if (c >= 0xC2 && c <= 0xDF) return PD__C1;
      if (c >= 0xE0 && c <= 0xEF) return PD__C2;
      if (c >= 0xF0 && c <= 0xF4) return PD__C3;
      return PD__NONE;
    case PD__C1: case PD__C2: case PD__C3:
      return c >= 0x80 && c <= 0xBF ? (uint8_t)(p == PD__C1 ? PD__B : p - 1) : PD__NONE;
    case PD__E:
      if (c == 'u') return PD__U0;
      return strchr("\"\\/bfnrt", c) && c ? PD__B : PD__NONE;
    case PD__U0:
      return !pd__hex(c) ? PD__NONE : (c | 0x20) == 'd' ? PD__D1 : PD__U1;
    case PD__D1:
      if (!pd__hex(c)) return PD__NONE;
      return (c >= '8' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'b') ? PD__H2 : PD__U2;
    case PD__U1: return pd__hex(c) ? PD__U2 : PD__NONE;
    case PD__U2: return pd__hex(c) ? PD__U3 : PD__NONE;
    case PD__U3: return pd__hex(c) ? PD__B : PD__NONE;
    case PD__H2: return pd__hex(c) ? PD__H3 : PD__NONE;
    case PD__H3: return pd__hex(c) ? PD__P0 : PD__NONE;
    case PD__P0: return c == '\\' ? PD__P1 : PD__NONE;
    case PD__P1: return c == 'u' ? PD__L0 : PD__NONE;
    case PD__L0: return (c | 0x20) == 'd' ? PD__L1 : PD__NONE;
    case PD__L1: return (c >= 'C' && c <= 'F') || (c >= 'c' && c <= 'f') ? PD__U2 : PD__NONE;
    default: return PD__NONE;
  }
}

/* Marks rule r's unit starts; false when its automaton is not made of JSON
 * characters as the file comment says. at[] is scratch, one byte a state. */
static bool pd__mark(pd_pda_builder *b, const pd_pda_rule *ru, uint8_t *at, uint32_t *queue) {
  uint32_t first = ru->start, n = ru->n_states, head = 0, tail = 0;
  memset(at, PD__NONE, n);
  at[0] = PD__B;
  queue[tail++] = first;
  while (head < tail) {
    uint32_t s = queue[head++];
    pd_pda_state *st = &b->states.data[s];
    uint8_t p = at[s - first];
    if (st->n_call || st->n_token || ((st->flags & PD_STATE_FINAL) && p != PD__B)) return false;
    if (p == PD__B) st->flags |= PD_STATE_UNIT_START;
    const pd_pda_edge *e = b->edges.data + st->edges;
    for (uint32_t k = 0; k < st->n_byte; k++) {
      uint32_t to = e[k].to;
      if (to < first || to >= first + n) return false;
      for (uint32_t c = e[k].lo; c <= e[k].hi; c++) {
        uint8_t q = pd__step(p, (uint8_t)c);
        if (q == PD__NONE) return false;
        if (at[to - first] == PD__NONE) {
          at[to - first] = q;
          queue[tail++] = to;
        } else if (at[to - first] != q) {
          return false;
        }
      }
    }
  }
  return true;
}

pd_status pd_pda_mark_units(pd_pda_builder *b, const pd_ir *w, pd_error *err) {
  uint32_t most = 0;
  for (uint32_t r = 0; r < b->rules.len; r++)
    if (w->rules.data[r].count && b->rules.data[r].n_states > most)
      most = b->rules.data[r].n_states;
  if (!most) return PD_OK;
  uint8_t *at = pd__malloc(b->a, most);
  uint32_t *queue = pd__malloc(b->a, (size_t)most * sizeof *queue);
  pd_status st = at && queue ? PD_OK : pd__nomem(err);
  for (uint32_t r = 0; r < b->rules.len && !st; r++)
    if (w->rules.data[r].count && w->rules.data[r].body != PD_IR_NONE &&
        !pd__mark(b, &b->rules.data[r], at, queue))
      st = pd__fail(err, PD_ERR_INTERNAL, "counted rule '%s' does not read JSON characters",
                    pd_ir_rule_name(w, r));
  pd__free(b->a, at);
  pd__free(b->a, queue);
  return st;
}
