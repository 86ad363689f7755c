/* masks.c - a grammar's token tables: one classification per automaton state,
 * looked up in (or added to) the vocabulary's cache.
 *
 * States are classified when a mask first needs them (or all at compile with
 * the eager_masks option): a schema's grammar has hundreds of states that
 * mention its own property names, so their classes are new to the cache, and
 * a given output visits few of them. Compile time is then the automata plus
 * the lookahead sets, and the cost of a class is paid once, by the first mask
 * whose row holds the state. Classes are published per state with a release
 * store under the grammar's lock, so matchers on other threads read them
 * without locking. */
#include "masks.h"

#include <string.h>

#include "base/alloc.h"
#include "base/bits.h"
#include "base/error.h"
#include "masks/classify.h"
#include "masks/follow.h"
#include "masks/masks_internal.h"
#include "masks/statekey.h"
#include "masks/vocab.h"
#include "pda/grammar.h"

static const pd_mask_class pd__empty_class; /* states without byte edges */
static const pd_mask_class pd__walk_class;  /* local parse overflowed: the fill walks */

#define PD__HEIR_DEPTH 3 /* heirs classified first, one for another, at most */

pd_status pd_masks_classifier(pd_masks *mk, pd_error *err) {
  if (mk->k) return PD_OK;
  return pd_classifier_new(&mk->g->pda, mk->follow, mk->g->vocab, mk->cache, mk->g->vocab->alloc,
                           &mk->k, err);
}

/* Classifies state s into mk->cls[s] (lock held): from the cache when its
 * local language is there, else classified now and offered to the cache (kept
 * by the grammar past the cache's bound). A new class starts from a donor when
 * one saves work (classify.h): s's heir, classified first, or one of the
 * states of its rule classified last. */
static pd_status pd__class_of(pd_masks *mk, uint32_t s, int depth, pd_error *err) {
  const pd_allocator *va = mk->g->vocab->alloc, *ga = mk->g->alloc;
  const pd_mask_class *out = NULL;
  const uint32_t *key;
  size_t n;
  uint64_t h;
  pd_status st = PD_OK;
  st = pd_masks_classifier(mk, err);
  if (st == PD_OK && !mk->sk)
    st = pd_statekey_new(&mk->g->pda, mk->follow, mk->cache, va, &mk->sk, err);
  if (st == PD_OK) st = pd_statekey_get(mk->sk, s, &key, &n, &h, err);
  if (st != PD_OK) return st;
  uint32_t rule = pd_pda_states(&mk->g->pda)[s].rule;
  uint32_t *recent = mk->donors + PD_MASKS_DONORS * rule;
  if (!(out = n ? pd_mask_cache_find(mk->cache, key, n, h) : NULL)) { /* n = 0: no key */
    pd_mask_class cls;
    uint32_t donors[PD_MASKS_DONORS + 1];
    const pd_mask_class *dcls[PD_MASKS_DONORS + 1];
    size_t n_donors = 0;
    uint32_t y = depth < PD__HEIR_DEPTH ? pd_classifier_heir(mk->k, s) : UINT32_MAX;
    /* s's key, copied while the heir's classification takes the key's
     * buffer: writing it out again after that (as when the copy cannot be
     * had) made a large rule's state pay for its key twice */
    uint32_t *mine = NULL;
    if (y != UINT32_MAX && !mk->cls[y]) { /* the heir first */
      if (n && (mine = pd__malloc(va, n * sizeof *mine))) memcpy(mine, key, n * sizeof *mine);
      st = pd__class_of(mk, y, depth + 1, err);
      if (st == PD_OK && mk->cls[s]) { /* s was an heir in that chain: classified there */
        pd__free(va, mine);
        return PD_OK;
      }
      if (st == PD_OK && mine) key = mine;
      else if (st == PD_OK && n) st = pd_statekey_get(mk->sk, s, &key, &n, &h, err);
      if (st != PD_OK) {
        pd__free(va, mine);
        return st;
      }
    }
    if (y != UINT32_MAX && mk->cls[y] != &pd__walk_class)
      donors[n_donors] = y, dcls[n_donors++] = mk->cls[y];
    for (int i = 0; i < PD_MASKS_DONORS && recent[i] != UINT32_MAX; i++)
      if (recent[i] != y) donors[n_donors] = recent[i], dcls[n_donors++] = mk->cls[recent[i]];
    int same;
    st = pd_classifier_run(mk->k, s, donors, dcls, n_donors, &cls, &same, err);
    if (st == PD_ERR_LIMIT) {
      out = &pd__walk_class;
      st = PD_OK;
    } else if (st == PD_OK && same >= 0) {
      out = dcls[same]; /* the cache's or the grammar's, kept as long as this grammar */
    } else if (st == PD_OK &&
               !(out = n ? pd_mask_cache_put(mk->cache, va, key, n, h, &cls) : NULL)) {
      /* the grammar keeps it, in its own allocator */
      st = pd_tokset_copy(&mk->owned[s].accepted, &cls.accepted, ga, err);
      if (st == PD_OK) st = pd_tokset_copy(&mk->owned[s].cd, &cls.cd, ga, err);
      if (st == PD_OK) {
        out = &mk->owned[s];
        mk->bytes += pd_tokset_bytes(&out->accepted) + pd_tokset_bytes(&out->cd);
      }
    }
    pd_mask_class_free(&cls, va); /* no-op when the cache took it */
    pd__free(va, mine);
  }
  if (st == PD_OK && out != &pd__walk_class) { /* the newest donor first */
    memmove(recent + 1, recent, (PD_MASKS_DONORS - 1) * sizeof *recent);
    recent[0] = s;
  }
  if (st == PD_OK) __atomic_store_n(&mk->cls[s], out, __ATOMIC_RELEASE);
  return st;
}

