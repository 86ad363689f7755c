/* demo.c - `pushdown demo`: the engine on a real grammar and a real tokenizer, with timings.
 *
 * It compiles a JSON grammar against a vocabulary, then writes a few JSON
 * documents token by token the way a constrained decoder would: at each step
 * it fills the bitmask (timed), picks the longest allowed token that continues
 * the document, and accepts it (timed). At the end the stop token must be
 * allowed, and a few tempting wrong continuations must be masked out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "util.h"

/* Used when ../shared/data is absent: our own JSON grammar (RFC 8259 values). */
static const char pd__json_gbnf[] =
    "root   ::= ws value ws\n"
    "value  ::= object | array | string | number | \"true\" | \"false\" | \"null\"\n"
    "object ::= \"{\" ws ( member ( ws \",\" ws member )* )? ws \"}\"\n"
    "member ::= string ws \":\" ws value\n"
    "array  ::= \"[\" ws ( value ( ws \",\" ws value )* )? ws \"]\"\n"
    "string ::= \"\\\"\" ( [^\"\\\\\\x00-\\x1F] | \"\\\\\" ( [\"\\\\/bfnrt] | \"u\" [0-9a-fA-F]{4} ) )* \"\\\"\"\n"
    "number ::= \"-\"? ( \"0\" | [1-9] [0-9]* ) ( \".\" [0-9]+ )? ( [eE] [-+]? [0-9]+ )?\n"
    "ws     ::= [ \\t\\n]{0,20}\n";

static const char *const pd__docs[] = {
    "{\"name\": \"pushdown\", \"language\": \"C11\", \"stars\": 1024, \"tags\": [\"grammar\", "
    "\"llm\", \"earley\"], \"stable\": false}",
    "[{\"id\": 1, \"score\": -0.25e3, \"ok\": true}, {\"id\": 2, \"score\": 3.5, \"note\": "
    "\"caf\xc3\xa9 \\u00e9\\n\"}, null]",
    "{\"model\": {\"layers\": 32, \"heads\": 8, \"vocab\": 128256}, \"prompt\": \"Write a "
    "haiku about parsers.\", \"max_tokens\": 64}",
};

typedef struct pd__stats {
  double *fill_ns, *accept_ns;
  size_t n, cap;
} pd__stats;

static int pd__cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double pd__pct(double *v, size_t n, double p) {
  if (!n) return 0;
  size_t i = (size_t)(p * (double)(n - 1) + 0.5);
  return v[i];
}

static bool pd__push(pd__stats *s, double fill, double accept) {
  if (s->n == s->cap) {
    size_t c = s->cap ? s->cap * 2 : 256;
    double *f = realloc(s->fill_ns, c * sizeof *f);
    if (!f) return false;
    s->fill_ns = f;
    double *a = realloc(s->accept_ns, c * sizeof *a);
    if (!a) return false;
    s->accept_ns = a;
    s->cap = c;
  }
  s->fill_ns[s->n] = fill;
  s->accept_ns[s->n++] = accept;
  return true;
}

/* The longest allowed non-special token whose bytes are a prefix of text[0..len). */
static long pd__pick(const pd_vocab *v, const uint32_t *mask, const char *text, size_t len) {
  long best = -1;
  size_t best_len = 0;
  for (size_t id = 0; id < pd_vocab_size(v); id++) {
    if (!(mask[id / 32] >> (id % 32) & 1)) continue;
    const uint8_t *b;
    size_t n;
    uint32_t flags;
    if (pd_vocab_token(v, (uint32_t)id, &b, &n, &flags) != PD_OK || n == 0 || n > len) continue;
    if (flags & (PD_TOKEN_SPECIAL | PD_TOKEN_EOS)) continue;
    if (n > best_len && memcmp(b, text, n) == 0) {
      best = (long)id;
      best_len = n;
    }
  }
  return best;
}

static size_t pd__popcount_row(const uint32_t *mask, size_t n_words) {
  size_t c = 0;
  for (size_t i = 0; i < n_words; i++) c += (size_t)__builtin_popcount(mask[i]);
  return c;
}

