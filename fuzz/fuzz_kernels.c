/* fuzz_kernels.c - the CPU twins on arbitrary bytes: any logits bits (NaN, inf, huge),
 * masks, drafts (also past the width), draft probabilities and temperatures. They must
 * return a status, never crash, and on PD_OK keep the output's invariants:
 *   count in {accepted, accepted + 1}, accepted <= k, the accepted tokens are the drafts,
 *   every emitted token < width and allowed by its row's mask (drafts: where accepted),
 *   apply_bitmask leaves allowed logits' bits alone and makes the others -inf.
 * Layout: 8 header bytes (mode, dtype, width, n, temperature, k's), then the payload
 * repeated as needed for logits, masks, drafts and q. A broken invariant traps. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pushdown.h"

#define PDF_CHECK(x)            \
  do {                          \
    if (!(x)) __builtin_trap(); \
  } while (0)

enum { PDF_MAX_W = 96, PDF_MAX_N = 4, PDF_MAX_K = 8 };

typedef struct pdf_src {
  const uint8_t *p;
  size_t n, at;
} pdf_src;

static uint8_t pdf_byte(pdf_src *s) { return s->n ? s->p[s->at++ % s->n] : 0; }
static uint32_t pdf_u32(pdf_src *s) {
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) v = v << 8 | pdf_byte(s);
  return v;
}

static int pdf_allowed(const uint32_t *mask, size_t n_words, size_t g, size_t j) {
  return !mask || ((mask[g * n_words + j / 32] >> (j % 32)) & 1);
}

static void pdf_check_verify(const pd_verify_args *a, const size_t *offs) {
  for (size_t r = 0; r < a->n; r++) {
    size_t k = offs[r + 1] - offs[r], base = offs[r] + r;
    uint32_t cnt = a->out_counts[r], acc = a->out_accepted[r];
    PDF_CHECK(acc <= k && (cnt == acc || cnt == acc + 1));
    for (uint32_t i = 0; i < cnt; i++) {
      uint32_t t = a->out_tokens[base + i];
      PDF_CHECK(t < a->width);
      if (i < acc) PDF_CHECK(t == a->draft_tokens[offs[r] + i]);
      PDF_CHECK(pdf_allowed(a->bitmask, a->n_words, base + i, t));
    }
  }
}

static void pdf_run_verify(pdf_src *s, const uint8_t *head) {
  size_t width = 1 + head[2] % PDF_MAX_W, n = head[3] % (PDF_MAX_N + 1), offs[PDF_MAX_N + 1];
  size_t n_words = (width + 31) / 32;
  offs[0] = 0;
  for (size_t r = 0; r < n; r++) offs[r + 1] = offs[r] + (head[6 + r % 2] >> (r * 2 % 8)) % 9;
  size_t drafts = offs[n], rows = drafts + n;
  float logits[(PDF_MAX_N * (PDF_MAX_K + 1)) * PDF_MAX_W], q[PDF_MAX_N * PDF_MAX_K * PDF_MAX_W];
  uint32_t mask[PDF_MAX_N * (PDF_MAX_K + 1) * 3], dt[PDF_MAX_N * PDF_MAX_K];
  uint32_t out[PDF_MAX_N * (PDF_MAX_K + 1)], cnt[PDF_MAX_N], acc[PDF_MAX_N];
  uint16_t *half = (uint16_t *)logits;
  for (size_t i = 0; i < rows * width; i++) {
    uint32_t v = pdf_u32(s);
    if (head[1] % 3 == PD_F32) memcpy(&logits[i], &v, 4);
    else half[i] = (uint16_t)v;
  }
  for (size_t i = 0; i < rows * n_words; i++) mask[i] = pdf_u32(s);
  for (size_t i = 0; i < drafts; i++) dt[i] = pdf_byte(s) % (width + 2); /* some >= width */
  for (size_t i = 0; i < drafts * width; i++) {
    uint32_t v = pdf_u32(s);
    memcpy(&q[i], &v, 4);
  }
  float temps[8] = {0.0f, 1e-30f, 0.25f, 1.0f, 3.0f, NAN, -1.0f, INFINITY};
  pd_verify_args a = {.mode = (pd_verify_mode)(head[0] % 4), .target_logits = logits,
                      .dtype = (pd_dtype)(head[1] % 3), .width = width,
                      .bitmask = head[0] & 16 ? NULL : mask, .n_words = n_words,
                      .draft_probs = q, .draft_tokens = dt, .draft_offsets = offs, .n = n,
                      .temperature = temps[head[4] % 8], .seed = head[5], .offset = head[4],
                      .out_tokens = out, .out_counts = cnt, .out_accepted = acc};
  pd_error err;
  pd_status st = pd_cpu_verify(&a, &err);
  if (st == PD_OK) pdf_check_verify(&a, offs);
  else PDF_CHECK(st == PD_ERR_ARG && err.code == PD_ERR_ARG);
}

static void pdf_run_apply(pdf_src *s, const uint8_t *head) {
  size_t width = 1 + head[2] % PDF_MAX_W, rows = 1 + head[3] % 4, stride = width + head[4] % 3;
  size_t n_words = head[5] % ((width + 31) / 32 + 2);
  float x[4 * (PDF_MAX_W + 2)], orig[4 * (PDF_MAX_W + 2)];
  uint32_t mask[4 * 5];
  int32_t idx[4];
  for (size_t i = 0; i < rows * stride; i++) {
    uint32_t v = pdf_u32(s);
    memcpy(&x[i], &v, 4);
  }
  memcpy(orig, x, sizeof x);
  for (size_t i = 0; i < rows * n_words; i++) mask[i] = pdf_u32(s);
  for (size_t r = 0; r < rows; r++) idx[r] = (int32_t)(pdf_byte(s) % (rows + 2)) - 1;
  const int32_t *ix = head[0] & 32 ? idx : NULL;
  pd_status st = pd_cpu_apply_bitmask(x, PD_F32, rows, width, stride, mask, rows, n_words, ix,
                                      NULL);
  if (st != PD_OK) {
    PDF_CHECK(st == PD_ERR_ARG && !memcmp(x, orig, sizeof x));
    return;
  }
  for (size_t r = 0; r < rows; r++)
    for (size_t j = 0; j < stride; j++) {
      int32_t b = ix ? ix[r] : (int32_t)r;
      int keep = j >= width || b < 0 ||
                 (j / 32 < n_words && ((mask[(size_t)b * n_words + j / 32] >> (j % 32)) & 1));
      size_t i = r * stride + j;
      PDF_CHECK(keep ? !memcmp(&x[i], &orig[i], 4) : (isinf(x[i]) && x[i] < 0));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 8) return 0;
  pdf_src s = {data + 8, size - 8, 0};
  if (data[0] & 64) pdf_run_apply(&s, data);
  else pdf_run_verify(&s, data);
  return 0;
}
