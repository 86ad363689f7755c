/* regex.c - PLACEHOLDER until its owner writes it; must not survive to a release. */
#include "pushdown.h"
pd_status pd_grammar_compile_regex(const char *pattern, size_t len, pd_vocab *vocab,
                                   const pd_grammar_options *opts, pd_grammar **out,
                                   pd_error *err) {
  (void)pattern; (void)len; (void)vocab; (void)opts; (void)out; (void)err;
  return PD_ERR_UNSUPPORTED;
}
pd_status pd_grammar_compile_choice(const char *const *choices, const size_t *lens, size_t n,
                                    pd_vocab *vocab, const pd_grammar_options *opts,
                                    pd_grammar **out, pd_error *err) {
  (void)choices; (void)lens; (void)n; (void)vocab; (void)opts; (void)out; (void)err;
  return PD_ERR_UNSUPPORTED;
}