/* Writes one document token by token; returns 0 or a CLI exit code. */
static int pd__write_doc(const pd_grammar *g, const pd_vocab *v, const char *doc, uint32_t *mask,
                         size_t n_words, pd__stats *st) {
  pd_error err;
  pd_matcher *m;
  if (pd_matcher_new(g, &m, &err) != PD_OK) return pd_cli_fail("matcher", &err);
  size_t len = strlen(doc), pos = 0, tokens = 0;
  int rc = 0;
  while (pos < len) {
    double t0 = pd_cli_now_ns();
    if (pd_matcher_fill_bitmask(m, mask, n_words, NULL, &err) != PD_OK) {
      rc = pd_cli_fail("fill bitmask", &err);
      break;
    }
    double t1 = pd_cli_now_ns();
    long id = pd__pick(v, mask, doc + pos, len - pos);
    if (id < 0) {
      fprintf(stderr, "error: no allowed token continues the document at byte %zu\n", pos);
      rc = 1;
      break;
    }
    double t2 = pd_cli_now_ns();
    if (pd_matcher_accept_token(m, (uint32_t)id, &err) != PD_OK) {
      rc = pd_cli_fail("accept token", &err);
      break;
    }
    double t3 = pd_cli_now_ns();
    if (!pd__push(st, t1 - t0, t3 - t2)) {
      rc = pd_cli_usage("out of memory");
      break;
    }
    const uint8_t *b;
    size_t n;
    pd_vocab_token(v, (uint32_t)id, &b, &n, NULL);
    pos += n;
    tokens++;
  }
  if (rc == 0) {
    const uint32_t *eos;
    size_t n_eos = pd_vocab_eos(v, &eos);
    bool stop_ok = pd_matcher_fill_bitmask(m, mask, n_words, NULL, &err) == PD_OK && n_eos &&
                   (mask[eos[0] / 32] >> (eos[0] % 32) & 1);
    printf("  %3zu tokens, complete: %s, stop token allowed: %s, tokens allowed at the end: %zu\n",
           tokens, pd_matcher_is_accepting(m) ? "yes" : "no", stop_ok ? "yes" : "no",
           pd__popcount_row(mask, n_words));
    if (!pd_matcher_is_accepting(m) || (n_eos && !stop_ok)) rc = 1;
  }
  pd_matcher_free(m);
  return rc;
}

/* Shows what the mask forbids half-way through an object. */
static int pd__show_row(const pd_grammar *g, const pd_vocab *v, uint32_t *mask, size_t n_words) {
  static const char prefix[] = "{\"name\": \"pushdown\", \"stars\": 10";
  static const char *const probes[] = {"24", ",", "}", " \"", ":", "]", "x", "true"};
  pd_error err;
  pd_matcher *m;
  if (pd_matcher_new(g, &m, &err) != PD_OK) return pd_cli_fail("matcher", &err);
  int rc = 0;
  if (pd_matcher_accept_bytes(m, (const uint8_t *)prefix, sizeof prefix - 1, NULL, &err) != PD_OK ||
      pd_matcher_fill_bitmask(m, mask, n_words, NULL, &err) != PD_OK) {
    rc = pd_cli_fail("mask after prefix", &err);
  } else {
    printf("after '%s': %zu of %zu tokens allowed\n", prefix, pd__popcount_row(mask, n_words),
           pd_vocab_size(v));
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
      uint32_t id;
      if (pd_vocab_find(v, (const uint8_t *)probes[i], strlen(probes[i]), &id) != PD_OK) continue;
      printf("  token %-8s (id %6u): %s\n", probes[i], id,
             mask[id / 32] >> (id % 32) & 1 ? "allowed" : "masked");
    }
  }
  pd_matcher_free(m);
  return rc;
}

