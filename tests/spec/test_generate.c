/* test_generate.c - `pushdown generate` as a user runs it: argument errors,
 * the --json contract, and greedy speculative output equal to plain greedy. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support.h"

static const char *pdt_cli;
static char pdt_corpus[64];
static char pdt_grammar[64];

/* Runs the CLI with args; returns its exit code, stdout in *out (malloc'd). */
static int pdt__run(const char *args, char **out) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' generate %s 2>/dev/null", pdt_cli, args);
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  assert_non_null(buf);
  for (size_t got; (got = fread(buf + n, 1, cap - 1 - n, p)) > 0;) {
    n += got;
    if (n + 1 == cap) buf = realloc(buf, cap *= 2);
    assert_non_null(buf);
  }
  buf[n] = '\0';
  int status = pclose(p);
  if (out) *out = buf;
  else free(buf);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_argument_errors(void **state) {
  (void)state;
  assert_int_equal(pdt__run("--regex 'a+'", NULL), 2); /* no corpus */
  assert_int_equal(pdt__run("--regex a --grammar x --corpus /dev/null", NULL), 2);
  assert_int_equal(pdt__run("--regex a --corpus /dev/null --n 0", NULL), 2);
  assert_int_equal(pdt__run("--regex a --corpus /dev/null --temperature -1", NULL), 2);
  assert_int_equal(pdt__run("--regex a --corpus /dev/null --draft-k x", NULL), 2);
  assert_int_equal(pdt__run("--regex a --corpus /dev/null --bogus 1", NULL), 2);
  assert_int_equal(pdt__run("--regex a --corpus /nonexistent/corpus", NULL), 2);
}

/* Parses the --json lines; checks the six keys; returns the texts joined. */
static char *pdt__texts(const char *out, size_t want_lines, int k) {
  size_t cap = strlen(out) + 1, n = 0, lines = 0;
  char *texts = calloc(cap, 1);
  for (const char *l = out; *l; lines++) {
    const char *e = strchr(l, '\n');
    assert_non_null(e);
    json_t *j = json_loadb(l, (size_t)(e - l), 0, NULL);
    assert_non_null(j);
    const char *keys[] = {"tokens", "drafted", "accepted", "forced"};
    for (int i = 0; i < 4; i++) assert_true(json_is_integer(json_object_get(j, keys[i])));
    assert_true(json_is_boolean(json_object_get(j, "finished")));
    assert_true(json_integer_value(json_object_get(j, "accepted")) <=
                json_integer_value(json_object_get(j, "drafted")));
    if (!k) assert_int_equal(json_integer_value(json_object_get(j, "drafted")), 0);
    const char *t = json_string_value(json_object_get(j, "text"));
    assert_non_null(t);
    n += (size_t)snprintf(texts + n, cap - n, "%s|", t);
    json_decref(j);
    l = e + 1;
  }
  assert_int_equal(lines, want_lines);
  return texts;
}

static void test_json_contract_and_greedy_equality(void **state) {
  (void)state;
  const char *tok = pdt_data("tokenizers/llama3/tokenizer.json");
  if (!tok) skip();
  char args[2048], *plain, *spec, *out;
  const char *common = "--grammar '%s' --tokenizer '%s' --corpus '%s' --n 3 --temperature 0 "
                       "--max-tokens 30 --json --draft-k %d";
  snprintf(args, sizeof args, common, pdt_grammar, tok, pdt_corpus, 0);
  assert_int_equal(pdt__run(args, &out), 0);
  plain = pdt__texts(out, 3, 0);
  free(out);
  snprintf(args, sizeof args, common, pdt_grammar, tok, pdt_corpus, 4);
  assert_int_equal(pdt__run(args, &out), 0);
  spec = pdt__texts(out, 3, 4);
  free(out);
  assert_string_equal(plain, spec);
  assert_true(strstr(plain, "{\"name\": ") == plain);
  free(plain);
  free(spec);
}

static int pdt__setup(void **state) {
  (void)state;
  strcpy(pdt_corpus, "/tmp/pdt_gen_corpusXXXXXX");
  strcpy(pdt_grammar, "/tmp/pdt_gen_grammarXXXXXX");
  int fc = mkstemp(pdt_corpus), fg = mkstemp(pdt_grammar);
  if (fc < 0 || fg < 0) return -1;
  FILE *c = fdopen(fc, "w"), *g = fdopen(fg, "w");
  static const char *names[] = {"ada", "bob", "carol", "dave", "eve", "frank"};
  for (int i = 0; i < 60; i++)
    fprintf(c, "{\"name\": \"%s\", \"age\": %d}\n", names[i % 6], 20 + i * 7 % 50);
  fputs("root ::= \"{\\\"name\\\": \\\"\" [a-z]+ \"\\\", \\\"age\\\": \" [1-9] [0-9] \"}\"\n", g);
  fclose(c);
  fclose(g);
  return 0;
}

static int pdt__teardown(void **state) {
  (void)state;
  unlink(pdt_corpus);
  unlink(pdt_grammar);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  pdt_cli = argv[1];
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_argument_errors),
      cmocka_unit_test(test_json_contract_and_greedy_equality),
  };
  return cmocka_run_group_tests(tests, pdt__setup, pdt__teardown);
}
