/* test_fallback.c - the vocabulary the build trains on tools/corpus
 * ($PD_FALLBACK_TOKENIZER): it loads, has its stop token, encodes text it was
 * not trained on exactly (the ids spell the text) and compresses the corpus. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static pd_vocab *pdt_fallback(void) {
  const char *path = getenv("PD_FALLBACK_TOKENIZER");
  assert_non_null(path);
  pd_vocab *v = NULL;
  pd_error err;
  pd_status st = pd_vocab_load_hf(path, NULL, NULL, &v, &err);
  if (st) fprintf(stderr, "%s: %s\n", path, err.message);
  assert_int_equal(st, PD_OK);
  return v;
}

/* Encodes text; checks that the ids spell it; returns the count. */
static size_t pdt_spell(const pd_vocab *v, const char *text, size_t len) {
  uint32_t *ids;
  size_t n, at = 0;
  assert_int_equal(pd_vocab_encode(v, (const uint8_t *)text, len, &ids, &n, NULL), PD_OK);
  for (size_t i = 0; i < n; i++) {
    const uint8_t *b;
    size_t k;
    uint32_t flags;
    assert_int_equal(pd_vocab_token(v, ids[i], &b, &k, &flags), PD_OK);
    assert_int_equal(flags, 0);
    assert_true(at + k <= len);
    assert_memory_equal(b, text + at, k);
    at += k;
  }
  assert_int_equal(at, len);
  pd_free_ids(v, ids);
  return n;
}

static void test_loads(void **state) {
  (void)state;
  pd_vocab *v = pdt_fallback();
  assert_true(pd_vocab_size(v) > 1000 && pd_vocab_size(v) <= 4097);
  const uint32_t *eos;
  assert_int_equal(pd_vocab_eos(v, &eos), 1);
  const uint8_t *b;
  size_t len;
  uint32_t flags;
  assert_int_equal(pd_vocab_token(v, eos[0], &b, &len, &flags), PD_OK);
  assert_int_equal(flags, PD_TOKEN_SPECIAL | PD_TOKEN_EOS);
  assert_memory_equal(b, "<|endoftext|>", len);
  for (uint32_t i = 0; i < 256; i++) { /* the bytes come first */
    assert_int_equal(pd_vocab_token(v, i, &b, &len, NULL), PD_OK);
    assert_int_equal(len, 1);
    assert_int_equal(b[0], i);
  }
  pd_vocab_free(v);
}

static void test_encodes(void **state) {
  (void)state;
  pd_vocab *v = pdt_fallback();
  const char *texts[] = {
      "{\"name\": \"Zoë\", \"tags\": [\"a\", \"b\"], \"n\": -12.5e3, \"ok\": true}",
      "Unseen words: quixotic zephyr, \xf0\x9f\x8e\x89 and \t tabs\r\n\n  spaces   ",
      "\x00\x01\xff binary bytes",
  };
  for (size_t i = 0; i < 3; i++) pdt_spell(v, texts[i], i == 2 ? 17 : strlen(texts[i]));
  const char *rel = "../tools/corpus/prose_harbour.txt";
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", getenv("PD_SOURCE_TESTS"), rel);
  size_t len;
  char *text = pdt_read_file(path, &len);
  assert_non_null(text);
  size_t n = pdt_spell(v, text, len);
  assert_true(n * 3 < len); /* trained on it: over three bytes per token */
  free(text);
  pd_vocab_free(v);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_loads),
      cmocka_unit_test(test_encodes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
