/* test_gguf.c - GGUF vocabularies: llama.cpp's tokenization vectors for its
 * gpt-2 (byte-level BPE) and llama (SentencePiece) vocab files, small GGUF
 * files built here (scores as merge priorities), malformed files, and
 * allocation failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

/* ------------------------------------------------ a tiny GGUF writer */

typedef struct pdt_buf {
  uint8_t data[8192];
  size_t len;
} pdt_buf;

static void pdt_le(pdt_buf *b, uint64_t v, size_t k) {
  for (size_t i = 0; i < k; i++) b->data[b->len++] = (uint8_t)(v >> (8 * i));
}
static void pdt_str(pdt_buf *b, const char *s) {
  pdt_le(b, strlen(s), 8);
  memcpy(b->data + b->len, s, strlen(s));
  b->len += strlen(s);
}
static void pdt_key(pdt_buf *b, const char *k, uint32_t type) {
  pdt_str(b, k);
  pdt_le(b, type, 4);
}

/* SentencePiece vocabulary: scores make "▁a" outrank "ab". */
static void pdt_spm(pdt_buf *b, const char *model, uint32_t version) {
  static const char *toks[] = {"<unk>",
                               "<s>",
                               "</s>",
                               "<0x43>",
                               "\xe2\x96\x81",
                               "a",
                               "b",
                               "\xe2\x96\x81"
                               "a",
                               "ab",
                               "\xe2\x96\x81"
                               "ab"};
  static const int32_t types[] = {2, 3, 3, 6, 1, 1, 1, 1, 1, 1};
  static const float scores[] = {0, 0, 0, 0, -1, -2, -3, -4, -5, -6};
  b->len = 0;
  memcpy(b->data, "GGUF", 4);
  b->len = 4;
  pdt_le(b, version, 4);
  pdt_le(b, 0, 8);
  pdt_le(b, 5, 8);
  pdt_key(b, "tokenizer.ggml.model", 8);
  pdt_str(b, model);
  pdt_key(b, "tokenizer.ggml.tokens", 9);
  pdt_le(b, 8, 4);
  pdt_le(b, 10, 8);
  for (int i = 0; i < 10; i++) pdt_str(b, toks[i]);
  pdt_key(b, "tokenizer.ggml.token_type", 9);
  pdt_le(b, 5, 4);
  pdt_le(b, 10, 8);
  for (int i = 0; i < 10; i++) pdt_le(b, (uint32_t)types[i], 4);
  pdt_key(b, "tokenizer.ggml.scores", 9);
  pdt_le(b, 6, 4);
  pdt_le(b, 10, 8);
  for (int i = 0; i < 10; i++) {
    uint32_t u;
    memcpy(&u, &scores[i], 4);
    pdt_le(b, u, 4);
  }
  pdt_key(b, "tokenizer.ggml.eos_token_id", 4);
  pdt_le(b, 2, 4);
}

static void pdt_ids(const pd_vocab *v, const char *text, const uint32_t *want, size_t n_want) {
  uint32_t *ids;
  size_t n;
  pd_error err;
  assert_int_equal(pd_vocab_encode(v, (const uint8_t *)text, strlen(text), &ids, &n, &err), PD_OK);
  assert_int_equal(n, n_want);
  if (n) assert_memory_equal(ids, want, n * sizeof *ids);
  pd_free_ids(v, ids);
}

static void test_small_spm(void **state) {
  (void)state;
  pdt_buf b;
  pdt_spm(&b, "llama", 3);
  pd_vocab *v;
  pd_error err;
  assert_int_equal(pd_vocab_parse_gguf(b.data, b.len, NULL, &v, &err), PD_OK);
  assert_int_equal(pd_vocab_size(v), 10);
  const uint32_t *eos;
  assert_int_equal(pd_vocab_eos(v, &eos), 1);
  assert_int_equal(eos[0], 2);
  uint32_t flags;
  const uint8_t *bytes;
  size_t len;
  assert_int_equal(pd_vocab_token(v, 1, &bytes, &len, &flags), PD_OK);
  assert_int_equal(flags, PD_TOKEN_SPECIAL);
  assert_int_equal(pd_vocab_token(v, 3, &bytes, &len, &flags), PD_OK);
  assert_int_equal(len, 1);
  assert_int_equal(bytes[0], 'C');
  /* " ab": ▁ a outranks a b (score -4 > -5), then ▁a b -> ▁ab; C by byte fallback */
  static const uint32_t w1[] = {9, 9, 4, 3};
  pdt_ids(v, "ab ab C", w1, 4);
  pd_vocab_free(v);
}

