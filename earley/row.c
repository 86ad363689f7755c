/* row.c - building Earley rows: scan, complete, predict (the hot loop). */
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "earley.h"
#include "masks/vocab.h"

#define PD__NONE UINT32_MAX

/* Starts the dedup table for a new row (generation stamps; no clearing). */
static void pd__new_generation(pd_matcher *m) {
  if (++m->gen == 0) {
    memset(m->stamp, 0, m->g->pda.n_states * sizeof *m->stamp);
    if (m->hstamp) memset(m->hstamp, 0, ((size_t)1 << m->hbits) * sizeof *m->hstamp);
    m->gen = 1;
  }
  pd_array_clear(&m->chain);
  m->hashed = false;
}

/* A state's chain of origins in a row walked before the row's items go to a
 * hash table as well: an ambiguous grammar puts one state in a row with many
 * origins, and walking its chain at every add was most of the time
 * (fuzz_matcher found a random grammar where 42 bytes took 0.8 s, 15 chain
 * steps an add; 0.2 s with the table). Chains stay whole either way. */
#define PD__CHAIN_MAX 8u

/* The slot of key in the row's table: where it is, or the free one it would take. */
static size_t pd__hash_slot(const pd_matcher *m, uint64_t key) {
  size_t mask = ((size_t)1 << m->hbits) - 1;
  size_t i = (size_t)((key * 0x9e3779b97f4a7c15u) >> (64 - m->hbits));
  for (; m->hstamp[i] == m->gen && m->hkey[i] != key; i = (i + 1) & mask) {
  }
  return i;
}

static void pd__hash_put(pd_matcher *m, uint32_t state, uint32_t origin) {
  uint64_t key = (uint64_t)state << 32 | origin;
  size_t i = pd__hash_slot(m, key);
  m->hstamp[i] = m->gen;
  m->hkey[i] = key;
}

/* Puts the row's items (from start on) in the table, made or grown to at
 * least 4 slots an item (one more item counted); false out of memory, and
 * then the row has no table (its chains are whole). */
static __attribute__((noinline)) bool pd__hash_row(pd_matcher *m, size_t start) {
  size_t want = 4 * (m->items.len - start + 1);
  uint32_t bits = m->hbits ? m->hbits : 10;
  while (((size_t)1 << bits) < want) bits++;
  if (bits != m->hbits) {
    pd__free(m->alloc, m->hkey);
    pd__free(m->alloc, m->hstamp);
    m->hkey = pd__malloc(m->alloc, ((size_t)1 << bits) * sizeof *m->hkey);
    m->hstamp = pd__calloc(m->alloc, (size_t)1 << bits, sizeof *m->hstamp);
    m->hbits = m->hkey && m->hstamp ? bits : 0;
    m->hashed = false;
    if (!m->hbits) return false;
  }
  if (!m->hashed)
    for (size_t i = start; i < m->items.len; i++)
      pd__hash_put(m, m->items.data[i].state, m->items.data[i].origin);
  m->hashed = true;
  return true;
}

/* Puts a new item in the row's table, grown first when a quarter full. */
static __attribute__((noinline)) bool pd__hash_add(pd_matcher *m, size_t start, uint32_t state,
                                                   uint32_t origin) {
  if (4 * (m->items.len - start + 1) > (size_t)1 << m->hbits && !pd__hash_row(m, start))
    return false;
  pd__hash_put(m, state, origin);
  return true;
}

/* Grows counts to the capacity of items (a grammar with counted rules). */
static __attribute__((noinline)) bool pd__counts_room(pd_matcher *m) {
  size_t cap = m->items.cap;
  uint32_t *c = pd__realloc(m->alloc, m->counts, cap * sizeof *c);
  if (!c) return false;
  m->counts = c, m->counts_cap = cap;
  return true;
}

