/* test_verify.c - pd_cpu_verify: greedy against brute force, the output distribution of
 * rejection sampling against the target by chi-square (fixed seeds: deterministic, so a
 * generous bound cannot flake), NaN / inf / dead rows, bad arguments. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "kernels/dtype.h"
#include "kernels/sampling.h"

static uint64_t pdt_rng = 0x2545F4914F6CDD1Dull;
static uint32_t pdt_next(void) { /* xorshift64*: test inputs only */
  pdt_rng ^= pdt_rng >> 12;
  pdt_rng ^= pdt_rng << 25;
  pdt_rng ^= pdt_rng >> 27;
  return (uint32_t)((pdt_rng * 0x2545F4914F6CDD1Dull) >> 32);
}
static double pdt_unit(void) { return (pdt_next() + 0.5) / 4294967296.0; }

static int pdt_allowed(const uint32_t *mask, size_t j) { return (mask[j / 32] >> (j % 32)) & 1; }

static uint32_t pdt_argmax(const float *x, const uint32_t *mask, size_t width) {
  uint32_t best = UINT32_MAX;
  for (size_t j = 0; j < width; j++)
    if (pdt_allowed(mask, j) && !isnan(x[j]) && x[j] > -INFINITY &&
        (best == UINT32_MAX || x[j] > x[best]))
      best = (uint32_t)j;
  return best;
}

/* Greedy: request r takes a[r] correct drafts then a wrong one (when a[r] < k). */
static void test_greedy_brute_force(void **state) {
  (void)state;
  enum { N = 9, W = 1000, NW = (W + 31) / 32 };
  size_t offs[N + 1] = {0}, rows = 0;
  for (size_t r = 0; r < N; r++) offs[r + 1] = offs[r] + r; /* k = 0..8 */
  rows = offs[N] + N;
  float *x = malloc(rows * W * sizeof *x);
  uint32_t *mask = malloc(rows * NW * sizeof *mask), drafts[64], out[64], cnt[N], acc[N];
  assert_non_null(x), assert_non_null(mask);
  for (size_t i = 0; i < rows * W; i++) x[i] = (float)pdt_unit() * 20.0f - 10.0f;
  for (size_t i = 0; i < rows * NW; i++) mask[i] = pdt_next() | 1u;
  size_t want_acc[N];
  for (size_t r = 0; r < N; r++) {
    size_t k = offs[r + 1] - offs[r];
    want_acc[r] = k ? pdt_next() % (k + 1) : 0;
    for (size_t i = 0; i < k; i++) {
      size_t g = offs[r] + r + i;
      uint32_t am = pdt_argmax(x + g * W, mask + g * NW, W);
      drafts[offs[r] + i] = i < want_acc[r] ? am : (am + 1 + pdt_next() % (W - 1)) % W;
    }
  }
  pd_verify_args a = {.mode = PD_VERIFY_GREEDY, .target_logits = x, .dtype = PD_F32,
                      .width = W, .bitmask = mask, .n_words = NW, .draft_tokens = drafts,
                      .draft_offsets = offs, .n = N, .temperature = 1.0f, .out_tokens = out,
                      .out_counts = cnt, .out_accepted = acc};
  assert_int_equal(pd_cpu_verify(&a, NULL), PD_OK);
  for (size_t r = 0; r < N; r++) {
    size_t g = offs[r] + r + want_acc[r];
    assert_int_equal(acc[r], want_acc[r]);
    assert_int_equal(cnt[r], want_acc[r] + 1);
    for (size_t i = 0; i < want_acc[r]; i++)
      assert_int_equal(out[offs[r] + r + i], drafts[offs[r] + i]);
    assert_int_equal(out[offs[r] + r + want_acc[r]], pdt_argmax(x + g * W, mask + g * NW, W));
  }
  /* temperature 0 in SAMPLE modes is greedy too, and needs no draft probabilities */
  a.mode = PD_VERIFY_SAMPLE;
  a.temperature = 0.0f;
  uint32_t cnt2[N], out2[64];
  a.out_counts = cnt2, a.out_tokens = out2, a.out_accepted = NULL;
  assert_int_equal(pd_cpu_verify(&a, NULL), PD_OK);
  assert_memory_equal(cnt, cnt2, sizeof cnt);
  free(x), free(mask);
}

