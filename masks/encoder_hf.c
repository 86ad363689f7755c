/* encoder_hf.c - the encoder's tables and settings from a tokenizer.json:
 * model.merges (ranked pairs), the initial symbols (byte tokens, character
 * tokens, <0xNN> byte-fallback tokens), added tokens, and the normalizer and
 * pre-tokenizer when they are ones the encoder implements. A setting it does
 * not implement leaves the vocabulary usable and makes encode say why. */
#include <jansson.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "encoder.h"
#include "unicode.h"
#include "vocab.h"

typedef struct pd__eb {
  const json_t *root, *model, *vocab;
  pd_vocab *v;
  pd_encoder *e;
  pd_error *err;
} pd__eb;

static const char *pd__type(const json_t *j) {
  const json_t *t = json_is_object(j) ? json_object_get(j, "type") : NULL;
  return json_is_string(t) ? json_string_value(t) : "";
}

static bool pd__str_is(const json_t *j, const char *s) {
  return json_is_string(j) && !strcmp(json_string_value(j), s);
}

/* normalizer: null | NFC | Replace " " -> U+2581 | Prepend U+2581 | Sequence of these */
static void pd__normalizer(pd_encoder *e, const json_t *n, int depth) {
  const char *t = pd__type(n);
  if (json_is_null(n) || !n) return;
  if (!strcmp(t, "Sequence") && depth < 4) {
    const json_t *list = json_object_get(n, "normalizers");
    for (size_t i = 0; i < json_array_size(list); i++)
      pd__normalizer(e, json_array_get(list, i), depth + 1);
  } else if (!strcmp(t, "NFC")) {
    e->nfc = true;
  } else if (!strcmp(t, "Replace") &&
             pd__str_is(json_object_get(json_object_get(n, "pattern"), "String"), " ") &&
             pd__str_is(json_object_get(n, "content"), "\xE2\x96\x81")) {
    e->sp_replace = true;
  } else if (!strcmp(t, "Prepend") && pd__str_is(json_object_get(n, "prepend"), "\xE2\x96\x81")) {
    e->sp_prepend = true;
  } else {
    e->unsupported = "its normalizer is not one the encoder implements";
  }
}

/* Split {Regex: <known>} with behavior Isolated, or Removed with invert. */
static bool pd__split_regex(pd_encoder *e, const json_t *p) {
  const json_t *re = json_object_get(json_object_get(p, "pattern"), "Regex");
  const json_t *beh = json_object_get(p, "behavior");
  bool keep = pd__str_is(beh, "Isolated")
                  ? !json_is_true(json_object_get(p, "invert"))
                  : pd__str_is(beh, "Removed") && json_is_true(json_object_get(p, "invert"));
  int k =
      json_is_string(re) ? pd_pretok_identify(json_string_value(re), json_string_length(re)) : -1;
  if (k < 0 || !keep) return false;
  e->pretok = (pd_pretok)k;
  return true;
}

/* pre_tokenizer: null | ByteLevel(use_regex) | Sequence[Split(known regex), ByteLevel]
 * | Split " " after a normalizer that left no spaces */
static void pd__pretokenizer(pd_encoder *e, const json_t *p) {
  const char *t = pd__type(p);
  const json_t *list = json_object_get(p, "pretokenizers");
  if (!p || json_is_null(p)) return;
  if (!strcmp(t, "ByteLevel") && !json_is_true(json_object_get(p, "add_prefix_space"))) {
    if (!json_is_false(json_object_get(p, "use_regex"))) e->pretok = PD_PRETOK_GPT2;
    return;
  }
  if (!strcmp(t, "Sequence") && json_array_size(list) == 2 &&
      !strcmp(pd__type(json_array_get(list, 1)), "ByteLevel") &&
      json_is_false(json_object_get(json_array_get(list, 1), "use_regex")) &&
      !json_is_true(json_object_get(json_array_get(list, 1), "add_prefix_space")) &&
      !strcmp(pd__type(json_array_get(list, 0)), "Split") &&
      pd__split_regex(e, json_array_get(list, 0)))
    return;
  if (!strcmp(t, "Split") && e->sp_replace &&
      pd__str_is(json_object_get(json_object_get(p, "pattern"), "String"), " "))
    return;
  e->unsupported = "its pre-tokenizer is not one the encoder implements";
}

