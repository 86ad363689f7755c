/* rule_cache.c - finished rule automata kept across grammars (see rule_cache.h). */
#include "rule_cache.h"

#include <pthread.h>
#include <string.h>

#include "base/alloc.h"
#include "base/bits.h"
#include "masks/vocab.h"

typedef struct pd__entry {
  uint64_t hash;
  uint32_t n_words, n_slots, n_states, n_edges;
  uint32_t *words;      /* the key */
  pd_pda_state *states; /* rule 0, edges from 0 */
  pd_pda_edge *edges;   /* to: from the rule's start; CALL arg: a slot */
} pd__entry;

struct pd_rule_cache {
  const pd_allocator *a; /* the vocab's: entries outlive the grammars that made them */
  pthread_mutex_t lock;  /* writers; readers load published slots */
  pd__entry **slot;      /* open addressing, n_slot (a power of two) */
  size_t n_slot, n_entries, bytes, max_bytes;
};

#define PD__SLOTS 65536u /* fixed (512 KiB): a full table takes no more entries */

static pd_rule_cache *pd__cache_new(const pd_allocator *a, size_t max_bytes) {
  pd_rule_cache *c = pd__calloc(a, 1, sizeof *c);
  if (!c) return NULL;
  c->slot = pd__calloc(a, PD__SLOTS, sizeof *c->slot);
  if (!c->slot || pthread_mutex_init(&c->lock, NULL) != 0) {
    pd__free(a, c->slot);
    pd__free(a, c);
    return NULL;
  }
  c->a = a;
  c->max_bytes = max_bytes;
  c->n_slot = PD__SLOTS;
  c->bytes = sizeof *c + PD__SLOTS * sizeof *c->slot;
  return c;
}

pd_rule_cache *pd_rule_cache_get(pd_vocab *v) {
  pd_rule_cache *c = __atomic_load_n(&v->rule_cache, __ATOMIC_ACQUIRE);
  if (c) return c;
  if (!(c = pd__cache_new(v->alloc, v->rule_cache_bytes ? v->rule_cache_bytes
                                                        : PD_RULE_CACHE_MAX_BYTES)))
    return NULL;
  pd_rule_cache *expected = NULL;
  if (!__atomic_compare_exchange_n(&v->rule_cache, &expected, c, false, __ATOMIC_ACQ_REL,
                                   __ATOMIC_ACQUIRE)) {
    pd_rule_cache_free(c, v->alloc); /* another thread published first */
    c = expected;
  }
  return c;
}

void pd_rule_cache_free(pd_rule_cache *c, const pd_allocator *a) {
  if (!c) return;
  for (size_t i = 0; i < c->n_slot; i++) pd__free(a, c->slot[i]);
  pd__free(a, c->slot);
  pthread_mutex_destroy(&c->lock);
  pd__free(a, c);
}

/* ------------------------------------------------------------------ key */

typedef struct pd__keyb {
  const pd_ir *w;
  const uint32_t *inl;
  pd_rule_key *k;
  const pd_allocator *a;
  bool oom;
} pd__keyb;

static void pd__put(pd__keyb *b, const uint32_t *x, size_t n) {
  pd_rule_key *k = b->k;
  if (k->over || b->oom) return;
  if (k->words.len + n > PD_RULE_KEY_MAX_WORDS) {
    k->over = true;
    return;
  }
  if (!pd_array_reserve(b->a, &k->words, n)) {
    b->oom = true;
    return;
  }
  memcpy(k->words.data + k->words.len, x, n * sizeof *x);
  k->words.len += n;
}

static uint32_t pd__slot_of(pd__keyb *b, uint32_t rule) {
  pd_rule_key *k = b->k;
  for (uint32_t i = 0; i < k->slots.len; i++)
    if (k->slots.data[i] == rule) return i;
  if (!pd_array_push(b->a, &k->slots, rule)) b->oom = true;
  return (uint32_t)k->slots.len - 1;
}

/* Node by node, each as (kind | negated << 8, n) and then what pd__build in
 * nfa.c reads of it; a copied-in callee is written out in place, a called one
 * as its slot. */
