/* vocab_hf.c - loading a Hugging Face tokenizer.json (+ tokenizer_config.json)
 * into a vocabulary and its canonical encoder.
 *
 * Token text as the file writes it becomes the token's bytes:
 *   byte-level BPE (a ByteLevel pre-tokenizer or decoder): each character is
 *     one byte through GPT-2's map (unicode.h); a character outside the map
 *     stands for its own UTF-8;
 *   SentencePiece BPE: U+2581 is a space, "<0xHH>" is byte 0xHH;
 *   added tokens: their content, as UTF-8.
 * Ids no entry names are holes. Added tokens marked special are flagged
 * PD_TOKEN_SPECIAL; the others are ordinary text. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/error.h"
#include "encoder.h"
#include "unicode.h"
#include "vocab.h"
#include "vocab_hf.h"

/* Ids may leave holes, but not many: a few bytes of JSON must not make us
 * allocate gigabytes. size <= 2 * entries + PD__HOLE_SLACK and <= PD__MAX_IDS. */
#define PD__HOLE_SLACK 1024u
#define PD__MAX_IDS (1u << 26)
#define PD__FROM_VOCAB 1
#define PD__FROM_ADDED 2

typedef struct pd__hf {
  const pd_allocator *a;
  pd_error *err;
  json_t *root, *model, *vocab, *added, *merges;
  bool byte_level;
  size_t size;
  PD_ARRAY(uint8_t) text; /* decoded token bytes */
  uint32_t *start, *len, *flags;
  uint8_t *src; /* PD__FROM_* per id, 0 = hole */
  uint32_t eos[4];
  size_t n_eos;
} pd__hf;

static void pd__hf_free(pd__hf *h) {
  pd_array_free(h->a, &h->text);
  pd__free(h->a, h->start);
  pd__free(h->a, h->len);
  pd__free(h->a, h->flags);
  pd__free(h->a, h->src);
  json_decref(h->root);
}

/* flags: extra JSON_* decoding flags. */
static pd_status pd__json_parse(const char *text, size_t len, const char *what, size_t flags,
                                json_t **out, pd_error *err) {
  json_error_t je;
  *out = json_loadb(text, len, JSON_ALLOW_NUL | JSON_REJECT_DUPLICATES | flags, &je);
  if (*out) return PD_OK;
  pd__fail(err, PD_ERR_SYNTAX, "%s: %s", what, je.text);
  if (err && je.line > 0) {
    err->line = (uint32_t)je.line;
    err->column = je.column > 0 ? (uint32_t)je.column : 1;
    err->offset = je.position > 0 ? (size_t)je.position : 0;
  }
  return PD_ERR_SYNTAX;
}

static const char *pd__type_of(const json_t *j) {
  const json_t *t = json_is_object(j) ? json_object_get(j, "type") : NULL;
  return json_is_string(t) ? json_string_value(t) : "";
}

/* True when j or a component of a Sequence in it has the given "type". */
static bool pd__has_type(const json_t *j, const char *type, int depth) {
  if (!j || depth > 8) return false;
  if (json_is_array(j)) {
    for (size_t i = 0; i < json_array_size(j); i++)
      if (pd__has_type(json_array_get(j, i), type, depth + 1)) return true;
    return false;
  }
  if (!json_is_object(j)) return false;
  if (!strcmp(pd__type_of(j), type)) return true;
  return pd__has_type(json_object_get(j, "pretokenizers"), type, depth + 1) ||
         pd__has_type(json_object_get(j, "decoders"), type, depth + 1) ||
         pd__has_type(json_object_get(j, "normalizers"), type, depth + 1);
}

