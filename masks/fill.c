/* fill.c - pd_matcher_fill_bitmask: the exact mask of the matcher's current row.
 *
 * Bit t is set iff pd_matcher_accept_token(t) would succeed (earley.h gives the
 * token semantics). Text tokens: the union of accepted(s) over the states s of
 * the current row's items, plus the context-dependent tokens cd(s) that the live
 * parser takes when their bytes are pushed (masks.h). States without tables
 * fall back to a walk of the vocabulary trie over the live parser, sharing the
 * rows of a common prefix and skipping every token under a dead prefix. Then
 * stop tokens (when the row is accepting), token edges and empty tokens.
 * The walk of context-dependent tokens decides rests shared by different
 * prefixes once (suffix.h). Whole masks are memoized per grammar by parser
 * configuration (memo.h): a configuration seen before costs its key and one
 * row copy, and the speculative fill follows the memo's transitions. */
#include <string.h>

#include "base/alloc.h"
#include "base/bits.h"
#include "base/error.h"
#include "earley/earley.h"
#include "masks/masks_internal.h"
#include "masks/suffix.h"
#include "masks/vocab.h"

/* Sets the ids of one token edge: arg (neg = 0) or every id but arg. */
static void pd__fill_edge(const pd_mask_cache *c, const pd_pda_edge *e, size_t size,
                          uint32_t *words) {
  if (!e->neg) {
    if (e->arg < size && pd_bit_get(c->edge_ok, e->arg)) pd_bit_set(words, e->arg);
    return;
  }
  for (size_t w = 0; w < c->u.n_words; w++) {
    uint32_t keep = w == e->arg / 32 ? ~(1u << (e->arg % 32)) : ~0u;
    words[w] |= c->edge_ok[w] & keep;
  }
}

/* Token edges of the current row's items. */
static void pd__fill_edges(const pd_matcher *m, const pd_mask_cache *c, uint32_t *words) {
  size_t n, size = m->g->vocab->size;
  const pd_earley_item *it = pd_earley_current(m, &n);
  for (size_t i = 0; i < n; i++) {
    const pd_pda_state *s = &m->states[it[i].state];
    const pd_pda_edge *e = m->edges + s->edges + s->n_byte + s->n_call;
    for (uint32_t k = 0; k < s->n_token; k++) pd__fill_edge(c, &e[k], size, words);
  }
}

/* Stop tokens, token edges and empty tokens: the ids outside the trie. */
static void pd__fill_rest(const pd_matcher *m, const pd_mask_cache *c, uint32_t *words) {
  if (pd_earley_accepting(m))
    for (uint32_t i = 0; i < c->n_eos; i++) pd_bit_set(words, c->eos[i]);
  uint32_t live[8];
  bool any_token = false;
  pd_earley_live(m, live, &any_token);
  if (any_token) pd__fill_edges(m, c, words);
  for (uint32_t i = 0; i < c->n_empty; i++) pd_bit_set(words, c->empty[i]);
}

/* Accepted sets of the row's distinct states, then the cd stragglers. */
static pd_status pd__fill_classified(pd_matcher *m, const pd_masks *mk, uint32_t *words);

/* Whether every state of the row has a class (classifying those that no mask
 * needed before). */
static pd_status pd__row_classified(const pd_matcher *m, pd_masks *mk, bool *all) {
  *all = false;
  if (!mk) return PD_OK;
  size_t n;
  const pd_earley_item *it = pd_earley_current(m, &n);
  for (size_t i = 0; i < n; i++) {
    const pd_mask_class *c;
    pd_status st = pd_masks_class(mk, it[i].state, &c, NULL);
    if (st != PD_OK || !c) return st;
  }
  *all = true;
  return PD_OK;
}

static bool pd__all_allowed(const uint32_t *words, size_t width) {
  for (size_t w = 0; w < width / 32; w++)
    if (words[w] != ~0u) return false;
  return width % 32 == 0 || words[width / 32] == (1u << (width % 32)) - 1;
}

