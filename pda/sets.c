/* sets.c - interned sets of NFA states (sets.h). */
#include "sets.h"

#include <string.h>

#include "base/alloc.h"
#include "base/bits.h"
#include "base/error.h"
#include "base/sort.h"

/* Doubles the table when it is half full. */
static bool pd__grow(pd_sets *s) {
  if (s->cap && s->sets.len * 2 < s->cap) return true;
  size_t cap = s->cap ? s->cap * 2 : 64;
  uint32_t *t = pd__calloc(s->a, cap, sizeof *t);
  if (!t) return false;
  for (size_t k = 0; k < s->sets.len; k++) {
    const pd_set_span *sp = &s->sets.data[k];
    size_t i = pd_hash_words(s->pool.data + sp->off, sp->len) & (cap - 1);
    while (t[i]) i = (i + 1) & (cap - 1);
    t[i] = (uint32_t)k + 1;
  }
  pd__free(s->a, s->table);
  s->table = t;
  s->cap = cap;
  return true;
}

pd_status pd_sets_intern(pd_sets *s, size_t base, uint32_t *id, pd_error *err) {
  if (!pd__grow(s)) return pd__nomem(err);
  uint32_t len = (uint32_t)(s->pool.len - base);
  const uint32_t *m = s->pool.data + base;
  size_t i = pd_hash_words(m, len) & (s->cap - 1);
  for (; s->table[i]; i = (i + 1) & (s->cap - 1)) {
    const pd_set_span *sp = &s->sets.data[s->table[i] - 1];
    if (sp->len == len && !memcmp(s->pool.data + sp->off, m, len * sizeof *m)) {
      s->pool.len = base;
      *id = s->table[i] - 1;
      return PD_OK;
    }
  }
  if (s->sets.len >= s->limit)
    return pd__fail(err, PD_ERR_LIMIT, "grammar needs more than the allowed automaton states");
  if (!pd_array_push(s->a, &s->sets, ((pd_set_span){(uint32_t)base, len}))) return pd__nomem(err);
  s->table[i] = (uint32_t)s->sets.len;
  *id = (uint32_t)s->sets.len - 1;
  return PD_OK;
}

bool pd_sets_sort_tail(pd_sets *s, size_t base) {
  size_t len = s->pool.len - base;
  uint32_t *p = s->pool.data + base;
  if (len > 24) { /* a radix sort: qsort's calls were a sixth of a large product's time */
    if (!pd_array_reserve(s->a, &s->tmp, len)) return false;
    pd_sort_u32(p, len, s->tmp.data);
    return true;
  }
  for (size_t i = 1; i < len; i++) { /* most closures are a handful of states */
    uint32_t x = p[i];
    size_t j = i;
    for (; j && p[j - 1] > x; j--) p[j] = p[j - 1];
    p[j] = x;
  }
  return true;
}

void pd_sets_free(pd_sets *s) {
  pd_array_free(s->a, &s->pool);
  pd_array_free(s->a, &s->sets);
  pd_array_free(s->a, &s->tmp);
  pd__free(s->a, s->table);
  s->table = NULL;
  s->cap = 0;
}
