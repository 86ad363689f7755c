/* encode.c - `pushdown encode`: canonical token ids of texts.
 *
 *   pushdown encode --tokenizer T [--batch FILE]
 *       stdin (one text) or FILE (one JSON string per line): one line of
 *       space-separated ids per input. T is a tokenizer.json, or a GGUF file
 *       when its name ends in .gguf.
 *   pushdown encode --tokenizer T --check FILE [--field NAME]
 *       FILE is JSON lines {"text": ..., NAME: [ids]} (NAME defaults to llama3):
 *       prints how many encode to exactly the listed ids, the first mismatches,
 *       the load time and the encode throughput; exit 0 when all match, else 1. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "util.h"

typedef struct pd__enc_args {
  const char *tokenizer, *batch, *check, *field;
} pd__enc_args;

static int pd__enc_parse(int argc, char **argv, pd__enc_args *a) {
  *a = (pd__enc_args){.field = "llama3"};
  for (int i = 1; i < argc; i++) {
    const char **slot = !strcmp(argv[i], "--tokenizer") ? &a->tokenizer
                        : !strcmp(argv[i], "--batch")   ? &a->batch
                        : !strcmp(argv[i], "--check")   ? &a->check
                        : !strcmp(argv[i], "--field")   ? &a->field
                                                        : NULL;
    if (!slot) return pd_cli_usage("encode: unknown argument '%s'", argv[i]);
    if (i + 1 >= argc) return pd_cli_usage("encode: %s needs a value", argv[i]);
    *slot = argv[++i];
  }
  if (!a->tokenizer) a->tokenizer = pd_cli_default_tokenizer();
  if (!a->tokenizer) return pd_cli_usage("encode: --tokenizer is required");
  if (a->batch && a->check) return pd_cli_usage("encode: --batch and --check exclude each other");
  return 0;
}

static int pd__enc_print(const pd_vocab *v, const char *text, size_t len) {
  uint32_t *ids;
  size_t n;
  pd_error err;
  if (pd_vocab_encode(v, (const uint8_t *)text, len, &ids, &n, &err))
    return pd_cli_fail("encode", &err);
  for (size_t i = 0; i < n; i++) printf(i ? " %u" : "%u", ids[i]);
  putchar('\n');
  pd_free_ids(v, ids);
  return 0;
}

/* Calls each(v, json, ctx) for every line of path parsed as JSON. */
static int pd__enc_lines(const pd_vocab *v, const char *path,
                         int (*each)(const pd_vocab *, json_t *, size_t, void *), void *ctx) {
  FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
  if (!f) return pd_cli_usage("encode: cannot open '%s'", path);
  char *line = NULL;
  size_t cap = 0, no = 0;
  ssize_t got;
  int rc = 0;
  while (!rc && (got = getline(&line, &cap, f)) >= 0) {
    no++;
    if (got == 0 || (got == 1 && line[0] == '\n')) continue;
    json_error_t je;
    json_t *j = json_loadb(line, (size_t)got, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
    if (!j)
      rc = pd_cli_usage("encode: %s:%zu: %s", path, no, je.text);
    else
      rc = each(v, j, no, ctx);
    json_decref(j);
  }
  free(line);
  if (f != stdin) fclose(f);
  return rc;
}

static int pd__enc_batch_line(const pd_vocab *v, json_t *j, size_t no, void *ctx) {
  (void)ctx;
  if (!json_is_string(j)) return pd_cli_usage("encode: line %zu is not a JSON string", no);
  return pd__enc_print(v, json_string_value(j), json_string_length(j));
}

typedef struct pd__enc_tally {
  const char *field;
  size_t total, same, tokens, shown;
  double ns, cpu_ns;
} pd__enc_tally;

/* CPU time of this process: on a shared machine wall time also counts the others. */
static double pd__cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static bool pd__enc_same(const uint32_t *ids, size_t n, const json_t *want) {
  if (json_array_size(want) != n) return false;
  for (size_t i = 0; i < n; i++)
    if (json_integer_value(json_array_get(want, i)) != (json_int_t)ids[i]) return false;
  return true;
}

static int pd__enc_check_line(const pd_vocab *v, json_t *j, size_t no, void *ctx) {
  pd__enc_tally *c = ctx;
  json_t *text = json_object_get(j, "text"), *want = json_object_get(j, c->field);
  if (!json_is_string(text) || !json_is_array(want))
    return pd_cli_usage("encode: line %zu has no \"text\" string and \"%s\" array", no, c->field);
  uint32_t *ids;
  size_t n;
  pd_error err;
  double t0 = pd_cli_now_ns(), c0 = pd__cpu_ns();
  if (pd_vocab_encode(v, (const uint8_t *)json_string_value(text), json_string_length(text), &ids,
                      &n, &err))
    return pd_cli_fail("encode", &err);
  c->ns += pd_cli_now_ns() - t0;
  c->cpu_ns += pd__cpu_ns() - c0;
  c->total++;
  c->tokens += n;
  if (pd__enc_same(ids, n, want))
    c->same++;
  else if (c->shown++ < 5) {
    fprintf(stderr, "mismatch at line %zu: %.200s\n  got ", no, json_string_value(text));
    for (size_t i = 0; i < n; i++) fprintf(stderr, " %u", ids[i]);
    fprintf(stderr, "\n  want");
    for (size_t i = 0; i < json_array_size(want); i++)
      fprintf(stderr, " %lld", (long long)json_integer_value(json_array_get(want, i)));
    fputc('\n', stderr);
  }
  pd_free_ids(v, ids);
  return 0;
}

static int pd__enc_check(const pd_vocab *v, const pd__enc_args *a, double load_ns,
                         double load_cpu_ns) {
  pd__enc_tally c = {.field = a->field};
  int rc = pd__enc_lines(v, a->check, pd__enc_check_line, &c);
  if (rc) return rc;
  printf("%zu/%zu texts encode to the \"%s\" ids\n", c.same, c.total, a->field);
  printf("load %.1f ms (%.1f ms CPU); encode %zu tokens in %.1f ms, %.1f ms CPU "
         "(%.0f tokens per CPU second)\n",
         load_ns / 1e6, load_cpu_ns / 1e6, c.tokens, c.ns / 1e6, c.cpu_ns / 1e6,
         c.cpu_ns > 0 ? (double)c.tokens / (c.cpu_ns / 1e9) : 0.0);
  return c.same == c.total ? 0 : 1;
}

int pd_cli_encode(int argc, char **argv) {
  pd__enc_args a;
  int rc = pd__enc_parse(argc, argv, &a);
  if (rc) return rc;
  pd_vocab *v;
  pd_error err;
  double t0 = pd_cli_now_ns(), c0 = pd__cpu_ns();
  size_t tl = strlen(a.tokenizer);
  pd_status st = tl > 5 && !strcmp(a.tokenizer + tl - 5, ".gguf")
                     ? pd_vocab_load_gguf(a.tokenizer, NULL, &v, &err)
                     : pd_vocab_load_hf(a.tokenizer, NULL, NULL, &v, &err);
  if (st) return pd_cli_fail(a.tokenizer, &err);
  double load_ns = pd_cli_now_ns() - t0, load_cpu_ns = pd__cpu_ns() - c0;
  if (a.check)
    rc = pd__enc_check(v, &a, load_ns, load_cpu_ns);
  else if (a.batch)
    rc = pd__enc_lines(v, a.batch, pd__enc_batch_line, NULL);
  else {
    size_t len;
    char *text = pd_cli_read_file("-", &len);
    rc = text ? pd__enc_print(v, text, len) : pd_cli_usage("encode: cannot read stdin");
    free(text);
  }
  pd_vocab_free(v);
  return rc;
}
