/* test_encoder.c - the encoder on small tokenizer.json files written here (merge
 * order, added tokens, SentencePiece normalization and byte fallback), the
 * hand-written pre-tokenizer patterns against the words their regexes give, and
 * allocation failure while encoding. */
#include <stdio.h>
#include <string.h>

#include "masks/pretok.h"
#include "masks/unicode.h"
#include "support.h"

/* Byte-level: "Ġ a" outranks "a b", so " ab" is Ġa + b -> Ġab, while "ab" -> ab. */
static const char pdt_bl_json[] =
    "{\"added_tokens\": [{\"id\": 6, \"content\": \"<s>\", \"special\": true},"
    "  {\"id\": 7, \"content\": \"<x y>\", \"special\": false}],"
    " \"normalizer\": null,"
    " \"pre_tokenizer\": {\"type\": \"ByteLevel\", \"add_prefix_space\": false, \"use_regex\": "
    "true},"
    " \"decoder\": {\"type\": \"ByteLevel\"},"
    " \"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"b\": 1, \"\\u0120\": 2, \"ab\": 3,"
    "   \"\\u0120ab\": 4, \"\\u0120a\": 5, \"c\": 8},"
    "   \"merges\": [\"\\u0120 a\", \"a b\", \"\\u0120a b\"]}}";

/* SentencePiece: prepend and replace U+2581, byte fallback, unk. */
static const char pdt_sp_json[] =
    "{\"added_tokens\": [{\"id\": 0, \"content\": \"<unk>\", \"special\": true}],"
    " \"normalizer\": {\"type\": \"Sequence\", \"normalizers\": ["
    "   {\"type\": \"Prepend\", \"prepend\": \"\\u2581\"},"
    "   {\"type\": \"Replace\", \"pattern\": {\"String\": \" \"}, \"content\": \"\\u2581\"}]},"
    " \"pre_tokenizer\": null,"
    " \"model\": {\"type\": \"BPE\", \"unk_token\": \"<unk>\", \"byte_fallback\": true,"
    "   \"vocab\": {\"<unk>\": 0, \"\\u2581\": 1, \"a\": 2, \"b\": 3, \"\\u2581a\": 4, \"ab\": 5,"
    "     \"\\u2581ab\": 6, \"<0x43>\": 7, \"<0xC3>\": 8, \"<0xA9>\": 9},"
    "   \"merges\": [[\"\\u2581\", \"a\"], [\"a\", \"b\"], [\"\\u2581a\", \"b\"]]}}";

