/* nfa_diff.c - L(a) minus L(b), L(a) and L(b), and L(a) cut to a count of
 * units, as deterministic fragments of a rule's NFA.
 *
 * The keys of an object with additional properties are the JSON strings whose
 * value is not a declared name, escapes included ("\u006bey" spells "key").
 * Written as an expression, that is a trie of the names with "any other
 * character" at every node, and a JSON character with exclusions is some 150
 * states: a three-name object made a 4,500-state NFA and most of the schema's
 * compile time. As a difference it is one subset construction over both
 * operands at once: a state is a pair of subsets, final when a's subset holds
 * a's final state and b's does not, and a pair whose a-part is empty is dead.
 * The result is appended to the rule's NFA as states with byte edges, so the
 * rule's own determinization passes over it at the cost of a DFA.
 *
 * The intersection (AND) is the same product, final when both subsets are
 * and dead when either is empty: a string under two patterns.
 *
 * The count (AND, b = u{min,max}): a string of a JSON Schema pattern whose
 * length is bounded. Copies of u (a JSON character, some 20 states) up to
 * max would make the product max times larger for nothing; instead the
 * product follows one copy of u, which starts again each time it ends, and
 * counts its ends: a state is a subset of a's and u's states plus the count,
 * which is one more element of the interned set (n + count, after every
 * state), final when a's subset is final, u is between characters and the
 * count is in range. Past max it is dead; with no max it stops at min. u must
 * be non-empty and prefix-free, so its end is where a character ends.
 *
 * Both operands must be byte-level once small rules are copied in: a call or
 * a token edge inside is an error (the front ends never build one). */
#include <string.h>

#include "base/error.h"
#include "build.h"
#include "sets.h"

typedef struct pd__tr {
  uint32_t from, to;
  uint8_t lo, hi;
} pd__tr;

typedef struct pd__prod {
  const pd_allocator *a;
  const pd_nfa *x, *y; /* combined numbering: x's states, then y's shifted by x->n_states */
  uint32_t n_x, n;
  bool both;           /* AND: final in both operands */
  bool counted;        /* AND of a count: y is the unit u, counted from min to max */
  uint32_t min, max;
  pd_sets s; /* the product's states as interned sets (sets.h) */
  PD_ARRAY(uint32_t) stack, seed;
  PD_ARRAY(pd__tr) trs;
  PD_ARRAY(pd_nfa_edge) out; /* byte edges of the set being expanded, combined numbering */
  PD_ARRAY(pd_nfa_edge) by_lo; /* out sorted by lo (counting sort) */
  uint32_t *mark, gen;
} pd__prod;

/* Edges of combined state q: its NFA and its first edge index. */
static const pd_nfa *pd__side(const pd__prod *p, uint32_t q, uint32_t *local, uint32_t *shift) {
  if (q < p->n_x) {
    *local = q, *shift = 0;
    return p->x;
  }
  *local = q - p->n_x, *shift = p->n_x;
  return p->y;
}

static bool pd__closure(pd__prod *p) {
  p->gen++;
  p->stack.len = 0;
  size_t base = p->s.pool.len;
  for (size_t i = 0; i < p->seed.len; i++) {
    uint32_t q = p->seed.data[i];
    if (p->mark[q] == p->gen) continue;
    p->mark[q] = p->gen;
    if (!pd_array_push(p->a, &p->stack, q) || !pd_array_push(p->a, &p->s.pool, q)) return false;
  }
  while (p->stack.len) {
    uint32_t q = p->stack.data[--p->stack.len], l, sh;
    const pd_nfa *n = pd__side(p, q, &l, &sh);
    for (uint32_t e = n->first.data[l]; e < n->first.data[l + 1]; e++) {
      const pd_nfa_edge *ed = &n->edges.data[e];
      uint32_t to = ed->to + sh;
      if (ed->kind != PD_NFA_EPS || p->mark[to] == p->gen) continue;
      p->mark[to] = p->gen;
      if (!pd_array_push(p->a, &p->stack, to) || !pd_array_push(p->a, &p->s.pool, to))
        return false;
    }
  }
  return pd_sets_sort_tail(&p->s, base);
}

