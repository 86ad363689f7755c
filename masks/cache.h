/* cache.h - what masks keep per vocabulary, shared by every grammar over it.
 *
 * Created on first use by pd_mask_cache_get and published into
 * vocab->mask_cache with an atomic compare-and-swap, so concurrent compiles over
 * one vocab agree on one cache; freed by pd_vocab_free. The trie and universe
 * are immutable once published; the classification entries are guarded by lock.
 * Entries are keyed by a state's local language (see classify.h) and bounded by
 * max_bytes: past the bound new classifications are still computed but not kept.
 */
#ifndef PD_MASKS_CACHE_H
#define PD_MASKS_CACHE_H
#include <pthread.h>
#include <stdint.h>

#include "masks/tokset.h"
#include "masks/trie.h"
#include "pushdown.h"

#define PD_MASK_CACHE_MAX_BYTES ((size_t)256 << 20) /* classification memory bound */
/* interned keys have a bound of their own: they are small, and once classes
 * fill theirs, keys of new states still name callees by id (statekey.h).
 * Caller classes are keyed by places in interned closures (pair.c): over
 * MaskBench the closures take 143 MB, and at 64 MB the last third of its
 * schemas could key neither */
#define PD_MASK_CACHE_MAX_INTERN_BYTES ((size_t)256 << 20)
/* whole-grammar snapshots too: each holds its grammar's automaton as its key
 * (a few hundred KB for a large schema), and counted with the classes they
 * took six times the classes' memory over MaskBench, where no schema is
 * compiled twice, so the classes stopped being kept a tenth of the way in */
#define PD_MASK_CACHE_MAX_SNAP_BYTES ((size_t)64 << 20)
/* see statekey.h. Once closures no longer intern, a key written out in full
 * serves the small local languages (a string body, a number) that other
 * grammars repeat; over MaskBench no longer one was ever found again, and
 * writing keys of up to 16,384 words cost 2.1 s of its 34 s of masks */
#define PD_MASK_CACHE_MAX_FULL_KEY 256u
/* a rule's closure (statekey.h) past this many words is not interned: the
 * rules of one component are serialized together, once for each of them, and
 * a component of 811 rules (Github_hard/o13029 in any order) wrote 1.8M words
 * each time, seconds for a closure no other grammar could share */
#define PD_MASK_CACHE_MAX_CLOSURE (1u << 16)

typedef struct pd_mask_entry pd_mask_entry;
typedef struct pd_mask_snapshot pd_mask_snapshot;
typedef struct pd_mask_set pd_mask_set;

typedef struct pd_mask_cache {
  pthread_mutex_t lock;
  pd_trie trie;
  uint32_t *universe;     /* bit t: t is a non-empty normal token (in the trie) */
  pd_universe u;          /* view of universe */
  uint32_t *positions;    /* bits 0 .. trie.n-1: every trie position */
  pd_universe pu;         /* view of positions: cd sets hold trie positions, not ids */
  uint32_t *edge_ok;      /* bit t: t < size, neither hole nor EOS (token edges may match) */
  uint32_t *eos;          /* stop ids that are not holes */
  uint32_t *empty;        /* normal ids with no bytes (always accepted) */
  uint32_t n_eos, n_empty;
  /* open hash of entries by key hash, n_table slots; a slot keeps its entry's
   * hash beside the pointer, so a probe that passes another entry reads no
   * entry (at up to half load a lookup that misses passes up to 2.5 slots on
   * average, each a cache miss of its own) */
  struct pd_mask_slot {
    uint64_t hash;
    pd_mask_entry *e; /* NULL: empty */
  } *table;
  size_t n_table, n_entries;
  size_t bytes, max_bytes; /* memory held by entries, and its bound */
  size_t hits, misses;     /* classification lookups (for reports) */
  uint32_t n_ids;          /* interned keys (pd_mask_cache_intern) */
  size_t intern_bytes, max_intern_bytes; /* their memory, and its bound */
  size_t max_full_key;     /* words of a key with every callee written out (statekey.h) */
  size_t max_closure;      /* words of an interned closure (statekey.h) */
  pd_mask_set *sets;       /* open hash of the entries' distinct sets; n_sets slots */
  size_t n_sets, n_set_entries;
  pd_mask_snapshot **snaps; /* open hash of whole-grammar snapshots; n_snaps slots */
  size_t n_snaps, n_snap_entries;
  size_t snap_bytes, max_snap_bytes; /* their memory, and its bound */
} pd_mask_cache;

/* v's cache, created on first use. The pointer stays valid while v lives. */
pd_status pd_mask_cache_get(pd_vocab *v, pd_mask_cache **out, pd_error *err);
/* A cached classification (see classify.h): accepted and context-dependent
 * tokens of a state. */
typedef struct pd_mask_class {
  pd_tokset accepted; /* token ids (universe u) */
  pd_tokset cd;       /* trie positions (universe pu), so the check walks them in trie order */
} pd_mask_class;
void pd_mask_class_free(pd_mask_class *cls, const pd_allocator *a);

/* The entry for key[0..n) (hash h), borrowed for v's lifetime; NULL if none. */
const pd_mask_class *pd_mask_cache_find(pd_mask_cache *c, const uint32_t *key, size_t n,
                                        uint64_t h);
/* Stores *cls under key. On success the cache owns the sets (*cls is zeroed)
 * and the stored entry is returned; a racing entry with the same key is
 * returned instead (*cls untouched, still the caller's); NULL when over the
 * memory bound or out of memory (*cls untouched). */
const pd_mask_class *pd_mask_cache_put(pd_mask_cache *c, const pd_allocator *a,
                                       const uint32_t *key, size_t n, uint64_t h,
                                       pd_mask_class *cls);
/* The id of key[0..n) (hash h): equal keys get equal ids, different keys
 * different ones, for the vocabulary's lifetime (statekey.h interns rules'
 * closures). 0 when over the memory bound or out of memory. */
uint32_t pd_mask_cache_intern(pd_mask_cache *c, const pd_allocator *a, const uint32_t *key,
                              size_t n, uint64_t h);
/* Whole-grammar snapshots: the classes of every state of a grammar, keyed by
 * the grammar's complete automaton (key[0..n), hash h). A grammar compiled
 * again over the same vocabulary takes them all at once, skipping the
 * per-state keys (each a serialization of the state's reachable closure).
 * Classes are entries of this cache (never freed before it) or the two static
 * sentinels of masks.c; NULL where a state had none. find copies the known
 * classes into out[0..n_states) (NULL slots left alone) and tells whether a
 * snapshot was there; put merges cls[0..n_states) into the snapshot (made if
 * absent, within the memory bound; dropped silently otherwise). */
bool pd_mask_cache_snapshot_find(pd_mask_cache *c, const uint32_t *key, size_t n, uint64_t h,
                                 uint32_t n_states, const pd_mask_class **out);
void pd_mask_cache_snapshot_put(pd_mask_cache *c, const pd_allocator *a, const uint32_t *key,
                                size_t n, uint64_t h, uint32_t n_states,
                                const pd_mask_class *const *cls);

/* Frees a cache (NULL is a no-op); called by pd_vocab_free. */
void pd_mask_cache_free(const pd_allocator *a, pd_mask_cache *c);

#endif