/* Appends (state, origin) with its count to the row, prev the last item of its state. */
static inline __attribute__((always_inline)) pd_status pd__push(pd_matcher *m, size_t start,
                                                                uint32_t state, uint32_t origin,
                                                                uint32_t count, uint32_t prev) {
  if (m->items.len - start >= m->max_items) return PD_ERR_LIMIT;
  if (!pd_array_reserve(m->alloc, &m->items, 1) || !pd_array_reserve(m->alloc, &m->chain, 1))
    return PD_ERR_NOMEM;
  if (m->g->pda.n_counted | m->g->pda.n_set) {
    if (m->counts_cap < m->items.cap && !pd__counts_room(m)) return PD_ERR_NOMEM;
    m->counts[m->items.len] = count;
  }
  if (__builtin_expect(m->hashed, 0) && !pd__hash_add(m, start, state, origin))
    return PD_ERR_NOMEM;
  m->chain.data[m->chain.len++] = prev;
  m->head[state] = (uint32_t)m->items.len;
  m->stamp[state] = m->gen;
  m->items.data[m->items.len++] = (pd_earley_item){state, origin};
  return PD_OK;
}

/* pd__add for a state whose chain is long: the table decides. */
static __attribute__((noinline)) pd_status pd__add_long(pd_matcher *m, size_t start,
                                                        uint32_t state, uint32_t origin,
                                                        uint32_t count) {
  if (!m->hashed && !pd__hash_row(m, start)) return PD_ERR_NOMEM;
  if (m->hstamp[pd__hash_slot(m, (uint64_t)state << 32 | origin)] == m->gen) return PD_OK;
  return pd__push(m, start, state, origin, count, m->head[state]);
}

/* Adds (state, origin) to the row starting at item index start unless present;
 * count is the item's (earley.h; 0 outside counted and set rules). The items
 * of a set rule are told apart by their sets too, along the whole chain (the
 * table knows no sets). */
static pd_status pd__add(pd_matcher *m, size_t start, uint32_t state, uint32_t origin,
                         uint32_t count) {
  uint32_t prev = PD__NONE;
  if (m->stamp[state] == m->gen) {
    prev = m->head[state];
    uint32_t steps = 0;
    bool set = m->sets && (m->states[state].flags & PD_STATE_SET);
    for (uint32_t i = prev; i != PD__NONE; i = m->chain.data[i - start]) {
      if (m->items.data[i].origin == origin && (!set || m->counts[i] == count)) return PD_OK;
      if (++steps == PD__CHAIN_MAX && !set) return pd__add_long(m, start, state, origin, count);
    }
  }
  return pd__push(m, start, state, origin, count, prev);
}

/* Whether item i, in state st, may end its rule: a set rule's once every
 * member it needs has completed. */
static inline bool pd__may_end(const pd_matcher *m, size_t i, const pd_pda_state *st) {
  if (!(st->flags & PD_STATE_SET)) return true;
  uint32_t need = m->rules[st->rule].set_need;
  return (m->counts[i] & need) == need;
}

/* The set of item i (a set rule's) once rule callee completes into it: false
 * when callee is a member completed before. */
static inline bool pd__set_after(const pd_matcher *m, size_t i, uint32_t callee, uint32_t *set) {
  uint32_t bit = m->rules[callee].set_bit;
  *set = m->counts[i];
  if (!bit) return true;
  if (*set >> (bit - 1) & 1) return false;
  *set |= 1u << (bit - 1);
  return true;
}