/* The mask computed from the tables and the live parser (no memo). */
static pd_status pd__fill_text(pd_matcher *m, uint32_t *words, size_t n_words, pd_error *err) {
  pd_mask_cache *c = m->g->masks ? m->g->masks->cache : NULL;
  pd_status st = c ? PD_OK : pd_mask_cache_get(m->g->vocab, &c, err);
  if (st != PD_OK) return st;
  bool classified = false;
  st = pd__row_classified(m, m->g->masks, &classified);
  if (st == PD_OK && classified)
    st = pd__fill_classified(m, m->g->masks, words);
  else if (st == PD_OK)
    st = pd_masks_fill_walk(m, c, false, words);
  if (st != PD_OK) {
    memset(words, 0, n_words * sizeof *words);
    return st == PD_ERR_NOMEM ? pd__nomem(err) : pd__fail(err, st, "fill_bitmask failed");
  }
  pd__fill_rest(m, c, words);
  return PD_OK;
}

/* A memoized row into the caller's: one pass over it, the copy and then the
 * words past the vocabulary's (a row is 16 KB at 128k tokens, and writing it
 * twice showed in the batch step, which is bound by the memory's bandwidth). */
static void pd__copy_row(const pd_memo *mo, const uint32_t *row, uint32_t *words, size_t n_words) {
  memcpy(words, row, mo->n_words * sizeof *words);
  memset(words + mo->n_words, 0, (n_words - mo->n_words) * sizeof *words);
}

/* The fill; *entry (when asked) gets the memo's mask of the configuration,
 * or NULL when it is not memoized. */
static pd_status pd__fill(pd_matcher *m, uint32_t *words, size_t n_words, bool *all_allowed,
                          const uint32_t **entry, pd_error *err) {
  if (all_allowed) *all_allowed = false;
  if (entry) *entry = NULL;
  if (!m || !words) return pd__fail(err, PD_ERR_ARG, "fill_bitmask: NULL argument");
  const pd_vocab *v = m->g->vocab;
  if (!v) return pd__fail(err, PD_ERR_STATE, "fill_bitmask: the grammar has no vocabulary");
  if (n_words < (v->width + 31) / 32)
    return pd__fail(err, PD_ERR_ARG, "fill_bitmask: %zu words cannot hold %zu ids", n_words,
                    v->width);
  pd_masks *mk = m->g->masks;
  uint32_t key[PD_MEMO_KEY_MAX];
  size_t n_key = 0;
  uint64_t h = 0;
  bool memo = !m->terminated && mk && mk->memo_ok && pd_memo_key(m, &m->key_scratch, key, &n_key);
  const uint32_t *found = NULL;
  if (memo) h = pd_hash_words(key, n_key), found = pd_memo_find(&mk->memo, key, n_key, h);
  if (found) {
    pd__copy_row(&mk->memo, found, words, n_words);
  } else {
    memset(words, 0, n_words * sizeof *words);
    if (m->terminated) return PD_OK;
    pd_status st = pd__fill_text(m, words, n_words, err);
    if (st != PD_OK) return st;
    if (memo) found = pd_memo_put(&mk->memo, m->g->alloc, key, n_key, h, words);
  }
  if (entry) *entry = found;
  if (all_allowed) *all_allowed = pd__all_allowed(words, v->width);
  return PD_OK;
}

pd_status pd_matcher_fill_bitmask(pd_matcher *m, uint32_t *words, size_t n_words,
                                  bool *all_allowed, pd_error *err) {
  return pd__fill(m, words, n_words, all_allowed, NULL, err);
}

pd_status pd_masks_fill_entry(pd_matcher *m, uint32_t *words, size_t n_words,
                              const uint32_t **entry, pd_error *err) {
  return pd__fill(m, words, n_words, NULL, entry, err);
}

const uint32_t *pd_masks_next(pd_matcher *m, const uint32_t *from, uint32_t token,
                              uint32_t *words, size_t n_words) {
  pd_masks *mk = m->g->masks;
  const uint32_t *to = pd_memo_next(&mk->memo, from, token);
  if (to) pd__copy_row(&mk->memo, to, words, n_words);
  return to;
}

void pd_masks_link(pd_matcher *m, const uint32_t *from, uint32_t token, const uint32_t *to) {
  pd_memo_link_put(&m->g->masks->memo, m->g->alloc, from, token, to);
}

#define PD__MAX_CLASSES 256 /* distinct classes per row handled without the walk */

/* The first set bit at or after q, or UINT32_MAX. */
static uint32_t pd__next_bit(const uint32_t *bits, size_t n_words, uint32_t q) {
  size_t w = q / 32;
  if (w >= n_words) return UINT32_MAX;
  uint32_t x = bits[w] & (~0u << (q % 32));
  while (!x) {
    if (++w >= n_words) return UINT32_MAX;
    x = bits[w];
  }
  return (uint32_t)(w * 32) + (uint32_t)__builtin_ctz(x);
}

