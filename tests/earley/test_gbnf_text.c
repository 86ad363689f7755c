/* test_gbnf_text.c - the matcher on grammars written in GBNF (pda/gbnf.c). */
#include <stdlib.h>

#include "helpers.h"

static pd_grammar *pdt_gbnf(const char *text, pd_vocab *v) {
  pd_grammar *g = NULL;
  pd_error err;
  pd_status s = pd_grammar_compile_gbnf(text, strlen(text), v, NULL, &g, &err);
  if (s) fprintf(stderr, "gbnf: %s\n", err.message);
  assert_int_equal(s, PD_OK);
  return g;
}

static void test_recursions(void **state) {
  (void)state;
  /* hidden left recursion: a is nullable, so root calls itself first */
  pd_grammar *g = pdt_gbnf("root ::= a root \"x\" | \"y\"\na ::= \"\" | \"z\"\n", NULL);
  assert_int_equal(PDT_V(g, "yxx"), 2);
  assert_int_equal(PDT_V(g, "zyx"), 2);
  assert_int_equal(PDT_V(g, "zzyxx"), 2);
  assert_int_equal(PDT_V(g, "zzyx"), 1);
  assert_int_equal(PDT_V(g, "x"), 0);
  pd_grammar_free(g);
  g = pdt_gbnf("root ::= e\ne ::= e \"*\" e | e \"+\" e | \"(\" e \")\" | [0-9]\n", NULL);
  assert_int_equal(PDT_V(g, "1+2*(3+4)*5"), 2);
  assert_int_equal(PDT_V(g, "1+2*(3+4"), 1);
  assert_int_equal(PDT_V(g, "1+*2"), 0);
  pd_grammar_free(g);
}

static void test_utf8_and_repeats(void **state) {
  (void)state;
  pd_grammar *g = pdt_gbnf("root ::= [α-ω]{2,3} \"€\" [^a]?\n", NULL);
  assert_int_equal(PDT_V(g, "αβ€"), 2);
  assert_int_equal(PDT_V(g, "αβγ€\xF0\x9F\x98\x80"), 2);
  assert_int_equal(PDT_V(g, "αβγδ€"), 0);
  assert_int_equal(PDT_V(g, "α€"), 0);
  assert_int_equal(PDT_V(g, "αβ\xE2\x82"), 1); /* half of the euro sign */
  assert_int_equal(PDT_V(g, "αβ€a"), 0);
  pd_grammar_free(g);
}

/* Counts of counts (ir.c folds them): the languages as written. */
static void test_nested_counts(void **state) {
  (void)state;
  char text[256];
  pd_grammar *g = pdt_gbnf("root ::= ([ab]+){53} \"!\"\n", NULL);
  for (int n = 0; n <= 200; n += n < 60 ? 1 : 35) {
    memset(text, 'a', (size_t)n);
    text[n / 2] = 'b';
    strcpy(text + n, "!");
    assert_int_equal(PDT_V(g, text), n >= 53 ? 2 : 0);
    text[n] = '\0';
    assert_int_equal(PDT_V(g, text), 1);
  }
  pd_grammar_free(g);
  g = pdt_gbnf("root ::= (\"a\"?){3,5} \"!\"\n", NULL);
  assert_int_equal(PDT_V(g, "!"), 2);
  assert_int_equal(PDT_V(g, "aaaaa!"), 2);
  assert_int_equal(PDT_V(g, "aaaaaa"), 0);
  pd_grammar_free(g);
  g = pdt_gbnf("root ::= (\"a\"{1,3}){2} \"!\" | (\"b\"{2,3}){0,2} \"!\"\n", NULL);
  const char *yes[] = {"aa!", "aaaaaa!", "!", "bb!", "bbbbbb!", "bbbbb!"};
  const char *no[] = {"a!", "aaaaaaa!", "b!", "bbbbbbb!"};
  for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) assert_int_equal(PDT_V(g, yes[i]), 2);
  for (size_t i = 0; i < sizeof no / sizeof *no; i++) assert_int_equal(PDT_V(g, no[i]), 0);
  pd_grammar_free(g);
}

