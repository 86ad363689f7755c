/* encoder.c - the canonical encoder: its tables and pd_vocab_encode (steps in encoder.h). */
#include "encoder.h"

#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/error.h"
#include "unicode.h"
#include "vocab.h"

static size_t pd__table_cap(size_t n) {
  size_t cap = 16;
  while (cap < 2 * n) cap *= 2;
  return cap;
}

pd_status pd_encoder_new(const pd_allocator *a, size_t n_ids, size_t n_merges, size_t n_chars,
                         pd_encoder **out, pd_error *err) {
  pd_encoder *e = pd__calloc(a, 1, sizeof *e);
  if (!e) return pd__nomem(err);
  e->merge_mask = pd__table_cap(n_merges) - 1;
  e->char_mask = pd__table_cap(n_chars) - 1;
  e->merges = pd__malloc(a, (e->merge_mask + 1) * sizeof *e->merges);
  e->chars = pd__malloc(a, (e->char_mask + 1) * sizeof *e->chars);
  e->in_model = pd__calloc(a, n_ids / 32 + 1, sizeof *e->in_model);
  e->cap_nodes = 64;
  e->nodes = pd__malloc(a, e->cap_nodes * sizeof *e->nodes);
  if (!e->merges || !e->chars || !e->in_model || !e->nodes) {
    pd_encoder_free(a, e);
    return pd__nomem(err);
  }
  for (size_t i = 0; i <= e->merge_mask; i++) e->merges[i].rank = UINT32_MAX;
  for (size_t i = 0; i <= e->char_mask; i++) e->chars[i].cp = UINT32_MAX;
  for (int b = 0; b < 256; b++) e->byte_ids[b] = PD_NO_ID;
  e->nodes[0] = (pd_added_node){0, 0, PD_NO_ID, 0};
  e->n_nodes = 1;
  e->unk = PD_NO_ID;
  *out = e;
  return PD_OK;
}

void pd_encoder_free(const pd_allocator *a, pd_encoder *e) {
  if (!e) return;
  pd__free(a, e->merges);
  pd__free(a, e->chars);
  pd__free(a, e->in_model);
  pd__free(a, e->nodes);
  pd__free(a, e);
}

static uint64_t pd__mix(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdu;
  k ^= k >> 33;
  return k;
}

pd_status pd_encoder_reserve_merges(pd_encoder *e, const pd_allocator *a, size_t n, pd_error *err) {
  size_t cap = pd__table_cap(n);
  if (e->n_merges || cap <= e->merge_mask + 1) return PD_OK;
  pd_merge *m = pd__malloc(a, cap * sizeof *m);
  if (!m) return pd__nomem(err);
  for (size_t i = 0; i < cap; i++) m[i].rank = UINT32_MAX;
  pd__free(a, e->merges);
  e->merges = m;
  e->merge_mask = cap - 1;
  return PD_OK;
}

/* A repeated pair takes the later rank, as a map built from the merge list does. */
bool pd_encoder_add_merge(pd_encoder *e, uint32_t left, uint32_t right, uint32_t rank,
                          uint32_t id) {
  uint64_t key = (uint64_t)left << 32 | right;
  size_t s = pd__mix(key) & e->merge_mask;
  while (e->merges[s].rank != UINT32_MAX && e->merges[s].key != key) s = (s + 1) & e->merge_mask;
  bool fresh = e->merges[s].rank == UINT32_MAX;
  if (fresh && e->n_merges >= e->merge_mask / 2) return false;
  e->n_merges += fresh;
  e->merges[s] = (pd_merge){key, rank, id};
  return true;
}

const pd_merge *pd_encoder_merge(const pd_encoder *e, uint32_t left, uint32_t right) {
  uint64_t key = (uint64_t)left << 32 | right;
  for (size_t s = pd__mix(key) & e->merge_mask;; s = (s + 1) & e->merge_mask) {
    if (e->merges[s].rank == UINT32_MAX) return NULL;
    if (e->merges[s].key == key) return &e->merges[s];
  }
}