/* Item (rule finished, origin o): advance every caller of rule waiting in row o. */
static pd_status pd__complete(pd_matcher *m, size_t start, uint32_t rule, uint32_t o) {
  size_t a = m->rows.data[o], e = m->rows.data[o + 1];
  uint32_t n;
  const pd_earley_call *c = pd_earley_calls_to(m, o, rule, &n);
  for (uint32_t i = 0; c && i < n; i++) {
    uint32_t set = 0;
    if (c[i].rule != rule || (m->sets && (m->states[c[i].to].flags & PD_STATE_SET) &&
                              !pd__set_after(m, a + c[i].at, rule, &set)))
      continue;
    pd_status s = pd__add(m, start, c[i].to, c[i].origin, set);
    if (s) return s;
  }
  if (c) return PD_OK;
  for (size_t i = a; i < e; i++) {
    pd_earley_item it = m->items.data[i];
    const pd_pda_state *st = &m->states[it.state];
    if (!st->n_call) continue;
    const pd_pda_edge *call = pd_pda_call_to(m->edges, st, rule);
    uint32_t set = 0;
    if (!call || ((st->flags & PD_STATE_SET) && !pd__set_after(m, i, rule, &set))) continue;
    pd_status s = pd__add(m, start, call->to, it.origin, set);
    if (s) return s;
  }
  return PD_OK;
}

/* Closes the current row over its items from index from on (complete + predict;
 * nullable callees are stepped over at prediction time: Aycock-Horspool). */
static pd_status pd__closure(pd_matcher *m, size_t from) {
  uint32_t row = (uint32_t)m->rows.len - 1;
  size_t start = m->rows.data[row];
  for (size_t i = from; i < m->items.len; i++) {
    pd_earley_item it = m->items.data[i];
    const pd_pda_state *st = &m->states[it.state];
    pd_status s;
    if ((st->flags & PD_STATE_FINAL) && it.origin < row && pd__may_end(m, i, st) &&
        (s = pd__complete(m, start, st->rule, it.origin)))
      return s;
    const pd_pda_edge *e = m->edges + st->edges + st->n_byte;
    for (uint32_t k = 0; k < st->n_call; k++) {
      const pd_pda_rule *callee = &m->rules[e[k].arg];
      uint32_t set = 0; /* a member written before is not predicted again */
      if ((st->flags & PD_STATE_SET) && !pd__set_after(m, i, e[k].arg, &set)) continue;
      if ((s = pd__add(m, start, callee->start, row, 0))) return s;
      if ((callee->flags & PD_RULE_NULLABLE) && (s = pd__add(m, start, e[k].to, it.origin, set)))
        return s;
    }
  }
  return PD_OK;
}

/* Opens a new empty row. */
static pd_status pd__open_row(pd_matcher *m) {
  if (m->rows.len >= UINT32_MAX - 1 || m->items.len >= UINT32_MAX - m->max_items)
    return PD_ERR_LIMIT;
  if (!pd_array_reserve(m->alloc, &m->row_ids, 1) ||
      !pd_array_push(m->alloc, &m->rows, (uint32_t)m->items.len))
    return PD_ERR_NOMEM;
  m->row_ids.data[m->row_ids.len++] = m->next_row_id++;
  pd__new_generation(m);
  return PD_OK;
}

/* Drops the row being built and reports s. */
static pd_status pd__abandon(pd_matcher *m, pd_status s) {
  pd_earley_pop(m, 1);
  return s;
}

pd_status pd_earley_push_byte(pd_matcher *m, uint8_t byte) {
  uint32_t prev = (uint32_t)m->rows.len - 1;
  size_t a = m->rows.data[prev], e = m->items.len;
  pd_status s = pd__open_row(m);
  if (s) return s;
  for (size_t i = a; i < e; i++) {
    pd_earley_item it = m->items.data[i];
    const pd_pda_state *st = &m->states[it.state];
    uint32_t count = 0;
    if (m->counts) { /* a counted rule's item: a unit begins where it leaves a unit start */
      if (!pd_earley_may_leave(m, i)) continue;
      count = m->counts[i] + ((st->flags & PD_STATE_UNIT_START) != 0);
    }
    uint32_t to = pd_pda_byte_target(m->edges, st, byte);
    if (to != UINT32_MAX && (s = pd__add(m, e, to, it.origin, count))) return pd__abandon(m, s);
  }
  if (m->items.len == e) return pd__abandon(m, PD_ERR_REJECTED);
  s = pd__closure(m, e);
  return s ? pd__abandon(m, s) : PD_OK;
}