static void test_malformed(void **state) {
  (void)state;
  pdt_buf b;
  pd_vocab *v = (pd_vocab *)&b;
  pd_error err;
  pdt_spm(&b, "llama", 3);
  for (size_t cut = 0; cut < b.len; cut += 7) { /* every truncation is an error */
    assert_int_not_equal(pd_vocab_parse_gguf(b.data, cut, NULL, &v, &err), PD_OK);
    assert_null(v);
  }
  pdt_spm(&b, "bert", 3);
  assert_int_equal(pd_vocab_parse_gguf(b.data, b.len, NULL, &v, &err), PD_ERR_UNSUPPORTED);
  pdt_spm(&b, "llama", 1);
  assert_int_equal(pd_vocab_parse_gguf(b.data, b.len, NULL, &v, &err), PD_ERR_UNSUPPORTED);
  pdt_spm(&b, "llama", 3);
  b.data[0] = 'X';
  assert_int_equal(pd_vocab_parse_gguf(b.data, b.len, NULL, &v, &err), PD_ERR_SYNTAX);
  pdt_spm(&b, "llama", 3);
  /* header 24, model key 8+20+4 and value 8+5, tokens key 8+21+4, element type 4 */
  size_t count_at = 24 + 32 + 13 + 33 + 4;
  assert_int_equal(b.data[count_at], 10);
  memset(b.data + count_at, 0xff, 8); /* token count: 2^64 - 1 */
  assert_int_equal(pd_vocab_parse_gguf(b.data, b.len, NULL, &v, &err), PD_ERR_SYNTAX);
  assert_int_equal(pd_vocab_load_gguf("/nonexistent.gguf", NULL, &v, &err), PD_ERR_IO);
}

static void test_alloc_failure(void **state) {
  (void)state;
  pdt_buf b;
  pdt_spm(&b, "llama", 3);
  for (long n = 1;; n++) {
    pdt_alloc_reset(n);
    pd_vocab_options o = {.allocator = &pdt_allocator};
    pd_vocab *v = NULL;
    pd_status st = pd_vocab_parse_gguf(b.data, b.len, &o, &v, NULL);
    uint32_t *ids = NULL;
    size_t n_ids;
    if (!st) st = pd_vocab_encode(v, (const uint8_t *)"ab ab", 5, &ids, &n_ids, NULL);
    assert_true(st == PD_OK || st == PD_ERR_NOMEM);
    pd_free_ids(v, ids);
    pd_vocab_free(v);
    assert_int_equal(pdt_alloc.live, 0);
    if (!pdt_alloc.failed) break;
  }
}

/* llama.cpp's vectors: texts split by "\n__ggml_vocab_test__\n", one line of ids each. */
static void pdt_vectors(const char *name) {
  char rel[128];
  snprintf(rel, sizeof rel, "tokenizers/gguf/ggml-vocab-%s.gguf", name);
  const char *p = pdt_data(rel);
  if (!p) skip();
  char path[4096];
  snprintf(path, sizeof path, "%s", p);
  pd_vocab *v;
  pd_error err;
  assert_int_equal(pd_vocab_load_gguf(path, NULL, &v, &err), PD_OK);
  strcat(path, ".inp");
  size_t in_len, out_len;
  char *in = pdt_read_file(path, &in_len);
  strcpy(path + strlen(path) - 4, ".out");
  char *out = pdt_read_file(path, &out_len);
  assert_non_null(in);
  assert_non_null(out);
  static const char sep[] = "\n__ggml_vocab_test__\n";
  char *text = in, *line = out;
  size_t count = 0;
  while (*line) {
    char *end = strstr(text, sep), *eol = strchr(line, '\n');
    assert_non_null(end);
    assert_non_null(eol);
    uint32_t want[256];
    size_t n_want = 0;
    for (char *q = line; q < eol && n_want < 256;) {
      char *next;
      unsigned long id = strtoul(q, &next, 10);
      if (next == q) break;
      want[n_want++] = (uint32_t)id;
      q = next;
    }
    *end = '\0';
    pdt_ids(v, text, want, n_want);
    text = end + strlen(sep);
    line = eol + 1;
    count++;
  }
  assert_true(count >= 40);
  free(in);
  free(out);
  pd_vocab_free(v);
}

static void test_vectors_gpt2(void **state) {
  (void)state;
  pdt_vectors("gpt-2");
}

static void test_vectors_llama_spm(void **state) {
  (void)state;
  pdt_vectors("llama-spm");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_small_spm),         cmocka_unit_test(test_malformed),
      cmocka_unit_test(test_alloc_failure),     cmocka_unit_test(test_vectors_gpt2),
      cmocka_unit_test(test_vectors_llama_spm),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
