/* diff.h - the differential check shared by the masks tests and fuzz target:
 * walk a grammar at random and compare every filled mask with brute force. */
#ifndef PD_TESTS_MASKS_DIFF_H
#define PD_TESTS_MASKS_DIFF_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pushdown.h"

typedef struct pdt_diff {
  size_t masks, tokens, differences;
  uint32_t first_bad_token; /* of the first difference */
} pdt_diff;

/* The next number of the LCG whose state is *rng (its high 31 bits). */
static inline uint32_t pdt_lcg(uint64_t *rng) {
  *rng = *rng * 6364136223846793005u + 1442695040888963407u;
  return (uint32_t)(*rng >> 33);
}

/* Brute force: bit t iff accepting t alone succeeds (state unchanged). */
static inline pd_status pdt_brute_mask(pd_matcher *m, size_t size, uint32_t *row, size_t n_words) {
  memset(row, 0, n_words * sizeof *row);
  for (uint32_t t = 0; t < size; t++) {
    size_t ok = 0;
    pd_status st = pd_matcher_validate_tokens(m, &t, 1, &ok, NULL);
    if (st == PD_ERR_NOMEM) return st;
    if (ok == 1) row[t / 32] |= 1u << (t % 32);
  }
  return PD_OK;
}

/* A random walk of up to steps tokens: at each step fill and compare, then
 * accept a random allowed token (EOS rarely). *rng is an LCG state. */
static inline pd_status pdt_diff_walk(pd_matcher *m, const pd_vocab *v, size_t steps,
                                      uint64_t *rng, pdt_diff *d) {
  size_t n_words = (pd_vocab_width(v) + 31) / 32, size = pd_vocab_size(v);
  uint32_t *fast = calloc(n_words + 1, 4), *slow = calloc(n_words + 1, 4);
  uint32_t *ids = calloc(size + 1, 4);
  pd_status st = fast && slow && ids ? PD_OK : PD_ERR_NOMEM;
  for (size_t s = 0; s < steps && st == PD_OK; s++) {
    /* a row one word wider than needed, full of garbage: the fill clears all of it */
    memset(fast, 0xa5, (n_words + 1) * sizeof *fast);
    st = pd_matcher_fill_bitmask(m, fast, n_words + 1, NULL, NULL);
    if (st == PD_OK) st = pdt_brute_mask(m, size, slow, n_words);
    if (st != PD_OK) break;
    d->masks++;
    if (fast[n_words] && !d->differences++) d->first_bad_token = (uint32_t)(n_words * 32);
    size_t n = 0, n_text = 0;
    for (size_t w = 0; w < n_words; w++) {
      uint32_t x = fast[w] ^ slow[w];
      if (x && !d->differences++) d->first_bad_token = (uint32_t)(w * 32 + __builtin_ctz(x));
      if (x) d->differences += (size_t)__builtin_popcount(x) - 1;
    }
    const uint32_t *eos;
    size_t n_eos = pd_vocab_eos(v, &eos);
    for (uint32_t t = 0; t < size; t++)
      if ((slow[t / 32] >> (t % 32)) & 1) {
        bool stop = false;
        for (size_t e = 0; e < n_eos; e++) stop |= eos[e] == t;
        if (!stop) ids[n_text++] = t;
        n++;
      }
    if (!n) break;
    uint32_t pick = pdt_lcg(rng);
    uint32_t t = UINT32_MAX;
    if (n_text && (pick % 16 || n == n_text)) t = ids[pick % n_text];
    for (size_t e = 0; e < n_eos && t == UINT32_MAX; e++)
      if ((slow[eos[e] / 32] >> (eos[e] % 32)) & 1) t = eos[e];
    if (t == UINT32_MAX) break;
    if (pd_matcher_accept_token(m, t, NULL) != PD_OK) {
      d->differences++; /* brute force said yes */
      break;
    }
    d->tokens++;
  }
  free(fast);
  free(slow);
  free(ids);
  return st;
}

#endif
