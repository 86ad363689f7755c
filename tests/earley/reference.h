/* reference.h - a deliberately naive recognizer over the IR, and a random
 * grammar generator, for differential tests of the matcher (unit test and
 * fuzz/fuzz_matcher.c include it).
 *
 * The reference computes, by plain least-fixpoint iteration over (rule,
 * position), the set of end positions of every rule from every position (a
 * 64-bit set: inputs are at most PDR_MAX_INPUT bytes), plus an "end" flag: the
 * rule can consume the whole rest of the input as a proper prefix of something
 * it derives. It shares no code with pda/ or earley/: literals, classes (with
 * its own strict UTF-8 decoder) and repetitions are interpreted directly. */
#ifndef PD_TESTS_EARLEY_REFERENCE_H
#define PD_TESTS_EARLEY_REFERENCE_H
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pda/ir.h"

#define PDR_MAX_INPUT 48

typedef struct pdr {
  const pd_ir *ir;
  const uint8_t *in;
  int n;
  uint64_t *pos; /* [rule * (n + 1) + i] */
  uint8_t *end;  /* same index */
  uint8_t *prod; /* [rule]: derives some finite string */
  bool changed;
} pdr;

typedef struct pdr_res {
  uint64_t pos;
  bool end;
} pdr_res;

/* Strict UTF-8: length of the code point at in[i..n) and its value; 0 when
 * invalid; -k when the k bytes present are a valid but unfinished prefix. */
static inline int pdr_decode(const uint8_t *in, int i, int n, uint32_t *lo, uint32_t *hi) {
  static const uint32_t min_cp[5] = {0, 0, 0x80, 0x800, 0x10000};
  static const uint32_t max_cp[5] = {0, 0x7F, 0x7FF, 0xFFFF, 0x10FFFF};
  uint8_t b = in[i];
  int len = b < 0x80                ? 1
            : b >= 0xC0 && b < 0xE0 ? 2
            : b >= 0xE0 && b < 0xF0 ? 3
            : b >= 0xF0 && b < 0xF8 ? 4
                                    : 0;
  if (!len) return 0;
  uint32_t v = len == 1 ? b : (uint32_t)(b & (0x7F >> len));
  int k = 1;
  for (; k < len && i + k < n; k++) {
    if ((in[i + k] & 0xC0) != 0x80) return 0;
    v = v << 6 | (in[i + k] & 0x3F);
  }
  int missing = len - k;
  uint32_t a = v << (6 * missing), z = (v << (6 * missing)) | ((1u << (6 * missing)) - 1);
  if (a < min_cp[len]) a = min_cp[len];
  if (z > max_cp[len]) z = max_cp[len];
  if (a > z) return 0;
  if (!missing && a >= 0xD800 && a <= 0xDFFF) return 0;
  *lo = a;
  *hi = z;
  return missing ? -k : len;
}

static inline bool pdr_class_meets(const pd_ir *ir, const pd_ir_node *nd, uint32_t a, uint32_t z) {
  for (uint32_t k = 0; k < nd->n; k++) {
    uint32_t lo = ir->ranges.data[nd->off + 2 * k], hi = ir->ranges.data[nd->off + 2 * k + 1];
    if (lo <= z && a <= hi) {
      /* the part of [a,z] in [lo,hi] must hold a non-surrogate */
      uint32_t x = lo > a ? lo : a, y = hi < z ? hi : z;
      if (!(x >= 0xD800 && y <= 0xDFFF)) return true;
    }
  }
  return false;
}

static inline bool pdr_node_prod(const pdr *r, uint32_t node) {
  const pd_ir_node *nd = pd_ir_at(r->ir, node);
  switch ((pd_ir_kind)nd->kind) {
    case PD_IR_NOTHING: return false;
    case PD_IR_TOKEN: return true; /* as a grammar; bytes never match it */
    case PD_IR_REF: return r->prod[nd->a];
    case PD_IR_SEQ:
      for (uint32_t k = 0; k < nd->n; k++)
        if (!pdr_node_prod(r, r->ir->kids.data[nd->off + k])) return false;
      return true;
    case PD_IR_ALT:
      for (uint32_t k = 0; k < nd->n; k++)
        if (pdr_node_prod(r, r->ir->kids.data[nd->off + k])) return true;
      return false;
    case PD_IR_REPEAT: return nd->off == 0 || pdr_node_prod(r, nd->a);
    default: return true;
  }
}

