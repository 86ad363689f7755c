/* cache.c - the per-vocabulary mask cache: trie, universe, classifications. */
#include "cache.h"

#include <string.h>

#include "base/alloc.h"
#include "base/bits.h"
#include "base/error.h"
#include "base/rehash.h"
#include "masks/vocab.h"

/* One cached classification: the key (a state's local language, classify.h)
 * and its token sets. Keys are kept packed, seven bits a byte (LEB128): their
 * words are state numbers, byte values and small counts, and written out
 * whole they held two thirds of a full cache over MaskBench. The sets are
 * shared by every entry with the same members (pd_mask_set): 110k classes
 * over MaskBench held 18k distinct accepted sets. */
struct pd_mask_entry {
  uint64_t hash;
  uint8_t *key;      /* packed */
  size_t key_len;    /* words */
  size_t key_bytes;  /* packed bytes */
  pd_mask_class cls; /* data borrowed from the set table */
  uint32_t id;       /* an interned key's id (statekey.h); 0 for a class */
};

/* One distinct set's members (the form and words of a pd_tokset). */
struct pd_mask_set {
  uint64_t hash;
  uint32_t kind, n;
  uint32_t *data;
};

/* The classes of every state of one grammar (cache.h). */
struct pd_mask_snapshot {
  uint64_t hash;
  uint32_t *key; /* whole: it is compared at every compile, where packed keys cost */
  size_t key_len;
  uint32_t n_states;
  const pd_mask_class **cls;
};

void pd_mask_class_free(pd_mask_class *cls, const pd_allocator *a) {
  pd_tokset_free(&cls->accepted, a);
  pd_tokset_free(&cls->cd, a);
}

/* The ids decided apart from the trie: stop tokens, empty tokens, and which
 * ids a token edge may match. */
static pd_status pd__cache_lists(pd_mask_cache *c, const pd_vocab *v, const pd_allocator *a,
                                 size_t n_words) {
  c->edge_ok = pd__calloc(a, n_words ? n_words : 1, sizeof *c->edge_ok);
  c->eos = pd__malloc(a, (v->size ? v->size : 1) * sizeof *c->eos);
  c->empty = pd__malloc(a, (v->size ? v->size : 1) * sizeof *c->empty);
  if (!c->edge_ok || !c->eos || !c->empty) return PD_ERR_NOMEM;
  for (uint32_t t = 0; t < v->size; t++) {
    uint32_t f = v->flags[t];
    if (f & PD_TOKEN_HOLE) continue;
    if (f & PD_TOKEN_EOS) {
      c->eos[c->n_eos++] = t;
      continue;
    }
    pd_bit_set(c->edge_ok, t);
    if (!f && v->offs[t + 1] == v->offs[t]) c->empty[c->n_empty++] = t;
  }
  return PD_OK;
}

static pd_status pd__cache_new(pd_vocab *v, pd_mask_cache **out, pd_error *err) {
  const pd_allocator *a = v->alloc;
  pd_mask_cache *c = pd__calloc(a, 1, sizeof *c);
  if (!c) return pd__nomem(err);
  size_t n_words = (v->width + 31) / 32;
  c->universe = pd__calloc(a, n_words ? n_words : 1, sizeof *c->universe);
  pd_status st = c->universe ? pd_trie_build(&c->trie, v, a, err) : pd__nomem(err);
  if (st == PD_OK && pthread_mutex_init(&c->lock, NULL) != 0)
    st = pd__fail(err, PD_ERR_INTERNAL, "cannot create the mask cache lock");
  if (st != PD_OK) {
    if (c->trie.order) pd_trie_free(&c->trie, a);
    pd__free(a, c->universe);
    pd__free(a, c);
    return st;
  }
  for (uint32_t i = 0; i < c->trie.n; i++) pd_bit_set(c->universe, c->trie.order[i]);
  st = pd__cache_lists(c, v, a, n_words);
  if (st != PD_OK) {
    pd_mask_cache_free(a, c);
    return pd__nomem(err);
  }
  c->u = (pd_universe){c->universe, n_words, c->trie.n};
  size_t n_pos = (c->trie.n + 31) / 32;
  c->positions = pd__malloc(a, (n_pos ? n_pos : 1) * sizeof *c->positions);
  if (!c->positions) {
    pd_mask_cache_free(a, c);
    return pd__nomem(err);
  }
  memset(c->positions, 0xff, n_pos * sizeof *c->positions);
  if (c->trie.n % 32) c->positions[n_pos - 1] = (1u << (c->trie.n % 32)) - 1;
  c->pu = (pd_universe){c->positions, n_pos, c->trie.n};
  c->max_bytes = v->cache_bytes ? v->cache_bytes : PD_MASK_CACHE_MAX_BYTES;
  c->max_intern_bytes = PD_MASK_CACHE_MAX_INTERN_BYTES;
  c->max_snap_bytes = PD_MASK_CACHE_MAX_SNAP_BYTES;
  c->max_full_key = PD_MASK_CACHE_MAX_FULL_KEY;
  c->max_closure = PD_MASK_CACHE_MAX_CLOSURE;
  *out = c;
  return PD_OK;
}

