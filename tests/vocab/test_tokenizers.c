/* test_tokenizers.c - the four shared tokenizer.json files: what loads (sizes,
 * bytes, special and non-special added tokens, holes, stop tokens, width) and
 * what the encoder makes of texts (a sample of the MaskBench Llama-3 ids, known
 * ids, and decode(encode(text)) == text on all four). */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static pd_vocab *pdt_load(const char *name, const pd_vocab_options *opts) {
  char rel[128];
  snprintf(rel, sizeof rel, "tokenizers/%s/tokenizer.json", name);
  const char *path = pdt_data(rel);
  if (!path) return NULL;
  pd_vocab *v = NULL;
  pd_error err;
  pd_status st = pd_vocab_load_hf(path, NULL, opts, &v, &err);
  if (st) fprintf(stderr, "%s: %s\n", name, err.message);
  assert_int_equal(st, PD_OK);
  return v;
}

static void pdt_token_is(const pd_vocab *v, uint32_t id, const char *text, uint32_t flags) {
  const uint8_t *b;
  size_t len;
  uint32_t f;
  assert_int_equal(pd_vocab_token(v, id, &b, &len, &f), PD_OK);
  assert_int_equal(len, strlen(text));
  assert_memory_equal(b, text, len);
  assert_int_equal(f, flags);
}

static uint32_t pdt_find(const pd_vocab *v, const char *text) {
  uint32_t id = UINT32_MAX;
  assert_int_equal(pd_vocab_find(v, (const uint8_t *)text, strlen(text), &id), PD_OK);
  return id;
}

/* Encodes text, checks the ids when want is given, and that the ids' bytes are the text. */
static void pdt_encode(const pd_vocab *v, const char *text, size_t len, const uint32_t *want,
                       size_t n_want) {
  uint32_t *ids;
  size_t n;
  pd_error err;
  assert_int_equal(pd_vocab_encode(v, (const uint8_t *)text, len, &ids, &n, &err), PD_OK);
  if (want) {
    assert_int_equal(n, n_want);
    assert_memory_equal(ids, want, n * sizeof *ids);
  }
  size_t at = 0;
  for (size_t i = 0; i < n; i++) {
    const uint8_t *b;
    size_t k;
    assert_int_equal(pd_vocab_token(v, ids[i], &b, &k, NULL), PD_OK);
    assert_true(at + k <= len);
    assert_memory_equal(b, text + at, k);
    at += k;
  }
  assert_int_equal(at, len);
  pd_free_ids(v, ids);
}

static const char *pdt_texts[] = {
    "Hello world! {\"a\": 123456, \"b\": [1, 2.5e-3, null]}\n  foo   bar\n\n",
    ("naïve café — Ωmega ǅungla 日本語のテキスト 한국어 "
     "x\xcc\x81y emoji \xf0\x9f\x98\x80!"),
    "They're SHOUTING'S it's\r\n\tindented\ttabs    \n \n",
    "<|endoftext|> and <start_of_turn> inside <|im_start|>text",
    "",
};

static void pdt_round_trips(const pd_vocab *v) {
  for (size_t i = 0; i < sizeof pdt_texts / sizeof *pdt_texts; i++)
    pdt_encode(v, pdt_texts[i], strlen(pdt_texts[i]), NULL, 0);
}

/* Every 60th MaskBench instance: the encoder gives exactly its llama3 ids (all
 * 25,629 are checked by `pushdown encode --check`, see the report). */
static void pdt_maskbench_sample(const pd_vocab *v) {
  const char *path = pdt_data("maskbench/instances.jsonl");
  if (!path) return;
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  char *line = NULL;
  size_t cap = 0, no = 0, checked = 0;
  while (getline(&line, &cap, f) > 0) {
    if (no++ % 60) continue;
    json_t *j = json_loads(line, JSON_ALLOW_NUL, NULL), *ids = json_object_get(j, "llama3");
    const char *text = json_string_value(json_object_get(j, "text"));
    assert_non_null(text);
    size_t n_want = json_array_size(ids);
    uint32_t *want = malloc((n_want + 1) * sizeof *want);
    for (size_t i = 0; i < n_want; i++)
      want[i] = (uint32_t)json_integer_value(json_array_get(ids, i));
    pdt_encode(v, text, json_string_length(json_object_get(j, "text")), want, n_want);
    free(want);
    json_decref(j);
    checked++;
  }
  free(line);
  fclose(f);
  assert_true(checked > 400);
}

