/* vocab.c - the vocabulary: construction from a plain list, accessors, and the
 * byte-string index behind pd_vocab_find. */
#include "vocab.h"

#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "cache.h"
#include "encoder.h"
#include "pda/rule_cache.h"

void pd_vocab_free(pd_vocab *v) {
  if (!v) return;
  const pd_allocator *a = v->alloc;
  pd_encoder_free(a, v->enc);
  pd_mask_cache_free(a, v->mask_cache);
  pd_rule_cache_free(v->rule_cache, a);
  pd__free(a, v->bytes);
  pd__free(a, v->offs);
  pd__free(a, v->flags);
  pd__free(a, v->eos);
  pd__free(a, v->index);
  pd__free(a, v);
}

uint64_t pd_vocab_hash(const uint8_t *bytes, size_t len) {
  uint64_t h = 0xcbf29ce484222325u;
  for (size_t i = 0; i < len; i++) h = (h ^ bytes[i]) * 0x100000001b3u;
  return h ^ (h >> 29);
}

static bool pd__same(const pd_vocab *v, uint32_t id, const uint8_t *bytes, size_t len) {
  return v->offs[id + 1] - v->offs[id] == len &&
         (!len || !memcmp(v->bytes + v->offs[id], bytes, len));
}

bool pd_vocab_lookup(const pd_vocab *v, const uint8_t *bytes, size_t len, uint32_t *id) {
  if (!v->index) return false;
  for (size_t s = pd_vocab_hash(bytes, len) & v->index_mask;; s = (s + 1) & v->index_mask) {
    uint32_t e = v->index[s];
    if (!e) return false;
    if (pd__same(v, e - 1, bytes, len)) {
      if (id) *id = e - 1;
      return true;
    }
  }
}

/* Builds the index; at least two slots per id keep probe runs short. */
static pd_status pd__index_build(pd_vocab *v, pd_error *err) {
  size_t cap = 16;
  while (cap < 2 * v->size) cap *= 2;
  v->index = pd__calloc(v->alloc, cap, sizeof *v->index);
  if (!v->index) return pd__nomem(err);
  v->index_mask = cap - 1;
  for (size_t i = 0; i < v->size; i++) {
    if (v->flags[i] & PD_TOKEN_HOLE) continue;
    const uint8_t *b = v->bytes + v->offs[i];
    size_t len = v->offs[i + 1] - v->offs[i];
    if (pd_vocab_lookup(v, b, len, NULL)) continue;
    size_t s = pd_vocab_hash(b, len) & v->index_mask;
    while (v->index[s]) s = (s + 1) & v->index_mask;
    v->index[s] = (uint32_t)i + 1;
  }
  return PD_OK;
}

/* Validates the list and sums its bytes. */
static pd_status pd__list_check(const uint8_t *const *tokens, const size_t *lens, size_t n,
                                size_t *total, pd_error *err) {
  *total = 0;
  for (size_t i = 0; i < n; i++) {
    if (lens[i] && !tokens[i]) return pd__fail(err, PD_ERR_ARG, "token %zu has no bytes", i);
    *total += lens[i];
    if (*total >= UINT32_MAX) return pd__fail(err, PD_ERR_LIMIT, "vocabulary text over 4 GiB");
  }
  return PD_OK;
}

/* Stop tokens: the caller's list when given, else the ids flagged EOS. */
static pd_status pd__eos_fill(pd_vocab *v, const pd_vocab_options *opts, pd_error *err) {
  size_t n_eos = opts && opts->eos_ids ? opts->n_eos : 0;
  for (size_t i = 0; i < n_eos; i++) {
    if (opts->eos_ids[i] >= v->size)
      return pd__fail(err, PD_ERR_ARG, "eos id %u is outside the vocabulary", opts->eos_ids[i]);
    v->eos[v->n_eos++] = opts->eos_ids[i];
    v->flags[opts->eos_ids[i]] |= PD_TOKEN_EOS;
  }
  if (n_eos) return PD_OK;
  for (size_t i = 0; i < v->size; i++) {
    if (!(v->flags[i] & PD_TOKEN_EOS)) continue;
    uint32_t *e = pd__realloc(v->alloc, v->eos, (v->n_eos + 1) * sizeof *e);
    if (!e) return pd__nomem(err);
    v->eos = e;
    v->eos[v->n_eos++] = (uint32_t)i;
  }
  return PD_OK;
}