static void pd__model_settings(pd_encoder *e, const json_t *m) {
  e->byte_fallback = json_is_true(json_object_get(m, "byte_fallback"));
  e->ignore_merges = json_is_true(json_object_get(m, "ignore_merges"));
  const json_t *pre = json_object_get(m, "continuing_subword_prefix");
  const json_t *suf = json_object_get(m, "end_of_word_suffix");
  const json_t *drop = json_object_get(m, "dropout");
  if ((json_is_string(pre) && json_string_length(pre)) ||
      (json_is_string(suf) && json_string_length(suf)))
    e->unsupported = "BPE with word prefixes or suffixes is not implemented";
  if (json_is_number(drop) && json_number_value(drop) > 0)
    e->unsupported = "BPE dropout makes tokenization random";
}

/* "<0xHH>" -> HH, else -1 (SentencePiece's byte-fallback tokens). */
int pd_encoder_byte_piece(const char *s, size_t n) {
  if (n != 6 || memcmp(s, "<0x", 3) || s[5] != '>') return -1;
  int v = 0;
  for (int i = 3; i < 5; i++) {
    char c = s[i];
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

static uint32_t pd__vocab_id(const pd__eb *b, const char *s, size_t n) {
  const json_t *j = json_object_getn(b->vocab, s, n);
  return j ? (uint32_t)json_integer_value(j) : PD_NO_ID;
}

/* Byte tokens (byte-level: the character of each byte; else <0xNN>), the
 * one-character tokens, and which ids are model tokens. */
static pd_status pd__symbols(pd__eb *b, bool byte_level) {
  pd_encoder *e = b->e;
  for (void *it = json_object_iter((json_t *)b->vocab); it;
       it = json_object_iter_next((json_t *)b->vocab, it)) {
    const char *k = json_object_iter_key(it);
    size_t n = json_object_iter_key_len(it);
    uint32_t id = (uint32_t)json_integer_value(json_object_iter_value(it)), cp;
    e->in_model[id / 32] |= 1u << (id % 32);
    int byte = byte_level ? -1 : pd_encoder_byte_piece(k, n);
    if (byte >= 0 && e->byte_ids[byte] == PD_NO_ID) e->byte_ids[byte] = id;
    if (!byte_level && n && pd_utf8_decode((const uint8_t *)k, n, &cp) == n &&
        cp != PD_UTF8_INVALID && !pd_encoder_add_char(e, cp, id))
      return pd__fail(b->err, PD_ERR_INTERNAL, "character table full");
  }
  for (int c = 0; byte_level && c < 256; c++) {
    uint8_t u[4];
    size_t n = pd_utf8_encode(pd_byte_char((uint8_t)c), u);
    e->byte_ids[c] = pd__vocab_id(b, (const char *)u, n);
  }
  return PD_OK;
}

/* One merge: "left right" or ["left", "right"]; both and their concatenation are tokens. */
static pd_status pd__merge(pd__eb *b, const json_t *m, size_t rank, char **buf, size_t *cap) {
  const char *l, *r;
  size_t ln, rn;
  if (json_is_string(m)) {
    l = json_string_value(m);
    const char *sp = memchr(l, ' ', json_string_length(m));
    if (!sp || memchr(sp + 1, ' ', json_string_length(m) - (size_t)(sp + 1 - l)))
      return pd__fail(b->err, PD_ERR_SYNTAX, "tokenizer.json: merges[%zu] is not \"a b\"", rank);
    ln = (size_t)(sp - l);
    r = sp + 1;
    rn = json_string_length(m) - ln - 1;
  } else if (json_is_array(m) && json_array_size(m) == 2 && json_is_string(json_array_get(m, 0)) &&
             json_is_string(json_array_get(m, 1))) {
    l = json_string_value(json_array_get(m, 0));
    ln = json_string_length(json_array_get(m, 0));
    r = json_string_value(json_array_get(m, 1));
    rn = json_string_length(json_array_get(m, 1));
  } else {
    return pd__fail(b->err, PD_ERR_SYNTAX, "tokenizer.json: merges[%zu] is not a pair", rank);
  }
  if (ln + rn > *cap) {
    char *p = pd__realloc(b->v->alloc, *buf, 2 * (ln + rn));
    if (!p) return pd__nomem(b->err);
    *buf = p;
    *cap = 2 * (ln + rn);
  }
  memcpy(*buf, l, ln);
  memcpy(*buf + ln, r, rn);
  uint32_t li = pd__vocab_id(b, l, ln), ri = pd__vocab_id(b, r, rn);
  uint32_t id = pd__vocab_id(b, *buf, ln + rn);
  if (li == PD_NO_ID || ri == PD_NO_ID || id == PD_NO_ID)
    return pd__fail(b->err, PD_ERR_SEMANTIC,
                    "tokenizer.json: merges[%zu] names a token that is not in model.vocab", rank);
  if (!pd_encoder_add_merge(b->e, li, ri, (uint32_t)rank, id))
    return pd__fail(b->err, PD_ERR_INTERNAL, "merge table full");
  return PD_OK;
}

static pd_status pd__merges(pd__eb *b) {
  const json_t *ms = json_object_get(b->model, "merges");
  char *buf = NULL;
  size_t cap = 0;
  pd_status st = PD_OK;
  for (size_t i = 0; !st && i < json_array_size(ms); i++)
    st = pd__merge(b, json_array_get(ms, i), i, &buf, &cap);
  pd__free(b->v->alloc, buf);
  return st;
}

/* Added tokens are split out of the text first; unk_token names the unknown token. */
static pd_status pd__added(pd__eb *b) {
  const json_t *added = json_object_get(b->root, "added_tokens");
  for (size_t i = 0; i < json_array_size(added); i++) {
    const json_t *t = json_array_get(added, i), *c = json_object_get(t, "content");
    if (!json_string_length(c)) continue;
    pd_status st = pd_encoder_add_token(
        b->e, b->v->alloc, (const uint8_t *)json_string_value(c), json_string_length(c),
        (uint32_t)json_integer_value(json_object_get(t, "id")), b->err);
    if (st) return st;
  }
  const json_t *unk = json_object_get(b->model, "unk_token");
  if (json_is_string(unk)) {
    uint32_t id = pd__vocab_id(b, json_string_value(unk), json_string_length(unk));
    if (id == PD_NO_ID && pd_vocab_lookup(b->v, (const uint8_t *)json_string_value(unk),
                                          json_string_length(unk), &id) == false)
      id = PD_NO_ID;
    b->e->unk = id;
  }
  return PD_OK;
}

static size_t pd__count_chars(const json_t *vocab, bool byte_level) {
  size_t n = 0;
  for (void *it = json_object_iter((json_t *)vocab); !byte_level && it;
       it = json_object_iter_next((json_t *)vocab, it)) {
    uint32_t cp;
    size_t len = json_object_iter_key_len(it);
    n += len && pd_utf8_decode((const uint8_t *)json_object_iter_key(it), len, &cp) == len;
  }
  return n;
}

pd_status pd_encoder_parse_hf(const struct json_t *root, pd_vocab *v, bool byte_level,
                              pd_error *err) {
  pd__eb b = {.root = root, .model = json_object_get(root, "model"), .v = v, .err = err};
  b.vocab = json_object_get(b.model, "vocab");
  const json_t *ms = json_object_get(b.model, "merges");
  pd_status st = pd_encoder_new(v->alloc, v->size, json_array_size(ms),
                                pd__count_chars(b.vocab, byte_level), &b.e, err);
  if (st) return st;
  b.e->byte_level = byte_level;
  pd__normalizer(b.e, json_object_get(root, "normalizer"), 0);
  pd__pretokenizer(b.e, json_object_get(root, "pre_tokenizer"));
  pd__model_settings(b.e, b.model);
  if (byte_level && (b.e->sp_replace || b.e->sp_prepend))
    b.e->unsupported = "a byte-level tokenizer with a SentencePiece normalizer";
  st = pd__symbols(&b, byte_level);
  if (!st) st = pd__merges(&b);
  if (!st) st = pd__added(&b);
  if (st) {
    pd_encoder_free(v->alloc, b.e);
    return st;
  }
  v->enc = b.e;
  return PD_OK;
}
