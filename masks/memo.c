/* memo.c - whole-mask memoization by parser configuration (see memo.h). */
#include "memo.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/bits.h"
#include "base/error.h"
#include "base/rehash.h"
#include "earley/earley.h"

#define PD__MAX_ROWS 256u /* distinct rows / (row, rule) pairs in a key */

struct pd_memo_entry {
  size_t n;
  uint32_t *key;
  uint32_t *mask;
};

struct pd_memo_link {
  const uint32_t *from, *to; /* stored masks; from NULL: an empty slot */
  uint32_t token;
};

/* The two open-addressing tables are read without the lock: fills of many
 * requests on a thread pool look masks and transitions up all the time, and
 * one lock made two threads slower than one. A writer (under the lock) fills
 * an entry or a link before it publishes it with a release store (the link's
 * from, written last), and a table that grows is published whole; the old one
 * may still be probed, so it is kept (retired) until the memo is freed. The
 * retired tables add up to less than the live one. */
struct pd_memo_entries {
  struct pd_memo_entries *older;
  size_t n;
  struct {
    uint64_t hash; /* e's, beside it: a probe past another entry reads none */
    pd_memo_entry *e; /* NULL: empty; published last */
  } slot[];
};

struct pd_memo_links {
  struct pd_memo_links *older;
  size_t n;
  pd_memo_link slot[];
};

pd_status pd_memo_init(pd_memo *mo, size_t n_words, pd_error *err) {
  memset(mo, 0, sizeof *mo);
  if (pthread_mutex_init(&mo->lock, NULL) != 0)
    return pd__fail(err, PD_ERR_INTERNAL, "cannot create the mask memo lock");
  mo->n_words = n_words;
  mo->max_bytes = PD_MEMO_MAX_BYTES;
  return PD_OK;
}

void pd_memo_free(pd_memo *mo, const pd_allocator *a) {
  for (size_t i = 0; mo->table && i < mo->table->n; i++) pd__free(a, mo->table->slot[i].e);
  for (pd_memo_entries *t = mo->table, *o; t; t = o) o = t->older, pd__free(a, t);
  for (pd_memo_links *t = mo->links, *o; t; t = o) o = t->older, pd__free(a, t);
  pthread_mutex_destroy(&mo->lock);
  memset(mo, 0, sizeof *mo);
}

/* ------------------------------------------------------------------ key */

/* The rows and (row, rule) pairs met so far are found again through small
 * open-addressing tables: a configuration inside a wide object has hundreds
 * of callers, and linear searches made the key cost more than the mask. */
#define PD__SLOTS (2 * PD__MAX_ROWS) /* a power of two, at most half full */

typedef struct pd__keyb {
  uint32_t *key;
  size_t n;
  uint32_t rows[PD__MAX_ROWS]; /* discovered rows; number = index + 1 (row 0 is 0) */
  uint32_t n_rows;
  uint64_t exp[PD__MAX_ROWS]; /* (row, rule) to expand, as row << 32 | rule */
  uint32_t n_exp;
  uint16_t row_at[PD__SLOTS], exp_at[PD__SLOTS]; /* index + 1 into rows / exp; 0 = empty */
  bool full;
} pd__keyb;

static uint32_t pd__mix(uint64_t x) {
  return (uint32_t)((x * 0x9E3779B97F4A7C15ull) >> 32);
}

static uint32_t pd__slot_of(uint64_t x) { return pd__mix(x) & (PD__SLOTS - 1); }

static void pd__emit(pd__keyb *b, uint32_t w) {
  if (b->n == PD_MEMO_KEY_MAX) b->full = true;
  else b->key[b->n++] = w;
}

static uint32_t pd__rownum(pd__keyb *b, uint32_t row) {
  if (!row) return 0;
  uint32_t i = pd__slot_of(row);
  for (; b->row_at[i]; i = (i + 1) & (PD__SLOTS - 1))
    if (b->rows[b->row_at[i] - 1] == row) return b->row_at[i];
  if (b->n_rows == PD__MAX_ROWS) {
    b->full = true;
    return 0;
  }
  b->rows[b->n_rows++] = row;
  b->row_at[i] = (uint16_t)b->n_rows;
  return b->n_rows;
}

