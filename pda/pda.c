/* pda.c - IR -> the pushdown automaton: checks, per-rule automata, pruning of
 * rules that derive no finite string and of states that cannot finish their rule,
 * nullable rules, and packing into one block (layout in pda.h). */
#include "pda.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "build.h"
#include "rule_cache.h"
#include "masks/vocab.h"

/* ----------------------------------------------------------------- check */

static pd_status pd__check_node(const pd_ir *ir, uint32_t i) {
  const pd_ir_node *n = pd_ir_at(ir, i);
  switch ((pd_ir_kind)n->kind) {
    case PD_IR_EMPTY:
    case PD_IR_NOTHING:
    case PD_IR_TOKEN: return PD_OK;
    case PD_IR_BYTES: return (size_t)n->off + n->n <= ir->bytes.len ? PD_OK : PD_ERR_ARG;
    case PD_IR_CLASS:
      return (size_t)n->off + 2 * (size_t)n->n <= ir->ranges.len ? PD_OK : PD_ERR_ARG;
    case PD_IR_REF: return n->a < ir->rules.len ? PD_OK : PD_ERR_ARG;
    case PD_IR_REPEAT: return n->a < i ? PD_OK : PD_ERR_ARG;
    case PD_IR_DIFF: return n->a < i && n->off < i ? PD_OK : PD_ERR_ARG;
    case PD_IR_AND:
      return n->a < i && n->off < i && (!n->n || pd_ir_at(ir, n->off)->kind == PD_IR_REPEAT)
                 ? PD_OK
                 : PD_ERR_ARG;
    case PD_IR_SEQ:
    case PD_IR_ALT:
      if ((size_t)n->off + n->n > ir->kids.len) return PD_ERR_ARG;
      for (uint32_t k = 0; k < n->n; k++)
        if (ir->kids.data[n->off + k] >= i) return PD_ERR_ARG;
      return PD_OK;
  }
  return PD_ERR_ARG;
}

typedef PD_ARRAY(uint32_t) pd__u32s;

/* Pushes the nodes below node (REF: its rule's body) that were not seen yet. */
static bool pd__visit(const pd_ir *ir, uint32_t node, uint8_t *seen, pd__u32s *todo) {
  const pd_ir_node *n = pd_ir_at(ir, node);
  bool two = n->kind == PD_IR_DIFF || n->kind == PD_IR_AND;
  uint32_t one = n->kind == PD_IR_REPEAT || two ? n->a
                 : n->kind == PD_IR_REF  ? ir->rules.data[n->a].body
                                         : PD_IR_NONE;
  if (one != PD_IR_NONE && !seen[one]) {
    seen[one] = 1;
    if (!pd_array_push(ir->alloc, todo, one)) return false;
  }
  if (two && !seen[n->off]) {
    seen[n->off] = 1;
    if (!pd_array_push(ir->alloc, todo, n->off)) return false;
  }
  if (n->kind != PD_IR_SEQ && n->kind != PD_IR_ALT) return true;
  for (uint32_t k = 0; k < n->n; k++) {
    uint32_t c = ir->kids.data[n->off + k];
    if (seen[c]) continue;
    seen[c] = 1;
    if (!pd_array_push(ir->alloc, todo, c)) return false;
  }
  return true;
}

/* Every rule reachable from the root must have a body. */
static pd_status pd__check_defined(const pd_ir *ir, pd_error *err) {
  const pd_allocator *a = ir->alloc;
  uint32_t root_body = ir->rules.data[ir->root].body;
  if (root_body == PD_IR_NONE)
    return pd__fail(err, PD_ERR_SEMANTIC, "undefined rule '%s'", pd_ir_rule_name(ir, ir->root));
  uint8_t *seen = pd__calloc(a, ir->nodes.len, 1);
  pd__u32s todo = {0};
  pd_status s = seen && pd_array_push(a, &todo, root_body) ? PD_OK : pd__nomem(err);
  if (!s) seen[root_body] = 1;
  while (!s && todo.len) {
    uint32_t node = todo.data[--todo.len];
    const pd_ir_node *n = pd_ir_at(ir, node);
    if (n->kind == PD_IR_REF && ir->rules.data[n->a].body == PD_IR_NONE) {
      s = pd__fail(err, PD_ERR_SEMANTIC, "undefined rule '%s'", pd_ir_rule_name(ir, n->a));
      if (err) err->offset = ir->rules.data[n->a].ref_offset;
    } else if (!pd__visit(ir, node, seen, &todo)) {
      s = pd__nomem(err);
    }
  }
  pd__free(a, seen);
  pd_array_free(a, &todo);
  return s;
}

