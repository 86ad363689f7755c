/* ir_match.c - end-position sets over the IR (see ir_match.h). */
#include "ir_match.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct pdt__m {
  const pd_ir *ir;
  const uint8_t *s;
  size_t n, words; /* positions 0..n; words per set */
  uint64_t **memo; /* [rule * (n+1) + pos] -> set, NULL = not computed */
  uint8_t *busy;   /* same index: being computed */
} pdt__m;

static uint64_t *pdt__set(const pdt__m *m) {
  return calloc(m->words, sizeof(uint64_t));
}
static void pdt__add(uint64_t *s, size_t i) {
  s[i / 64] |= 1ull << (i % 64);
}
static bool pdt__has(const uint64_t *s, size_t i) {
  return s[i / 64] >> (i % 64) & 1;
}
static bool pdt__or(const pdt__m *m, uint64_t *a, const uint64_t *b) {
  bool changed = false;
  for (size_t w = 0; w < m->words; w++) {
    uint64_t x = a[w] | b[w];
    changed |= x != a[w];
    a[w] = x;
  }
  return changed;
}

static uint64_t *pdt__node(pdt__m *m, uint32_t id, size_t pos);

/* Code point at pos (UTF-8); *k its length; false when malformed. */
static bool pdt__cp(const pdt__m *m, size_t pos, uint32_t *c, size_t *k) {
  if (pos >= m->n) return false;
  uint8_t b = m->s[pos];
  size_t len = b < 0x80             ? 1
               : (b & 0xE0) == 0xC0 ? 2
               : (b & 0xF0) == 0xE0 ? 3
               : (b & 0xF8) == 0xF0 ? 4
                                    : 0;
  if (!len || pos + len > m->n) return false;
  uint32_t v = len == 1 ? b : len == 2 ? b & 0x1Fu : len == 3 ? b & 0x0Fu : b & 0x07u;
  for (size_t j = 1; j < len; j++) {
    if ((m->s[pos + j] & 0xC0) != 0x80) return false;
    v = v << 6 | (m->s[pos + j] & 0x3Fu);
  }
  *c = v;
  *k = len;
  return true;
}

/* Ends of node id from every position in from (a set), or'ed into out. */
static void pdt__from(pdt__m *m, uint32_t id, const uint64_t *from, uint64_t *out) {
  for (size_t p = 0; p <= m->n; p++)
    if (pdt__has(from, p)) {
      uint64_t *e = pdt__node(m, id, p);
      pdt__or(m, out, e);
      free(e);
    }
}

static uint64_t *pdt__repeat(pdt__m *m, const pd_ir_node *nd, size_t pos) {
  uint64_t *cur = pdt__set(m), *out = pdt__set(m);
  pdt__add(cur, pos);
  uint32_t min = nd->off, max = nd->n;
  if (min == 0) pdt__or(m, out, cur);
  for (uint32_t i = 1; max == PD_IR_INF || i <= max; i++) {
    uint64_t *next = pdt__set(m);
    pdt__from(m, nd->a, cur, next);
    free(cur);
    cur = next;
    bool changed = false;
    if (i >= min) changed = pdt__or(m, out, cur);
    bool empty = true;
    for (size_t w = 0; w < m->words; w++) empty = empty && !cur[w];
    if (empty || (i > min && !changed && max == PD_IR_INF)) break;
    if (i > m->n + min + 1 && max == PD_IR_INF) break;
  }
  free(cur);
  return out;
}

static uint32_t pdt__hex4(const uint8_t *s) {
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) v = v * 16 + (uint32_t)(s[i] <= '9' ? s[i] - '0' : (s[i] | 0x20) - 'a' + 10);
  return v;
}

/* The characters of a JSON string body s[0..n) as JSON Schema counts them:
 * an escape is one, and so is a surrogate pair of \u escapes. */
