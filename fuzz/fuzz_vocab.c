/* fuzz_vocab.c - the tokenizer.json loader and the encoder on arbitrary bytes.
 *
 * Input: tokenizer.json text, optionally followed by a NUL byte and
 * tokenizer_config.json text; the same bytes are also read as a GGUF file. Every input must end in
 * a status (never a crash, hang or leak). A vocabulary that loads encodes a fixed text and the
 * input itself; every id it gives must be a token of the vocabulary that is no hole, and lookups of
 * each token's bytes must find a token with those bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pushdown.h"

static void fuzz_check_ids(const pd_vocab *v, const uint32_t *ids, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const uint8_t *b;
    size_t len;
    uint32_t flags, found;
    if (pd_vocab_token(v, ids[i], &b, &len, &flags) != PD_OK || (flags & PD_TOKEN_HOLE)) abort();
    if (pd_vocab_find(v, b, len, &found) != PD_OK) abort();
    const uint8_t *fb;
    size_t flen;
    if (pd_vocab_token(v, found, &fb, &flen, NULL) != PD_OK || flen != len ||
        (len && memcmp(fb, b, len)))
      abort();
  }
}

static void fuzz_encode(const pd_vocab *v, const uint8_t *text, size_t len) {
  uint32_t *ids = NULL;
  size_t n = 0;
  pd_error err;
  pd_status st = pd_vocab_encode(v, text, len, &ids, &n, &err);
  if (st == PD_OK)
    fuzz_check_ids(v, ids, n);
  else if (ids || n)
    abort();
  pd_free_ids(v, ids);
}

static void fuzz_gguf(const uint8_t *data, size_t size) {
  pd_vocab *v = NULL;
  pd_error err;
  pd_status st = pd_vocab_parse_gguf(data, size, NULL, &v, &err);
  if ((st == PD_OK) != (v != NULL)) abort();
  if (v) fuzz_encode(v, (const uint8_t *)"ab ab C", 7);
  pd_vocab_free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_gguf(data, size);
  const uint8_t *nul = memchr(data, 0, size);
  size_t json_len = nul ? (size_t)(nul - data) : size;
  const char *cfg = nul ? (const char *)nul + 1 : NULL;
  size_t cfg_len = nul ? size - json_len - 1 : 0;
  pd_vocab *v = NULL;
  pd_error err;
  pd_status st = pd_vocab_parse_hf((const char *)data, json_len, cfg, cfg_len, NULL, &v, &err);
  if ((st == PD_OK) != (v != NULL)) abort();
  if (!v) return 0;
  static const char text[] = "Hello world! {\"a\": [1, 22, 333]}\n\t caf\xc3\xa9 <s></s>";
  fuzz_encode(v, (const uint8_t *)text, sizeof text - 1);
  fuzz_encode(v, data, json_len < 512 ? json_len : 512);
  pd_vocab_free(v);
  return 0;
}