pd_status pd_mask_cache_get(pd_vocab *v, pd_mask_cache **out, pd_error *err) {
  pd_mask_cache *c = __atomic_load_n(&v->mask_cache, __ATOMIC_ACQUIRE);
  if (c) {
    *out = c;
    return PD_OK;
  }
  pd_status st = pd__cache_new(v, &c, err);
  if (st != PD_OK) return st;
  pd_mask_cache *expected = NULL;
  if (!__atomic_compare_exchange_n(&v->mask_cache, &expected, c, false, __ATOMIC_ACQ_REL,
                                   __ATOMIC_ACQUIRE)) {
    pd_mask_cache_free(v->alloc, c); /* another thread published first */
    c = expected;
  }
  *out = c;
  return PD_OK;
}

void pd_mask_cache_free(const pd_allocator *a, pd_mask_cache *c) {
  if (!c) return;
  for (size_t i = 0; i < c->n_table; i++) {
    pd_mask_entry *e = c->table[i].e;
    if (!e) continue;
    pd__free(a, e->key);
    pd__free(a, e);
  }
  pd__free(a, c->table);
  for (size_t i = 0; i < c->n_sets; i++) pd__free(a, c->sets[i].data);
  pd__free(a, c->sets);
  for (size_t i = 0; i < c->n_snaps; i++) {
    pd_mask_snapshot *e = c->snaps[i];
    if (!e) continue;
    pd__free(a, e->key);
    pd__free(a, e->cls);
    pd__free(a, e);
  }
  pd__free(a, c->snaps);
  pd__free(a, c->edge_ok);
  pd__free(a, c->positions);
  pd__free(a, c->eos);
  pd__free(a, c->empty);
  pd_trie_free(&c->trie, a);
  pd__free(a, c->universe);
  pthread_mutex_destroy(&c->lock);
  pd__free(a, c);
}

/* Packs key[0..n) into out (room for 5 bytes a word); returns the bytes. */
static size_t pd__pack(const uint32_t *key, size_t n, uint8_t *out) {
  uint8_t *p = out;
  for (size_t i = 0; i < n; i++) {
    uint32_t x = key[i];
    for (; x >= 0x80; x >>= 7) *p++ = (uint8_t)(x | 0x80);
    *p++ = (uint8_t)x;
  }
  return (size_t)(p - out);
}

/* Whether packed p[0..len) holds key[0..n). */
static bool pd__packed_eq(const uint8_t *p, size_t len, const uint32_t *key, size_t n) {
  const uint8_t *end = p + len;
  for (size_t i = 0; i < n; i++) {
    if (p == end) return false;
    uint32_t x = *p++;
    if (x >= 0x80) { /* a word of two bytes or more */
      x &= 0x7f;
      for (int shift = 7;; shift += 7) {
        if (p == end || shift > 28) return false;
        uint8_t b = *p++;
        x |= (uint32_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) break;
      }
    }
    if (x != key[i]) return false;
  }
  return p == end;
}