pd_status pd_pda_check(const pd_ir *ir, pd_error *err) {
  if (!ir) return pd__fail(err, PD_ERR_ARG, "no grammar IR");
  if (ir->oom) return pd__nomem(err);
  if (ir->root == PD_IR_NONE || ir->root >= ir->rules.len)
    return pd__fail(err, PD_ERR_SEMANTIC, "the grammar has no root rule");
  for (uint32_t i = 0; i < ir->nodes.len; i++)
    if (pd__check_node(ir, i))
      return pd__fail(err, PD_ERR_ARG, "malformed grammar IR at node %u", i);
  for (uint32_t r = 0; r < ir->rules.len; r++)
    if (ir->rules.data[r].body != PD_IR_NONE && ir->rules.data[r].body >= ir->nodes.len)
      return pd__fail(err, PD_ERR_ARG, "malformed grammar IR: rule %u has no valid body", r);
  return pd__check_defined(ir, err);
}

/* ------------------------------------------------------------------ copy */

#define PD__COPY(a, dst, src)                                                          \
  ((src).len == 0 || (pd_array_reserve(a, &(dst), (src).len) &&                        \
                      (memcpy((dst).data, (src).data, (src).len * sizeof *(src).data), \
                       (dst).len = (src).len, true)))

/* A private, growable copy of ir (the repetition pass adds rules and nodes). */
static bool pd__ir_copy(pd_ir *w, const pd_ir *ir, const pd_allocator *a) {
  pd_ir_init(w, a);
  w->root = ir->root;
  return PD__COPY(a, w->nodes, ir->nodes) && PD__COPY(a, w->kids, ir->kids) &&
         PD__COPY(a, w->bytes, ir->bytes) && PD__COPY(a, w->ranges, ir->ranges) &&
         PD__COPY(a, w->rules, ir->rules) && PD__COPY(a, w->names, ir->names) &&
         PD__COPY(a, w->table, ir->table);
}

/* ---------------------------------------------------------------- prune */

typedef struct pd__prune {
  const pd_allocator *a;
  pd_pda_builder *b;
  const pd_vocab *vocab;
  uint8_t *live, *prod, *nullable;
  uint32_t *newid;
} pd__prune;

/* Whether a token edge can ever match with this vocab. */
static bool pd__token_usable(const pd_vocab *v, const pd_pda_edge *e) {
  if (!v || e->neg) return true;
  return e->arg < v->size && !(v->flags[e->arg] & (PD_TOKEN_HOLE | PD_TOKEN_EOS));
}

static bool pd__edge_live(const pd__prune *p, const pd_pda_edge *e) {
  if (!p->live[e->to]) return false;
  if (e->kind == PD_EDGE_CALL) return p->prod[e->arg];
  if (e->kind == PD_EDGE_TOKEN) return pd__token_usable(p->vocab, e);
  return true;
}

/* Whether set rule r (pd_pda_rule.set_need) calls a productive rule for
 * each member it needs: else it derives nothing, however its automaton looks. */
static bool pd__needs_met(const pd__prune *p, uint32_t r) {
  const pd_pda_builder *b = p->b;
  const pd_pda_rule *ru = &b->rules.data[r];
  uint32_t met = 0;
  for (uint32_t s = ru->start; s < ru->start + ru->n_states; s++) {
    const pd_pda_state *st = &b->states.data[s];
    for (uint32_t k = st->n_byte; k < st->n_byte + st->n_call; k++) {
      uint32_t callee = b->edges.data[st->edges + k].arg, bit = b->rules.data[callee].set_bit;
      if (bit && p->prod[callee]) met |= 1u << (bit - 1);
    }
  }
  return (met & ru->set_need) == ru->set_need;
}

/* live[s]: s can reach a final state of its rule; prod[r]: rule r's start is live. */
static void pd__liveness(pd__prune *p) {
  const pd_pda_builder *b = p->b;
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t s = b->states.len; s-- > 0;) {
      if (p->live[s]) continue;
      const pd_pda_state *st = &b->states.data[s];
      bool ok = st->flags & PD_STATE_FINAL;
      uint32_t ne = st->n_byte + st->n_call + st->n_token;
      for (uint32_t e = 0; e < ne && !ok; e++) ok = pd__edge_live(p, &b->edges.data[st->edges + e]);
      if (ok && b->rules.data[st->rule].set_need) ok = pd__needs_met(p, st->rule);
      if (!ok) continue;
      p->live[s] = 1;
      if (b->rules.data[st->rule].start == s) p->prod[st->rule] = 1;
      changed = true;
    }
  }
}