/* Queues (row, rule): the callers of rule waiting in row. */
static void pd__expand(pd__keyb *b, uint32_t row, uint32_t rule) {
  uint64_t x = (uint64_t)row << 32 | rule;
  uint32_t i = pd__slot_of(x);
  for (; b->exp_at[i]; i = (i + 1) & (PD__SLOTS - 1))
    if (b->exp[b->exp_at[i] - 1] == x) return;
  if (b->n_exp == PD__MAX_ROWS) {
    b->full = true;
    return;
  }
  b->exp[b->n_exp++] = x;
  b->exp_at[i] = (uint16_t)b->n_exp;
}

/* ---------------------------------------------------------- callers */

/* The callers of (row, rule) as the key writes them: each as the item it
 * becomes when the rule ends (the return state of its call edge, its
 * origin), so a list also says which rule each caller waits on; tail callers
 * elided: a caller whose call edge leads to a final state without edges
 * ends its own rule as soon as the callee does, so its own callers stand in
 * for it (through any chain of such calls; never for the root rule, whose
 * end is acceptance). The key then does not grow with right recursion (the
 * member rules of an object, a repetition chain), and configurations that
 * differ only in its depth share a mask. The lists are kept per matcher by
 * row id while their row lives: a deep configuration is written from them
 * without scanning its rows again. */
#define PD__MAX_TAIL 256u           /* nested tail chains resolved at once */
#define PD__MAX_POOL (1u << 18)     /* words kept before the lists start over */
#define PD__MAX_LISTS (1u << 14)    /* lists kept before they start over */
/* the pool's bound while a key is made (it starts over past PD__MAX_POOL
 * between keys): the tail callers of an ambiguous row copy their lists, each
 * up to a key, before they are merged; past it that configuration has no key */
#define PD__MAX_POOL_KEY (1u << 22)
#define PD__COMPUTING UINT32_MAX

typedef struct pd__cslot {
  uint64_t row_id; /* + 1; 0 = empty */
  uint32_t rule, off, len; /* (return state, origin) pairs at pool[off ..]; len PD__COMPUTING */
} pd__cslot;

struct pd_memo_scratch {
  pd__cslot *slots;
  uint32_t n_slots, n_used;
  PD_ARRAY(uint32_t) pool;
};

void pd_memo_scratch_free(pd_memo_scratch *sc, const pd_allocator *a) {
  if (!sc) return;
  pd__free(a, sc->slots);
  pd_array_free(a, &sc->pool);
  pd__free(a, sc);
}

static pd__cslot *pd__cslot_of(const pd_memo_scratch *sc, uint64_t id, uint32_t rule) {
  uint32_t i = pd__mix(id * 31 + rule) & (sc->n_slots - 1);
  for (;; i = (i + 1) & (sc->n_slots - 1)) {
    pd__cslot *e = &sc->slots[i];
    if (!e->row_id || (e->row_id == id + 1 && e->rule == rule)) return e;
  }
}

/* Room for one more list: the table doubles. */
static bool pd__croom(pd_memo_scratch *sc, const pd_allocator *a) {
  if ((sc->n_used + 1) * 2 <= sc->n_slots) return true;
  uint32_t n = sc->n_slots ? sc->n_slots * 2 : 256;
  pd__cslot *old = sc->slots, *t = pd__calloc(a, n, sizeof *t);
  if (!t) return false;
  uint32_t n_old = sc->n_slots;
  sc->slots = t, sc->n_slots = n;
  for (uint32_t i = 0; i < n_old; i++)
    if (old[i].row_id) *pd__cslot_of(sc, old[i].row_id - 1, old[i].rule) = old[i];
  pd__free(a, old);
  return true;
}

static int pd__pair_cmp(const void *pa, const void *pb) {
  const uint32_t *a = pa, *b = pb;
  return a[0] != b[0] ? (a[0] > b[0]) - (a[0] < b[0]) : (a[1] > b[1]) - (a[1] < b[1]);
}

