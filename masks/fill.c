/* fill.c - pd_matcher_fill_bitmask: the exact mask of the matcher's current row.
 *
 * Bit t is set iff pd_matcher_accept_token(t) would succeed (earley.h gives the
 * token semantics). Text tokens: the union of accepted(s) over the states s of
 * the current row's items, plus those of the context-dependent tokens cd(s)
 * that the callers of the item's rule take: a chain of callers' classes
 * decides most of them once per grammar (pair.c), and the rest are the live
 * parser's to take when their bytes are pushed (masks.h). States without tables
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
static pd_status pd__fill_classified(pd_matcher *m, pd_masks *mk, uint32_t *words);

/* Whether state s is of a rule whose language holds a set rule: no class
 * knows the sets of its items (masks_internal.h). */
static inline bool pd__set_in(const pd_matcher *m, const pd_masks *mk, uint32_t s) {
  return mk->set_in && mk->set_in[m->states[s].rule];
}

/* Whether every state of the row has a class (classifying those that no mask
 * needed before), but those pd__set_in leaves to the walk. */
static pd_status pd__row_classified(const pd_matcher *m, pd_masks *mk, bool *all) {
  *all = false;
  if (!mk) return PD_OK;
  size_t n;
  const pd_earley_item *it = pd_earley_current(m, &n);
  for (size_t i = 0; i < n; i++) {
    const pd_mask_class *c;
    if (pd__set_in(m, mk, it[i].state)) continue;
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

/* The least room (units a counted rule may still begin, earley.h) of the
 * current row's items and of the counted rules a token may enter afresh;
 * UINT32_MAX without counted rules. *in_row: some item of the row is counted. */
static uint32_t pd__row_room(const pd_matcher *m, bool *in_row) {
  *in_row = false;
  if (!m->counts || !m->g->masks) return UINT32_MAX;
  uint32_t room = m->g->masks->fresh_room;
  size_t n;
  const pd_earley_item *it = pd_earley_current(m, &n);
  for (size_t i = 0, first = (size_t)(it - m->items.data); i < n; i++) {
    uint32_t r = pd_earley_room(m, first + i);
    if (r != UINT32_MAX) *in_row = true;
    if (r < room) room = r;
  }
  return room;
}

/* Room below which the fill walks (fill.c's count walk, or the parser's) instead
 * of checking the longer tokens one by one: the trie's longest list holds them. */
#define PD__LONG_ROOM 64u
_Static_assert((PD_TRIE_LONG_MIN << (PD_TRIE_LONG - 1)) <= PD__LONG_ROOM, "the long list");

/* Clears the tokens longer than room (>= PD__LONG_ROOM) that the parser
 * refuses: the tables know no counts, so what they accept is exact for the
 * shorter tokens only (a count refuses a token only when it begins more units
 * than room). */
static pd_status pd__recheck_long(pd_matcher *m, const pd_trie *tr, uint32_t room,
                                  uint32_t *words) {
  const int j = PD_TRIE_LONG - 1;
  for (uint32_t x = 0; x < tr->n_long[j]; x++) {
    uint32_t p = tr->long_at[j][x], t = tr->order[p], pushed = 0;
    if (tr->at[p + 1] - tr->at[p] <= room || !pd_bit_get(words, t)) continue;
    pd_status st = pd_earley_push_token(m, t, &pushed);
    if (st == PD_OK) pd_earley_pop(m, pushed);
    else if (st == PD_ERR_REJECTED) pd_bit_clear(words, t);
    else return st;
  }
  return PD_OK;
}

/* The count walk. Near a counted rule's bound (room < PD__LONG_ROOM) most
 * tokens are longer than the room, too many to check one by one, and the walk
 * of every token through the parser took 10 ms inside a string. When the row
 * has a single counted item i, its rule's end is forced (mk->forced) and the
 * row's other items that take bytes are its exits taking none of the bytes
 * item i takes, a token's first byte goes one way only, and a token that
 * enters the rule leaves it exactly where the rule's automaton stops taking
 * it. So the units a token begins there are those of the automaton's run over
 * its bytes, and the tokens beginning more than the room are the refused
 * ones: the tables decide the others. pd__count_item finds i (SIZE_MAX when
 * these do not hold); pd__count_walk runs the automaton over the trie. */
static size_t pd__count_item(const pd_matcher *m, const pd_masks *mk) {
  size_t n, one = SIZE_MAX;
  const pd_earley_item *it = pd_earley_current(m, &n);
  size_t first = (size_t)(it - m->items.data);
  for (size_t i = 0; i < n; i++)
    if (pd_earley_room(m, first + i) != UINT32_MAX) {
      if (one != SIZE_MAX) return SIZE_MAX;
      one = first + i;
    }
  uint32_t r = one == SIZE_MAX ? 0 : m->states[m->items.data[one].state].rule;
  if (one == SIZE_MAX || !mk->forced[r]) return SIZE_MAX;
  uint32_t own[8] = {0}, other[8] = {0};
  pd_pda_state_bytes(m->edges, &m->states[m->items.data[one].state], own);
  for (size_t i = first; i < first + n; i++) {
    const pd_pda_state *st = &m->states[m->items.data[i].state];
    if (i == one || !st->n_byte) continue;
    if (mk->exit_of[m->items.data[i].state] != r + 1) return SIZE_MAX;
    pd_pda_state_bytes(m->edges, st, other);
  }
  for (int w = 0; w < 8; w++)
    if (own[w] & other[w]) return SIZE_MAX;
  return one;
}

/* Clears the tokens that begin more than room units in item i's rule: the
 * trie's tokens longer than room, in walk order (a long list when room
 * allows), the automaton's states and units kept per depth. */
static pd_status pd__count_walk(pd_matcher *m, const pd_trie *t, size_t i, uint32_t room,
                                uint32_t *words) {
  int j = PD_TRIE_LONG - 1;
  while (j >= 0 && (PD_TRIE_LONG_MIN << j) > room) j--;
  uint32_t n = j < 0 ? t->n : t->n_long[j], valid = 0;
  uint32_t *q = pd__malloc(m->alloc, 2 * ((size_t)t->max_len + 1) * sizeof *q);
  if (!q) return PD_ERR_NOMEM;
  uint32_t *u = q + t->max_len + 1;
  q[0] = m->items.data[i].state, u[0] = 0;
  for (uint32_t x = 0; x < n; x++) {
    uint32_t p = j < 0 ? x : t->long_at[j][x], lcp = j < 0 ? t->lcp[x] : t->long_lcp[j][x], len;
    const uint8_t *b = pd_trie_bytes(t, p, &len);
    uint32_t d = lcp < valid ? lcp : valid;
    if (len <= room) { /* begins room units at most; what it shares stays valid */
      valid = d;
      continue;
    }
    bool over = false;
    for (; d < len; d++) {
      uint32_t to = pd_pda_byte_target(m->edges, &m->states[q[d]], b[d]), units = u[d];
      if (to == UINT32_MAX) break; /* leaves the rule (or dies): the tables decide */
      if ((m->states[q[d]].flags & PD_STATE_UNIT_START) && (over = units++ == room)) break;
      q[d + 1] = to, u[d + 1] = units;
    }
    valid = d;
    if (over) pd_bit_clear(words, t->order[p]);
  }
  pd__free(m->alloc, q);
  return PD_OK;
}

/* The mask computed from the tables and the live parser (no memo); room as
 * pd__row_room gives it. */
static pd_status pd__fill_text(pd_matcher *m, uint32_t room, uint32_t *words, size_t n_words,
                               pd_error *err) {
  pd_mask_cache *c = m->g->masks ? m->g->masks->cache : NULL;
  pd_status st = c ? PD_OK : pd_mask_cache_get(m->g->vocab, &c, err);
  if (st != PD_OK) return st;
  pd_masks *mk = m->g->masks;
  bool classified = false, counts = room < c->trie.max_len, walk = false;
  size_t one = SIZE_MAX; /* near a bound: the count walk's item, else the walk */
  if (counts && room < PD__LONG_ROOM) {
    one = mk->fresh_room >= PD__LONG_ROOM ? pd__count_item(m, mk) : SIZE_MAX;
    walk = one == SIZE_MAX;
  }
  if (!walk) st = pd__row_classified(m, mk, &classified);
  if (st == PD_OK && classified) {
    st = pd__fill_classified(m, mk, words);
    /* then the long tokens the other rooms may refuse (one item: afresh only) */
    uint32_t rest = one == SIZE_MAX ? room : mk->fresh_room;
    if (st == PD_OK && one != SIZE_MAX)
      st = pd__count_walk(m, &c->trie, one, pd_earley_room(m, one), words);
    if (st == PD_OK && rest < c->trie.max_len) st = pd__recheck_long(m, &c->trie, rest, words);
  } else if (st == PD_OK) {
    st = pd_masks_fill_walk(m, c, false, words);
  }
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
  bool counted;
  uint32_t room = pd__row_room(m, &counted);
  bool memo =
      !m->terminated && mk && mk->memo_ok && pd_memo_key(m, mk->cache->trie.max_len, key, &n_key);
  const uint32_t *found = NULL;
  if (memo) h = pd_hash_words(key, n_key), found = pd_memo_find(&mk->memo, key, n_key, h);
  if (found) {
    pd__copy_row(&mk->memo, found, words, n_words);
  } else {
    memset(words, 0, n_words * sizeof *words);
    if (m->terminated) return PD_OK;
    pd_status st = pd__fill_text(m, room, words, n_words, err);
    if (st != PD_OK) return st;
    if (memo) found = pd_memo_put(&mk->memo, m->g->alloc, key, n_key, h, words);
  }
  if (entry) *entry = counted ? NULL : found; /* its key does not fix what follows (memo.h) */
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
  for (uint32_t p = pd_next_bit(cand, n_words, 0); p != UINT32_MAX && st == PD_OK;) {
    uint32_t id = t->order[p], len;
    const uint8_t *b = pd_trie_bytes(t, p, &len);
    if (pd_bit_get(words, id)) {
      p = pd_next_bit(cand, n_words, p + 1);
      continue;
    }
    uint32_t keep = depth ? pd__common(on_stack, b, depth < len ? depth : len) : 0;
    if (keep < depth) pd_earley_pop(m, depth - keep);
    depth = keep;
    on_stack = b;
    if (pd__cand_taken(m, &sx, b, len, &depth, &dead, &st)) {
      pd_bit_set(words, id);
      p = pd_next_bit(cand, n_words, p + 1);
    } else {
      p = pd_next_bit(cand, n_words, pd_trie_skip_depth(t, p, dead + 1));
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

/* Whether the cd sets are large enough for their drop to be kept (drop.c):
 * the union and the test of each candidate cost their size. */
#define PD__DROP_KEPT 4096u
static bool pd__cd_large(const pd_tokset *const *cd, size_t n) {
  size_t sum = 0;
  for (size_t i = 0; i < n; i++)
    if (cd[i]->kind != PD_TOKSET_IDS || (sum += cd[i]->n) > PD__DROP_KEPT) return true;
  return false;
}

/* A few ids: the caller classes' accepted sets, which change along a string
 * with the chain of its blocks (repeat.c), so the kept drops leave them out
 * and clear their positions after. */
static bool pd__set_small(const pd_tokset *s) { return s->kind == PD_TOKSET_IDS && s->n <= 256; }

/* Clears the positions of the ids of sets acc[0..n) (all of them IDS) in cand. */
static void pd__clear_ids(uint32_t *cand, const uint32_t *pos, const pd_tokset **acc, size_t n) {
  for (size_t i = 0; i < n; i++)
    for (uint32_t j = 0; j < acc[i]->n; j++) {
      uint32_t p = pos[acc[i]->data[j]];
      if (p != UINT32_MAX) pd_bit_clear(cand, p);
    }
}

/* Whether the accepted sets are lists with fewer ids than the cd sets hold
 * (an upper bound of the candidates): clearing their positions then costs
 * less than testing every candidate against their union (pd__drop_taken). */
static bool pd__fewer_accepted(const pd_mask_cache *c, const pd_tokset **acc, size_t n_acc,
                               const pd_tokset **cd, size_t n_cd) {
  size_t n = 0, m = 0;
  for (size_t i = 0; i < n_acc; i++) {
    if (acc[i]->kind != PD_TOKSET_IDS) return false;
    n += acc[i]->n;
  }
  for (size_t i = 0; i < n_cd && m <= n; i++) m += pd_tokset_count(cd[i], &c->pu);
  return n < m;
}

/* The candidates of a row with large cd sets: the kept drop of its cd sets
 * and large accepted sets (made and kept on a miss), less the small sets. */
static pd_status pd__kept_drop(pd_matcher *m, pd_masks *mk, const pd_tokset **acc, size_t n_acc,
                               const pd_tokset **cd, size_t n_cd, uint32_t *cand) {
  const pd_mask_cache *c = mk->cache;
  size_t n_small = 0;
  for (size_t i = 0; i < n_acc; i++) /* the small ones to the back */
    if (pd__set_small(acc[i])) {
      const pd_tokset *t = acc[i];
      acc[i--] = acc[--n_acc], acc[n_acc] = t, n_small++;
    }
  pd_drop_key key;
  pd_masks_drop_key(&key, acc, n_acc, cd, n_cd);
  if (!pd_masks_drop_find(mk, &key, cand, c->pu.n_words)) {
    if (pd__fewer_accepted(c, acc, n_acc, cd, n_cd)) {
      pd_tokset_union(cd, n_cd, cand, &c->pu);
      pd__clear_ids(cand, c->trie.pos, acc, n_acc);
    } else {
      uint32_t *large = pd__malloc(m->alloc, c->u.n_words * sizeof *large);
      if (!large) return PD_ERR_NOMEM;
      pd_tokset_union(acc, n_acc, large, &c->u);
      pd_tokset_union(cd, n_cd, cand, &c->pu);
      pd__drop_taken(cand, c->pu.n_words, c->trie.order, large);
      pd__free(m->alloc, large);
    }
    pd_masks_drop_put(mk, &key, cand);
  }
  pd__clear_ids(cand, c->trie.pos, acc + n_acc, n_small);
  return PD_OK;
}

/* The union of the cd sets, walked as candidates; with more than one
 * accepted set, words may hold some of them already (from other sets than
 * one class's accepted, which its cd set never meets): those are dropped. */
static pd_status pd__fill_cd(pd_matcher *m, pd_masks *mk, const pd_tokset **acc, size_t n_acc,
                             const pd_tokset **cd, size_t n_cd, uint32_t *words) {
  if (!n_cd) return PD_OK;
  const pd_mask_cache *c = mk->cache;
  uint32_t local[PD__STACK_WORDS], *cand = local;
  size_t n_words = c->pu.n_words;
  if (n_words > PD__STACK_WORDS && !(cand = pd__malloc(m->alloc, n_words * sizeof *cand)))
    return PD_ERR_NOMEM;
  pd_status st = PD_OK;
  if (n_acc > 1 && pd__cd_large(cd, n_cd)) {
    st = pd__kept_drop(m, mk, acc, n_acc, cd, n_cd, cand);
  } else {
    pd_tokset_union(cd, n_cd, cand, &c->pu);
    if (n_acc > 1) pd__drop_taken(cand, n_words, c->trie.order, words);
  }
  if (st == PD_OK) st = pd__walk_candidates(m, &c->trie, cand, n_words, false, words);
  if (cand != local) pd__free(m->alloc, cand);
  return st;
}

static bool pd__set_empty(const pd_tokset *s) { return s->kind == PD_TOKSET_IDS && !s->n; }

static bool pd__class_empty(const pd_mask_class *c) {
  return pd__set_empty(&c->accepted) && pd__set_empty(&c->cd);
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
    if (pd__set_in(m, mk, it[i].state)) continue;
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

/* The sets a row's classes and caller classes give, each once (by pointer). */
#define PD__SETS (2 * PD__MAX_CLASSES)
#define PD__SET_SLOTS (2 * PD__SETS) /* a power of two, at most half full */
typedef struct pd__sets {
  const pd_tokset *acc[PD__MAX_CLASSES + PD__SETS], *cd[PD__SETS];
  size_t n_acc, n_cd, n_seen, n_visits;
  const void *seen[PD__SET_SLOTS];
  struct {
    const void *p;
    uint32_t row;
  } visit[PD__SET_SLOTS]; /* caller classes refined, with the row their rule was called in */
} pd__sets;

/* Whether p is new to x (then it is recorded); false past the bound too. */
static bool pd__first_time(pd__sets *x, const void *p, bool *full) {
  size_t j = (size_t)(((uintptr_t)p >> 4) * 0x9E3779B1u) & (PD__SET_SLOTS - 1);
  while (x->seen[j] && x->seen[j] != p) j = (j + 1) & (PD__SET_SLOTS - 1);
  if (x->seen[j]) return false;
  if (x->n_seen == PD__SETS) return !(*full = true);
  x->n_seen++;
  x->seen[j] = p;
  return true;
}

/* Whether (p, row) is new to x's visits (then it is recorded); false past the bound too. */
static bool pd__first_visit(pd__sets *x, const void *p, uint32_t row, bool *full) {
  size_t j = (size_t)((((uintptr_t)p >> 4) ^ row * 0x85EBCA6Bu) * 0x9E3779B1u) & (PD__SET_SLOTS - 1);
  while (x->visit[j].p && (x->visit[j].p != p || x->visit[j].row != row))
    j = (j + 1) & (PD__SET_SLOTS - 1);
  if (x->visit[j].p) return false;
  if (x->n_visits == PD__SETS) return !(*full = true);
  x->n_visits++;
  x->visit[j].p = p, x->visit[j].row = row;
  return true;
}

#define PD__REFINE_MAX 1024 /* caller classes one fill looks up */

/* Adds cd (of state s's class, or of parent, a chain of callers' class),
 * whose rule was called in row o, decided one caller further where a caller
 * class does it (pair.c; the callers as the memo key lists them): each
 * class's accepted tokens join x->acc, and what outlives that caller's rule
 * too goes one caller further, or at the end of the chain to x->cd, the
 * walk's. A rule with no listed caller (the root's), or a class that cannot
 * be made, leaves cd whole to the walk. */
static void pd__refine(pd_matcher *m, pd_masks *mk, pd__sets *x, uint32_t s,
                       const pd_pair_class *parent, const pd_tokset *cd, uint32_t o,
                       uint32_t rule, uint32_t *budget, bool *full) {
  const uint32_t *callers = NULL;
  uint32_t n = 0;
  bool whole = !pd_memo_callers(m, o, rule, &callers, &n) || !n;
  for (uint32_t j = 0; j < n && !whole && !*full; j++) {
    /* a deeper refine makes lists of its own, which may move this one */
    if (j && !pd_memo_callers(m, o, rule, &callers, &n)) {
      whole = true;
      break;
    }
    uint32_t r = callers[2 * j], o2 = callers[2 * j + 1];
    if ((whole = pd__set_in(m, mk, r))) break;
    const pd_pair_class *p = *budget ? (--*budget, pd_masks_pair(mk, s, parent, r, cd)) : NULL;
    if ((whole = !p)) break;
    if (!pd__set_empty(&p->cls.accepted) && pd__first_time(x, &p->cls.accepted, full))
      x->acc[x->n_acc++] = &p->cls.accepted;
    if (!pd__set_empty(&p->cls.cd) && pd__first_visit(x, p, o2, full))
      pd__refine(m, mk, x, s, p, &p->cls.cd, o2, m->states[r].rule, budget, full);
  }
  if (whole && pd__first_time(x, cd, full)) x->cd[x->n_cd++] = cd;
}

/* The cd tokens of the row's items, each decided through the callers of
 * its rule (pd__refine). False past the bounds. */
static bool pd__row_pairs(pd_matcher *m, pd_masks *mk, pd__sets *x) {
  size_t n;
  bool full = false;
  uint32_t budget = PD__REFINE_MAX;
  const pd_earley_item *it = pd_earley_current(m, &n);
  for (size_t i = 0; i < n && !full; i++) {
    if (pd__set_in(m, mk, it[i].state)) continue;
    const pd_mask_class *c = __atomic_load_n(&mk->cls[it[i].state], __ATOMIC_ACQUIRE);
    if (!pd__set_empty(&c->cd))
      pd__refine(m, mk, x, it[i].state, NULL, &c->cd, it[i].origin, m->states[it[i].state].rule,
                 &budget, &full);
  }
  return !full;
}

/* The tokens whose first byte an item pd__set_in leaves to the walk scans:
 * every path of a token begins with a byte edge of some item of the row, and
 * the classes of the others account for theirs. */
static pd_status pd__fill_set_in(pd_matcher *m, pd_masks *mk, uint32_t *words) {
  uint32_t first[8] = {0}, any = 0;
  size_t n;
  const pd_earley_item *it = pd_earley_current(m, &n);
  for (size_t i = 0; i < n; i++)
    if (pd__set_in(m, mk, it[i].state))
      pd_pda_state_bytes(m->edges, &m->states[it[i].state], first);
  for (int w = 0; w < 8; w++) any |= first[w];
  if (!any) return PD_OK;
  const pd_mask_cache *c = mk->cache;
  const pd_trie *t = &c->trie;
  uint32_t local[PD__STACK_WORDS], *cand = local;
  size_t n_words = c->pu.n_words;
  if (n_words > PD__STACK_WORDS && !(cand = pd__malloc(m->alloc, n_words * sizeof *cand)))
    return PD_ERR_NOMEM;
  memset(cand, 0, n_words * sizeof *cand);
  for (uint32_t b = 0; b < 256; b++) {
    if (!(first[b / 32] >> (b % 32) & 1)) continue;
    for (uint32_t q = t->first[b]; q < t->first[b + 1]; q++) pd_bit_set(cand, q);
  }
  pd_status st = pd__walk_candidates(m, t, cand, n_words, false, words);
  if (cand != local) pd__free(m->alloc, cand);
  return st;
}

static pd_status pd__fill_classified(pd_matcher *m, pd_masks *mk, uint32_t *words) {
  const pd_mask_class *cls[PD__MAX_CLASSES];
  bool too_many = false;
  size_t n = pd__row_classes(m, mk, cls, &too_many);
  if (too_many) return pd_masks_fill_walk(m, mk->cache, false, words);
  pd__sets x;
  x.n_acc = x.n_cd = x.n_seen = x.n_visits = 0;
  memset(x.seen, 0, sizeof x.seen);
  memset(x.visit, 0, sizeof x.visit);
  for (size_t i = 0; i < n; i++) x.acc[x.n_acc++] = &cls[i]->accepted;
  if (!pd__row_pairs(m, mk, &x)) { /* too many sets: each class's cd whole */
    x.n_acc = n, x.n_cd = 0;
    for (size_t i = 0; i < n; i++)
      if (!pd__set_empty(&cls[i]->cd)) x.cd[x.n_cd++] = &cls[i]->cd;
  }
  pd_tokset_union(x.acc, x.n_acc, words, &mk->cache->u);
  pd_status st = pd__fill_cd(m, mk, x.acc, x.n_acc, x.cd, x.n_cd, words);
  return st == PD_OK && mk->set_in ? pd__fill_set_in(m, mk, words) : st;
}