pd_status pd_masks_class(pd_masks *mk, uint32_t s, const pd_mask_class **cls, pd_error *err) {
  const pd_mask_class *c = __atomic_load_n(&mk->cls[s], __ATOMIC_ACQUIRE);
  pd_status st = PD_OK;
  if (!c) {
    pthread_mutex_lock(&mk->lock);
    if (!mk->cls[s]) st = pd__class_of(mk, s, 0, err);
    c = mk->cls[s];
    pthread_mutex_unlock(&mk->lock);
  }
  *cls = c == &pd__walk_class ? NULL : c;
  return st;
}

#define PD__SNAPSHOT_MAX_WORDS ((size_t)1 << 22) /* larger grammars take no snapshot */

/* The grammar's automata and lookahead sets, word by word: the key of its
 * snapshot in the cache (equal keys, equal classes state by state). */
static void pd__grammar_key(pd_masks *mk) {
  const pd_pda *p = &mk->g->pda;
  size_t n = 4 + 12 * (size_t)p->n_rules + 6 * (size_t)p->n_states + 3 * (size_t)p->n_edges;
  for (uint32_t x = 0; x < p->n_rules; x++)
    n += pd_follow2_words(pd_follow2(mk->follow, p->n_rules, x));
  /* the vocabulary's allocator: a snapshot is an optional saving, so its
   * memory is the cache's, and a failure just goes without it */
  const pd_allocator *va = mk->g->vocab->alloc;
  uint32_t *k = n <= PD__SNAPSHOT_MAX_WORDS ? pd__malloc(va, n * sizeof *k) : NULL;
  if (!k) return; /* no snapshot: every state keys itself */
  const pd_pda_rule *r = pd_pda_rules(p);
  const pd_pda_state *st = pd_pda_states(p);
  const pd_pda_edge *e = pd_pda_edges(p);
  size_t i = 0;
  k[i++] = p->n_rules, k[i++] = p->n_states, k[i++] = p->n_edges, k[i++] = p->root;
  for (uint32_t x = 0; x < p->n_rules; x++) {
    k[i++] = r[x].start, k[i++] = r[x].n_states, k[i++] = r[x].flags;
    memcpy(k + i, mk->follow + 8 * (size_t)x, 8 * sizeof *k);
    i += 8;
    const uint32_t *two = pd_follow2(mk->follow, p->n_rules, x); /* with its length */
    k[i++] = (uint32_t)pd_follow2_words(two);
    if (two) memcpy(k + i, two, pd_follow2_words(two) * sizeof *k);
    i += pd_follow2_words(two);
  }
  for (uint32_t x = 0; x < p->n_states; x++) {
    uint32_t w[6] = {st[x].rule,   st[x].edges,   st[x].n_byte,
                     st[x].n_call, st[x].n_token, st[x].flags};
    memcpy(k + i, w, sizeof w);
    i += 6;
  }
  for (uint32_t x = 0; x < p->n_edges; x++) {
    k[i++] = (uint32_t)e[x].kind | (uint32_t)e[x].neg << 8 | (uint32_t)e[x].lo << 16 |
             (uint32_t)e[x].hi << 24;
    k[i++] = e[x].arg, k[i++] = e[x].to;
  }
  mk->gkey = k, mk->gkey_len = n, mk->ghash = pd_hash_words(k, n);
  mk->bytes += n * sizeof *k;
}