/* Ties (bf16 has few values) go to the lowest allowed id; NaN never wins; +inf does. */
static void test_greedy_ties_nan_inf(void **state) {
  (void)state;
  uint16_t h[40];
  for (int i = 0; i < 40; i++) h[i] = pd_float_to_bf16(1.5f);
  h[0] = pd_float_to_bf16(NAN);
  uint32_t mask[2] = {0xFFFFFFF0u, 0xFF}, out[1], cnt[1];
  size_t offs[2] = {0, 0};
  pd_verify_args a = {.mode = PD_VERIFY_GREEDY, .target_logits = h, .dtype = PD_BF16,
                      .width = 40, .bitmask = mask, .n_words = 2, .draft_offsets = offs,
                      .n = 1, .out_tokens = out, .out_counts = cnt};
  assert_int_equal(pd_cpu_verify(&a, NULL), PD_OK);
  assert_int_equal(cnt[0], 1), assert_int_equal(out[0], 4);
  h[37] = pd_float_to_bf16(INFINITY);
  assert_int_equal(pd_cpu_verify(&a, NULL), PD_OK);
  assert_int_equal(out[0], 37);
  mask[1] = 0; /* 37 masked out again */
  assert_int_equal(pd_cpu_verify(&a, NULL), PD_OK);
  assert_int_equal(out[0], 4);
}

/* Rows where nothing can be drawn end the request with the drafts accepted so far. */
static void test_dead_rows(void **state) {
  (void)state;
  float x[3 * 8];
  for (int i = 0; i < 24; i++) x[i] = (float)(i % 8);
  for (int i = 8; i < 16; i++) x[i] = -INFINITY; /* row 1: all -inf */
  uint32_t mask[3] = {0xFF, 0xFF, 0xFF}, drafts[2] = {7, 7}, out[3], cnt[1], acc[1];
  size_t offs[2] = {0, 2};
  float q[16] = {0};
  q[7] = 1.0f, q[15] = 1.0f;
  for (int mode = PD_VERIFY_GREEDY; mode <= PD_VERIFY_SAMPLE_POINT; mode++) {
    pd_verify_args a = {.mode = (pd_verify_mode)mode, .target_logits = x, .dtype = PD_F32,
                        .width = 8, .bitmask = mask, .n_words = 1, .draft_probs = q,
                        .draft_tokens = drafts, .draft_offsets = offs, .n = 1,
                        .temperature = 0.001f, .out_tokens = out, .out_counts = cnt,
                        .out_accepted = acc, .seed = 5};
    assert_int_equal(pd_cpu_verify(&a, NULL), PD_OK);
    assert_int_equal(cnt[0], 1), assert_int_equal(acc[0], 1), assert_int_equal(out[0], 7);
    mask[0] = 0; /* row 0 all masked: nothing at all */
    assert_int_equal(pd_cpu_verify(&a, NULL), PD_OK);
    assert_int_equal(cnt[0], 0), assert_int_equal(acc[0], 0);
    mask[0] = 0xFF;
  }
}

/* Exact target distribution of a row: p_j = exp((c_j - m) / T) / S in double. */
static void pdt_target(const float *x, const uint32_t *mask, size_t w, double t, double *p) {
  double m = -INFINITY, s = 0;
  for (size_t j = 0; j < w; j++)
    if (pdt_allowed(mask, j) && !isnan(x[j])) m = fmax(m, fmin(x[j], FLT_MAX));
  for (size_t j = 0; j < w; j++) {
    int ok = pdt_allowed(mask, j) && !isnan(x[j]) && x[j] > -INFINITY;
    p[j] = ok ? exp((fmin(x[j], FLT_MAX) - m) / t) : 0.0;
    s += p[j];
  }
  for (size_t j = 0; j < w; j++) p[j] /= s;
}