static void pd__write(pd__keyb *b, uint32_t node, int depth) {
  const pd_ir_node *nd = pd_ir_at(b->w, node);
  if (depth > PD_PDA_MAX_NESTING) {
    b->k->over = true;
    return;
  }
  uint32_t head[4] = {(uint32_t)nd->kind | (uint32_t)nd->negated << 8, nd->n, 0, 0};
  switch ((pd_ir_kind)nd->kind) {
    case PD_IR_BYTES: {
      pd__put(b, head, 2);
      for (uint32_t i = 0; i < nd->n; i += 4) {
        uint32_t x = 0;
        memcpy(&x, b->w->bytes.data + nd->off + i, nd->n - i < 4 ? nd->n - i : 4);
        pd__put(b, &x, 1);
      }
      return;
    }
    case PD_IR_CLASS:
      pd__put(b, head, 2);
      pd__put(b, b->w->ranges.data + nd->off, 2 * (size_t)nd->n);
      return;
    case PD_IR_SEQ:
    case PD_IR_ALT:
      pd__put(b, head, 2);
      for (uint32_t i = 0; i < nd->n && !b->k->over; i++)
        pd__write(b, b->w->kids.data[nd->off + i], depth + 1);
      return;
    case PD_IR_REPEAT:
      head[2] = nd->off;
      pd__put(b, head, 3);
      pd__write(b, nd->a, depth + 1);
      return;
    case PD_IR_DIFF:
    case PD_IR_AND:
      pd__put(b, head, 2);
      pd__write(b, nd->a, depth + 1);
      pd__write(b, nd->off, depth + 1);
      return;
    case PD_IR_REF:
      if (b->inl && b->inl[nd->a] != PD_IR_NONE) {
        head[2] = 1; /* copied in */
        pd__put(b, head, 3);
        pd__write(b, b->w->rules.data[nd->a].body, depth + 1);
      } else {
        head[3] = pd__slot_of(b, nd->a);
        pd__put(b, head, 4);
      }
      return;
    case PD_IR_TOKEN: head[2] = nd->a; pd__put(b, head, 3); return;
    default: pd__put(b, head, 2); return; /* EMPTY, NOTHING */
  }
}

bool pd_rule_key_make(const pd_ir *w, const uint32_t *inl, uint32_t body, pd_rule_key *k,
                      const pd_allocator *a) {
  pd__keyb b = {w, inl, k, a, false};
  k->words.len = k->slots.len = 0;
  k->over = false;
  pd__write(&b, body, 0);
  if (!k->over && !b.oom) k->hash = pd_hash_words(k->words.data, k->words.len);
  return !b.oom;
}

void pd_rule_key_free(pd_rule_key *k, const pd_allocator *a) {
  pd_array_free(a, &k->words);
  pd_array_free(a, &k->slots);
}

/* --------------------------------------------------------------- lookup */

/* The slot of k's entry, or of the empty slot where it would go (lock held or
 * not: published entries never change); SIZE_MAX when the table is full. */
static size_t pd__find(const pd_rule_cache *c, const pd_rule_key *k) {
  size_t mask = c->n_slot - 1, i = (size_t)k->hash & mask;
  for (size_t probes = 0; probes < c->n_slot; probes++, i = (i + 1) & mask) {
    const pd__entry *e = __atomic_load_n(&c->slot[i], __ATOMIC_ACQUIRE);
    if (!e || (e->hash == k->hash && e->n_words == k->words.len &&
               e->n_slots == k->slots.len &&
               !memcmp(e->words, k->words.data, k->words.len * sizeof *e->words)))
      return i;
  }
  return SIZE_MAX;
}

