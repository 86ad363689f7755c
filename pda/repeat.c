/* repeat.c - bounded repetition x{m,n}: inline copies when small, else chains of
 * helper rules with O(log n) rules (the scheme and its formulas are in pda.h). */
#include "base/error.h"
#include "build.h"

#define PD__WEIGHT_CAP (1u << 20)

static uint32_t pd__sat_add(uint32_t a, uint32_t b) {
  return a + b > PD__WEIGHT_CAP || a + b < a ? PD__WEIGHT_CAP : a + b;
}

static uint32_t pd__sat_mul(uint32_t a, uint32_t b) {
  uint64_t p = (uint64_t)a * b;
  return p > PD__WEIGHT_CAP ? PD__WEIGHT_CAP : (uint32_t)p;
}

static uint32_t pd__copies(uint32_t min, uint32_t max) {
  return max == PD_IR_INF ? (min == PD_IR_INF ? min : min + 1) : max;
}

bool pd_pda_repeat_inline(uint32_t weight, uint32_t min, uint32_t max) {
  if (max == PD_IR_INF && min <= 1) return true; /* x* and x+: one copy and a loop */
  uint32_t copies = pd__copies(min, max);
  return copies <= PD_PDA_INLINE_COPIES && pd__sat_mul(copies, weight) <= PD_PDA_INLINE_BUDGET;
}

uint32_t pd_pda_weight(const pd_ir *w, uint32_t node, int depth) {
  const pd_ir_node *nd = pd_ir_at(w, node);
  if (depth > PD_PDA_MAX_NESTING) return PD__WEIGHT_CAP;
  uint32_t sum = 1;
  switch ((pd_ir_kind)nd->kind) {
    case PD_IR_BYTES: return nd->n;
    case PD_IR_CLASS: return pd__sat_mul(nd->n, 4);
    case PD_IR_SEQ:
    case PD_IR_ALT:
      for (uint32_t i = 0; i < nd->n && sum < PD__WEIGHT_CAP; i++)
        sum = pd__sat_add(sum, pd_pda_weight(w, w->kids.data[nd->off + i], depth + 1));
      return sum;
    case PD_IR_REPEAT:
      return pd__sat_mul(pd_pda_weight(w, nd->a, depth + 1), pd__copies(nd->off, nd->n));
    case PD_IR_AND: return PD__WEIGHT_CAP; /* a product automaton, never copied */
    default: return 1;
  }
}

/* The helper rules of one repetition: p[j] = x{2^j}, q[j] = x{0, 2^j - 1}. */
typedef struct pd__chain {
  pd_ir *w;
  uint32_t p[33], q[33];
} pd__chain;

static uint32_t pd__p(pd__chain *c, uint32_t j) {
  if (c->p[j] != PD_IR_NONE) return c->p[j];
  uint32_t prev = pd__p(c, j - 1), r = pd_ir_rule_fresh(c->w, "rep");
  if (prev == PD_IR_NONE || r == PD_IR_NONE) return PD_IR_NONE;
  pd_ir_rule_define(c->w, r, pd_ir_seq2(c->w, pd_ir_ref(c->w, prev), pd_ir_ref(c->w, prev)));
  return c->w->oom ? PD_IR_NONE : (c->p[j] = r);
}

/* x{0, 2^j - 1} as a node (j >= 0). */
static uint32_t pd__q_node(pd__chain *c, uint32_t j);

static uint32_t pd__q(pd__chain *c, uint32_t j) {
  if (c->q[j] != PD_IR_NONE) return c->q[j];
  uint32_t p = pd__p(c, j - 1), rest = pd__q_node(c, j - 1), r = pd_ir_rule_fresh(c->w, "rep");
  if (p == PD_IR_NONE || rest == PD_IR_NONE || r == PD_IR_NONE) return PD_IR_NONE;
  uint32_t opt = pd_ir_alt2(c->w, pd_ir_ref(c->w, p), pd_ir_empty(c->w));
  pd_ir_rule_define(c->w, r, pd_ir_seq2(c->w, opt, rest));
  return c->w->oom ? PD_IR_NONE : (c->q[j] = r);
}

static uint32_t pd__q_node(pd__chain *c, uint32_t j) {
  return j == 0 ? pd_ir_empty(c->w) : pd_ir_ref(c->w, pd__q(c, j));
}

static uint32_t pd__log2(uint32_t n) {
  uint32_t k = 0;
  while (n >> (k + 1)) k++;
  return k;
}

