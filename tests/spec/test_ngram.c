/* test_ngram.c - the n-gram models and the worker pool of spec/. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "spec/ngram.h"
#include "spec/pool.h"
#include "support.h"

static pd_ngram *pdt__train(unsigned order, const pd_allocator *a, pd_status *st) {
  static const uint32_t doc1[] = {1, 2, 3, 1, 2, 4};
  static const uint32_t doc2[] = {1, 2, 3};
  pd_ngram *g = NULL;
  *st = pd_ngram_new(order, 6, a, &g, NULL);
  if (*st == PD_OK) *st = pd_ngram_add(g, doc1, 6, 5, NULL);
  if (*st == PD_OK) *st = pd_ngram_add(g, doc2, 3, 5, NULL);
  if (*st == PD_OK) *st = pd_ngram_build(g, NULL);
  if (*st != PD_OK) {
    pd_ngram_free(g);
    return NULL;
  }
  return g;
}

static double pdt__sum(const float *p, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; i++) s += p[i];
  return s;
}

/* Witten-Bell by hand: unigram over 11 events (1:3, 2:3, 3:2, 4:1, 5:2; 5 types). */
static void test_unigram_matches_formula(void **state) {
  (void)state;
  pd_status st;
  pd_ngram *g = pdt__train(1, NULL, &st);
  assert_int_equal(st, PD_OK);
  float p[6];
  pd_ngram_probs(g, NULL, 0, p);
  const double counts[6] = {0, 3, 3, 2, 1, 2};
  for (int w = 0; w < 6; w++) assert_true(fabs(p[w] - (counts[w] + 5.0 / 6) / 16) < 1e-6);
  pd_ngram_free(g);
}

/* After "1 2" a trigram saw 3 twice and 4 once; 3 must be the favourite, and
 * every id, even the never-seen 0, keeps a nonzero probability. */
static void test_trigram_prefers_seen_continuation(void **state) {
  (void)state;
  pd_status st;
  pd_ngram *g = pdt__train(3, NULL, &st);
  assert_int_equal(st, PD_OK);
  const uint32_t hist[] = {3, 1, 2};
  float p[6];
  pd_ngram_probs(g, hist, 3, p);
  assert_true(fabs(pdt__sum(p, 6) - 1) < 1e-5);
  for (int w = 0; w < 6; w++) assert_true(p[w] > 0);
  for (int w = 0; w < 6; w++)
    if (w != 3) assert_true(p[3] > p[w]);
  assert_true(p[4] > p[0]);
  /* at the start of a document the only continuation seen is 1 */
  pd_ngram_probs(g, NULL, 0, p);
  for (int w = 0; w < 6; w++)
    if (w != 1) assert_true(p[1] > 2 * p[w]);
  pd_ngram_free(g);
}

/* An unseen history backs off to lower orders and still sums to one. */
static void test_unseen_history_backs_off(void **state) {
  (void)state;
  pd_status st;
  pd_ngram *g3 = pdt__train(3, NULL, &st), *g1 = pdt__train(1, NULL, &st);
  assert_non_null(g3);
  assert_non_null(g1);
  const uint32_t hist[] = {0, 0};
  float p3[6], p1[6];
  pd_ngram_probs(g3, hist, 2, p3);
  pd_ngram_probs(g1, hist, 2, p1);
  for (int w = 0; w < 6; w++) assert_true(fabs(p3[w] - p1[w]) < 1e-6);
  pd_ngram_free(g3);
  pd_ngram_free(g1);
}

static void test_bad_arguments(void **state) {
  (void)state;
  pd_ngram *g = NULL;
  pd_error err;
  assert_int_equal(pd_ngram_new(0, 6, NULL, &g, &err), PD_ERR_ARG);
  assert_int_equal(pd_ngram_new(PD_NGRAM_MAX_ORDER + 1, 6, NULL, &g, &err), PD_ERR_ARG);
  assert_int_equal(pd_ngram_new(2, 6, NULL, &g, &err), PD_OK);
  const uint32_t bad[] = {1, 6};
  assert_int_equal(pd_ngram_add(g, bad, 2, PD_NGRAM_NO_EOS, &err), PD_ERR_ARG);
  assert_int_equal(pd_ngram_add(g, bad, 1, 9, &err), PD_ERR_ARG);
  assert_int_equal(pd_ngram_build(g, &err), PD_OK);
  assert_int_equal(pd_ngram_add(g, bad, 1, PD_NGRAM_NO_EOS, &err), PD_ERR_ARG);
  float p[6];
  pd_ngram_probs(g, NULL, 0, p); /* built with nothing: uniform */
  for (int w = 0; w < 6; w++) assert_true(fabs(p[w] - 1.0 / 6) < 1e-6);
  pd_ngram_free(g);
}

