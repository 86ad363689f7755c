/* ngram.c - n-gram counts in sorted tables, Witten-Bell interpolation (see ngram.h).
 *
 * Training appends every document to one token stream, each document preceded
 * by order-1 start markers. An event is the position p of a predicted token;
 * its context of length L is stream[p-L .. p). Building sorts the events by
 * (context, token) once per context length and collapses equal runs:
 *
 *   level L: ctx[i] = {pos, total, first, n}: the context stream[pos-L .. pos),
 *            seen total times, followed by the n distinct tokens
 *            next[first .. first+n) = {token, count}, sorted by token. */
#include "ngram.h"

#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/error.h"

#define PD_NGRAM_START UINT32_MAX

typedef struct pd_ngram_ctx {
  uint32_t pos, total, first, n;
} pd_ngram_ctx;

typedef struct pd_ngram_next {
  uint32_t token, count;
} pd_ngram_next;

typedef struct pd_ngram_level {
  PD_ARRAY(pd_ngram_ctx) ctx;
  PD_ARRAY(pd_ngram_next) next;
} pd_ngram_level;

struct pd_ngram {
  const pd_allocator *alloc;
  unsigned order;
  size_t vocab_size;
  PD_ARRAY(uint32_t) stream;
  PD_ARRAY(uint32_t) events;
  pd_ngram_level levels[PD_NGRAM_MAX_ORDER];
  bool built;
};

pd_status pd_ngram_new(unsigned order, size_t vocab_size, const pd_allocator *a, pd_ngram **out,
                       pd_error *err) {
  if (!out || order < 1 || order > PD_NGRAM_MAX_ORDER || vocab_size == 0 ||
      vocab_size >= PD_NGRAM_START)
    return pd__fail(err, PD_ERR_ARG, "n-gram order must be 1..%d and the vocabulary non-empty",
                    PD_NGRAM_MAX_ORDER);
  pd_ngram *g = pd__calloc(a, 1, sizeof *g);
  if (!g) return pd__nomem(err);
  g->alloc = a;
  g->order = order;
  g->vocab_size = vocab_size;
  *out = g;
  return PD_OK;
}

void pd_ngram_free(pd_ngram *g) {
  if (!g) return;
  const pd_allocator *a = g->alloc;
  for (unsigned l = 0; l < PD_NGRAM_MAX_ORDER; l++) {
    pd_array_free(a, &g->levels[l].ctx);
    pd_array_free(a, &g->levels[l].next);
  }
  pd_array_free(a, &g->stream);
  pd_array_free(a, &g->events);
  pd__free(a, g);
}

unsigned pd_ngram_order(const pd_ngram *g) { return g->order; }
size_t pd_ngram_vocab_size(const pd_ngram *g) { return g->vocab_size; }

pd_status pd_ngram_add(pd_ngram *g, const uint32_t *ids, size_t n, uint32_t eos, pd_error *err) {
  if (!g || (!ids && n) || g->built) return pd__fail(err, PD_ERR_ARG, "bad n-gram training call");
  size_t total = g->order - 1 + n + (eos != PD_NGRAM_NO_EOS);
  for (size_t i = 0; i < n; i++)
    if (ids[i] >= g->vocab_size)
      return pd__fail(err, PD_ERR_ARG, "token id %u out of range", ids[i]);
  if (eos != PD_NGRAM_NO_EOS && eos >= g->vocab_size)
    return pd__fail(err, PD_ERR_ARG, "eos id %u out of range", eos);
  if (g->stream.len + total >= UINT32_MAX) return pd__fail(err, PD_ERR_LIMIT, "corpus too large");
  if (!pd_array_reserve(g->alloc, &g->stream, total) ||
      !pd_array_reserve(g->alloc, &g->events, total))
    return pd__nomem(err);
  for (unsigned i = 0; i + 1 < g->order; i++) g->stream.data[g->stream.len++] = PD_NGRAM_START;
  for (size_t i = 0; i < n + (eos != PD_NGRAM_NO_EOS); i++) {
    g->events.data[g->events.len++] = (uint32_t)g->stream.len;
    g->stream.data[g->stream.len++] = i < n ? ids[i] : eos;
  }
  return PD_OK;
}

/* Orders events p, q by their context of length l, then by the token. */
static int pd__event_cmp(const uint32_t *s, unsigned l, uint32_t p, uint32_t q) {
  for (unsigned i = l; i > 0; i--)
    if (s[p - i] != s[q - i]) return s[p - i] < s[q - i] ? -1 : 1;
  return s[p] < s[q] ? -1 : s[p] > s[q];
}