static uint32_t pd__common(const uint8_t *a, const uint8_t *b, uint32_t n) {
  uint32_t k = 0;
  while (k < n && a[k] == b[k]) k++;
  return k;
}

/* Whether candidate b[0..len) is taken: its bytes from *depth on are pushed
 * but the last, which is only tested (pd_earley_scans). A rest of at least two
 * bytes from a keyable row is looked up in the suffix memo first, and the
 * deepest one looked up is recorded. When the token is not taken, *dead gets
 * its bytes alive (the rows on the stack may be fewer: *depth stays the number
 * pushed). Errors but rejection go to *st. */
static bool pd__cand_taken(pd_matcher *m, pd_suffix_memo *sx, const uint8_t *b, uint32_t len,
                           uint32_t *depth, uint32_t *dead, pd_status *st) {
  uint32_t keyed = 0; /* depth of the last row looked up; 0 = none */
  bool taken = false, on = pd_suffix_on(sx);
  for (;;) {
    if (on && *depth && *depth + 2 <= len && pd_suffix_keyable(sx, m, sx->base + *depth)) {
      uint32_t alive;
      if (pd_suffix_find(sx, m, sx->base + *depth, b + *depth, len - *depth, &taken, &alive)) {
        *dead = *depth + alive;
        return taken;
      }
      keyed = *depth;
    }
    if (*depth + 1 >= len) break;
    pd_status s = pd_earley_push_byte(m, b[*depth]);
    if (s == PD_ERR_NOMEM) *st = s;
    if (s != PD_OK) break;
    ++*depth;
    size_t n_items;
    pd_earley_current(m, &n_items);
    sx->pushes++, sx->items += n_items;
  }
  taken = *depth >= len || (*depth + 1 == len && pd_earley_scans(m, b[*depth]));
  *dead = *depth;
  if (keyed && *st == PD_OK)
    pd_suffix_put(sx, m, sx->base + keyed, b + keyed, len - keyed, taken, *depth - keyed);
  return taken;
}

/* Checks the candidate trie positions cand (not yet in words) against the live
 * parser in trie order: a prefix shared with the previous candidate is pushed
 * once, a dead prefix skips every candidate under it, and rests shared by
 * different prefixes are decided once (suffix.h). */
static pd_status pd__walk_candidates(pd_matcher *m, const pd_trie *t, const uint32_t *cand,
                                     size_t n_words, bool memo_always, uint32_t *words) {
  const uint8_t *on_stack = NULL; /* bytes of the token whose prefix the rows hold */
  uint32_t depth = 0, dead;
  pd_status st = PD_OK;
  pd_suffix_memo sx;
  pd_suffix_init(&sx, m, memo_always);
  for (uint32_t p = pd__next_bit(cand, n_words, 0); p != UINT32_MAX && st == PD_OK;) {
    uint32_t id = t->order[p], len;
    const uint8_t *b = pd_trie_bytes(t, p, &len);
    if (pd_bit_get(words, id)) {
      p = pd__next_bit(cand, n_words, p + 1);
      continue;
    }
    uint32_t keep = depth ? pd__common(on_stack, b, depth < len ? depth : len) : 0;
    if (keep < depth) pd_earley_pop(m, depth - keep);
    depth = keep;
    on_stack = b;
    if (pd__cand_taken(m, &sx, b, len, &depth, &dead, &st)) {
      pd_bit_set(words, id);
      p = pd__next_bit(cand, n_words, p + 1);
    } else {
      p = pd__next_bit(cand, n_words, pd_trie_skip_depth(t, p, dead + 1));
    }
  }
  if (depth) pd_earley_pop(m, depth);
  pd_suffix_free(&sx);
  return st;
}

#define PD__STACK_WORDS 8192 /* candidate bitsets up to 262,144 positions live on the stack */

pd_status pd_masks_fill_walk(pd_matcher *m, const pd_mask_cache *c, bool memo_always,
                             uint32_t *words) {
  const pd_trie *t = &c->trie;
  uint32_t local[PD__STACK_WORDS], *cand = local;
  size_t n_words = ((size_t)t->n + 31) / 32;
  if (n_words > PD__STACK_WORDS && !(cand = pd__malloc(m->alloc, n_words * sizeof *cand)))
    return PD_ERR_NOMEM;
  memset(cand, 0xff, n_words * sizeof *cand);
  if (t->n % 32) cand[n_words - 1] = (1u << (t->n % 32)) - 1;
  pd_status st = pd__walk_candidates(m, t, cand, n_words, memo_always, words);
  if (cand != local) pd__free(m->alloc, cand);
  return st;
}

