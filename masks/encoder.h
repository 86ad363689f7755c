/* encoder.h - the canonical encoder of a tokenizer.json vocabulary (internal).
 *
 * Encoding a text, as Hugging Face tokenizers does it:
 *   1. added tokens are split out first (leftmost-longest match over their text);
 *   2. each remaining segment is normalized (NFC; or SentencePiece's ' ' -> U+2581,
 *      with an optional U+2581 prepended);
 *   3. the pre-tokenizer cuts it into words (pretok.h);
 *   4. each word becomes initial symbols (byte-level: one per byte; SentencePiece:
 *      one per character, or its <0xNN> bytes when the character is not a token)
 *      and the adjacent pair of lowest merge rank is merged until none is left.
 *
 * Merge table: open addressing over merge_mask + 1 slots; key = left << 32 | right
 * (token ids), empty slots have rank UINT32_MAX. Character table (SentencePiece):
 * same scheme, key = code point, value = the id of the one-character token.
 * Added-token trie: node 0 is the root; a node's children are a sibling list
 * (child = first, next = sibling), root children are also indexed by byte in root[]. */
#ifndef PD_MASKS_ENCODER_H
#define PD_MASKS_ENCODER_H
#include <stdbool.h>

#include "pretok.h"
#include "pushdown.h"

#define PD_NO_ID UINT32_MAX

typedef struct pd_merge {
  uint64_t key;
  uint32_t rank; /* UINT32_MAX = empty slot */
  uint32_t id;   /* the merged token */
} pd_merge;

typedef struct pd_char_id {
  uint32_t cp; /* UINT32_MAX = empty slot */
  uint32_t id;
} pd_char_id;

typedef struct pd_added_node {
  uint32_t child, next; /* 0 = none */
  uint32_t id;          /* added token ending here, or PD_NO_ID */
  uint8_t byte;
} pd_added_node;

typedef struct pd_encoder {
  const char *unsupported; /* why encode cannot work for this tokenizer; NULL = it can */
  bool byte_level;         /* GPT-2 byte symbols; else SentencePiece characters */
  bool byte_fallback;      /* SentencePiece: unknown characters become <0xNN> tokens */
  bool ignore_merges;      /* a word that is itself a token is not merged */
  bool nfc;                /* normalizer: NFC */
  bool sp_replace;         /* normalizer: ' ' -> U+2581 */
  bool sp_prepend;         /* normalizer: U+2581 before each non-empty segment */
  pd_pretok pretok;
  uint32_t unk;            /* unknown-character token, or PD_NO_ID */
  uint32_t byte_ids[256];  /* byte-level: token of each byte; SentencePiece: <0xNN>; or PD_NO_ID */
  pd_merge *merges;
  size_t merge_mask, n_merges;
  pd_char_id *chars;
  size_t char_mask, n_chars;
  uint32_t *in_model;      /* bitset over ids: the id is a model token (not only added) */
  pd_added_node *nodes;
  size_t n_nodes, cap_nodes;
  uint32_t root[256];
} pd_encoder;

pd_status pd_encoder_new(const pd_allocator *a, size_t n_ids, size_t n_merges, size_t n_chars,
                         pd_encoder **out, pd_error *err);
void pd_encoder_free(const pd_allocator *a, pd_encoder *e);
/* Table building; the tables were sized by pd_encoder_new, so these cannot fail
 * except for a repeated key (false). */
/* Room for n merges; only while the table is empty (formats that rank merges
 * themselves, e.g. GGUF scores, add them after the vocabulary is built). */
pd_status pd_encoder_reserve_merges(pd_encoder *e, const pd_allocator *a, size_t n,
                                    pd_error *err);
bool pd_encoder_add_merge(pd_encoder *e, uint32_t left, uint32_t right, uint32_t rank,
                          uint32_t id);
bool pd_encoder_add_char(pd_encoder *e, uint32_t cp, uint32_t id);
/* Adds an added token to the split trie (bytes non-empty). */
pd_status pd_encoder_add_token(pd_encoder *e, const pd_allocator *a, const uint8_t *bytes,
                               size_t len, uint32_t id, pd_error *err);

struct json_t;
/* Builds v->enc from a parsed tokenizer.json (encoder_hf.c); byte_level tells how
 * the vocabulary's strings were decoded. */
pd_status pd_encoder_parse_hf(const struct json_t *root, pd_vocab *v, bool byte_level,
                              pd_error *err);

/* "<0xHH>" (SentencePiece's byte-fallback token for byte 0xHH) -> HH, else -1. */
int pd_encoder_byte_piece(const char *s, size_t n);

/* Lookups used while encoding. */
const pd_merge *pd_encoder_merge(const pd_encoder *e, uint32_t left, uint32_t right);
uint32_t pd_encoder_char(const pd_encoder *e, uint32_t cp);

#endif
