/* dedup.c - structural equality of IR expressions, and the pass that merges
 * rules with equal bodies before their automata are built.
 *
 * Generated grammars repeat themselves: a JSON Schema with forty
 * {"type": "string", "maxLength": 255} properties makes forty string rules of a
 * few hundred states each. One automaton per distinct body keeps the compile
 * (and the states a mask may have to classify) proportional to what differs. */
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "build.h"

#define PD__DEPTH PD_PDA_MAX_NESTING /* as deep as the automaton builder goes */

static uint32_t pd__rule_of(const uint32_t *rep, uint32_t r) { return rep ? rep[r] : r; }

bool pd_ir_same(const pd_ir *w, uint32_t a, uint32_t b, const pd_ir_eq *eq, int depth) {
  if (a == b) return true;
  const pd_ir_node *x = pd_ir_at(w, a), *y = pd_ir_at(w, b);
  if (depth > PD__DEPTH || !*eq->budget || x->kind != y->kind || x->negated != y->negated ||
      x->n != y->n || (eq->hash && eq->hash[a] != eq->hash[b]))
    return false;
  --*eq->budget; /* shared subtrees could make the walk exponential: it gives up */
  switch ((pd_ir_kind)x->kind) {
    case PD_IR_BYTES: return !memcmp(w->bytes.data + x->off, w->bytes.data + y->off, x->n);
    case PD_IR_CLASS:
      return !memcmp(w->ranges.data + x->off, w->ranges.data + y->off,
                     2 * (size_t)x->n * sizeof *w->ranges.data);
    case PD_IR_SEQ:
    case PD_IR_ALT:
      for (uint32_t i = 0; i < x->n; i++)
        if (!pd_ir_same(w, w->kids.data[x->off + i], w->kids.data[y->off + i], eq, depth + 1))
          return false;
      return true;
    case PD_IR_REPEAT: return x->off == y->off && pd_ir_same(w, x->a, y->a, eq, depth + 1);
    case PD_IR_DIFF:
    case PD_IR_AND:
      return pd_ir_same(w, x->a, y->a, eq, depth + 1) &&
             pd_ir_same(w, x->off, y->off, eq, depth + 1);
    case PD_IR_REF: return pd__rule_of(eq->rep, x->a) == pd__rule_of(eq->rep, y->a);
    case PD_IR_TOKEN: return x->a == y->a;
    default: return true; /* EMPTY, NOTHING */
  }
}

static uint64_t pd__mix(uint64_t h, uint64_t v) {
  h = (h ^ v) * 0x100000001b3u;
  return h ^ (h >> 29);
}

#define PD__FIXED 0xff /* done[node]: its subtree refers to no rule, its hash never changes */

/* hash[node], computed once per round (done[node] == round), or once for good
 * when nothing under it is a reference (done[node] == PD__FIXED); children are
 * hashed first. Equal expressions hash alike. */
static uint64_t pd__hash(const pd_ir *w, uint32_t i, const uint32_t *rep, uint64_t *hash,
                         uint8_t *done, uint8_t round, int depth) {
  if (done[i] == round || done[i] == PD__FIXED) return hash[i];
  const pd_ir_node *x = &w->nodes.data[i];
  uint64_t h = pd__mix(pd__mix(0xcbf29ce484222325u, (uint64_t)x->kind << 8 | x->negated), x->n);
  bool fixed = true;
  if (depth > PD__DEPTH) return h; /* unmemoized: only a filter, pd_ir_same decides */
  switch ((pd_ir_kind)x->kind) {
    case PD_IR_BYTES:
      for (uint32_t k = 0; k < x->n; k++) h = pd__mix(h, w->bytes.data[x->off + k]);
      break;
    case PD_IR_CLASS:
      for (uint32_t k = 0; k < 2 * x->n; k++) h = pd__mix(h, w->ranges.data[x->off + k]);
      break;
    case PD_IR_SEQ:
    case PD_IR_ALT:
      for (uint32_t k = 0; k < x->n; k++) {
        uint32_t kid = w->kids.data[x->off + k];
        h = pd__mix(h, pd__hash(w, kid, rep, hash, done, round, depth + 1));
        fixed = fixed && done[kid] == PD__FIXED;
      }
      break;
    case PD_IR_REPEAT:
      h = pd__mix(pd__mix(h, x->off), pd__hash(w, x->a, rep, hash, done, round, depth + 1));
      fixed = done[x->a] == PD__FIXED;
      break;
    case PD_IR_DIFF:
    case PD_IR_AND:
      h = pd__mix(pd__mix(h, pd__hash(w, x->a, rep, hash, done, round, depth + 1)),
                  pd__hash(w, x->off, rep, hash, done, round, depth + 1));
      fixed = done[x->a] == PD__FIXED && done[x->off] == PD__FIXED;
      break;
    case PD_IR_REF:
      h = pd__mix(h, rep[x->a]);
      fixed = false;
      break;
    case PD_IR_TOKEN: h = pd__mix(h, x->a); break;
    default: break;
  }
  done[i] = fixed ? PD__FIXED : round;
  return hash[i] = h;
}