static inline pdr_res pdr_eval(pdr *r, uint32_t node, int i);

/* One more copy of node from every position in s. */
static inline pdr_res pdr_step(pdr *r, uint32_t node, uint64_t s) {
  pdr_res out = {0, false};
  for (int j = 0; j <= r->n; j++) {
    if (!(s >> j & 1)) continue;
    pdr_res x = pdr_eval(r, node, j);
    out.pos |= x.pos;
    out.end |= x.end;
  }
  return out;
}

/* Copies of nd->a from i: after k copies the positions are cur; stop once a
 * step adds no position beyond those already collected (then no later step can). */
static inline pdr_res pdr_repeat(pdr *r, const pd_ir_node *nd, int i) {
  pdr_res out = {0, false};
  uint64_t cur = 1ull << i;
  for (uint32_t k = 0;; k++) {
    if (k >= nd->off) out.pos |= cur;
    if (nd->n != PD_IR_INF && k >= nd->n) break;
    pdr_res x = pdr_step(r, nd->a, cur);
    out.end |= x.end;
    if (!x.pos || (k >= nd->off && (x.pos | out.pos) == out.pos)) break;
    cur = x.pos;
  }
  return out;
}

static inline pdr_res pdr_eval(pdr *r, uint32_t node, int i) {
  const pd_ir *ir = r->ir;
  const pd_ir_node *nd = pd_ir_at(ir, node);
  pdr_res out = {0, false};
  if (i == r->n && pdr_node_prod(r, node)) out.end = true;
  switch ((pd_ir_kind)nd->kind) {
    case PD_IR_EMPTY: out.pos = 1ull << i; break;
    case PD_IR_NOTHING:
    case PD_IR_TOKEN: break;
    case PD_IR_BYTES: {
      uint32_t k = 0;
      while (k < nd->n && i + (int)k < r->n && r->in[i + k] == ir->bytes.data[nd->off + k]) k++;
      if (k == nd->n)
        out.pos = 1ull << (i + (int)k);
      else if (i + (int)k == r->n)
        out.end = true;
      break;
    }
    case PD_IR_CLASS: {
      uint32_t lo, hi;
      int len = i < r->n ? pdr_decode(r->in, i, r->n, &lo, &hi) : 0;
      if (len > 0 && pdr_class_meets(ir, nd, lo, lo)) out.pos = 1ull << (i + len);
      if (len < 0 && pdr_class_meets(ir, nd, lo, hi)) out.end = true;
      break;
    }
    case PD_IR_REF:
      out.pos = r->pos[nd->a * (uint32_t)(r->n + 1) + (uint32_t)i];
      out.end |= r->end[nd->a * (uint32_t)(r->n + 1) + (uint32_t)i];
      break;
    case PD_IR_SEQ: {
      uint64_t s = 1ull << i;
      for (uint32_t k = 0; k < nd->n && s; k++) {
        pdr_res x = pdr_step(r, ir->kids.data[nd->off + k], s);
        bool rest = true;
        for (uint32_t q = k + 1; q < nd->n && rest; q++)
          rest = pdr_node_prod(r, ir->kids.data[nd->off + q]);
        if (x.end && rest) out.end = true;
        s = x.pos;
      }
      out.pos = s;
      break;
    }
    case PD_IR_ALT:
      for (uint32_t k = 0; k < nd->n; k++) {
        pdr_res x = pdr_eval(r, ir->kids.data[nd->off + k], i);
        out.pos |= x.pos;
        out.end |= x.end;
      }
      break;
    case PD_IR_REPEAT: {
      pdr_res x = pdr_repeat(r, nd, i);
      out.pos = x.pos;
      out.end |= x.end;
      break;
    }
    case PD_IR_DIFF: { /* whole matches exact; a prefix is taken as viable when
                        * it is one of a (pdr_generate makes no differences) */
      pdr_res x = pdr_eval(r, nd->a, i), y = pdr_eval(r, nd->off, i);
      out.pos = x.pos & ~y.pos;
      out.end |= x.end;
      break;
    }
    case PD_IR_AND: { /* the same: a prefix of both is taken as viable */
      pdr_res x = pdr_eval(r, nd->a, i), y = pdr_eval(r, nd->off, i);
      out.pos = x.pos & y.pos;
      out.end |= x.end & y.end;
      break;
    }
  }
  return out;
}

