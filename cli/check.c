/* check.c - `pushdown check`: does an input belong to a grammar's language?
 *
 *   pushdown check (--grammar FILE | --schema FILE | --regex PATTERN) [--prefix]
 *                  [--input FILE | --batch FILE] [--any-order] [--strict] [--lenient]
 *                  [--schema-doc URI=FILE ...]
 *
 * The last four are the JSON Schema options of pd_grammar_options; each
 * --schema-doc gives a document a $ref may name by URI.
 *
 * Prints `accept` (exit 0) or `reject at byte N` (exit 1); with --batch, one
 * verdict per line of FILE (each a JSON string) and exit 0; errors: exit 2. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "util.h"

#define PD__MAX_DOCS 64

typedef struct pd__check_args {
  const char *grammar, *schema, *regex, *input, *batch;
  bool prefix;
  pd_grammar_options opts;
  const char *doc_args[PD__MAX_DOCS];
  size_t n_docs;
} pd__check_args;

static int pd__check_parse(int argc, char **argv, pd__check_args *a) {
  memset(a, 0, sizeof *a);
  for (int i = 1; i < argc; i++) {
    const char *o = argv[i];
    const char **slot = !strcmp(o, "--grammar")  ? &a->grammar
                        : !strcmp(o, "--schema") ? &a->schema
                        : !strcmp(o, "--regex")  ? &a->regex
                        : !strcmp(o, "--input")  ? &a->input
                        : !strcmp(o, "--batch")  ? &a->batch
                                                 : NULL;
    if (!strcmp(o, "--prefix")) {
      a->prefix = true;
    } else if (!strcmp(o, "--any-order")) {
      a->opts.any_order = true;
    } else if (!strcmp(o, "--strict")) {
      a->opts.strict = true;
    } else if (!strcmp(o, "--lenient")) {
      a->opts.lenient = true;
    } else if (!strcmp(o, "--schema-doc") && i + 1 < argc) {
      if (a->n_docs == PD__MAX_DOCS || !strchr(argv[i + 1], '='))
        return pd_cli_usage("check: --schema-doc takes URI=FILE, at most %d times", PD__MAX_DOCS);
      a->doc_args[a->n_docs++] = argv[++i];
    } else if (!slot) {
      return pd_cli_usage("check: unknown argument '%s'", o);
    } else if (i + 1 >= argc) {
      return pd_cli_usage("check: %s needs a value", o);
    } else {
      *slot = argv[++i];
    }
  }
  if (!!a->grammar + !!a->schema + !!a->regex != 1)
    return pd_cli_usage(
        "check: give exactly one of --grammar FILE, --schema FILE, --regex PATTERN");
  if (a->input && a->batch) return pd_cli_usage("check: --input and --batch exclude each other");
  return 0;
}

/* Compiles the grammar named by the arguments; exit code 2 on failure. */
static int pd__check_compile(const pd__check_args *a, pd_grammar **g) {
  pd_error err = {0};
  pd_status s;
  if (a->regex) {
    s = pd_grammar_compile_regex(a->regex, strlen(a->regex), NULL, NULL, g, &err);
    return s ? pd_cli_fail("regex", &err) : 0;
  }
  const char *path = a->grammar ? a->grammar : a->schema;
  size_t len;
  char *text = pd_cli_read_file(path, &len);
  if (!text) return pd_cli_usage("cannot read '%s'", path);
  pd_schema_doc docs[PD__MAX_DOCS];
  char *uris[PD__MAX_DOCS];
  size_t n = 0;
  int rc = 0;
  for (; n < a->n_docs && !rc; n++) { /* URI=FILE */
    const char *eq = strchr(a->doc_args[n], '=');
    uris[n] = strndup(a->doc_args[n], (size_t)(eq - a->doc_args[n]));
    docs[n] = (pd_schema_doc){uris[n], NULL, 0};
    docs[n].json = pd_cli_read_file(eq + 1, &docs[n].len);
    if (!uris[n] || !docs[n].json) rc = pd_cli_usage("cannot read '%s'", eq + 1);
  }
  pd_grammar_options o = a->opts;
  o.schema_docs = docs, o.n_schema_docs = n;
  if (rc)
    s = PD_ERR_IO;
  else if (a->grammar)
    s = pd_grammar_compile_gbnf(text, len, NULL, NULL, g, &err);
  else
    s = pd_grammar_compile_json_schema(text, len, NULL, &o, g, &err);
  free(text);
  for (size_t i = 0; i < n; i++) {
    free(uris[i]);
    free((char *)docs[i].json);
  }
  if (rc) return rc;
  if (s && !err.message[0]) snprintf(err.message, sizeof err.message, "%s", pd_status_str(s));
  return s ? pd_cli_fail(path, &err) : 0;
}

/* Prints the verdict of one input; 0 accept, 1 reject, 2 error. */
static int pd__check_one(pd_matcher *m, const uint8_t *text, size_t len, bool prefix) {
  pd_error err = {0};
  size_t n_ok = 0;
  pd_matcher_reset(m);
  pd_status s = pd_matcher_accept_bytes(m, text, len, &n_ok, &err);
  if (s && s != PD_ERR_REJECTED) return pd_cli_fail("input", &err);
  if (s)
    n_ok = n_ok < len ? n_ok : len;
  else if (!prefix && !pd_matcher_is_accepting(m))
    n_ok = len;
  else {
    printf("accept\n");
    return 0;
  }
  printf("reject at byte %zu\n", n_ok);
  return 1;
}

/* Each line a JSON string (NUL allowed); one verdict per line. */
static int pd__check_batch(pd_matcher *m, const char *path, bool prefix) {
  size_t len;
  char *text = pd_cli_read_file(path, &len);
  if (!text) return pd_cli_usage("cannot read '%s'", path);
  size_t line_no = 0;
  int rc = 0;
  for (size_t at = 0; at < len && rc != 2;) {
    size_t end = at;
    while (end < len && text[end] != '\n') end++;
    size_t n = end - at;
    if (n && text[at + n - 1] == '\r') n--;
    line_no++;
    json_error_t jerr;
    json_t *j = json_loadb(text + at, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
    if (!j || !json_is_string(j)) {
      rc = pd_cli_usage("%s:%zu: the line is not a JSON string", path, line_no);
    } else if (pd__check_one(m, (const uint8_t *)json_string_value(j), json_string_length(j),
                             prefix) == 2) {
      rc = 2;
    }
    json_decref(j);
    at = end + 1;
  }
  free(text);
  return rc;
}

int pd_cli_check(int argc, char **argv) {
  pd__check_args a;
  int rc = pd__check_parse(argc, argv, &a);
  if (rc) return rc;
  pd_grammar *g = NULL;
  if ((rc = pd__check_compile(&a, &g))) return rc;
  pd_matcher *m = NULL;
  pd_error err = {0};
  if (pd_matcher_new(g, &m, &err)) {
    pd_grammar_free(g);
    return pd_cli_fail("matcher", &err);
  }
  if (a.batch) {
    rc = pd__check_batch(m, a.batch, a.prefix);
  } else {
    size_t len;
    char *text = pd_cli_read_file(a.input ? a.input : "-", &len);
    rc = text ? pd__check_one(m, (const uint8_t *)text, len, a.prefix)
              : pd_cli_usage("cannot read '%s'", a.input ? a.input : "stdin");
    free(text);
  }
  fflush(stdout);
  pd_matcher_free(m);
  pd_grammar_free(g);
  return rc;
}
