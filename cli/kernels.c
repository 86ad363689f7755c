/* kernels.c - `pushdown kernels-selftest` and `pushdown bench kernels`.
 *
 * The self-test checks the CPU twins against brute-force references written here from
 * the contract in pushdown.h (not from the twins' code), then, when a GPU is usable, the
 * GPU kernels against the CPU twins on the same inputs. The benchmark times the GPU
 * kernels beside the unfused path, or the CPU twins when there is no GPU. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "kernels/dtype.h"
#include "kernels/gpu.h"
#include "kernels/sampling.h"
#include "util.h"

#define PDK_NONE UINT32_MAX

/* ------------------------------------------------------------------ inputs */

static uint32_t pdk_next(uint64_t *s) { /* splitmix64, for inputs only */
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return (uint32_t)((z ^ (z >> 31)) >> 32);
}

static float pdk_unit(uint64_t *s) { return (float)((pdk_next(s) >> 8) + 0.5) / 16777216.0f; }

/* A host batch for pd_verify_args, owning every buffer. */
typedef struct pdk_batch {
  pd_verify_mode mode;
  pd_dtype dtype;
  size_t width, n_words, n, rows, drafts;
  float temperature;
  void *logits;
  uint32_t *mask, *draft_tokens, *out_tokens, *out_counts, *out_accepted;
  float *q;
  size_t *offs;
} pdk_batch;

static void pdk_batch_free(pdk_batch *b) {
  free(b->logits), free(b->mask), free(b->draft_tokens), free(b->out_tokens);
  free(b->out_counts), free(b->out_accepted), free(b->q), free(b->offs);
  memset(b, 0, sizeof *b);
}

static void pdk_store(void *buf, pd_dtype t, size_t i, float v) {
  if (t == PD_F32) ((float *)buf)[i] = v;
  else if (t == PD_BF16) ((uint16_t *)buf)[i] = pd_float_to_bf16(v);
  else ((uint16_t *)buf)[i] = pd_float_to_f16(v);
}

/* Row kinds: the adversarial cases the issue lists, mixed with plain random rows. */
enum { PDK_PLAIN, PDK_DEAD, PDK_SINGLE, PDK_HUGE, PDK_NAN, PDK_TIES, PDK_POSINF, PDK_PEAKED,
       PDK_KINDS };

static float pdk_logit(int kind, uint64_t *s) {
  float v = pdk_unit(s) * 16.0f - 8.0f;
  switch (kind) {
    case PDK_HUGE: {
      uint32_t c = pdk_next(s) % 4;
      return c == 0 ? -INFINITY : c == 1 ? 3.0e38f : c == 2 ? -3.0e38f : v * 1e30f;
    }
    case PDK_NAN: return pdk_next(s) % 3 == 0 ? NAN : v;
    case PDK_TIES: return (float)(pdk_next(s) % 3); /* exact in bf16: many equal maxima */
    case PDK_POSINF: return pdk_next(s) % 50 == 0 ? INFINITY : v;
    /* a confident model's: one token in 500 far above the rest (the race skips most of
     * such a row by the segments' maxima) */
    case PDK_PEAKED: return pdk_next(s) % 500 == 0 ? 20.0f + 8.0f * pdk_unit(s) : v;
    default: return v;
  }
}

static void pdk_fill_mask(uint32_t *m, size_t n_words, size_t width, int kind, uint64_t *s) {
  uint32_t density = pdk_next(s) % 3; /* all ones, half, sparse */
  for (size_t w = 0; w < n_words; w++)
    m[w] = density == 0 ? 0xFFFFFFFFu : density == 1 ? pdk_next(s)
                                                     : pdk_next(s) & pdk_next(s) & pdk_next(s);
  if (kind == PDK_DEAD) memset(m, 0, n_words * sizeof *m);
  if (kind == PDK_SINGLE) {
    memset(m, 0, n_words * sizeof *m);
    size_t t = pdk_next(s) % width;
    m[t / 32] |= 1u << (t % 32);
  }
}

/* kind < 0: plain, or one of the others for about a third of the rows */
static void pdk_fill_row(pdk_batch *b, size_t g, int kind, uint64_t *s) {
  if (kind < 0) kind = pdk_next(s) % 3 == 0 ? (int)(pdk_next(s) % PDK_KINDS) : PDK_PLAIN;
  for (size_t j = 0; j < b->width; j++)
    pdk_store(b->logits, b->dtype, g * b->width + j, pdk_logit(kind, s));
  pdk_fill_mask(b->mask + g * b->n_words, b->n_words, b->width, kind, s);
}

/* Drafts: often the row's best allowed token (so some are accepted), else anything. */
static uint32_t pdk_pick_draft(const pdk_batch *b, size_t g, uint64_t *s) {
  if (pdk_next(s) % 2) return pdk_next(s) % (uint32_t)b->width;
  uint32_t best = pdk_next(s) % (uint32_t)b->width;
  float bv = -INFINITY;
  for (size_t j = 0; j < b->width; j++) {
    float v = pd_dtype_load((const char *)b->logits + g * b->width * pd_dtype_size(b->dtype),
                            b->dtype, j);
    int ok = (b->mask[g * b->n_words + j / 32] >> (j % 32)) & 1;
    if (ok && v > bv) bv = v, best = (uint32_t)j;
  }
  return best;
}

static void pdk_fill_q(pdk_batch *b, size_t d, uint32_t x, uint64_t *s) {
  float *q = b->q + d * b->width, sum = 0.0f;
  for (size_t j = 0; j < b->width; j++) sum += q[j] = pdk_unit(s) * pdk_unit(s);
  q[x] += sum * pdk_unit(s) * 3.0f; /* the drafter usually liked its draft */
  sum = 0.0f;
  for (size_t j = 0; j < b->width; j++) sum += q[j];
  for (size_t j = 0; j < b->width; j++) q[j] /= sum;
}

/* n requests with k drafts each (k < 0: 0..8 mixed), rows of the given kind (< 0: mixed).
 * false when out of memory. */
static bool pdk_batch_make(pdk_batch *b, pd_verify_mode mode, pd_dtype dtype, size_t width,
                           size_t n, int k, float temperature, uint64_t seed, int kind) {
  uint64_t s = seed;
  memset(b, 0, sizeof *b);
  b->mode = mode, b->dtype = dtype, b->width = width, b->n = n, b->temperature = temperature;
  b->n_words = (width + 31) / 32;
  if (!(b->offs = calloc(n + 1, sizeof *b->offs))) return false;
  for (size_t r = 0; r < n; r++)
    b->offs[r + 1] = b->offs[r] + (k < 0 ? pdk_next(&s) % 9 : (uint32_t)k);
  b->drafts = b->offs[n], b->rows = b->drafts + n;
  b->logits = malloc(b->rows * width * pd_dtype_size(dtype) + 1);
  b->mask = malloc(b->rows * b->n_words * 4 + 1);
  b->q = malloc(b->drafts * width * 4 + 1);
  b->draft_tokens = malloc(b->drafts * 4 + 1);
  b->out_tokens = malloc(b->rows * 4 + 1);
  b->out_counts = malloc(n * 4 + 1), b->out_accepted = malloc(n * 4 + 1);
  if (!b->logits || !b->mask || !b->q || !b->draft_tokens || !b->out_tokens || !b->out_counts ||
      !b->out_accepted)
    return false;
  for (size_t g = 0; g < b->rows; g++) pdk_fill_row(b, g, kind, &s);
  for (size_t r = 0; r < n; r++)
    for (size_t d = b->offs[r]; d < b->offs[r + 1]; d++) {
      b->draft_tokens[d] = pdk_pick_draft(b, d + r, &s);
      pdk_fill_q(b, d, b->draft_tokens[d], &s);
    }
  return true;
}

