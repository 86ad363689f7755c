/* generate.c - `pushdown generate`: constrained generation with two n-gram
 * models trained on a corpus, speculative when --draft-k > 0.
 *
 *   pushdown generate (--grammar F | --schema F | --regex P) --tokenizer T
 *       --corpus FILE [--n N] [--seed S] [--temperature X] [--draft-k K]
 *       [--max-tokens M] [--json] [--threads N] [--no-jump]
 *
 * The corpus has one document per line (a line that is a JSON string stands
 * for its value). The target model is a 4-gram, the draft a 2-gram, so drafts
 * are sometimes rejected. Without --json it prints the outputs and where the
 * time went; with --json one line per output:
 *   {"text", "tokens", "finished", "drafted", "accepted", "forced"}. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "spec/decode.h"
#include "util.h"

#define PD_GEN_TARGET_ORDER 4
#define PD_GEN_DRAFT_ORDER 2

typedef struct pd_gen_args {
  const char *grammar, *schema, *regex, *tokenizer, *corpus;
  pd_decode_options dec;
  bool json;
} pd_gen_args;

static bool pd__parse_size(const char *s, size_t max, size_t *out) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || end == s || *end || s[0] == '-' || v > max) return false;
  *out = (size_t)v;
  return true;
}

static bool pd__parse_float(const char *s, float *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || *end || !(v >= 0) || v > 1e6) return false;
  *out = (float)v;
  return true;
}

/* One option with a value; 0 = ok, else the exit code of a usage error. */
static int pd__parse_valued(pd_gen_args *g, const char *opt, const char *val) {
  size_t n;
  if (!strcmp(opt, "--grammar")) g->grammar = val;
  else if (!strcmp(opt, "--schema")) g->schema = val;
  else if (!strcmp(opt, "--regex")) g->regex = val;
  else if (!strcmp(opt, "--tokenizer")) g->tokenizer = val;
  else if (!strcmp(opt, "--corpus")) g->corpus = val;
  else if (!strcmp(opt, "--temperature")) {
    if (!pd__parse_float(val, &g->dec.temperature))
      return pd_cli_usage("--temperature wants a number >= 0, not '%s'", val);
  } else if (!strcmp(opt, "--seed")) {
    if (!pd__parse_size(val, SIZE_MAX, &n)) return pd_cli_usage("bad --seed '%s'", val);
    g->dec.seed = n;
  } else {
    static const struct { const char *name; size_t max; size_t off; } sizes[] = {
        {"--n", 100000, offsetof(pd_decode_options, n_outputs)},
        {"--draft-k", 64, offsetof(pd_decode_options, draft_k)},
        {"--max-tokens", 1000000, offsetof(pd_decode_options, max_tokens)}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
      if (strcmp(opt, sizes[i].name)) continue;
      size_t *dst = (size_t *)((char *)&g->dec + sizes[i].off);
      if (!pd__parse_size(val, sizes[i].max, dst) || (i == 0 && !*dst))
        return pd_cli_usage("%s wants a whole number in 1..%zu, not '%s'", opt, sizes[i].max, val);
      return 0;
    }
    if (strcmp(opt, "--threads")) return pd_cli_usage("unknown option '%s'", opt);
    if (!pd__parse_size(val, 64, &n) || !n) return pd_cli_usage("bad --threads '%s'", val);
    g->dec.n_threads = (unsigned)n;
  }
  return 0;
}

static int pd__parse_args(int argc, char **argv, pd_gen_args *g) {
  *g = (pd_gen_args){0};
  g->dec = (pd_decode_options){.n_outputs = 3, .seed = 0, .temperature = 0.7f, .draft_k = 4,
                               .max_tokens = 64, .n_threads = 1, .jump_forward = true,
                               .draft_probs = true};
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--json")) g->json = true;
    else if (!strcmp(argv[i], "--no-jump")) g->dec.jump_forward = false;
    else if (i + 1 >= argc) return pd_cli_usage("option '%s' needs a value", argv[i]);
    else {
      int rc = pd__parse_valued(g, argv[i], argv[i + 1]);
      if (rc) return rc;
      i++;
    }
  }
  if (!!g->grammar + !!g->schema + !!g->regex != 1)
    return pd_cli_usage("generate wants exactly one of --grammar, --schema, --regex");
  if (!g->tokenizer) g->tokenizer = pd_cli_default_tokenizer();
  if (!g->tokenizer) return pd_cli_usage("generate wants --tokenizer T");
  if (!g->corpus) return pd_cli_usage("generate wants --corpus FILE");
  return 0;
}

typedef struct pd_gen {
  pd_vocab *vocab;
  pd_grammar *grammar;
  pd_ngram *target, *draft;
  double compile_ns, train_ns;
  size_t docs, corpus_tokens;
} pd_gen;