static size_t pdt__json_chars(const uint8_t *s, size_t n) {
  size_t chars = 0;
  for (size_t i = 0; i < n; chars++) {
    if (s[i] != '\\') {
      i += s[i] < 0x80 ? 1 : s[i] < 0xE0 ? 2 : s[i] < 0xF0 ? 3 : 4;
    } else if (i + 6 <= n && s[i + 1] == 'u') {
      uint32_t hi = pdt__hex4(s + i + 2);
      bool pair = hi >= 0xD800 && hi <= 0xDBFF && i + 12 <= n && s[i + 6] == '\\' &&
                  s[i + 7] == 'u' && pdt__hex4(s + i + 8) >= 0xDC00 && pdt__hex4(s + i + 8) <= 0xDFFF;
      i += pair ? 12 : 6;
    } else {
      i += 2;
    }
  }
  return chars;
}

static uint64_t *pdt__rule(pdt__m *m, uint32_t rule, size_t pos);

/* The alternatives of node id: an ALT's kids, or the node alone. */
static const uint32_t *pdt__alts(const pd_ir *ir, const uint32_t *id, uint32_t *n) {
  const pd_ir_node *nd = pd_ir_at(ir, *id);
  if (nd->kind != PD_IR_ALT) return *n = 1, id;
  *n = nd->n;
  return ir->kids.data + nd->off;
}

/* A set rule (pd_ir_set), its body first (next)*: a search over (position,
 * set) pairs, one alternative a step; a member (a rule with a set bit) is
 * taken at most once, and the rule ends where the set holds set_need. */
static uint64_t *pdt__set_rule(pdt__m *m, const pd_ir_rule *r, size_t pos) {
  const pd_ir *ir = m->ir;
  const pd_ir_node *seq = pd_ir_at(ir, r->body);
  uint64_t *out = pdt__set(m);
  if (seq->kind != PD_IR_SEQ || seq->n != 2) return out;
  uint32_t first_id = ir->kids.data[seq->off], rep_id = ir->kids.data[seq->off + 1];
  const pd_ir_node *rep = pd_ir_at(ir, rep_id);
  if (rep->kind != PD_IR_REPEAT || rep->off != 0 || rep->n != PD_IR_INF) return out;
  size_t cap = 64, len = 0, done = 0; /* pairs reached, in order; the first step from pos */
  struct { size_t pos; uint32_t set; } *q = malloc(cap * sizeof *q);
  for (bool start = true; start || done < len; start = false) {
    size_t at = start ? pos : q[done].pos;
    uint32_t set = start ? 0 : q[done++].set, n;
    const uint32_t *alt = pdt__alts(ir, start ? &first_id : &rep->a, &n);
    for (uint32_t i = 0; i < n; i++) {
      const pd_ir_node *k = pd_ir_at(ir, alt[i]);
      uint32_t bit = k->kind == PD_IR_REF ? ir->rules.data[k->a].set_bit : 0, to = set;
      if (bit && (set >> (bit - 1) & 1)) continue;
      if (bit) to |= 1u << (bit - 1);
      uint64_t *ends = pdt__node(m, alt[i], at);
      for (size_t e = at; e <= m->n; e++) {
        if (!pdt__has(ends, e)) continue;
        bool seen = false;
        for (size_t j = 0; j < len && !seen; j++) seen = q[j].pos == e && q[j].set == to;
        if (seen) continue;
        if (len == cap) q = realloc(q, (cap *= 2) * sizeof *q);
        q[len].pos = e, q[len++].set = to;
        if ((to & r->set_need) == r->set_need) pdt__add(out, e);
      }
      free(ends);
    }
  }
  free(q);
  return out;
}