static pd_verify_args pdk_args(pdk_batch *b, uint64_t seed, uint64_t offset) {
  pd_verify_args a = {.mode = b->mode, .target_logits = b->logits, .dtype = b->dtype,
                      .width = b->width, .bitmask = b->mask, .n_words = b->n_words,
                      .draft_probs = b->q, .draft_tokens = b->draft_tokens,
                      .draft_offsets = b->offs, .n = b->n, .temperature = b->temperature,
                      .seed = seed, .offset = offset, .out_tokens = b->out_tokens,
                      .out_counts = b->out_counts, .out_accepted = b->out_accepted};
  return a;
}

/* ------------------------------------------- references from the header's contract */

/* Philox4x32-10 from its definition, and curand_init's counter layout. */
static void pdk_ref_philox(uint64_t seed, uint64_t sub, uint64_t value, uint32_t *out) {
  uint64_t blk = value / 4;
  uint32_t c[4] = {(uint32_t)blk, (uint32_t)(blk >> 32), (uint32_t)sub, (uint32_t)(sub >> 32)};
  uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
  for (int i = 0; i < 10; i++, k0 += 0x9E3779B9u, k1 += 0xBB67AE85u) {
    uint64_t p0 = (uint64_t)0xD2511F53u * c[0], p1 = (uint64_t)0xCD9E8D57u * c[2];
    uint32_t n[4] = {(uint32_t)(p1 >> 32) ^ c[1] ^ k0, (uint32_t)p1,
                     (uint32_t)(p0 >> 32) ^ c[3] ^ k1, (uint32_t)p0};
    memcpy(c, n, sizeof c);
  }
  *out = c[value % 4];
}

static float pdk_ref_uniform(uint32_t v) { return ((float)(v >> 9) + 0.5f) / 8388608.0f; }

/* c_j and the row's m, as the header defines them. */
static float pdk_ref_c(const pdk_batch *b, size_t g, size_t j) {
  const uint32_t *m = b->mask + g * b->n_words;
  float l = pd_dtype_load((const char *)b->logits + g * b->width * pd_dtype_size(b->dtype),
                          b->dtype, j);
  if (!((m[j / 32] >> (j % 32)) & 1) || isnan(l)) return -INFINITY;
  return l > FLT_MAX ? FLT_MAX : l;
}

typedef struct pdk_ref_row {
  float m, inv_t, s;
  uint32_t argmax;
} pdk_ref_row;

static float pdk_ref_logw(const pdk_batch *b, const pdk_ref_row *r, size_t g, size_t j) {
  float c = pdk_ref_c(b, g, j);
  return c == -INFINITY ? -INFINITY : (c - r->m) * r->inv_t;
}

static pdk_ref_row pdk_ref_scan(const pdk_batch *b, size_t g) {
  pdk_ref_row r = {-INFINITY, b->temperature >= FLT_MIN ? 1.0f / b->temperature : 0.0f, 0.0f,
                   PDK_NONE};
  for (size_t j = 0; j < b->width; j++) {
    float c = pdk_ref_c(b, g, j);
    if (c > r.m) r.m = c, r.argmax = (uint32_t)j;
  }
  for (size_t j = 0; r.argmax != PDK_NONE && j < b->width; j++)
    r.s += expf(pdk_ref_logw(b, &r, g, j));
  return r;
}

/* Exponential race over every token with a weight, no shortcuts. resid: use max(0,p-q). */
static uint32_t pdk_ref_race(const pdk_batch *b, const pdk_ref_row *r, size_t g,
                             uint32_t exclude, const float *resid, uint64_t seed,
                             uint64_t offset) {
  double best = -INFINITY, lw;
  uint32_t tok = PDK_NONE;
  for (size_t j = 0; j < b->width; j++) {
    float c = pdk_ref_c(b, g, j);
    lw = j == exclude || c == -INFINITY ? -INFINITY : (double)c * (double)r->inv_t;
    if (resid) {
      float d = expf(pdk_ref_logw(b, r, g, j)) / r->s - (resid[j] > 0.0f ? resid[j] : 0.0f);
      lw = d > 0.0f ? pd_sampling_log(d) : -INFINITY;
    }
    if (lw == -INFINITY) continue;
    uint32_t v;
    pdk_ref_philox(seed, g, offset + 4 + j, &v);
    double key = lw - pd_sampling_log(-pd_sampling_log(pdk_ref_uniform(v)));
    if (tok == PDK_NONE || key > best) best = key, tok = (uint32_t)j;
  }
  return tok;
}

/* One request by the letter of the contract; returns the count, fills out / *acc. */
static uint32_t pdk_ref_request(const pdk_batch *b, size_t rq, uint64_t seed, uint64_t offset,
                                uint32_t *out, uint32_t *acc) {
  int greedy = b->mode == PD_VERIFY_GREEDY || b->temperature < FLT_MIN;
  size_t d0 = b->offs[rq], k = b->offs[rq + 1] - d0;
  uint32_t n = 0;
  *acc = 0;
  for (size_t i = 0; i <= k; i++) {
    size_t g = d0 + rq + i;
    pdk_ref_row r = pdk_ref_scan(b, g);
    if (r.argmax == PDK_NONE) return n;
    uint32_t t;
    if (i == k) {
      t = greedy ? r.argmax : pdk_ref_race(b, &r, g, PDK_NONE, NULL, seed, offset);
      if (t != PDK_NONE) out[n++] = t;
      return n;
    }
    uint32_t x = b->draft_tokens[d0 + i], v;
    const float *q = b->q + (d0 + i) * b->width;
    float qx = b->mode == PD_VERIFY_SAMPLE ? (q[x] > 0.0f ? q[x] : 0.0f) : 1.0f;
    pdk_ref_philox(seed, g, offset, &v);
    int ok = greedy ? x == r.argmax
                    : pdk_ref_uniform(v) * qx < expf(pdk_ref_logw(b, &r, g, x)) / r.s;
    if (ok) {
      out[n++] = x, (*acc)++;
      continue;
    }
    t = greedy ? r.argmax : PDK_NONE;
    if (!greedy && b->mode == PD_VERIFY_SAMPLE) t = pdk_ref_race(b, &r, g, PDK_NONE, q, seed,
                                                                 offset);
    if (!greedy && t == PDK_NONE) t = pdk_ref_race(b, &r, g, x, NULL, seed, offset);
    if (t != PDK_NONE) out[n++] = t;
    return n;
  }
  return n;
}

/* ------------------------------------------------------------------ checks */

typedef struct pdk_report {
  int failed, ran;
} pdk_report;

static void pdk_line(pdk_report *rep, bool ok, const char *name, const char *detail) {
  rep->ran++;
  if (!ok) rep->failed++;
  printf("%s %s%s%s\n", ok ? "ok  " : "FAIL", name, detail[0] ? ": " : "", detail);
  fflush(stdout);
}

