/* follow.h - one byte of lookahead per rule: which bytes may come right after
 * rule R ends, in any context where R is called (FOLLOW1 over the automata).
 *
 *   first(s)  = bytes of s's byte edges
 *               U first(start(C)) for each call edge s -C-> t
 *               U first(t) when C is nullable
 *   follow(C) = U over call edges s -C-> t:  first(t), and follow(rule(s))
 *               when t can reach a final state without input
 * Bit b of follow[8 R .. 8 R + 8) is set when byte b may follow R. A token that
 * runs past R's end with next byte outside follow(R) dies in every context, so
 * classification rejects it instead of leaving it context-dependent.
 *
 * Whitespace rules (call-free, every byte edge within \t \n \r and space)
 * also get a second byte: BPE vocabularies glue a space to the word after it,
 * so " the" runs one byte past the whitespace before a JSON value, and with
 * 't' (of true) in the follow set it was context-dependent. For each first
 * byte c after such a rule R, the bytes that may come next are found at each
 * call site s -R-> t: the states reachable from t without input (entering
 * callees, stepping over nullable ones) step by c to some u, and the next
 * byte is in first(u), or in follow(rule(u)) when u may end its rule. Where
 * t's own rule may end there instead, c stays unrestricted (one byte only).
 */
#ifndef PD_MASKS_FOLLOW_H
#define PD_MASKS_FOLLOW_H
#include <stdint.h>

#include "base/bits.h"

#include "pda/pda.h"

#define PD_FOLLOW_MAX_STATES 1000000u /* above: every byte may follow (no lookahead) */

#define PD_FOLLOW2_MAX_ROWS 32u    /* first bytes with a second one per rule */
#define PD_FOLLOW2_MAX_SECOND 128u /* a restricted first byte has at most these after it */
#define PD_FOLLOW2_BUDGET 65536u   /* states visited per rule; past it, one byte only */

/* *out = [8 * n_rules] words of follow sets, then [n_rules] offsets into *out
 * of the rules' two-byte blocks (0: none), then the blocks; allocated with a,
 * owned by the caller. A block is the number n of restricted first bytes,
 * their set (8 words), and a row of 8 words per byte in byte order: the
 * bytes that may follow it. A first byte in the follow set but not in the
 * block may be followed by anything. */
pd_status pd_follow_build(const pd_pda *p, const pd_allocator *a, uint32_t **out, pd_error *err);

/* Rule r's two-byte block, or NULL. */
static inline const uint32_t *pd_follow2(const uint32_t *follow, uint32_t n_rules, uint32_t r) {
  uint32_t at = follow[8 * (size_t)n_rules + r];
  return at ? follow + at : NULL;
}

/* The words of a block (NULL: none). */
static inline size_t pd_follow2_words(const uint32_t *blk) {
  return blk ? 9 + 8 * (size_t)blk[0] : 0;
}

/* The row of the bytes that may follow first byte c, or NULL when c is not
 * restricted (blk may be NULL). */
static inline const uint32_t *pd_follow2_row(const uint32_t *blk, uint8_t c) {
  if (!blk || !(blk[1 + c / 32] >> (c % 32) & 1)) return NULL;
  uint32_t rank = 0, below = blk[1 + c / 32] & ((1u << (c % 32)) - 1);
  for (unsigned w = 0; w < c / 32u; w++) rank += pd_popcount32(blk[1 + w]);
  rank += pd_popcount32(below);
  return blk + 9 + 8 * (size_t)rank;
}

#endif