static void pd__gen_free(pd_gen *s) {
  pd_ngram_free(s->target);
  pd_ngram_free(s->draft);
  pd_grammar_free(s->grammar);
  pd_vocab_free(s->vocab);
}

static int pd__compile(const pd_gen_args *a, pd_gen *s) {
  pd_error err;
  pd_status st = pd_vocab_load_hf(a->tokenizer, NULL, NULL, &s->vocab, &err);
  if (st != PD_OK) return pd_cli_fail(a->tokenizer, &err);
  double t0 = pd_cli_now_ns();
  if (a->regex) {
    st = pd_grammar_compile_regex(a->regex, strlen(a->regex), s->vocab, NULL, &s->grammar, &err);
  } else {
    const char *path = a->grammar ? a->grammar : a->schema;
    size_t len;
    char *text = pd_cli_read_file(path, &len);
    if (!text) return pd_cli_usage("cannot read %s: %s", path, strerror(errno));
    st = a->grammar ? pd_grammar_compile_gbnf(text, len, s->vocab, NULL, &s->grammar, &err)
                    : pd_grammar_compile_json_schema(text, len, s->vocab, NULL, &s->grammar, &err);
    free(text);
  }
  s->compile_ns = pd_cli_now_ns() - t0;
  if (st != PD_OK) return pd_cli_fail(a->regex ? "--regex" : a->grammar ? a->grammar : a->schema,
                                      &err);
  return 0;
}

/* Trains both models on one corpus line (a JSON string line stands for its value). */
static pd_status pd__train_line(pd_gen *s, const char *line, size_t len, uint32_t eos,
                                pd_error *err) {
  json_t *j = len && line[0] == '"' ? json_loadb(line, len, JSON_DECODE_ANY, NULL) : NULL;
  if (j && json_is_string(j)) {
    line = json_string_value(j);
    len = json_string_length(j);
  }
  uint32_t *ids = NULL;
  size_t n = 0;
  pd_status st = pd_vocab_encode(s->vocab, (const uint8_t *)line, len, &ids, &n, err);
  if (st == PD_OK) st = pd_ngram_add(s->target, ids, n, eos, err);
  if (st == PD_OK) st = pd_ngram_add(s->draft, ids, n, eos, err);
  s->corpus_tokens += n;
  s->docs++;
  pd_free_ids(s->vocab, ids);
  json_decref(j);
  return st;
}

static int pd__train(const pd_gen_args *a, pd_gen *s, const char *text, size_t len) {
  double t0 = pd_cli_now_ns();
  pd_error err;
  const uint32_t *eos_ids;
  uint32_t eos = pd_vocab_eos(s->vocab, &eos_ids) ? eos_ids[0] : PD_NGRAM_NO_EOS;
  size_t size = pd_vocab_size(s->vocab);
  pd_status st = pd_ngram_new(PD_GEN_TARGET_ORDER, size, NULL, &s->target, &err);
  if (st == PD_OK) st = pd_ngram_new(PD_GEN_DRAFT_ORDER, size, NULL, &s->draft, &err);
  for (size_t i = 0; st == PD_OK && i < len;) {
    size_t e = i;
    while (e < len && text[e] != '\n') e++;
    size_t n = e > i && text[e - 1] == '\r' ? e - i - 1 : e - i;
    if (n) st = pd__train_line(s, text + i, n, eos, &err);
    i = e + 1;
  }
  if (st == PD_OK) st = pd_ngram_build(s->target, &err);
  if (st == PD_OK) st = pd_ngram_build(s->draft, &err);
  s->train_ns = pd_cli_now_ns() - t0;
  return st == PD_OK ? 0 : pd_cli_fail(a->corpus, &err);
}

/* The UTF-8 sequence length starting at s[0..n), 0 when invalid. */
static size_t pd__utf8_len(const uint8_t *s, size_t n) {
  size_t len = s[0] < 0x80 ? 1 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : s[0] >= 0xe0 && s[0] < 0xf0 ? 3
               : s[0] >= 0xf0 && s[0] < 0xf5 ? 4 : 0;
  if (!len || len > n) return 0;
  for (size_t i = 1; i < len; i++)
    if ((s[i] & 0xc0) != 0x80) return 0;
  return len;
}

/* Prints s[0..n) as a JSON string; bytes that are not UTF-8 become U+FFFD. */
static void pd__print_json_string(FILE *f, const uint8_t *s, size_t n) {
  fputc('"', f);
  for (size_t i = 0; i < n;) {
    size_t len = pd__utf8_len(s + i, n - i);
    uint8_t c = s[i];
    if (!len) fputs("\\ufffd", f), len = 1;
    else if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c == '\n') fputs("\\n", f);
    else if (c == '\t') fputs("\\t", f);
    else if (c < 0x20 || c == 0x7f) fprintf(f, "\\u%04x", c);
    else fwrite(s + i, 1, len, f);
    i += len;
  }
  fputc('"', f);
}

