/* vocab_hf.c - PLACEHOLDER until its owner writes it; must not survive to a release. */
#include "pushdown.h"
pd_status pd_vocab_load_hf(const char *tokenizer_path, const char *config_path,
                           const pd_vocab_options *opts, pd_vocab **out, pd_error *err) {
  (void)tokenizer_path; (void)config_path; (void)opts; (void)out; (void)err;
  return PD_ERR_UNSUPPORTED;
}
pd_status pd_vocab_parse_hf(const char *tokenizer_json, size_t len, const char *config_json,
                            size_t config_len, const pd_vocab_options *opts, pd_vocab **out,
                            pd_error *err) {
  (void)tokenizer_json; (void)len; (void)config_json; (void)config_len; (void)opts; (void)out;
  (void)err;
  return PD_ERR_UNSUPPORTED;
}
