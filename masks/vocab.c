/* vocab.c - the vocabulary: construction from a plain list, accessors. */
#include "vocab.h"

#include <string.h>

#include "base/alloc.h"
#include "base/error.h"

void pd_vocab_free(pd_vocab *v) {
  if (!v) return;
  const pd_allocator *a = v->alloc;
  pd__free(a, v->bytes);
  pd__free(a, v->offs);
  pd__free(a, v->flags);
  pd__free(a, v->eos);
  pd__free(a, v);
}

pd_status pd_vocab_from_list(const uint8_t *const *tokens, const size_t *lens,
                             const uint32_t *flags, size_t n, const pd_vocab_options *opts,
                             pd_vocab **out, pd_error *err) {
  if (!out || (n && (!tokens || !lens)) || n >= UINT32_MAX)
    return pd__fail(err, PD_ERR_ARG, "pd_vocab_from_list: bad arguments");
  *out = NULL;
  const pd_allocator *a = pd__alloc_or_default(opts ? opts->allocator : NULL);
  size_t width = opts && opts->width ? opts->width : n;
  if (width < n) return pd__fail(err, PD_ERR_ARG, "width %zu is smaller than the vocabulary (%zu)", width, n);
  size_t total = 0;
  for (size_t i = 0; i < n; i++) {
    if (lens[i] && !tokens[i]) return pd__fail(err, PD_ERR_ARG, "token %zu has no bytes", i);
    total += lens[i];
    if (total >= UINT32_MAX) return pd__fail(err, PD_ERR_LIMIT, "vocabulary text over 4 GiB");
  }
  pd_vocab *v = pd__calloc(a, 1, sizeof *v);
  if (!v) return pd__nomem(err);
  v->alloc = a;
  v->size = n;
  v->width = width;
  v->bytes = pd__malloc(a, total);
  v->offs = pd__malloc(a, (n + 1) * sizeof *v->offs);
  v->flags = pd__calloc(a, n, sizeof *v->flags);
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
  for (size_t i = 0; i < n_eos; i++) {
    if (opts->eos_ids[i] >= n) {
      pd_vocab_free(v);
      return pd__fail(err, PD_ERR_ARG, "eos id %u is outside the vocabulary", opts->eos_ids[i]);
    }
    v->eos[v->n_eos++] = opts->eos_ids[i];
    v->flags[opts->eos_ids[i]] |= PD_TOKEN_EOS;
  }
  for (size_t i = 0; i < n; i++)
    if (v->flags[i] & PD_TOKEN_EOS) {
      bool listed = false;
      for (size_t j = 0; j < v->n_eos; j++) listed |= v->eos[j] == i;
      if (!listed && v->n_eos < n_eos + 1 && n_eos == 0) {
        /* flags alone name the stop tokens: collect them */
        uint32_t *e = pd__realloc(a, v->eos, (v->n_eos + 1) * sizeof *e);
        if (!e) {
          pd_vocab_free(v);
          return pd__nomem(err);
        }
        v->eos = e;
        v->eos[v->n_eos++] = (uint32_t)i;
      }
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
  if (!v) return PD_ERR_ARG;
  for (size_t i = 0; i < v->size; i++)
    if (v->offs[i + 1] - v->offs[i] == len && !memcmp(v->bytes + v->offs[i], bytes, len) &&
        !(v->flags[i] & PD_TOKEN_HOLE)) {
      if (id) *id = (uint32_t)i;
      return PD_OK;
    }
  return PD_ERR_ARG;
}

size_t pd_vocab_eos(const pd_vocab *v, const uint32_t **ids) {
  if (ids) *ids = v ? v->eos : NULL;
  return v ? v->n_eos : 0;
}
