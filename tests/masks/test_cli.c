/* test_cli.c - the two CLI contracts: `pushdown mask` and `pushdown maskbench`.
 * argv[1] is the pushdown binary. Needs the Llama-3 tokenizer (skips without). */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *pdt__cli;
static char pdt__dir[256];

static void pdt__write(const char *name, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", pdt__dir, name);
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

/* Runs `pushdown args` in the temp dir; returns the exit code, stdout in out. */
static int pdt__run(const char *args, char *out, size_t cap) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "cd %s && '%s' %s 2>stderr.txt", pdt__dir, pdt__cli, args);
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  size_t n = fread(out, 1, cap - 1, p);
  out[n] = '\0';
  int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static const char *pdt__tok(void) {
  return pdt_data("tokenizers/llama3/tokenizer.json");
}

static void test_cli_mask(void **state) {
  (void)state;
  const char *tok = pdt__tok();
  if (!tok) skip();
  pd_vocab *v = NULL;
  assert_int_equal(pd_vocab_load_hf(tok, NULL, NULL, &v, NULL), PD_OK);
  pdt__write("g.gbnf", "root ::= \"ab\" | \"a\" [0-9]\n");
  pdt__write("after.txt", "a");
  pdt__write("bad.txt", "ax");
  static char out[1 << 20];
  char args[1024];
  snprintf(args, sizeof args, "mask --grammar g.gbnf --tokenizer '%s' --after-text after.txt",
           tok);
  assert_int_equal(pdt__run(args, out, sizeof out), 0);
  long prev = -1, count = 0;
  for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n"), count++) {
    long id = strtol(line, NULL, 10);
    assert_true(id > prev); /* ascending, one per line */
    prev = id;
    const uint8_t *b;
    size_t len;
    uint32_t flags;
    assert_int_equal(pd_vocab_token(v, (uint32_t)id, &b, &len, &flags), PD_OK);
    assert_true(len == 1 && (b[0] == 'b' || (b[0] >= '0' && b[0] <= '9')));
  }
  assert_int_equal(count, 11); /* "b" and the ten digits */
  snprintf(args, sizeof args, "mask --grammar g.gbnf --tokenizer '%s' --after-text bad.txt", tok);
  assert_int_equal(pdt__run(args, out, sizeof out), 1);
  assert_string_equal(out, "reject at byte 1\n");
  assert_int_equal(pdt__run("mask --grammar missing.gbnf", out, sizeof out), 2);
  pd_vocab_free(v);
}

/* The id of the one-character token c. */
static uint32_t pdt__id(const pd_vocab *v, const char *c) {
  uint32_t id = 0;
  assert_int_equal(pd_vocab_find(v, (const uint8_t *)c, 1, &id), PD_OK);
  return id;
}

/* A folder of two schemas: s.json's instances are "{}" (valid) and "{" and
 * "{x" (invalid), all judged right; t.json calls "{x" valid and "{}" invalid,
 * both judged wrong, so per schema it counts once as each kind of error. */