/* Runs the fixpoints; *complete: in is a sentence; *viable: a prefix of one. */
static inline void pdr_run(const pd_ir *ir, const uint8_t *in, int n, bool *complete,
                           bool *viable) {
  pdr r = {ir, in, n, NULL, NULL, NULL, false};
  size_t nr = ir->rules.len, cells = nr * (size_t)(n + 1);
  r.pos = calloc(cells ? cells : 1, sizeof *r.pos);
  r.end = calloc(cells ? cells : 1, 1);
  r.prod = calloc(nr ? nr : 1, 1);
  for (bool ch = true; ch;) {
    ch = false;
    for (size_t q = 0; q < nr; q++)
      if (!r.prod[q] && ir->rules.data[q].body != PD_IR_NONE &&
          pdr_node_prod(&r, ir->rules.data[q].body))
        r.prod[q] = ch = 1;
  }
  for (bool ch = true; ch;) {
    ch = false;
    for (size_t q = 0; q < nr; q++) {
      if (ir->rules.data[q].body == PD_IR_NONE) continue;
      for (int i = 0; i <= n; i++) {
        pdr_res x = pdr_eval(&r, ir->rules.data[q].body, i);
        size_t c = q * (size_t)(n + 1) + (size_t)i;
        if ((x.pos | r.pos[c]) != r.pos[c] || (x.end && !r.end[c])) {
          r.pos[c] |= x.pos;
          r.end[c] |= x.end;
          ch = true;
        }
      }
    }
  }
  size_t c0 = ir->root * (size_t)(n + 1);
  *complete = r.pos[c0] >> n & 1;
  *viable = *complete || r.end[c0];
  free(r.pos);
  free(r.end);
  free(r.prod);
}

/* ------------------------------------------------------------- generator */

typedef struct pdr_gen {
  const uint8_t *data;
  size_t len, at;
  pd_ir *ir;
  uint32_t n_rules;
} pdr_gen;

static inline uint32_t pdr_byte(pdr_gen *g) { return g->at < g->len ? g->data[g->at++] : 0; }
static inline uint32_t pdr_pick(pdr_gen *g, uint32_t n) { return n ? pdr_byte(g) % n : 0; }

/* Code points near the UTF-8 boundaries and a few ASCII letters. */
static const uint32_t pdr_points[] = {'a',   'b',    'c',     '(',      ')',    0x7F,   0x80, 0x7FF,
                                      0x800, 0xFFFF, 0x10000, 0x10FFFF, 0xD7FF, 0xE000, 0xE9};

static inline uint32_t pdr_expr(pdr_gen *g, int depth) {
  pd_ir *ir = g->ir;
  uint32_t k = pdr_pick(g, depth > 2 ? 4 : 10);
  switch (k) {
    case 0: return pd_ir_bytes(ir, &"ab(c"[pdr_pick(g, 4)], 1 + pdr_pick(g, 2));
    case 1: {
      uint32_t a = pdr_points[pdr_pick(g, 15)], b = pdr_points[pdr_pick(g, 15)];
      uint32_t p[2] = {a < b ? a : b, a < b ? b : a};
      return pd_ir_class(ir, p, 1, pdr_pick(g, 4) == 0);
    }
    case 2:
    case 3: {
      char name[2] = {(char)('A' + pdr_pick(g, g->n_rules)), 0};
      return pd_ir_ref(ir, pd_ir_rule_named(ir, name, 1));
    }
    case 4:
    case 5: {
      uint32_t kids[3], n = 1 + pdr_pick(g, 3);
      for (uint32_t i = 0; i < n; i++) kids[i] = pdr_expr(g, depth + 1);
      return k == 4 ? pd_ir_seq(ir, kids, n) : pd_ir_alt(ir, kids, n);
    }
    case 6: return pd_ir_empty(ir);
    case 7: return pd_ir_nothing(ir);
    default: {
      static const uint32_t bounds[][2] = {{0, PD_IR_INF}, {1, PD_IR_INF}, {0, 1},          {2, 3},
                                           {0, 20},        {3, 40},        {17, PD_IR_INF}, {5, 5}};
      uint32_t b = pdr_pick(g, 8);
      return pd_ir_repeat(ir, pdr_expr(g, depth + 1), bounds[b][0], bounds[b][1]);
    }
  }
}