static void test_llama3(void **state) {
  (void)state;
  pd_vocab_options o = {.width = 128320};
  pd_vocab *v = pdt_load("llama3", &o);
  if (!v) skip();
  assert_int_equal(pd_vocab_size(v), 128256);
  assert_int_equal(pd_vocab_width(v), 128320);
  pdt_token_is(v, 220, " ", 0);
  pdt_token_is(v, 24748, " hello", 0);
  pdt_token_is(v, 128000, "<|begin_of_text|>", PD_TOKEN_SPECIAL);
  pdt_token_is(v, 128001, "<|end_of_text|>", PD_TOKEN_SPECIAL | PD_TOKEN_EOS);
  const uint32_t *eos;
  assert_int_equal(pd_vocab_eos(v, &eos), 1);
  assert_int_equal(eos[0], 128001);
  assert_int_equal(pdt_find(v, "<|eot_id|>"), 128009);
  assert_int_equal(pdt_find(v, " hello"), 24748);
  static const uint32_t hello[] = {9906, 1917, 0};
  pdt_encode(v, "Hello world!", 12, hello, 3);
  static const uint32_t special[] = {128000, 15339, 128009};
  pdt_encode(v, "<|begin_of_text|>hello<|eot_id|>", 32, special, 3);
  pdt_round_trips(v);
  pdt_maskbench_sample(v);
  pd_vocab_free(v);
}

static void test_qwen3(void **state) {
  (void)state;
  pd_vocab *v = pdt_load("qwen3", NULL);
  if (!v) skip();
  assert_int_equal(pd_vocab_size(v), 151669);
  pdt_token_is(v, 151645, "<|im_end|>", PD_TOKEN_SPECIAL | PD_TOKEN_EOS);
  pdt_token_is(v, 151657, "<tool_call>", 0); /* added but not special: ordinary text */
  pdt_token_is(v, 23811, " hello", 0);
  static const uint32_t digits[] = {16, 17, 18};
  pdt_encode(v, "123", 3, digits, 3); /* Qwen splits numbers into single digits */
  static const uint32_t tool[] = {151657, 14990, 151658};
  pdt_encode(v, "<tool_call>hello</tool_call>", 28, tool, 3);
  pdt_round_trips(v);
  pd_vocab_free(v);
}

static void test_gpt4o(void **state) {
  (void)state;
  uint32_t stop[2] = {199999, 200018};
  pd_vocab_options o = {.eos_ids = stop, .n_eos = 2};
  pd_vocab *v = pdt_load("gpt4o", &o);
  if (!v) skip();
  assert_int_equal(pd_vocab_size(v), 200019);
  pdt_token_is(v, 199998, "", PD_TOKEN_HOLE);
  for (uint32_t id = 200000; id < 200018; id++) pdt_token_is(v, id, "", PD_TOKEN_HOLE);
  pdt_token_is(v, 199999, "<|endoftext|>", PD_TOKEN_SPECIAL | PD_TOKEN_EOS);
  pdt_token_is(v, 200018, "<|endofprompt|>", PD_TOKEN_SPECIAL | PD_TOKEN_EOS);
  assert_int_equal(pd_vocab_eos(v, NULL), 2);
  assert_int_equal(pdt_find(v, " hello"), 40617);
  uint32_t id;
  assert_int_equal(pd_vocab_find(v, (const uint8_t *)"", 0, &id), PD_ERR_ARG); /* holes not found */
  pdt_round_trips(v);
  pd_vocab_free(v);
}

static void test_gemma3(void **state) {
  (void)state;
  pd_vocab *v = pdt_load("gemma3", NULL);
  if (!v) skip();
  assert_int_equal(pd_vocab_size(v), 262145);
  pdt_token_is(v, 1, "<eos>", PD_TOKEN_SPECIAL);
  pdt_token_is(v, 106, "<end_of_turn>", PD_TOKEN_SPECIAL | PD_TOKEN_EOS);
  pdt_token_is(v, 107, "\n", 0);
  pdt_token_is(v, 29104, " hello", 0); /* U+2581 is a space */
  pdt_token_is(v, 303, "A", 0);        /* <0x41> is the byte 0x41 */
  pdt_token_is(v, 248, "\n", 0);
  pdt_token_is(v, 262144, "<image_soft_token>", PD_TOKEN_SPECIAL); /* added, not in the model */
  assert_int_equal(pdt_find(v, "\n"), 107); /* the lowest id of equal bytes */
  static const uint32_t hello[] = {23391, 29104, 107, 29104};
  pdt_encode(v, "hello hello\n hello", 18, hello, 4);
  pdt_round_trips(v);
  pd_vocab_free(v);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_llama3),
      cmocka_unit_test(test_qwen3),
      cmocka_unit_test(test_gpt4o),
      cmocka_unit_test(test_gemma3),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