static void test_cli_maskbench(void **state) {
  (void)state;
  const char *tok = pdt__tok();
  if (!tok) skip();
  pd_vocab *v = NULL;
  assert_int_equal(pd_vocab_load_hf(tok, NULL, NULL, &v, NULL), PD_OK);
  uint32_t open_id = pdt__id(v, "{"), close_id = pdt__id(v, "}"), x_id = pdt__id(v, "x");
  char path[512], lines[1024];
  snprintf(path, sizeof path, "%s/mb", pdt__dir);
  mkdir(path, 0700);
  snprintf(path, sizeof path, "%s/mb/sub", pdt__dir);
  mkdir(path, 0700);
  pdt__write("mb/sub/s.json", "{\"schema\": {\"type\": \"object\"}, \"tests\": []}");
  pdt__write("mb/sub/t.json", "{\"schema\": {\"type\": \"object\"}, \"tests\": []}");
  snprintf(lines, sizeof lines,
           "{\"file\":\"sub/s.json\",\"test\":0,\"valid\":true,\"text\":\"{}\",\"llama3\":[%u,%u]}\n"
           "{\"file\":\"sub/s.json\",\"test\":1,\"valid\":false,\"text\":\"{\",\"llama3\":[%u]}\n"
           "{\"file\":\"sub/s.json\",\"test\":2,\"valid\":false,\"text\":\"{x\",\"llama3\":[%u,%u]}\n"
           "{\"file\":\"sub/t.json\",\"test\":0,\"valid\":true,\"text\":\"{x\",\"llama3\":[%u,%u]}\n"
           "{\"file\":\"sub/t.json\",\"test\":1,\"valid\":false,\"text\":\"{}\",\"llama3\":[%u,%u]}\n",
           open_id, close_id, open_id, open_id, x_id, open_id, x_id, open_id, close_id);
  pdt__write("mb/instances.jsonl", lines);
  pdt__write("obj.gbnf", "root ::= \"{\" \"}\"\n");
  static char out[1 << 16];
  char args[1024];
  snprintf(args, sizeof args, "maskbench mb --tokenizer '%s' --grammar obj.gbnf --json", tok);
  assert_int_equal(pdt__run(args, out, sizeof out), 0);
  char *last = strstr(out, "{\"tbm_us\"");
  assert_non_null(last);
  assert_string_equal(last + strlen(last) - 2, "}\n"); /* the last line is the object */
  assert_non_null(strstr(last, "\"ttfm_us\":{\"avg\""));
  assert_non_null(strstr(last, "\"p999\""));
  assert_non_null(strstr(last, "\"tbm_first_us\":{\"avg\""));
  assert_non_null(strstr(last, "\"tbm_later_us\":{\"avg\""));
  assert_non_null(strstr(out, "per schema (MaskBench's count): passing 1  compile_errors 0  "
                              "validation_errors 1  invalidation_errors 1"));
  assert_non_null(strstr(out, "timer floor (an empty span, timed alike) us: p50 "));
  assert_non_null(strstr(last, "\"schemas\":2,\"passing\":3,\"compile_errors\":0,"
                               "\"validation_errors\":1,\"invalidation_errors\":1,\"tokens\":9,"
                               "\"schemas_passing\":1,\"schemas_validation_errors\":1,"
                               "\"schemas_invalidation_errors\":1,\"brute_masks\":0,"
                               "\"brute_differences\":0,\"validation_errors_order_only\":0}"));
  /* --brute 1: every mask of each schema's first instance against brute
   * force: "{}" gives two, "{x" two (the second, before "x", is the last) */
  snprintf(args, sizeof args, "maskbench mb --tokenizer '%s' --grammar obj.gbnf --json --brute 1",
           tok);
  assert_int_equal(pdt__run(args, out, sizeof out), 0);
  assert_non_null(strstr(out, "brute force: 4 masks of 2 schemas compared over the whole "
                              "vocabulary, 0 differ\n"));
  assert_non_null(strstr(out, "\"brute_masks\":4,\"brute_differences\":0,"));
  assert_int_equal(pdt__run("maskbench mb --brute 0", out, sizeof out), 2);
  /* --slow 0: each of the 9 timed spans on stderr, with its place and the text before it */
  snprintf(args, sizeof args, "maskbench mb --tokenizer '%s' --grammar obj.gbnf --slow 0", tok);
  assert_int_equal(pdt__run(args, out, sizeof out), 0);
  snprintf(path, sizeof path, "%s/stderr.txt", pdt__dir);
  char *err = pdt_read_file(path, NULL);
  assert_non_null(err);
  size_t spans = 0;
  for (const char *p = err; (p = strstr(p, "slow: ")); p++) spans++;
  assert_int_equal(spans, 9);
  assert_non_null(strstr(err, "slow: sub/s.json test 0 token 0: "));
  assert_non_null(strstr(err, " after \"\" token \"{\"\n"));
  assert_non_null(strstr(err, "slow: sub/t.json test 0 token 1: "));
  assert_non_null(strstr(err, " after \"{\" token \"x\"\n"));
  free(err);
  assert_int_equal(pdt__run("maskbench mb --slow -1", out, sizeof out), 2);
  assert_int_equal(pdt__run("maskbench mb --slow", out, sizeof out), 2);
  pd_vocab_free(v);
}

/* Schema mode reads each schema as written: "minimum": 0.1 stays 0.1 (a
 * re-serialized 0.10000000000000001 would turn the instance 0.1 away). */
