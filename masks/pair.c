/* pair.c - a grammar's caller classes: the context-dependent tokens of a
 * state decided for a chain of callers (classify.h, pd_classifier_pair).
 *
 * A state's cd tokens are those its rule may end inside; the fill used to
 * walk every one of them against the live parser, a push per byte over rows
 * of hundreds of items. Most of them end in the caller's rule (a key's '"'
 * and then ':', a string block and the next block), so one local parse per
 * (state, caller's return state) decides them once for every configuration
 * that has the pair. What outlives the caller's rule too is decided the same
 * way one caller further (a chain of up to PD_PAIR_DEPTH return states),
 * and only what outlives the last is left to the walk.
 *
 * A caller class depends on nothing but the languages of the state and of
 * the return states, so the vocabulary's cache keeps it too, keyed by their
 * places (statekey.h) and their rules' lookahead: another grammar with the
 * same rules (a string value in a member of the same name, the members of
 * any JSON object) takes it without a parse. Over MaskBench a third of the
 * caller classes a grammar needs were made by an earlier schema.
 *
 * The fill reads the table without a lock (many requests fill on a thread
 * pool); a writer fills a slot before publishing its class with a release
 * store, and a table that grows is published whole, the old one kept
 * (retired) until the grammar is freed, as in memo.c. */
#include <string.h>

#include "base/alloc.h"
#include "base/bits.h"
#include "base/sort.h"
#include "masks/classify.h"
#include "masks/follow.h"
#include "masks/masks_internal.h"
#include "masks/statekey.h"
#include "masks/vocab.h"
#include "pda/grammar.h"

#define PD__PAIR_MAX_BYTES ((size_t)32 << 20) /* caller classes kept per grammar */
/* larger cd sets are left whole: near the end of a long string's block a
 * state's cd set is most of the vocabulary, and the other phase's class
 * accepts nearly all of it (repeat.c; fill.c drops those before walking) */
#define PD__PAIR_MAX_CD 4096u

static const pd_pair_class pd__no_pair; /* tried: the fill walks the cd set */

typedef struct pd__pair {
  const pd_pair_class *parent; /* NULL: the first caller of state s */
  uint64_t key;                /* s << 32 | r, or r under a parent */
  const pd_pair_class *cls;    /* NULL: an empty slot */
} pd__pair;

struct pd_pair_table {
  struct pd_pair_table *older;
  size_t n;
  pd__pair slot[];
};

static size_t pd__pair_slot(const struct pd_pair_table *t, const pd_pair_class *parent,
                            uint64_t key) {
  uint64_t h = (key ^ (uint64_t)(uintptr_t)parent * 0xc2b2ae3d27d4eb4fu) * 0x9e3779b97f4a7c15u;
  size_t mask = t->n - 1, i = (size_t)(h >> 32) & mask;
  for (;; i = (i + 1) & mask) {
    const pd_pair_class *c = __atomic_load_n(&t->slot[i].cls, __ATOMIC_ACQUIRE);
    if (!c || (t->slot[i].key == key && t->slot[i].parent == parent)) return i;
  }
}

static const pd_pair_class *pd__pair_find(const pd_masks *mk, const pd_pair_class *parent,
                                          uint64_t key) {
  const struct pd_pair_table *t = __atomic_load_n(&mk->pairs, __ATOMIC_ACQUIRE);
  return t ? __atomic_load_n(&t->slot[pd__pair_slot(t, parent, key)].cls, __ATOMIC_ACQUIRE)
           : NULL;
}

/* Room for one more class (lock held): the table doubles. */
static bool pd__pair_room(pd_masks *mk) {
  struct pd_pair_table *old = mk->pairs;
  if (old && (mk->n_pairs + 1) * 2 <= old->n) return true;
  size_t n = old ? old->n * 2 : 256, cost = sizeof *old + n * sizeof *old->slot;
  if (mk->pair_bytes + cost > PD__PAIR_MAX_BYTES) return false;
  struct pd_pair_table *t = pd__calloc(mk->g->alloc, 1, cost);
  if (!t) return false;
  t->n = n, t->older = old;
  for (size_t i = 0; old && i < old->n; i++)
    if (old->slot[i].cls)
      t->slot[pd__pair_slot(t, old->slot[i].parent, old->slot[i].key)] = old->slot[i];
  __atomic_store_n(&mk->pairs, t, __ATOMIC_RELEASE);
  mk->pair_bytes += cost;
  return true;
}

