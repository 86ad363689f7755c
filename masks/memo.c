/* memo.c - whole-mask memoization by parser configuration (see memo.h). */
#include "memo.h"

#include <string.h>

#include "base/alloc.h"
#include "base/bits.h"
#include "base/error.h"
#include "earley/earley.h"

#define PD__MAX_ROWS 256u /* distinct rows / (row, rule) pairs in a key */

struct pd_memo_entry {
  uint64_t hash;
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
  pd_memo_entry *slot[];
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
  for (size_t i = 0; mo->table && i < mo->table->n; i++) pd__free(a, mo->table->slot[i]);
  for (pd_memo_entries *t = mo->table, *o; t; t = o) o = t->older, pd__free(a, t);
  for (pd_memo_links *t = mo->links, *o; t; t = o) o = t->older, pd__free(a, t);
  pthread_mutex_destroy(&mo->lock);
  memset(mo, 0, sizeof *mo);
}

/* ------------------------------------------------------------------ key */

typedef struct pd__keyb {
  uint32_t *key;
  size_t n;
  uint32_t rows[PD__MAX_ROWS]; /* discovered rows; number = index + 1 (row 0 is 0) */
  uint32_t n_rows;
  uint64_t exp[PD__MAX_ROWS]; /* (row, rule) to expand, as row << 32 | rule: one compare */
  uint32_t n_exp;
  bool full;
} pd__keyb;

static void pd__emit(pd__keyb *b, uint32_t w) {
  if (b->n == PD_MEMO_KEY_MAX) b->full = true;
  else b->key[b->n++] = w;
}

static uint32_t pd__rownum(pd__keyb *b, uint32_t row) {
  if (!row) return 0;
  for (uint32_t i = 0; i < b->n_rows; i++)
    if (b->rows[i] == row) return i + 1;
  if (b->n_rows == PD__MAX_ROWS) {
    b->full = true;
    return 0;
  }
  b->rows[b->n_rows++] = row;
  return b->n_rows;
}

/* Queues (row, rule): the callers of rule waiting in row. */
static void pd__expand(pd__keyb *b, uint32_t row, uint32_t rule) {
  uint64_t x = (uint64_t)row << 32 | rule;
  for (uint32_t i = 0; i < b->n_exp; i++)
    if (b->exp[i] == x) return;
  if (b->n_exp == PD__MAX_ROWS) {
    b->full = true;
    return;
  }
  b->exp[b->n_exp++] = x;
}

/* Whether state calls rule. A scan, not pd_pda_call_to's binary search: the
 * states of a row have a few call edges, and the search's branches mispredict. */
static bool pd__calls(const pd_matcher *m, uint32_t state, uint32_t rule) {
  const pd_pda_state *st = &m->states[state];
  const pd_pda_edge *e = m->edges + st->edges + st->n_byte;
  for (uint32_t c = 0; c < st->n_call; c++)
    if (e[c].arg == rule) return true;
  return false;
}

/* The callers of rule in row: (state, row#) each; queues their own callers. */
static void pd__emit_callers(const pd_matcher *m, pd__keyb *b, uint32_t row, uint32_t rule) {
  size_t n;
  const pd_earley_item *it = pd_earley_row(m, row, &n);
  size_t at = b->n;
  pd__emit(b, 0); /* count, patched below */
  uint32_t count = 0;
  for (size_t i = 0; i < n && !b->full; i++) {
    if (!pd__calls(m, it[i].state, rule)) continue;
    pd__emit(b, it[i].state);
    pd__emit(b, pd__rownum(b, it[i].origin));
    pd__expand(b, it[i].origin, m->states[it[i].state].rule);
    count++;
  }
  if (!b->full) b->key[at] = count;
}

bool pd_memo_key(const pd_matcher *m, uint32_t *key, size_t *n) {
  pd__keyb b;
  b.key = key;
  b.n = b.n_rows = b.n_exp = 0;
  b.full = false;
  uint32_t cur = pd_earley_num_rows(m) - 1;
  pd__rownum(&b, cur);
  size_t n_items;
  const pd_earley_item *it = pd_earley_current(m, &n_items);
  pd__emit(&b, (uint32_t)n_items);
  for (size_t i = 0; i < n_items && !b.full; i++) {
    pd__emit(&b, it[i].state);
    pd__emit(&b, pd__rownum(&b, it[i].origin));
    /* items predicted here complete into this row, which is in the key whole */
    if (it[i].origin != cur) pd__expand(&b, it[i].origin, m->states[it[i].state].rule);
  }
  for (uint32_t q = 0; q < b.n_exp && !b.full; q++) {
    uint32_t row = (uint32_t)(b.exp[q] >> 32), rule = (uint32_t)b.exp[q];
    pd__emit(&b, pd__rownum(&b, row));
    pd__emit(&b, rule);
    pd__emit_callers(m, &b, row, rule);
  }
  *n = b.n;
  return !b.full;
}

/* ---------------------------------------------------------------- table */

static size_t pd__slot(const pd_memo_entries *t, uint64_t h, const uint32_t *key, size_t n) {
  size_t mask = t->n - 1, i = (size_t)h & mask;
  for (;; i = (i + 1) & mask) {
    const pd_memo_entry *e = __atomic_load_n(&t->slot[i], __ATOMIC_ACQUIRE);
    if (!e || (e->hash == h && e->n == n && !memcmp(e->key, key, n * sizeof *key))) return i;
  }
}

const uint32_t *pd_memo_find(pd_memo *mo, const uint32_t *key, size_t n, uint64_t h) {
  const pd_memo_entries *t = __atomic_load_n(&mo->table, __ATOMIC_ACQUIRE);
  const pd_memo_entry *e = t ? __atomic_load_n(&t->slot[pd__slot(t, h, key, n)], __ATOMIC_ACQUIRE)
                             : NULL;
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
  for (size_t i = 0; old && i < old->n; i++)
    if (old->slot[i]) t->slot[pd__slot(t, old->slot[i]->hash, old->slot[i]->key, old->slot[i]->n)] =
                          old->slot[i];
  __atomic_store_n(&mo->table, t, __ATOMIC_RELEASE);
  mo->bytes += cost;
  return true;
}

const uint32_t *pd_memo_put(pd_memo *mo, const pd_allocator *a, const uint32_t *key, size_t n,
                            uint64_t h, const uint32_t *mask) {
  size_t cost = sizeof(pd_memo_entry) + (n + mo->n_words) * sizeof *key;
  pthread_mutex_lock(&mo->lock);
  const pd_memo_entry *had = mo->table ? mo->table->slot[pd__slot(mo->table, h, key, n)] : NULL;
  const uint32_t *stored = had ? had->mask : NULL;
  bool room = !had && mo->bytes + cost <= mo->max_bytes &&
              ((mo->table && (mo->n_entries + 1) * 2 <= mo->table->n) || pd__grow(mo, a));
  pd_memo_entry *e = room ? pd__malloc(a, cost) : NULL;
  if (e) {
    e->hash = h;
    e->n = n;
    e->key = (uint32_t *)(e + 1);
    e->mask = e->key + n;
    memcpy(e->key, key, n * sizeof *key);
    memcpy(e->mask, mask, mo->n_words * sizeof *mask);
    __atomic_store_n(&mo->table->slot[pd__slot(mo->table, h, key, n)], e, __ATOMIC_RELEASE);
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