/* Sorts the (return state, origin) pairs of p[0..n) and drops repeats: chains of
 * tail calls in an ambiguous grammar reach one caller by several ways, and
 * the lists would multiply. Returns the words kept. */
static size_t pd__sort_unique(uint32_t *p, size_t n) {
  if (n <= 2) return n;
  qsort(p, n / 2, 2 * sizeof *p, pd__pair_cmp);
  size_t k = 2;
  for (size_t i = 2; i < n; i += 2)
    if (p[i] != p[k - 2] || p[i + 1] != p[k - 1]) p[k++] = p[i], p[k++] = p[i + 1];
  return k;
}

/* A state that can do nothing more, not the root rule's (whose end is
 * acceptance): final without edges. A call returning to one is a tail call;
 * an item in one has done its completion already. */
static bool pd__ends(const pd_matcher *m, uint32_t state) {
  const pd_pda_state *st = &m->states[state];
  /* a set rule's end waits on its set, and the caller of a rule it calls is
   * named by its origin row, where pd__emit_sets finds the set rule's item */
  return st->rule != m->root && (st->flags & PD_STATE_FINAL) && !st->n_byte && !st->n_call &&
         !st->n_token && !(st->flags & (PD_STATE_SET | PD_STATE_SET_CALLEE));
}

/* Whether the i-th call of a row's index idx (or else item it[i]) is to
 * rule: then *c is the call and *caller_rule the caller's rule. */
static bool pd__call_at(const pd_matcher *m, const pd_earley_call *idx, const pd_earley_item *it,
                        size_t i, uint32_t rule, pd_earley_call *c, uint32_t *caller_rule) {
  if (idx) {
    *c = idx[i];
    *caller_rule = m->states[it[c->at].state].rule;
    return c->rule == rule;
  }
  const pd_pda_state *st = &m->states[it[i].state];
  const pd_pda_edge *call = st->n_call ? pd_pda_call_to(m->edges, st, rule) : NULL;
  if (!call) return false;
  *c = (pd_earley_call){rule, call->to, it[i].origin, (uint32_t)i};
  *caller_rule = st->rule;
  return true;
}

/* The list of (row, rule) into *off, *len; false when it cannot be made (memory,
 * a chain deeper than PD__MAX_TAIL, a cycle of tail calls in one row). */
