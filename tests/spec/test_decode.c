/* test_decode.c - speculative decoding end to end: greedy speculative equals
 * plain greedy token for token; sampled outputs follow the exact distribution
 * of plain masked sampling (chi-square, fixed seeds); allocation failures. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "spec/decode.h"
#include "support.h"

/* ids: 0 a, 1 b, 2 c, 3 ab, 4 bc, 5 ., 6 eos */
static const char *const pdt_toks[] = {"a", "b", "c", "ab", "bc", ".", "</s>"};
enum { PDT_V = 7, PDT_EOS = 6 };

typedef struct pdt_world {
  pd_vocab *v;
  pd_grammar *g;
  pd_ngram *target, *draft;
} pdt_world;

static uint32_t pdt__rand(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(*s >> 33);
}

/* Documents with some structure, so the target's preferences depend on the
 * context, and a draft trained on other documents, so it disagrees. */
static pd_status pdt__train(pd_ngram *m, uint64_t seed, int n_docs) {
  pd_status st = PD_OK;
  for (int d = 0; st == PD_OK && d < n_docs; d++) {
    uint32_t doc[12];
    size_t n = 1 + pdt__rand(&seed) % 4;
    for (size_t i = 0; i < n; i++)
      doc[i] = i && doc[i - 1] == 0 && pdt__rand(&seed) % 4 ? 4 : pdt__rand(&seed) % 5;
    if (pdt__rand(&seed) % 2) doc[n++] = 5;
    st = pd_ngram_add(m, doc, n, PDT_EOS, NULL);
  }
  return st == PD_OK ? pd_ngram_build(m, NULL) : st;
}

static pd_status pdt__world(const char *grammar, const pd_allocator *a, pdt_world *w) {
  const uint8_t *t[PDT_V];
  size_t lens[PDT_V];
  uint32_t flags[PDT_V] = {0};
  for (int i = 0; i < PDT_V; i++) {
    t[i] = (const uint8_t *)pdt_toks[i];
    lens[i] = strlen(pdt_toks[i]);
  }
  flags[PDT_EOS] = PD_TOKEN_EOS;
  memset(w, 0, sizeof *w);
  pd_vocab_options vo = {.allocator = a};
  pd_status st = pd_vocab_from_list(t, lens, flags, PDT_V, &vo, &w->v, NULL);
  if (st == PD_OK) st = pd_grammar_compile_gbnf(grammar, strlen(grammar), w->v, NULL, &w->g, NULL);
  if (st == PD_OK) st = pd_ngram_new(3, PDT_V, a, &w->target, NULL);
  if (st == PD_OK) st = pd_ngram_new(2, PDT_V, a, &w->draft, NULL);
  if (st == PD_OK) st = pdt__train(w->target, 1, 200);
  if (st == PD_OK) st = pdt__train(w->draft, 2, 50);
  return st;
}

static void pdt__world_free(pdt_world *w) {
  pd_ngram_free(w->target);
  pd_ngram_free(w->draft);
  pd_grammar_free(w->g);
  pd_vocab_free(w->v);
}

#define PDT_LONG "root ::= (\"a\" | \"b\" | \"c\")+ \".\"\n"
#define PDT_SMALL "root ::= x x? x?\nx ::= \"a\" | \"b\" | \"c\"\n"

static void test_greedy_speculative_equals_plain(void **state) {
  (void)state;
  pdt_world w;
  assert_int_equal(pdt__world(PDT_LONG, NULL, &w), PD_OK);
  enum { N = 6 };
  pd_decode_output plain[N], spec[N];
  pd_decode_options o = {.n_outputs = N, .seed = 3, .temperature = 0, .draft_k = 0,
                         .max_tokens = 40};
  assert_int_equal(pd_decode_run(w.g, w.v, w.target, w.draft, &o, plain, NULL, NULL), PD_OK);
  size_t total_accepted = 0;
  for (size_t k = 1; k <= 8; k *= 2) {
    pd_decode_options ok = o;
    ok.draft_k = k;
    ok.n_threads = (unsigned)k % 3 + 1;
    assert_int_equal(pd_decode_run(w.g, w.v, w.target, w.draft, &ok, spec, NULL, NULL), PD_OK);
    for (int i = 0; i < N; i++) {
      assert_int_equal(spec[i].n_tokens, plain[i].n_tokens);
      assert_memory_equal(spec[i].tokens, plain[i].tokens, plain[i].n_tokens * sizeof(uint32_t));
      assert_int_equal(spec[i].finished, plain[i].finished);
      assert_true(spec[i].accepted <= spec[i].drafted);
      total_accepted += spec[i].accepted;
    }
    pd_decode_outputs_free(&ok, spec);
  }
  assert_true(total_accepted > 0); /* the drafts did some of the work */
  pd_decode_outputs_free(&o, plain);
  pdt__world_free(&w);
}

/* ---- the exact distribution of plain masked sampling, by enumeration ---- */

#define PDT_MAX_SEQ 256
typedef struct pdt_dist {
  uint32_t seq[PDT_MAX_SEQ][6];
  size_t len[PDT_MAX_SEQ];
  double p[PDT_MAX_SEQ];
  size_t n;
} pdt_dist;