#define PD__PAIR_KEY 0x50524b31u /* a caller class's key in the cache */
#define PD__PAIR_KEY_WORDS (1 + 10 * (PD_PAIR_DEPTH + 1))

/* The cache key of out's chain (state, then each return state: its place and
 * its rule's lookahead); false where a place is unknown. Lock held. */
static bool pd__pair_key(pd_masks *mk, const pd_pair_class *out, uint32_t *key, size_t *n) {
  const pd_pda_state *states = pd_pda_states(&mk->g->pda);
  if (!mk->sk && pd_statekey_new(&mk->g->pda, mk->follow, mk->cache, mk->g->vocab->alloc,
                                 &mk->sk, NULL) != PD_OK)
    return false;
  key[0] = PD__PAIR_KEY;
  *n = 1;
  for (uint32_t i = 0; i <= out->n_tops; i++) {
    uint32_t s = i ? out->tops[i - 1] : out->state;
    bool found;
    if (pd_statekey_place(mk->sk, s, key + *n, &found, NULL) != PD_OK || !found) return false;
    memcpy(key + *n + 2, mk->follow + 8 * (size_t)states[s].rule, 8 * sizeof *key);
    *n += 10;
  }
  /* a pair parse judges the last caller's rule's end by its lookahead; the
   * two-byte kind (follow.h) is only a call-free rule's, never a caller's,
   * and the key leaves it out: no key where it would count. The state's own
   * block shapes the parse's input (its cd set) but needs no place here: a
   * token one grammar's block drops and another's keeps runs past the rule's
   * end into a pair no call site of this chain can read (every such pair is
   * in every block, follow.c), so the chain rejects it anyway. Keyed with
   * the block, the longer keys filled the cache sooner (28 k fewer hits). */
  uint32_t last = states[out->n_tops ? out->tops[out->n_tops - 1] : out->state].rule;
  return !pd_follow2(mk->follow, mk->g->pda.n_rules, last);
}

/* out's sets from cd (s's, or parent's) one caller further, as out->tops
 * has it: allocated in a. */
static bool pd__pair_parse(pd_masks *mk, pd_pair_class *out, const pd_tokset *cd,
                           const pd_allocator *a) {
  /* accepted ids, cd positions, and the sort's scratch: cd->n words each */
  uint32_t *buf = pd__malloc(a, 3 * (size_t)cd->n * sizeof *buf), n_acc, n_cd;
  bool ok = buf && pd_classifier_pair(mk->k, out->state, out->tops, out->n_tops, cd->data, cd->n,
                                      buf, &n_acc, buf + cd->n, &n_cd, NULL) == PD_OK;
  if (ok) {
    /* walked in trie order; a set keeps ids sorted */
    pd_sort_u32(buf, n_acc, buf + 2 * (size_t)cd->n);
    pd_tokset acc = {PD_TOKSET_IDS, n_acc, n_acc ? buf : NULL};
    pd_tokset rest = {PD_TOKSET_IDS, n_cd, n_cd ? buf + cd->n : NULL};
    ok = pd_tokset_copy(&out->cls.accepted, &acc, a, NULL) == PD_OK &&
         pd_tokset_copy(&out->cls.cd, &rest, a, NULL) == PD_OK;
    if (!ok) pd_mask_class_free(&out->cls, a);
  }
  pd__free(a, buf);
  return ok;
}

/* The class of cd (s's, or parent's) one caller further, returning to r:
 * the cache's, or parsed now and offered to it (the grammar keeps it when
 * the cache does not); &pd__no_pair when it cannot be made. */
