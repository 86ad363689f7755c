/* verify.c - the CPU twin of masked speculative verification (greedy, exact rejection
 * sampling with draft probabilities or with a point-mass draft). The formulas are in
 * sampling.h and the random-number layout in pushdown.h (pd_verify_args); the CUDA
 * kernel in verify.cu follows both, so the two make the same decisions. */
#include "base/error.h"
#include "dtype.h"
#include "sampling.h"
#include "verify.h"

#define PD__NONE UINT32_MAX

/* One row of the target distribution: where it lives and what the scans found. */
typedef struct pd__row {
  const void *logits;
  pd_dtype dtype;
  size_t width;
  const uint32_t *mask; /* NULL = unconstrained */
  size_t n_words;
  float inv_t;
  float m;         /* largest clamped allowed logit; -inf = dead row */
  uint32_t argmax; /* lowest id reaching m */
  float s;         /* sum of exp(z_j) */
  uint64_t seed, sub, offset;
} pd__row;

static inline float pd__row_c(const pd__row *row, size_t j) {
  int allowed = pd_sampling_allowed(row->mask, row->n_words, j);
  return pd_sampling_clamp(allowed ? pd_dtype_load(row->logits, row->dtype, j) : 0.0f, allowed);
}

/* Rows are worked through in chunks of c_j values (a multiple of 32 tokens), so the dtype
 * and the mask are dispatched once per chunk and per 32-token group, not per token. */
enum { PD__CHUNK = 512 };

static void pd__load_raw(const pd__row *row, size_t j0, size_t n, float *o) {
  if (row->dtype == PD_F32) {
    memcpy(o, (const float *)row->logits + j0, n * sizeof *o);
  } else if (row->dtype == PD_BF16 && n == 32) { /* fixed count: vectorized */
    const uint16_t *h = (const uint16_t *)row->logits + j0;
    for (int i = 0; i < 32; i++) o[i] = pd_bf16_to_float(h[i]);
  } else if (row->dtype == PD_BF16) {
    const uint16_t *h = (const uint16_t *)row->logits + j0;
    for (size_t i = 0; i < n; i++) o[i] = pd_bf16_to_float(h[i]);
  } else {
    const uint16_t *h = (const uint16_t *)row->logits + j0;
    for (size_t i = 0; i < n; i++) o[i] = pd_f16_to_float(h[i]);
  }
}

/* c_j of tokens [j0, j0 + n), j0 % 32 == 0, n <= PD__CHUNK. A group of 32 without an
 * allowed id is filled with -inf without reading its logits. */
static void pd__row_load(const pd__row *row, size_t j0, size_t n, float *c) {
  for (size_t b = 0; b < n; b += 32) {
    size_t len = n - b < 32 ? n - b : 32, w = (j0 + b) / 32;
    uint32_t word = !row->mask ? 0xFFFFFFFFu : w < row->n_words ? row->mask[w] : 0;
    float *o = c + b;
    if (word == 0) {
      for (size_t i = 0; i < len; i++) o[i] = -INFINITY;
      continue;
    }
    pd__load_raw(row, j0 + b, len, o);
    if (len < 32) {
      for (size_t i = 0; i < len; i++) o[i] = pd_sampling_clamp(o[i], (int)((word >> i) & 1));
      continue;
    }
    for (int i = 0; i < 32; i++) { /* pd_sampling_clamp, branch-free so it vectorizes */
      float l = o[i], v = l > FLT_MAX ? FLT_MAX : l;
      o[i] = (((word & pd_bit32[i]) != 0) & (l == l)) ? v : -INFINITY;
    }
  }
}

static inline size_t pd__chunk_len(const pd__row *row, size_t j0) {
  return row->width - j0 < PD__CHUNK ? row->width - j0 : PD__CHUNK;
}

static void pd__row_scan(pd__row *row) {
  float m = -INFINITY, c[PD__CHUNK];
  uint32_t arg = PD__NONE;
  for (size_t j0 = 0; j0 < row->width; j0 += PD__CHUNK) {
    size_t n = pd__chunk_len(row, j0);
    pd__row_load(row, j0, n, c);
    for (size_t i = 0; i < n; i++)
      if (c[i] > m) {
        m = c[i];
        arg = (uint32_t)(j0 + i);
      }
  }
  row->m = m;
  row->argmax = arg;
}

/* Excluded tokens add exp(-inf) = 0, which leaves the float sum bit for bit unchanged:
 * skipping them gives the sum of the sequential loop over every token. */
static void pd__row_sum(pd__row *row) {
  float s = 0.0f, c[PD__CHUNK];
  for (size_t j0 = 0; j0 < row->width; j0 += PD__CHUNK) {
    size_t n = pd__chunk_len(row, j0);
    pd__row_load(row, j0, n, c);
    for (size_t i = 0; i < n; i++)
      if (c[i] != -INFINITY) s += expf(pd_sampling_logw(c[i], row->m, row->inv_t));
  }
  row->s = s;
}

