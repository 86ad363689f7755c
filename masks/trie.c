/* trie.c - sorting the vocabulary into a walkable implicit trie (see trie.h). */
#include "trie.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"

typedef struct pd__tok {
  const uint8_t *b;
  uint32_t len, id;
} pd__tok;

static int pd__tok_cmp(const void *pa, const void *pb) {
  const pd__tok *a = pa, *b = pb;
  uint32_t n = a->len < b->len ? a->len : b->len;
  int c = n ? memcmp(a->b, b->b, n) : 0;
  if (c) return c;
  if (a->len != b->len) return a->len < b->len ? -1 : 1;
  return a->id < b->id ? -1 : a->id > b->id;
}

static uint32_t pd__common(const pd__tok *a, const pd__tok *b) {
  uint32_t n = a->len < b->len ? a->len : b->len, k = 0;
  while (k < n && a->b[k] == b->b[k]) k++;
  return k;
}

/* Collects the normal, non-empty tokens of v; returns how many. */
static uint32_t pd__collect(const pd_vocab *v, pd__tok *toks, uint32_t *max_len) {
  uint32_t n = 0, size = (uint32_t)pd_vocab_size(v);
  for (uint32_t id = 0; id < size; id++) {
    const uint8_t *b;
    size_t len;
    uint32_t flags;
    if (pd_vocab_token(v, id, &b, &len, &flags) != PD_OK || flags || !len) continue;
    toks[n++] = (pd__tok){b, (uint32_t)len, id};
    if (len > *max_len) *max_len = (uint32_t)len;
  }
  return n;
}

/* skip[i] by a backward pass: a successor k with lcp[k] >= len(i) begins with
 * token i, and so does everything before skip[k]. skipD[i] (depth D) is the
 * first k > i with lcp[k] < D: i + 1 when lcp[i + 1] < D, else skipD[i + 1]. */
static void pd__fill_skip(pd_trie *t, const pd__tok *toks) {
  for (uint32_t i = t->n; i-- > 0;) {
    uint32_t k = i + 1;
    while (k < t->n && t->lcp[k] >= toks[i].len) k = t->skip[k];
    t->skip[i] = k;
    bool last = i + 1 == t->n;
    t->skip1[i] = last || t->lcp[i + 1] < 1 ? i + 1 : t->skip1[i + 1];
    t->skip2[i] = last || t->lcp[i + 1] < 2 ? i + 1 : t->skip2[i + 1];
  }
}

/* Whether position i belongs to a long list: longer than min bytes, or
 * (quote) holding a '"'. */
static bool pd__listed(const pd_trie *t, uint32_t i, uint32_t min, bool quote) {
  uint32_t len = t->at[i + 1] - t->at[i];
  return len > min || (quote && memchr(t->bytes + t->at[i], '"', len));
}

/* The node arrays (trie.h); false out of memory. Where they cannot be had (a
 * token over 65,535 bytes, 256 tokens alike) there are none, and walks go by
 * tokens. */
static bool pd__nodes(pd_trie *t, const pd_allocator *a) {
  size_t nn = 0;
  for (uint32_t i = 0; i < t->n; i++) nn += t->at[i + 1] - t->at[i] - t->lcp[i];
  if (t->max_len > UINT16_MAX || nn >= UINT32_MAX) return true;
  t->node_at = pd__malloc(a, ((size_t)t->n + 1) * sizeof *t->node_at);
  t->node_info = pd__malloc(a, (nn ? nn : 1) * sizeof *t->node_info);
  t->node_tok = pd__malloc(a, (nn ? nn : 1) * sizeof *t->node_tok);
  t->node_skip = pd__malloc(a, (nn ? nn : 1) * sizeof *t->node_skip);
  uint32_t *open = pd__malloc(a, ((size_t)t->max_len + 1) * sizeof *open); /* node per depth */
  bool ok = t->node_at && t->node_info && t->node_tok && t->node_skip && open, mem = ok;
  uint32_t j = 0, end = 0, depth = 0; /* end: the node the last token ended at */
  for (uint32_t i = 0; ok && i < t->n; i++) {
    uint32_t len = t->at[i + 1] - t->at[i];
    t->node_at[i] = j;
    for (; depth > t->lcp[i]; depth--) t->node_skip[open[depth - 1]] = j; /* subtrees closed */
    for (uint32_t d = t->lcp[i]; d < len; d++, j++) {
      t->node_info[j] = t->bytes[t->at[i] + d] | d << 16;
      t->node_tok[j] = i;
      open[depth++] = j;
    }
    if (len > t->lcp[i]) end = j - 1;
    else if ((t->node_info[end] >> 8 & 0xff) == 0xff) ok = false; /* one more of the same bytes */
    t->node_info[end] += 1u << 8;
  }
  for (; ok && depth > 0; depth--) t->node_skip[open[depth - 1]] = j;
  pd__free(a, open);
  if (ok) {
    t->node_at[t->n] = j;
    t->n_nodes = j;
    return true;
  }
  pd__free(a, t->node_at);
  pd__free(a, t->node_info);
  pd__free(a, t->node_tok);
  pd__free(a, t->node_skip);
  t->node_at = t->node_info = t->node_tok = t->node_skip = NULL;
  return mem; /* 255 tokens alike: no arrays, not a failure */
}