/* Whether pool[base ..) (sorted) holds state q. */
static bool pd__holds(const pd__prod *p, size_t base, size_t end, uint32_t q) {
  for (size_t i = base; i < end; i++)
    if (p->s.pool.data[i] == q) return true;
  return false;
}

/* Interns the closure of seed (reached with count units done): *id its set,
 * or UINT32_MAX when it holds no state of a (dead: nothing after it is in the
 * difference), or for a count, no state of u or a count past max. */
static pd_status pd__intern(pd__prod *p, uint32_t count, uint32_t *id, pd_error *err) {
  size_t base = p->s.pool.len;
  if (!pd__closure(p)) return pd__nomem(err);
  if (p->counted && pd__holds(p, base, p->s.pool.len, p->n_x + p->y->final)) {
    count++; /* a character ends here: the next may begin */
    p->s.pool.len = base;
    if (!pd_array_push(p->a, &p->seed, p->n_x + p->y->start) || !pd__closure(p))
      return pd__nomem(err);
  }
  size_t end = p->s.pool.len;
  bool dead = end == base || p->s.pool.data[base] >= p->n_x; /* sorted: no state of a */
  if (p->both) dead = dead || p->s.pool.data[end - 1] < p->n_x; /* no state of b */
  if (p->counted) {
    if (p->max == PD_IR_INF && count > p->min) count = p->min;
    dead = dead || count > p->max;
    if (!dead && !pd_array_push(p->a, &p->s.pool, p->n + count)) return pd__nomem(err);
  }
  if (dead) {
    p->s.pool.len = base;
    *id = UINT32_MAX;
    return PD_OK;
  }
  return pd_sets_intern(&p->s, base, id, err);
}

/* The count of set d (0 outside a count). */
static uint32_t pd__count(const pd__prod *p, uint32_t d) {
  pd_set_span sp = p->s.sets.data[d];
  return p->counted ? p->s.pool.data[sp.off + sp.len - 1] - p->n : 0;
}

