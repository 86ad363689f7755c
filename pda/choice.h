/* choice.h - the `choice` constraint: the output is exactly one of n strings. */
#ifndef PD_PDA_CHOICE_H
#define PD_PDA_CHOICE_H
#include <stddef.h>
#include <stdint.h>

#include "pda/ir.h"
#include "pushdown.h"

/* Adds to ir an expression, *node, matching exactly the n byte strings
 * choices[i][0..lens[i]) (lens NULL: NUL-terminated strings). Duplicates are
 * allowed. The expression is a trie: strings sharing a prefix share its
 * bytes, so the automaton never has to guess between alternatives. Deep tries
 * put every 16th level in a rule of its own (named "choice-N"). n = 0 is
 * PD_ERR_ARG. */
pd_status pd_choice_to_ir(pd_ir *ir, const char *const *choices, const size_t *lens, size_t n,
                          uint32_t *node, pd_error *err);

#endif