pd_status pd_trie_build(pd_trie *t, const pd_vocab *v, const pd_allocator *a, pd_error *err) {
  memset(t, 0, sizeof *t);
  size_t size = pd_vocab_size(v);
  pd__tok *toks = pd__calloc(a, size ? size : 1, sizeof *toks);
  if (!toks) return pd__nomem(err);
  uint32_t max_len = 0, n = pd__collect(v, toks, &max_len);
  qsort(toks, n, sizeof *toks, pd__tok_cmp);
  t->order = pd__malloc(a, (n ? n : 1) * sizeof *t->order);
  t->lcp = pd__malloc(a, (n ? n : 1) * sizeof *t->lcp);
  t->skip = pd__malloc(a, (n ? n : 1) * sizeof *t->skip);
  t->skip1 = pd__malloc(a, (n ? n : 1) * sizeof *t->skip1);
  t->skip2 = pd__malloc(a, (n ? n : 1) * sizeof *t->skip2);
  t->at = pd__malloc(a, ((size_t)n + 1) * sizeof *t->at);
  t->pos = pd__malloc(a, (size ? size : 1) * sizeof *t->pos);
  size_t total = 0;
  for (uint32_t i = 0; i < n; i++) total += toks[i].len;
  t->bytes = pd__malloc(a, total ? total : 1);
  if (!t->order || !t->lcp || !t->skip || !t->skip1 || !t->skip2 || !t->at || !t->pos ||
      !t->bytes || total > UINT32_MAX) {
    pd__free(a, toks);
    pd_trie_free(t, a);
    return pd__nomem(err);
  }
  t->n = n;
  t->max_len = max_len;
  t->at[0] = 0;
  memset(t->pos, 0xff, size * sizeof *t->pos);
  for (uint32_t i = 0; i < n; i++) {
    t->order[i] = toks[i].id;
    t->pos[toks[i].id] = i;
    t->lcp[i] = i ? pd__common(&toks[i - 1], &toks[i]) : 0;
    memcpy(t->bytes + t->at[i], toks[i].b, toks[i].len);
    t->at[i + 1] = t->at[i] + toks[i].len;
  }
  pd__fill_skip(t, toks);
  for (uint32_t b = 0, i = 0; b <= 256; b++) { /* a run of one first byte ends at its skip1 */
    t->first[b] = i;
    while (b < 256 && i < t->n && t->bytes[t->at[i]] == b) i = t->skip1[i];
  }
  pd__free(a, toks);
  for (int j = 0; j < 2 * PD_TRIE_LONG; j++) {
    uint32_t min = PD_TRIE_LONG_MIN << (j % PD_TRIE_LONG), m = 0, gap = 0;
    for (uint32_t i = 0; i < n; i++) m += pd__listed(t, i, min, j >= PD_TRIE_LONG);
    t->long_at[j] = pd__malloc(a, (m ? m : 1) * sizeof *t->long_at[j]);
    t->long_lcp[j] = pd__malloc(a, (m ? m : 1) * sizeof *t->long_lcp[j]);
    if (!t->long_at[j] || !t->long_lcp[j]) {
      pd_trie_free(t, a);
      return pd__nomem(err);
    }
    for (uint32_t i = 0; i < n; i++) { /* gap: the least lcp[] since the last long one */
      if (i && t->lcp[i] < gap) gap = t->lcp[i];
      if (!pd__listed(t, i, min, j >= PD_TRIE_LONG)) continue;
      uint32_t x = t->n_long[j]++;
      t->long_at[j][x] = i;
      t->long_lcp[j][x] = x ? gap : 0;
      gap = UINT32_MAX;
    }
  }
  if (!pd__nodes(t, a)) {
    pd_trie_free(t, a);
    return pd__nomem(err);
  }
  return PD_OK;
}

void pd_trie_free(pd_trie *t, const pd_allocator *a) {
  pd__free(a, t->order);
  pd__free(a, t->pos);
  pd__free(a, t->lcp);
  pd__free(a, t->skip);
  pd__free(a, t->skip1);
  pd__free(a, t->skip2);
  for (int j = 0; j < 2 * PD_TRIE_LONG; j++) {
    pd__free(a, t->long_at[j]);
    pd__free(a, t->long_lcp[j]);
  }
  pd__free(a, t->at);
  pd__free(a, t->bytes);
  pd__free(a, t->node_at);
  pd__free(a, t->node_info);
  pd__free(a, t->node_tok);
  pd__free(a, t->node_skip);
  memset(t, 0, sizeof *t);
}

uint32_t pd_trie_skip_depth(const pd_trie *t, uint32_t i, uint32_t depth) {
  if (depth == 1) return t->skip1[i];
  if (depth == 2) return t->skip2[i];
  uint32_t k = i + 1;
  while (k < t->n && t->lcp[k] >= depth) k = t->skip[k];
  return k;
}
