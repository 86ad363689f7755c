/* statekey.c - keys of states and interned closures of rules (statekey.h). */
#include "statekey.h"

#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/bits.h"
#include "base/error.h"
#include "masks/follow.h"

#define PD__KEY_STATE 0x53544b31u /* a state's key, callees by id */
#define PD__KEY_RULE 0x52554c31u  /* a rule's closure, interned */
#define PD__KEY_FULL 0x46554c31u  /* a state's key with every callee written out */
#define PD__KEY_PLACE 0x504c4331u /* a state's key by its place (pd_statekey_place) */
/* a state whose automaton written out passes this many words is keyed by its
 * place (statekey.h); at 256 classes that cost much to make were no longer
 * shared (MaskBench's mean mask went from 8 to 12 us); 384 and 512 kept them,
 * and 384 had the lower p99 */
#define PD__PLACE_WORDS 384u
#define PD__FAILED UINT32_MAX     /* id[r]: the cache could not intern r's closure */
#define PD__CHECKED 1
#define PD__GAVE_UP 2

typedef struct pd__frame {
  uint32_t rule, member, edge;
} pd__frame;

struct pd_statekey {
  const pd_allocator *a;
  const pd_pda_state *states;
  const pd_pda_edge *edges;
  const pd_pda_rule *rules;
  uint32_t n_states, n_rules;
  const uint32_t *follow;
  pd_mask_cache *c;
  PD_ARRAY(uint32_t) key, queue, rqueue;
  uint32_t *canon, *rcanon; /* discovery numbers + 1 (0 = not yet seen) */
  /* the call graph (callees of rule r: adj[adj_at[r] .. adj_at[r+1])) and its
   * strongly connected components (members of X: members[scc_at[X] ..]) */
  uint32_t *adj_at, *adj, *scc, *scc_at, *members;
  /* per component: PD__CHECKED once its external callees all have ids,
   * PD__GAVE_UP once one is FAILED or a member's closure ran past
   * max_closure: every member's closure holds the whole component, so the
   * others would fail alike (a recursive schema's component of 3,685 rules
   * wrote up to 65,536 words for each) */
  uint8_t *scc_done;
  uint32_t *id; /* interned closure per rule; 0 = not yet */
  uint32_t *at; /* per state: its discovery number + 1 in its rule's closure; 0 = none */
  PD_ARRAY(pd__frame) stack;
};

pd_status pd_statekey_new(const pd_pda *p, const uint32_t *follow, pd_mask_cache *c,
                          const pd_allocator *a, pd_statekey **out, pd_error *err) {
  pd_statekey *k = pd__calloc(a, 1, sizeof *k);
  if (!k) return pd__nomem(err);
  *k = (pd_statekey){.a = a, .states = pd_pda_states(p), .edges = pd_pda_edges(p),
                     .rules = pd_pda_rules(p), .n_states = p->n_states, .n_rules = p->n_rules,
                     .follow = follow, .c = c};
  size_t ns = p->n_states ? p->n_states : 1, nr = p->n_rules ? p->n_rules : 1;
  k->canon = pd__calloc(a, ns, sizeof *k->canon);
  k->rcanon = pd__calloc(a, nr, sizeof *k->rcanon);
  k->id = pd__calloc(a, nr, sizeof *k->id);
  k->at = pd__calloc(a, ns, sizeof *k->at);
  if (!k->canon || !k->rcanon || !k->id || !k->at) {
    pd_statekey_free(k);
    return pd__nomem(err);
  }
  *out = k;
  return PD_OK;
}

void pd_statekey_free(pd_statekey *k) {
  if (!k) return;
  const pd_allocator *a = k->a;
  pd_array_free(a, &k->key);
  pd_array_free(a, &k->queue);
  pd_array_free(a, &k->rqueue);
  pd_array_free(a, &k->stack);
  pd__free(a, k->canon);
  pd__free(a, k->rcanon);
  pd__free(a, k->adj_at);
  pd__free(a, k->adj);
  pd__free(a, k->scc);
  pd__free(a, k->scc_at);
  pd__free(a, k->members);
  pd__free(a, k->scc_done);
  pd__free(a, k->id);
  pd__free(a, k->at);
  pd__free(a, k);
}

/* ------------------------------------------------------------ call graph */

