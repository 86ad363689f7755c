/* test_conformance.c - GBNF conformance over ../shared/data/conformance:
 *   llamacpp_grammar_cases.json   kind "gbnf" (accept/reject strings, token
 *                                 segments, build-failure cases)
 *   llamacpp_gbnf_parse_cases.json  must-parse / must-fail
 *   xgrammar_cases.json           kind "ebnf" (xgrammar's GBNF dialect)
 * An accept string must be a complete match, a reject string must not be.
 * Cases that differ by design are listed in conformance_expect.txt as
 * "id | outcome | reason"; the runner checks that they still differ in exactly
 * that way, so a stale line fails too. Outcomes:
 *   compiles     upstream refuses the grammar (e.g. left recursion); we build it
 *   compile-error  the grammar uses syntax outside GBNF; we refuse it
 *   not-gbnf     the case is not a GBNF grammar at all; not run
 * Token segments (arrays of ints and strings) run on the fixture vocabulary:
 * an int is that token id, a string is one byte token per byte. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "pda/gbnf.h"
#include "support.h"

typedef struct expect_line {
  char id[128];
  char outcome[32];
  int used;
} expect_line;

typedef struct runner {
  pd_vocab *vocab;
  expect_line expect[64];
  size_t n_expect;
  long cases, cases_ok, strings, strings_ok, expected, failed;
} runner;

static runner R;

/* ----------------------------------------------------- expectations file */

static char *trim(char *s) {
  while (*s == ' ' || *s == '\t') s++;
  size_t n = strlen(s);
  while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
    s[--n] = '\0';
  return s;
}

static void load_expect(void) {
  char *text = pdt_read_file(PDT_GBNF_DIR "/conformance_expect.txt", NULL);
  assert_non_null(text);
  for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
    if (line[0] == '#' || !strchr(line, '|')) continue;
    char *bar1 = strchr(line, '|'), *bar2 = strchr(bar1 + 1, '|');
    assert_non_null(bar2); /* every line gives a reason */
    *bar1 = *bar2 = '\0';
    assert_true(R.n_expect < sizeof R.expect / sizeof R.expect[0]);
    expect_line *e = &R.expect[R.n_expect++];
    snprintf(e->id, sizeof e->id, "%s", trim(line));
    snprintf(e->outcome, sizeof e->outcome, "%s", trim(bar1 + 1));
    assert_true(strlen(trim(bar2 + 1)) > 0);
  }
  free(text);
}

/* The listed outcome of case id, or NULL. */
static const char *expected_outcome(const char *id) {
  for (size_t i = 0; i < R.n_expect; i++)
    if (strcmp(R.expect[i].id, id) == 0) {
      R.expect[i].used = 1;
      return R.expect[i].outcome;
    }
  return NULL;
}

/* ------------------------------------------------------------ matching */

/* Feeds one input: a JSON string (bytes) or an array of token segments.
 * Returns 1 when the whole input is a complete sentence. */
static int matches(const pd_grammar *g, json_t *input) {
  pd_matcher *m = NULL;
  assert_int_equal(pd_matcher_new(g, &m, NULL), PD_OK);
  int ok = 1;
  if (json_is_string(input)) {
    const uint8_t *s = (const uint8_t *)json_string_value(input);
    ok = pd_matcher_accept_bytes(m, s, json_string_length(input), NULL, NULL) == PD_OK;
  } else {
    size_t i;
    json_t *seg;
    json_array_foreach(input, i, seg) {
      if (json_is_integer(seg)) {
        ok = ok && pd_matcher_accept_token(m, (uint32_t)json_integer_value(seg), NULL) == PD_OK;
        continue;
      }
      const uint8_t *s = (const uint8_t *)json_string_value(seg);
      for (size_t k = 0; ok && k < json_string_length(seg); k++)
        ok = pd_matcher_accept_token(m, PDT_N_SPECIAL + s[k], NULL) == PD_OK;
    }
  }
  ok = ok && pd_matcher_is_accepting(m);
  pd_matcher_free(m);
  return ok;
}

static void fail_case(const char *id, const char *what, json_t *input) {
  char *s = input ? json_dumps(input, JSON_ENCODE_ANY) : NULL;
  printf("FAIL %s: %s%s%.200s\n", id, what, s ? ": " : "", s ? s : "");
  free(s);
  R.failed++;
}

/* Checks every accept and reject string of a compiled grammar. */
static void check_strings(const char *id, const pd_grammar *g, json_t *c) {
  const char *keys[2] = {"accept", "reject"};
  for (int want = 1; want >= 0; want--) {
    size_t i;
    json_t *input;
    json_array_foreach(json_object_get(c, keys[1 - want]), i, input) {
      R.strings++;
      if (matches(g, input) == want) R.strings_ok++;
      else fail_case(id, want ? "accept string rejected" : "reject string accepted", input);
    }
  }
}