/* The slot of key[0..n) (hash h): its entry's, or the empty one it would take. */
static size_t pd__slot(const pd_mask_cache *c, uint64_t h, const uint32_t *key, size_t n) {
  size_t mask = c->n_table - 1, i = (size_t)h & mask;
  for (;; i = (i + 1) & mask) {
    const pd_mask_entry *e = c->table[i].e;
    if (!e) return i;
    if (c->table[i].hash == h && e->key_len == n && pd__packed_eq(e->key, e->key_bytes, key, n))
      return i;
  }
}

const pd_mask_class *pd_mask_cache_find(pd_mask_cache *c, const uint32_t *key, size_t n,
                                        uint64_t h) {
  const pd_mask_class *found = NULL;
  pthread_mutex_lock(&c->lock);
  if (c->n_table) {
    pd_mask_entry *e = c->table[pd__slot(c, h, key, n)].e;
    if (e) found = &e->cls;
  }
  if (found)
    c->hits++;
  else
    c->misses++;
  pthread_mutex_unlock(&c->lock);
  return found;
}

/* Doubles the table (keeps the load under one half). Lock held. */
static bool pd__grow(pd_mask_cache *c, const pd_allocator *a) {
  size_t n = c->n_table ? c->n_table * 2 : 256;
  struct pd_mask_slot *old = c->table, *t = pd__calloc(a, n, sizeof *t);
  if (!t) return false;
  size_t n_old = c->n_table;
  c->table = t;
  c->n_table = n;
  PD_REHASH_BY(t, n, old, n_old, e);
  pd__free(a, old);
  return true;
}

/* A new entry for key[0..n) (hash h), its key packed; NULL when out of memory. */
static pd_mask_entry *pd__entry_new(const pd_allocator *a, const uint32_t *key, size_t n,
                                    uint64_t h) {
  pd_mask_entry *e = pd__calloc(a, 1, sizeof *e);
  uint8_t *k = e ? pd__malloc(a, 5 * n + 1) : NULL, *fit;
  if (!k) {
    pd__free(a, e);
    return NULL;
  }
  size_t bytes = pd__pack(key, n, k);
  if ((fit = pd__realloc(a, k, bytes + 1))) k = fit; /* in place: the allocator shrinks it */
  *e = (pd_mask_entry){.hash = h, .key = k, .key_len = n, .key_bytes = bytes};
  return e;
}

static void pd__entry_free(const pd_allocator *a, pd_mask_entry *e) {
  if (e) pd__free(a, e->key);
  pd__free(a, e);
}

/* The slot of a set with s's members (hash h): its own, or the empty one. */
static size_t pd__set_slot(const pd_mask_cache *c, const pd_tokset *s, uint64_t h) {
  size_t mask = c->n_sets - 1, i = (size_t)h & mask;
  for (;; i = (i + 1) & mask) {
    const pd_mask_set *x = &c->sets[i];
    if (!x->data || (x->hash == h && x->kind == s->kind && x->n == s->n &&
                     !memcmp(x->data, s->data, s->n * sizeof *s->data)))
      return i;
  }
}

static uint64_t pd__set_hash(const pd_tokset *s) {
  return pd_hash_words(s->data, s->n) ^ ((uint64_t)s->kind << 32 | s->n) * 0x9e3779b97f4a7c15u;
}

/* Whether a set with s's members is held already. Lock held. */
static bool pd__set_held(const pd_mask_cache *c, const pd_tokset *s, uint64_t h) {
  return !s->n || (c->n_sets && c->sets[pd__set_slot(c, s, h)].data);
}

/* Room for two more sets: the table doubles. Lock held. */
static bool pd__sets_room(pd_mask_cache *c, const pd_allocator *a) {
  if ((c->n_set_entries + 2) * 2 <= c->n_sets) return true;
  size_t n = c->n_sets ? c->n_sets * 2 : 256;
  pd_mask_set *old = c->sets, *t = pd__calloc(a, n, sizeof *t);
  if (!t) return false;
  size_t n_old = c->n_sets;
  c->sets = t, c->n_sets = n;
  PD_REHASH_BY(t, n, old, n_old, data);
  pd__free(a, old);
  return true;
}