/* adj: the callees of every rule, from the call edges of its states. */
static bool pd__call_graph(pd_statekey *k) {
  size_t nr = k->n_rules;
  k->adj_at = pd__calloc(k->a, nr + 1, sizeof *k->adj_at);
  if (!k->adj_at) return false;
  for (uint32_t s = 0; s < k->n_states; s++)
    k->adj_at[k->states[s].rule + 1] += k->states[s].n_call;
  for (size_t r = 0; r < nr; r++) k->adj_at[r + 1] += k->adj_at[r];
  k->adj = pd__malloc(k->a, (k->adj_at[nr] ? k->adj_at[nr] : 1) * sizeof *k->adj);
  uint32_t *fill = pd__malloc(k->a, (nr ? nr : 1) * sizeof *fill);
  if (!k->adj || !fill) {
    pd__free(k->a, fill);
    return false;
  }
  memcpy(fill, k->adj_at, nr * sizeof *fill);
  for (uint32_t s = 0; s < k->n_states; s++) {
    const pd_pda_state *st = &k->states[s];
    const pd_pda_edge *e = k->edges + st->edges + st->n_byte;
    for (uint32_t i = 0; i < st->n_call; i++) k->adj[fill[st->rule]++] = e[i].arg;
  }
  pd__free(k->a, fill);
  return true;
}

/* Tarjan's components without recursion: scc[r] numbers them callees first. */
static bool pd__components(pd_statekey *k) {
  size_t nr = k->n_rules;
  uint32_t *index = pd__calloc(k->a, nr ? nr : 1, sizeof *index); /* + 1; 0 = unvisited */
  uint32_t *low = pd__malloc(k->a, (nr ? nr : 1) * sizeof *low);
  uint32_t *stk = pd__malloc(k->a, (nr ? nr : 1) * sizeof *stk);
  bool *on = pd__calloc(k->a, nr ? nr : 1, sizeof *on);
  k->scc = pd__malloc(k->a, (nr ? nr : 1) * sizeof *k->scc);
  bool ok = index && low && stk && on && k->scc;
  uint32_t next = 1, n_stk = 0, n_scc = 0;
  for (uint32_t r0 = 0; r0 < nr && ok; r0++) {
    if (index[r0]) continue;
    k->stack.len = 0;
    ok = pd_array_push(k->a, &k->stack, ((pd__frame){r0, 0, 0}));
    index[r0] = low[r0] = next++, stk[n_stk++] = r0, on[r0] = true;
    while (ok && k->stack.len) {
      pd__frame *f = &pd_array_last(&k->stack);
      uint32_t r = f->rule;
      if (k->adj_at[r] + f->edge < k->adj_at[r + 1]) {
        uint32_t d = k->adj[k->adj_at[r] + f->edge++];
        if (!index[d]) {
          index[d] = low[d] = next++, stk[n_stk++] = d, on[d] = true;
          ok = pd_array_push(k->a, &k->stack, ((pd__frame){d, 0, 0}));
        } else if (on[d] && index[d] < low[r]) {
          low[r] = index[d];
        }
        continue;
      }
      if (low[r] == index[r]) { /* r heads a component: pop it */
        uint32_t x;
        do {
          x = stk[--n_stk];
          on[x] = false;
          k->scc[x] = n_scc;
        } while (x != r);
        n_scc++;
      }
      k->stack.len--;
      if (k->stack.len) {
        uint32_t p = pd_array_last(&k->stack).rule;
        if (low[r] < low[p]) low[p] = low[r];
      }
    }
  }
  if (ok) { /* members by component */
    k->scc_at = pd__calloc(k->a, (size_t)n_scc + 1, sizeof *k->scc_at);
    k->members = pd__malloc(k->a, (nr ? nr : 1) * sizeof *k->members);
    k->scc_done = pd__calloc(k->a, n_scc ? n_scc : 1, sizeof *k->scc_done);
    ok = k->scc_at && k->members && k->scc_done;
    for (size_t r = 0; ok && r < nr; r++) k->scc_at[k->scc[r] + 1]++;
    for (uint32_t x = 0; ok && x < n_scc; x++) k->scc_at[x + 1] += k->scc_at[x];
    for (size_t r = 0; ok && r < nr; r++) low[k->scc[r]] = 0; /* low: fill counts now */
    for (size_t r = 0; ok && r < nr; r++) {
      uint32_t x = k->scc[r];
      k->members[k->scc_at[x] + low[x]++] = (uint32_t)r;
    }
  }
  pd__free(k->a, index);
  pd__free(k->a, low);
  pd__free(k->a, stk);
  pd__free(k->a, on);
  return ok;
}

/* --------------------------------------------------------- serialization */

static uint32_t pd__canon(pd_statekey *k, uint32_t s, bool *ok) {
  if (!k->canon[s]) {
    if (!pd_array_push(k->a, &k->queue, s)) return *ok = false, 0;
    k->canon[s] = (uint32_t)k->queue.len;
  }
  return k->canon[s] - 1;
}

static uint32_t pd__rcanon(pd_statekey *k, uint32_t r, bool *ok) {
  if (!k->rcanon[r]) {
    if (!pd_array_push(k->a, &k->rqueue, r)) return *ok = false, 0;
    k->rcanon[r] = (uint32_t)k->rqueue.len;
  }
  return k->rcanon[r] - 1;
}