pd_status pd_vocab_from_list(const uint8_t *const *tokens, const size_t *lens,
                             const uint32_t *flags, size_t n, const pd_vocab_options *opts,
                             pd_vocab **out, pd_error *err) {
  if (!out || (n && (!tokens || !lens)) || n >= UINT32_MAX)
    return pd__fail(err, PD_ERR_ARG, "pd_vocab_from_list: bad arguments");
  *out = NULL;
  const pd_allocator *a = pd__alloc_or_default(opts ? opts->allocator : NULL);
  size_t width = opts && opts->width ? opts->width : n;
  if (width < n)
    return pd__fail(err, PD_ERR_ARG, "width %zu is smaller than the vocabulary (%zu)", width, n);
  size_t total;
  pd_status st = pd__list_check(tokens, lens, n, &total, err);
  if (st) return st;
  pd_vocab *v = pd__calloc(a, 1, sizeof *v);
  if (!v) return pd__nomem(err);
  v->alloc = a;
  v->size = n;
  v->width = width;
  v->cache_bytes = opts ? opts->cache_bytes : 0;
  v->rule_cache_bytes = opts ? opts->rule_cache_bytes : 0;
  v->bytes = pd__malloc(a, total ? total : 1);
  v->offs = pd__malloc(a, (n + 1) * sizeof *v->offs);
  v->flags = pd__calloc(a, n ? n : 1, sizeof *v->flags);
  size_t n_eos = opts && opts->eos_ids ? opts->n_eos : 0;
  v->eos = pd__malloc(a, (n_eos ? n_eos : 1) * sizeof *v->eos);
  if (!v->bytes || !v->offs || !v->flags || !v->eos) {
    pd_vocab_free(v);
    return pd__nomem(err);
  }
  size_t off = 0;
  for (size_t i = 0; i < n; i++) {
    v->offs[i] = (uint32_t)off;
    if (lens[i]) memcpy(v->bytes + off, tokens[i], lens[i]);
    off += lens[i];
    v->flags[i] = flags ? flags[i] : 0;
  }
  v->offs[n] = (uint32_t)off;
  st = pd__eos_fill(v, opts, err);
  if (!st) st = pd__index_build(v, err);
  if (st) {
    pd_vocab_free(v);
    return st;
  }
  *out = v;
  return PD_OK;
}

size_t pd_vocab_size(const pd_vocab *v) { return v ? v->size : 0; }
size_t pd_vocab_width(const pd_vocab *v) { return v ? v->width : 0; }

pd_status pd_vocab_token(const pd_vocab *v, uint32_t id, const uint8_t **bytes, size_t *len,
                         uint32_t *flags) {
  if (!v || id >= v->size) return PD_ERR_ARG;
  if (bytes) *bytes = v->bytes + v->offs[id];
  if (len) *len = v->offs[id + 1] - v->offs[id];
  if (flags) *flags = v->flags[id];
  return PD_OK;
}

pd_status pd_vocab_find(const pd_vocab *v, const uint8_t *bytes, size_t len, uint32_t *id) {
  if (!v || (len && !bytes)) return PD_ERR_ARG;
  return pd_vocab_lookup(v, bytes, len, id) ? PD_OK : PD_ERR_ARG;
}

size_t pd_vocab_eos(const pd_vocab *v, const uint32_t **ids) {
  if (ids) *ids = v ? v->eos : NULL;
  return v ? v->n_eos : 0;
}
