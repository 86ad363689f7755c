/* test_conformance.c - the json_schema cases of ../shared/data/conformance
 * (XGrammar's and llama.cpp's tests), each with its engine's options:
 *   xgrammar: any_whitespace true -> FLEXIBLE; false -> FIXED with separators
 *             (", ", ": ") or the given pair, indent when given; strict_mode ->
 *             strict; any_order -> any_order.
 *   llama.cpp: additionalProperties false by default (strict), flexible
 *             whitespace.
 * A case's accept strings must be accepted and its reject strings rejected
 * (complete matches only). Engine-specific choices (llama.cpp refuses "-0"
 * for minimum 0, numbers longer than int64, ...) make some verdicts differ on
 * purpose, so the counts are a ratchet: each must stay at or above the value
 * measured when this file was written (printed on every run). */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_text.h"
#include "pda/json.h"

/* Measured floors (see the comment above). */
#define PDT_XG_COMPILED 941
#define PDT_XG_ACCEPT 6296
#define PDT_XG_REJECT 16686
#define PDT_LL_COMPILED 64
#define PDT_LL_ACCEPT 236
#define PDT_LL_REJECT 225

typedef struct pdt_counts {
  long cases, compiled, accept_ok, accept_n, reject_ok, reject_n;
} pdt_counts;

static const char *pdt_sep(const pd_json_doc *d, uint32_t seps, uint32_t i, const char *dflt) {
  if (seps == PD_JSON_NONE || pd_json_at(d, seps)->kind != PD_JSON_ARRAY) return dflt;
  return pd_json_str(d, pd_json_elem(d, seps, i));
}

static bool pdt_true(const pd_json_doc *d, uint32_t obj, const char *key) {
  uint32_t v = pd_json_get(d, obj, key);
  return v != PD_JSON_NONE && pd_json_at(d, v)->kind == PD_JSON_TRUE;
}

static void pdt_options(const pd_json_doc *d, uint32_t c, bool llamacpp, pd_grammar_options *o) {
  memset(o, 0, sizeof *o);
  o->indent = -1;
  if (llamacpp) {
    o->strict = true;
    return;
  }
  uint32_t opt = pd_json_get(d, c, "options");
  if (opt == PD_JSON_NONE || pd_json_at(d, opt)->kind != PD_JSON_OBJECT) return;
  o->strict = pdt_true(d, opt, "strict_mode");
  o->any_order = pdt_true(d, opt, "any_order");
  if (pdt_true(d, opt, "any_whitespace")) return;
  uint32_t indent = pd_json_get(d, opt, "indent"), seps = pd_json_get(d, opt, "separators");
  bool has_indent = indent != PD_JSON_NONE && pd_json_at(d, indent)->kind == PD_JSON_NUMBER;
  o->ws_mode = PD_WS_FIXED;
  if (has_indent) o->indent = atoi(pd_json_str(d, indent));
  o->item_separator = pdt_sep(d, seps, 0, has_indent ? "," : ", ");
  o->key_separator = pdt_sep(d, seps, 1, ": ");
}

static bool pdt_accepts(const pd_grammar *g, const char *s, size_t n) {
  pd_matcher *m = NULL;
  if (pd_matcher_new(g, &m, NULL)) return false;
  bool ok = pd_matcher_accept_bytes(m, (const uint8_t *)s, n, NULL, NULL) == PD_OK &&
            pd_matcher_is_accepting(m);
  pd_matcher_free(m);
  return ok;
}

/* Counts the strings of list (array node) whose verdict equals want. */
static void pdt_strings(const pd_json_doc *d, uint32_t list, const pd_grammar *g, bool want,
                        long *ok, long *n) {
  if (list == PD_JSON_NONE || pd_json_at(d, list)->kind != PD_JSON_ARRAY) return;
  for (uint32_t i = 0; i < pd_json_len(d, list); i++) {
    uint32_t s = pd_json_elem(d, list, i);
    if (pd_json_at(d, s)->kind != PD_JSON_STRING) continue;
    (*n)++;
    if (g && pdt_accepts(g, pd_json_str(d, s), pd_json_at(d, s)->n) == want)
      (*ok)++;
    else if (g && getenv("PDT_SCHEMA_VERBOSE"))
      printf("%s: %.300s\n  in case %u\n", want ? "not accepted" : "not rejected",
             pd_json_str(d, s), list);
  }
}

static pdt_counts pdt_file(const char *rel, bool llamacpp) {
  pdt_counts k = {0};
  const char *path = pdt_data(rel);
  if (!path) return k;
  size_t len;
  char *text = pdt_read_file(path, &len);
  assert_non_null(text);
  pd_json_doc d;
  assert_int_equal(pd_json_parse(&d, NULL, text, len, 1000, NULL), PD_OK);
  uint32_t cases =
      pd_json_at(&d, d.root)->kind == PD_JSON_ARRAY ? d.root : pd_json_get(&d, d.root, "cases");
  for (uint32_t i = 0; i < pd_json_len(&d, cases); i++) {
    uint32_t c = pd_json_elem(&d, cases, i), kind = pd_json_get(&d, c, "kind");
    if (kind == PD_JSON_NONE || !pd_json_str_eq(&d, kind, "json_schema")) continue;
    k.cases++;
    pd_grammar_options o;
    pdt_options(&d, c, llamacpp, &o);
    size_t slen;
    char *stext = pdt_json_text(&d, pd_json_get(&d, c, "schema"), &slen);
    pd_grammar *g = NULL;
    if (pd_grammar_compile_json_schema(stext, slen, NULL, &o, &g, NULL) == PD_OK) k.compiled++;
    pdt_strings(&d, pd_json_get(&d, c, "accept"), g, true, &k.accept_ok, &k.accept_n);
    pdt_strings(&d, pd_json_get(&d, c, "reject"), g, false, &k.reject_ok, &k.reject_n);
    pd_grammar_free(g);
    free(stext);
  }
  printf("%s: %ld json_schema cases, %ld compiled; accept %ld/%ld, reject %ld/%ld\n", rel, k.cases,
         k.compiled, k.accept_ok, k.accept_n, k.reject_ok, k.reject_n);
  pd_json_free(&d);
  free(text);
  return k;
}

static void pdt_at_least(const pdt_counts *k, const pdt_counts *floor) {
  assert_true(k->compiled >= floor->compiled);
  assert_true(k->accept_ok >= floor->accept_ok);
  assert_true(k->reject_ok >= floor->reject_ok);
}

static void test_xgrammar(void **state) {
  (void)state;
  if (!pdt_data("conformance/xgrammar_cases.json")) skip();
  pdt_counts k = pdt_file("conformance/xgrammar_cases.json", false);
  static const pdt_counts floor = {0, PDT_XG_COMPILED, PDT_XG_ACCEPT, 0, PDT_XG_REJECT, 0};
  pdt_at_least(&k, &floor);
}

static void test_llamacpp(void **state) {
  (void)state;
  if (!pdt_data("conformance/llamacpp_grammar_cases.json")) skip();
  pdt_counts k = pdt_file("conformance/llamacpp_grammar_cases.json", true);
  static const pdt_counts floor = {0, PDT_LL_COMPILED, PDT_LL_ACCEPT, 0, PDT_LL_REJECT, 0};
  pdt_at_least(&k, &floor);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_xgrammar),
                                     cmocka_unit_test(test_llamacpp)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