/* model: {"type": "BPE", "vocab": {...}, "merges": [...]} */
static pd_status pd__hf_model(pd__hf *h) {
  if (!json_is_object(h->root))
    return pd__fail(h->err, PD_ERR_SYNTAX, "tokenizer.json: the top level is not an object");
  h->model = json_object_get(h->root, "model");
  if (!json_is_object(h->model))
    return pd__fail(h->err, PD_ERR_SYNTAX, "tokenizer.json: \"model\" is missing or not an object");
  json_t *type = json_object_get(h->model, "type");
  if (type && !json_is_string(type))
    return pd__fail(h->err, PD_ERR_SYNTAX, "tokenizer.json: model.type is not a string");
  if (type && strcmp(json_string_value(type), "BPE"))
    return pd__fail(h->err, PD_ERR_UNSUPPORTED,
                    "tokenizer.json: model type '%.60s' is not supported (only BPE)",
                    json_string_value(type));
  h->vocab = json_object_get(h->model, "vocab");
  if (!json_is_object(h->vocab))
    return pd__fail(h->err, PD_ERR_SYNTAX,
                    "tokenizer.json: model.vocab is missing or not an object");
  h->merges = json_object_get(h->model, "merges");
  if (h->merges && !json_is_array(h->merges) && !json_is_null(h->merges))
    return pd__fail(h->err, PD_ERR_SYNTAX, "tokenizer.json: model.merges is not an array");
  h->added = json_object_get(h->root, "added_tokens");
  if (h->added && !json_is_array(h->added) && !json_is_null(h->added))
    return pd__fail(h->err, PD_ERR_SYNTAX, "tokenizer.json: added_tokens is not an array");
  h->byte_level = pd__has_type(json_object_get(h->root, "pre_tokenizer"), "ByteLevel", 0) ||
                  pd__has_type(json_object_get(h->root, "decoder"), "ByteLevel", 0);
  return PD_OK;
}

static pd_status pd__hf_id(pd__hf *h, const json_t *j, const char *where, size_t *max) {
  if (!json_is_integer(j))
    return pd__fail(h->err, PD_ERR_SYNTAX, "tokenizer.json: %s: the id is not an integer", where);
  json_int_t id = json_integer_value(j);
  if (id < 0 || id >= (json_int_t)PD__MAX_IDS)
    return pd__fail(h->err, PD_ERR_LIMIT, "tokenizer.json: %s: id %lld is out of range", where,
                    (long long)id);
  if ((size_t)id + 1 > *max) *max = (size_t)id + 1;
  return PD_OK;
}

/* The id space: max id + 1 over model.vocab and added_tokens, holes bounded. */
static pd_status pd__hf_size(pd__hf *h) {
  size_t max = 0, n = json_object_size(h->vocab);
  pd_status st;
  for (void *it = json_object_iter(h->vocab); it; it = json_object_iter_next(h->vocab, it))
    if ((st = pd__hf_id(h, json_object_iter_value(it), "model.vocab", &max))) return st;
  for (size_t i = 0; i < json_array_size(h->added); i++) {
    json_t *t = json_array_get(h->added, i);
    if (!json_is_object(t) || !json_is_string(json_object_get(t, "content")))
      return pd__fail(h->err, PD_ERR_SYNTAX,
                      "tokenizer.json: added_tokens[%zu] has no string \"content\"", i);
    json_t *sp = json_object_get(t, "special");
    if (sp && !json_is_boolean(sp))
      return pd__fail(h->err, PD_ERR_SYNTAX,
                      "tokenizer.json: added_tokens[%zu].special is not a boolean", i);
    if ((st = pd__hf_id(h, json_object_get(t, "id"), "added_tokens", &max))) return st;
    n++;
  }
  if (max > 2 * n + PD__HOLE_SLACK)
    return pd__fail(h->err, PD_ERR_LIMIT,
                    "tokenizer.json: id %zu is far past the %zu tokens listed (too many holes)",
                    max - 1, n);
  h->size = max;
  return PD_OK;
}

/* Appends s[0..n) as UTF-8, unchanged. */
static bool pd__push_raw(pd__hf *h, const char *s, size_t n) {
  if (!pd_array_reserve(h->a, &h->text, n)) return false;
  if (n) memcpy(h->text.data + h->text.len, s, n);
  h->text.len += n;
  return true;
}