bool pd_encoder_add_char(pd_encoder *e, uint32_t cp, uint32_t id) {
  size_t s = pd__mix(cp) & e->char_mask;
  while (e->chars[s].cp != UINT32_MAX) {
    if (e->chars[s].cp == cp) return true; /* the lowest id stays */
    s = (s + 1) & e->char_mask;
  }
  if (e->n_chars >= e->char_mask / 2) return false;
  e->chars[s] = (pd_char_id){cp, id};
  e->n_chars++;
  return true;
}

uint32_t pd_encoder_char(const pd_encoder *e, uint32_t cp) {
  for (size_t s = pd__mix(cp) & e->char_mask;; s = (s + 1) & e->char_mask) {
    if (e->chars[s].cp == UINT32_MAX) return PD_NO_ID;
    if (e->chars[s].cp == cp) return e->chars[s].id;
  }
}

/* The child of node with byte b, or 0. */
static uint32_t pd__child(const pd_encoder *e, uint32_t node, uint8_t b) {
  if (node == 0) return e->root[b];
  for (uint32_t c = e->nodes[node].child; c; c = e->nodes[c].next)
    if (e->nodes[c].byte == b) return c;
  return 0;
}

pd_status pd_encoder_add_token(pd_encoder *e, const pd_allocator *a, const uint8_t *bytes,
                               size_t len, uint32_t id, pd_error *err) {
  uint32_t node = 0;
  for (size_t i = 0; i < len; i++) {
    uint32_t c = pd__child(e, node, bytes[i]);
    if (!c) {
      if (e->n_nodes == e->cap_nodes) {
        pd_added_node *p = pd__realloc(a, e->nodes, 2 * e->cap_nodes * sizeof *p);
        if (!p) return pd__nomem(err);
        e->nodes = p;
        e->cap_nodes *= 2;
      }
      c = (uint32_t)e->n_nodes++;
      e->nodes[c] = (pd_added_node){0, e->nodes[node].child, PD_NO_ID, bytes[i]};
      e->nodes[node].child = c;
      if (node == 0) e->root[bytes[i]] = c;
    }
    node = c;
  }
  if (node && e->nodes[node].id == PD_NO_ID) e->nodes[node].id = id;
  return PD_OK;
}

/* The longest added token at the start of s: its length (0 = none) and id. */
static size_t pd__added_match(const pd_encoder *e, const uint8_t *s, size_t n, uint32_t *id) {
  size_t best = 0;
  uint32_t node = 0;
  for (size_t i = 0; i < n && (node = pd__child(e, node, s[i])); i++)
    if (e->nodes[node].id != PD_NO_ID) {
      best = i + 1;
      *id = e->nodes[node].id;
    }
  return best;
}

/* ---------------------------------------------------------------- encoding */

typedef struct pd__sym {
  uint32_t id;
  int32_t prev, next; /* -1 = none */
  bool dead;
} pd__sym;

typedef struct pd__cand {
  uint32_t rank, pos;
} pd__cand;

typedef struct pd__run {
  const pd_vocab *v;
  const pd_encoder *e;
  const pd_allocator *a;
  pd_error *err;
  PD_ARRAY(uint32_t) out;
  PD_ARRAY(uint8_t) norm;
  pd_bytes nfc;
  pd_codepoints cps;
  PD_ARRAY(pd__sym) sym;
  PD_ARRAY(pd__cand) heap;
} pd__run;

static bool pd__cand_less(pd__cand x, pd__cand y) {
  return x.rank < y.rank || (x.rank == y.rank && x.pos < y.pos);
}

static bool pd__heap_push(pd__run *r, pd__cand c) {
  if (!pd_array_push(r->a, &r->heap, c)) return false;
  pd__cand *h = r->heap.data;
  for (size_t i = r->heap.len - 1; i > 0;) {
    size_t p = (i - 1) / 2;
    if (!pd__cand_less(h[i], h[p])) break;
    pd__cand t = h[i];
    h[i] = h[p];
    h[p] = t;
    i = p;
  }
  return true;
}

static pd__cand pd__heap_pop(pd__run *r) {
  pd__cand *h = r->heap.data, top = h[0];
  h[0] = h[--r->heap.len];
  for (size_t i = 0, n = r->heap.len;;) {
    size_t l = 2 * i + 1, m = i;
    if (l < n && pd__cand_less(h[l], h[m])) m = l;
    if (l + 1 < n && pd__cand_less(h[l + 1], h[m])) m = l + 1;
    if (m == i) break;
    pd__cand t = h[i];
    h[i] = h[m];
    h[m] = t;
    i = m;
  }
  return top;
}