static inline float pd__row_logw(const pd__row *row, size_t j) {
  return pd_sampling_logw(pd__row_c(row, j), row->m, row->inv_t);
}

/* Keeps the best (key, token); lowest id wins ties because tokens come in order. */
static inline void pd__race_offer(double lw, uint32_t v, size_t j, double *best,
                                  uint32_t *tok) {
  if (lw == -INFINITY || lw + PD_RACE_BOUND < *best) return;
  if (lw + pd_sampling_gumbel_bound(v) < *best) return;
  double key = pd_sampling_key(lw, v);
  if (key > *best || *tok == PD__NONE) {
    *best = key;
    *tok = (uint32_t)j;
  }
}

/* Offers tokens j0 .. j0 + n - 1 (n <= 4) with race log-weights lw; their race values
 * are stream values offset + 4 + j, drawn only when one of them could still win. */
static void pd__race_group(const pd__row *row, size_t j0, size_t n, const double *lw,
                           double *best, uint32_t *tok) {
  int live = 0;
  for (size_t i = 0; i < n; i++)
    live |= lw[i] != -INFINITY && (lw[i] + PD_RACE_BOUND >= *best || *tok == PD__NONE);
  if (!live) return;
  uint32_t v[4];
  pd_philox4x32_10(row->seed, row->sub, row->offset + PD_RACE_BASE + j0, v);
  for (size_t i = 0; i < n; i++) pd__race_offer(lw[i], v[i], j0 + i, best, tok);
}

/* A draw from p (skipping token exclude) by the exponential race. */
static uint32_t pd__race_p(const pd__row *row, uint32_t exclude) {
  float c[PD__CHUNK];
  double best = -INFINITY, lw[PD__CHUNK];
  uint32_t tok = PD__NONE;
  for (size_t j0 = 0; j0 < row->width; j0 += PD__CHUNK) {
    size_t n = pd__chunk_len(row, j0);
    pd__row_load(row, j0, n, c);
    for (size_t i = 0; i < n; i++)
      lw[i] = j0 + i == exclude ? -INFINITY : pd_sampling_race_lw(c[i], row->inv_t);
    for (size_t i = 0; i < n; i += 4)
      pd__race_group(row, j0 + i, n - i < 4 ? n - i : 4, lw + i, &best, &tok);
  }
  return tok;
}

/* A draw from normalize(max(0, p - q)); PD__NONE when the residual is empty. */
static uint32_t pd__race_residual(const pd__row *row, const float *q) {
  float c[PD__CHUNK];
  double best = -INFINITY, lw[PD__CHUNK];
  uint32_t tok = PD__NONE;
  for (size_t j0 = 0; j0 < row->width; j0 += PD__CHUNK) {
    size_t n = pd__chunk_len(row, j0);
    pd__row_load(row, j0, n, c);
    for (size_t i = 0; i < n; i++) { /* log max(0, p_j - q_j), -inf where it is 0 */
      float r = expf(pd_sampling_logw(c[i], row->m, row->inv_t)) / row->s;
      r -= pd_sampling_q(q[j0 + i]);
      lw[i] = r > 0.0f ? pd_sampling_log(r) : -INFINITY;
    }
    for (size_t i = 0; i < n; i += 4)
      pd__race_group(row, j0 + i, n - i < 4 ? n - i : 4, lw + i, &best, &tok);
  }
  return tok;
}

/* Accept draft x of a sampled row? u = value offset + 0 of the row's subsequence. */
static int pd__accept(const pd__row *row, uint32_t x, float q) {
  uint32_t v[4];
  pd_philox4x32_10(row->seed, row->sub, row->offset, v);
  float p = expf(pd__row_logw(row, x)) / row->s;
  return pd_philox_uniform(v[0]) * q < p;
}

/* The token replacing rejected draft x of row (i < k). */
static uint32_t pd__recover(const pd_verify_args *a, const pd__row *row, size_t draft_row,
                            uint32_t x, int greedy) {
  if (greedy) return row->argmax;
  if (a->mode == PD_VERIFY_SAMPLE) {
    uint32_t t = pd__race_residual(row, a->draft_probs + draft_row * a->width);
    if (t != PD__NONE) return t;
  }
  return pd__race_p(row, x);
}

static void pd__row_init(const pd_verify_args *a, size_t g, pd__row *row) {
  row->logits = (const char *)a->target_logits + g * a->width * pd_dtype_size(a->dtype);
  row->dtype = a->dtype;
  row->width = a->width;
  row->mask = a->bitmask ? a->bitmask + g * a->n_words : NULL;
  row->n_words = a->bitmask ? a->n_words : 0;
  row->inv_t = a->temperature >= FLT_MIN ? 1.0f / a->temperature : 0.0f;
  row->seed = a->seed;
  row->sub = g;
  row->offset = a->offset;
  pd__row_scan(row);
}

