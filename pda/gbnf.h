/* gbnf.h - the GBNF front end: llama.cpp's grammar dialect -> grammar IR (pda/ir.h).
 *
 * The dialect is the one of llama.cpp's grammars/README.md; gbnf.c opens with
 * the grammar of the grammar and the few places where this parser differs. */
#ifndef PD_PDA_GBNF_H
#define PD_PDA_GBNF_H
#include <stddef.h>
#include <stdint.h>

#include "pda/ir.h"
#include "pushdown.h"

#define PD_GBNF_DEFAULT_DEPTH 256u     /* parentheses + stacked postfix operators */
#define PD_GBNF_DEFAULT_REPEAT 16777216u /* largest {m,n} bound, as PD_DEFAULT_MAX_REPEAT */

typedef struct pd_gbnf_options {
  const char *root;    /* the start rule; NULL = "root" */
  uint32_t max_depth;  /* nesting limit; 0 = PD_GBNF_DEFAULT_DEPTH */
  uint32_t max_repeat; /* largest repetition bound; 0 = PD_GBNF_DEFAULT_REPEAT */
} pd_gbnf_options;

/* Parses text[0..len) into ir (freshly initialized by the caller, who frees it
 * with pd_ir_free whatever the outcome) and sets ir->root to the rule "root".
 * vocab (may be NULL) resolves tokens written by their text, such as <|eot_id|>,
 * and bounds <[id]>. Errors carry the position and say what was expected. */
pd_status pd_gbnf_to_ir(pd_ir *ir, const char *text, size_t len, pd_vocab *vocab, pd_error *err);

/* The same with options (opts may be NULL). */
pd_status pd_gbnf_to_ir_opts(pd_ir *ir, const char *text, size_t len, pd_vocab *vocab,
                             const pd_gbnf_options *opts, pd_error *err);

#endif