/* Drops dead states and edges into them; a rule that derives nothing keeps its
 * start state alone (rule numbering stays that of the IR). */
static pd_status pd__compact(pd__prune *p, pd_error *err) {
  pd_pda_builder *b = p->b;
  PD_ARRAY(pd_pda_state) states = {0};
  PD_ARRAY(pd_pda_edge) edges = {0};
  uint32_t next = 0;
  for (size_t s = 0; s < b->states.len; s++) {
    const pd_pda_state *st = &b->states.data[s];
    p->newid[s] = p->live[s] || b->rules.data[st->rule].start == s ? next++ : UINT32_MAX;
  }
  bool ok = pd_array_reserve(p->a, &states, next) && pd_array_reserve(p->a, &edges, b->edges.len);
  for (size_t s = 0; ok && s < b->states.len; s++) {
    if (p->newid[s] == UINT32_MAX) continue;
    pd_pda_state st = b->states.data[s], ns = {st.rule, (uint32_t)edges.len, 0, 0, 0, 0};
    ns.flags = st.flags;
    uint32_t ne = st.n_byte + st.n_call + st.n_token;
    for (uint32_t k = 0; k < ne && p->live[s]; k++) {
      pd_pda_edge e = b->edges.data[st.edges + k];
      if (!pd__edge_live(p, &e)) continue;
      e.to = p->newid[e.to];
      edges.data[edges.len++] = e;
      if (e.kind == PD_EDGE_BYTE)
        ns.n_byte++;
      else if (e.kind == PD_EDGE_CALL)
        ns.n_call++;
      else
        ns.n_token++;
    }
    states.data[states.len++] = ns;
  }
  if (!ok) {
    pd_array_free(p->a, &states);
    pd_array_free(p->a, &edges);
    return pd__nomem(err);
  }
  for (size_t r = 0; r < b->rules.len; r++) {
    pd_pda_rule *ru = &b->rules.data[r];
    uint32_t n = 0;
    for (uint32_t s = ru->start; s < ru->start + ru->n_states; s++) n += p->newid[s] != UINT32_MAX;
    ru->start = p->newid[ru->start];
    ru->n_states = n;
  }
  pd_array_free(p->a, &b->states);
  pd_array_free(p->a, &b->edges);
  memcpy(&b->states, &states, sizeof states);
  memcpy(&b->edges, &edges, sizeof edges);
  return PD_OK;
}

/* Whether rule r reaches a final state from its start through calls of
 * nullable rules only (stack and mark are scratch of n_states entries). */
static bool pd__derives_empty(const pd__prune *p, uint32_t r, uint32_t *stack, uint8_t *mark) {
  const pd_pda_builder *b = p->b;
  uint32_t top = 0, start = b->rules.data[r].start;
  memset(mark + start, 0, b->rules.data[r].n_states);
  stack[top++] = start;
  mark[start] = 1;
  while (top) {
    const pd_pda_state *st = &b->states.data[stack[--top]];
    if (st->flags & PD_STATE_FINAL) return true;
    for (uint32_t k = st->n_byte; k < st->n_byte + st->n_call; k++) {
      const pd_pda_edge *e = &b->edges.data[st->edges + k];
      if (!p->nullable[e->arg] || mark[e->to]) continue;
      mark[e->to] = 1;
      stack[top++] = e->to;
    }
  }
  return false;
}

static pd_status pd__nullable(pd__prune *p, pd_error *err) {
  size_t n = p->b->states.len ? p->b->states.len : 1;
  uint32_t *stack = pd__malloc(p->a, n * sizeof *stack);
  uint8_t *mark = pd__malloc(p->a, n);
  if (!stack || !mark) {
    pd__free(p->a, stack);
    pd__free(p->a, mark);
    return pd__nomem(err);
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t r = p->b->rules.len; r-- > 0;)
      if (!p->nullable[r] && pd__derives_empty(p, (uint32_t)r, stack, mark)) {
        p->nullable[r] = 1;
        changed = true;
      }
  }
  for (size_t r = 0; r < p->b->rules.len; r++)
    if (p->nullable[r]) p->b->rules.data[r].flags |= PD_RULE_NULLABLE;
  pd__free(p->a, stack);
  pd__free(p->a, mark);
  return PD_OK;
}

