/* vocab_hf.h - the tokenizer.json reader's entry for other formats: a GGUF
 * vocabulary is turned into the equivalent tokenizer.json tree and read here. */
#ifndef PD_MASKS_VOCAB_HF_H
#define PD_MASKS_VOCAB_HF_H
#include <jansson.h>

#include "pushdown.h"

/* A vocabulary (with its encoder) from a parsed tokenizer.json tree (borrowed).
 * Stop tokens: opts->eos_ids when given, else config_json's eos_token (when
 * config_json is not NULL), else eos (when not PD_NO_ID). */
pd_status pd_vocab_from_hf_json(const json_t *root, const char *config_json, size_t config_len,
                                uint32_t eos, const pd_vocab_options *opts, pd_vocab **out,
                                pd_error *err);

/* Reads a whole file with the allocator, NUL-terminated; *text owned by the caller. */
pd_status pd_vocab_read_file(const pd_allocator *a, const char *path, char **text, size_t *len,
                             pd_error *err);

#endif