/* Chi-square of counts against probabilities; a count where p = 0 fails at once. */
static double pdt_chi2(const long *count, const double *p, size_t w) {
  long n = 0;
  double chi = 0;
  for (size_t j = 0; j < w; j++) n += count[j];
  for (size_t j = 0; j < w; j++) {
    if (p[j] == 0) {
      assert_int_equal(count[j], 0);
      continue;
    }
    double e = p[j] * (double)n, d = (double)count[j] - e;
    chi += d * d / e;
  }
  return chi;
}

static uint32_t pdt_draw(const double *q, size_t w) {
  double u = pdt_unit(), c = 0;
  for (size_t j = 0; j < w; j++)
    if ((c += q[j]) > u) return (uint32_t)j;
  return (uint32_t)(w - 1);
}

enum { DW = 7, DK = 2, TRIALS = 20000 };

/* Speculative sampling of DK drafts from q, TRIALS times with a moving Philox offset:
 * emitted token i (when there is one) must follow row i's target p exactly. */
static void pdt_distribution(pd_verify_mode mode, pd_dtype dtype, float t, size_t k) {
  float x[(DK + 1) * DW] = {1.0f, 2.0f, 0.5f, 3.0f, -1.0f, 2.0f, 0.0f,
                            0.0f, 0.3f, 0.6f, 0.9f, 1.2f, 1.5f, 1.8f,
                            2.0f, NAN, 2.0f, 1.0f, INFINITY, -INFINITY, 0.0f};
  uint16_t h[(DK + 1) * DW];
  uint32_t mask[DK + 1] = {0x5F, 0x7E, 0x7F};
  if (k == 0) x[4] = 5.0f; /* the bonus row 0 then sees no +inf */
  for (size_t i = 0; i < (DK + 1) * DW; i++) {
    h[i] = pd_float_to_bf16(x[i]);
    if (dtype == PD_BF16) x[i] = pd_bf16_to_float(h[i]);
  }
  double q[DK][DW] = {{0.1, 0.3, 0.1, 0.05, 0.2, 0.05, 0.2}, {0.4, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1}};
  float qf[DK * DW];
  for (size_t i = 0; i < DK * DW; i++) qf[i] = (float)q[i / DW][i % DW];
  long count[DK + 1][DW] = {{0}};
  size_t offs[2] = {0, k};
  for (long trial = 0; trial < TRIALS; trial++) {
    uint32_t drafts[DK], out[DK + 1], cnt;
    for (size_t i = 0; i < k; i++) drafts[i] = pdt_draw(q[i], DW);
    pd_verify_args a = {.mode = mode, .target_logits = dtype == PD_F32 ? (void *)x : (void *)h,
                        .dtype = dtype, .width = DW, .bitmask = mask, .n_words = 1,
                        .draft_probs = qf, .draft_tokens = drafts, .draft_offsets = offs,
                        .n = 1, .temperature = t, .seed = 77, .offset = (uint64_t)trial * 12,
                        .out_tokens = out, .out_counts = &cnt};
    assert_int_equal(pd_cpu_verify(&a, NULL), PD_OK);
    assert_true(cnt >= 1 && cnt <= k + 1);
    for (size_t i = 0; i < cnt; i++) count[i][out[i]]++;
  }
  for (size_t i = 0; i <= k; i++) {
    double p[DW];
    pdt_target(x + i * DW, mask + i, DW, t, p);
    double chi = pdt_chi2(count[i], p, DW);
    /* df <= 6: 45 is p < 1e-7 for a correct sampler; a wrong one lands in the hundreds */
    assert_true(chi < 45.0);
  }
}