static pd_status pd__prune_all(pd_pda_builder *b, const pd_vocab *vocab, uint32_t root,
                               const char *root_name, pd_error *err) {
  pd__prune p = {b->a, b, vocab, NULL, NULL, NULL, NULL};
  size_t ns = b->states.len ? b->states.len : 1, nr = b->rules.len ? b->rules.len : 1;
  p.live = pd__calloc(b->a, ns, 1);
  p.prod = pd__calloc(b->a, nr, 1);
  p.nullable = pd__calloc(b->a, nr, 1);
  p.newid = pd__malloc(b->a, ns * sizeof *p.newid);
  pd_status s = p.live && p.prod && p.nullable && p.newid ? PD_OK : pd__nomem(err);
  if (!s) pd__liveness(&p);
  if (!s && !p.prod[root])
    s = pd__fail(err, PD_ERR_SEMANTIC,
                 "the grammar matches no string: rule '%s' cannot derive "
                 "any finite string",
                 root_name);
  if (!s) s = pd__compact(&p, err);
  if (!s) s = pd__nullable(&p, err);
  pd__free(b->a, p.live);
  pd__free(b->a, p.prod);
  pd__free(b->a, p.nullable);
  pd__free(b->a, p.newid);
  return s;
}

/* ------------------------------------------------------------------ sets */

/* The set fields of the IR's rules, before pruning (pd__needs_met). */
static void pd__copy_sets(pd_pda_builder *b, const pd_ir *w) {
  for (uint32_t r = 0; r < w->rules.len && r < b->rules.len; r++) {
    bool defined = w->rules.data[r].body != PD_IR_NONE;
    b->rules.data[r].set_need = defined ? w->rules.data[r].set_need : 0;
    b->rules.data[r].set_bit = defined ? w->rules.data[r].set_bit : 0;
  }
}

/* Flags the states of the set rules left and of the rules they call. */
static void pd__mark_sets(pd_pda_builder *b) {
  for (uint32_t r = 0; r < b->rules.len; r++) {
    const pd_pda_rule *ru = &b->rules.data[r];
    for (uint32_t s = ru->start; ru->set_need && s < ru->start + ru->n_states; s++) {
      pd_pda_state *st = &b->states.data[s];
      st->flags |= PD_STATE_SET;
      for (uint32_t k = st->n_byte; k < st->n_byte + st->n_call; k++) {
        const pd_pda_rule *callee = &b->rules.data[b->edges.data[st->edges + k].arg];
        for (uint32_t c = callee->start; c < callee->start + callee->n_states; c++)
          b->states.data[c].flags |= PD_STATE_SET_CALLEE;
      }
    }
  }
}

/* ------------------------------------------------------------------ pack */

static size_t pd__align8(size_t n) { return (n + 7) & ~(size_t)7; }

static pd_status pd__pack(const pd_pda_builder *b, const pd_ir *w, uint32_t n_ir_rules, pd_pda *out,
                          pd_error *err) {
  pd_pda p = {0};
  p.n_rules = (uint32_t)b->rules.len;
  p.n_states = (uint32_t)b->states.len;
  p.n_edges = (uint32_t)b->edges.len;
  for (size_t i = 0; i < b->edges.len; i++)
    p.n_token_edges += b->edges.data[i].kind == PD_EDGE_TOKEN;
  p.root = w->root;
  p.n_ir_rules = n_ir_rules;
  p.names_len = w->names.len;
  p.rules_at = 0;
  p.states_at = pd__align8(p.rules_at + b->rules.len * sizeof(pd_pda_rule));
  p.edges_at = pd__align8(p.states_at + b->states.len * sizeof(pd_pda_state));
  p.names_at = pd__align8(p.edges_at + b->edges.len * sizeof(pd_pda_edge));
  p.size = p.names_at + p.names_len + 1;
  p.mem = pd__malloc(b->a, p.size);
  if (!p.mem) return pd__nomem(err);
  char *m = p.mem;
  for (uint32_t r = 0; r < p.n_rules; r++) {
    pd_pda_rule ru = b->rules.data[r];
    ru.name = w->rules.data[r].name_off;
    ru.count = w->rules.data[r].body != PD_IR_NONE ? w->rules.data[r].count : 0;
    p.n_counted += ru.count != 0;
    p.n_set += ru.set_need != 0;
    if (r >= n_ir_rules) ru.flags |= PD_RULE_HELPER;
    memcpy(m + p.rules_at + r * sizeof ru, &ru, sizeof ru);
  }
  if (b->states.len) memcpy(m + p.states_at, b->states.data, b->states.len * sizeof(pd_pda_state));
  if (b->edges.len) memcpy(m + p.edges_at, b->edges.data, b->edges.len * sizeof(pd_pda_edge));
  if (w->names.len) memcpy(m + p.names_at, w->names.data, w->names.len);
  m[p.names_at + p.names_len] = '\0';
  *out = p;
  return PD_OK;
}

