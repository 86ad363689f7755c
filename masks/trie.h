/* trie.h - the vocabulary as an implicit trie: the text tokens sorted by bytes.
 *
 * Sorted order puts every token right after its prefixes, so a depth-first walk
 * is a scan of order[]:
 *   lcp[i]  = bytes token order[i] shares with order[i-1] (lcp[0] = 0): the walk
 *             pops back to depth lcp[i] and pushes only the rest;
 *   skip[i] = the first k > i whose token does NOT begin with all of order[i]'s
 *             bytes (a true prefix test, not a substring test): when order[i]
 *             dies, every token in (i, skip[i]) dies with it.
 * A prefix that dies at depth d < len skips to pd_trie_skip_depth(t, i, d).
 * Only normal tokens with at least one byte are in the walk; special, EOS and
 * hole ids and empty tokens are decided apart from it.
 */
#ifndef PD_MASKS_TRIE_H
#define PD_MASKS_TRIE_H
#include <stdint.h>

#include "pushdown.h"

#define PD_TRIE_LONG 3       /* lists of long tokens: over 8, 16 and 32 bytes */
#define PD_TRIE_LONG_MIN 8u

typedef struct pd_trie {
  uint32_t n;        /* tokens in the walk */
  uint32_t max_len;  /* longest token, bytes */
  uint32_t *order;   /* [n] token ids in byte order (ties by id) */
  uint32_t *pos;     /* [vocab size] the position of id in order[]; UINT32_MAX: not in the walk */
  uint32_t *lcp;     /* [n] */
  uint32_t *skip;    /* [n] */
  uint32_t *skip1;   /* [n] pd_trie_skip_depth(t, i, 1): the most common dead prefix */
  uint32_t *skip2;   /* [n] the same at depth 2 (tokens of one byte: unused) */
  uint32_t first[257]; /* the tokens that begin with byte b: positions [first[b], first[b+1]) */
  uint8_t *bytes;    /* the tokens' bytes in walk order: a walk reads them in
                        sequence instead of hopping through the vocabulary */
  uint32_t *at;      /* [n + 1] token order[i] is bytes[at[i] .. at[i + 1]) */
  /* the tokens longer than PD_TRIE_LONG_MIN << j bytes, in walk order: a walk
   * that needs only those (a class copied from a donor for the shorter ones,
   * classify.c) scans long[j] instead of order[]; long_lcp[j][x] is what
   * long[j][x] shares with long[j][x - 1] (the least lcp[] between them).
   * long[PD_TRIE_LONG + j]: those and every token holding a '"' (the states
   * of a string with a length differ where a quote may close it) */
  uint32_t *long_at[2 * PD_TRIE_LONG], *long_lcp[2 * PD_TRIE_LONG], n_long[2 * PD_TRIE_LONG];
  /* The trie's nodes in walk order: token i brings the nodes of its bytes
   * lcp[i] .. len - 1, nodes [node_at[i], node_at[i + 1]). A walk over the
   * nodes takes one step a loop turn where a walk over the tokens took a
   * loop of a varying length a token, whose exit the branch predictor
   * missed about once a token. node_info[j]: its byte | the tokens ending
   * there << 8 | its depth << 16; node_tok[j]: the first token through it
   * (those ending there come first); node_skip[j]: the first node past its
   * subtree. n_nodes = 0 (no arrays) when a token is longer than 65,535
   * bytes or 255 tokens share their bytes. */
  uint32_t n_nodes;
  uint32_t *node_at, *node_info, *node_tok, *node_skip;
} pd_trie;

static inline const uint8_t *pd_trie_bytes(const pd_trie *t, uint32_t i, uint32_t *len) {
  *len = t->at[i + 1] - t->at[i];
  return t->bytes + t->at[i];
}

/* Builds t over v's normal tokens. On failure t is left empty. */
pd_status pd_trie_build(pd_trie *t, const pd_vocab *v, const pd_allocator *a, pd_error *err);
void pd_trie_free(pd_trie *t, const pd_allocator *a);

/* The first k > i whose token does not share its first depth bytes with
 * order[i] (depth <= its length): where the walk resumes when order[i]'s
 * prefix of depth bytes dies. */
uint32_t pd_trie_skip_depth(const pd_trie *t, uint32_t i, uint32_t depth);

#endif