/* The transitions of set d over the elementary intervals of its byte edges. */
static pd_status pd__expand(pd__prod *p, uint32_t d, pd_error *err) {
  p->out.len = 0;
  uint64_t cut[5] = {0};
  uint32_t count = pd__count(p, d), len = p->s.sets.data[d].len - (p->counted ? 1 : 0);
  for (uint32_t k = 0; k < len; k++) {
    uint32_t q = p->s.pool.data[p->s.sets.data[d].off + k], l, sh;
    const pd_nfa *n = pd__side(p, q, &l, &sh);
    for (uint32_t e = n->first.data[l]; e < n->first.data[l + 1]; e++) {
      pd_nfa_edge ed = n->edges.data[e];
      if (ed.kind == PD_NFA_EPS) continue;
      if (ed.kind != PD_EDGE_BYTE)
        return pd__fail(err, PD_ERR_SEMANTIC, "a difference of expressions may not call rules");
      ed.to += sh;
      if (!pd_array_push(p->a, &p->out, ed)) return pd__nomem(err);
      cut[ed.lo / 64] |= 1ull << (ed.lo % 64);
      cut[(ed.hi + 1u) / 64] |= 1ull << ((ed.hi + 1u) % 64);
    }
  }
  cut[4] |= 1;
  /* by lo, for the sweep below: a counting sort (an insertion sort of the
   * hundreds of edges of a search's subsets was most of a product's time) */
  uint32_t at[257] = {0};
  for (size_t i = 0; i < p->out.len; i++) at[p->out.data[i].lo + 1]++;
  for (int c = 0; c < 256; c++) at[c + 1] += at[c];
  if (!pd_array_reserve(p->a, &p->by_lo, p->out.len)) return pd__nomem(err);
  pd_nfa_edge *o = p->by_lo.data;
  for (size_t i = 0; i < p->out.len; i++) o[at[p->out.data[i].lo]++] = p->out.data[i];
  size_t n_out = p->out.len;
  size_t next = 0, n_active = 0; /* active: o[0 .. n_active) after compaction */
  for (int lo = 0; lo < 256;) {
    unsigned w = (unsigned)(lo + 1) / 64;
    uint64_t bits = cut[w] & (~0ull << ((unsigned)(lo + 1) % 64));
    while (!bits) bits = cut[++w];
    int hi = (int)(w * 64 + (unsigned)__builtin_ctzll(bits)) - 1;
    /* the edges that cover [lo, hi]: every edge boundary is a cut, so an edge
     * begun by lo and not ended before it covers the whole interval */
    for (; next < n_out && o[next].lo <= lo; next++) {
      pd_nfa_edge v = o[next];
      o[next] = o[n_active]; /* o[n_active .. next) are spent: swap it in */
      o[n_active++] = v;
    }
    size_t k = 0;
    for (size_t i = 0; i < n_active; i++)
      if (o[i].hi >= lo) o[k++] = o[i];
    n_active = k;
    p->seed.len = 0;
    for (size_t i = 0; i < n_active; i++)
      if (!pd_array_push(p->a, &p->seed, o[i].to)) return pd__nomem(err);
    if (p->seed.len) {
      uint32_t to;
      pd_status s = pd__intern(p, count, &to, err);
      if (s) return s;
      pd__tr *last = p->trs.len ? &pd_array_last(&p->trs) : NULL;
      if (to == UINT32_MAX) {
        /* dead: no edge */
      } else if (last && last->from == d && last->to == to && last->hi + 1 == lo) {
        last->hi = (uint8_t)hi;
      } else if (!pd_array_push(p->a, &p->trs, ((pd__tr){d, to, (uint8_t)lo, (uint8_t)hi}))) {
        return pd__nomem(err);
      }
    }
    lo = hi + 1;
  }
  return PD_OK;
}

static bool pd__final(const pd__prod *p, uint32_t d) {
  bool x = false, y = false;
  for (uint32_t k = 0; k < p->s.sets.data[d].len; k++) {
    uint32_t q = p->s.pool.data[p->s.sets.data[d].off + k];
    x = x || q == p->x->final;
    y = y || q == p->n_x + p->y->final;
  }
  if (!p->both) return x && !y;
  if (!p->counted) return x && y;
  /* between characters: one just ended, or none began (the start, set 0) */
  return x && (y || d == 0) && pd__count(p, d) >= p->min;
}

/* Appends the product to n: in -> set 0, the final sets -> a new exit. */
static pd_status pd__emit(pd__prod *p, pd_nfa *n, uint32_t in, uint32_t *out, pd_error *err) {
  uint32_t base = n->n_states;
  n->n_states += (uint32_t)p->s.sets.len;
  if (n->n_states > n->max_states)
    return pd__fail(err, PD_ERR_LIMIT, "grammar needs more than %u automaton states",
                    n->max_states);
  if (!pd_array_push(n->a, &n->edges, ((pd_nfa_edge){.from = in, .to = base, .kind = PD_NFA_EPS})))
    return pd__nomem(err);
  for (size_t i = 0; i < p->trs.len; i++) {
    pd__tr t = p->trs.data[i];
    pd_nfa_edge e = {.from = base + t.from, .to = base + t.to, .kind = PD_EDGE_BYTE, .lo = t.lo,
                     .hi = t.hi};
    if (!pd_array_push(n->a, &n->edges, e)) return pd__nomem(err);
  }
  uint32_t exit = n->n_states++; /* numbered last, for nfa_tails.c */
  for (uint32_t d = 0; d < p->s.sets.len; d++)
    if (pd__final(p, d) &&
        !pd_array_push(n->a, &n->edges,
                       ((pd_nfa_edge){.from = base + d, .to = exit, .kind = PD_NFA_EPS})))
      return pd__nomem(err);
  *out = exit;
  return PD_OK;
}