/* ----------------------------------------------------------------- build */

static uint32_t pd__sat2(uint32_t x) { return x > UINT32_MAX / 2 ? UINT32_MAX : 2 * x; }

/* One automaton per rule of w into b (the first n_own are the IR's own rules),
 * from cache where it has one built under the same key. */
static pd_status pd__automata(pd_pda_builder *b, const pd_ir *w, size_t n_own,
                              pd_rule_cache *cache, pd_error *err) {
  pd_nfa nfa = {.a = b->a, .max_states = pd__sat2(b->max_states), .built = b};
  uint32_t *inl = NULL;
  uint8_t *ready = pd__calloc(b->a, w->rules.len ? w->rules.len : 1, 1);
  pd_rule_key key = {0};
  pd_status s = ready ? pd_pda_inline_plan(w, n_own, &inl, err) : pd__nomem(err);
  nfa.inl = inl, nfa.ready = ready;
  for (uint32_t r = 0; r < w->rules.len && !s; r++) {
    uint32_t body = w->rules.data[r].body;
    if (body == PD_IR_NONE) {
      /* never referenced from the root: a lone non-final state */
      pd_pda_state st = {r, (uint32_t)b->edges.len, 0, 0, 0, 0};
      b->rules.data[r] = (pd_pda_rule){.start = (uint32_t)b->states.len, .n_states = 1};
      if (!pd_array_push(b->a, &b->states, st)) s = pd__nomem(err);
      continue;
    }
    if (cache && !pd_rule_key_make(w, inl, body, &key, b->a)) {
      s = pd__nomem(err);
      break;
    }
    if (cache && pd_rule_cache_take(cache, &key, b, r, &s)) {
      ready[r] = 1; /* a cached automaton was built with the plan too */
      continue;
    }
    if (s) {
      s = pd__nomem(err);
      break;
    }
    size_t n_states = b->states.len, n_edges = b->edges.len;
    bool full = !(w->rules.data[r].flags & PD_IR_RULE_NO_MINIMIZE);
    nfa.keep_tails = !full;
    nfa.capped = false;
    s = pd_pda_nfa_build(&nfa, w, body, err);
    if (!s) s = pd_pda_dfa_build(b, &nfa, r, err);
    if (s == PD_ERR_LIMIT && nfa.inl && !nfa.capped) {
      /* the copies made the automaton too large: this rule calls instead */
      b->states.len = n_states, b->edges.len = n_edges;
      nfa.inl = NULL;
      s = pd_pda_nfa_build(&nfa, w, body, err);
      if (!s) s = pd_pda_dfa_build(b, &nfa, r, err);
      nfa.inl = inl;
    } else if (!s && inl) {
      ready[r] = 1; /* built with the plan: a reference may copy it (nfa.c) */
    }
    if (!s) s = pd_pda_minimize(b, r, full, err);
    if (!s && cache && ready[r]) pd_rule_cache_put(cache, &key, b, r);
  }
  pd_rule_key_free(&key, b->a);
  pd__free(b->a, ready);
  pd__free(b->a, inl);
  pd_pda_nfa_free(&nfa);
  return s;
}

static void pd__builder_free(pd_pda_builder *b) {
  pd_array_free(b->a, &b->states);
  pd_array_free(b->a, &b->edges);
  pd_array_free(b->a, &b->rules);
}