static bool pd__put(pd_statekey *k, const uint32_t *w, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!pd_array_push(k->a, &k->key, w[i])) return false;
  return true;
}

/* How a call edge to rule d is written: inline (d's automaton discovered and
 * serialized here) or by d's id. */
typedef enum { PD__CALL_INLINE, PD__CALL_BY_ID } pd__call_form;

/* Appends state s: rule (when several are serialized), final, its byte edges
 * (lo, hi, to) and call edges. inline_scc: calls into this component are
 * written inline, others by id; UINT32_MAX: every call inline (the full key);
 * with by_id, every call by id. */
static bool pd__put_state(pd_statekey *k, uint32_t s, bool many_rules, uint32_t inline_scc,
                          bool by_id) {
  const pd_pda_state *st = &k->states[s];
  const pd_pda_edge *e = k->edges + st->edges;
  bool ok = true;
  /* room for its words at once (keys run to thousands of words, and a check
   * per word showed in the profile); pd__canon and pd__rcanon push to the
   * queues, never to the key, so w stays valid */
  if (!pd_array_reserve(k->a, &k->key, 4 + 3 * (size_t)st->n_byte + 5 * (size_t)st->n_call))
    return false;
  uint32_t *w = k->key.data + k->key.len;
  *w++ = many_rules ? pd__rcanon(k, st->rule, &ok) : 0;
  *w++ = st->flags & PD_STATE_FINAL, *w++ = st->n_byte, *w++ = st->n_call;
  for (uint32_t i = 0; i < st->n_byte; i++)
    *w++ = e[i].lo, *w++ = e[i].hi, *w++ = pd__canon(k, e[i].to, &ok);
  for (uint32_t i = st->n_byte; i < st->n_byte + st->n_call; i++) {
    uint32_t d = e[i].arg;
    const pd_pda_rule *r = &k->rules[d];
    if (!by_id && (inline_scc == UINT32_MAX || k->scc[d] == inline_scc)) {
      *w++ = PD__CALL_INLINE, *w++ = pd__rcanon(k, d, &ok);
      *w++ = r->flags & PD_RULE_NULLABLE, *w++ = pd__canon(k, r->start, &ok);
    } else {
      *w++ = PD__CALL_BY_ID, *w++ = k->id[d], *w++ = r->flags & PD_RULE_NULLABLE, *w++ = 0;
    }
    *w++ = pd__canon(k, e[i].to, &ok);
  }
  k->key.len = (size_t)(w - k->key.data);
  return ok;
}

static void pd__reset(pd_statekey *k) {
  for (size_t q = 0; q < k->queue.len; q++) k->canon[k->queue.data[q]] = 0;
  for (size_t q = 0; q < k->rqueue.len; q++) k->rcanon[k->rqueue.data[q]] = 0;
  k->queue.len = k->rqueue.len = 0;
}

/* Interns the closure of rule t (every external callee has its id). */
static bool pd__intern(pd_statekey *k, uint32_t t) {
  bool ok = true;
  uint32_t x = k->scc[t];
  for (uint32_t i = k->scc_at[x]; i < k->scc_at[x + 1] && !k->scc_done[x]; i++) {
    uint32_t m = k->members[i];
    for (uint32_t j = k->adj_at[m]; j < k->adj_at[m + 1]; j++)
      if (k->scc[k->adj[j]] != x && k->id[k->adj[j]] == PD__FAILED) k->scc_done[x] = PD__GAVE_UP;
  }
  if (!k->scc_done[x]) k->scc_done[x] = PD__CHECKED;
  if (k->scc_done[x] == PD__GAVE_UP) {
    k->id[t] = PD__FAILED;
    return true;
  }
  k->key.len = 0;
  uint32_t tag = PD__KEY_RULE;
  ok = pd__put(k, &tag, 1);
  pd__rcanon(k, t, &ok);
  pd__canon(k, k->rules[t].start, &ok);
  bool too_long = false;
  for (size_t q = 0; q < k->queue.len && ok && !too_long; q++) {
    ok = pd__put_state(k, k->queue.data[q], true, x, false);
    too_long = k->key.len > k->c->max_closure;
  }
  if (ok && !too_long) /* t's states by their place in the closure (pd_statekey_place) */
    for (size_t q = 0; q < k->queue.len; q++)
      if (k->states[k->queue.data[q]].rule == t) k->at[k->queue.data[q]] = (uint32_t)q + 1;
  pd__reset(k);
  if (!ok) return false;
  if (too_long) {
    k->id[t] = PD__FAILED;
    k->scc_done[x] = PD__GAVE_UP;
    return true;
  }
  uint32_t id = pd_mask_cache_intern(k->c, k->a, k->key.data, k->key.len,
                                     pd_hash_words(k->key.data, k->key.len));
  k->id[t] = id ? id : PD__FAILED;
  return true;
}

