/* ir_match.h - a slow, independent recognizer over a grammar IR (tests only).
 *
 * It computes, for every expression and start position, the set of end
 * positions, memoized per (rule, position). Left recursion is not supported
 * (a rule re-entered at the same position contributes nothing); the JSON
 * Schema front end never produces it. Used as the oracle the compiled
 * grammar's matcher is compared against, and to test the front end alone. */
#ifndef PDT_IR_MATCH_H
#define PDT_IR_MATCH_H
#include <stdbool.h>
#include <stddef.h>

#include "pda/ir.h"

/* Whether text[0..len) is in the language of ir's root rule. */
bool pdt_ir_match(const pd_ir *ir, const char *text, size_t len);

#endif