/* True when every character of s is in GPT-2's byte map. */
static bool pd__all_mapped(const char *s, size_t n) {
  for (size_t i = 0; i < n;) {
    uint32_t cp;
    i += pd_utf8_decode((const uint8_t *)s + i, n - i, &cp);
    if (pd_char_byte(cp) < 0) return false;
  }
  return true;
}

/* Appends the bytes a token string stands for, as the tokenizer's decoder makes
 * them (see the file comment); a byte-level string with a character outside the
 * map stands, whole, for its own UTF-8, as in Hugging Face's ByteLevel decoder. */
static bool pd__decode_piece(pd__hf *h, const char *s, size_t n) {
  int byte = h->byte_level ? -1 : pd_encoder_byte_piece(s, n);
  if (byte >= 0) return pd_array_push(h->a, &h->text, (uint8_t)byte);
  if (h->byte_level && !pd__all_mapped(s, n)) return pd__push_raw(h, s, n);
  for (size_t i = 0; i < n;) {
    uint32_t cp;
    size_t k = pd_utf8_decode((const uint8_t *)s + i, n - i, &cp);
    int b = h->byte_level ? pd_char_byte(cp) : cp == 0x2581 ? ' ' : -1;
    if (b >= 0 ? !pd_array_push(h->a, &h->text, (uint8_t)b) : !pd__push_raw(h, s + i, k))
      return false;
    i += k;
  }
  return true;
}

static pd_status pd__hf_tables(pd__hf *h) {
  size_t n = h->size ? h->size : 1;
  h->start = pd__calloc(h->a, n, sizeof *h->start);
  h->len = pd__calloc(h->a, n, sizeof *h->len);
  h->flags = pd__calloc(h->a, n, sizeof *h->flags);
  h->src = pd__calloc(h->a, n, 1);
  if (!h->start || !h->len || !h->flags || !h->src) return pd__nomem(h->err);
  return PD_OK;
}

static pd_status pd__hf_fill_vocab(pd__hf *h) {
  for (void *it = json_object_iter(h->vocab); it; it = json_object_iter_next(h->vocab, it)) {
    size_t id = (size_t)json_integer_value(json_object_iter_value(it));
    if (h->src[id])
      return pd__fail(h->err, PD_ERR_SEMANTIC,
                      "tokenizer.json: id %zu appears twice in model.vocab", id);
    size_t at = h->text.len;
    if (!pd__decode_piece(h, json_object_iter_key(it), json_object_iter_key_len(it)))
      return pd__nomem(h->err);
    h->start[id] = (uint32_t)at;
    h->len[id] = (uint32_t)(h->text.len - at);
    h->src[id] = PD__FROM_VOCAB;
    if (h->text.len >= UINT32_MAX / 2)
      return pd__fail(h->err, PD_ERR_LIMIT, "tokenizer.json: vocabulary text over 2 GiB");
  }
  return PD_OK;
}

/* An added token's content, decoded as model tokens are, gives its bytes, also
 * when model.vocab has its id. */
static pd_status pd__hf_fill_added(pd__hf *h) {
  for (size_t i = 0; i < json_array_size(h->added); i++) {
    json_t *t = json_array_get(h->added, i), *c = json_object_get(t, "content");
    size_t id = (size_t)json_integer_value(json_object_get(t, "id"));
    if (h->src[id] == PD__FROM_ADDED)
      return pd__fail(h->err, PD_ERR_SEMANTIC,
                      "tokenizer.json: id %zu appears twice in added_tokens", id);
    size_t at = h->text.len;
    if (!pd__decode_piece(h, json_string_value(c), json_string_length(c))) return pd__nomem(h->err);
    h->start[id] = (uint32_t)at;
    h->len[id] = (uint32_t)(h->text.len - at);
    h->src[id] = PD__FROM_ADDED;
    if (json_is_true(json_object_get(t, "special"))) h->flags[id] |= PD_TOKEN_SPECIAL;
  }
  for (size_t id = 0; id < h->size; id++)
    if (!h->src[id]) h->flags[id] |= PD_TOKEN_HOLE;
  return PD_OK;
}