static bool pd__callers(pd_matcher *m, pd_memo_scratch *sc, uint32_t row, uint32_t rule,
                        uint32_t depth, uint32_t *off, uint32_t *len) {
  uint64_t id = m->row_ids.data[row];
  if (!sc->n_slots && !pd__croom(sc, m->alloc)) return false;
  pd__cslot *e = pd__cslot_of(sc, id, rule);
  if (e->row_id) {
    *off = e->off, *len = e->len;
    return e->len != PD__COMPUTING;
  }
  if (depth > PD__MAX_TAIL || sc->pool.len > PD__MAX_POOL_KEY || !pd__croom(sc, m->alloc))
    return false;
  e = pd__cslot_of(sc, id, rule);
  *e = (pd__cslot){id + 1, rule, 0, PD__COMPUTING};
  sc->n_used++;
  /* the calls to rule: from the row's index when it is wide (a pass over
   * hundreds of items per rule showed in wide objects), else a scan */
  size_t n;
  const pd_earley_item *it = pd_earley_row(m, row, &n);
  uint32_t n_idx = 0;
  const pd_earley_call *idx = pd_earley_calls_to(m, row, rule, &n_idx);
  if (idx) n = n_idx;
  bool ok = true;
  for (size_t i = 0; i < n && ok; i++) { /* first the lists this one copies */
    pd_earley_call c;
    uint32_t caller_rule, o, l;
    /* the lists below may index other rows, which can move the index */
    if (idx && !(ok = (idx = pd_earley_calls_to(m, row, rule, &n_idx)) != NULL)) break;
    if (pd__call_at(m, idx, it, i, rule, &c, &caller_rule) && pd__ends(m, c.to))
      ok = pd__callers(m, sc, c.origin, caller_rule, depth + 1, &o, &l);
  }
  size_t start = sc->pool.len;
  /* a failure above stands: taking ok from the index again made it true, and
   * a failed list's length (none) was copied as 4G words */
  if (ok && idx && !(ok = (idx = pd_earley_calls_to(m, row, rule, &n_idx)) != NULL)) n = 0;
  for (size_t i = 0; i < n && ok; i++) {
    pd_earley_call c;
    uint32_t caller_rule;
    if (!pd__call_at(m, idx, it, i, rule, &c, &caller_rule)) continue;
    bool tail = pd__ends(m, c.to);
    uint32_t o = 0, l = 2;
    /* made above; a length is used only where its list was made */
    if (tail && !(ok = pd__callers(m, sc, c.origin, caller_rule, depth + 1, &o, &l))) break;
    if (!(ok = pd_array_reserve(m->alloc, &sc->pool, l))) break;
    if (tail && l) {
      memcpy(sc->pool.data + sc->pool.len, sc->pool.data + o, l * sizeof *sc->pool.data);
      sc->pool.len += l;
    } else if (!tail) { /* the state it returns to: what it waits on is in the pair */
      sc->pool.data[sc->pool.len++] = c.to;
      sc->pool.data[sc->pool.len++] = c.origin;
    }
    if (sc->pool.len - start > 4 * PD_MEMO_KEY_MAX) { /* merge as it grows: the copies repeat */
      sc->pool.len = start + pd__sort_unique(sc->pool.data + start, sc->pool.len - start);
      ok = sc->pool.len - start <= PD_MEMO_KEY_MAX && sc->pool.len <= PD__MAX_POOL_KEY;
    }
  }
  e = pd__cslot_of(sc, id, rule); /* the table may have grown */
  if (ok && sc->pool.len > start)
    sc->pool.len = start + pd__sort_unique(sc->pool.data + start, sc->pool.len - start);
  if (sc->pool.len - start > PD_MEMO_KEY_MAX || sc->pool.len > UINT32_MAX) ok = false;
  if (!ok) { /* no key holds it, or no memory: the slot stays unusable (no memo there) */
    sc->pool.len = start;
    return false;
  }
  e->off = (uint32_t)start, e->len = (uint32_t)(sc->pool.len - start);
  *off = e->off, *len = e->len;
  return true;
}

bool pd_memo_callers(pd_matcher *m, uint32_t row, uint32_t rule, const uint32_t **pairs,
                     uint32_t *n) {
  pd_memo_scratch *sc = m->key_scratch;
  if (!sc && !(sc = m->key_scratch = pd__calloc(m->alloc, 1, sizeof *sc))) return false;
  uint32_t off, len;
  if (!pd__callers(m, sc, row, rule, 0, &off, &len)) return false;
  *pairs = len ? sc->pool.data + off : NULL;
  *n = len / 2;
  return true;
}

/* The callers of rule in row: (return state, row#) each; queues their own callers. */
static void pd__emit_callers(pd_matcher *m, pd__keyb *b, pd_memo_scratch *sc,
                             uint32_t row, uint32_t rule) {
  uint32_t off, len;
  if (!pd__callers(m, sc, row, rule, 0, &off, &len)) {
    b->full = true;
    return;
  }
  pd__emit(b, len / 2);
  for (uint32_t k = 0; k < len && !b->full; k += 2) {
    uint32_t state = sc->pool.data[off + k], origin = sc->pool.data[off + k + 1];
    pd__emit(b, state);
    pd__emit(b, pd__rownum(b, origin));
    pd__expand(b, origin, m->states[state].rule);
  }
}

/* Set rules' items (earley.h) differ by their sets, which the lists do not
 * say: per row of the key, in the order found (rows found on the way join
 * the end), its items of set rules as (state, row#, set), then an end mark. */
static void pd__emit_sets(const pd_matcher *m, pd__keyb *b) {
  for (uint32_t r = 0; r < b->n_rows && !b->full; r++) {
    size_t n;
    const pd_earley_item *it = pd_earley_row(m, b->rows[r], &n);
    size_t first = (size_t)(it - m->items.data);
    for (size_t i = 0; i < n && !b->full; i++)
      if (m->states[it[i].state].flags & PD_STATE_SET) {
        pd__emit(b, it[i].state);
        pd__emit(b, pd__rownum(b, it[i].origin));
        pd__emit(b, m->counts[first + i]);
      }
    pd__emit(b, UINT32_MAX);
  }
}