/* x{count}: one call per set bit of count. */
static uint32_t pd__exact(pd__chain *c, uint32_t count) {
  uint32_t refs[32], n = 0;
  for (uint32_t j = 0; j < 32; j++)
    if (count >> j & 1) refs[n++] = pd_ir_ref(c->w, pd__p(c, j));
  return pd_ir_seq(c->w, refs, n);
}

/* x{0,n} = Q_K | P_K x{0, n - 2^K}, 2^K <= n < 2^(K+1). */
static uint32_t pd__upto(pd__chain *c, uint32_t n) {
  if (n == 0) return pd_ir_empty(c->w);
  uint32_t k = pd__log2(n);
  uint32_t rest = pd__upto(c, n - (1u << k));
  uint32_t big = pd_ir_seq2(c->w, pd_ir_ref(c->w, pd__p(c, k)), rest);
  return pd_ir_alt2(c->w, pd__q_node(c, k), big);
}

/* Whether x suits blocks: a plain expression (bytes, classes, sequences,
 * alternatives, small fixed repetitions) that cannot match the empty string,
 * whose references lead to plain rules of the same kind (a JSON string
 * character). A larger repetition inside would multiply into automata too big
 * to determinize ((x{0,100}){0,100}); a call of a recursive or nullable rule
 * would make every inline copy a call that may be skipped, and the Earley rows
 * of an ambiguous grammar blow up (found by fuzz_matcher). */
static bool pd__plain(const pd_ir *w, uint32_t node, int depth, bool *nullable) {
  const pd_ir_node *nd = pd_ir_at(w, node);
  if (depth > 64) return false;
  switch ((pd_ir_kind)nd->kind) {
    case PD_IR_BYTES: *nullable = nd->n == 0; return true;
    case PD_IR_CLASS: *nullable = false; return true;
    case PD_IR_EMPTY: *nullable = true; return true;
    case PD_IR_NOTHING: *nullable = false; return true;
    case PD_IR_REF: {
      uint32_t body = w->rules.data[nd->a].body;
      return depth == 0 && body != PD_IR_NONE && pd__plain(w, body, depth + 1, nullable);
    }
    case PD_IR_SEQ:
    case PD_IR_ALT: {
      bool seq = nd->kind == PD_IR_SEQ, acc = seq;
      for (uint32_t i = 0; i < nd->n; i++) {
        bool k;
        if (!pd__plain(w, w->kids.data[nd->off + i], depth + 1, &k)) return false;
        acc = seq ? acc && k : acc || k;
      }
      *nullable = acc;
      return true;
    }
    case PD_IR_REPEAT: /* small fixed counts, as in a \uXXXX escape */
      if (nd->n == PD_IR_INF || nd->n > PD_PDA_INLINE_COPIES ||
          !pd__plain(w, nd->a, depth + 1, nullable))
        return false;
      *nullable = *nullable || nd->off == 0;
      return true;
    default: return false; /* TOKEN */
  }
}

static bool pd__blockable(const pd_ir *w, uint32_t x) {
  bool nullable = true;
  return pd__plain(w, x, 0, &nullable) && !nullable;
}

/* node as the body of a fresh helper rule, called where node stood. */
static uint32_t pd__in_rule(pd_ir *w, uint32_t node) {
  uint32_t r = pd_ir_rule_fresh(w, "rep");
  if (r == PD_IR_NONE) return PD_IR_NONE;
  pd_ir_rule_define(w, r, node);
  return pd_ir_ref(w, r);
}

/* x{m,n} (n finite) over the block rule c->p[0] = x{B}: whole blocks by the
 * chain, the partial block inline in the caller (pda.h). The last whole-block
 * count kn, reached only near the bound, sits in a rule of its own: beside the
 * other terms it would start with the same calls, and determinizing the
 * caller would then pair every position of one partial block with every
 * position of the other. */
