/* gbnf.c - PLACEHOLDER until its owner writes it; must not survive to a release. */
#include "pushdown.h"
pd_status pd_grammar_compile_gbnf(const char *text, size_t len, pd_vocab *vocab,
                                  const pd_grammar_options *opts, pd_grammar **out,
                                  pd_error *err) {
  (void)text; (void)len; (void)vocab; (void)opts; (void)out; (void)err;
  return PD_ERR_UNSUPPORTED;
}
