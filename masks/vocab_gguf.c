/* vocab_gguf.c - the vocabulary of a GGUF model file (llama.cpp's format).
 *
 * Only the tokenizer.ggml.* metadata is read; tensors are never touched. The
 * vocabulary becomes the tokenizer.json tree Hugging Face would have for it and
 * goes through the same reader (vocab_hf.h):
 *   model "gpt2":  byte-level BPE, tokenizer.ggml.merges in order, the split
 *                  pattern named by tokenizer.ggml.pre;
 *   model "llama": SentencePiece BPE with byte fallback; U+2581 for spaces and
 *                  before the text (add_space_prefix, default true). GGUF keeps
 *                  scores, not merges: a pair (a, b) whose concatenation is a
 *                  token t merges with priority score(t), higher first, equal
 *                  scores leftmost first, as llama.cpp's tokenizer does.
 * Token types: 2 unknown and 3 control are special added tokens, 4 user-defined
 * are added ordinary text, the rest (1 normal, 5 unused, 6 byte) are model tokens.
 *
 * File layout (little-endian): "GGUF", u32 version, u64 tensor count, u64 key
 * count, then per key: string name, u32 type, value. A string is u64 length +
 * bytes; an array is u32 element type + u64 count + elements. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/error.h"
#include "encoder.h"
#include "pretok.h"
#include "vocab.h"
#include "vocab_hf.h"

enum {
  PD__U8,
  PD__I8,
  PD__U16,
  PD__I16,
  PD__U32,
  PD__I32,
  PD__F32,
  PD__BOOL,
  PD__STR,
  PD__ARR,
  PD__U64,
  PD__I64,
  PD__F64
};
#define PD__GGUF_MAX_ITEMS (1u << 24)

typedef struct pd__arr {
  size_t at, n; /* offset of the first element, element count */
  uint32_t type;
} pd__arr;

typedef struct pd__gguf {
  const uint8_t *p;
  size_t n, at;
  pd_error *err;
  pd__arr tokens, types, merges, scores;
  const uint8_t *model, *pre;
  size_t model_len, pre_len;
  uint32_t eos, unk;
  bool space_prefix;
} pd__gguf;

static bool pd__take(pd__gguf *g, size_t k, const uint8_t **out) {
  if (k > g->n - g->at) return false;
  *out = g->p + g->at;
  g->at += k;
  return true;
}

static bool pd__u64(pd__gguf *g, uint64_t *v, size_t k) {
  const uint8_t *b;
  if (!pd__take(g, k, &b)) return false;
  *v = 0;
  for (size_t i = k; i-- > 0;) *v = *v << 8 | b[i];
  return true;
}

static bool pd__str(pd__gguf *g, const uint8_t **s, size_t *len) {
  uint64_t n;
  if (!pd__u64(g, &n, 8) || n > g->n - g->at) return false;
  *len = (size_t)n;
  return pd__take(g, *len, s);
}

static size_t pd__scalar_size(uint32_t t) {
  static const uint8_t size[] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
  return t < sizeof size ? size[t] : 0;
}

/* Skips one value of type t; arrays of arrays are refused. */
static bool pd__skip(pd__gguf *g, uint32_t t, bool in_array, pd__arr *arr) {
  const uint8_t *s;
  size_t len;
  if (t == PD__STR) return pd__str(g, &s, &len);
  if (t != PD__ARR) return pd__scalar_size(t) && pd__take(g, pd__scalar_size(t), &s);
  uint64_t et, n;
  if (in_array || !pd__u64(g, &et, 4) || !pd__u64(g, &n, 8) || n > PD__GGUF_MAX_ITEMS) return false;
  if (arr) *arr = (pd__arr){g->at, (size_t)n, (uint32_t)et};
  for (uint64_t i = 0; i < n; i++)
    if (!pd__skip(g, (uint32_t)et, true, NULL)) return false;
  return true;
}

static bool pd__key_is(const uint8_t *k, size_t n, const char *name) {
  return strlen(name) == n && !memcmp(k, name, n);
}