bool pd_memo_key(pd_matcher *m, uint32_t room_cap, uint32_t *key, size_t *n) {
  pd__keyb b;
  b.key = key;
  b.n = b.n_rows = b.n_exp = 0;
  b.full = false;
  memset(b.row_at, 0, sizeof b.row_at);
  memset(b.exp_at, 0, sizeof b.exp_at);
  pd_memo_scratch *sc = m->key_scratch;
  if (!sc && !(sc = m->key_scratch = pd__calloc(m->alloc, 1, sizeof *sc))) return false;
  if (sc->pool.len > PD__MAX_POOL || sc->n_used > PD__MAX_LISTS) { /* most of their rows are gone */
    memset(sc->slots, 0, sc->n_slots * sizeof *sc->slots);
    sc->n_used = 0;
    sc->pool.len = 0;
  }
  uint32_t cur = pd_earley_num_rows(m) - 1;
  pd__rownum(&b, cur);
  size_t n_items, at = b.n;
  const pd_earley_item *it = pd_earley_current(m, &n_items);
  size_t first = (size_t)(it - m->items.data);
  pd__emit(&b, 0); /* count, patched below */
  uint32_t count = 0;
  for (size_t i = 0; i < n_items && !b.full; i++) {
    if (pd__ends(m, it[i].state)) continue; /* its completion is done */
    pd__emit(&b, it[i].state);
    pd__emit(&b, pd__rownum(&b, it[i].origin));
    uint32_t room = pd_earley_room(m, first + i);
    if (room != UINT32_MAX) pd__emit(&b, room < room_cap ? room : room_cap);
    count++;
    /* items predicted here complete into this row, which is in the key whole */
    if (it[i].origin != cur) pd__expand(&b, it[i].origin, m->states[it[i].state].rule);
  }
  if (!b.full) b.key[at] = count;
  for (uint32_t q = 0; q < b.n_exp && !b.full; q++) {
    uint32_t row = (uint32_t)(b.exp[q] >> 32), rule = (uint32_t)b.exp[q];
    pd__emit(&b, pd__rownum(&b, row));
    pd__emit(&b, rule);
    pd__emit_callers(m, &b, sc, row, rule);
  }
  if (m->sets) pd__emit_sets(m, &b);
  *n = b.n;
  return !b.full;
}

/* ---------------------------------------------------------------- table */

static size_t pd__slot(const pd_memo_entries *t, uint64_t h, const uint32_t *key, size_t n) {
  size_t mask = t->n - 1, i = (size_t)h & mask;
  for (;; i = (i + 1) & mask) {
    const pd_memo_entry *e = __atomic_load_n(&t->slot[i].e, __ATOMIC_ACQUIRE);
    if (!e || (t->slot[i].hash == h && e->n == n && !memcmp(e->key, key, n * sizeof *key)))
      return i;
  }
}

const uint32_t *pd_memo_find(pd_memo *mo, const uint32_t *key, size_t n, uint64_t h) {
  const pd_memo_entries *t = __atomic_load_n(&mo->table, __ATOMIC_ACQUIRE);
  const pd_memo_entry *e =
      t ? __atomic_load_n(&t->slot[pd__slot(t, h, key, n)].e, __ATOMIC_ACQUIRE) : NULL;
  return e ? e->mask : NULL;
}

/* Doubles the table (lock held); false past the bound or out of memory. */
static bool pd__grow(pd_memo *mo, const pd_allocator *a) {
  pd_memo_entries *old = mo->table;
  size_t n = old ? old->n * 2 : 64, cost = sizeof *old + n * sizeof *old->slot;
  if (mo->bytes + cost > mo->max_bytes) return false;
  pd_memo_entries *t = pd__calloc(a, 1, cost);
  if (!t) return false;
  t->n = n, t->older = old;
  if (old) PD_REHASH_BY(t->slot, n, old->slot, old->n, e);
  __atomic_store_n(&mo->table, t, __ATOMIC_RELEASE);
  mo->bytes += cost;
  return true;
}

