/* ngram.h - a small n-gram language model over token ids (internal).
 *
 * The demo (`pushdown generate`), the tests and the benchmarks need a target
 * and a draft model that disagree sometimes; two n-gram models of different
 * orders trained on the same token stream do exactly that.
 *
 * Smoothing is interpolated Witten-Bell down to a uniform distribution, so
 * every id below vocab_size has a nonzero probability:
 *
 *   P_0(w)      = 1 / V
 *   P_L(w | h)  = (c(h w) + T(h) P_{L-1}(w | h')) / (c(h) + T(h))   h seen
 *               = P_{L-1}(w | h')                                     h unseen
 *
 * where h is the last L tokens, h' the last L-1, c counts, and T(h) is the
 * number of distinct tokens seen after h. Documents are padded on the left
 * with order-1 start markers, so "start of document" is a context too. */
#ifndef PD_SPEC_NGRAM_H
#define PD_SPEC_NGRAM_H
#include <stddef.h>
#include <stdint.h>

#include "pushdown.h"

#define PD_NGRAM_MAX_ORDER 8
#define PD_NGRAM_NO_EOS UINT32_MAX

typedef struct pd_ngram pd_ngram;

/* order 1..PD_NGRAM_MAX_ORDER; probabilities cover ids 0 .. vocab_size-1.
 * *out owned by the caller (pd_ngram_free). */
pd_status pd_ngram_new(unsigned order, size_t vocab_size, const pd_allocator *a, pd_ngram **out,
                       pd_error *err);
void pd_ngram_free(pd_ngram *g);
/* Adds one training document; when eos != PD_NGRAM_NO_EOS it is counted as
 * the token after the document's last one. Ids must be < vocab_size. */
pd_status pd_ngram_add(pd_ngram *g, const uint32_t *ids, size_t n, uint32_t eos, pd_error *err);
/* Builds the count tables from every document added; call once, after the
 * last pd_ngram_add and before pd_ngram_probs. */
pd_status pd_ngram_build(pd_ngram *g, pd_error *err);
/* The next-token distribution after hist[0..n_hist) (only the last order-1
 * tokens matter; a shorter history is the start of a document) into
 * out[0..vocab_size). Sums to 1 up to rounding; every entry > 0. */
void pd_ngram_probs(const pd_ngram *g, const uint32_t *hist, size_t n_hist, float *out);
unsigned pd_ngram_order(const pd_ngram *g);
size_t pd_ngram_vocab_size(const pd_ngram *g);

#endif