/* Reads one key and keeps what the vocabulary needs. */
static bool pd__key(pd__gguf *g) {
  const uint8_t *k;
  size_t kn;
  uint64_t t, v = 0;
  if (!pd__str(g, &k, &kn) || !pd__u64(g, &t, 4)) return false;
  size_t at = g->at;
  pd__arr arr = {0};
  if (!pd__skip(g, (uint32_t)t, false, &arr)) return false;
  pd__gguf r = *g;
  r.at = at;
  if (t == PD__ARR) {
    pd__arr *slot = pd__key_is(k, kn, "tokenizer.ggml.tokens")       ? &g->tokens
                    : pd__key_is(k, kn, "tokenizer.ggml.token_type") ? &g->types
                    : pd__key_is(k, kn, "tokenizer.ggml.merges")     ? &g->merges
                    : pd__key_is(k, kn, "tokenizer.ggml.scores")     ? &g->scores
                                                                     : NULL;
    if (slot) *slot = arr;
  } else if (t == PD__STR && pd__key_is(k, kn, "tokenizer.ggml.model")) {
    pd__str(&r, &g->model, &g->model_len);
  } else if (t == PD__STR && pd__key_is(k, kn, "tokenizer.ggml.pre")) {
    pd__str(&r, &g->pre, &g->pre_len);
  } else if ((t == PD__U32 || t == PD__I32) && pd__u64(&r, &v, 4)) {
    if (pd__key_is(k, kn, "tokenizer.ggml.eos_token_id")) g->eos = (uint32_t)v;
    if (pd__key_is(k, kn, "tokenizer.ggml.unknown_token_id")) g->unk = (uint32_t)v;
  } else if (t == PD__BOOL && pd__key_is(k, kn, "tokenizer.ggml.add_space_prefix") &&
             pd__u64(&r, &v, 1)) {
    g->space_prefix = v != 0;
  }
  return true;
}

static pd_status pd__header(pd__gguf *g) {
  const uint8_t *magic;
  uint64_t version, n_tensors, n_keys;
  if (!pd__take(g, 4, &magic) || memcmp(magic, "GGUF", 4))
    return pd__fail(g->err, PD_ERR_SYNTAX, "GGUF: not a GGUF file");
  if (!pd__u64(g, &version, 4) || !pd__u64(g, &n_tensors, 8) || !pd__u64(g, &n_keys, 8))
    return pd__fail(g->err, PD_ERR_SYNTAX, "GGUF: truncated header");
  if (version < 2 || version > 3)
    return pd__fail(g->err, PD_ERR_UNSUPPORTED, "GGUF: version %u is not supported",
                    (unsigned)version);
  for (uint64_t i = 0; i < n_keys; i++)
    if (!pd__key(g))
      return pd__fail(g->err, PD_ERR_SYNTAX, "GGUF: metadata key %u is malformed", (unsigned)i);
  if (!g->tokens.n || g->tokens.type != PD__STR)
    return pd__fail(g->err, PD_ERR_SYNTAX, "GGUF: no tokenizer.ggml.tokens string array");
  if ((g->types.n && (g->types.n != g->tokens.n || g->types.type != PD__I32)) ||
      (g->scores.n && (g->scores.n != g->tokens.n || g->scores.type != PD__F32)) ||
      (g->merges.n && g->merges.type != PD__STR))
    return pd__fail(g->err, PD_ERR_SYNTAX, "GGUF: token types, scores or merges are malformed");
  return PD_OK;
}

static int32_t pd__type_of(const pd__gguf *g, size_t i) {
  uint64_t v = 1;
  pd__gguf r = *g;
  r.at = g->types.at + 4 * i;
  if (g->types.n) pd__u64(&r, &v, 4);
  return (int32_t)(uint32_t)v;
}