static void pdt__enumerate(const pdt_world *w, pd_matcher *m, float temp, uint32_t *hist,
                           size_t n_hist, double prob, pdt_dist *d) {
  uint32_t mask;
  assert_int_equal(pd_matcher_fill_bitmask(m, &mask, 1, NULL, NULL), PD_OK);
  float p[PDT_V];
  pd_ngram_probs(w->target, hist, n_hist, p);
  double z = 0, q[PDT_V];
  for (int t = 0; t < PDT_V; t++) z += q[t] = (mask >> t & 1) ? pow(p[t], 1.0 / temp) : 0;
  for (uint32_t t = 0; t < PDT_V; t++) {
    if (!q[t]) continue;
    hist[n_hist] = t;
    if (t == PDT_EOS) {
      assert_true(d->n < PDT_MAX_SEQ);
      memcpy(d->seq[d->n], hist, (n_hist + 1) * sizeof *hist);
      d->len[d->n] = n_hist + 1;
      d->p[d->n++] = prob * q[t] / z;
      continue;
    }
    assert_int_equal(pd_matcher_accept_token(m, t, NULL), PD_OK);
    pdt__enumerate(w, m, temp, hist, n_hist + 1, prob * q[t] / z, d);
    assert_int_equal(pd_matcher_rollback(m, 1, NULL), PD_OK);
  }
}

static size_t pdt__find(const pdt_dist *d, const pd_decode_output *o) {
  for (size_t i = 0; i < d->n; i++)
    if (d->len[i] == o->n_tokens && !memcmp(d->seq[i], o->tokens, o->n_tokens * sizeof(uint32_t)))
      return i;
  return d->n;
}

/* Pearson's statistic over the outputs, categories with expected count < 5
 * pooled; returns it and sets *df. Fails on an output outside the support. */
static double pdt__chi_square(const pdt_dist *d, const pd_decode_output *outs, size_t n,
                              size_t *df) {
  static double count[PDT_MAX_SEQ];
  memset(count, 0, sizeof count);
  for (size_t i = 0; i < n; i++) {
    size_t c = pdt__find(d, &outs[i]);
    assert_true(c < d->n);
    count[c]++;
  }
  double chi = 0, pool_obs = 0, pool_exp = 0;
  size_t cats = 0;
  for (size_t c = 0; c < d->n; c++) {
    double e = d->p[c] * n;
    if (e < 5) {
      pool_obs += count[c];
      pool_exp += e;
      continue;
    }
    chi += (count[c] - e) * (count[c] - e) / e;
    cats++;
  }
  if (pool_exp > 0) chi += (pool_obs - pool_exp) * (pool_obs - pool_exp) / pool_exp, cats++;
  *df = cats - 1;
  return chi;
}

/* The chi-square quantile at 1 - 1e-4 (Wilson-Hilferty): a correct sampler
 * passes with fixed seeds; a wrong one (e.g. q ignored) fails by far. */
static double pdt__critical(size_t df) {
  double k = (double)df, z = 3.719;
  double c = 1 - 2 / (9 * k) + z * sqrt(2 / (9 * k));
  return k * c * c * c;
}

static void pdt__check_distribution(float temp, size_t k, bool draft_probs, uint64_t seed) {
  pdt_world w;
  assert_int_equal(pdt__world(PDT_SMALL, NULL, &w), PD_OK);
  static pdt_dist d;
  memset(&d, 0, sizeof d);
  pd_matcher *m;
  assert_int_equal(pd_matcher_new(w.g, &m, NULL), PD_OK);
  uint32_t hist[8];
  pdt__enumerate(&w, m, temp, hist, 0, 1.0, &d);
  pd_matcher_free(m);
  double total = 0;
  for (size_t i = 0; i < d.n; i++) total += d.p[i];
  assert_true(fabs(total - 1) < 1e-9);
  enum { N = 4000 };
  static pd_decode_output outs[N];
  pd_decode_options o = {.n_outputs = N, .seed = seed, .temperature = temp, .draft_k = k,
                         .max_tokens = 8, .n_threads = 1, .draft_probs = draft_probs};
  assert_int_equal(pd_decode_run(w.g, w.v, w.target, w.draft, &o, outs, NULL, NULL), PD_OK);
  size_t df;
  double chi = pdt__chi_square(&d, outs, N, &df);
  assert_true(df >= 5);
  print_message("chi-square %.1f, df %zu, critical %.1f (k=%zu, T=%.2f)\n", chi, df,
                pdt__critical(df), k, temp);
  assert_true(chi < pdt__critical(df));
  pd_decode_outputs_free(&o, outs);
  pdt__world_free(&w);
}

static void test_plain_sampling_distribution(void **state) {
  (void)state;
  pdt__check_distribution(1.0f, 0, true, 11);
}

static void test_speculative_sampling_distribution(void **state) {
  (void)state;
  pdt__check_distribution(1.0f, 2, true, 12);
  pdt__check_distribution(0.7f, 3, true, 13);
}

static void test_point_mass_drafts_distribution(void **state) {
  (void)state;
  pdt__check_distribution(1.0f, 2, false, 14);
}

static void test_allocation_failures(void **state) {
  (void)state;
  for (long n = 1;; n++) {
    pdt_alloc_reset(n);
    pdt_world w;
    pd_status st = pdt__world(PDT_LONG, &pdt_allocator, &w);
    pd_decode_output outs[2] = {{0}};
    pd_decode_options o = {.allocator = &pdt_allocator, .n_outputs = 2, .seed = 1,
                           .temperature = 0.8f, .draft_k = 2, .max_tokens = 12};
    if (st == PD_OK) st = pd_decode_run(w.g, w.v, w.target, w.draft, &o, outs, NULL, NULL);
    if (st != PD_OK) assert_int_equal(st, PD_ERR_NOMEM);
    pd_decode_outputs_free(&o, outs);
    pdt__world_free(&w);
    assert_int_equal(pdt_alloc.live, 0);
    if (!pdt_alloc.failed) break;
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_greedy_speculative_equals_plain),
      cmocka_unit_test(test_plain_sampling_distribution),
      cmocka_unit_test(test_speculative_sampling_distribution),
      cmocka_unit_test(test_point_mass_drafts_distribution),
      cmocka_unit_test(test_allocation_failures),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
