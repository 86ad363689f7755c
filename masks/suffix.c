/* suffix.c - the suffix memo of a candidate walk (see suffix.h). */
#include "suffix.h"

#include <string.h>

#include "base/alloc.h"
#include "base/bits.h"

#define PD__KEY_WORDS (2 + 3 * PD_SUFFIX_MAX_ITEMS + PD_SUFFIX_MAX_REST / 4)
#define PD__SLOTS 1024u         /* first table; grows to PD__MAX_SLOTS */
#define PD__MAX_SLOTS 32768u    /* a walk past this many suffixes stops caching */

void pd_suffix_init(pd_suffix_memo *sm, const pd_matcher *m, bool always) {
  memset(sm, 0, sizeof *sm);
  sm->always = always;
  sm->alloc = m->alloc;
  sm->base = pd_earley_num_rows(m) - 1;
}

void pd_suffix_free(pd_suffix_memo *sm) {
  pd__free(sm->alloc, sm->slots);
  pd_array_free(sm->alloc, &sm->entries);
  pd_array_free(sm->alloc, &sm->pool);
}

bool pd_suffix_keyable(const pd_suffix_memo *sm, const pd_matcher *m, uint32_t row) {
  size_t n;
  const pd_earley_item *it = pd_earley_row(m, row, &n);
  if (n > PD_SUFFIX_MAX_ITEMS) return false;
  for (size_t i = 0; i < n; i++)
    if (it[i].origin > sm->base && it[i].origin != row) return false;
  return true;
}

/* key = [n, (state, origin[, count]) x n, len, rest packed little-endian 4 bytes
 * a word]; the count (earley.h) when the grammar has counted rules */
static uint32_t pd__key(const pd_matcher *m, uint32_t row, const uint8_t *rest, uint32_t n,
                        uint32_t *key) {
  size_t k;
  const pd_earley_item *it = pd_earley_row(m, row, &k);
  uint32_t w = 0;
  key[w++] = (uint32_t)k;
  size_t first = (size_t)(it - m->items.data);
  for (size_t i = 0; i < k; i++) { /* an item predicted in row itself: its origin is row */
    key[w++] = it[i].state, key[w++] = it[i].origin == row ? UINT32_MAX : it[i].origin;
    if (m->counts) key[w++] = m->counts[first + i];
  }
  key[w++] = n;
  for (uint32_t i = 0; i < n; i += 4) {
    uint32_t x = 0;
    for (uint32_t j = 0; j < 4 && i + j < n; j++) x |= (uint32_t)rest[i + j] << (8 * j);
    key[w++] = x;
  }
  return w;
}

/* The slot of key: its entry's, or the empty one where it would go. */
static size_t pd__probe(const pd_suffix_memo *sm, const uint32_t *key, uint32_t n, uint64_t h) {
  size_t mask = sm->n_slots - 1, i = (size_t)h & mask;
  for (; sm->slots[i]; i = (i + 1) & mask) {
    const pd_suffix_entry *e = &sm->entries.data[sm->slots[i] - 1];
    if (e->hash == h && e->n == n && !memcmp(sm->pool.data + e->off, key, n * sizeof *key))
      return i;
  }
  return i;
}

bool pd_suffix_find(const pd_suffix_memo *sm, const pd_matcher *m, uint32_t row,
                    const uint8_t *rest, uint32_t n, bool *taken, uint32_t *alive) {
  if (!sm->n_slots || n > PD_SUFFIX_MAX_REST) return false;
  uint32_t key[PD__KEY_WORDS], k = pd__key(m, row, rest, n, key);
  size_t i = pd__probe(sm, key, k, pd_hash_words(key, k));
  if (!sm->slots[i]) return false;
  const pd_suffix_entry *e = &sm->entries.data[sm->slots[i] - 1];
  *taken = e->taken;
  *alive = e->alive;
  return true;
}

/* Doubles the table (or makes the first); false when it cannot. */
static bool pd__grow(pd_suffix_memo *sm) {
  size_t n = sm->n_slots ? sm->n_slots * 2 : PD__SLOTS;
  if (n > PD__MAX_SLOTS) return false;
  uint32_t *slots = pd__malloc(sm->alloc, n * sizeof *slots);
  if (!slots) return false;
  memset(slots, 0, n * sizeof *slots);
  for (size_t e = 0; e < sm->entries.len; e++) {
    size_t i = (size_t)sm->entries.data[e].hash & (n - 1);
    while (slots[i]) i = (i + 1) & (n - 1);
    slots[i] = (uint32_t)e + 1;
  }
  pd__free(sm->alloc, sm->slots);
  sm->slots = slots;
  sm->n_slots = n;
  return true;
}

void pd_suffix_put(pd_suffix_memo *sm, const pd_matcher *m, uint32_t row, const uint8_t *rest,
                   uint32_t n, bool taken, uint32_t alive) {
  if (sm->off || n > PD_SUFFIX_MAX_REST) return;
  if (sm->entries.len + 1 > sm->n_slots / 2 && !pd__grow(sm)) {
    sm->off = true;
    return;
  }
  uint32_t key[PD__KEY_WORDS], k = pd__key(m, row, rest, n, key);
  uint64_t h = pd_hash_words(key, k);
  size_t i = pd__probe(sm, key, k, h);
  if (sm->slots[i]) return;
  pd_suffix_entry e = {h, (uint32_t)sm->pool.len, k, alive, taken};
  if (sm->pool.len > UINT32_MAX - k || !pd_array_reserve(sm->alloc, &sm->pool, k) ||
      !pd_array_push(sm->alloc, &sm->entries, e)) {
    sm->off = true;
    return;
  }
  memcpy(sm->pool.data + sm->pool.len, key, k * sizeof *key);
  sm->pool.len += k;
  sm->slots[i] = (uint32_t)sm->entries.len;
}