/* Queues the pair starting at symbol pos when it merges. */
static bool pd__offer(pd__run *r, int32_t pos) {
  if (pos < 0 || r->sym.data[pos].next < 0) return true;
  const pd_merge *m =
      pd_encoder_merge(r->e, r->sym.data[pos].id, r->sym.data[r->sym.data[pos].next].id);
  return !m || pd__heap_push(r, (pd__cand){m->rank, (uint32_t)pos});
}

static bool pd__sym_push(pd__run *r, uint32_t id) {
  int32_t n = (int32_t)r->sym.len;
  return pd_array_push(r->a, &r->sym, ((pd__sym){id, n - 1, -1, false}));
}

/* Merges the symbols by rank (lowest first, leftmost on ties) and emits them. */
static pd_status pd__merge_all(pd__run *r) {
  pd__sym *s = r->sym.data;
  size_t n = r->sym.len;
  for (size_t i = 0; i + 1 < n; i++) s[i].next = (int32_t)i + 1;
  pd_array_clear(&r->heap);
  for (size_t i = 0; i + 1 < n; i++)
    if (!pd__offer(r, (int32_t)i)) return pd__nomem(r->err);
  while (r->heap.len) {
    pd__cand c = pd__heap_pop(r);
    pd__sym *x = &s[c.pos];
    if (x->dead || x->next < 0) continue;
    const pd_merge *m = pd_encoder_merge(r->e, x->id, s[x->next].id);
    if (!m || m->rank != c.rank) continue;
    pd__sym *y = &s[x->next];
    x->id = m->id;
    y->dead = true;
    x->next = y->next;
    if (y->next >= 0) s[y->next].prev = (int32_t)c.pos;
    if (!pd__offer(r, x->prev) || !pd__offer(r, (int32_t)c.pos)) return pd__nomem(r->err);
  }
  if (!pd_array_reserve(r->a, &r->out, n)) return pd__nomem(r->err);
  for (int32_t i = n ? 0 : -1; i >= 0; i = s[i].next) r->out.data[r->out.len++] = s[i].id;
  return PD_OK;
}

/* Byte-level initial symbols: one per byte. */
static pd_status pd__bytes_symbols(pd__run *r, const uint8_t *w, size_t n) {
  for (size_t i = 0; i < n; i++) {
    uint32_t id = r->e->byte_ids[w[i]];
    if (id == PD_NO_ID)
      return pd__fail(r->err, PD_ERR_UNSUPPORTED, "byte 0x%02X has no token in this vocabulary",
                      w[i]);
    if (!pd__sym_push(r, id)) return pd__nomem(r->err);
  }
  return PD_OK;
}

/* SentencePiece initial symbols: a character's token, else its <0xNN> bytes, else unk. */
static pd_status pd__char_symbols(pd__run *r, const uint8_t *w, size_t n) {
  for (size_t i = 0; i < n;) {
    uint32_t cp, id;
    size_t k = pd_utf8_decode(w + i, n - i, &cp);
    id = cp == PD_UTF8_INVALID ? PD_NO_ID : pd_encoder_char(r->e, cp);
    bool bytes = id == PD_NO_ID && r->e->byte_fallback;
    for (size_t j = 0; bytes && j < k; j++) bytes = r->e->byte_ids[w[i + j]] != PD_NO_ID;
    for (size_t j = 0; bytes && j < k; j++)
      if (!pd__sym_push(r, r->e->byte_ids[w[i + j]])) return pd__nomem(r->err);
    if (!bytes && id == PD_NO_ID && (id = r->e->unk) == PD_NO_ID)
      return pd__fail(r->err, PD_ERR_UNSUPPORTED,
                      "character U+%04X has no token and the vocabulary has no unk token", cp);
    if (!bytes && !pd__sym_push(r, id)) return pd__nomem(r->err);
    i += k;
  }
  return PD_OK;
}

