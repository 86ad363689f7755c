/* test_vocab_hf.c - loading errors: every malformed tokenizer.json or
 * tokenizer_config.json gets its status and a message, never a crash; plain
 * lists, pd_vocab_find and the options. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

#define PDT_MODEL(v) "{\"model\": {\"type\": \"BPE\", \"vocab\": " v "}}"

typedef struct pdt_bad {
  const char *json, *config;
  pd_status want;
} pdt_bad;

static const pdt_bad pdt_bads[] = {
    {"", NULL, PD_ERR_SYNTAX},
    {"not json", NULL, PD_ERR_SYNTAX},
    {"{\"model\": ", NULL, PD_ERR_SYNTAX},
    {"[]", NULL, PD_ERR_SYNTAX},
    {"{}", NULL, PD_ERR_SYNTAX},
    {"{\"model\": 5}", NULL, PD_ERR_SYNTAX},
    {"{\"model\": {\"type\": \"WordPiece\", \"vocab\": {}}}", NULL, PD_ERR_UNSUPPORTED},
    {"{\"model\": {\"type\": \"Unigram\", \"vocab\": []}}", NULL, PD_ERR_UNSUPPORTED},
    {"{\"model\": {\"type\": 7, \"vocab\": {}}}", NULL, PD_ERR_SYNTAX},
    {"{\"model\": {\"type\": \"BPE\"}}", NULL, PD_ERR_SYNTAX},
    {"{\"model\": {\"type\": \"BPE\", \"vocab\": []}}", NULL, PD_ERR_SYNTAX},
    {PDT_MODEL("{\"a\": \"0\"}"), NULL, PD_ERR_SYNTAX},
    {PDT_MODEL("{\"a\": 1.5}"), NULL, PD_ERR_SYNTAX},
    {PDT_MODEL("{\"a\": -1}"), NULL, PD_ERR_LIMIT},
    {PDT_MODEL("{\"a\": 99999999999999}"), NULL, PD_ERR_LIMIT},
    {PDT_MODEL("{\"a\": 100000}"), NULL, PD_ERR_LIMIT}, /* one token, 100k holes */
    {PDT_MODEL("{\"a\": 0, \"b\": 0}"), NULL, PD_ERR_SEMANTIC},
    {PDT_MODEL("{\"a\": 0, \"a\": 1}"), NULL, PD_ERR_SYNTAX},
    {"{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": {}}}", NULL,
     PD_ERR_SYNTAX},
    {"{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": [\"a\"]}}", NULL,
     PD_ERR_SYNTAX},
    {"{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": [\"a a a\"]}}", NULL,
     PD_ERR_SYNTAX},
    {"{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": [5]}}", NULL,
     PD_ERR_SYNTAX},
    {"{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": [[\"a\", \"b\"]]}}", NULL,
     PD_ERR_SEMANTIC},
    {"{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": [\"a a\"]}}", NULL,
     PD_ERR_SEMANTIC}, /* "aa" is not a token */
    {"{\"added_tokens\": 5, \"model\": {\"type\": \"BPE\", \"vocab\": {}}}", NULL, PD_ERR_SYNTAX},
    {"{\"added_tokens\": [{\"id\": 0}], \"model\": {\"type\": \"BPE\", \"vocab\": {}}}", NULL,
     PD_ERR_SYNTAX},
    {"{\"added_tokens\": [7], \"model\": {\"type\": \"BPE\", \"vocab\": {}}}", NULL, PD_ERR_SYNTAX},
    {"{\"added_tokens\": [{\"id\": 1, \"content\": \"x\"}, {\"id\": 1, \"content\": \"y\"}],"
     " \"model\": {\"type\": \"BPE\", \"vocab\": {}}}",
     NULL, PD_ERR_SEMANTIC},
    {"{\"added_tokens\": [{\"id\": 1, \"content\": \"x\", \"special\": \"yes\"}],"
     " \"model\": {\"type\": \"BPE\", \"vocab\": {}}}",
     NULL, PD_ERR_SYNTAX},
    {"{\"added_tokens\": [{\"id\": \"1\", \"content\": \"x\"}],"
     " \"model\": {\"type\": \"BPE\", \"vocab\": {}}}",
     NULL, PD_ERR_SYNTAX},
    {PDT_MODEL("{\"a\": 0}"), "{", PD_ERR_SYNTAX},
    {PDT_MODEL("{\"a\": 0}"), "[]", PD_ERR_SYNTAX},
    {PDT_MODEL("{\"a\": 0}"), "{\"eos_token\": 5}", PD_ERR_SYNTAX},
    {PDT_MODEL("{\"a\": 0}"), "{\"eos_token\": \"<nope>\"}", PD_ERR_SEMANTIC},
    {PDT_MODEL("{\"a\": 0}"), "{\"eos_token\": {\"content\": 3}}", PD_ERR_SYNTAX},
};

static void test_malformed(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof pdt_bads / sizeof *pdt_bads; i++) {
    const pdt_bad *b = &pdt_bads[i];
    pd_vocab *v = (pd_vocab *)&v;
    pd_error err = {0};
    pd_status st = pd_vocab_parse_hf(b->json, strlen(b->json), b->config,
                                     b->config ? strlen(b->config) : 0, NULL, &v, &err);
    if (st != b->want) fprintf(stderr, "case %zu: got %d (%s)\n", i, st, err.message);
    assert_int_equal(st, b->want);
    assert_int_equal(err.code, b->want);
    assert_true(err.message[0] != '\0');
    assert_null(v);
  }
}

static void test_eos_and_width(void **state) {
  (void)state;
  const char *json =
      "{\"added_tokens\": [{\"id\": 2, \"content\": \"</s>\", \"special\": true}],"
      " \"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"b\": 1}}}";
  const char *cfg =
      "{\"eos_token\": {\"content\": \"</s>\", \"lstrip\": false},"
      " \"model_max_length\": 1000000000000000019884624838656}";
  pd_vocab *v;
  pd_error err;
  assert_int_equal(pd_vocab_parse_hf(json, strlen(json), cfg, strlen(cfg), NULL, &v, &err), PD_OK);
  const uint32_t *eos;
  assert_int_equal(pd_vocab_eos(v, &eos), 1);
  assert_int_equal(eos[0], 2);
  assert_int_equal(pd_vocab_width(v), 3);
  pd_vocab_free(v);
  uint32_t mine[] = {1};
  pd_vocab_options o = {.width = 64, .eos_ids = mine, .n_eos = 1};
  assert_int_equal(pd_vocab_parse_hf(json, strlen(json), cfg, strlen(cfg), &o, &v, &err), PD_OK);
  assert_int_equal(pd_vocab_eos(v, &eos), 1);
  assert_int_equal(eos[0], 1);
  assert_int_equal(pd_vocab_width(v), 64);
  assert_int_equal(pd_vocab_size(v), 3);
  pd_vocab_free(v);
  o = (pd_vocab_options){.width = 2};
  assert_int_equal(pd_vocab_parse_hf(json, strlen(json), NULL, 0, &o, &v, &err), PD_ERR_ARG);
  mine[0] = 3;
  o = (pd_vocab_options){.eos_ids = mine, .n_eos = 1};
  assert_int_equal(pd_vocab_parse_hf(json, strlen(json), NULL, 0, &o, &v, &err), PD_ERR_ARG);
}

static void test_files(void **state) {
  (void)state;
  pd_vocab *v = (pd_vocab *)&v;
  pd_error err;
  assert_int_equal(pd_vocab_load_hf("/nonexistent/tokenizer.json", NULL, NULL, &v, &err),
                   PD_ERR_IO);
  assert_null(v);
  assert_int_equal(pd_vocab_load_hf(NULL, NULL, NULL, &v, &err), PD_ERR_ARG);
  char path[] = "/tmp/pdt_vocab_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  const char *json = PDT_MODEL("{\"a\": 0}");
  assert_int_equal(write(fd, json, strlen(json)), (ssize_t)strlen(json));
  close(fd);
  assert_int_equal(pd_vocab_load_hf(path, NULL, NULL, &v, &err), PD_OK);
  assert_int_equal(pd_vocab_size(v), 1);
  pd_vocab_free(v);
  assert_int_equal(pd_vocab_load_hf(path, "/nonexistent/cfg.json", NULL, &v, &err), PD_ERR_IO);
  unlink(path);
}

static void test_from_list_find(void **state) {
  (void)state;
  const uint8_t *toks[] = {(const uint8_t *)"ab", (const uint8_t *)"", (const uint8_t *)"ab",
                           (const uint8_t *)"<e>", (const uint8_t *)"c"};
  size_t lens[] = {2, 0, 2, 3, 1};
  uint32_t flags[] = {0, PD_TOKEN_HOLE, 0, PD_TOKEN_SPECIAL | PD_TOKEN_EOS, 0};
  pd_vocab *v;
  assert_int_equal(pd_vocab_from_list(toks, lens, flags, 5, NULL, &v, NULL), PD_OK);
  uint32_t id;
  assert_int_equal(pd_vocab_find(v, (const uint8_t *)"ab", 2, &id), PD_OK);
  assert_int_equal(id, 0); /* the lowest of equal tokens */
  assert_int_equal(pd_vocab_find(v, (const uint8_t *)"<e>", 3, &id), PD_OK);
  assert_int_equal(id, 3);
  assert_int_equal(pd_vocab_find(v, (const uint8_t *)"", 0, &id), PD_ERR_ARG); /* a hole */
  assert_int_equal(pd_vocab_find(v, (const uint8_t *)"abc", 3, &id), PD_ERR_ARG);
  const uint32_t *eos;
  assert_int_equal(pd_vocab_eos(v, &eos), 1);
  assert_int_equal(eos[0], 3);
  uint32_t *ids;
  size_t n;
  assert_int_equal(pd_vocab_encode(v, (const uint8_t *)"ab", 2, &ids, &n, NULL),
                   PD_ERR_UNSUPPORTED); /* a plain list has no merges to encode with */
  pd_vocab_free(v);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_malformed),
      cmocka_unit_test(test_eos_and_width),
      cmocka_unit_test(test_files),
      cmocka_unit_test(test_from_list_find),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
