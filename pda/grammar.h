/* grammar.h - the compiled grammar object (internal layout).
 *
 * Every front end (GBNF, JSON Schema, regex, choice) builds a pd_ir and calls
 * pd_grammar_from_ir; the result is immutable after that call returns (except
 * pd_grammar_set_relaxed, which a front end calls before handing the grammar
 * out) and may be shared by threads. */
#ifndef PD_PDA_GRAMMAR_H
#define PD_PDA_GRAMMAR_H
#include "masks/masks.h"
#include "pda/ir.h"
#include "pda/pda.h"
#include "pushdown.h"

/* Resolved defaults of pd_grammar_options (documented in pushdown.h). */
#define PD_DEFAULT_MAX_RULES 65536u
#define PD_DEFAULT_MAX_STATES 4000000u
#define PD_DEFAULT_MAX_ITEMS_PER_ROW 1000000u
#define PD_DEFAULT_MAX_DEPTH 256u
#define PD_DEFAULT_MAX_REPEAT 16777216u /* 2^24: bounds met in real schemas (maxLength 1,000,000) */

struct pd_grammar {
  const pd_allocator *alloc;
  pd_vocab *vocab;           /* borrowed; NULL = byte-level checking only */
  pd_pda pda;                /* the automata */
  pd_masks *masks;           /* token classification (masks/); NULL when none */
  char *relaxed;             /* what a lenient compile dropped; NULL means "" */
  pd_grammar_options opts;   /* copy with every limit resolved (no zeros); string
                                fields are not owned and are reset to NULL */
};

/* Resolves opts (may be NULL) into *out: zeros become the defaults above. */
void pd_grammar_resolve_options(const pd_grammar_options *opts, pd_grammar_options *out);

/* Checks ir (root set, referenced rules defined -> PD_ERR_SEMANTIC naming the
 * rule; limits -> PD_ERR_LIMIT), builds the automata, and, when vocab is not
 * NULL, the token tables (pd_masks_build). Does not take ownership of ir.
 * Allocator: opts->allocator, else the vocab's, else the default.
 * *out is owned by the caller (pd_grammar_free). */
pd_status pd_grammar_from_ir(const pd_ir *ir, pd_vocab *vocab, const pd_grammar_options *opts,
                             pd_grammar **out, pd_error *err);

/* Replaces the relaxed-keywords text (copied; NULL or "" clears it). */
pd_status pd_grammar_set_relaxed(pd_grammar *g, const char *text);

#endif