/* The text of an output: its tokens' bytes, without stop or special tokens. */
static uint8_t *pd__output_text(const pd_vocab *v, const pd_decode_output *o, size_t *len) {
  size_t cap = 64, n = 0;
  uint8_t *buf = malloc(cap);
  for (size_t i = 0; buf && i < o->n_tokens; i++) {
    const uint8_t *b;
    size_t blen;
    uint32_t flags;
    if (pd_vocab_token(v, o->tokens[i], &b, &blen, &flags) != PD_OK || flags) continue;
    while (buf && n + blen > cap) {
      uint8_t *nb = realloc(buf, cap *= 2);
      if (!nb) free(buf);
      buf = nb;
    }
    if (buf) memcpy(buf + n, b, blen), n += blen;
  }
  *len = n;
  return buf;
}

static void pd__print_output(const pd_gen *s, const pd_gen_args *a, size_t i,
                             const pd_decode_output *o) {
  size_t len;
  uint8_t *text = pd__output_text(s->vocab, o, &len);
  if (a->json) fputs("{\"text\": ", stdout);
  else printf("[%zu] ", i + 1);
  pd__print_json_string(stdout, text ? text : (const uint8_t *)"", text ? len : 0);
  if (a->json)
    printf(", \"tokens\": %zu, \"finished\": %s, \"drafted\": %zu, \"accepted\": %zu, "
           "\"forced\": %zu}\n",
           o->n_tokens, o->finished ? "true" : "false", o->drafted, o->accepted, o->forced);
  else
    printf("\n    %zu tokens, %s; drafted %zu, accepted %zu, forced %zu\n", o->n_tokens,
           o->finished ? "finished" : "cut at --max-tokens", o->drafted, o->accepted, o->forced);
  free(text);
}

static void pd__print_summary(const pd_gen *s, const pd_gen_args *a, const pd_decode_output *outs,
                              const pd_decode_stats *st) {
  size_t tokens = 0, drafted = 0, accepted = 0, forced = 0;
  for (size_t i = 0; i < a->dec.n_outputs; i++) {
    tokens += outs[i].n_tokens;
    drafted += outs[i].drafted;
    accepted += outs[i].accepted;
    forced += outs[i].forced;
  }
  size_t rows = st->rows ? st->rows : 1;
  printf("\ngrammar compiled in %.1f ms; models (%d-gram target, %d-gram draft) trained on "
         "%zu documents, %zu tokens in %.1f ms\n",
         s->compile_ns / 1e6, PD_GEN_TARGET_ORDER, PD_GEN_DRAFT_ORDER, s->docs, s->corpus_tokens,
         s->train_ns / 1e6);
  printf("%s decoding, k = %zu, temperature %g: %zu tokens in %.1f ms over %zu batch steps\n",
         a->dec.draft_k ? "speculative" : "plain", a->dec.draft_k, a->dec.temperature, tokens,
         st->total_ns / 1e6, st->steps);
  printf("  drafts accepted %zu of %zu (%.0f%%); forced by jump-forward %zu (%.0f%% of tokens)\n",
         accepted, drafted, drafted ? 100.0 * accepted / drafted : 0.0, forced,
         tokens ? 100.0 * forced / tokens : 0.0);
  printf("  mask rows %zu: %.2f us/row in pd_spec_fill; verifier %.2f us/row; "
         "n-gram models %.2f us/row; jump-forward %.1f ms total\n",
         st->rows, st->fill_ns / 1e3 / rows, st->verify_ns / 1e3 / rows,
         st->model_ns / 1e3 / rows, st->jump_ns / 1e6);
}

int pd_cli_generate(int argc, char **argv) {
  pd_gen_args a;
  int rc = pd__parse_args(argc, argv, &a);
  pd_gen s = {0};
  size_t corpus_len = 0;
  char *corpus = rc ? NULL : pd_cli_read_file(a.corpus, &corpus_len);
  if (!rc && !corpus) rc = pd_cli_usage("cannot read %s: %s", a.corpus, strerror(errno));
  if (!rc) rc = pd__compile(&a, &s);
  if (!rc) rc = pd__train(&a, &s, corpus, corpus_len);
  free(corpus);
  pd_decode_output *outs = rc ? NULL : calloc(a.dec.n_outputs, sizeof *outs);
  if (!rc && !outs) rc = pd_cli_usage("out of memory");
  if (!rc) {
    pd_decode_stats st;
    pd_error err;
    if (pd_decode_run(s.grammar, s.vocab, s.target, s.draft, &a.dec, outs, &st, &err) != PD_OK) {
      rc = pd_cli_fail("generate", &err);
    } else {
      for (size_t i = 0; i < a.dec.n_outputs; i++) pd__print_output(&s, &a, i, &outs[i]);
      if (!a.json) pd__print_summary(&s, &a, outs, &st);
    }
    pd_decode_outputs_free(&a.dec, outs);
  }
  free(outs);
  pd__gen_free(&s);
  return rc;
}