static void pdk_check_philox(pdk_report *rep) {
  static const uint32_t kat[4] = {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8};
  uint32_t out[4];
  pd_philox4x32_10(0, 0, 0, out);
  pdk_line(rep, !memcmp(out, kat, sizeof kat), "philox known answer (Random123 vector 0)", "");
  const uint64_t vals[] = {0, 1, 3, 5, 0xffffffffull, 0x123456789abcdefull, UINT64_MAX};
  int bad = 0;
  for (int a = 0; a < 7; a++)
    for (int c = 0; c < 7; c++) {
      pd_philox4x32_10(vals[a], vals[6 - a], vals[c], out);
      for (uint64_t i = 0; i < 4; i++) {
        uint32_t v;
        pdk_ref_philox(vals[a], vals[6 - a], vals[c] + i, &v);
        /* past 2^64 - 1 values the stream goes on in the next block of cuRAND's 128-bit
         * counter, which this 64-bit offset cannot name: not compared */
        bad += out[i] != v && vals[c] + i >= vals[c];
      }
    }
  char d[64] = "";
  if (bad) snprintf(d, sizeof d, "%d values differ", bad);
  pdk_line(rep, !bad, "philox stream vs definition (seed, subsequence, offset)", d);
}

static void pdk_ref_apply(float *x, const uint32_t *m, size_t n_words, size_t width) {
  for (size_t j = 0; j < width; j++)
    if (j / 32 >= n_words || !((m[j / 32] >> (j % 32)) & 1)) x[j] = -INFINITY;
}

/* One row per mask kind at this width; compares bit patterns after conversion. */
static void pdk_check_apply(pdk_report *rep, pd_dtype t, size_t width, uint64_t seed) {
  enum { ROWS = 8 };
  size_t nw = (width + 31) / 32, es = pd_dtype_size(t), bad = 0;
  float *ref = malloc(ROWS * width * sizeof *ref);
  void *buf = malloc(ROWS * width * es);
  uint32_t *mask = malloc(ROWS * nw * 4);
  char name[96];
  snprintf(name, sizeof name, "apply_bitmask %s width %zu", t == PD_F32 ? "fp32" : t == PD_F16
           ? "fp16" : "bf16", width);
  if (!ref || !buf || !mask) {
    pdk_line(rep, false, name, "out of memory");
    free(ref), free(buf), free(mask);
    return;
  }
  uint64_t s = seed;
  for (size_t r = 0; r < ROWS; r++) {
    pdk_fill_mask(mask + r * nw, nw, width, (int)(r % PDK_KINDS), &s);
    for (size_t j = 0; j < width; j++) {
      pdk_store(buf, t, r * width + j, pdk_logit((int)(r % PDK_KINDS), &s));
      ref[r * width + j] = pd_dtype_load(buf, t, r * width + j);
    }
    pdk_ref_apply(ref + r * width, mask + r * nw, r == 7 ? nw / 2 : nw, width);
  }
  pd_error err;
  pd_status st = PD_OK;
  for (size_t r = 0; r < ROWS && st == PD_OK; r++) /* the last row sees a short mask */
    st = pd_cpu_apply_bitmask((char *)buf + r * width * es, t, 1, width, width, mask + r * nw,
                              1, r == 7 ? nw / 2 : nw, NULL, &err);
  for (size_t i = 0; st == PD_OK && i < ROWS * width; i++) {
    float g = pd_dtype_load(buf, t, i);
    bad += !(g == ref[i] || (isnan(g) && isnan(ref[i])));
  }
  char d[300] = "";
  if (st != PD_OK) snprintf(d, sizeof d, "%s", err.message);
  else if (bad) snprintf(d, sizeof d, "%zu logits differ from the naive loop", bad);
  pdk_line(rep, st == PD_OK && !bad, name, d);
  free(ref), free(buf), free(mask);
}

static const char *pdk_mode_name(pd_verify_mode m) {
  return m == PD_VERIFY_GREEDY ? "greedy" : m == PD_VERIFY_SAMPLE ? "sample" : "sample-point";
}
static const char *pdk_dtype_name(pd_dtype t) {
  return t == PD_F32 ? "fp32" : t == PD_F16 ? "fp16" : "bf16";
}

/* Twin vs reference on one batch; returns the number of requests that differ. */
static size_t pdk_compare_ref(pdk_batch *b, uint64_t seed, uint64_t offset) {
  size_t bad = 0;
  uint32_t out[16], acc;
  for (size_t r = 0; r < b->n; r++) {
    uint32_t n = pdk_ref_request(b, r, seed, offset, out, &acc);
    const uint32_t *got = b->out_tokens + b->offs[r] + r;
    bad += n != b->out_counts[r] || acc != b->out_accepted[r] ||
           memcmp(out, got, n * sizeof *out) != 0;
  }
  return bad;
}

static void pdk_check_verify(pdk_report *rep, pd_verify_mode mode, pd_dtype t, size_t width,
                             size_t n, int k, float temp, uint64_t seed) {
  pdk_batch b;
  char name[128], d[300] = "";
  snprintf(name, sizeof name, "verify %s %s width %zu batch %zu k=%s%d T=%g", pdk_mode_name(mode),
           pdk_dtype_name(t), width, n, k < 0 ? "mixed " : "", k < 0 ? 8 : k, temp);
  if (!pdk_batch_make(&b, mode, t, width, n, k, temp, seed, -1)) {
    pdk_line(rep, false, name, "out of memory");
    pdk_batch_free(&b);
    return;
  }
  pd_verify_args a = pdk_args(&b, seed * 31 + 7, seed * 4096);
  pd_error err;
  pd_status st = pd_cpu_verify(&a, &err);
  size_t bad = st == PD_OK ? pdk_compare_ref(&b, a.seed, a.offset) : 0;
  if (st != PD_OK) snprintf(d, sizeof d, "%s", err.message);
  else if (bad) snprintf(d, sizeof d, "%zu of %zu requests differ from the reference", bad, n);
  pdk_line(rep, st == PD_OK && !bad, name, d);
  pdk_batch_free(&b);
}

static void pdk_check_bad_args(pdk_report *rep) {
  float x[32] = {0};
  uint32_t m = 1, out[2], cnt[1], tok = 40;
  size_t offs[2] = {0, 1};
  pd_verify_args a = {.mode = PD_VERIFY_GREEDY, .target_logits = x, .dtype = PD_F32,
                      .width = 32, .draft_tokens = &tok, .draft_offsets = offs, .n = 1,
                      .out_tokens = out, .out_counts = cnt};
  pd_verify_args e = {.mode = PD_VERIFY_SAMPLE, .n = 0};
  bool ok = pd_cpu_verify(&a, NULL) == PD_ERR_ARG && pd_cpu_verify(NULL, NULL) == PD_ERR_ARG;
  a.draft_tokens = &m, a.temperature = -1.0f;
  ok = ok && pd_cpu_verify(&a, NULL) == PD_ERR_ARG;
  ok = ok && pd_cpu_apply_bitmask(x, PD_F32, 1, 33, 32, &m, 1, 1, NULL, NULL) == PD_ERR_ARG;
  ok = ok && pd_cpu_apply_bitmask(x, PD_F32, 2, 32, 32, &m, 1, 1, NULL, NULL) == PD_ERR_ARG;
  pdk_line(rep, ok, "bad arguments -> PD_ERR_ARG", "");
  pdk_line(rep, pd_cpu_verify(&e, NULL) == PD_OK, "verify empty batch", "");
}