static pd_status pd__word(pd__run *r, const uint8_t *w, size_t n) {
  uint32_t id;
  if (r->e->ignore_merges && pd_vocab_lookup(r->v, w, n, &id) &&
      (r->e->in_model[id / 32] >> (id % 32) & 1))
    return pd_array_push(r->a, &r->out, id) ? PD_OK : pd__nomem(r->err);
  pd_array_clear(&r->sym);
  pd_status st = r->e->byte_level ? pd__bytes_symbols(r, w, n) : pd__char_symbols(r, w, n);
  return st ? st : pd__merge_all(r);
}

/* SentencePiece normalization: U+2581 before the segment when asked, and for each space. */
static pd_status pd__sp_normalize(pd__run *r, const uint8_t *s, size_t n) {
  static const uint8_t bar[3] = {0xE2, 0x96, 0x81};
  pd_array_clear(&r->norm);
  if (!pd_array_reserve(r->a, &r->norm, 3 * n + 3)) return pd__nomem(r->err);
  uint8_t *o = r->norm.data;
  size_t k = 0;
  if (r->e->sp_prepend) memcpy(o, bar, 3), k = 3;
  for (size_t i = 0; i < n; i++)
    if (s[i] == ' ' && r->e->sp_replace)
      memcpy(o + k, bar, 3), k += 3;
    else
      o[k++] = s[i];
  r->norm.len = k;
  return PD_OK;
}

static bool pd__ascii(const uint8_t *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (s[i] >= 0x80) return false;
  return true;
}

static pd_status pd__segment(pd__run *r, const uint8_t *s, size_t n) {
  if (!n) return PD_OK;
  if (r->e->nfc && !pd__ascii(s, n)) {
    if (!pd_unicode_nfc(r->a, s, n, &r->nfc, &r->cps)) return pd__nomem(r->err);
    s = r->nfc.data;
    n = r->nfc.len;
  }
  if (r->e->sp_replace || r->e->sp_prepend) {
    pd_status st = pd__sp_normalize(r, s, n);
    if (st) return st;
    s = r->norm.data;
    n = r->norm.len;
  }
  while (n) {
    size_t k = pd_pretok_next(r->e->pretok, s, n);
    pd_status st = pd__word(r, s, k);
    if (st) return st;
    s += k;
    n -= k;
  }
  return PD_OK;
}

static pd_status pd__encode(pd__run *r, const uint8_t *text, size_t len) {
  size_t seg = 0;
  for (size_t i = 0; i < len;) {
    uint32_t id;
    size_t k = pd__added_match(r->e, text + i, len - i, &id);
    if (!k) {
      i++;
      continue;
    }
    pd_status st = pd__segment(r, text + seg, i - seg);
    if (st) return st;
    if (!pd_array_push(r->a, &r->out, id)) return pd__nomem(r->err);
    i += k;
    seg = i;
  }
  return pd__segment(r, text + seg, len - seg);
}

pd_status pd_vocab_encode(const pd_vocab *v, const uint8_t *text, size_t len, uint32_t **ids,
                          size_t *n_ids, pd_error *err) {
  if (!v || !ids || !n_ids || (len && !text))
    return pd__fail(err, PD_ERR_ARG, "pd_vocab_encode: bad arguments");
  *ids = NULL;
  *n_ids = 0;
  if (!v->enc)
    return pd__fail(err, PD_ERR_UNSUPPORTED,
                    "this vocabulary has no encoder (not from a tokenizer.json)");
  if (v->enc->unsupported)
    return pd__fail(err, PD_ERR_UNSUPPORTED, "cannot encode with this tokenizer: %s",
                    v->enc->unsupported);
  pd__run r = {.v = v, .e = v->enc, .a = v->alloc, .err = err};
  pd_status st = pd__encode(&r, text, len);
  if (!st && !r.out.data && !pd_array_reserve(r.a, &r.out, 1)) st = pd__nomem(err);
  pd_array_free(r.a, &r.norm);
  pd_array_free(r.a, &r.nfc);
  pd_array_free(r.a, &r.cps);
  pd_array_free(r.a, &r.sym);
  pd_array_free(r.a, &r.heap);
  if (st) {
    pd_array_free(r.a, &r.out);
    return st;
  }
  *ids = r.out.data;
  *n_ids = r.out.len;
  return PD_OK;
}

void pd_free_ids(const pd_vocab *v, uint32_t *ids) {
  if (ids) pd__free(v ? v->alloc : pd_default_allocator(), ids);
}