/* The id of a token whose text is s: an added token first, else any token. */
static bool pd__hf_find_text(const pd__hf *h, const char *s, size_t n, uint32_t *id) {
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < h->size; i++)
      if ((pass || h->src[i] == PD__FROM_ADDED) && h->src[i] && h->len[i] == n &&
          !memcmp(h->text.data + h->start[i], s, n)) {
        *id = (uint32_t)i;
        return true;
      }
  return false;
}

/* tokenizer_config.json: "eos_token": "<text>" | {"content": "<text>"} | null */
static pd_status pd__hf_config(pd__hf *h, const char *cfg, size_t cfg_len) {
  json_t *root;
  pd_status st =
      pd__json_parse(cfg, cfg_len, "tokenizer_config.json", JSON_DECODE_INT_AS_REAL, &root, h->err);
  if (st) return st;
  json_t *eos = json_is_object(root) ? json_object_get(root, "eos_token") : NULL;
  if (json_is_object(eos)) eos = json_object_get(eos, "content");
  if (!json_is_object(root))
    st = pd__fail(h->err, PD_ERR_SYNTAX, "tokenizer_config.json: the top level is not an object");
  else if (eos && !json_is_null(eos) && !json_is_string(eos))
    st = pd__fail(h->err, PD_ERR_SYNTAX, "tokenizer_config.json: eos_token is not a string");
  else if (json_is_string(eos)) {
    if (pd__hf_find_text(h, json_string_value(eos), json_string_length(eos), &h->eos[0]))
      h->n_eos = 1;
    else
      st = pd__fail(h->err, PD_ERR_SEMANTIC,
                    "tokenizer_config.json: eos_token '%.60s' is not a token",
                    json_string_value(eos));
  }
  json_decref(root);
  return st;
}

static pd_status pd__hf_vocab(pd__hf *h, const pd_vocab_options *opts, pd_vocab **out) {
  const uint8_t **toks = pd__calloc(h->a, h->size ? h->size : 1, sizeof *toks);
  size_t *lens = pd__calloc(h->a, h->size ? h->size : 1, sizeof *lens);
  pd_status st = PD_ERR_NOMEM;
  if (toks && lens) {
    for (size_t i = 0; i < h->size; i++) {
      toks[i] = h->text.data ? h->text.data + h->start[i] : (const uint8_t *)""; /* all empty */
      lens[i] = h->len[i];
    }
    pd_vocab_options o = opts ? *opts : (pd_vocab_options){0};
    o.allocator = h->a;
    if (!o.eos_ids) {
      o.eos_ids = h->eos;
      o.n_eos = h->n_eos;
    }
    st = pd_vocab_from_list(toks, lens, h->flags, h->size, &o, out, h->err);
  } else {
    pd__nomem(h->err);
  }
  pd__free(h->a, toks);
  pd__free(h->a, lens);
  return st;
}

pd_status pd_vocab_from_hf_json(const json_t *root, const char *config_json, size_t config_len,
                                uint32_t eos, const pd_vocab_options *opts, pd_vocab **out,
                                pd_error *err) {
  pd__hf h = {.a = pd__alloc_or_default(opts ? opts->allocator : NULL), .err = err};
  h.root = json_incref((json_t *)root);
  pd_status st = pd__hf_model(&h);
  if (!st) st = pd__hf_size(&h);
  if (!st) st = pd__hf_tables(&h);
  if (!st) st = pd__hf_fill_vocab(&h);
  if (!st) st = pd__hf_fill_added(&h);
  if (!st && config_json && !(opts && opts->eos_ids))
    st = pd__hf_config(&h, config_json, config_len);
  if (!st && eos != PD_NO_ID && !(opts && opts->eos_ids)) {
    if (eos >= h.size)
      st = pd__fail(err, PD_ERR_SEMANTIC, "stop token id %u is not a token", eos);
    else
      h.eos[h.n_eos++] = eos;
  }
  pd_vocab *v = NULL;
  if (!st) st = pd__hf_vocab(&h, opts, &v);
  if (!st) st = pd_encoder_parse_hf(h.root, v, h.byte_level, err);
  pd__hf_free(&h);
  if (st) {
    pd_vocab_free(v);
    return st;
  }
  *out = v;
  return PD_OK;
}