/* Stable bottom-up merge sort of e[0..n) with scratch tmp[0..n) (qsort has no context). */
static void pd__sort_events(const uint32_t *s, unsigned l, uint32_t *e, uint32_t *tmp, size_t n) {
  uint32_t *src = e, *dst = tmp;
  for (size_t w = 1; w < n; w *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * w) {
      size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      size_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi)
        dst[k++] = pd__event_cmp(s, l, src[j], src[i]) < 0 ? src[j++] : src[i++];
      while (i < mid) dst[k++] = src[i++];
      while (j < hi) dst[k++] = src[j++];
    }
    uint32_t *t = src;
    src = dst;
    dst = t;
  }
  if (src != e) memcpy(e, src, n * sizeof *e);
}

/* Whether events p and q have different contexts of length l. */
static bool pd__ctx_differs(const uint32_t *s, unsigned l, uint32_t p, uint32_t q) {
  for (unsigned i = 1; i <= l; i++)
    if (s[p - i] != s[q - i]) return true;
  return false;
}

/* Collapses sorted events into level l's context and follower tables. */
static pd_status pd__build_level(pd_ngram *g, unsigned l, const uint32_t *e, size_t n,
                                 pd_error *err) {
  pd_ngram_level *lv = &g->levels[l];
  const uint32_t *s = g->stream.data;
  for (size_t i = 0; i < n;) {
    pd_ngram_ctx c = {e[i], 0, (uint32_t)lv->next.len, 0};
    while (i < n && !pd__ctx_differs(s, l, e[i], c.pos)) {
      pd_ngram_next nx = {s[e[i]], 0};
      for (; i < n && s[e[i]] == nx.token && !pd__ctx_differs(s, l, e[i], c.pos); i++) nx.count++;
      if (!pd_array_push(g->alloc, &lv->next, nx)) return pd__nomem(err);
      c.total += nx.count;
      c.n++;
    }
    if (!pd_array_push(g->alloc, &lv->ctx, c)) return pd__nomem(err);
  }
  return PD_OK;
}

pd_status pd_ngram_build(pd_ngram *g, pd_error *err) {
  if (!g || g->built) return pd__fail(err, PD_ERR_ARG, "n-gram model already built");
  size_t n = g->events.len;
  uint32_t *e = pd__malloc(g->alloc, (n ? n : 1) * sizeof *e);
  uint32_t *tmp = pd__malloc(g->alloc, (n ? n : 1) * sizeof *tmp);
  pd_status st = e && tmp ? PD_OK : pd__nomem(err);
  for (unsigned l = 0; st == PD_OK && l < g->order; l++) {
    if (n) memcpy(e, g->events.data, n * sizeof *e);
    pd__sort_events(g->stream.data, l, e, tmp, n);
    st = pd__build_level(g, l, e, n, err);
  }
  pd__free(g->alloc, e);
  pd__free(g->alloc, tmp);
  if (st == PD_OK) g->built = true;
  return st;
}

/* Token i of the query context of length l: the last l tokens of start
 * markers followed by hist. */
static uint32_t pd__query_at(const uint32_t *hist, size_t n_hist, unsigned l, unsigned i) {
  size_t back = l - i; /* 1 = the last token */
  return back <= n_hist ? hist[n_hist - back] : PD_NGRAM_START;
}

/* Level l's context equal to the query, or NULL. */
static const pd_ngram_ctx *pd__find_ctx(const pd_ngram *g, unsigned l, const uint32_t *hist,
                                        size_t n_hist) {
  const pd_ngram_level *lv = &g->levels[l];
  const uint32_t *s = g->stream.data;
  size_t lo = 0, hi = lv->ctx.len;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    uint32_t pos = lv->ctx.data[mid].pos;
    int c = 0;
    for (unsigned i = 0; i < l && !c; i++) {
      uint32_t a = s[pos - l + i], b = pd__query_at(hist, n_hist, l, i);
      c = a < b ? -1 : a > b;
    }
    if (!c) return &lv->ctx.data[mid];
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return NULL;
}

void pd_ngram_probs(const pd_ngram *g, const uint32_t *hist, size_t n_hist, float *out) {
  size_t v = g->vocab_size;
  /* p[w] = scale * out[w]: one interpolation step multiplies every entry by
   * the same factor, so it changes scale and touches only the followers. */
  double scale = 1.0;
  for (size_t w = 0; w < v; w++) out[w] = (float)(1.0 / (double)v);
  for (unsigned l = 0; g->built && l < g->order; l++) {
    const pd_ngram_ctx *c = pd__find_ctx(g, l, hist, n_hist);
    if (!c) break; /* a longer context containing an unseen one is unseen too */
    double denom = (double)c->total + c->n;
    scale *= c->n / denom;
    const pd_ngram_next *nx = g->levels[l].next.data + c->first;
    for (uint32_t i = 0; i < c->n; i++) out[nx[i].token] += (float)(nx[i].count / denom / scale);
  }
  for (size_t w = 0; w < v; w++) out[w] = (float)(out[w] * scale);
}