/* A random grammar of rules "A".."E" (root "A") into ir. */
static inline void pdr_generate(pd_ir *ir, const uint8_t *data, size_t len) {
  pdr_gen g = {data, len, 0, ir, 1 + (len ? data[0] % 4 : 0)};
  g.at = 1;
  for (uint32_t q = 0; q < g.n_rules; q++) {
    char name[2] = {(char)('A' + q), 0};
    uint32_t r = pd_ir_rule_named(ir, name, 1);
    pd_ir_rule_define(ir, r, pdr_expr(&g, 0));
  }
  ir->root = pd_ir_rule_find(ir, "A", 1);
}

/* The next random grammar of a xorshift stream *x: data[0..len) drawn from
 * it, then the grammar into a fresh ir (the caller frees it). */
static inline void pdr_generate_next(pd_ir *ir, uint64_t *x, uint8_t *data, size_t len) {
  for (size_t i = 0; i < len; i++) {
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    data[i] = (uint8_t)*x;
  }
  pd_ir_init(ir, NULL);
  pdr_generate(ir, data, len);
}

/* ------------------------------------------------------ differential run */

#include "earley/earley.h"

/* Walks an input chosen by choice[]: each step pushes a byte the matcher takes
 * (choice < 0xE0, picks among all of them) or an arbitrary byte, and checks the
 * matcher's verdict on the byte and the new prefix against the reference.
 * Returns the length of the first prefix where they disagree, or -1. The
 * input walked is left in input[0..*n). */
static inline int pdr_diff(const pd_ir *ir, pd_matcher *m, const uint8_t *choice, size_t n_choice,
                           uint8_t *input, int *n) {
  bool complete, viable;
  *n = 0;
  pdr_run(ir, input, 0, &complete, &viable);
  if (complete != pd_matcher_is_accepting(m) || !viable) return 0;
  for (size_t step = 0; step < n_choice && *n < PDR_MAX_INPUT; step++) {
    uint8_t ok[256];
    int n_ok = 0;
    for (int b = 0; b < 256; b++)
      if (pd_earley_push_byte(m, (uint8_t)b) == PD_OK) {
        ok[n_ok++] = (uint8_t)b;
        pd_earley_pop(m, 1);
      }
    uint8_t c = choice[step];
    uint8_t b = c < 0xE0 && n_ok ? ok[c % n_ok] : (uint8_t)(c * 37u + step);
    input[*n] = b;
    pdr_run(ir, input, *n + 1, &complete, &viable);
    bool took = pd_earley_push_byte(m, b) == PD_OK;
    if (took != viable) return *n + 1;
    if (!took) continue;
    ++*n;
    if (complete != pd_matcher_is_accepting(m)) return *n;
  }
  return -1;
}

/* A few tokens over the generator's bytes. Grammars compiled over one vocab
 * share its cache of rule automata (pda/rule_cache.h), so a differential run
 * that uses it checks automata carried from one grammar into the next. */
static inline pd_vocab *pdr_vocab(void) {
  static const char *texts[] = {"a", "b", "(", "c", "ab", "(c"};
  const uint8_t *t[6];
  size_t lens[6];
  for (int i = 0; i < 6; i++) t[i] = (const uint8_t *)texts[i], lens[i] = strlen(texts[i]);
  pd_vocab *v = NULL;
  return pd_vocab_from_list(t, lens, NULL, 6, NULL, &v, NULL) == PD_OK ? v : NULL;
}

#endif