bool pd_earley_scans(const pd_matcher *m, uint8_t byte) {
  size_t n;
  const pd_earley_item *it = pd_earley_current(m, &n);
  size_t first = (size_t)(it - m->items.data);
  for (size_t i = 0; i < n; i++) {
    if (pd_earley_may_leave(m, first + i) &&
        pd_pda_byte_target(m->edges, &m->states[it[i].state], byte) != UINT32_MAX)
      return true;
  }
  return false;
}

/* Re-enters the current row into the dedup table so items can be added to it. */
static pd_status pd__restamp(pd_matcher *m) {
  size_t start = m->rows.data[m->rows.len - 1];
  pd__new_generation(m);
  if (!pd_array_reserve(m->alloc, &m->chain, m->items.len - start)) return PD_ERR_NOMEM;
  for (size_t i = start; i < m->items.len; i++) {
    uint32_t st = m->items.data[i].state;
    m->chain.data[m->chain.len++] = m->stamp[st] == m->gen ? m->head[st] : PD__NONE;
    m->head[st] = (uint32_t)i;
    m->stamp[st] = m->gen;
  }
  return PD_OK;
}

static bool pd__token_edge_ok(const pd_pda_edge *e, uint32_t id) {
  return e->neg ? e->arg != id : e->arg == id;
}

/* Adds the targets of row src's token edges matching id to the current row. */
static pd_status pd__token_seeds(pd_matcher *m, uint32_t src, uint32_t id) {
  size_t n, start = m->rows.data[m->rows.len - 1];
  const pd_earley_item *items = pd_earley_row(m, src, &n);
  size_t first = items - m->items.data;
  for (size_t i = first; i < first + n; i++) {
    pd_earley_item it = m->items.data[i];
    const pd_pda_state *st = &m->states[it.state];
    const pd_pda_edge *e = m->edges + st->edges + st->n_byte + st->n_call;
    for (uint32_t k = 0; k < st->n_token; k++) {
      if (!pd__token_edge_ok(&e[k], id)) continue;
      pd_status s = pd__add(m, start, e[k].to, it.origin, 0);
      if (s) return s;
    }
  }
  return PD_OK;
}

/* Pushes the bytes of a token; *ok tells whether they all went in. */
static pd_status pd__push_text(pd_matcher *m, const uint8_t *b, size_t len, uint32_t *pushed,
                               bool *ok) {
  *ok = true;
  for (size_t i = 0; i < len; i++) {
    pd_status s = pd_earley_push_byte(m, b[i]);
    if (s == PD_OK) {
      ++*pushed;
      continue;
    }
    pd_earley_pop(m, *pushed);
    *pushed = 0;
    *ok = false;
    if (s != PD_ERR_REJECTED) return s;
    break;
  }
  return PD_OK;
}

/* Token-edge results into the last row of the text path (extended) or into a
 * fresh row (copying the source row when the token had no bytes). */
static pd_status pd__push_token_edges(pd_matcher *m, uint32_t src, uint32_t id, bool text_ok,
                                      uint32_t *pushed) {
  pd_status s;
  size_t from;
  if (text_ok && *pushed) {
    from = m->items.len;
    if ((s = pd__restamp(m)) || (s = pd__token_seeds(m, src, id)) ||
        (s = pd__closure(m, from))) {
      m->items.len = from; /* back to the text path's row */
      return s;
    }
    return PD_OK;
  }
  if ((s = pd__open_row(m))) return s;
  from = m->items.len;
  size_t n, a = m->rows.data[src];
  pd_earley_row(m, src, &n);
  for (size_t i = a; text_ok && i < a + n && !s; i++)
    s = pd__add(m, from, m->items.data[i].state, m->items.data[i].origin,
                m->counts ? m->counts[i] : 0);
  if (!s) s = pd__token_seeds(m, src, id);
  if (!s && m->items.len == from) s = PD_ERR_REJECTED;
  if (!s) s = pd__closure(m, from);
  if (s) return pd__abandon(m, s);
  *pushed = 1;
  return PD_OK;
}

