/* schema.c - PLACEHOLDER until its owner writes it; must not survive to a release. */
#include "pushdown.h"
pd_status pd_grammar_compile_json_schema(const char *json, size_t len, pd_vocab *vocab,
                                         const pd_grammar_options *opts, pd_grammar **out,
                                         pd_error *err) {
  (void)json; (void)len; (void)vocab; (void)opts; (void)out; (void)err;
  return PD_ERR_UNSUPPORTED;
}
pd_status pd_grammar_compile_json(bool object_only, pd_vocab *vocab,
                                  const pd_grammar_options *opts, pd_grammar **out,
                                  pd_error *err) {
  (void)object_only; (void)vocab; (void)opts; (void)out; (void)err;
  return PD_ERR_UNSUPPORTED;
}