static pd_vocab *pdt_parse(const char *json, const pd_allocator *a) {
  pd_vocab_options o = {.allocator = a};
  pd_vocab *v = NULL;
  pd_error err;
  pd_status st = pd_vocab_parse_hf(json, strlen(json), NULL, 0, &o, &v, &err);
  if (st == PD_OK) return v;
  if (st != PD_ERR_NOMEM) fprintf(stderr, "parse: %s\n", err.message);
  return NULL;
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

static void test_byte_level_merges(void **state) {
  (void)state;
  pd_vocab *v = pdt_parse(pdt_bl_json, NULL);
  assert_non_null(v);
  static const uint32_t w1[] = {3, 4, 6}, w2[] = {7, 4, 8};
  pdt_ids(v, "ab ab<s>", w1, 3);
  pdt_ids(v, "<x y> abc", w2, 3); /* an added token that is not special is still split out */
  pdt_ids(v, "", NULL, 0);
  uint32_t *ids;
  size_t n;
  pd_error err;
  /* "z" has no byte token in this vocabulary: a status, not a crash */
  assert_int_equal(pd_vocab_encode(v, (const uint8_t *)"az", 2, &ids, &n, &err),
                   PD_ERR_UNSUPPORTED);
  assert_null(ids);
  assert_int_equal(pd_vocab_encode(v, NULL, 1, &ids, &n, &err), PD_ERR_ARG);
  pd_vocab_free(v);
}

static void test_sentencepiece(void **state) {
  (void)state;
  pd_vocab *v = pdt_parse(pdt_sp_json, NULL);
  assert_non_null(v);
  const uint8_t *b;
  size_t len;
  assert_int_equal(pd_vocab_token(v, 6, &b, &len, NULL), PD_OK);
  assert_int_equal(len, 3);
  assert_memory_equal(b, " ab", 3);
  assert_int_equal(pd_vocab_token(v, 7, &b, &len, NULL), PD_OK);
  assert_int_equal(len, 1);
  assert_int_equal(b[0], 'C');
  static const uint32_t w1[] = {6, 1, 7}, w2[] = {1, 8, 9}, w3[] = {1, 0}, w4[] = {4, 0, 6};
  pdt_ids(v, "ab C", w1, 3);     /* U+2581 prepended; C by byte fallback */
  pdt_ids(v, "\xc3\xa9", w2, 3); /* é: two fallback bytes */
  pdt_ids(v, "x", w3, 2);        /* no token and no byte token: unk */
  pdt_ids(v, "a<unk>ab", w4, 3); /* each segment gets its own U+2581 */
  pd_vocab_free(v);
}

/* Cuts text with pattern p and compares with the words, joined by '|'. */
static void pdt_split(pd_pretok p, const char *text, const char *want) {
  char got[512] = "";
  size_t n = strlen(text), at = 0, g = 0;
  while (at < n) {
    size_t k = pd_pretok_next(p, (const uint8_t *)text + at, n - at);
    assert_true(k >= 1 && at + k <= n);
    if (g) got[g++] = '|';
    memcpy(got + g, text + at, k);
    g += k;
    at += k;
  }
  got[g] = '\0';
  assert_string_equal(got, want);
}

/* The expected words are what Python's regex module finds with each pattern. */
static void test_pretokenizers(void **state) {
  (void)state;
  const char *t = "Hello world's 12345 ab\n\n  x  ";
  pdt_split(PD_PRETOK_LLAMA3, t, "Hello| world|'s| |123|45| ab|\n\n| | x|  ");
  pdt_split(PD_PRETOK_QWEN2, t, "Hello| world|'s| |1|2|3|4|5| ab|\n\n| | x|  ");
  pdt_split(PD_PRETOK_GPT4O, t, "Hello| world's| |123|45| ab|\n\n| | x|  ");
  pdt_split(PD_PRETOK_GPT2, t, "Hello| world|'s| 12345| ab|\n\n | x|  ");
  const char *u =
      "HELLO World'S camelCase \xc3\x89"
      "COLE//path\n/ \xcc\x81x 1234";
  pdt_split(PD_PRETOK_GPT4O, u,
            "HELLO| World'S| camel|Case| \xc3\x89"
            "COLE|//|path|\n|/| \xcc\x81x| |123|4");
  pdt_split(PD_PRETOK_LLAMA3, u,
            "HELLO| World|'S| camelCase| \xc3\x89"
            "COLE|//|path|\n|/| \xcc\x81|x| |123|4");
  pdt_split(PD_PRETOK_LLAMA3, "a\xff\xfe b", "a|\xff\xfe| b"); /* bytes that are not UTF-8 */
  assert_int_equal(pd_pretok_identify("\\s+", 3), -1);
  const char *re = pd_pretok_regex(PD_PRETOK_GPT4O);
  assert_int_equal(pd_pretok_identify(re, strlen(re)), PD_PRETOK_GPT4O);
}

static void pdt_nfc(const char *in, const char *want) {
  pd_bytes out = {0};
  pd_codepoints cps = {0};
  const pd_allocator *a = pd_default_allocator();
  assert_true(pd_unicode_nfc(a, (const uint8_t *)in, strlen(in), &out, &cps));
  assert_int_equal(out.len, strlen(want));
  assert_memory_equal(out.data, want, out.len);
  pd_array_free(a, &out);
  pd_array_free(a, &cps);
}

/* The expected forms are Python's unicodedata.normalize('NFC', ...). */
static void test_nfc(void **state) {
  (void)state;
  pdt_nfc("cafe\xcc\x81", "caf\xc3\xa9"); /* e + U+0301 -> U+00E9 */
  pdt_nfc("\xe2\x84\xab", "\xc3\x85");    /* U+212B (singleton) -> U+00C5 */
  pdt_nfc("\xe1\x84\x80\xe1\x85\xa1\xe1\x86\xa8", "\xea\xb0\x81"); /* jamo -> U+AC01 */
  pdt_nfc("q\xcc\x87\xcc\xa3", "q\xcc\xa3\xcc\x87");               /* marks reordered by class */
  pdt_nfc("a\xcc\xa3\xcc\x82", "\xe1\xba\xad");                    /* a + dot below + circumflex */
  pdt_nfc("\xe0\xa5\x98", "\xe0\xa4\x95\xe0\xa4\xbc");             /* U+0958 is excluded */
  pdt_nfc(
      "\xcc\x81"
      "e",
      "\xcc\x81"
      "e");                                      /* a leading mark stays */
  pdt_nfc("\xff\xcc\x81 ok", "\xff\xcc\x81 ok"); /* non-UTF-8 passes through */
}

/* Fail the Nth allocation for every N while loading and encoding: a status, no leak. */
static void test_alloc_failure(void **state) {
  (void)state;
  const char *jsons[] = {pdt_bl_json, pdt_sp_json}, *texts[] = {"ab ab<s> ab", "ab ab<unk> ab"};
  for (int k = 0; k < 2; k++)
    for (long n = 1;; n++) {
      pdt_alloc_reset(n);
      pd_vocab *v = pdt_parse(jsons[k], &pdt_allocator);
      uint32_t *ids = NULL;
      size_t n_ids;
      pd_status st =
          v ? pd_vocab_encode(v, (const uint8_t *)texts[k], strlen(texts[k]), &ids, &n_ids, NULL)
            : PD_ERR_NOMEM;
      assert_true(st == PD_OK || st == PD_ERR_NOMEM);
      if (st == PD_OK) pd_free_ids(v, ids);
      pd_vocab_free(v);
      assert_int_equal(pdt_alloc.live, 0);
      if (!pdt_alloc.failed) {
        assert_int_equal(st, PD_OK);
        assert_true(n > 5);
        break;
      }
    }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_byte_level_merges), cmocka_unit_test(test_sentencepiece),
      cmocka_unit_test(test_pretokenizers),     cmocka_unit_test(test_nfc),
      cmocka_unit_test(test_alloc_failure),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