/* Request r: walk its rows until a rejection, a dead row or the bonus. */
static void pd__verify_request(const pd_verify_args *a, size_t r, int greedy) {
  size_t d0 = a->draft_offsets[r], k = a->draft_offsets[r + 1] - d0, base = d0 + r;
  uint32_t *out = a->out_tokens + base, n_out = 0, accepted = 0;
  for (size_t i = 0; i <= k; i++) {
    pd__row row;
    pd__row_init(a, base + i, &row);
    if (row.m == -INFINITY) break; /* dead row: nothing can be drawn */
    if (i == k) {
      uint32_t t = greedy ? row.argmax : pd__race_p(&row, PD__NONE);
      if (t != PD__NONE) out[n_out++] = t;
      break;
    }
    uint32_t x = a->draft_tokens[d0 + i];
    int ok;
    if (greedy) {
      ok = x == row.argmax;
    } else {
      pd__row_sum(&row);
      float q = a->mode == PD_VERIFY_SAMPLE ? a->draft_probs[(d0 + i) * a->width + x] : 1.0f;
      ok = pd__accept(&row, x, pd_sampling_q(q));
    }
    if (ok) {
      out[n_out++] = x;
      accepted++;
      continue;
    }
    uint32_t t = pd__recover(a, &row, d0 + i, x, greedy);
    if (t != PD__NONE) out[n_out++] = t;
    break;
  }
  a->out_counts[r] = n_out;
  if (a->out_accepted) a->out_accepted[r] = accepted;
}

static pd_status pd__check_sizes(const pd_verify_args *a, pd_error *err) {
  size_t drafts = a->draft_offsets[a->n];
  if (a->draft_offsets[0] > drafts)
    return pd__fail(err, PD_ERR_ARG, "verify: draft_offsets must not decrease");
  for (size_t r = 0; r < a->n; r++)
    if (a->draft_offsets[r + 1] < a->draft_offsets[r])
      return pd__fail(err, PD_ERR_ARG, "verify: draft_offsets decrease at %zu", r);
  size_t rows = drafts + a->n;
  if (rows < drafts || a->width > SIZE_MAX / 4 / rows)
    return pd__fail(err, PD_ERR_ARG, "verify: batch size overflows");
  if (drafts && !a->draft_tokens)
    return pd__fail(err, PD_ERR_ARG, "verify: NULL draft_tokens");
  for (size_t i = a->draft_offsets[0]; i < drafts; i++)
    if (a->draft_tokens[i] >= a->width)
      return pd__fail(err, PD_ERR_ARG, "verify: draft token %u >= width %zu", a->draft_tokens[i],
                      a->width);
  return PD_OK;
}

/* Shared with the CUDA entry point: everything but the buffers' contents. */
pd_status pd_kernels_check_verify(const pd_verify_args *a, pd_error *err) {
  if (!a) return pd__fail(err, PD_ERR_ARG, "verify: NULL args");
  if (a->mode != PD_VERIFY_GREEDY && a->mode != PD_VERIFY_SAMPLE &&
      a->mode != PD_VERIFY_SAMPLE_POINT)
    return pd__fail(err, PD_ERR_ARG, "verify: unknown mode %d", (int)a->mode);
  if (a->dtype != PD_F32 && a->dtype != PD_F16 && a->dtype != PD_BF16)
    return pd__fail(err, PD_ERR_ARG, "verify: unknown dtype %d", (int)a->dtype);
  if (!(a->temperature >= 0.0f) || a->temperature == INFINITY)
    return pd__fail(err, PD_ERR_ARG, "verify: temperature must be finite and >= 0");
  if (a->n == 0) return PD_OK;
  if (a->width == 0 || a->width > UINT32_MAX)
    return pd__fail(err, PD_ERR_ARG, "verify: width %zu out of range", a->width);
  if (!a->target_logits || !a->draft_offsets || !a->out_tokens || !a->out_counts)
    return pd__fail(err, PD_ERR_ARG, "verify: NULL logits, offsets or outputs");
  if (a->mode == PD_VERIFY_SAMPLE && a->temperature >= FLT_MIN && !a->draft_probs)
    return pd__fail(err, PD_ERR_ARG, "verify: SAMPLE needs draft_probs");
  return PD_OK;
}

pd_status pd_cpu_verify(const pd_verify_args *a, pd_error *err) {
  pd_status st = pd_kernels_check_verify(a, err);
  if (st != PD_OK || a->n == 0) return st;
  if ((st = pd__check_sizes(a, err)) != PD_OK) return st;
  int greedy = a->mode == PD_VERIFY_GREEDY || a->temperature < FLT_MIN;
  for (size_t r = 0; r < a->n; r++) pd__verify_request(a, r, greedy);
  return PD_OK;
}