pd_status pd_earley_push_token(pd_matcher *m, uint32_t id, uint32_t *pushed) {
  const pd_vocab *v = m->g->vocab;
  *pushed = 0;
  if (!v || id >= v->size) return PD_ERR_ARG;
  uint32_t flags = v->flags[id];
  if (flags & (PD_TOKEN_HOLE | PD_TOKEN_EOS)) return PD_ERR_REJECTED;
  uint32_t src = (uint32_t)m->rows.len - 1;
  bool text_ok = false;
  if (!(flags & PD_TOKEN_SPECIAL)) {
    pd_status s = pd__push_text(m, v->bytes + v->offs[id], v->offs[id + 1] - v->offs[id], pushed,
                                &text_ok);
    if (s) return s;
  }
  if (!m->g->pda.n_token_edges || !pd_earley_token_edge_matches_row(m, src, id))
    return text_ok ? PD_OK : PD_ERR_REJECTED;
  pd_status s = pd__push_token_edges(m, src, id, text_ok, pushed);
  if (s && *pushed) {
    pd_earley_pop(m, *pushed);
    *pushed = 0;
  }
  return s;
}

bool pd_earley_token_edge_matches_row(const pd_matcher *m, uint32_t row, uint32_t id) {
  size_t n;
  const pd_earley_item *it = pd_earley_row(m, row, &n);
  for (size_t i = 0; i < n; i++) {
    const pd_pda_state *st = &m->states[it[i].state];
    const pd_pda_edge *e = m->edges + st->edges + st->n_byte + st->n_call;
    for (uint32_t k = 0; k < st->n_token; k++)
      if (pd__token_edge_ok(&e[k], id)) return true;
  }
  return false;
}

bool pd_earley_token_edge_matches(const pd_matcher *m, uint32_t id) {
  return pd_earley_token_edge_matches_row(m, (uint32_t)m->rows.len - 1, id);
}

bool pd_earley_accepting(const pd_matcher *m) {
  size_t n;
  const pd_earley_item *it = pd_earley_current(m, &n);
  for (size_t i = 0; i < n; i++) {
    const pd_pda_state *st = &m->states[it[i].state];
    if (it[i].origin == 0 && st->rule == m->root && (st->flags & PD_STATE_FINAL) &&
        pd__may_end(m, (size_t)(it - m->items.data) + i, st))
      return true;
  }
  return false;
}

void pd_earley_live(const pd_matcher *m, uint32_t bytes[8], bool *any_token) {
  size_t n;
  const pd_earley_item *it = pd_earley_current(m, &n);
  memset(bytes, 0, 8 * sizeof *bytes);
  bool tok = false;
  size_t first = (size_t)(it - m->items.data);
  for (size_t i = 0; i < n; i++) {
    const pd_pda_state *st = &m->states[it[i].state];
    tok |= st->n_token > 0;
    if (pd_earley_may_leave(m, first + i)) pd_pda_state_bytes(m->edges, st, bytes);
  }
  if (any_token) *any_token = tok;
}

/* Row 0: the root predicted at origin 0, closed. */
pd_status pd_earley_start(pd_matcher *m) {
  pd_array_clear(&m->rows);
  pd_array_clear(&m->row_ids);
  pd_array_clear(&m->items);
  pd_status s = pd__open_row(m);
  if (!s) s = pd__add(m, 0, m->rules[m->root].start, 0, 0);
  if (!s) s = pd__closure(m, 0);
  if (s) pd_array_clear(&m->rows), pd_array_clear(&m->row_ids);
  return s;
}