static void test_distribution_sample(void **state) {
  (void)state;
  pdt_distribution(PD_VERIFY_SAMPLE, PD_F32, 1.0f, 2);
  pdt_distribution(PD_VERIFY_SAMPLE, PD_BF16, 0.7f, 2);
  pdt_distribution(PD_VERIFY_SAMPLE, PD_F32, 1.0f, 1);
}

static void test_distribution_point(void **state) {
  (void)state;
  pdt_distribution(PD_VERIFY_SAMPLE_POINT, PD_F32, 1.3f, 2);
  pdt_distribution(PD_VERIFY_SAMPLE_POINT, PD_F32, 1.0f, 0);
}

/* The chi-square must be able to fail: a sampler at the wrong temperature does. */
static void test_chi2_detects_bias(void **state) {
  (void)state;
  float x[DW] = {1.0f, 2.0f, 0.5f, 3.0f, -1.0f, 2.0f, 0.0f};
  uint32_t mask = 0x7F, out[1], cnt;
  size_t offs[2] = {0, 0};
  long count[DW] = {0};
  for (long trial = 0; trial < TRIALS; trial++) {
    pd_verify_args a = {.mode = PD_VERIFY_SAMPLE_POINT, .target_logits = x, .dtype = PD_F32,
                        .width = DW, .bitmask = &mask, .n_words = 1, .draft_offsets = offs,
                        .n = 1, .temperature = 1.1f, .seed = 3, .offset = (uint64_t)trial * 12,
                        .out_tokens = out, .out_counts = &cnt};
    assert_int_equal(pd_cpu_verify(&a, NULL), PD_OK);
    count[out[0]]++;
  }
  double p[DW];
  pdt_target(x, &mask, DW, 1.1, p);
  assert_true(pdt_chi2(count, p, DW) < 45.0);
  pdt_target(x, &mask, DW, 1.0, p);
  assert_true(pdt_chi2(count, p, DW) > 100.0);
}

/* Same arguments, same output; another offset, other draws. */
static void test_deterministic(void **state) {
  (void)state;
  enum { W = 300 };
  float x[2 * W];
  for (int i = 0; i < 2 * W; i++) x[i] = (float)pdt_unit();
  uint32_t drafts[1] = {5}, out[2], cnt, first[64];
  size_t offs[2] = {0, 1};
  pd_verify_args a = {.mode = PD_VERIFY_SAMPLE_POINT, .target_logits = x, .dtype = PD_F32,
                      .width = W, .draft_tokens = drafts, .draft_offsets = offs, .n = 1,
                      .temperature = 1.0f, .seed = 9, .out_tokens = out, .out_counts = &cnt};
  int differ = 0;
  for (int i = 0; i < 64; i++) {
    a.offset = (uint64_t)i * 512;
    assert_int_equal(pd_cpu_verify(&a, NULL), PD_OK);
    first[i] = out[cnt - 1];
    assert_int_equal(pd_cpu_verify(&a, NULL), PD_OK);
    assert_int_equal(out[cnt - 1], first[i]);
    differ |= i && first[i] != first[0];
  }
  assert_true(differ);
}

/* The race's own log (basic IEEE operations, so CPU and GPU agree) is a log. */
static void test_own_log(void **state) {
  (void)state;
  for (double x = 1e-300; x < 1e300; x *= 1.37)
    assert_true(fabs(pd_sampling_log(x) - log(x)) <= 1e-13 * fmax(1.0, fabs(log(x))));
  for (uint32_t m = 0; m < (1u << 23); m += 997) {
    double u = pd_philox_uniform(m << 9);
    assert_true(fabs(pd_sampling_log(u) - log(u)) <= 1e-13 * fmax(1.0, fabs(log(u))));
  }
  assert_true(pd_sampling_log(1.0) == 0.0);
}

/* The shortcut bound of the race holds for every uniform a 32-bit value can give (the
 * race's exactness rests on it) and stays below the coarse bound PD_RACE_BOUND. */