/* Compiles text; root NULL = "root". *err gets the message. */
static pd_status compile(const char *text, size_t len, const char *root, pd_grammar **g,
                         pd_error *err) {
  pd_grammar_options o = {.gbnf_root = root};
  return pd_grammar_compile_gbnf(text, len, R.vocab, &o, g, err);
}

/* One case: its grammar must compile unless must_fail; then the strings.
 * An expectations line overrides, and must describe what really happens. */
static void run_case(const char *id, const char *text, size_t len, const char *root, json_t *c,
                     int must_fail) {
  R.cases++;
  const char *exp = expected_outcome(id);
  if (exp && strcmp(exp, "not-gbnf") == 0) {
    R.expected++;
    return;
  }
  pd_grammar *g = NULL;
  pd_error err = {0};
  pd_status st = compile(text, len, root, &g, &err);
  const char *got = st == PD_OK ? "compiles" : "compile-error";
  if (exp) {
    if (strcmp(exp, got) == 0) R.expected++;
    else fail_case(id, "listed in conformance_expect.txt but behaves otherwise", NULL);
  } else if (must_fail != (st != PD_OK)) {
    fail_case(id, must_fail ? "must not compile, but compiles" : err.message, NULL);
  } else {
    R.cases_ok++;
  }
  if (g && !must_fail && c) check_strings(id, g, c);
  pd_grammar_free(g);
}

/* ---------------------------------------------------------------- files */

static json_t *load_json(const char *rel) {
  const char *path = pdt_data(rel);
  if (!path) return NULL;
  json_error_t jerr;
  json_t *j = json_load_file(path, JSON_ALLOW_NUL, &jerr);
  if (!j) printf("%s: %s\n", rel, jerr.text);
  assert_non_null(j);
  return j;
}

static void run_llamacpp(json_t *cases) {
  size_t i;
  json_t *c;
  json_array_foreach(cases, i, c) {
    if (strcmp(json_string_value(json_object_get(c, "kind")), "gbnf") != 0) continue;
    char id[128];
    snprintf(id, sizeof id, "llamacpp/%s", json_string_value(json_object_get(c, "name")));
    json_t *gram = json_object_get(c, "grammar");
    /* "expect" marks the build-failure cases: none of them may build upstream */
    int must_fail = json_object_get(c, "expect") != NULL;
    run_case(id, json_string_value(gram), json_string_length(gram), NULL, c, must_fail);
  }
}

static void run_parse_cases(json_t *file) {
  size_t i;
  json_t *c;
  json_array_foreach(json_object_get(file, "cases"), i, c) {
    char id[64];
    snprintf(id, sizeof id, "llamacpp-parse/%zu", i);
    json_t *gram = json_object_get(c, "grammar");
    int must_fail = strcmp(json_string_value(json_object_get(c, "expect")), "parse_error") == 0;
    run_case(id, json_string_value(gram), json_string_length(gram), NULL, NULL, must_fail);
  }
}

static void run_xgrammar(json_t *file) {
  size_t i, k = 0;
  json_t *c;
  json_array_foreach(json_object_get(file, "cases"), i, c) {
    if (strcmp(json_string_value(json_object_get(c, "kind")), "ebnf") != 0) continue;
    char id[64];
    snprintf(id, sizeof id, "xgrammar-ebnf/%zu", k++);
    json_t *gram = json_object_get(c, "grammar");
    const char *root = json_string_value(json_object_get(c, "root_rule_name"));
    run_case(id, json_string_value(gram), json_string_length(gram), root, c, 0);
  }
}

static void test_conformance(void **state) {
  (void)state;
  json_t *ll = load_json("conformance/llamacpp_grammar_cases.json");
  json_t *lp = load_json("conformance/llamacpp_gbnf_parse_cases.json");
  json_t *xg = load_json("conformance/xgrammar_cases.json");
  if (!ll || !lp || !xg) {
    json_decref(ll);
    json_decref(lp);
    json_decref(xg);
    skip();
  }
  load_expect();
  assert_int_equal(pdt_gbnf_vocab(NULL, &R.vocab), PD_OK);
  run_llamacpp(ll);
  run_parse_cases(lp);
  run_xgrammar(xg);
  for (size_t i = 0; i < R.n_expect; i++)
    if (!R.expect[i].used) fail_case(R.expect[i].id, "expectation names no case", NULL);
  printf("gbnf conformance: %ld cases (%ld as upstream, %ld expected differences), %ld strings "
         "checked, %ld passed, %ld failures\n", R.cases, R.cases_ok, R.expected, R.strings,
         R.strings_ok, R.failed);
  pd_vocab_free(R.vocab);
  json_decref(ll);
  json_decref(lp);
  json_decref(xg);
  assert_int_equal(R.failed, 0);
  assert_true(R.cases >= 70);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_conformance)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