static void test_allocation_failures(void **state) {
  (void)state;
  for (long n = 1;; n++) {
    pdt_alloc_reset(n);
    pd_status st;
    pd_ngram *g = pdt__train(4, &pdt_allocator, &st);
    if (g) assert_int_equal(st, PD_OK);
    else assert_int_equal(st, PD_ERR_NOMEM);
    pd_ngram_free(g);
    assert_int_equal(pdt_alloc.live, 0);
    if (!pdt_alloc.failed) break;
  }
}

/* A larger random corpus: every history gives a proper distribution. */
static void test_random_corpus_distributions(void **state) {
  (void)state;
  enum { V = 50, N = 5000 };
  uint32_t *doc = malloc(N * sizeof *doc);
  assert_non_null(doc);
  unsigned x = 12345;
  for (int i = 0; i < N; i++) {
    x = x * 1103515245u + 12345u;
    doc[i] = (i > 0 && (x >> 16) % 3 == 0) ? (doc[i - 1] + 1) % V : (x >> 16) % V;
  }
  pd_ngram *g = NULL;
  assert_int_equal(pd_ngram_new(4, V, NULL, &g, NULL), PD_OK);
  assert_int_equal(pd_ngram_add(g, doc, N, PD_NGRAM_NO_EOS, NULL), PD_OK);
  assert_int_equal(pd_ngram_build(g, NULL), PD_OK);
  float p[V];
  for (int i = 0; i + 3 < N; i += 97) {
    pd_ngram_probs(g, doc + i, 3, p);
    assert_true(fabs(pdt__sum(p, V) - 1) < 1e-4);
    for (int w = 0; w < V; w++) assert_true(p[w] > 0);
  }
  pd_ngram_free(g);
  free(doc);
}

typedef struct pdt_pool_ctx {
  _Atomic unsigned runs[1000];    /* times each task ran */
  unsigned long out[1000];
  unsigned most_workers;          /* worker ids seen must stay below it */
  _Atomic unsigned bad_worker;
} pdt_pool_ctx;

/* Uneven tasks (every 7th is slow) so that workers finish their shares at
 * different times and steal from each other. */
static void pdt__square(void *ctx, size_t i, unsigned worker) {
  pdt_pool_ctx *c = ctx;
  if (worker >= c->most_workers) c->bad_worker++;
  volatile unsigned long spin = 0;
  for (unsigned k = 0; k < (i % 7 ? 10u : 20000u); k++) spin += k;
  c->out[i] = (unsigned long)i * i + 1;
  c->runs[i]++;
}

static void pdt__pool_check(pdt_pool_ctx *c, size_t n) {
  assert_int_equal(c->bad_worker, 0);
  for (size_t i = 0; i < n; i++) {
    assert_int_equal(c->runs[i], 1);
    assert_int_equal(c->out[i], i * i + 1);
  }
}

static void test_pool_runs_every_task_once(void **state) {
  (void)state;
  static pdt_pool_ctx c;
  for (unsigned threads = 0; threads <= 4; threads++)
    for (size_t n = 1; n <= 1000; n = n * 3 + 1) {
      memset(&c, 0, sizeof c);
      c.most_workers = threads ? threads : 1;
      unsigned used = pd_pool_run(threads, n, pdt__square, &c);
      assert_true(used >= 1 && used <= c.most_workers && used <= n);
      pdt__pool_check(&c, n);
    }
  assert_int_equal(pd_pool_run(8, 0, pdt__square, &c), 1);
  assert_int_equal(pd_pool_run(8, 2, pdt__square, &c), 2);
}

/* The same on kept threads, job after job on the same workers. */
static void test_pool_kept_runs_every_task_once(void **state) {
  (void)state;
  static pdt_pool_ctx c;
  for (unsigned threads = 1; threads <= 4; threads++) {
    pd_workers *w = NULL;
    assert_int_equal(pd_workers_new(threads, &w, NULL), PD_OK);
    for (int job = 0; job < 20; job++) {
      size_t n = (size_t)(job * 53) % 1000 + 1;
      memset(&c, 0, sizeof c);
      c.most_workers = pd_workers_count(w);
      assert_int_equal(pd_pool_run_on(w, n, pdt__square, &c), n < 2 ? 1 : pd_workers_count(w));
      pdt__pool_check(&c, n);
    }
    pd_workers_free(w);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_unigram_matches_formula),
      cmocka_unit_test(test_trigram_prefers_seen_continuation),
      cmocka_unit_test(test_unseen_history_backs_off),
      cmocka_unit_test(test_bad_arguments),
      cmocka_unit_test(test_allocation_failures),
      cmocka_unit_test(test_random_corpus_distributions),
      cmocka_unit_test(test_pool_runs_every_task_once),
      cmocka_unit_test(test_pool_kept_runs_every_task_once),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