static float pd__score_of(const pd__gguf *g, size_t i) {
  uint64_t v = 0;
  pd__gguf r = *g;
  r.at = g->scores.at + 4 * i;
  if (g->scores.n) pd__u64(&r, &v, 4);
  uint32_t u = (uint32_t)v;
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* json_object_set_new / json_array_append_new that report failure as false. */
static bool pd__set(json_t *o, const char *k, json_t *v) {
  return v && !json_object_set_new(o, k, v);
}
static bool pd__push(json_t *a, json_t *v) { return v && !json_array_append_new(a, v); }

static json_t *pd__typed(const char *type) {
  json_t *o = json_object();
  if (o && !pd__set(o, "type", json_string(type))) o = (json_decref(o), NULL);
  return o;
}

/* model.vocab and added_tokens from the token strings and types. */
static bool pd__tokens(const pd__gguf *g, json_t *vocab, json_t *added) {
  pd__gguf r = *g;
  r.at = g->tokens.at;
  for (size_t i = 0; i < g->tokens.n; i++) {
    const uint8_t *s;
    size_t len;
    if (!pd__str(&r, &s, &len)) return false;
    int32_t type = pd__type_of(g, i);
    bool special = type == 2 || type == 3, fresh = !json_object_getn(vocab, (const char *)s, len);
    if (fresh &&
        json_object_setn_new_nocheck(vocab, (const char *)s, len, json_integer((json_int_t)i)))
      return false;
    if (!fresh || special || type == 4) {
      json_t *t = json_object();
      if (!pd__push(added, t) || !pd__set(t, "id", json_integer((json_int_t)i)) ||
          !pd__set(t, "content", json_stringn_nocheck((const char *)s, len)) ||
          !pd__set(t, "special", json_boolean(special)))
        return false;
    }
  }
  return true;
}

static bool pd__gpt2_merges(const pd__gguf *g, json_t *merges) {
  pd__gguf r = *g;
  r.at = g->merges.at;
  for (size_t i = 0; i < g->merges.n; i++) {
    const uint8_t *s;
    size_t len;
    if (!pd__str(&r, &s, &len) || !pd__push(merges, json_stringn_nocheck((const char *)s, len)))
      return false;
  }
  return true;
}

/* pre_tokenizer for tokenizer.ggml.pre: a known split pattern, else a type the
 * encoder does not know (the vocabulary still loads). */
static json_t *pd__pre(const pd__gguf *g) {
  static const struct {
    const char *name;
    pd_pretok p;
  } known[] = {{"gpt-2", PD_PRETOK_GPT2},       {"default", PD_PRETOK_GPT2},
               {"llama-bpe", PD_PRETOK_LLAMA3}, {"llama3", PD_PRETOK_LLAMA3},
               {"qwen2", PD_PRETOK_QWEN2},      {"gpt-4o", PD_PRETOK_GPT4O}};
  pd_pretok p = g->pre ? (pd_pretok)-1 : PD_PRETOK_GPT2;
  for (size_t i = 0; g->pre && i < sizeof known / sizeof *known; i++)
    if (pd__key_is(g->pre, g->pre_len, known[i].name)) p = known[i].p;
  if (p == (pd_pretok)-1) return pd__typed("GGUF pre-tokenizer");
  json_t *bl = pd__typed("ByteLevel");
  if (!bl || !pd__set(bl, "use_regex", json_boolean(p == PD_PRETOK_GPT2)))
    return json_decref(bl), NULL;
  if (p == PD_PRETOK_GPT2) return bl;
  json_t *seq = pd__typed("Sequence"), *list = json_array(), *split = pd__typed("Split");
  json_t *pat = json_object();
  bool ok = seq && list && split && pat && pd__set(pat, "Regex", json_string(pd_pretok_regex(p))) &&
            pd__set(split, "pattern", json_incref(pat)) &&
            pd__set(split, "behavior", json_string("Isolated")) &&
            pd__push(list, json_incref(split)) && pd__push(list, json_incref(bl)) &&
            pd__set(seq, "pretokenizers", json_incref(list));
  json_decref(pat);
  json_decref(split);
  json_decref(list);
  json_decref(bl);
  if (!ok) json_decref(seq);
  return ok ? seq : NULL;
}

/* SentencePiece settings: U+2581 for spaces (and before the text), byte fallback. */
static bool pd__spm_settings(const pd__gguf *g, json_t *root, json_t *model) {
  json_t *norm = pd__typed("Sequence"), *list = json_array(), *rep = pd__typed("Replace");
  json_t *pat = json_object();
  bool ok = norm && list && rep && pat && pd__set(root, "normalizer", json_incref(norm)) &&
            pd__set(norm, "normalizers", json_incref(list)) &&
            pd__set(pat, "String", json_string(" ")) && pd__set(rep, "pattern", json_incref(pat)) &&
            pd__set(rep, "content", json_string("\xE2\x96\x81")) &&
            pd__push(list, json_incref(rep));
  if (ok && g->space_prefix) {
    json_t *pre = pd__typed("Prepend");
    ok = pd__set(pre, "prepend", json_string("\xE2\x96\x81")) && !json_array_insert(list, 0, pre);
    json_decref(pre);
  }
  json_decref(norm);
  json_decref(list);
  json_decref(rep);
  json_decref(pat);
  return ok && pd__set(model, "byte_fallback", json_true());
}

/* The tokenizer.json tree of the vocabulary; NULL when an allocation fails. */
static json_t *pd__tree(const pd__gguf *g, bool spm) {
  json_t *root = json_object(), *model = pd__typed("BPE"), *vocab = json_object();
  json_t *merges = json_array(), *added = json_array();
  bool ok = root && model && vocab && merges && added &&
            pd__set(root, "model", json_incref(model)) &&
            pd__set(model, "vocab", json_incref(vocab)) &&
            pd__set(model, "merges", json_incref(merges)) &&
            pd__set(root, "added_tokens", json_incref(added)) && pd__tokens(g, vocab, added);
  if (ok && spm) ok = pd__spm_settings(g, root, model);
  if (ok && !spm)
    ok = pd__gpt2_merges(g, merges) && pd__set(root, "pre_tokenizer", pd__pre(g)) &&
         pd__set(root, "decoder", pd__typed("ByteLevel"));
  json_decref(model);
  json_decref(vocab);
  json_decref(merges);
  json_decref(added);
  if (!ok) json_decref(root);
  return ok ? root : NULL;
}

typedef struct pd__cand {
  float score;
  uint32_t left, right, id;
} pd__cand;

typedef PD_ARRAY(pd__cand) pd__cands;

static int pd__cand_cmp(const void *x, const void *y) {
  const pd__cand *a = x, *b = y;
  if (a->score != b->score) return a->score > b->score ? -1 : 1;
  if (a->id != b->id) return a->id < b->id ? -1 : 1;
  return a->left < b->left ? -1 : a->left > b->left;
}

/* Every split of a normal token into two tokens, by score. */
static pd_status pd__spm_cands(const pd__gguf *g, const json_t *vocab, const pd_allocator *a,
                               pd__cands *c, pd_error *err) {
  pd__gguf r = *g;
  r.at = g->tokens.at;
  for (size_t i = 0; i < g->tokens.n; i++) {
    const uint8_t *s = NULL;
    size_t len = 0;
    pd__str(&r, &s, &len); /* checked by the first pass */
    if (pd__type_of(g, i) != 1) continue;
    for (size_t k = 1; k < len; k++) {
      if ((s[k] & 0xC0) == 0x80) continue; /* split between characters only */
      const json_t *l = json_object_getn(vocab, (const char *)s, k);
      const json_t *rt = json_object_getn(vocab, (const char *)s + k, len - k);
      if (!l || !rt) continue;
      pd__cand cand = {pd__score_of(g, i), (uint32_t)json_integer_value(l),
                       (uint32_t)json_integer_value(rt), (uint32_t)i};
      if (!pd_array_push(a, c, cand)) return pd__nomem(err);
    }
  }
  return PD_OK;
}

static pd_status pd__spm_merges(const pd__gguf *g, const json_t *root, pd_vocab *v, pd_error *err) {
  const json_t *vocab = json_object_get(json_object_get(root, "model"), "vocab");
  pd__cands c = {0};
  pd_status st = pd__spm_cands(g, vocab, v->alloc, &c, err);
  if (!st) {
    if (c.len) qsort(c.data, c.len, sizeof *c.data, pd__cand_cmp); /* data is NULL when empty */
    st = pd_encoder_reserve_merges(v->enc, v->alloc, c.len, err);
  }
  uint32_t rank = 0;
  for (size_t i = 0; !st && i < c.len; i++) {
    rank += i && c.data[i].score != c.data[i - 1].score; /* equal scores: equal ranks */
    if (!pd_encoder_add_merge(v->enc, c.data[i].left, c.data[i].right, rank, c.data[i].id))
      st = pd__fail(err, PD_ERR_INTERNAL, "merge table full");
  }
  pd_array_free(v->alloc, &c);
  return st;
}

pd_status pd_vocab_parse_gguf(const uint8_t *data, size_t len, const pd_vocab_options *opts,
                              pd_vocab **out, pd_error *err) {
  if (!out || (!data && len))
    return pd__fail(err, PD_ERR_ARG, "pd_vocab_parse_gguf: bad arguments");
  *out = NULL;
  pd__gguf g = {.p = data ? data : (const uint8_t *)"",
                .n = len,
                .err = err,
                .eos = PD_NO_ID,
                .unk = PD_NO_ID,
                .space_prefix = true};
  pd_status st = pd__header(&g);
  if (st) return st;
  bool spm = g.model && pd__key_is(g.model, g.model_len, "llama");
  if (!spm && !(g.model && pd__key_is(g.model, g.model_len, "gpt2")))
    return pd__fail(err, PD_ERR_UNSUPPORTED,
                    "GGUF: tokenizer model '%.*s' is not supported (gpt2 and llama are)",
                    g.model ? (int)(g.model_len > 40 ? 40 : g.model_len) : 4,
                    g.model ? (const char *)g.model : "none");
  json_t *root = pd__tree(&g, spm);
  if (!root) return pd__nomem(err);
  pd_vocab *v = NULL;
  st = pd_vocab_from_hf_json(root, NULL, 0, g.eos, opts, &v, err);
  if (!st && spm) st = pd__spm_merges(&g, root, v, err);
  json_decref(root);
  if (st) {
    pd_vocab_free(v);
    return st;
  }
  *out = v;
  return PD_OK;
}

pd_status pd_vocab_load_gguf(const char *path, const pd_vocab_options *opts, pd_vocab **out,
                             pd_error *err) {
  if (!path || !out) return pd__fail(err, PD_ERR_ARG, "pd_vocab_load_gguf: bad arguments");
  *out = NULL;
  const pd_allocator *a = pd__alloc_or_default(opts ? opts->allocator : NULL);
  char *data;
  size_t len;
  pd_status st = pd_vocab_read_file(a, path, &data, &len, err);
  if (st) return st;
  st = pd_vocab_parse_gguf((const uint8_t *)data, len, opts, out, err);
  pd__free(a, data);
  return st;
}