/* One round: each rule that still stands for itself joins the first earlier
 * rule with an equal body. Returns whether any rule joined. */
static bool pd__round(pd_ir *w, uint32_t *rep, uint64_t *hash, uint8_t *done, uint8_t round,
                      uint32_t *table, size_t cap) {
  size_t n = w->rules.len, budget = 1u << 22;
  pd_ir_eq eq = {rep, hash, &budget};
  bool changed = false;
  memset(table, 0, cap * sizeof *table);
  for (uint32_t r = 0; r < n; r++) {
    uint32_t body = w->rules.data[r].body;
    if (rep[r] != r || body == PD_IR_NONE) continue;
    /* a set rule and its members keep their own numbers: the matcher reads them */
    if (w->rules.data[r].set_need || w->rules.data[r].set_bit) continue;
    if (w->rules.data[r].flags & PD_IR_RULE_DISTINCT) continue;
    /* both bodies hashed this round: the pd_ir_same filter needs that */
    size_t i = pd__hash(w, body, rep, hash, done, round, 0) & (cap - 1);
    for (; table[i]; i = (i + 1) & (cap - 1))
      if (w->rules.data[table[i] - 1].count == w->rules.data[r].count &&
          pd_ir_same(w, w->rules.data[table[i] - 1].body, body, &eq, 0))
        break; /* a counted rule joins only one with the same bound */
    if (table[i] && r != w->root) {
      rep[r] = table[i] - 1;
      changed = true;
    } else if (!table[i]) {
      table[i] = r + 1;
    }
  }
  /* a rule that joined one which later joined another points at the last */
  for (uint32_t r = 0; r < n; r++)
    while (rep[rep[r]] != rep[r]) rep[r] = rep[rep[r]];
  return changed;
}

pd_status pd_pda_dedup(pd_ir *w, pd_error *err) {
  size_t n = w->rules.len, cap = 16;
  while (cap < 2 * n) cap *= 2;
  uint32_t *rep = pd__malloc(w->alloc, n * sizeof *rep);
  size_t nodes = w->nodes.len ? w->nodes.len : 1;
  uint64_t *hash = pd__malloc(w->alloc, nodes * sizeof *hash);
  uint8_t *done = pd__calloc(w->alloc, nodes, 1);
  uint32_t *table = pd__malloc(w->alloc, cap * sizeof *table);
  if (!rep || !hash || !done || !table) {
    pd__free(w->alloc, rep);
    pd__free(w->alloc, hash);
    pd__free(w->alloc, done);
    pd__free(w->alloc, table);
    return pd__nomem(err);
  }
  for (uint32_t r = 0; r < n; r++) rep[r] = r;
  /* merging callees can make callers equal: a few rounds reach most of it */
  for (uint8_t round = 1; round <= 4 && pd__round(w, rep, hash, done, round, table, cap); round++) {
  }
  for (size_t i = 0; i < w->nodes.len; i++)
    if (w->nodes.data[i].kind == PD_IR_REF) w->nodes.data[i].a = rep[w->nodes.data[i].a];
  for (uint32_t r = 0; r < n; r++)
    if (rep[r] != r) w->rules.data[r].body = PD_IR_NONE; /* no automaton: nothing calls it */
  pd__free(w->alloc, rep);
  pd__free(w->alloc, hash);
  pd__free(w->alloc, done);
  pd__free(w->alloc, table);
  return PD_OK;
}
