/* test_random.c - differential check against Python's re: random patterns
 * over ASCII (gen_random_cases.py, where re and ECMA-262 agree) with Python's
 * recorded verdicts for the whole string and for a search. A longer run:
 *   python3 gen_random_cases.py 20000 > /tmp/big.tsv
 *   PDT_REGEX_CASES=/tmp/big.tsv build/tests/regex/test_random */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regex_check.h"
#include "support.h"

#ifndef PDT_REGEX_DIR
#error "PDT_REGEX_DIR must name tests/regex"
#endif

typedef struct tsv_line {
  char *pattern, *text;
  int full, search;
} tsv_line;

/* Splits one line "pattern TAB text TAB full TAB search" in place. */
static bool split_line(char *line, tsv_line *out) {
  char *f[4];
  f[0] = line;
  for (int i = 1; i < 4; i++) {
    char *tab = strchr(f[i - 1], '\t');
    if (!tab) return false;
    *tab = '\0';
    f[i] = tab + 1;
  }
  *out = (tsv_line){f[0], f[1], atoi(f[2]), atoi(f[3])};
  return true;
}

/* Every line of a file of Python's verdicts (gen_random_cases.py). */
static void check_python_file(const char *path, const char *what) {
  size_t len;
  char *data = pdt_read_file(path, &len);
  assert_non_null(data);
  char last[512] = "";
  pdt_regex *r = NULL;
  long lines = 0, patterns = 0, wrong = 0, via_matcher = 0;
  for (char *line = strtok(data, "\n"); line; line = strtok(NULL, "\n")) {
    tsv_line t = {0};
    assert_true(split_line(line, &t));
    if (!r || strcmp(last, t.pattern) != 0) {
      pdt_regex_free(r);
      pd_status st;
      pd_error err;
      r = pdt_regex_new(t.pattern, strlen(t.pattern), &st, &err);
      if (!r) print_error("/%s/: %s\n", t.pattern, err.message);
      assert_non_null(r);
      snprintf(last, sizeof last, "%s", t.pattern);
      patterns++;
      via_matcher += pdt_regex_has_matcher(r);
    }
    size_t n = strlen(t.text);
    int full = pdt_regex_verdict(r, t.text, n, false),
        search = pdt_regex_verdict(r, t.text, n, true);
    if (full != t.full || search != t.search) {
      print_error("/%s/ on \"%s\": full %d (re %d), search %d (re %d)\n", t.pattern, t.text, full,
                  t.full, search, t.search);
      wrong++;
    }
    lines++;
  }
  pdt_regex_free(r);
  free(data);
  printf(
      "python re differential%s: %ld patterns, %ld strings x 2 verdicts, %ld differ, "
      "%ld patterns also through the matcher\n",
      what, patterns, lines, wrong, via_matcher);
  assert_true(lines > 1000);
  assert_int_equal(wrong, 0);
}

static void test_python_verdicts(void **state) {
  (void)state;
  /* PDT_REGEX_CASES: a bigger file from gen_random_cases.py, for a long run */
  const char *path = getenv("PDT_REGEX_CASES");
  check_python_file(path ? path : PDT_REGEX_DIR "/random_cases.tsv", "");
}

/* Top-level lookarounds (gen_random_cases.py --look), exact as products. */
static void test_python_lookarounds(void **state) {
  (void)state;
  const char *path = getenv("PDT_REGEX_LOOK_CASES");
  check_python_file(path ? path : PDT_REGEX_DIR "/look_cases.tsv", ", lookarounds");
}

/* Decodes hex in place (the node file's fields); returns the byte length. */
static size_t unhex(char *s) {
  size_t n = 0;
  for (const char *p = s; p[0] && p[1]; p += 2) {
    unsigned v;
    sscanf(p, "%2x", &v);
    s[n++] = (char)v;
  }
  s[n] = '\0';
  return n;
}

/* The verdicts of V8 (RegExp with the u flag) on patterns with Unicode
 * escapes, classes and anchors, and strings with non-ASCII characters and
 * line terminators (gen_node_cases.js). */
static void test_node_verdicts(void **state) {
  (void)state;
  const char *path = getenv("PDT_REGEX_NODE_CASES");
  char *data = pdt_read_file(path ? path : PDT_REGEX_DIR "/node_cases.tsv", NULL);
  assert_non_null(data);
  char last[1024] = "";
  pdt_regex *r = NULL;
  long lines = 0, patterns = 0, wrong = 0, via_matcher = 0;
  for (char *line = strtok(data, "\n"); line; line = strtok(NULL, "\n")) {
    tsv_line t = {0};
    assert_true(split_line(line, &t));
    if (!r || strcmp(last, t.pattern) != 0) {
      pdt_regex_free(r);
      snprintf(last, sizeof last, "%s", t.pattern);
      size_t plen = unhex(t.pattern);
      pd_status st;
      pd_error err;
      r = pdt_regex_new(t.pattern, plen, &st, &err);
      if (!r) print_error("/%s/: %s\n", t.pattern, err.message);
      assert_non_null(r);
      patterns++;
      via_matcher += pdt_regex_has_matcher(r);
    }
    size_t n = unhex(t.text);
    int full = pdt_regex_verdict(r, t.text, n, false),
        search = pdt_regex_verdict(r, t.text, n, true);
    if (full != t.full || search != t.search) {
      print_error("/%s/ on hex %s: full %d (V8 %d), search %d (V8 %d)\n", last,
                  line + strlen(line) + 1, full, t.full, search, t.search);
      wrong++;
    }
    lines++;
  }
  pdt_regex_free(r);
  free(data);
  printf(
      "V8 differential: %ld patterns, %ld strings x 2 verdicts, %ld differ, "
      "%ld patterns also through the matcher\n",
      patterns, lines, wrong, via_matcher);
  assert_true(lines > 1000);
  assert_int_equal(wrong, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_python_verdicts),
      cmocka_unit_test(test_python_lookarounds),
      cmocka_unit_test(test_node_verdicts),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
