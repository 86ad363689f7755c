/* inline.c - which rules are copied into their callers instead of called.
 *
 * A call edge is where the Earley matcher (and the token classifier) loses
 * sight of what comes next: a token that runs past the callee's end can only be
 * decided against the live parser stack, at every mask. Copying a small
 * non-recursive rule into its callers (a JSON string's `char`, a number's
 * `digits`) keeps those bytes in one automaton, so such tokens are classified
 * once at compile time instead.
 *
 * Only rules of bounded length are copied (no x* or x+ inside): a lexeme such
 * as a whole string or number stays a call, so its states keep one local
 * language, classified once per vocabulary and shared by every grammar and
 * every place that uses it; only the few tokens that cross its end stay
 * context-dependent.
 *
 * inl[r] is the weight of rule r with its inlined callees copied in, or
 * PD_IR_NONE when r stays a call. A rule is inlined when every rule it refers
 * to is inlined (so it is not recursive), it has bounded length, and that
 * weight is at most PD_PDA_INLINE_RULE. Rounds of the fixed point are capped at
 * PD__INLINE_LEVELS, which bounds the work to that many passes over the IR.
 * Rules flagged PD_IR_RULE_CALLED stay calls. Only the first n_own rules may
 * be copied: the helper rules that repeat.c adds after them are the counters
 * of x{m,n}, and copying them would unroll it. */
#include "base/error.h"
#include "build.h"

#define PD__INLINE_LEVELS 8
#define PD__HEAVY (PD_PDA_INLINE_RULE + 1)

/* Weight of node with inlined callees copied in; PD__HEAVY (or more) when a
 * callee is not inlined or the sum passes the bound. */
static uint32_t pd__weight(const pd_ir *w, const uint32_t *inl, uint32_t node, int depth) {
  const pd_ir_node *nd = pd_ir_at(w, node);
  if (depth > PD_PDA_MAX_NESTING) return PD__HEAVY;
  uint32_t sum = 1;
  switch ((pd_ir_kind)nd->kind) {
    case PD_IR_BYTES: return nd->n;
    case PD_IR_CLASS: return nd->n > PD__HEAVY / 4 ? PD__HEAVY : 4 * nd->n;
    case PD_IR_REF: return inl[nd->a] == PD_IR_NONE ? PD__HEAVY : inl[nd->a];
    case PD_IR_SEQ:
    case PD_IR_ALT:
      for (uint32_t i = 0; i < nd->n && sum <= PD_PDA_INLINE_RULE; i++)
        sum += pd__weight(w, inl, w->kids.data[nd->off + i], depth + 1);
      return sum;
    case PD_IR_AND: return PD__HEAVY; /* a product of a counter: built once, called */
    case PD_IR_DIFF: {
      uint32_t x = pd__weight(w, inl, nd->a, depth + 1), y = pd__weight(w, inl, nd->off, depth + 1);
      return x > PD_PDA_INLINE_RULE || y > PD_PDA_INLINE_RULE ? PD__HEAVY : x + y;
    }
    case PD_IR_REPEAT: {
      if (nd->n == PD_IR_INF) return PD__HEAVY; /* see above: lexemes stay calls */
      uint32_t x = pd__weight(w, inl, nd->a, depth + 1);
      uint32_t copies = nd->n;
      return x > PD_PDA_INLINE_RULE || copies > PD_PDA_INLINE_RULE / (x ? x : 1) + 1
                 ? PD__HEAVY
                 : x * (copies ? copies : 1);
    }
    default: return 1;
  }
}

pd_status pd_pda_inline_plan(const pd_ir *w, size_t n_own, uint32_t **out, pd_error *err) {
  size_t n = w->rules.len;
  uint32_t *inl = pd__malloc(w->alloc, (n ? n : 1) * sizeof *inl);
  if (!inl) return pd__nomem(err);
  for (size_t r = 0; r < n; r++) inl[r] = PD_IR_NONE;
  for (int round = 0; round < PD__INLINE_LEVELS; round++) {
    bool changed = false;
    for (size_t r = 0; r < n_own && r < n; r++) {
      uint32_t body = w->rules.data[r].body;
      if (inl[r] != PD_IR_NONE || body == PD_IR_NONE ||
          (w->rules.data[r].flags & PD_IR_RULE_CALLED))
        continue;
      uint32_t x = pd__weight(w, inl, body, 0);
      if (x <= PD_PDA_INLINE_RULE) inl[r] = x, changed = true;
    }
    if (!changed) break;
  }
  *out = inl;
  return PD_OK;
}