static int pd__run(const char *tok_path, const char *grammar_path) {
  pd_error err;
  pd_vocab *v = NULL;
  pd_grammar *g = NULL;
  char *gtext = NULL;
  int rc = 0;
  double t0 = pd_cli_now_ns();
  if (pd_vocab_load_hf(tok_path, NULL, NULL, &v, &err) != PD_OK) return pd_cli_fail(tok_path, &err);
  double t1 = pd_cli_now_ns();
  printf("vocabulary: %s\n  %zu tokens, loaded in %.1f ms\n", tok_path, pd_vocab_size(v),
         (t1 - t0) / 1e6);
  size_t glen = sizeof pd__json_gbnf - 1;
  const char *gsrc = pd__json_gbnf;
  if (grammar_path) {
    if (!(gtext = pd_cli_read_file(grammar_path, &glen))) {
      rc = pd_cli_usage("cannot read %s", grammar_path);
      goto done;
    }
    gsrc = gtext;
  }
  printf("grammar: %s\n", grammar_path ? grammar_path : "built-in JSON grammar");
  /* eager: every state's token classes at compile time (cold, then warm from
   * the vocabulary's classification cache); then the default, lazy compile */
  pd_grammar_options eager = {.eager_masks = true};
  for (int pass = 0; pass < 3; pass++) {
    double c0 = pd_cli_now_ns();
    pd_grammar_free(g);
    g = NULL;
    if (pd_grammar_compile_gbnf(gsrc, glen, v, pass < 2 ? &eager : NULL, &g, &err) != PD_OK) {
      rc = pd_cli_fail("grammar", &err);
      goto done;
    }
    double ms = (pd_cli_now_ns() - c0) / 1e6;
    if (pass < 2)
      printf("  compiled with token classification in %.2f ms (%s)\n", ms,
             pass ? "warm: second compile, same vocabulary" : "cold");
    else
      printf("  compiled in %.2f ms (default: states classified when a mask first needs them)\n",
             ms);
  }
  size_t n_words = (pd_vocab_width(v) + 31) / 32;
  uint32_t *mask = malloc(n_words * sizeof *mask), *copy = malloc(n_words * sizeof *copy);
  pd__stats st = {0};
  if (!mask || !copy) {
    rc = pd_cli_usage("out of memory");
  } else {
    printf("writing %zu JSON documents token by token under the mask:\n",
           sizeof pd__docs / sizeof pd__docs[0]);
    for (size_t i = 0; i < sizeof pd__docs / sizeof pd__docs[0] && rc == 0; i++)
      rc = pd__write_doc(g, v, pd__docs[i], mask, n_words, &st);
    if (rc == 0) rc = pd__show_row(g, v, mask, n_words);
  }
  if (rc == 0 && st.n) {
    qsort(st.fill_ns, st.n, sizeof *st.fill_ns, pd__cmp_double);
    qsort(st.accept_ns, st.n, sizeof *st.accept_ns, pd__cmp_double);
    double c0 = pd_cli_now_ns();
    for (int i = 0; i < 1000; i++) {
      memcpy(copy, mask, n_words * sizeof *mask);
      __asm__ volatile("" ::"r"(copy) : "memory");
    }
    double floor_ns = (pd_cli_now_ns() - c0) / 1000;
    printf("timings over %zu steps (one core):\n", st.n);
    printf("  fill bitmask: p50 %.2f us  p99 %.2f us  max %.2f us\n", pd__pct(st.fill_ns, st.n, .5) / 1e3,
           pd__pct(st.fill_ns, st.n, .99) / 1e3, st.fill_ns[st.n - 1] / 1e3);
    printf("  accept token: p50 %.2f us  p99 %.2f us  max %.2f us\n",
           pd__pct(st.accept_ns, st.n, .5) / 1e3, pd__pct(st.accept_ns, st.n, .99) / 1e3,
           st.accept_ns[st.n - 1] / 1e3);
    printf("  floor: copying one %zu-byte bitmask row takes %.2f us\n", n_words * 4, floor_ns / 1e3);
  }
  free(st.fill_ns);
  free(st.accept_ns);
  free(mask);
  free(copy);
done:
  pd_grammar_free(g);
  pd_vocab_free(v);
  free(gtext);
  return rc;
}

int pd_cli_demo(int argc, char **argv) {
  const char *tok = NULL, *grammar = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--tokenizer") && i + 1 < argc) tok = argv[++i];
    else if (!strcmp(argv[i], "--grammar") && i + 1 < argc) grammar = argv[++i];
    else return pd_cli_usage("demo: unknown argument '%s' (usage: demo [--tokenizer T] [--grammar F])", argv[i]);
  }
  if (!tok) tok = pd_cli_default_tokenizer();
#ifdef PD_FALLBACK_TOKENIZER
  if (!tok) {
    tok = PD_FALLBACK_TOKENIZER;
    printf("(../shared/data is absent: using the vocabulary this build trained itself)\n");
  }
#endif
  if (!tok) return pd_cli_usage("demo: no tokenizer found; pass --tokenizer tokenizer.json");
  return pd__run(tok, grammar);
}
