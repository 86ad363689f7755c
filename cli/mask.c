/* mask.c - `pushdown mask`: the allowed token ids after a text.
 *
 *   pushdown mask --grammar FILE --tokenizer tokenizer.json [--after-text FILE]
 *                 [--vocab-size N]
 *
 * Prints the allowed ids one per line, ascending (exit 0); `reject at byte N`
 * when the text is not a viable prefix (exit 1); `error: ...` (exit 2). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "util.h"

typedef struct pd__mask_args {
  const char *grammar, *tokenizer, *after;
  unsigned long width;
} pd__mask_args;

static int pd__mask_parse(int argc, char **argv, pd__mask_args *a) {
  for (int i = 1; i < argc; i++) {
    const char *o = argv[i];
    if (i + 1 >= argc) return pd_cli_usage("mask: %s needs a value", o);
    const char *val = argv[++i];
    if (!strcmp(o, "--grammar")) {
      a->grammar = val;
    } else if (!strcmp(o, "--tokenizer")) {
      a->tokenizer = val;
    } else if (!strcmp(o, "--after-text")) {
      a->after = val;
    } else if (!strcmp(o, "--vocab-size")) {
      char *end;
      a->width = strtoul(val, &end, 10);
      if (*end || !*val || a->width == 0 || a->width > UINT32_MAX)
        return pd_cli_usage("mask: bad --vocab-size '%s'", val);
    } else {
      return pd_cli_usage("mask: unknown option '%s'", o);
    }
  }
  if (!a->tokenizer) a->tokenizer = pd_cli_default_tokenizer();
  if (!a->grammar) return pd_cli_usage("mask: --grammar FILE is required");
  if (!a->tokenizer) return pd_cli_usage("mask: --tokenizer FILE is required");
  return 0;
}

/* Prints the set bits of the row, ascending, one per line. */
static void pd__mask_print(const uint32_t *words, size_t n_words) {
  for (size_t w = 0; w < n_words; w++)
    for (uint32_t x = words[w]; x; x &= x - 1)
      printf("%zu\n", w * 32 + (size_t)__builtin_ctz(x));
}

/* Feeds the text, then prints the mask; returns the exit code. */
static int pd__mask_run(pd_matcher *m, const char *after, size_t width) {
  pd_error err;
  if (after) {
    size_t len, n_ok = 0;
    char *text = pd_cli_read_file(after, &len);
    if (!text) return pd_cli_usage("mask: cannot read '%s'", after);
    pd_status st = pd_matcher_accept_bytes(m, (const uint8_t *)text, len, &n_ok, &err);
    free(text);
    if (st == PD_ERR_REJECTED) {
      printf("reject at byte %zu\n", n_ok);
      return 1;
    }
    if (st != PD_OK) return pd_cli_fail("mask: accepting the text", &err);
  }
  size_t n_words = (width + 31) / 32;
  uint32_t *words = calloc(n_words ? n_words : 1, sizeof *words);
  if (!words) return pd_cli_usage("mask: out of memory");
  pd_status st = pd_matcher_fill_bitmask(m, words, n_words, NULL, &err);
  if (st == PD_OK) pd__mask_print(words, n_words);
  free(words);
  return st == PD_OK ? 0 : pd_cli_fail("mask: filling the bitmask", &err);
}

int pd_cli_mask(int argc, char **argv) {
  pd__mask_args a = {0};
  int rc = pd__mask_parse(argc, argv, &a);
  if (rc) return rc;
  pd_error err;
  pd_vocab_options vo = {.width = (uint32_t)a.width};
  pd_vocab *v = NULL;
  if (pd_vocab_load_hf(a.tokenizer, NULL, &vo, &v, &err) != PD_OK)
    return pd_cli_fail(a.tokenizer, &err);
  size_t len;
  char *text = pd_cli_read_file(a.grammar, &len);
  if (!text) {
    pd_vocab_free(v);
    return pd_cli_usage("mask: cannot read '%s'", a.grammar);
  }
  pd_grammar *g = NULL;
  pd_matcher *m = NULL;
  if (pd_grammar_compile_gbnf(text, len, v, NULL, &g, &err) != PD_OK)
    rc = pd_cli_fail(a.grammar, &err);
  else if (pd_matcher_new(g, &m, &err) != PD_OK)
    rc = pd_cli_fail("mask: matcher", &err);
  else
    rc = pd__mask_run(m, a.after, pd_vocab_width(v));
  pd_matcher_free(m);
  pd_grammar_free(g);
  pd_vocab_free(v);
  free(text);
  return rc;
}
