/* drop.c - the candidates a row leaves to the walk, kept by the row's sets.
 *
 * A fill walks the union of the cd sets its row leaves whole, less the tokens
 * the row's accepted sets take already (fill.c). Near the end of a long
 * string's block one state's cd set is most of the vocabulary and the other
 * phase's class accepts nearly all of it (repeat.c): the union and the test of
 * each candidate against the accepted row cost 50-160 us at 128k tokens, for a
 * result of a few hundred positions. Both depend only on the sets, which live
 * as long as the grammar (cache entries, the grammar's own classes and its
 * caller classes), and a string's rows come back with every block, so the
 * result is kept per grammar, keyed by the two lists of sets (sorted: a union
 * has no order). Lookups and stores take the grammar's lock: a fill gets here
 * only when the walk ahead of it costs far more. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/bits.h"
#include "base/rehash.h"
#include "masks/masks_internal.h"
#include "pda/grammar.h"

#define PD__DROP_MAX_BYTES ((size_t)8 << 20) /* kept per grammar */

typedef struct pd__drop {
  uint64_t hash;
  uint32_t n_acc, n_cd;
  const pd_tokset **sets; /* acc then cd, each sorted; NULL: an empty slot */
  pd_tokset cand;         /* trie positions */
} pd__drop;

struct pd_drop_table {
  size_t n, used;
  pd__drop slot[];
};

static int pd__ptr_cmp(const void *pa, const void *pb) {
  uintptr_t a = (uintptr_t) * (const pd_tokset *const *)pa;
  uintptr_t b = (uintptr_t) * (const pd_tokset *const *)pb;
  return (a > b) - (a < b);
}

void pd_masks_drop_key(pd_drop_key *k, const pd_tokset **acc, size_t n_acc,
                       const pd_tokset **cd, size_t n_cd) {
  qsort(acc, n_acc, sizeof *acc, pd__ptr_cmp);
  qsort(cd, n_cd, sizeof *cd, pd__ptr_cmp);
  uint64_t h = (uint64_t)n_acc << 32 ^ n_cd;
  for (size_t i = 0; i < n_acc; i++) h = (h ^ (uintptr_t)acc[i]) * 0x9e3779b97f4a7c15u;
  h ^= h >> 29;
  for (size_t i = 0; i < n_cd; i++) h = (h ^ (uintptr_t)cd[i]) * 0xc2b2ae3d27d4eb4fu;
  *k = (pd_drop_key){acc, cd, n_acc, n_cd, h ^ h >> 31};
}

static bool pd__same(const pd__drop *d, const pd_drop_key *k) {
  return d->hash == k->hash && d->n_acc == k->n_acc && d->n_cd == k->n_cd &&
         !memcmp(d->sets, k->acc, k->n_acc * sizeof *k->acc) &&
         !memcmp(d->sets + k->n_acc, k->cd, k->n_cd * sizeof *k->cd);
}

static size_t pd__drop_slot(const struct pd_drop_table *t, const pd_drop_key *k) {
  size_t mask = t->n - 1, i = (size_t)k->hash & mask;
  while (t->slot[i].sets && !pd__same(&t->slot[i], k)) i = (i + 1) & mask;
  return i;
}

bool pd_masks_drop_find(pd_masks *mk, const pd_drop_key *k, uint32_t *cand, size_t n_words) {
  bool found = false;
  pthread_mutex_lock(&mk->lock);
  struct pd_drop_table *t = mk->drops;
  const pd__drop *d = t ? &t->slot[pd__drop_slot(t, k)] : NULL;
  if (d && d->sets) {
    found = true;
    memset(cand, 0, n_words * sizeof *cand);
    pd_tokset_or(&d->cand, cand); /* kept as ids or bits, never as a complement */
  }
  pthread_mutex_unlock(&mk->lock);
  return found;
}

/* Room for one more entry (lock held): the table doubles. */
static bool pd__drop_room(pd_masks *mk) {
  struct pd_drop_table *old = mk->drops;
  if (old && (old->used + 1) * 2 <= old->n) return true;
  size_t n = old ? old->n * 2 : 64, cost = sizeof *old + n * sizeof *old->slot;
  if (mk->drop_bytes + cost > PD__DROP_MAX_BYTES) return false;
  struct pd_drop_table *t = pd__calloc(mk->g->alloc, 1, cost);
  if (!t) return false;
  t->n = n;
  if (old) PD_REHASH_BY(t->slot, n, old->slot, old->n, sets);
  t->used = old ? old->used : 0;
  if (old) mk->drop_bytes -= sizeof *old + old->n * sizeof *old->slot;
  pd__free(mk->g->alloc, old);
  mk->drops = t;
  mk->drop_bytes += cost;
  return true;
}

void pd_masks_drop_put(pd_masks *mk, const pd_drop_key *k, const uint32_t *cand) {
  const pd_allocator *a = mk->g->alloc;
  const pd_universe *pu = &mk->cache->pu;
  pd_tokset s;
  size_t count = pd_popcount_words(cand, pu->n_words);
  if (pd_tokset_from_bits(&s, cand, count, pu, a, NULL) != PD_OK) return;
  if (s.kind == PD_TOKSET_ALL_BUT) { /* read back by pd_tokset_or: ids or bits only */
    pd_tokset_free(&s, a);
    return;
  }
  size_t n = k->n_acc + k->n_cd, cost = n * sizeof *k->acc + pd_tokset_bytes(&s);
  const pd_tokset **sets = pd__malloc(a, (n ? n : 1) * sizeof *sets);
  pthread_mutex_lock(&mk->lock);
  bool kept = false;
  if (sets && mk->drop_bytes + cost <= PD__DROP_MAX_BYTES && pd__drop_room(mk)) {
    pd__drop *d = &mk->drops->slot[pd__drop_slot(mk->drops, k)];
    if (!d->sets) { /* else another thread stored the same */
      memcpy(sets, k->acc, k->n_acc * sizeof *sets);
      memcpy(sets + k->n_acc, k->cd, k->n_cd * sizeof *sets);
      *d = (pd__drop){k->hash, (uint32_t)k->n_acc, (uint32_t)k->n_cd, sets, s};
      mk->drops->used++;
      mk->drop_bytes += cost;
      kept = true;
    }
  }
  pthread_mutex_unlock(&mk->lock);
  if (!kept) {
    pd__free(a, sets);
    pd_tokset_free(&s, a);
  }
}

void pd_masks_drops_free(pd_masks *mk) {
  struct pd_drop_table *t = mk->drops;
  for (size_t i = 0; t && i < t->n; i++) {
    if (!t->slot[i].sets) continue;
    pd__free(mk->g->alloc, (void *)t->slot[i].sets);
    pd_tokset_free(&t->slot[i].cand, mk->g->alloc);
  }
  pd__free(mk->g->alloc, t);
  mk->drops = NULL;
}