static void test_gumbel_bound(void **state) {
  (void)state;
  for (uint32_t m = 0; m < (1u << 23); m++) {
    uint32_t v = m << 9;
    double g = pd_sampling_key(0.0, v), bound = pd_sampling_gumbel_bound(v);
    if (!(g <= bound)) fail_msg("value %u: -log(E) %.9g above the bound %.9g", v, g, bound);
    assert_true(bound < PD_RACE_BOUND);
  }
  assert_true(pd_sampling_gumbel_bound(UINT32_MAX) < PD_RACE_BOUND);
}

static void test_bad_arguments(void **state) {
  (void)state;
  float x[64] = {0};
  uint32_t drafts[2] = {1, 2}, out[4], cnt[2];
  size_t offs[3] = {0, 1, 2};
  pd_verify_args good = {.mode = PD_VERIFY_SAMPLE_POINT, .target_logits = x, .dtype = PD_F32,
                         .width = 16, .draft_tokens = drafts, .draft_offsets = offs, .n = 2,
                         .temperature = 1.0f, .out_tokens = out, .out_counts = cnt};
  pd_error err;
  assert_int_equal(pd_cpu_verify(&good, &err), PD_OK);
  assert_int_equal(pd_cpu_verify(NULL, &err), PD_ERR_ARG);
  pd_verify_args a = good;
  a.temperature = -1.0f;
  assert_int_equal(pd_cpu_verify(&a, &err), PD_ERR_ARG);
  assert_int_equal(err.code, PD_ERR_ARG);
  a.temperature = NAN;
  assert_int_equal(pd_cpu_verify(&a, NULL), PD_ERR_ARG);
  a.temperature = INFINITY;
  assert_int_equal(pd_cpu_verify(&a, NULL), PD_ERR_ARG);
  a = good, a.mode = PD_VERIFY_SAMPLE; /* no draft_probs */
  assert_int_equal(pd_cpu_verify(&a, NULL), PD_ERR_ARG);
  a = good, a.mode = (pd_verify_mode)9;
  assert_int_equal(pd_cpu_verify(&a, NULL), PD_ERR_ARG);
  a = good, a.dtype = (pd_dtype)9;
  assert_int_equal(pd_cpu_verify(&a, NULL), PD_ERR_ARG);
  a = good, a.width = 2; /* draft 2 >= width */
  assert_int_equal(pd_cpu_verify(&a, NULL), PD_ERR_ARG);
  a = good, a.width = 0;
  assert_int_equal(pd_cpu_verify(&a, NULL), PD_ERR_ARG);
  size_t bad_offs[3] = {0, 2, 1};
  a = good, a.draft_offsets = bad_offs;
  assert_int_equal(pd_cpu_verify(&a, NULL), PD_ERR_ARG);
  a = good, a.out_counts = NULL;
  assert_int_equal(pd_cpu_verify(&a, NULL), PD_ERR_ARG);
  a = good, a.target_logits = NULL;
  assert_int_equal(pd_cpu_verify(&a, NULL), PD_ERR_ARG);
  a = good, a.draft_tokens = NULL;
  assert_int_equal(pd_cpu_verify(&a, NULL), PD_ERR_ARG);
  a = good, a.width = SIZE_MAX / 2;
  assert_int_equal(pd_cpu_verify(&a, NULL), PD_ERR_ARG);
  /* an empty batch reads nothing */
  pd_verify_args empty = {.mode = PD_VERIFY_GREEDY, .n = 0};
  assert_int_equal(pd_cpu_verify(&empty, NULL), PD_OK);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_greedy_brute_force),  cmocka_unit_test(test_greedy_ties_nan_inf),
      cmocka_unit_test(test_dead_rows),           cmocka_unit_test(test_distribution_sample),
      cmocka_unit_test(test_distribution_point),  cmocka_unit_test(test_chi2_detects_bias),
      cmocka_unit_test(test_deterministic),       cmocka_unit_test(test_bad_arguments),
      cmocka_unit_test(test_gumbel_bound),        cmocka_unit_test(test_own_log),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