static uint32_t pd__blocks(pd__chain *c, uint32_t x, uint32_t m, uint32_t n) {
  const uint32_t B = PD_PDA_BLOCK;
  uint32_t km = m / B, tm = m % B, kn = n / B, tn = n % B;
  pd_ir *w = c->w;
  if (km == kn) return pd_ir_seq2(w, pd__exact(c, km), pd_ir_repeat(w, x, tm, tn));
  uint32_t alts[3], k = 0;
  if (tm == 0) { /* X{km..kn-1} x{0,B-1} | X{kn} x{0,tn}: one partial block fewer */
    uint32_t most[3] = {pd__exact(c, km), pd__upto(c, kn - km - 1), pd_ir_repeat(w, x, 0, B - 1)};
    alts[k++] = pd_ir_seq(w, most, 3);
  } else {
    alts[k++] = pd_ir_seq2(w, pd__exact(c, km), pd_ir_repeat(w, x, tm, B - 1));
    if (kn - km >= 2) {
      uint32_t mid[3] = {pd__exact(c, km + 1), pd__upto(c, kn - km - 2),
                         pd_ir_repeat(w, x, 0, B - 1)};
      alts[k++] = pd_ir_seq(w, mid, 3);
    }
  }
  alts[k++] = pd__in_rule(w, pd_ir_seq2(w, pd__exact(c, kn), pd_ir_repeat(w, x, 0, tn)));
  return pd_ir_alt(w, alts, k);
}

/* A fresh helper rule with body x{count} (expanded inline in it). */
static uint32_t pd__copies_rule(pd_ir *w, uint32_t x, uint32_t count) {
  uint32_t r = pd_ir_rule_fresh(w, "blk");
  if (r != PD_IR_NONE) pd_ir_rule_define(w, r, pd_ir_repeat(w, x, count, count));
  return r;
}

/* Block rules and their chains, shared by the repetitions of one x (every
 * maxLength string of a schema repeats the same character node). */
#define PD__SHARED 32
typedef struct pd__shared {
  uint32_t n;
  uint32_t x[PD__SHARED], half[PD__SHARED];
  pd__chain c[PD__SHARED];
} pd__shared;

/* The chain over x's block rule and x's half-block rule, made on first use. */
static pd__chain *pd__shared_get(pd__shared *sh, pd_ir *w, uint32_t x, uint32_t *half) {
  for (uint32_t i = 0; i < sh->n; i++)
    if (pd_ir_same(w, sh->x[i], x, &(pd_ir_eq){NULL, NULL, &(size_t){4096}}, 0))
      return *half = sh->half[i], &sh->c[i];
  uint32_t i = sh->n < PD__SHARED ? sh->n++ : PD__SHARED - 1; /* full: the last slot is reused */
  pd__chain *c = &sh->c[i];
  *c = (pd__chain){.w = w};
  for (int j = 0; j < 33; j++) c->p[j] = c->q[j] = PD_IR_NONE;
  c->p[0] = pd__copies_rule(w, x, PD_PDA_BLOCK);
  *half = pd__copies_rule(w, x, PD_PDA_BLOCK / 2);
  if (c->p[0] == PD_IR_NONE || *half == PD_IR_NONE) return sh->n = i, NULL;
  sh->x[i] = x, sh->half[i] = *half;
  return c;
}

/* x{m,n} for a light x and a large n: blocks in two phases (pda.h). */
static uint32_t pd__lower_blocks(pd__shared *sh, pd_ir *w, uint32_t x, uint32_t m, uint32_t n) {
  const uint32_t H = PD_PDA_BLOCK / 2;
  uint32_t h;
  pd__chain *cp = pd__shared_get(sh, w, x, &h);
  if (!cp) return PD_IR_NONE;
  pd__chain c = *cp;
  uint32_t star = PD_IR_NONE;
  if (n == PD_IR_INF) n = m, star = pd_ir_repeat(w, x, 0, PD_IR_INF);
  /* the minimum stays in the blocks' own terms: x{m} inline before them put
   * the first characters' states in the caller's automaton, beside the calls
   * of the whole chain, and classifying one of them walked the vocabulary
   * through Earley rows of that chain (62 ms for minLength 8, maxLength 2048) */
  uint32_t node = pd__blocks(&c, x, m, n);
  if (n > H) {
    uint32_t shifted = pd_ir_seq2(w, pd_ir_ref(w, h), pd__blocks(&c, x, m > H ? m - H : 0, n - H));
    node = pd_ir_alt2(w, node, shifted);
  }
  *cp = c; /* the chain rules made here serve the next repetition of x too */
  return star == PD_IR_NONE ? node : pd_ir_seq2(w, node, star);
}

