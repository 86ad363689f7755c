/* matcher.c - the public matcher API over the Earley rows of row.c. */
#include <string.h>

#include "base/error.h"
#include "earley.h"
#include "masks/memo.h"
#include "masks/vocab.h"

void pd_matcher_free(pd_matcher *m) {
  if (!m) return;
  const pd_allocator *a = m->alloc;
  pd_array_free(a, &m->items);
  pd_array_free(a, &m->rows);
  pd_array_free(a, &m->row_ids);
  pd_array_free(a, &m->tokens);
  pd_array_free(a, &m->chain);
  pd__free(a, m->stamp);
  pd__free(a, m->head);
  pd__free(a, m->hkey);
  pd__free(a, m->hstamp);
  pd__free(a, m->counts);
  pd_memo_scratch_free(m->key_scratch, a);
  pd_earley_calls_free(m->calls, a);
  pd__free(a, m);
}

/* A matcher with empty rows and its scratch tables. */
static pd_matcher *pd__alloc(const pd_grammar *g) {
  const pd_allocator *a = g->alloc;
  pd_matcher *m = pd__calloc(a, 1, sizeof *m);
  if (!m) return NULL;
  m->g = g;
  m->alloc = a;
  m->states = pd_pda_states(&g->pda);
  m->edges = pd_pda_edges(&g->pda);
  m->rules = pd_pda_rules(&g->pda);
  m->root = g->pda.root;
  m->max_items = g->opts.max_items_per_row;
  m->sets = g->pda.n_set != 0;
  size_t n = g->pda.n_states ? g->pda.n_states : 1;
  m->stamp = pd__calloc(a, n, sizeof *m->stamp);
  m->head = pd__malloc(a, n * sizeof *m->head);
  if (!m->stamp || !m->head) {
    pd_matcher_free(m);
    return NULL;
  }
  return m;
}

static pd_status pd__status_error(pd_status s, pd_error *err, const pd_matcher *m) {
  if (s == PD_ERR_NOMEM) return pd__nomem(err);
  if (s == PD_ERR_LIMIT)
    return pd__fail(err, s, "more than max_items_per_row (%u) Earley items in one row",
                    m->max_items);
  return pd__fail(err, s, "%s", pd_status_str(s));
}

pd_status pd_matcher_new(const pd_grammar *g, pd_matcher **out, pd_error *err) {
  if (!out) return pd__fail(err, PD_ERR_ARG, "pd_matcher_new: out is NULL");
  *out = NULL;
  if (!g) return pd__fail(err, PD_ERR_ARG, "pd_matcher_new: grammar is NULL");
  pd_matcher *m = pd__alloc(g);
  if (!m) return pd__nomem(err);
  pd_status s = pd_earley_start(m);
  if (s) {
    pd__status_error(s, err, m);
    pd_matcher_free(m);
    return s;
  }
  *out = m;
  return PD_OK;
}

#define PD__COPY(a, dst, src)                                                          \
  ((src).len == 0 || (pd_array_reserve(a, &(dst), (src).len) &&                        \
                      (memcpy((dst).data, (src).data, (src).len * sizeof *(src).data), \
                       (dst).len = (src).len, true)))

pd_status pd_matcher_fork(const pd_matcher *m, pd_matcher **out, pd_error *err) {
  if (!out) return pd__fail(err, PD_ERR_ARG, "pd_matcher_fork: out is NULL");
  *out = NULL;
  if (!m) return pd__fail(err, PD_ERR_ARG, "pd_matcher_fork: matcher is NULL");
  pd_matcher *f = pd__alloc(m->g);
  if (!f || !PD__COPY(f->alloc, f->items, m->items) || !PD__COPY(f->alloc, f->rows, m->rows) ||
      !PD__COPY(f->alloc, f->row_ids, m->row_ids) || !PD__COPY(f->alloc, f->tokens, m->tokens)) {
    pd_matcher_free(f);
    return pd__nomem(err);
  }
  if (m->counts && m->items.len) {
    if (!(f->counts = pd__malloc(f->alloc, m->items.len * sizeof *f->counts))) {
      pd_matcher_free(f);
      return pd__nomem(err);
    }
    memcpy(f->counts, m->counts, m->items.len * sizeof *f->counts);
    f->counts_cap = m->items.len;
  }
  f->terminated = m->terminated;
  f->next_row_id = m->next_row_id;
  *out = f;
  return PD_OK;
}