static void pdk_cpu_checks(pdk_report *rep, bool quick) {
  pdk_check_philox(rep);
  const size_t widths[] = {1, 31, 33, 100, 1000, 32000};
  for (int t = PD_F32; t <= PD_BF16; t++)
    for (size_t w = 0; w < (quick ? 4u : 6u); w++)
      pdk_check_apply(rep, (pd_dtype)t, widths[w], 100 + w * 3 + (size_t)t);
  for (int mode = PD_VERIFY_GREEDY; mode <= PD_VERIFY_SAMPLE_POINT; mode++)
    for (int k = 0; k <= 8; k++)
      pdk_check_verify(rep, (pd_verify_mode)mode, (pd_dtype)(k % 3), 77 + 64 * k, 6, k,
                       k == 3 ? 0.0f : 0.6f + 0.1f * (float)k, 1000 + 10 * (uint64_t)k + mode);
  for (int t = PD_F32; t <= PD_BF16; t++)
    pdk_check_verify(rep, PD_VERIFY_SAMPLE, (pd_dtype)t, quick ? 2000 : 32003, 4, -1, 1.0f,
                     5000 + (uint64_t)t);
  pdk_check_bad_args(rep);
}

/* ---------------------------------------------------------------- GPU checks */

/* Device copies of a batch's buffers (the outputs stay separate from the host's). */
typedef struct pdk_dev {
  void *logits, *ws;
  uint32_t *mask, *drafts, *out_tokens, *out_counts, *out_accepted;
  float *q;
  size_t *offs;
} pdk_dev;

static void pdk_dev_free(pdk_dev *d) {
  pd_gpu_free(d->logits), pd_gpu_free(d->ws), pd_gpu_free(d->mask), pd_gpu_free(d->drafts);
  pd_gpu_free(d->out_tokens), pd_gpu_free(d->out_counts), pd_gpu_free(d->out_accepted);
  pd_gpu_free(d->q), pd_gpu_free(d->offs);
  memset(d, 0, sizeof *d);
}

static pd_status pdk_put(void **dst, const void *src, size_t bytes, pd_error *err) {
  pd_status st = pd_gpu_alloc(dst, bytes, err);
  if (st == PD_OK && src && bytes) st = pd_gpu_upload(*dst, src, bytes, err);
  return st;
}

static pd_status pdk_dev_make(const pdk_batch *b, pdk_dev *d, pd_error *err) {
  pd_status st;
  memset(d, 0, sizeof *d);
  if ((st = pdk_put(&d->logits, b->logits, b->rows * b->width * pd_dtype_size(b->dtype), err)) ||
      (st = pdk_put((void **)&d->mask, b->mask, b->rows * b->n_words * 4, err)) ||
      (st = pdk_put((void **)&d->drafts, b->draft_tokens, b->drafts * 4, err)) ||
      (st = pdk_put((void **)&d->q, b->q, b->drafts * b->width * 4, err)) ||
      (st = pdk_put((void **)&d->offs, b->offs, (b->n + 1) * sizeof *b->offs, err)) ||
      (st = pdk_put((void **)&d->out_tokens, NULL, b->rows * 4, err)) ||
      (st = pdk_put((void **)&d->out_counts, NULL, b->n * 4, err)) ||
      (st = pdk_put((void **)&d->out_accepted, NULL, b->n * 4, err)) ||
      (st = pdk_put(&d->ws, NULL, pd_cuda_verify_workspace(b->rows, b->width), err)))
    return st;
  return PD_OK;
}

static pd_verify_args pdk_dev_args(const pdk_batch *b, const pdk_dev *d, uint64_t seed,
                                   uint64_t offset) {
  pd_verify_args a = {.mode = b->mode, .target_logits = d->logits, .dtype = b->dtype,
                      .width = b->width, .bitmask = d->mask, .n_words = b->n_words,
                      .draft_probs = d->q, .draft_tokens = d->drafts, .draft_offsets = d->offs,
                      .n = b->n, .temperature = b->temperature, .seed = seed,
                      .offset = offset, .out_tokens = d->out_tokens,
                      .out_counts = d->out_counts, .out_accepted = d->out_accepted};
  return a;
}

/* Runs the GPU verifier and counts requests whose output differs from the CPU twin's. */
static pd_status pdk_gpu_vs_cpu(pdk_batch *b, uint64_t seed, uint64_t offset, size_t *bad,
                                pd_error *err) {
  pdk_dev d = {0};
  uint32_t *tok = malloc(b->rows * 4 + 1), *cnt = malloc(b->n * 4 + 1), *acc = malloc(b->n * 4 + 1);
  pd_status st = tok && cnt && acc ? pdk_dev_make(b, &d, err) : PD_ERR_NOMEM;
  pd_verify_args ga = pdk_dev_args(b, &d, seed, offset), ca = pdk_args(b, seed, offset);
  if (st == PD_OK) st = pd_cuda_verify(&ga, b->rows, d.ws,
                                       pd_cuda_verify_workspace(b->rows, b->width),
                                       NULL, err);
  if (st == PD_OK) st = pd_gpu_sync(err);
  if (st == PD_OK && !(st = pd_gpu_download(tok, d.out_tokens, b->rows * 4, err)) &&
      !(st = pd_gpu_download(cnt, d.out_counts, b->n * 4, err)))
    st = pd_gpu_download(acc, d.out_accepted, b->n * 4, err);
  if (st == PD_OK) st = pd_cpu_verify(&ca, err);
  for (size_t r = 0; st == PD_OK && r < b->n; r++) {
    size_t o = b->offs[r] + r;
    *bad += cnt[r] != b->out_counts[r] || acc[r] != b->out_accepted[r] ||
            memcmp(tok + o, b->out_tokens + o, cnt[r] * 4) != 0;
  }
  if (st == PD_ERR_NOMEM && err) snprintf(err->message, sizeof err->message, "out of memory");
  pdk_dev_free(&d);
  free(tok), free(cnt), free(acc);
  return st;
}

static void pdk_gpu_check_verify(pdk_report *rep, pd_verify_mode mode, pd_dtype t, size_t width,
                                 size_t n, int k, float temp, uint64_t seed, int kind) {
  pdk_batch b;
  char name[128], d[300] = "";
  snprintf(name, sizeof name, "gpu verify %s %s width %zu batch %zu k=%s%d T=%g%s vs cpu",
           pdk_mode_name(mode), pdk_dtype_name(t), width, n, k < 0 ? "mixed " : "",
           k < 0 ? 8 : k, temp, kind == PDK_PEAKED ? " peaked" : "");
  pd_error err = {0};
  size_t bad = 0;
  pd_status st = pdk_batch_make(&b, mode, t, width, n, k, temp, seed, kind)
                     ? pdk_gpu_vs_cpu(&b, seed * 31 + 7, seed * 4096, &bad, &err)
                     : PD_ERR_NOMEM;
  if (st != PD_OK) snprintf(d, sizeof d, "%s: %s", pd_status_str(st), err.message);
  else if (bad) snprintf(d, sizeof d, "%zu of %zu requests differ", bad, n);
  pdk_line(rep, st == PD_OK && !bad, name, d);
  pdk_batch_free(&b);
}