/* Ids for rule d and every rule its closure calls outside its component,
 * callees first (an explicit stack: call chains of schemas run deep). */
static bool pd__ensure(pd_statekey *k, uint32_t d) {
  if (k->id[d]) return true;
  k->stack.len = 0;
  if (!pd_array_push(k->a, &k->stack, ((pd__frame){d, 0, 0}))) return false;
  while (k->stack.len) {
    pd__frame *f = &pd_array_last(&k->stack);
    uint32_t t = f->rule, x = k->scc[t], push = UINT32_MAX;
    if (k->id[t]) { /* done meanwhile (another frame's callee) */
      k->stack.len--;
      continue;
    }
    for (; f->member < k->scc_at[x + 1] - k->scc_at[x] && push == UINT32_MAX; f->member++) {
      uint32_t m = k->members[k->scc_at[x] + f->member];
      while (k->adj_at[m] + f->edge < k->adj_at[m + 1] && push == UINT32_MAX) {
        uint32_t c = k->adj[k->adj_at[m] + f->edge++];
        if (k->scc[c] != x && !k->id[c]) push = c;
      }
      if (push != UINT32_MAX) break; /* come back to this member's next edge */
      f->edge = 0;
    }
    if (push != UINT32_MAX) {
      if (!pd_array_push(k->a, &k->stack, ((pd__frame){push, 0, 0}))) return false;
      continue;
    }
    if (!pd__intern(k, t)) return false;
    k->stack.len--;
  }
  return true;
}

static bool pd__graph(pd_statekey *k) {
  return k->adj_at || (pd__call_graph(k) && pd__components(k));
}

pd_status pd_statekey_place(pd_statekey *k, uint32_t s, uint32_t place[2], bool *found,
                            pd_error *err) {
  uint32_t r = k->states[s].rule;
  *found = false;
  if (!pd__graph(k) || !pd__ensure(k, r)) return pd__nomem(err);
  if (k->id[r] == PD__FAILED || !k->at[s]) return PD_OK;
  place[0] = k->id[r], place[1] = k->at[s] - 1;
  *found = true;
  return PD_OK;
}

pd_status pd_statekey_get(pd_statekey *k, uint32_t s, const uint32_t **key, size_t *n,
                          uint64_t *hash, pd_error *err) {
  bool ok = true, by_id = true;
  uint32_t r = k->states[s].rule;
  if (!pd__graph(k)) return pd__nomem(err);
  for (uint32_t j = k->adj_at[r]; j < k->adj_at[r + 1] && ok; j++) {
    ok = pd__ensure(k, k->adj[j]);
    by_id = by_id && k->id[k->adj[j]] != PD__FAILED;
  }
  if (!ok) return pd__nomem(err);
  k->key.len = 0;
  uint32_t tag = by_id ? PD__KEY_STATE : PD__KEY_FULL;
  ok = pd__put(k, &tag, 1);
  pd__canon(k, s, &ok);
  bool too_long = false, large = false;
  for (size_t q = 0; q < k->queue.len && ok && !too_long && !large; q++) {
    ok = pd__put_state(k, k->queue.data[q], !by_id, UINT32_MAX, by_id);
    too_long = !by_id && k->key.len > k->c->max_full_key;
    large = by_id && k->key.len > PD__PLACE_WORDS;
  }
  if (ok && large) { /* the place; where the closure has none, the part written out after all */
    uint32_t w[3] = {PD__KEY_PLACE};
    bool placed;
    pd__reset(k); /* interning the closure takes the key and the queues */
    pd_status st = pd_statekey_place(k, s, w + 1, &placed, err);
    if (st != PD_OK) return st;
    k->key.len = 0;
    ok = placed ? pd__put(k, w, 3) : pd__put(k, &tag, 1);
    if (!placed) pd__canon(k, s, &ok);
    for (size_t q = 0; q < k->queue.len && ok; q++)
      ok = pd__put_state(k, k->queue.data[q], false, UINT32_MAX, true);
  }
  /* the rule's lookahead: its follow set, then its two-byte block's length
   * and the block (follow.h) */
  const uint32_t *two = pd_follow2(k->follow, k->n_rules, r);
  uint32_t n_two = (uint32_t)pd_follow2_words(two);
  ok = ok && pd__put(k, k->follow + 8 * (size_t)r, 8) && pd__put(k, &n_two, 1) &&
       (!two || pd__put(k, two, n_two));
  pd__reset(k);
  if (!ok) return pd__nomem(err);
  *key = k->key.data;
  *n = too_long ? 0 : k->key.len;
  *hash = too_long ? 0 : pd_hash_words(k->key.data, k->key.len);
  return PD_OK;
}
