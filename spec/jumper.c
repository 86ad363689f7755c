/* jumper.c - jump-forward: forced bytes -> canonical tokens that are safe to emit.
 *
 * The forced text F is encoded on its own. Its tail is not final when the
 * output goes on past F: a vocabulary token starting inside F could run past
 * its end, and the canonical tokenization of F + continuation would then end
 * differently. So the tokens kept are those that end at or before the first
 * position p where F[p..] is a proper prefix of some normal token. To answer
 * that quickly the jumper keeps the normal tokens sorted by their bytes: the
 * tokens with prefix s are a contiguous run starting at lower_bound(s). */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "masks/vocab.h"

#define PD_JUMP_MAX_FORCED 1024

typedef struct pd_jump_tok {
  const uint8_t *bytes;
  size_t len;
} pd_jump_tok;

struct pd_jumper {
  const pd_vocab *vocab;
  const pd_allocator *alloc;
  pd_jump_tok *toks; /* normal non-empty tokens, sorted by bytes */
  size_t n;
};

static int pd__bytes_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn) {
  int c = memcmp(a, b, an < bn ? an : bn);
  return c ? c : (an > bn) - (an < bn);
}

static int pd__tok_cmp(const void *pa, const void *pb) {
  const pd_jump_tok *a = pa, *b = pb;
  return pd__bytes_cmp(a->bytes, a->len, b->bytes, b->len);
}

pd_status pd_jumper_new(const pd_vocab *vocab, pd_jumper **out, pd_error *err) {
  if (!vocab || !out) return pd__fail(err, PD_ERR_ARG, "NULL vocab or out");
  const pd_allocator *a = vocab->alloc;
  pd_jumper *j = pd__calloc(a, 1, sizeof *j);
  size_t size = pd_vocab_size(vocab);
  if (j) j->toks = pd__calloc(a, size ? size : 1, sizeof *j->toks);
  if (!j || !j->toks) {
    pd__free(a, j);
    return pd__nomem(err);
  }
  j->vocab = vocab;
  j->alloc = a;
  for (uint32_t id = 0; id < size; id++) {
    const uint8_t *b;
    size_t len;
    uint32_t flags;
    if (pd_vocab_token(vocab, id, &b, &len, &flags) == PD_OK && !flags && len)
      j->toks[j->n++] = (pd_jump_tok){b, len};
  }
  qsort(j->toks, j->n, sizeof *j->toks, pd__tok_cmp);
  *out = j;
  return PD_OK;
}

void pd_jumper_free(pd_jumper *j) {
  if (!j) return;
  pd__free(j->alloc, j->toks);
  pd__free(j->alloc, j);
}

/* Whether some token has s[0..len) as a proper prefix. */
static bool pd__extends(const pd_jumper *j, const uint8_t *s, size_t len) {
  size_t lo = 0, hi = j->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (pd__bytes_cmp(j->toks[mid].bytes, j->toks[mid].len, s, len) < 0) lo = mid + 1;
    else hi = mid;
  }
  for (size_t i = lo; i < j->n && i < lo + 2; i++)
    if (j->toks[i].len > len && !memcmp(j->toks[i].bytes, s, len)) return true;
  return false;
}

/* How many of ids[0..n) (the encoding of f[0..len)) end at or before the
 * first position a longer token could cross the end of f. */
static size_t pd__safe_prefix(const pd_jumper *j, const uint8_t *f, size_t len,
                              const uint32_t *ids, size_t n) {
  size_t cut = len;
  for (size_t p = 0; p < len && cut == len; p++)
    if (pd__extends(j, f + p, len - p)) cut = p;
  size_t end = 0, keep = 0;
  for (; keep < n; keep++) {
    const uint8_t *b;
    size_t blen;
    uint32_t flags;
    if (pd_vocab_token(j->vocab, ids[keep], &b, &blen, &flags) != PD_OK || flags) break;
    if (end + blen > cut || memcmp(f + end, b, blen)) break;
    end += blen;
  }
  return keep;
}

pd_status pd_jumper_tokens(const pd_jumper *j, pd_matcher *m, uint32_t *ids, size_t cap,
                           size_t *n, pd_error *err) {
  if (!j || !m || !n || (cap && !ids)) return pd__fail(err, PD_ERR_ARG, "NULL argument");
  *n = 0;
  uint8_t forced[PD_JUMP_MAX_FORCED];
  size_t len = 0, n_enc = 0, keep, ok = 0;
  pd_status st = pd_matcher_forced_bytes(m, forced, sizeof forced, &len, err);
  if (st != PD_OK || !len || !cap) return st;
  uint32_t *enc = NULL;
  st = pd_vocab_encode(j->vocab, forced, len, &enc, &n_enc, err);
  if (st != PD_OK) return st;
  keep = pd__safe_prefix(j, forced, len, enc, n_enc);
  if (keep > cap) keep = cap;
  /* accepted by construction; validating keeps a grammar/encoder mismatch harmless */
  st = pd_matcher_validate_tokens(m, enc, keep, &ok, err);
  if (st == PD_OK) {
    memcpy(ids, enc, ok * sizeof *ids);
    *n = ok;
  }
  pd_free_ids(j->vocab, enc);
  return st;
}
