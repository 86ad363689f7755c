/* ir_eval.c - a direct interpreter of the grammar IR for short strings, so the
 * regex and choice front ends can be checked independently of the automata. */
#include "ir_eval.h"

#include <string.h>

typedef struct irx {
  const pd_ir *ir;
  const uint8_t *s;
  size_t len;
} irx;

static uint64_t irx_ends(const irx *x, uint32_t node, size_t at);

/* The code point at s[at..], and its length in *n; UINT32_MAX when malformed. */
static uint32_t irx_utf8(const irx *x, size_t at, size_t *n) {
  uint8_t b = x->s[at];
  size_t k = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
  if (!k || at + k > x->len) return UINT32_MAX;
  uint32_t c = k == 1 ? b : b & (0x7Fu >> k);
  for (size_t i = 1; i < k; i++) {
    if ((x->s[at + i] & 0xC0) != 0x80) return UINT32_MAX;
    c = c << 6 | (x->s[at + i] & 0x3Fu);
  }
  *n = k;
  return c;
}

/* The positions reached from every position of set by node. */
static uint64_t irx_step(const irx *x, uint32_t node, uint64_t set) {
  uint64_t out = 0;
  for (size_t p = 0; p <= x->len; p++)
    if (set >> p & 1) out |= irx_ends(x, node, p);
  return out;
}

static uint64_t irx_class(const irx *x, const pd_ir_node *n, size_t at) {
  if (at >= x->len) return 0;
  size_t k;
  uint32_t c = irx_utf8(x, at, &k);
  if (c == UINT32_MAX) return 0;
  for (uint32_t i = 0; i < n->n; i++)
    if (c >= x->ir->ranges.data[n->off + 2 * i] && c <= x->ir->ranges.data[n->off + 2 * i + 1])
      return 1ull << (at + k);
  return 0;
}

static uint64_t irx_repeat(const irx *x, const pd_ir_node *n, size_t at) {
  uint64_t set = 1ull << at, seen = 0;
  uint32_t i = 0;
  for (; i < n->off; i++) {
    uint64_t next = irx_step(x, n->a, set);
    if (next == set) break; /* the rest of the mandatory copies change nothing */
    set = next;
  }
  if (!set) return 0;
  seen = set;
  for (uint32_t k = n->off; n->n == PD_IR_INF || k < n->n; k++) {
    set = irx_step(x, n->a, set);
    if ((set | seen) == seen) break;
    seen |= set;
  }
  return seen;
}

static uint64_t irx_ends(const irx *x, uint32_t node, size_t at) {
  const pd_ir_node *n = pd_ir_at(x->ir, node);
  uint64_t set;
  switch ((pd_ir_kind)n->kind) {
    case PD_IR_EMPTY: return 1ull << at;
    case PD_IR_NOTHING: return 0;
    case PD_IR_BYTES:
      if (at + n->n > x->len || memcmp(x->s + at, x->ir->bytes.data + n->off, n->n)) return 0;
      return 1ull << (at + n->n);
    case PD_IR_CLASS: return irx_class(x, n, at);
    case PD_IR_REF: return irx_ends(x, x->ir->rules.data[n->a].body, at);
    case PD_IR_SEQ:
      set = 1ull << at;
      for (uint32_t i = 0; i < n->n && set; i++)
        set = irx_step(x, x->ir->kids.data[n->off + i], set);
      return set;
    case PD_IR_ALT:
      set = 0;
      for (uint32_t i = 0; i < n->n; i++) set |= irx_ends(x, x->ir->kids.data[n->off + i], at);
      return set;
    case PD_IR_REPEAT: return irx_repeat(x, n, at);
    case PD_IR_TOKEN: return 0;
    case PD_IR_DIFF: return irx_ends(x, n->a, at) & ~irx_ends(x, n->off, at);
    case PD_IR_AND: return irx_ends(x, n->a, at) & irx_ends(x, n->off, at);
  }
  return 0;
}

int pdt_ir_matches(const pd_ir *ir, uint32_t node, const void *s, size_t len) {
  if (len > 62) return -1;
  irx x = {ir, s, len};
  return (int)(irx_ends(&x, node, 0) >> len & 1);
}