static uint64_t *pdt__rule(pdt__m *m, uint32_t rule, size_t pos) {
  size_t idx = (size_t)rule * (m->n + 1) + pos;
  uint64_t *out = pdt__set(m);
  if (m->memo[idx]) {
    memcpy(out, m->memo[idx], m->words * sizeof(uint64_t));
    return out;
  }
  if (m->busy[idx] || m->ir->rules.data[rule].body == PD_IR_NONE) return out;
  m->busy[idx] = 1;
  free(out);
  const pd_ir_rule *r = &m->ir->rules.data[rule];
  out = r->set_need ? pdt__set_rule(m, r, pos) : pdt__node(m, r->body, pos);
  for (size_t e = pos; r->count && e <= m->n; e++) /* a counted rule (pd_ir_counted) */
    if (pdt__has(out, e) && pdt__json_chars(m->s + pos, e - pos) > r->count)
      out[e / 64] &= ~(1ull << (e % 64));
  m->busy[idx] = 0;
  m->memo[idx] = pdt__set(m);
  memcpy(m->memo[idx], out, m->words * sizeof(uint64_t));
  return out;
}

static uint64_t *pdt__node(pdt__m *m, uint32_t id, size_t pos) {
  const pd_ir *ir = m->ir;
  const pd_ir_node *nd = pd_ir_at(ir, id);
  uint64_t *out = NULL;
  switch ((pd_ir_kind)nd->kind) {
    case PD_IR_EMPTY:
      out = pdt__set(m);
      pdt__add(out, pos);
      return out;
    case PD_IR_NOTHING:
    case PD_IR_TOKEN:
      return pdt__set(m);
    case PD_IR_BYTES:
      out = pdt__set(m);
      if (pos + nd->n <= m->n && memcmp(m->s + pos, ir->bytes.data + nd->off, nd->n) == 0)
        pdt__add(out, pos + nd->n);
      return out;
    case PD_IR_CLASS: {
      out = pdt__set(m);
      uint32_t c;
      size_t k;
      if (!pdt__cp(m, pos, &c, &k)) return out;
      for (uint32_t i = 0; i < nd->n; i++)
        if (ir->ranges.data[nd->off + 2 * i] <= c && c <= ir->ranges.data[nd->off + 2 * i + 1])
          pdt__add(out, pos + k);
      return out;
    }
    case PD_IR_REF:
      return pdt__rule(m, nd->a, pos);
    case PD_IR_ALT:
      out = pdt__set(m);
      for (uint32_t i = 0; i < nd->n; i++) {
        uint64_t *e = pdt__node(m, ir->kids.data[nd->off + i], pos);
        pdt__or(m, out, e);
        free(e);
      }
      return out;
    case PD_IR_SEQ: {
      uint64_t *cur = pdt__set(m);
      pdt__add(cur, pos);
      for (uint32_t i = 0; i < nd->n; i++) {
        uint64_t *next = pdt__set(m);
        pdt__from(m, ir->kids.data[nd->off + i], cur, next);
        free(cur);
        cur = next;
      }
      return cur;
    }
    case PD_IR_REPEAT:
      return pdt__repeat(m, nd, pos);
    case PD_IR_DIFF: { /* ends a reaches that b does not, over the same span */
      out = pdt__node(m, nd->a, pos);
      uint64_t *minus = pdt__node(m, nd->off, pos);
      for (size_t w = 0; w < m->words; w++) out[w] &= ~minus[w];
      free(minus);
      return out;
    }
    case PD_IR_AND: { /* ends both reach, over the same span */
      out = pdt__node(m, nd->a, pos);
      uint64_t *also = pdt__node(m, nd->off, pos);
      for (size_t w = 0; w < m->words; w++) out[w] &= also[w];
      free(also);
      return out;
    }
  }
  return pdt__set(m);
}

bool pdt_ir_match(const pd_ir *ir, const char *text, size_t len) {
  if (ir->root == PD_IR_NONE) return false;
  pdt__m m = {ir, (const uint8_t *)text, len, len / 64 + 1, NULL, NULL};
  size_t cells = ir->rules.len * (len + 1);
  m.memo = calloc(cells, sizeof *m.memo);
  m.busy = calloc(cells, 1);
  uint64_t *ends = pdt__rule(&m, ir->root, 0);
  bool ok = pdt__has(ends, len);
  free(ends);
  for (size_t i = 0; i < cells; i++) free(m.memo[i]);
  free(m.memo);
  free(m.busy);
  return ok;
}
