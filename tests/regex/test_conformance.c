/* test_conformance.c - the `regex` cases of the shared conformance data
 * (xgrammar_cases.json): every accept string matches as a whole, every reject
 * string does not. Cases that differ by design are listed, with the reason,
 * in conformance_differences.txt: "pattern TAB status TAB reason", and must
 * fail to compile with that status. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regex_check.h"
#include "support.h"

typedef struct counts {
  long cases, strings, passed, by_design, failed, unchecked;
} counts;

/* The status the differences file expects for pattern, or PD_OK when absent. */
static pd_status expected_difference(const char *diffs, const char *pattern) {
  size_t plen = strlen(pattern);
  for (const char *line = diffs; line && *line; line = strchr(line, '\n')) {
    line += *line == '\n';
    if (*line == '#') continue;
    const char *tab = strchr(line, '\t');
    if (!tab || (size_t)(tab - line) != plen || memcmp(line, pattern, plen) != 0) continue;
    const char *status = tab + 1;
    for (int s = PD_OK; s <= PD_ERR_INTERNAL; s++) {
      const char *name = pd_status_str((pd_status)s);
      if (strncmp(status, name, strlen(name)) == 0 && status[strlen(name)] == '\t')
        return (pd_status)s;
    }
  }
  return PD_OK;
}

static void check_strings(pdt_regex *r, json_t *list, int want, counts *c, const char *pattern) {
  size_t i;
  json_t *s;
  json_array_foreach(list, i, s) {
    c->strings++;
    int v = pdt_regex_verdict(r, json_string_value(s), json_string_length(s), false);
    if (v < 0) { /* too long for the IR interpreter, and no matcher built */
      c->unchecked++;
      continue;
    }
    if (v == want) {
      c->passed++;
      continue;
    }
    c->failed++;
    print_error("/%s/ should %s \"%s\"\n", pattern, want ? "accept" : "reject",
                json_string_value(s));
  }
}

static void run_case(json_t *cs, const char *diffs, counts *c) {
  json_t *rx = json_object_get(cs, "regex");
  const char *pattern = json_string_value(rx);
  size_t len = json_string_length(rx);
  pd_status want = expected_difference(diffs, pattern), st;
  pd_error err;
  c->cases++;
  pdt_regex *r = pdt_regex_new(pattern, len, &st, &err);
  if (want != PD_OK) {
    if (st == want) {
      c->by_design++;
    } else {
      c->failed++;
      print_error("/%s/: expected %s, got %s\n", pattern, pd_status_str(want), pd_status_str(st));
    }
    pdt_regex_free(r);
    return;
  }
  if (!r) {
    c->failed++;
    print_error("/%s/: %s\n", pattern, err.message);
    return;
  }
  check_strings(r, json_object_get(cs, "accept"), 1, c, pattern);
  check_strings(r, json_object_get(cs, "reject"), 0, c, pattern);
  pdt_regex_free(r);
}

static void test_xgrammar_regex_cases(void **state) {
  (void)state;
  const char *path = pdt_data("conformance/xgrammar_cases.json");
  if (!path) skip();
  json_error_t jerr;
  json_t *root = json_load_file(path, JSON_ALLOW_NUL, &jerr);
  assert_non_null(root);
  char *diffs = pdt_read_file(PDT_REGEX_DIR "/conformance_differences.txt", NULL);
  assert_non_null(diffs);
  counts c = {0};
  size_t i;
  json_t *cs;
  json_array_foreach(json_object_get(root, "cases"), i, cs) {
    const char *kind = json_string_value(json_object_get(cs, "kind"));
    if (kind && strcmp(kind, "regex") == 0) run_case(cs, diffs, &c);
  }
  printf(
      "xgrammar regex cases: %ld cases, %ld strings; %ld strings pass, %ld fail; "
      "%ld unchecked (too long without a matcher); "
      "%ld cases differ by design (conformance_differences.txt)\n",
      c.cases, c.strings, c.passed, c.failed, c.unchecked, c.by_design);
  free(diffs);
  json_decref(root);
  assert_true(c.cases > 0);
  assert_int_equal(c.failed, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_xgrammar_regex_cases),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