static void pdk_gpu_check_philox(pdk_report *rep) {
  enum { N = 64 };
  const uint64_t cases[3][3] = {{0, 0, 0}, {0x123456789abcdefull, 5, 7}, {UINT64_MAX, 1ull << 40,
                                                                          0xfffffffdull}};
  for (int c = 0; c < 3; c++) {
    uint32_t *dseq = NULL, *dinit = NULL, seq[N], init[4 * N];
    pd_error err = {0};
    pd_status st = pd_gpu_alloc((void **)&dseq, sizeof seq, &err);
    if (st == PD_OK) st = pd_gpu_alloc((void **)&dinit, sizeof init, &err);
    if (st == PD_OK) st = pd_gpu_philox(cases[c][0], cases[c][1], cases[c][2], N, dseq, dinit,
                                        &err);
    if (st == PD_OK) st = pd_gpu_sync(&err);
    if (st == PD_OK) st = pd_gpu_download(seq, dseq, sizeof seq, &err);
    if (st == PD_OK) st = pd_gpu_download(init, dinit, sizeof init, &err);
    int bad = 0;
    for (uint64_t i = 0; st == PD_OK && i < N; i += 4) {
      uint32_t out[4];
      pd_philox4x32_10(cases[c][0], cases[c][1], cases[c][2] + i, out);
      bad += memcmp(out, seq + i, sizeof out) != 0;
    }
    for (uint64_t i = 0; st == PD_OK && i < N; i++) {
      uint32_t out[4];
      pd_philox4x32_10(cases[c][0], cases[c][1], cases[c][2] + 4 * i, out);
      bad += memcmp(out, init + 4 * i, sizeof out) != 0;
    }
    char name[96], d[300] = "";
    snprintf(name, sizeof name, "gpu philox (cuRAND curand_init/curand/curand4) case %d", c);
    if (st != PD_OK) snprintf(d, sizeof d, "%s", err.message);
    else if (bad) snprintf(d, sizeof d, "%d blocks differ from pd_philox4x32_10", bad);
    pdk_line(rep, st == PD_OK && !bad, name, d);
    pd_gpu_free(dseq), pd_gpu_free(dinit);
  }
}

/* GPU apply vs CPU apply, byte for byte, with an index list (some rows skipped) and a
 * stride that is or is not a multiple of 16 bytes. */
static void pdk_gpu_check_apply(pdk_report *rep, pd_dtype t, size_t width, size_t stride,
                                uint64_t seed) {
  enum { ROWS = 9 };
  size_t nw = (width + 31) / 32, es = pd_dtype_size(t), bytes = ROWS * stride * es;
  uint8_t *host = malloc(bytes), *back = malloc(bytes);
  uint32_t *mask = malloc(ROWS * nw * 4);
  int32_t idx[ROWS];
  uint64_t s = seed;
  void *dl = NULL, *dm = NULL, *di = NULL;
  pd_error err = {0};
  pd_status st = host && back && mask ? PD_OK : PD_ERR_NOMEM;
  for (size_t r = 0; st == PD_OK && r < ROWS; r++) {
    pdk_fill_mask(mask + r * nw, nw, width, (int)(r % PDK_KINDS), &s);
    for (size_t j = 0; j < stride; j++) pdk_store(host, t, r * stride + j, pdk_logit(0, &s));
    idx[r] = r == 4 ? -1 : (int32_t)(ROWS - 1 - r);
  }
  if (st == PD_OK) st = pdk_put(&dl, host, bytes, &err);
  if (st == PD_OK) st = pdk_put(&dm, mask, ROWS * nw * 4, &err);
  if (st == PD_OK) st = pdk_put(&di, idx, sizeof idx, &err);
  if (st == PD_OK) st = pd_cuda_apply_bitmask(dl, t, ROWS, width, stride, dm, ROWS, nw, di, NULL,
                                              &err);
  if (st == PD_OK) st = pd_gpu_sync(&err);
  if (st == PD_OK) st = pd_gpu_download(back, dl, bytes, &err);
  if (st == PD_OK) st = pd_cpu_apply_bitmask(host, t, ROWS, width, stride, mask, ROWS, nw, idx,
                                             &err);
  char name[96], d[300] = "";
  snprintf(name, sizeof name, "gpu apply_bitmask %s width %zu stride %zu vs cpu",
           pdk_dtype_name(t), width, stride);
  bool same = st == PD_OK && memcmp(host, back, bytes) == 0;
  if (st != PD_OK) snprintf(d, sizeof d, "%s", err.message);
  else if (!same) snprintf(d, sizeof d, "bytes differ");
  pdk_line(rep, same, name, d);
  pd_gpu_free(dl), pd_gpu_free(dm), pd_gpu_free(di);
  free(host), free(back), free(mask);
}

static void pdk_gpu_checks(pdk_report *rep, bool quick) {
  pdk_gpu_check_philox(rep);
  const size_t widths[] = {1, 31, 33, 1000, 32000, 128256};
  for (int t = PD_F32; t <= PD_BF16; t++)
    for (size_t w = 0; w < 6; w++) {
      pdk_gpu_check_apply(rep, (pd_dtype)t, widths[w], widths[w], 300 + w);
      pdk_gpu_check_apply(rep, (pd_dtype)t, widths[w], widths[w] + 8, 400 + w);
    }
  for (int mode = PD_VERIFY_GREEDY; mode <= PD_VERIFY_SAMPLE_POINT; mode++)
    for (int k = 0; k <= 8; k++)
      pdk_gpu_check_verify(rep, (pd_verify_mode)mode, (pd_dtype)(k % 3), 77 + 64 * k, 6, k,
                           k == 3 ? 0.0f : 0.6f + 0.1f * (float)k, 1000 + 10 * (uint64_t)k + mode,
                           -1);
  for (int mode = PD_VERIFY_GREEDY; mode <= PD_VERIFY_SAMPLE_POINT; mode++)
    for (int t = PD_F32; t <= PD_BF16; t++)
      pdk_gpu_check_verify(rep, (pd_verify_mode)mode, (pd_dtype)t, quick ? 5000 : 128256, 16,
                           -1, 0.8f, 7000 + (uint64_t)(mode * 3 + t), -1);
  /* every row peaked: the race skips most segments, for draws from p and residuals alike */
  for (int mode = PD_VERIFY_SAMPLE; mode <= PD_VERIFY_SAMPLE_POINT; mode++)
    for (int t = PD_F32; t <= PD_BF16; t++)
      pdk_gpu_check_verify(rep, (pd_verify_mode)mode, (pd_dtype)t, quick ? 5000 : 32003, 16,
                           -1, 0.8f, 7100 + (uint64_t)(mode * 3 + t), PDK_PEAKED);
  pd_error err = {0};
  pd_verify_args ea = {.mode = PD_VERIFY_SAMPLE, .n = 0};
  pd_status st = pd_cuda_verify(&ea, 0, NULL, 0, NULL, &err);
  pdk_line(rep, st == PD_OK, "gpu verify empty batch", st == PD_OK ? "" : err.message);
  /* refused before anything is read or queued: the pointers are never followed */
  uint32_t dummy[4] = {0};
  size_t offs[2] = {0, 0};
  pd_verify_args wa = {.mode = PD_VERIFY_GREEDY, .target_logits = dummy, .dtype = PD_BF16,
                       .width = (size_t)1 << 31, .draft_offsets = offs, .n = 1,
                       .out_tokens = dummy, .out_counts = dummy};
  st = pd_cuda_verify(&wa, 1, dummy, sizeof dummy, NULL, &err);
  pdk_line(rep, st == PD_ERR_ARG, "gpu verify width 2^31 -> PD_ERR_ARG",
           st == PD_ERR_ARG ? "" : pd_status_str(st));
}