/* The replacement node of x{min,max} as helper-rule calls. */
static uint32_t pd__lower(pd_ir *w, pd_ir_node nd) {
  pd__chain c = {.w = w};
  for (int j = 0; j < 33; j++) c.p[j] = c.q[j] = PD_IR_NONE;
  if (pd_ir_at(w, nd.a)->kind == PD_IR_REF) {
    c.p[0] = pd_ir_at(w, nd.a)->a;
  } else {
    c.p[0] = pd_ir_rule_fresh(w, "rep");
    pd_ir_rule_define(w, c.p[0], nd.a);
    if (w->oom) return PD_IR_NONE;
  }
  uint32_t head = pd__exact(&c, nd.off);
  uint32_t tail = nd.n == PD_IR_INF ? pd_ir_repeat(w, pd_ir_ref(w, c.p[0]), 0, PD_IR_INF)
                                    : pd__upto(&c, nd.n - nd.off);
  return pd_ir_seq2(w, head, tail);
}

/* Marks the nodes under the operands of AND and DIFF nodes (and their counted REPEAT):
 * the product builds them as automata of bytes, so they keep their repeats
 * (nfa_diff.c unrolls them there; the counted one is a counter). Children
 * have lower indices than their parents, so one pass from the top suffices. */
static uint8_t *pd__operand_marks(const pd_ir *w, size_t n0) {
  uint8_t *mark = pd__calloc(w->alloc, n0 ? n0 : 1, 1);
  if (!mark) return NULL;
  for (size_t i = n0; i-- > 0;) {
    const pd_ir_node *nd = &w->nodes.data[i];
    if (nd->kind == PD_IR_AND || nd->kind == PD_IR_DIFF) mark[i] = 1; /* operands built as bytes */
    if (!mark[i]) continue;
    if (nd->kind == PD_IR_REPEAT || nd->kind == PD_IR_DIFF || nd->kind == PD_IR_AND)
      mark[nd->a] = 1;
    if (nd->kind == PD_IR_DIFF || nd->kind == PD_IR_AND) mark[nd->off] = 1;
    if (nd->kind == PD_IR_SEQ || nd->kind == PD_IR_ALT)
      for (uint32_t k = 0; k < nd->n; k++) mark[w->kids.data[nd->off + k]] = 1;
  }
  return mark;
}

pd_status pd_pda_lower_repeats(pd_ir *w, uint32_t max_repeat, pd_error *err) {
  size_t n0 = w->nodes.len;
  pd__shared sh = {0};
  uint8_t *operand = pd__operand_marks(w, n0);
  if (!operand) return pd__nomem(err);
  pd_status st = PD_OK;
  for (size_t i = 0; i < n0 && !st; i++) {
    pd_ir_node nd = w->nodes.data[i];
    if (nd.kind != PD_IR_REPEAT) continue;
    if (nd.off > max_repeat || (nd.n != PD_IR_INF && nd.n > max_repeat)) {
      st = pd__fail(err, PD_ERR_LIMIT, "repetition bound %u is larger than max_repeat (%u)",
                    nd.n != PD_IR_INF && nd.n > nd.off ? nd.n : nd.off, max_repeat);
      break;
    }
    if (operand[i]) continue;
    uint32_t weight = pd_pda_weight(w, nd.a, 0);
    if (pd_pda_repeat_inline(weight, nd.off, nd.n)) continue;
    bool plain = pd__blockable(w, nd.a);
    bool light = plain && pd__sat_mul(weight, PD_PDA_BLOCK) <= PD_PDA_BLOCK_BUDGET;
    if (plain && !light && weight <= PD_PDA_INLINE_RULE) {
      /* a pattern's class with its escapes, as heavy as a string's character
       * rule: in a rule of its own it blocks as that one does, where the chain
       * of single copies left every longer token to the live parser (30 ms a
       * mask inside [A-Za-z0-9 ...]{1,32}) */
      uint32_t x = pd__in_rule(w, nd.a);
      if (x == PD_IR_NONE) {
        st = pd__nomem(err);
        break;
      }
      w->nodes.data[i].a = nd.a = x;
      light = true;
    }
    if (light && nd.n != PD_IR_INF && nd.n <= PD_PDA_BLOCK) continue; /* all inline */
    uint32_t r = light ? pd__lower_blocks(&sh, w, nd.a, nd.off, nd.n) : pd__lower(w, nd);
    if (r == PD_IR_NONE || w->oom) {
      st = pd__nomem(err);
      break;
    }
    w->nodes.data[i] = w->nodes.data[r];
  }
  pd__free(w->alloc, operand);
  return st;
}