/* s's members in the set table: its data is freed for the held copy, or
 * becomes it. Lock held, room made. */
static void pd__set_intern(pd_mask_cache *c, const pd_allocator *a, pd_tokset *s, uint64_t h) {
  if (!s->n) return;
  pd_mask_set *x = &c->sets[pd__set_slot(c, s, h)];
  if (x->data) {
    pd__free(a, s->data);
    s->data = x->data;
    return;
  }
  *x = (pd_mask_set){h, s->kind, s->n, s->data};
  c->n_set_entries++;
}

/* Stores the entry (key[0..n)) when the table has room under the bound;
 * returns it, or the equal entry a racing compile stored first, or NULL. Lock
 * held. */
static pd_mask_entry *pd__insert(pd_mask_cache *c, const pd_allocator *a, pd_mask_entry *e,
                                 const uint32_t *key, size_t cost) {
  size_t *bytes = e->id ? &c->intern_bytes : &c->bytes;
  size_t bound = e->id ? c->max_intern_bytes : c->max_bytes;
  if (c->n_table) {
    pd_mask_entry *there = c->table[pd__slot(c, e->hash, key, e->key_len)].e;
    if (there) return there;
  }
  if (*bytes + cost > bound) return NULL;
  if ((c->n_entries + 1) * 2 > c->n_table && !pd__grow(c, a)) return NULL;
  c->table[pd__slot(c, e->hash, key, e->key_len)] = (struct pd_mask_slot){e->hash, e};
  c->n_entries++;
  *bytes += cost;
  return e;
}

const pd_mask_class *pd_mask_cache_put(pd_mask_cache *c, const pd_allocator *a,
                                       const uint32_t *key, size_t n, uint64_t h,
                                       pd_mask_class *cls) {
  pd_mask_entry *e = pd__entry_new(a, key, n, h);
  if (!e) return NULL;
  uint64_t ha = pd__set_hash(&cls->accepted), hc = pd__set_hash(&cls->cd);
  pthread_mutex_lock(&c->lock);
  /* a set counts once, against the entry that brings it first */
  size_t cost = sizeof *e + e->key_bytes;
  if (!pd__set_held(c, &cls->accepted, ha)) cost += pd_tokset_bytes(&cls->accepted);
  if (!pd__set_held(c, &cls->cd, hc)) cost += pd_tokset_bytes(&cls->cd);
  pd_mask_entry *stored = pd__sets_room(c, a) ? pd__insert(c, a, e, key, cost) : NULL;
  if (stored == e) {
    pd__set_intern(c, a, &cls->accepted, ha);
    pd__set_intern(c, a, &cls->cd, hc);
    e->cls = *cls;
    memset(cls, 0, sizeof *cls); /* the cache owns the sets now */
  }
  pthread_mutex_unlock(&c->lock);
  if (stored != e) pd__entry_free(a, e);
  return stored ? &stored->cls : NULL;
}

void pd_vocab_cache_stats(const pd_vocab *v, pd_cache_stats *out) {
  if (!out) return;
  memset(out, 0, sizeof *out);
  pd_mask_cache *c = v ? __atomic_load_n(&v->mask_cache, __ATOMIC_ACQUIRE) : NULL;
  if (!c) {
    out->limit = v && v->cache_bytes ? v->cache_bytes : PD_MASK_CACHE_MAX_BYTES;
    return;
  }
  pthread_mutex_lock(&c->lock);
  *out = (pd_cache_stats){c->n_entries - c->n_ids, c->bytes, c->max_bytes, c->hits, c->misses};
  pthread_mutex_unlock(&c->lock);
}