pd_status pd_vocab_parse_hf(const char *tokenizer_json, size_t len, const char *config_json,
                            size_t config_len, const pd_vocab_options *opts, pd_vocab **out,
                            pd_error *err) {
  if (!out || (!tokenizer_json && len) || (!config_json && config_len))
    return pd__fail(err, PD_ERR_ARG, "pd_vocab_parse_hf: bad arguments");
  *out = NULL;
  json_t *root;
  pd_status st =
      pd__json_parse(tokenizer_json ? tokenizer_json : "", len, "tokenizer.json", 0, &root, err);
  if (st) return st;
  st = pd_vocab_from_hf_json(root, config_json, config_len, PD_NO_ID, opts, out, err);
  json_decref(root);
  return st;
}

pd_status pd_vocab_read_file(const pd_allocator *a, const char *path, char **text, size_t *len,
                             pd_error *err) {
  FILE *f = fopen(path, "rb");
  if (!f) return pd__fail(err, PD_ERR_IO, "cannot open '%.200s'", path);
  PD_ARRAY(char) buf = {0};
  pd_status st = PD_OK;
  for (;;) {
    if (!pd_array_reserve(a, &buf, 65536)) {
      st = pd__nomem(err);
      break;
    }
    size_t got = fread(buf.data + buf.len, 1, 65536, f);
    buf.len += got;
    if (got < 65536) break;
  }
  if (!st && ferror(f)) st = pd__fail(err, PD_ERR_IO, "cannot read '%.200s'", path);
  fclose(f);
  if (!st && !pd_array_push(a, &buf, '\0')) st = pd__nomem(err);
  if (st) {
    pd_array_free(a, &buf);
    return st;
  }
  *text = buf.data;
  *len = buf.len - 1;
  return PD_OK;
}

/* tokenizer_config.json beside tokenizer_path: *out is its path when it exists, else NULL. */
static pd_status pd__config_beside(const pd_allocator *a, const char *tokenizer_path, char **out,
                                   pd_error *err) {
  const char *slash = strrchr(tokenizer_path, '/');
  size_t dir = slash ? (size_t)(slash - tokenizer_path) + 1 : 0;
  static const char name[] = "tokenizer_config.json";
  char *p = pd__malloc(a, dir + sizeof name);
  *out = NULL;
  if (!p) return pd__nomem(err);
  memcpy(p, tokenizer_path, dir);
  memcpy(p + dir, name, sizeof name);
  FILE *f = fopen(p, "rb");
  if (f) {
    fclose(f);
    *out = p;
  } else {
    pd__free(a, p);
  }
  return PD_OK;
}

pd_status pd_vocab_load_hf(const char *tokenizer_path, const char *config_path,
                           const pd_vocab_options *opts, pd_vocab **out, pd_error *err) {
  if (!tokenizer_path || !out) return pd__fail(err, PD_ERR_ARG, "pd_vocab_load_hf: bad arguments");
  *out = NULL;
  const pd_allocator *a = pd__alloc_or_default(opts ? opts->allocator : NULL);
  char *tok = NULL, *cfg = NULL, *beside = NULL;
  size_t tok_len = 0, cfg_len = 0;
  pd_status st = pd_vocab_read_file(a, tokenizer_path, &tok, &tok_len, err);
  if (!st && !config_path && !(opts && opts->eos_ids)) {
    st = pd__config_beside(a, tokenizer_path, &beside, err);
    config_path = beside;
  }
  if (!st && config_path) st = pd_vocab_read_file(a, config_path, &cfg, &cfg_len, err);
  if (!st) st = pd_vocab_parse_hf(tok, tok_len, cfg, cfg_len, opts, out, err);
  pd__free(a, tok);
  pd__free(a, cfg);
  pd__free(a, beside);
  return st;
}