/* mk->exit_of and mk->forced (masks_internal.h) of a grammar with counted rules. */
static pd_status pd__counted_exits(pd_masks *mk, const pd_allocator *a) {
  const pd_pda *p = &mk->g->pda;
  const pd_pda_state *st = pd_pda_states(p);
  const pd_pda_rule *rules = pd_pda_rules(p);
  const pd_pda_edge *edges = pd_pda_edges(p);
  mk->exit_of = pd__calloc(a, mk->n_states ? mk->n_states : 1, sizeof *mk->exit_of);
  mk->forced = pd__calloc(a, p->n_rules ? p->n_rules : 1, 1);
  uint32_t (*exits)[8] = pd__calloc(a, p->n_rules ? p->n_rules : 1, sizeof *exits);
  if (!mk->exit_of || !mk->forced || !exits) {
    pd__free(a, exits);
    return PD_ERR_NOMEM;
  }
  for (uint32_t r = 0; r < p->n_rules; r++) mk->forced[r] = rules[r].count != 0;
  for (uint32_t s = 0; s < mk->n_states; s++)
    for (uint32_t k = 0; k < st[s].n_call; k++) {
      const pd_pda_edge *e = &edges[st[s].edges + st[s].n_byte + k];
      uint32_t r = e->arg, to = e->to;
      if (!rules[r].count) { /* a state some other call returns to too is no exit */
        mk->exit_of[to] = UINT32_MAX;
        continue;
      }
      if (st[to].n_call || st[to].n_token || (st[to].flags & PD_STATE_FINAL)) mk->forced[r] = 0;
      pd_pda_state_bytes(edges, &st[to], exits[r]);
      mk->exit_of[to] = !mk->exit_of[to] || mk->exit_of[to] == r + 1 ? r + 1 : UINT32_MAX;
    }
  for (uint32_t r = 0; r < p->n_rules; r++) { /* it may end at a final state only */
    uint32_t b[8] = {0};
    for (uint32_t s = rules[r].start; mk->forced[r] && s < rules[r].start + rules[r].n_states; s++)
      if (st[s].flags & PD_STATE_FINAL) pd_pda_state_bytes(edges, &st[s], b);
    for (int w = 0; w < 8; w++)
      if (b[w] & exits[r][w]) mk->forced[r] = 0;
  }
  pd__free(a, exits);
  mk->bytes += mk->n_states * sizeof *mk->exit_of + p->n_rules;
  return PD_OK;
}

/* set_in (masks_internal.h): the set rules, then every rule that calls a
 * rule marked, until none is added. */
static uint8_t *pd__set_in_make(const pd_pda *p, const pd_allocator *a) {
  const pd_pda_rule *rules = pd_pda_rules(p);
  const pd_pda_state *states = pd_pda_states(p);
  const pd_pda_edge *edges = pd_pda_edges(p);
  uint8_t *in = pd__calloc(a, p->n_rules ? p->n_rules : 1, 1);
  if (!in) return NULL;
  for (uint32_t r = 0; r < p->n_rules; r++) in[r] = rules[r].set_need != 0;
  for (bool more = true; more;) {
    more = false;
    for (uint32_t s = 0; s < p->n_states; s++) {
      const pd_pda_edge *e = edges + states[s].edges + states[s].n_byte;
      for (uint32_t k = 0; k < states[s].n_call && !in[states[s].rule]; k++)
        if (in[e[k].arg]) in[states[s].rule] = 1, more = true;
    }
  }
  return in;
}