static const pd_pair_class *pd__pair_make(pd_masks *mk, uint32_t s, const pd_pair_class *parent,
                                          uint32_t r, const pd_tokset *cd) {
  const pd_allocator *ga = mk->g->alloc, *va = mk->g->vocab->alloc;
  if (cd->kind != PD_TOKSET_IDS || cd->n > PD__PAIR_MAX_CD ||
      mk->pair_bytes > PD__PAIR_MAX_BYTES || pd_masks_classifier(mk, NULL) != PD_OK)
    return &pd__no_pair;
  pd_pair_class *out = pd__calloc(ga, 1, sizeof *out);
  if (!out) return &pd__no_pair;
  out->state = s;
  out->n_tops = parent ? parent->n_tops + 1 : 1;
  if (parent) memcpy(out->tops, parent->tops, parent->n_tops * sizeof *out->tops);
  out->tops[out->n_tops - 1] = r;
  uint32_t key[PD__PAIR_KEY_WORDS];
  size_t n;
  bool keyed = pd__pair_key(mk, out, key, &n), ok = true;
  uint64_t h = keyed ? pd_hash_words(key, n) : 0;
  const pd_mask_class *held = keyed ? pd_mask_cache_find(mk->cache, key, n, h) : NULL;
  if (!held) { /* in the vocabulary's allocator where the cache may take it */
    ok = pd__pair_parse(mk, out, cd, keyed ? va : ga);
    if (ok && keyed) {
      held = pd_mask_cache_put(mk->cache, va, key, n, h, &out->cls);
      pd_mask_class mine = {0}; /* past the cache's bound: the grammar's own copy */
      if (!held)
        ok = pd_tokset_copy(&mine.accepted, &out->cls.accepted, ga, NULL) == PD_OK &&
             pd_tokset_copy(&mine.cd, &out->cls.cd, ga, NULL) == PD_OK;
      pd_mask_class_free(&out->cls, va); /* no-op when the cache took the sets */
      out->cls = mine;
    }
  }
  if (held) {
    out->cls = *held; /* the cache's sets, borrowed for the vocabulary's life */
    out->shared = true;
  }
  if (!ok) {
    pd_mask_class_free(&out->cls, ga);
    pd__free(ga, out);
    return &pd__no_pair;
  }
  mk->pair_bytes += sizeof *out;
  if (!held) mk->pair_bytes += pd_tokset_bytes(&out->cls.accepted) + pd_tokset_bytes(&out->cls.cd);
  return out;
}

const pd_pair_class *pd_masks_pair(pd_masks *mk, uint32_t s, const pd_pair_class *parent,
                                   uint32_t r, const pd_tokset *cd) {
  if (parent && parent->n_tops == PD_PAIR_DEPTH) return NULL;
  uint64_t key = parent ? r : (uint64_t)s << 32 | r;
  const pd_pair_class *c = pd__pair_find(mk, parent, key);
  if (!c) {
    pthread_mutex_lock(&mk->lock);
    if (!(c = pd__pair_find(mk, parent, key)) && pd__pair_room(mk)) {
      c = pd__pair_make(mk, s, parent, r, cd);
      pd__pair *slot = &mk->pairs->slot[pd__pair_slot(mk->pairs, parent, key)];
      slot->parent = parent, slot->key = key;
      __atomic_store_n(&slot->cls, c, __ATOMIC_RELEASE); /* published last */
      mk->n_pairs++;
    }
    pthread_mutex_unlock(&mk->lock);
  }
  return c == &pd__no_pair ? NULL : c;
}

void pd_masks_pairs_free(pd_masks *mk) {
  const pd_allocator *ga = mk->g->alloc;
  struct pd_pair_table *t = mk->pairs;
  for (size_t i = 0; t && i < t->n; i++) {
    pd_pair_class *c = (pd_pair_class *)t->slot[i].cls;
    if (!c || c == &pd__no_pair) continue;
    if (!c->shared) pd_mask_class_free(&c->cls, ga);
    pd__free(ga, c);
  }
  for (struct pd_pair_table *o; t; t = o) o = t->older, pd__free(ga, t);
  mk->pairs = NULL;
}