int pd_cli_kernels_selftest(int argc, char **argv) {
  bool quick = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--quick")) quick = true;
    else return pd_cli_usage("kernels-selftest [--quick]: unknown argument '%s'", argv[i]);
  }
  pdk_report cpu = {0, 0}, gpu = {0, 0};
  pdk_cpu_checks(&cpu, quick);
  char name[256];
  bool have_gpu = pd_cuda_available(name, sizeof name);
  if (have_gpu) {
    printf("gpu device: %s\n", name);
    pdk_gpu_checks(&gpu, quick);
  }
  printf("%s\n", cpu.failed ? "cpu FAILED" : "cpu ok");
  printf("%s\n", !have_gpu ? "gpu: not available" : gpu.failed ? "gpu FAILED" : "gpu ok");
  return cpu.failed || gpu.failed ? 1 : 0;
}

/* ---------------------------------------------------------------- benchmark */

#define PDK_WIDTH 128256 /* Llama 3's vocabulary, the reference shape */

/* Bytes the apply kernel must move for these masks: the mask, plus for each 32-token
 * group nothing (all allowed), a write (none allowed) or a read and a write. */
static double pdk_apply_bytes(const uint32_t *mask, size_t rows, size_t nw, size_t es) {
  double bytes = (double)rows * (double)nw * 4.0;
  for (size_t i = 0; i < rows * nw; i++)
    bytes += mask[i] == 0xFFFFFFFFu ? 0.0 : mask[i] == 0 ? 32.0 * es : 64.0 * es;
  return bytes;
}

static const char *pdk_density_name(int d) {
  return d == 0 ? "all-allowed" : d == 1 ? "random-half" : "grammar-like";
}

/* The CPU twins are timed in this thread's CPU time: the machines they are measured on
 * are often shared, and wall time would count other processes' turns. */
static double pdk_cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Microseconds a call of fn. On the CPU: repeated until about budget_ms of this thread's
 * time have passed (at least 3 times). On the GPU: calls queued back to back and timed by
 * events, as a serving loop's stream runs them (no host launch latency between them);
 * enough of them to fill about budget_ms, at most 1000. */
typedef pd_status (*pdk_call)(void *ctx, pd_error *err);
static double pdk_time_gpu_us(pdk_call fn, void *ctx, int reps, pd_error *err) {
  pd_gpu_timer *t;
  double ms = 0.0;
  if (pd_gpu_timer_start(&t, err) != PD_OK) return -1.0;
  pd_status st = PD_OK;
  for (int i = 0; i < reps && st == PD_OK; i++) st = fn(ctx, err);
  pd_status st2 = pd_gpu_timer_stop(t, &ms, st == PD_OK ? err : NULL);
  return st == PD_OK && st2 == PD_OK ? ms * 1e3 / reps : -1.0;
}

static double pdk_time_us(pdk_call fn, void *ctx, bool gpu, double budget_ms, pd_error *err) {
  if (fn(ctx, err) != PD_OK || (gpu && pd_gpu_sync(err) != PD_OK)) return -1.0; /* warm-up */
  if (gpu) {
    double us = pdk_time_gpu_us(fn, ctx, 3, err);
    if (us < 0) return -1.0;
    double reps = budget_ms * 1e3 / (us > 0.1 ? us : 0.1);
    return pdk_time_gpu_us(fn, ctx, reps < 3 ? 3 : reps > 1000 ? 1000 : (int)reps, err);
  }
  int iters = 0;
  double t0 = pdk_cpu_ns(), t;
  do {
    if (fn(ctx, err) != PD_OK) return -1.0;
    iters++;
    t = pdk_cpu_ns();
  } while (iters < 3 || (t - t0 < budget_ms * 1e6 && iters < 1000));
  return (t - t0) / 1e3 / iters;
}

typedef struct pdk_apply_ctx {
  void *logits;
  pd_dtype dtype;
  size_t rows, n_words;
  const uint32_t *mask;
} pdk_apply_ctx;

static pd_status pdk_apply_gpu(void *c, pd_error *err) {
  pdk_apply_ctx *a = c;
  return pd_cuda_apply_bitmask(a->logits, a->dtype, a->rows, PDK_WIDTH, PDK_WIDTH, a->mask,
                               a->rows, a->n_words, NULL, NULL, err);
}

static pd_status pdk_apply_cpu(void *c, pd_error *err) {
  pdk_apply_ctx *a = c;
  return pd_cpu_apply_bitmask(a->logits, a->dtype, a->rows, PDK_WIDTH, PDK_WIDTH, a->mask,
                              a->rows, a->n_words, NULL, err);
}

static void pdk_bench_print(const char *what, double us, double bytes, double peak) {
  double gbps = bytes / (us * 1e3);
  if (peak > 0) printf("%-64s %10.1f us %8.1f GB/s %5.1f%% of peak\n", what, us, gbps,
                       100.0 * gbps / peak);
  else printf("%-64s %10.1f us %8.1f GB/s\n", what, us, gbps);
  fflush(stdout);
}

/* One apply shape on the GPU (masks made there, copied back to count the bytes). */
static pd_status pdk_bench_apply_gpu(pd_dtype t, size_t rows, int density, double peak,
                                     const char *only, pd_error *err) {
  char what[128];
  snprintf(what, sizeof what, "apply %s [%zu, %d] %s", pdk_dtype_name(t), rows, PDK_WIDTH,
           pdk_density_name(density));
  if (only && !strstr(what, only)) return PD_OK;
  size_t nw = (PDK_WIDTH + 31) / 32, es = pd_dtype_size(t);
  pdk_apply_ctx c = {NULL, t, rows, nw, NULL};
  uint32_t *host = malloc(rows * nw * 4);
  pd_status st = host ? pd_gpu_alloc(&c.logits, rows * PDK_WIDTH * es, err) : PD_ERR_NOMEM;
  if (st == PD_OK) st = pd_gpu_alloc((void **)&c.mask, rows * nw * 4, err);
  if (st == PD_OK) st = pd_gpu_fill_logits(c.logits, t, rows * PDK_WIDTH, 1, err);
  if (st == PD_OK) st = pd_gpu_fill_mask((uint32_t *)c.mask, rows, nw, PDK_WIDTH, density, 2,
                                         err);
  if (st == PD_OK) st = pd_gpu_download(host, c.mask, rows * nw * 4, err);
  double us = st == PD_OK ? pdk_time_us(pdk_apply_gpu, &c, true, 40.0, err) : -1.0;
  if (st == PD_OK && us < 0) st = err ? err->code : PD_ERR_INTERNAL;
  if (st == PD_OK) pdk_bench_print(what, us, pdk_apply_bytes(host, rows, nw, es), peak);
  pd_gpu_free(c.logits), pd_gpu_free((void *)c.mask), free(host);
  return st;
}

typedef struct pdk_verify_ctx {
  pd_verify_args a;
  size_t rows;
  void *ws, *probs;
} pdk_verify_ctx;

