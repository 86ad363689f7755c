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
 */
#ifndef PD_MASKS_FOLLOW_H
#define PD_MASKS_FOLLOW_H
#include <stdint.h>

#include "pda/pda.h"

#define PD_FOLLOW_MAX_STATES 1000000u /* above: every byte may follow (no lookahead) */

/* *out = [8 * n_rules] words, allocated with a, owned by the caller. */
pd_status pd_follow_build(const pd_pda *p, const pd_allocator *a, uint32_t **out, pd_error *err);

#endif