static void test_cli_maskbench_schema(void **state) {
  (void)state;
  const char *tok = pdt__tok();
  if (!tok) skip();
  pd_vocab *v = NULL;
  assert_int_equal(pd_vocab_load_hf(tok, NULL, NULL, &v, NULL), PD_OK);
  uint32_t zero = pdt__id(v, "0"), dot = pdt__id(v, "."), one = pdt__id(v, "1");
  char path[512], lines[1024];
  snprintf(path, sizeof path, "%s/mbs", pdt__dir);
  mkdir(path, 0700);
  pdt__write("mbs/n.json", "{\"tests\": [], \"schema\" : {\"type\": \"number\", "
                           "\"minimum\": 0.1, \"title\": \"a [\\\"}\"}}");
  snprintf(lines, sizeof lines,
           "{\"file\":\"n.json\",\"test\":0,\"valid\":true,\"text\":\"0.1\",\"llama3\":[%u,%u,%u]}\n"
           "{\"file\":\"n.json\",\"test\":1,\"valid\":false,\"text\":\"0.0\",\"llama3\":[%u,%u,%u]}\n",
           zero, dot, one, zero, dot, zero);
  pdt__write("mbs/instances.jsonl", lines);
  static char out[1 << 16];
  char args[1024];
  snprintf(args, sizeof args, "maskbench mbs --tokenizer '%s' --json", tok);
  assert_int_equal(pdt__run(args, out, sizeof out), 0);
  assert_non_null(strstr(out, "\"schemas\":1,\"passing\":2,\"compile_errors\":0,"
                              "\"validation_errors\":0,\"invalidation_errors\":0,"));
  pd_vocab_free(v);
}

/* A valid instance whose properties come in another order than declared is
 * rejected (the default order), counted as accepted by a grammar in any
 * order, and accepted with --any-order. */
static void test_cli_maskbench_order(void **state) {
  (void)state;
  const char *tok = pdt__tok();
  if (!tok) skip();
  pd_vocab *v = NULL;
  assert_int_equal(pd_vocab_load_hf(tok, NULL, NULL, &v, NULL), PD_OK);
  const char *text = "{\"b\":1,\"a\":2}";
  char path[512], lines[1024], ids[256] = "";
  for (const char *c = text; *c; c++) {
    char one[2] = {*c, 0};
    snprintf(ids + strlen(ids), sizeof ids - strlen(ids), "%s%u", c == text ? "" : ",",
             pdt__id(v, one));
  }
  snprintf(path, sizeof path, "%s/mbo", pdt__dir);
  mkdir(path, 0700);
  pdt__write("mbo/o.json", "{\"schema\": {\"properties\": {\"a\": {\"type\": \"integer\"}, "
                           "\"b\": {\"type\": \"integer\"}}, \"additionalProperties\": false}}");
  snprintf(lines, sizeof lines, "{\"file\":\"o.json\",\"test\":0,\"valid\":true,\"llama3\":[%s]}\n",
           ids);
  pdt__write("mbo/instances.jsonl", lines);
  static char out[1 << 16];
  char args[1024];
  snprintf(args, sizeof args, "maskbench mbo --tokenizer '%s' --json", tok);
  assert_int_equal(pdt__run(args, out, sizeof out), 0);
  assert_non_null(strstr(out, "\"passing\":0,\"compile_errors\":0,\"validation_errors\":1,"));
  assert_non_null(strstr(out, "\"validation_errors_order_only\":1}"));
  snprintf(args, sizeof args, "maskbench mbo --tokenizer '%s' --json --any-order", tok);
  assert_int_equal(pdt__run(args, out, sizeof out), 0);
  assert_non_null(strstr(out, "\"passing\":1,\"compile_errors\":0,\"validation_errors\":0,"));
  pd_vocab_free(v);
}

int main(int argc, char **argv) {
  if (argc < 2) return 77;
  pdt__cli = argv[1];
  snprintf(pdt__dir, sizeof pdt__dir, "/tmp/pdt_masks_cli_XXXXXX");
  if (!mkdtemp(pdt__dir)) return 1;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cli_mask),
      cmocka_unit_test(test_cli_maskbench),
      cmocka_unit_test(test_cli_maskbench_schema),
      cmocka_unit_test(test_cli_maskbench_order),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", pdt__dir);
  if (system(cmd) != 0) rc = rc ? rc : 1;
  return rc;
}