static pd_status pdk_verify_gpu(void *c, pd_error *err) {
  pdk_verify_ctx *v = c;
  return pd_cuda_verify(&v->a, v->rows, v->ws, pd_cuda_verify_workspace(v->rows, v->a.width),
                        NULL, err);
}

static pd_status pdk_verify_unfused(void *c, pd_error *err) {
  pdk_verify_ctx *v = c;
  return pd_gpu_verify_unfused(&v->a, v->rows, (void *)v->a.target_logits, v->probs, NULL, err);
}

static pd_status pdk_verify_cpu(void *c, pd_error *err) {
  pdk_verify_ctx *v = c;
  return pd_cpu_verify(&v->a, err);
}

/* The one-read floor: every row's logits and bitmask once (and q for SAMPLE). */
static double pdk_floor_bytes(const pd_verify_args *a, size_t rows) {
  double b = (double)rows * (double)(a->width * pd_dtype_size(a->dtype) + a->n_words * 4);
  if (a->mode == PD_VERIFY_SAMPLE) b += (double)(rows - a->n) * (double)a->width * 4.0;
  return b;
}

/* Device batch of n requests with k drafts each; drafts are token (r * 7919) % width.
 * Logits uniform in [-8, 8), or with a peaked head (pd_gpu_peak_logits). */
static pd_status pdk_verify_setup(pdk_verify_ctx *v, pd_verify_mode mode, size_t n, size_t k,
                                  bool peaked, pd_error *err) {
  size_t rows = n * (k + 1), nw = (PDK_WIDTH + 31) / 32;
  size_t *offs = malloc((n + 1) * sizeof *offs);
  uint32_t *drafts = malloc(n * k * 4 + 4);
  pd_status st = offs && drafts ? PD_OK : PD_ERR_NOMEM;
  for (size_t r = 0; st == PD_OK && r <= n; r++) offs[r] = r * k;
  for (size_t i = 0; st == PD_OK && i < n * k; i++) drafts[i] = (uint32_t)((i * 7919) % PDK_WIDTH);
  void *logits = NULL, *mask = NULL, *q = NULL, *dd = NULL, *doffs = NULL, *out = NULL;
  void *cnt = NULL;
  if (st == PD_OK) st = pd_gpu_alloc(&logits, rows * PDK_WIDTH * 2, err);
  if (st == PD_OK) st = pd_gpu_fill_logits(logits, PD_BF16, rows * PDK_WIDTH, 3, err);
  if (st == PD_OK && peaked) st = pd_gpu_peak_logits(logits, PD_BF16, rows * PDK_WIDTH, 3, err);
  if (st == PD_OK) st = pd_gpu_alloc(&mask, rows * nw * 4, err);
  if (st == PD_OK) st = pd_gpu_fill_mask(mask, rows, nw, PDK_WIDTH, 1, 4, err);
  if (st == PD_OK && mode == PD_VERIFY_SAMPLE) st = pd_gpu_alloc(&q, n * k * PDK_WIDTH * 4, err);
  if (q && st == PD_OK) st = pd_gpu_fill_logits(q, PD_F32, n * k * PDK_WIDTH, 5, err);
  if (st == PD_OK) st = pdk_put(&dd, drafts, n * k * 4, err);
  if (st == PD_OK) st = pdk_put(&doffs, offs, (n + 1) * sizeof *offs, err);
  if (st == PD_OK) st = pdk_put(&out, NULL, rows * 4, err);
  if (st == PD_OK) st = pdk_put(&cnt, NULL, n * 4, err);
  if (st == PD_OK) st = pdk_put(&v->ws, NULL, pd_cuda_verify_workspace(rows, PDK_WIDTH), err);
  if (st == PD_OK) st = pdk_put(&v->probs, NULL, pd_gpu_unfused_probs_bytes(rows, PDK_WIDTH),
                                err);
  pd_verify_args a = {.mode = mode, .target_logits = logits, .dtype = PD_BF16,
                      .width = PDK_WIDTH, .bitmask = mask, .n_words = nw, .draft_probs = q,
                      .draft_tokens = dd, .draft_offsets = doffs, .n = n, .temperature = 0.8f,
                      .seed = 11, .out_tokens = out, .out_counts = cnt};
  v->a = a;
  v->rows = rows;
  free(offs), free(drafts);
  return st;
}

static void pdk_verify_teardown(pdk_verify_ctx *v) {
  pd_gpu_free((void *)v->a.target_logits), pd_gpu_free((void *)v->a.bitmask);
  pd_gpu_free((void *)v->a.draft_probs), pd_gpu_free((void *)v->a.draft_tokens);
  pd_gpu_free((void *)v->a.draft_offsets), pd_gpu_free(v->a.out_tokens);
  pd_gpu_free(v->a.out_counts), pd_gpu_free(v->ws), pd_gpu_free(v->probs);
  memset(v, 0, sizeof *v);
}

static pd_status pdk_bench_verify_gpu(pd_verify_mode mode, size_t n, size_t k, bool peaked,
                                      double peak, const char *only, pd_error *err) {
  char what[128];
  snprintf(what, sizeof what, "verify %s bf16 batch %zu k=%zu%s", pdk_mode_name(mode), n, k,
           peaked ? " peaked" : "");
  if (only && !strstr(what, only)) return PD_OK;
  pdk_verify_ctx v;
  memset(&v, 0, sizeof v);
  pd_status st = pdk_verify_setup(&v, mode, n, k, peaked, err);
  double fused = st == PD_OK ? pdk_time_us(pdk_verify_gpu, &v, true, 40.0, err) : -1.0;
  double unfused = fused >= 0 ? pdk_time_us(pdk_verify_unfused, &v, true, 40.0, err) : -1.0;
  if (st == PD_OK && unfused < 0) st = err ? err->code : PD_ERR_INTERNAL;
  if (st == PD_OK) {
    char line[192];
    double bytes = pdk_floor_bytes(&v.a, v.rows);
    snprintf(line, sizeof line, "%s fused", what);
    pdk_bench_print(line, fused, bytes, peak);
    snprintf(line, sizeof line, "%s unfused (%.2fx fused)", what, unfused / fused);
    pdk_bench_print(line, unfused, bytes, peak);
  }
  pdk_verify_teardown(&v);
  return st;
}

/* The physical floors beside the kernels: the verify shape's logits (256 requests x 5
 * rows, bf16) read once, and the apply shape's (256 rows, fp32) copied (a read and a
 * write of each byte), by the simplest kernels that do only that. */
typedef struct pdk_floor_ctx {
  void *src, *dst;
  size_t bytes;
} pdk_floor_ctx;

static pd_status pdk_read_call(void *c, pd_error *err) {
  pdk_floor_ctx *f = c;
  return pd_gpu_read(f->src, f->bytes, err);
}

static pd_status pdk_copy_call(void *c, pd_error *err) {
  pdk_floor_ctx *f = c;
  return pd_gpu_copy(f->dst, f->src, f->bytes, err);
}