void pd_matcher_reset(pd_matcher *m) {
  if (!m || !m->rows.len) return;
  pd_earley_pop(m, (uint32_t)m->rows.len - 1);
  pd_array_clear(&m->tokens);
  m->terminated = false;
}

pd_status pd_matcher_accept_bytes(pd_matcher *m, const uint8_t *bytes, size_t len, size_t *n_ok,
                                  pd_error *err) {
  if (n_ok) *n_ok = 0;
  if (!m || (!bytes && len))
    return pd__fail(err, PD_ERR_ARG, "pd_matcher_accept_bytes: NULL argument");
  if (m->terminated)
    return pd__fail(err, PD_ERR_STATE, "the matcher is terminated (stop token accepted)");
  uint32_t base = (uint32_t)m->rows.len;
  for (size_t i = 0; i < len; i++) {
    pd_status s = pd_earley_push_byte(m, bytes[i]);
    if (!s) continue;
    pd_earley_pop(m, (uint32_t)m->rows.len - base);
    if (n_ok) *n_ok = i;
    if (s != PD_ERR_REJECTED) return pd__status_error(s, err, m);
    pd__fail(err, s, "byte %zu (0x%02X) is not accepted", i, bytes[i]);
    if (err) err->offset = i;
    return s;
  }
  if (n_ok) *n_ok = len;
  return PD_OK;
}

/* Validates id against the vocabulary; PD_OK when it may be tried. */
static pd_status pd__token_id_ok(const pd_matcher *m, uint32_t id, pd_error *err) {
  const pd_vocab *v = m->g->vocab;
  if (!v)
    return pd__fail(err, PD_ERR_STATE, "the grammar has no vocabulary: tokens cannot be accepted");
  if (m->terminated)
    return pd__fail(err, PD_ERR_STATE, "the matcher is terminated (stop token accepted)");
  if (id >= v->size)
    return pd__fail(err, PD_ERR_REJECTED, "token id %u is outside the vocabulary (%zu ids)", id,
                    v->size);
  if (v->flags[id] & PD_TOKEN_HOLE)
    return pd__fail(err, PD_ERR_REJECTED, "token id %u is not used by the tokenizer", id);
  return PD_OK;
}

pd_status pd_matcher_accept_token(pd_matcher *m, uint32_t id, pd_error *err) {
  if (!m) return pd__fail(err, PD_ERR_ARG, "pd_matcher_accept_token: matcher is NULL");
  pd_status s = pd__token_id_ok(m, id, err);
  if (s) return s;
  if (!pd_array_reserve(m->alloc, &m->tokens, 1)) return pd__nomem(err);
  uint32_t before = (uint32_t)m->rows.len, pushed = 0;
  if (m->g->vocab->flags[id] & PD_TOKEN_EOS) {
    if (!pd_earley_accepting(m))
      return pd__fail(err, PD_ERR_REJECTED,
                      "stop token %u is not allowed: the input is not complete", id);
    m->tokens.data[m->tokens.len++] = (pd_earley_token){before, before, 1};
    m->terminated = true;
    return PD_OK;
  }
  s = pd_earley_push_token(m, id, &pushed);
  if (s == PD_ERR_REJECTED) return pd__fail(err, s, "token %u is not accepted here", id);
  if (s) return pd__status_error(s, err, m);
  m->tokens.data[m->tokens.len++] = (pd_earley_token){before, before + pushed, 0};
  return PD_OK;
}