pd_status pd_masks_build(const struct pd_grammar *g, pd_masks **out, pd_error *err) {
  *out = NULL;
  pd_mask_cache *c;
  pd_status st = pd_mask_cache_get(g->vocab, &c, err);
  if (st != PD_OK) return st;
  const pd_allocator *a = g->alloc;
  pd_masks *mk = pd__calloc(a, 1, sizeof *mk);
  if (!mk) return pd__nomem(err);
  if (pthread_mutex_init(&mk->lock, NULL) != 0) {
    pd__free(a, mk);
    return pd__fail(err, PD_ERR_INTERNAL, "cannot create the token table lock");
  }
  mk->g = g;
  mk->cache = c;
  mk->fresh_room = UINT32_MAX;
  mk->n_states = g->pda.n_states;
  size_t n = mk->n_states ? mk->n_states : 1;
  mk->cls = pd__calloc(a, n, sizeof *mk->cls);
  mk->owned = pd__calloc(a, n, sizeof *mk->owned);
  size_t n_donors = PD_MASKS_DONORS * (size_t)(g->pda.n_rules ? g->pda.n_rules : 1);
  mk->donors = pd__malloc(a, n_donors * sizeof *mk->donors);
  if (mk->donors) memset(mk->donors, 0xff, n_donors * sizeof *mk->donors);
  mk->bytes = n * (sizeof *mk->cls + sizeof *mk->owned) + n_donors * sizeof *mk->donors;
  st = mk->cls && mk->owned && mk->donors
           ? pd_follow_build(&g->pda, g->vocab->alloc, &mk->follow, err)
           : pd__nomem(err);
  const pd_pda_rule *rules = pd_pda_rules(&g->pda);
  for (uint32_t r = 0; g->pda.n_counted && r < g->pda.n_rules; r++)
    if (rules[r].count && rules[r].count < mk->fresh_room) mk->fresh_room = rules[r].count;
  if (st == PD_OK && g->pda.n_counted && pd__counted_exits(mk, a) != PD_OK) st = pd__nomem(err);
  if (st == PD_OK && g->pda.n_set && !(mk->set_in = pd__set_in_make(&g->pda, a)))
    st = pd__nomem(err);
  const pd_pda_state *states = pd_pda_states(&g->pda);
  for (uint32_t s = 0; st == PD_OK && s < mk->n_states; s++)
    if (!states[s].n_byte) mk->cls[s] = &pd__empty_class;
  if (st == PD_OK) pd__grammar_key(mk);
  if (mk->gkey) /* the same grammar compiled before: its classes at once */
    pd_mask_cache_snapshot_find(mk->cache, mk->gkey, mk->gkey_len, mk->ghash, mk->n_states,
                                mk->cls);
  const pd_mask_class *unused;
  for (uint32_t s = 0; st == PD_OK && g->opts.eager_masks && s < mk->n_states; s++)
    st = pd_masks_class(mk, s, &unused, err);
  if (st == PD_OK) st = pd_memo_init(&mk->memo, (g->vocab->width + 31) / 32, err);
  mk->memo_ok = st == PD_OK;
  if (st != PD_OK) {
    pd_masks_free(mk, a);
    return st;
  }
  *out = mk;
  return PD_OK;
}

/* Offers the classes found so far to the cache's snapshot of this grammar
 * (those the cache holds: a class the grammar owns dies with it). */
static void pd__snapshot_put(pd_masks *mk) {
  const pd_allocator *a = mk->g->vocab->alloc;
  const pd_mask_class **cls = pd__malloc(a, (mk->n_states ? mk->n_states : 1) * sizeof *cls);
  if (!cls) return;
  uintptr_t lo = (uintptr_t)mk->owned, hi = (uintptr_t)(mk->owned + mk->n_states);
  for (uint32_t s = 0; s < mk->n_states; s++) { /* owned: its own, or a donor's it shares */
    uintptr_t c = (uintptr_t)mk->cls[s];
    cls[s] = c >= lo && c < hi ? NULL : mk->cls[s];
  }
  pd_mask_cache_snapshot_put(mk->cache, a, mk->gkey, mk->gkey_len, mk->ghash, mk->n_states, cls);
  pd__free(a, cls);
}

void pd_masks_free(pd_masks *mk, const pd_allocator *a) {
  if (!mk) return;
  if (mk->gkey && mk->cls) pd__snapshot_put(mk);
  pd__free(mk->g->vocab->alloc, mk->gkey);
  if (mk->owned)
    for (uint32_t s = 0; s < mk->n_states; s++) pd_mask_class_free(&mk->owned[s], a);
  pd__free(a, mk->owned);
  if (mk->memo_ok) pd_memo_free(&mk->memo, a);
  pd_masks_pairs_free(mk);
  pd_masks_drops_free(mk);
  pd_classifier_free(mk->k);
  pd_statekey_free(mk->sk);
  pd__free(mk->g->vocab->alloc, mk->follow);
  pthread_mutex_destroy(&mk->lock);
  pd__free(a, mk->cls);
  pd__free(a, mk->donors);
  pd__free(a, mk->exit_of);
  pd__free(a, mk->forced);
  pd__free(a, mk->set_in);
  pd__free(a, mk);
}

size_t pd_masks_bytes(const pd_masks *mk) {
  return mk ? mk->bytes + mk->pair_bytes + mk->drop_bytes + mk->memo.bytes : 0;
}