uint32_t pd_mask_cache_intern(pd_mask_cache *c, const pd_allocator *a, const uint32_t *key,
                              size_t n, uint64_t h) {
  uint32_t id = 0;
  pthread_mutex_lock(&c->lock);
  if (c->n_table) {
    pd_mask_entry *e = c->table[pd__slot(c, h, key, n)].e;
    if (e) id = e->id;
  }
  pthread_mutex_unlock(&c->lock);
  if (id) return id;
  pd_mask_entry *e = pd__entry_new(a, key, n, h);
  if (!e) return 0;
  pthread_mutex_lock(&c->lock);
  e->id = c->n_ids + 1;
  pd_mask_entry *stored = pd__insert(c, a, e, key, sizeof *e + e->key_bytes);
  if (stored == e) c->n_ids++;
  id = stored ? stored->id : 0;
  pthread_mutex_unlock(&c->lock);
  if (stored != e) pd__entry_free(a, e);
  return id;
}

/* ------------------------------------------------------------ snapshots */

static size_t pd__snap_slot(const pd_mask_cache *c, uint64_t h, const uint32_t *key, size_t n,
                            uint32_t n_states) {
  size_t mask = c->n_snaps - 1, i = (size_t)h & mask;
  for (;; i = (i + 1) & mask) {
    const pd_mask_snapshot *e = c->snaps[i];
    if (!e || (e->hash == h && e->key_len == n && e->n_states == n_states &&
               !memcmp(e->key, key, n * sizeof *key)))
      return i;
  }
}

bool pd_mask_cache_snapshot_find(pd_mask_cache *c, const uint32_t *key, size_t n, uint64_t h,
                                 uint32_t n_states, const pd_mask_class **out) {
  bool found = false;
  pthread_mutex_lock(&c->lock);
  if (c->n_snaps) {
    const pd_mask_snapshot *e = c->snaps[pd__snap_slot(c, h, key, n, n_states)];
    if (e) {
      found = true;
      for (uint32_t s = 0; s < n_states; s++)
        if (e->cls[s]) out[s] = e->cls[s];
    }
  }
  pthread_mutex_unlock(&c->lock);
  return found;
}

/* Doubles the snapshot table. Lock held. */
static bool pd__snap_grow(pd_mask_cache *c, const pd_allocator *a) {
  size_t n = c->n_snaps ? c->n_snaps * 2 : 64;
  pd_mask_snapshot **old = c->snaps, **t = pd__calloc(a, n, sizeof *t);
  if (!t) return false;
  size_t n_old = c->n_snaps;
  c->snaps = t;
  c->n_snaps = n;
  PD_REHASH(t, n, old, n_old);
  pd__free(a, old);
  return true;
}

void pd_mask_cache_snapshot_put(pd_mask_cache *c, const pd_allocator *a, const uint32_t *key,
                                size_t n, uint64_t h, uint32_t n_states,
                                const pd_mask_class *const *cls) {
  size_t cost = sizeof(pd_mask_snapshot) + n * sizeof *key + (size_t)n_states * sizeof *cls;
  pthread_mutex_lock(&c->lock);
  pd_mask_snapshot *e = c->n_snaps ? c->snaps[pd__snap_slot(c, h, key, n, n_states)] : NULL;
  if (e) { /* merge: states the earlier compile did not need */
    for (uint32_t s = 0; s < n_states; s++)
      if (!e->cls[s]) e->cls[s] = cls[s];
  } else if (c->snap_bytes + cost <= c->max_snap_bytes &&
             ((c->n_snap_entries + 1) * 2 <= c->n_snaps || pd__snap_grow(c, a))) {
    e = pd__calloc(a, 1, sizeof *e);
    uint32_t *k = e ? pd__malloc(a, (n ? n : 1) * sizeof *k) : NULL;
    const pd_mask_class **v = k ? pd__malloc(a, (n_states ? n_states : 1) * sizeof *v) : NULL;
    if (v) {
      memcpy(k, key, n * sizeof *k);
      memcpy(v, cls, n_states * sizeof *v);
      *e = (pd_mask_snapshot){h, k, n, n_states, v};
      c->snaps[pd__snap_slot(c, h, key, n, n_states)] = e;
      c->n_snap_entries++;
      c->snap_bytes += cost;
    } else {
      pd__free(a, k);
      pd__free(a, e);
    }
  }
  pthread_mutex_unlock(&c->lock);
}