pd_status pd_matcher_rollback(pd_matcher *m, size_t n_tokens, pd_error *err) {
  if (!m) return pd__fail(err, PD_ERR_ARG, "pd_matcher_rollback: matcher is NULL");
  if (n_tokens > m->tokens.len)
    return pd__fail(err, PD_ERR_ARG, "cannot roll back %zu tokens: only %zu accepted", n_tokens,
                    m->tokens.len);
  if (!n_tokens) return PD_OK;
  uint32_t target = m->tokens.data[m->tokens.len - n_tokens].rows_before;
  pd_earley_pop(m, (uint32_t)m->rows.len - target);
  m->tokens.len -= n_tokens;
  m->terminated = m->tokens.len && m->tokens.data[m->tokens.len - 1].eos;
  return PD_OK;
}

pd_status pd_matcher_validate_tokens(pd_matcher *m, const uint32_t *ids, size_t n, size_t *n_ok,
                                     pd_error *err) {
  if (n_ok) *n_ok = 0;
  if (!m || (!ids && n))
    return pd__fail(err, PD_ERR_ARG, "pd_matcher_validate_tokens: NULL argument");
  if (!m->g->vocab) return pd__fail(err, PD_ERR_STATE, "the grammar has no vocabulary");
  size_t k = 0;
  pd_status s = PD_OK;
  for (; k < n; k++) {
    s = pd_matcher_accept_token(m, ids[k], NULL);
    if (s) break;
  }
  pd_matcher_rollback(m, k, NULL);
  if (n_ok) *n_ok = k;
  if (s == PD_ERR_NOMEM || s == PD_ERR_LIMIT) return pd__status_error(s, err, m);
  return PD_OK;
}

size_t pd_matcher_num_tokens(const pd_matcher *m) { return m ? m->tokens.len : 0; }

bool pd_matcher_is_accepting(const pd_matcher *m) { return m && pd_earley_accepting(m); }

bool pd_matcher_is_terminated(const pd_matcher *m) {
  if (!m) return false;
  if (m->terminated) return true;
  if (!pd_earley_accepting(m)) return false;
  uint32_t bytes[8];
  bool tok;
  pd_earley_live(m, bytes, &tok);
  uint32_t any = 0;
  for (int i = 0; i < 8; i++) any |= bytes[i];
  return !any && !tok;
}

/* The single byte every continuation of the current row starts with, or -1. */
static int pd__only_byte(const pd_matcher *m) {
  uint32_t bytes[8];
  bool tok;
  if (pd_earley_accepting(m)) return -1;
  pd_earley_live(m, bytes, &tok);
  if (tok) return -1;
  int found = -1;
  for (int i = 0; i < 8; i++) {
    if (!bytes[i]) continue;
    if (found >= 0 || (bytes[i] & (bytes[i] - 1))) return -1;
    found = i * 32 + __builtin_ctz(bytes[i]);
  }
  return found;
}

pd_status pd_matcher_forced_bytes(const pd_matcher *cm, uint8_t *buf, size_t cap, size_t *len,
                                  pd_error *err) {
  if (len) *len = 0;
  if (!cm || !len || (!buf && cap))
    return pd__fail(err, PD_ERR_ARG, "pd_matcher_forced_bytes: NULL argument");
  if (cm->terminated) return PD_OK;
  /* pushes rows and pops them again: the logical state is unchanged */
  pd_matcher *m = (pd_matcher *)cm;
  uint32_t base = (uint32_t)m->rows.len;
  size_t n = 0;
  pd_status s = PD_OK;
  int b;
  while (n < cap && (b = pd__only_byte(m)) >= 0) {
    if ((s = pd_earley_push_byte(m, (uint8_t)b))) break;
    buf[n++] = (uint8_t)b;
  }
  pd_earley_pop(m, (uint32_t)m->rows.len - base);
  if (s) return pd__status_error(s, err, m);
  *len = n;
  return PD_OK;
}