/* Clears the candidates another state's class accepted already: near the
 * end of a long string's block, one item's cd set is most of the vocabulary
 * and the other phase accepts nearly all of it (repeat.c); this tight pass
 * costs a few cycles a candidate, the walk's skip several times that. */
static void pd__drop_taken(uint32_t *cand, size_t n_words, const uint32_t *order,
                           const uint32_t *words) {
  for (size_t w = 0; w < n_words; w++) {
    uint32_t x = cand[w], keep = x;
    while (x) {
      uint32_t b = (uint32_t)__builtin_ctz(x);
      x &= x - 1;
      if (pd_bit_get(words, order[w * 32 + b])) keep &= ~(1u << b);
    }
    cand[w] = keep;
  }
}

/* The union of the classes' cd sets, walked as candidates. */
static pd_status pd__fill_cd(pd_matcher *m, const pd_mask_cache *c, const pd_mask_class **cls,
                             size_t n, uint32_t *words) {
  const pd_tokset *cd[PD__MAX_CLASSES];
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (cls[i]->cd.n || cls[i]->cd.kind != PD_TOKSET_IDS) cd[k++] = &cls[i]->cd;
  if (!k) return PD_OK;
  uint32_t local[PD__STACK_WORDS], *cand = local;
  size_t n_words = c->pu.n_words;
  if (n_words > PD__STACK_WORDS && !(cand = pd__malloc(m->alloc, n_words * sizeof *cand)))
    return PD_ERR_NOMEM;
  pd_tokset_union(cd, k, cand, &c->pu);
  if (n > 1) /* one class: its accepted and cd sets are disjoint */
    pd__drop_taken(cand, n_words, c->trie.order, words);
  pd_status st = pd__walk_candidates(m, &c->trie, cand, n_words, false, words);
  if (cand != local) pd__free(m->alloc, cand);
  return st;
}

static bool pd__class_empty(const pd_mask_class *c) {
  return c->accepted.kind == PD_TOKSET_IDS && !c->accepted.n && c->cd.kind == PD_TOKSET_IDS &&
         !c->cd.n;
}

/* The distinct non-empty classes of the current row's states (by pointer,
 * found again through a small table: a row inside a wide object has hundreds
 * of items, and a linear search made the dedup cost more than the union);
 * *too_many when there are more than PD__MAX_CLASSES. */
#define PD__CLASS_SLOTS (2 * PD__MAX_CLASSES) /* a power of two, at most half full */
static size_t pd__row_classes(const pd_matcher *m, const pd_masks *mk,
                              const pd_mask_class **out, bool *too_many) {
  size_t n, k = 0;
  const pd_earley_item *it = pd_earley_current(m, &n);
  const pd_mask_class *seen[PD__CLASS_SLOTS] = {0};
  for (size_t i = 0; i < n; i++) {
    const pd_mask_class *c = __atomic_load_n(&mk->cls[it[i].state], __ATOMIC_ACQUIRE);
    if (pd__class_empty(c)) continue; /* rejects every text token */
    size_t j = (size_t)(((uintptr_t)c >> 4) * 0x9E3779B1u) & (PD__CLASS_SLOTS - 1);
    while (seen[j] && seen[j] != c) j = (j + 1) & (PD__CLASS_SLOTS - 1);
    if (seen[j]) continue;
    if (k == PD__MAX_CLASSES) {
      *too_many = true;
      return 0;
    }
    seen[j] = c;
    out[k++] = c;
  }
  return k;
}

static pd_status pd__fill_classified(pd_matcher *m, const pd_masks *mk, uint32_t *words) {
  const pd_mask_class *cls[PD__MAX_CLASSES];
  const pd_tokset *acc[PD__MAX_CLASSES] = {0};
  bool too_many = false;
  size_t n = pd__row_classes(m, mk, cls, &too_many);
  if (too_many) return pd_masks_fill_walk(m, mk->cache, false, words);
  for (size_t i = 0; i < n; i++) acc[i] = &cls[i]->accepted;
  pd_tokset_union(acc, n, words, &mk->cache->u);
  return pd__fill_cd(m, mk->cache, cls, n, words);
}