pd_status pd_pda_build(const pd_ir *ir, const pd_vocab *vocab, pd_rule_cache *cache,
                       const pd_pda_limits *lim, const pd_allocator *a, pd_pda *out,
                       pd_error *err) {
  memset(out, 0, sizeof *out);
  pd_ir w;
  pd_pda_builder b = {.a = a, .max_states = lim->max_states};
  pd_status s = pd__ir_copy(&w, ir, a) ? PD_OK : pd__nomem(err);
  if (!s) s = pd_pda_lower_repeats(&w, lim->max_repeat, err);
  if (!s) s = pd_pda_dedup(&w, err);
  if (!s && w.rules.len > lim->max_rules)
    s = pd__fail(err, PD_ERR_LIMIT,
                 "grammar has %zu rules (after lowering repetitions), more "
                 "than max_rules (%u)",
                 w.rules.len, lim->max_rules);
  if (!s && !pd_array_reserve(a, &b.rules, w.rules.len)) s = pd__nomem(err);
  if (!s) {
    b.rules.len = w.rules.len;
    s = pd__automata(&b, &w, ir->rules.len, cache, err);
  }
  if (!s) pd__copy_sets(&b, &w);
  if (!s) s = pd__prune_all(&b, vocab, w.root, pd_ir_rule_name(&w, w.root), err);
  if (!s) s = pd_pda_mark_units(&b, &w, err);
  if (!s) pd__mark_sets(&b);
  if (!s) s = pd__pack(&b, &w, (uint32_t)ir->rules.len, out, err);
  pd__builder_free(&b);
  pd_ir_free(&w);
  return s;
}

void pd_pda_free(pd_pda *p, const pd_allocator *a) {
  if (!p) return;
  pd__free(a, p->mem);
  memset(p, 0, sizeof *p);
}

/* ------------------------------------------------------------------ dump */

typedef struct pd__text {
  const pd_allocator *a;
  PD_ARRAY(char) s;
  bool oom;
} pd__text;

static void pd__printf(pd__text *t, const char *fmt, ...) PD_PRINTF(2, 3);

static void pd__printf(pd__text *t, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n >= sizeof buf) n = sizeof buf - 1;
  if (t->oom || !pd_array_reserve(t->a, &t->s, (size_t)n + 1)) {
    t->oom = true;
    return;
  }
  memcpy(t->s.data + t->s.len, buf, (size_t)n);
  t->s.len += (size_t)n;
}

static void pd__dump_edge(pd__text *t, const pd_pda *p, const pd_pda_edge *e) {
  if (e->kind == PD_EDGE_BYTE && e->lo == e->hi)
    pd__printf(t, "    [%02X]", e->lo);
  else if (e->kind == PD_EDGE_BYTE)
    pd__printf(t, "    [%02X-%02X]", e->lo, e->hi);
  else if (e->kind == PD_EDGE_CALL)
    pd__printf(t, "    call %s", pd_pda_rule_name(p, e->arg));
  else
    pd__printf(t, "    %s<[%u]>", e->neg ? "!" : "", e->arg);
  pd__printf(t, " -> %u\n", e->to);
}

pd_status pd_pda_dump(const pd_pda *p, const pd_allocator *a, char **out) {
  pd__text t = {a, {0}, false};
  const pd_pda_rule *rules = pd_pda_rules(p);
  const pd_pda_state *states = pd_pda_states(p);
  for (uint32_t r = 0; r < p->n_rules; r++) {
    pd__printf(&t, "%s%s%s", pd_pda_rule_name(p, r),
               rules[r].flags & PD_RULE_NULLABLE ? " nullable" : "", r == p->root ? " root" : "");
    if (rules[r].count) pd__printf(&t, " counted %u", rules[r].count);
    if (rules[r].set_need) pd__printf(&t, " set %#x", rules[r].set_need);
    if (rules[r].set_bit) pd__printf(&t, " member %u", rules[r].set_bit - 1);
    pd__printf(&t, "%s", "\n");
    for (uint32_t s = rules[r].start; s < rules[r].start + rules[r].n_states; s++) {
      const pd_pda_state *st = &states[s];
      pd__printf(&t, "  %u%s\n", s, st->flags & PD_STATE_FINAL ? " final" : "");
      for (uint32_t k = 0; k < st->n_byte + st->n_call + st->n_token; k++)
        pd__dump_edge(&t, p, &pd_pda_edges(p)[st->edges + k]);
    }
  }
  pd__printf(&t, "%s", "");
  if (t.oom) {
    pd_array_free(a, &t.s);
    *out = NULL;
    return PD_ERR_NOMEM;
  }
  t.s.data[t.s.len] = '\0';
  *out = t.s.data;
  return PD_OK;
}