static pd_status pdk_bench_floors(double peak, const char *only, pd_error *err) {
  const char *rname = "floor: read [1280, 128256] bf16 once", *cname =
      "floor: copy [256, 128256] fp32 (read + write)";
  bool r = !only || strstr(rname, only), c = !only || strstr(cname, only);
  if (!r && !c) return PD_OK;
  pdk_floor_ctx f = {NULL, NULL, (size_t)1280 * PDK_WIDTH * 2};
  pd_status st = pd_gpu_alloc(&f.src, f.bytes, err);
  if (st == PD_OK) st = pd_gpu_alloc(&f.dst, (size_t)256 * PDK_WIDTH * 4, err);
  if (st == PD_OK) st = pd_gpu_fill_logits(f.src, PD_BF16, 1280 * (size_t)PDK_WIDTH, 1, err);
  double us = 0;
  if (st == PD_OK && r) {
    if ((us = pdk_time_us(pdk_read_call, &f, true, 40.0, err)) < 0) st = err->code;
    else pdk_bench_print(rname, us, (double)f.bytes, peak);
  }
  f.bytes = (size_t)256 * PDK_WIDTH * 4;
  if (st == PD_OK && c) {
    if ((us = pdk_time_us(pdk_copy_call, &f, true, 40.0, err)) < 0) st = err->code;
    else pdk_bench_print(cname, us, 2.0 * (double)f.bytes, peak);
  }
  pd_gpu_free(f.src), pd_gpu_free(f.dst);
  return st;
}

static int pdk_bench_gpu(bool quick, const char *only) {
  pd_error err = {0};
  double peak = 0;
  if (pd_cuda_peak_bandwidth(&peak, &err) != PD_OK) return pd_cli_fail("bench kernels", &err);
  printf("peak memory bandwidth %.0f GB/s (memory clock x bus width, from the device)\n", peak);
  printf("GB/s: apply = bytes the kernel must move; verify = one read of logits + mask "
         "(the floor)\nverify logits: uniform in [-8, 8); peaked: also about 31 a row at 20..28\n");
  const size_t batches[] = {1, 16, 256, 4096}, ks[] = {0, 1, 4, 8};
  pd_status st = pdk_bench_floors(peak, only, &err);
  for (int t = PD_F32; t <= PD_BF16 && st == PD_OK; t++)
    for (size_t b = 0; b < 4 && st == PD_OK; b++)
      for (int d = 0; d < 3 && st == PD_OK; d++)
        if (!quick || batches[b] == 256) st = pdk_bench_apply_gpu((pd_dtype)t, batches[b], d,
                                                                   peak, only, &err);
  for (int mode = PD_VERIFY_GREEDY; mode <= PD_VERIFY_SAMPLE_POINT && st == PD_OK; mode++)
    for (size_t b = 0; b < 4 && st == PD_OK; b++)
      for (size_t k = 0; k < 4 && st == PD_OK; k++) {
        bool big = batches[b] * (ks[k] + 1) > 4096 * 5; /* keep SAMPLE's q within memory */
        if ((quick && batches[b] != 256) || (mode == PD_VERIFY_SAMPLE && big)) continue;
        st = pdk_bench_verify_gpu((pd_verify_mode)mode, batches[b], ks[k], false, peak, only,
                                  &err);
      }
  /* logits of a confident model: the race needs few random values */
  for (int mode = PD_VERIFY_GREEDY; mode <= PD_VERIFY_SAMPLE_POINT && st == PD_OK; mode++)
    for (size_t b = 1; b < 3 && st == PD_OK; b++)
      if (!quick || batches[b] == 256)
        st = pdk_bench_verify_gpu((pd_verify_mode)mode, batches[b], 4, true, peak, only, &err);
  return st == PD_OK ? 0 : pd_cli_fail("bench kernels", &err);
}

/* CPU twins: smaller shapes, short budgets (the CPU is shared). */
static int pdk_bench_cpu(bool quick, const char *only) {
  printf("gpu: not available; benchmarking the CPU twins (one thread, CPU time)\n");
  pd_error err = {0};
  const size_t batches[] = {1, 16, 64}, ks[] = {0, 4, 8};
  for (int t = PD_F32; t <= PD_BF16; t += 2)
    for (size_t b = 0; b < 3; b++) {
      char what[128];
      snprintf(what, sizeof what, "cpu apply %s [%zu, %d] mixed masks", pdk_dtype_name(t),
               batches[b], PDK_WIDTH);
      if (only && !strstr(what, only)) continue;
      pdk_batch h;
      if (!pdk_batch_make(&h, PD_VERIFY_GREEDY, (pd_dtype)t, PDK_WIDTH, batches[b], 0, 1.0f, 9,
                          -1)) {
        pdk_batch_free(&h);
        return pd_cli_usage("bench kernels: out of memory");
      }
      pdk_apply_ctx c = {h.logits, (pd_dtype)t, h.rows, h.n_words, h.mask};
      double us = pdk_time_us(pdk_apply_cpu, &c, false, quick ? 20.0 : 100.0, &err);
      pdk_bench_print(what, us, pdk_apply_bytes(h.mask, h.rows, h.n_words, pd_dtype_size(t)),
                      0);
      pdk_batch_free(&h);
    }
  /* each mode on plain rows (uniform logits, some rows of the adversarial kinds), then on
   * rows peaked as a confident model's are */
  for (int pm = 0; pm < 6; pm++) {
    int peaked = pm / 3, mode = PD_VERIFY_GREEDY + pm % 3;
    for (size_t b = 0; b < (quick ? 2u : 3u); b++)
      for (size_t k = 0; k < 3; k++) {
        char what[128];
        snprintf(what, sizeof what, "cpu verify %s bf16 batch %zu k=%zu%s",
                 pdk_mode_name((pd_verify_mode)mode), batches[b], ks[k],
                 peaked ? " peaked" : "");
        if (only && !strstr(what, only)) continue;
        pdk_batch h;
        if (!pdk_batch_make(&h, (pd_verify_mode)mode, PD_BF16, PDK_WIDTH, batches[b],
                            (int)ks[k], 0.8f, 9, peaked ? PDK_PEAKED : -1)) {
          pdk_batch_free(&h);
          return pd_cli_usage("bench kernels: out of memory");
        }
        pdk_verify_ctx v = {pdk_args(&h, 1, 0), h.rows, NULL, NULL};
        double us = pdk_time_us(pdk_verify_cpu, &v, false, quick ? 20.0 : 100.0, &err);
        char line[192];
        snprintf(line, sizeof line, "%s (%.1f us/row)", what, us / (double)h.rows);
        pdk_bench_print(line, us, pdk_floor_bytes(&v.a, h.rows), 0);
        pdk_batch_free(&h);
      }
  }
  return 0;
}

int pd_cli_bench(int argc, char **argv) {
  bool quick = false, kernels = false;
  const char *only = NULL; /* only the shapes whose name holds this text */
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "kernels")) kernels = true;
    else if (!strcmp(argv[i], "--quick")) quick = true;
    else if (!strcmp(argv[i], "--only")) {
      if (i + 1 == argc) return pd_cli_usage("bench: --only needs the text of the shapes to run");
      only = argv[++i];
    }
    else return pd_cli_usage("bench: unknown argument '%s' (usage: bench kernels [--quick] "
                             "[--only TEXT])", argv[i]);
  }
  if (!kernels) return pd_cli_usage("usage: bench kernels [--quick] [--only TEXT]");
  char name[256];
  if (!pd_cuda_available(name, sizeof name)) return pdk_bench_cpu(quick, only);
  printf("gpu: %s\n", name);
  return pdk_bench_gpu(quick, only);
}