bool pd_rule_cache_take(pd_rule_cache *c, const pd_rule_key *k, pd_pda_builder *b, uint32_t r,
                        pd_status *st) {
  *st = PD_OK;
  if (k->over) return false;
  size_t i = pd__find(c, k);
  const pd__entry *e = i == SIZE_MAX ? NULL : __atomic_load_n(&c->slot[i], __ATOMIC_ACQUIRE);
  uint32_t start = (uint32_t)b->states.len, first = (uint32_t)b->edges.len;
  if (!e || e->n_states > b->max_states || start > b->max_states - e->n_states) return false;
  if (!pd_array_reserve(b->a, &b->states, e->n_states) ||
      !pd_array_reserve(b->a, &b->edges, e->n_edges)) {
    *st = PD_ERR_NOMEM;
    return false;
  }
  for (uint32_t s = 0; s < e->n_states; s++) {
    pd_pda_state x = e->states[s];
    x.rule = r, x.edges += first;
    b->states.data[b->states.len++] = x;
  }
  for (uint32_t j = 0; j < e->n_edges; j++) {
    pd_pda_edge x = e->edges[j];
    x.to += start;
    if (x.kind == PD_EDGE_CALL) x.arg = k->slots.data[x.arg];
    b->edges.data[b->edges.len++] = x;
  }
  for (uint32_t s = start; s < b->states.len; s++) { /* calls sorted by callee (pda.h) */
    if (b->states.data[s].n_call < 2) continue; /* (edges may be unallocated) */
    pd_pda_edge *x = b->edges.data + b->states.data[s].edges + b->states.data[s].n_byte;
    for (uint32_t m = 1; m < b->states.data[s].n_call; m++)
      for (uint32_t j = m; j && x[j - 1].arg > x[j].arg; j--) {
        pd_pda_edge t = x[j];
        x[j] = x[j - 1], x[j - 1] = t;
      }
  }
  b->rules.data[r] = (pd_pda_rule){.start = start, .n_states = e->n_states};
  return true;
}

void pd_rule_cache_put(pd_rule_cache *c, const pd_rule_key *k, const pd_pda_builder *b,
                       uint32_t r) {
  const pd_pda_rule *ru = &b->rules.data[r];
  if (k->over || ru->start + ru->n_states != b->states.len) return;
  uint32_t first = b->states.data[ru->start].edges, n_edges = (uint32_t)b->edges.len - first;
  size_t cost = sizeof(pd__entry) + k->words.len * sizeof(uint32_t) +
                ru->n_states * sizeof(pd_pda_state) + n_edges * sizeof(pd_pda_edge);
  const pd_allocator *a = c->a;
  pthread_mutex_lock(&c->lock);
  size_t i = c->bytes + cost <= c->max_bytes && 2 * (c->n_entries + 1) <= c->n_slot
                 ? pd__find(c, k)
                 : SIZE_MAX;
  pd__entry *e = i != SIZE_MAX && !c->slot[i] ? pd__malloc(a, cost) : NULL;
  if (e) {
    *e = (pd__entry){k->hash, (uint32_t)k->words.len, (uint32_t)k->slots.len, ru->n_states, n_edges,
                     NULL, NULL, NULL};
    e->states = (pd_pda_state *)(void *)(e + 1);
    e->edges = (pd_pda_edge *)(void *)(e->states + ru->n_states);
    e->words = (uint32_t *)(void *)(e->edges + n_edges);
    memcpy(e->words, k->words.data, k->words.len * sizeof *e->words);
    bool ok = true;
    for (uint32_t s = 0; s < ru->n_states; s++) {
      pd_pda_state x = b->states.data[ru->start + s];
      x.rule = 0, x.edges -= first;
      e->states[s] = x;
    }
    for (uint32_t j = 0; j < n_edges && ok; j++) {
      pd_pda_edge x = b->edges.data[first + j];
      x.to -= ru->start;
      if (x.kind == PD_EDGE_CALL) { /* every callee has a slot; if not, keep nothing */
        uint32_t s = 0;
        while (s < k->slots.len && k->slots.data[s] != x.arg) s++;
        ok = s < k->slots.len;
        x.arg = s;
      }
      e->edges[j] = x;
    }
    if (ok) {
      __atomic_store_n(&c->slot[i], e, __ATOMIC_RELEASE);
      c->n_entries++;
      c->bytes += cost;
    } else {
      pd__free(a, e);
    }
  }
  pthread_mutex_unlock(&c->lock);
}
