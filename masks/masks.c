/* masks.c - building a grammar's token tables: one classification per
 * automaton state, looked up in (or added to) the vocabulary's cache. */
#include "masks.h"

#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "masks/classify.h"
#include "masks/follow.h"
#include "masks/masks_internal.h"
#include "masks/vocab.h"
#include "pda/grammar.h"

static const pd_mask_class pd__empty_class; /* states without byte edges */

/* The class of state s: from the cache when its local language is there, else
 * classified now and offered to the cache (kept by the grammar past the bound).
 * A state whose local parse overflows is left NULL: the fill walks for it. */
static pd_status pd__class_of(pd_masks *mk, pd_classifier *k, const pd_allocator *va,
                              const pd_allocator *ga, uint32_t s, pd_error *err) {
  const uint32_t *key;
  size_t n;
  uint64_t h;
  pd_status st = pd_classifier_key(k, s, &key, &n, &h, err);
  if (st != PD_OK) return st;
  if ((mk->cls[s] = pd_mask_cache_find(mk->cache, key, n, h))) return PD_OK;
  pd_mask_class cls;
  st = pd_classifier_run(k, s, &cls, err);
  if (st == PD_ERR_LIMIT) return PD_OK;
  if (st != PD_OK) return st;
  if ((mk->cls[s] = pd_mask_cache_put(mk->cache, va, key, n, h, &cls))) {
    pd_mask_class_free(&cls, va); /* no-op when the cache took it */
    return PD_OK;
  }
  /* the grammar keeps it, in its own allocator */
  st = pd_tokset_copy(&mk->owned[s].accepted, &cls.accepted, ga, err);
  if (st == PD_OK) st = pd_tokset_copy(&mk->owned[s].cd, &cls.cd, ga, err);
  pd_mask_class_free(&cls, va);
  if (st != PD_OK) return st;
  mk->cls[s] = &mk->owned[s];
  mk->bytes += pd_tokset_bytes(&mk->owned[s].accepted) + pd_tokset_bytes(&mk->owned[s].cd);
  return PD_OK;
}

static pd_status pd__classify_all(pd_masks *mk, const struct pd_grammar *g, pd_error *err) {
  const pd_allocator *va = g->vocab->alloc;
  const pd_pda_state *states = pd_pda_states(&g->pda);
  pd_classifier *k = NULL;
  uint32_t *follow = NULL;
  pd_status st = pd_follow_build(&g->pda, va, &follow, err);
  if (st == PD_OK) st = pd_classifier_new(&g->pda, follow, g->vocab, mk->cache, va, &k, err);
  for (uint32_t s = 0; st == PD_OK && s < mk->n_states; s++) {
    if (!states[s].n_byte)
      mk->cls[s] = &pd__empty_class;
    else
      st = pd__class_of(mk, k, va, g->alloc, s, err);
  }
  pd_classifier_free(k);
  pd__free(va, follow);
  return st;
}

pd_status pd_masks_build(const struct pd_grammar *g, pd_masks **out, pd_error *err) {
  *out = NULL;
  pd_mask_cache *c;
  pd_status st = pd_mask_cache_get(g->vocab, &c, err);
  if (st != PD_OK) return st;
  const pd_allocator *a = g->alloc;
  pd_masks *mk = pd__calloc(a, 1, sizeof *mk);
  if (!mk) return pd__nomem(err);
  mk->cache = c;
  mk->n_states = g->pda.n_states;
  size_t n = mk->n_states ? mk->n_states : 1;
  mk->cls = pd__calloc(a, n, sizeof *mk->cls);
  mk->owned = pd__calloc(a, n, sizeof *mk->owned);
  mk->bytes = n * (sizeof *mk->cls + sizeof *mk->owned);
  st = mk->cls && mk->owned ? pd__classify_all(mk, g, err) : pd__nomem(err);
  if (st == PD_OK) st = pd_memo_init(&mk->memo, (g->vocab->width + 31) / 32, err);
  mk->memo_ok = st == PD_OK;
  if (st != PD_OK) {
    pd_masks_free(mk, a);
    return st;
  }
  *out = mk;
  return PD_OK;
}

void pd_masks_free(pd_masks *mk, const pd_allocator *a) {
  if (!mk) return;
  if (mk->owned)
    for (uint32_t s = 0; s < mk->n_states; s++) pd_mask_class_free(&mk->owned[s], a);
  pd__free(a, mk->owned);
  if (mk->memo_ok) pd_memo_free(&mk->memo, a);
  pd__free(a, mk->cls);
  pd__free(a, mk);
}

size_t pd_masks_bytes(const pd_masks *mk) { return mk ? mk->bytes + mk->memo.bytes : 0; }