static void test_shared_json(void **state) {
  (void)state;
  const char *path = pdt_data("grammars/gbnf/json.gbnf");
  if (!path) skip();
  size_t len;
  char *text = pdt_read_file(path, &len);
  assert_non_null(text);
  pd_grammar *g = pdt_gbnf(text, NULL);
  free(text);
  assert_int_equal(PDT_V(g, "{\"a\": [1, 2.5e3, \"x\\u00e9\", true, null], \"b\": {}}"), 2);
  assert_int_equal(PDT_V(g, "{\"a\": [1, 2"), 1);
  assert_int_equal(PDT_V(g, "{\"a\": [1, 2]]"), 0);
  assert_int_equal(PDT_V(g, "{\"a\": 01}"), 0);
  pd_grammar_free(g);
}

/* Special tokens written by their text, and <[id]> syntax. */
static void test_token_syntax(void **state) {
  (void)state;
  const char *texts[] = {"a", "<|end|>", "b", "</s>"};
  const uint8_t *t[4];
  size_t lens[4];
  uint32_t flags[4] = {0, PD_TOKEN_SPECIAL, 0, PD_TOKEN_EOS};
  for (int i = 0; i < 4; i++) t[i] = (const uint8_t *)texts[i], lens[i] = strlen(texts[i]);
  pd_vocab *v = NULL;
  assert_int_equal(pd_vocab_from_list(t, lens, flags, 4, NULL, &v, NULL), PD_OK);
  pd_grammar *g = pdt_gbnf("root ::= \"a\"+ <[1]> !<[0]>\n", v);
  pd_matcher *m = NULL;
  assert_int_equal(pd_matcher_new(g, &m, NULL), PD_OK);
  assert_int_equal(pd_matcher_accept_token(m, 0, NULL), PD_OK);
  assert_int_equal(pd_matcher_accept_token(m, 2, NULL), PD_ERR_REJECTED);
  assert_int_equal(pd_matcher_accept_token(m, 1, NULL), PD_OK);
  assert_int_equal(pd_matcher_accept_token(m, 0, NULL), PD_ERR_REJECTED);
  assert_int_equal(pd_matcher_accept_token(m, 3, NULL), PD_ERR_REJECTED); /* EOS: incomplete */
  assert_int_equal(pd_matcher_accept_token(m, 2, NULL), PD_OK);
  assert_int_equal(pd_matcher_accept_token(m, 3, NULL), PD_OK);
  assert_true(pd_matcher_is_terminated(m));
  pd_matcher_free(m);
  pd_grammar_free(g);
  pd_vocab_free(v);
}

/* Allocation failure at every step over GBNF compile and accept. */
static void test_alloc_failure(void **state) {
  (void)state;
  const char *text = "root ::= e \";\"\ne ::= e \"+\" t | t\nt ::= [0-9]{1,40} | \"(\" e \")\"\n";
  pd_grammar_options o = {.allocator = &pdt_allocator};
  for (long n = 1;; n++) {
    pdt_alloc_reset(n);
    pd_grammar *g = NULL;
    pd_matcher *m = NULL;
    pd_status s = pd_grammar_compile_gbnf(text, strlen(text), NULL, &o, &g, NULL);
    if (!s) s = pd_matcher_new(g, &m, NULL);
    if (!s) s = pd_matcher_accept_bytes(m, (const uint8_t *)"1+(22+3);", 9, NULL, NULL);
    assert_true(s == PD_OK || s == PD_ERR_NOMEM);
    pd_matcher_free(m);
    pd_grammar_free(g);
    assert_int_equal(pdt_alloc.live, 0);
    if (!pdt_alloc.failed) {
      assert_int_equal(s, PD_OK);
      break;
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_recursions),    cmocka_unit_test(test_utf8_and_repeats),
      cmocka_unit_test(test_nested_counts),
      cmocka_unit_test(test_shared_json),   cmocka_unit_test(test_token_syntax),
      cmocka_unit_test(test_alloc_failure),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