/* The product of a with b: a difference, an intersection (both), or a with
 * the unit b counted from min to max (both, counted); appended to n from in.
 * The operands' rules are copied in (copy_all), whatever the inline plan says. */
static pd_status pd__product(pd_nfa *n, const pd_ir *w, uint32_t a, uint32_t b, bool both,
                             bool counted, uint32_t min, uint32_t max, uint32_t in, uint32_t *out,
                             pd_error *err) {
  pd_nfa x = {.a = n->a, .max_states = n->max_states, .built = n->built, .ready = n->ready,
             .copy_all = true};
  pd_nfa y = x;
  pd__prod p = {.a = n->a, .x = &x, .y = &y, .s = {.a = n->a}, .both = both,
                .counted = counted, .min = min, .max = max};
  pd_status s = pd_pda_nfa_build(&x, w, a, err);
  if (!s) s = pd_pda_nfa_build(&y, w, b, err);
  if (!s) {
    p.n_x = x.n_states, p.n = x.n_states + y.n_states;
    p.s.limit = n->max_states > n->n_states ? n->max_states - n->n_states : 0;
    if (p.s.limit > PD_PDA_RULE_MAX_STATES) p.s.limit = PD_PDA_RULE_MAX_STATES;
    p.mark = pd__calloc(n->a, p.n ? p.n : 1, sizeof *p.mark);
    if (!p.mark || !pd_array_push(n->a, &p.seed, x.start) ||
        !pd_array_push(n->a, &p.seed, p.n_x + y.start))
      s = pd__nomem(err);
  }
  uint32_t id;
  if (!s) s = pd__intern(&p, 0, &id, err);
  if (!s && id == UINT32_MAX) s = pd__fail(err, PD_ERR_INTERNAL, "empty left operand");
  if (!s && counted && pd__count(&p, id) != 0)
    s = pd__fail(err, PD_ERR_INTERNAL, "a counted unit matches the empty string");
  for (uint32_t d = 0; !s && d < p.s.sets.len; d++) s = pd__expand(&p, d, err);
  if (!s) s = pd__emit(&p, n, in, out, err);
  if (s == PD_ERR_LIMIT && (x.capped || y.capped || (p.s.limit == PD_PDA_RULE_MAX_STATES &&
                                                     p.s.sets.len == p.s.limit)))
    n->capped = true; /* an operand's product or this one */
  pd_pda_nfa_free(&x);
  pd_pda_nfa_free(&y);
  pd_sets_free(&p.s);
  pd_array_free(n->a, &p.stack);
  pd_array_free(n->a, &p.seed);
  pd_array_free(n->a, &p.trs);
  pd_array_free(n->a, &p.out);
  pd_array_free(n->a, &p.by_lo);
  pd__free(n->a, p.mark);
  return s;
}

pd_status pd_pda_nfa_diff(pd_nfa *n, const pd_ir *w, uint32_t a, uint32_t b, uint32_t in,
                          uint32_t *out, pd_error *err) {
  return pd__product(n, w, a, b, false, false, 0, 0, in, out, err);
}

pd_status pd_pda_nfa_and(pd_nfa *n, const pd_ir *w, uint32_t a, uint32_t b, bool counted,
                         uint32_t in, uint32_t *out, pd_error *err) {
  const pd_ir_node *nd = pd_ir_at(w, b);
  if (!counted) return pd__product(n, w, a, b, true, false, 0, 0, in, out, err);
  if (nd->kind != PD_IR_REPEAT) return pd__fail(err, PD_ERR_INTERNAL, "a count without a repeat");
  return pd__product(n, w, a, nd->a, true, true, nd->off, nd->n, in, out, err);
}