const uint32_t *pd_memo_put(pd_memo *mo, const pd_allocator *a, const uint32_t *key, size_t n,
                            uint64_t h, const uint32_t *mask) {
  size_t cost = sizeof(pd_memo_entry) + (n + mo->n_words) * sizeof *key;
  pthread_mutex_lock(&mo->lock);
  const pd_memo_entry *had = mo->table ? mo->table->slot[pd__slot(mo->table, h, key, n)].e : NULL;
  const uint32_t *stored = had ? had->mask : NULL;
  bool room = !had && mo->bytes + cost <= mo->max_bytes &&
              ((mo->table && (mo->n_entries + 1) * 2 <= mo->table->n) || pd__grow(mo, a));
  pd_memo_entry *e = room ? pd__malloc(a, cost) : NULL;
  if (e) {
    e->n = n;
    e->key = (uint32_t *)(e + 1);
    e->mask = e->key + n;
    memcpy(e->key, key, n * sizeof *key);
    memcpy(e->mask, mask, mo->n_words * sizeof *mask);
    size_t i = pd__slot(mo->table, h, key, n);
    mo->table->slot[i].hash = h;
    __atomic_store_n(&mo->table->slot[i].e, e, __ATOMIC_RELEASE);
    mo->n_entries++;
    mo->bytes += cost;
    stored = e->mask;
  }
  pthread_mutex_unlock(&mo->lock);
  return stored;
}

/* ---------------------------------------------------------- transitions */

static size_t pd__link_slot(const pd_memo_links *t, const uint32_t *from, uint32_t token) {
  uint64_t h = (uint64_t)(uintptr_t)from * 0x9e3779b97f4a7c15u ^ token * 0xc2b2ae3d27d4eb4fu;
  h ^= h >> 31;
  size_t mask = t->n - 1, i = (size_t)h & mask;
  for (;; i = (i + 1) & mask) {
    const pd_memo_link *l = &t->slot[i];
    const uint32_t *f = __atomic_load_n(&l->from, __ATOMIC_ACQUIRE);
    if (!f || (f == from && l->token == token)) return i;
  }
}

const uint32_t *pd_memo_next(pd_memo *mo, const uint32_t *from, uint32_t token) {
  const pd_memo_links *t = __atomic_load_n(&mo->links, __ATOMIC_ACQUIRE);
  if (!t) return NULL;
  const pd_memo_link *l = &t->slot[pd__link_slot(t, from, token)];
  return __atomic_load_n(&l->from, __ATOMIC_ACQUIRE) ? l->to : NULL;
}

/* Doubles the transition table (lock held); false past the bound or out of memory. */
static bool pd__grow_links(pd_memo *mo, const pd_allocator *a) {
  pd_memo_links *old = mo->links;
  size_t n = old ? old->n * 2 : 256, cost = sizeof *old + n * sizeof *old->slot;
  if (mo->bytes + cost > mo->max_bytes) return false;
  pd_memo_links *t = pd__calloc(a, 1, cost);
  if (!t) return false;
  t->n = n, t->older = old;
  for (size_t i = 0; old && i < old->n; i++)
    if (old->slot[i].from) t->slot[pd__link_slot(t, old->slot[i].from, old->slot[i].token)] =
                               old->slot[i];
  __atomic_store_n(&mo->links, t, __ATOMIC_RELEASE);
  mo->bytes += cost;
  return true;
}

void pd_memo_link_put(pd_memo *mo, const pd_allocator *a, const uint32_t *from, uint32_t token,
                      const uint32_t *to) {
  pthread_mutex_lock(&mo->lock);
  if ((mo->links && (mo->n_linked + 1) * 2 <= mo->links->n) || pd__grow_links(mo, a)) {
    pd_memo_link *l = &mo->links->slot[pd__link_slot(mo->links, from, token)];
    if (!l->from) {
      l->to = to, l->token = token;
      __atomic_store_n(&l->from, from, __ATOMIC_RELEASE); /* published last */
      mo->n_linked++;
    }
  }
  pthread_mutex_unlock(&mo->lock);
}
