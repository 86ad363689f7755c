/* pda.h - the pushdown automaton: one byte-level automaton per rule (internal).
 *
 * A compiled grammar holds one pd_pda. Every rule r of the (lowered) grammar
 * owns a contiguous range of states; the whole automaton lives in one
 * allocation (mem) with byte offsets, no pointers, so it can be copied or
 * serialized as a block:
 *
 *   rules  = (pd_pda_rule  *)(mem + rules_at)    [n_rules]
 *   states = (pd_pda_state *)(mem + states_at)   [n_states]
 *   edges  = (pd_pda_edge  *)(mem + edges_at)    [n_edges]
 *   names  = (char *)(mem + names_at)            [names_len], NUL-separated
 *
 *   states of rule r:   rules[r].start .. rules[r].start + rules[r].n_states - 1
 *   start state of r:   rules[r].start
 *   edges of state s:   edges[states[s].edges .. states[s].edges + n_byte + n_call + n_token)
 *                       in that order: byte edges, then call edges, then token edges
 *   byte edges of s:    sorted by lo, pairwise disjoint ([lo,hi] never overlap), so at
 *                       most one byte edge of a state matches a byte
 *   call edges of s:    sorted by callee, at most one per callee (the automaton of a
 *                       rule is deterministic: built by subset construction, then
 *                       minimized by merging equivalent states)
 *   token edges of s:   sorted by (id, negated), at most one per pair
 *
 * Edge meaning (the runtime is an Earley recognizer over these automata):
 *   PD_EDGE_BYTE  [lo,hi] -> to:   consume one byte b with lo <= b <= hi
 *   PD_EDGE_CALL  arg -> to:       derive rule arg (from its start state to one of its
 *                                  final states), then continue in state to (the
 *                                  return state, a state of the caller's rule)
 *   PD_EDGE_TOKEN arg, neg -> to:  consume one whole token: id == arg (neg = 0), or
 *                                  any single token id != arg (neg = 1)
 *
 * Invariants after compilation (pd_pda_build):
 *  - every rule is productive (derives some finite string); calls to rules that
 *    are not are removed (pruned), and a grammar whose root is not productive
 *    is refused with PD_ERR_SEMANTIC;
 *  - every state can reach a final state of its rule (dead states trimmed), so
 *    every non-empty Earley row is a viable prefix of some sentence;
 *  - rules[r].flags & PD_RULE_NULLABLE iff rule r derives the empty string.
 *
 * Bounded repetition x{m,n}: small counts (copies * size of x <= PD_PDA_INLINE_BUDGET,
 * at most PD_PDA_INLINE_COPIES copies) are expanded inline. Larger counts become
 * chains of helper rules, O(log n) of them, never copies of x:
 *   P_0 = x,  P_j ::= P_{j-1} P_{j-1}                 (exactly 2^j copies)
 *   Q_0 = "", Q_j ::= (P_{j-1} | "") Q_{j-1}          (0 .. 2^j - 1 copies)
 *   x{c}      = P_j1 P_j2 ...  for the set bits j of c
 *   x{0,n}    = Q_K | P_K x{0, n - 2^K}   with 2^K <= n < 2^(K+1)
 *   x{m,n}    = x{m} x{0, n-m};   x{m,} = x{m} x*
 * Each decomposition is unique in the number of copies, so the chain adds no
 * ambiguity of its own.
 *
 * A light x (no repetition inside; PD_PDA_BLOCK copies weigh at most
 * PD_PDA_BLOCK_BUDGET: a string character, a class) repeats up to PD_PDA_BLOCK times inline; past that the
 * chain runs over blocks of B = PD_PDA_BLOCK copies (helper rule x{B}) and the
 * last, partial block stays inline in the caller. With m = km B + tm and
 * n = kn B + tn:
 *   x{m,n} = X{km} x{tm,B-1} | X{km+1} X{0,kn-km-2} x{0,B-1} | X{kn} x{0,tn}
 * (X = the block; the middle term when kn - km >= 2, one term when km = kn),
 * and the same again behind a helper x{B/2} for the lengths >= B/2. Why: a
 * mask is cheap where some live item can take a token whole inside its own
 * rule; in the plain chain the innermost rule is one x, so every longer token
 * is context-dependent and checked against the parser (hundreds of ms inside a
 * maxLength 32767 string). With two phases half a block apart, some item
 * always has B/2 copies of room, and the tokens that close the string meet the
 * partial block in the caller's own automaton. The union is ambiguous (a
 * length >= B/2 has a parse in each phase), which the Earley matcher takes in
 * its stride. Bounds above options.max_repeat (default 2^24) are
 * refused with PD_ERR_LIMIT.
 *
 * A JSON string's long length bound is neither: the schema compiler makes it
 * a counted rule (pd_ir_counted; pd_pda_rule.count), whose units the matcher
 * counts in its items (earley.h), so a string's positions share masks.
 */
#ifndef PD_PDA_PDA_H
#define PD_PDA_PDA_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pda/ir.h"
#include "pushdown.h"

#define PD_PDA_INLINE_COPIES 16  /* at most this many inline copies of a repeated x */
#define PD_PDA_INLINE_BUDGET 256 /* copies * weight(x) at most this for inline copies */
#define PD_PDA_BLOCK 32          /* copies of a light x per block of a long repetition */
#define PD_PDA_BLOCK_BUDGET 8192 /* PD_PDA_BLOCK * weight(x) at most this for blocks */
#define PD_PDA_INLINE_RULE 1024  /* a non-recursive rule this light is copied into callers */
#define PD_PDA_MAX_NESTING 2048  /* IR expression nesting depth, else PD_ERR_LIMIT */

typedef enum pd_pda_edge_kind {
  PD_EDGE_BYTE = 0,
  PD_EDGE_CALL = 1,
  PD_EDGE_TOKEN = 2
} pd_pda_edge_kind;

typedef struct pd_pda_edge {
  uint8_t kind;   /* pd_pda_edge_kind */
  uint8_t lo, hi; /* BYTE: the inclusive byte range */
  uint8_t neg;    /* TOKEN: 1 = any token but arg */
  uint32_t arg;   /* CALL: callee rule; TOKEN: token id */
  uint32_t to;    /* target state (CALL: the return state) */
} pd_pda_edge;

enum {
  PD_STATE_FINAL = 1u << 0,     /* the rule may end here */
  PD_STATE_UNIT_START = 1u << 1, /* a counted rule's state between characters: a unit begins on
                                    every edge out of it (units.c) */
  PD_STATE_SET = 1u << 2,        /* a state of a set rule (pd_pda_rule.set_need) */
  PD_STATE_SET_CALLEE = 1u << 3  /* a state of a rule a set rule calls (masks/memo.c) */
};

typedef struct pd_pda_state {
  uint32_t rule;    /* the rule this state belongs to */
  uint32_t edges;   /* index of its first edge */
  uint32_t n_byte, n_call, n_token;
  uint32_t flags;   /* PD_STATE_* */
} pd_pda_state;

enum {
  PD_RULE_NULLABLE = 1u << 0, /* derives "" */
  PD_RULE_HELPER = 1u << 1    /* made by the compiler (repetition chain), not in the IR */
};

typedef struct pd_pda_rule {
  uint32_t start;    /* first state, also the start state */
  uint32_t n_states;
  uint32_t flags;    /* PD_RULE_* */
  uint32_t name;     /* offset of its NUL-terminated name in names */
  /* a counted rule's bound (pd_ir_counted), 0 for others: its automaton reads
   * JSON characters with byte edges only, and the matcher refuses an edge out
   * of a PD_STATE_UNIT_START state (a unit begins) once count units have */
  uint32_t count;
  /* a set rule (pd_ir_set): the members that must all complete before it may
   * end, 0 for others; its items carry the set of members completed (earley.h) */
  uint32_t set_need;
  /* a set member (pd_ir_set_member): 1 + its bit, 0 for others */
  uint32_t set_bit;
} pd_pda_rule;

typedef struct pd_pda {
  uint32_t n_rules, n_states, n_edges;
  uint32_t n_token_edges; /* of n_edges: 0 lets an accept skip the search for one */
  uint32_t n_counted;     /* counted rules (pd_pda_rule.count) */
  uint32_t n_set;         /* set rules (pd_pda_rule.set_need) */
  uint32_t root;  /* root rule */
  uint32_t n_ir_rules; /* rules 0 .. n_ir_rules-1 are the IR's rules, same numbering */
  size_t names_len;
  size_t rules_at, states_at, edges_at, names_at; /* byte offsets into mem */
  size_t size;    /* bytes of mem */
  void *mem;      /* one block, allocated with the grammar's allocator */
} pd_pda;

/* Limits the builder enforces (resolved: no zeros). */
typedef struct pd_pda_limits {
  uint32_t max_rules, max_states, max_repeat;
} pd_pda_limits;

struct pd_rule_cache;
/* Builds the automata of ir (which must have passed pd_pda_check) into *out.
 * vocab may be NULL; when given, token edges naming ids the vocab cannot
 * produce are dropped. cache may be NULL: rule automata built before are then
 * built again (rule_cache.h). On failure *out is zeroed and nothing leaks. */
pd_status pd_pda_build(const pd_ir *ir, const pd_vocab *vocab, struct pd_rule_cache *cache,
                       const pd_pda_limits *lim, const pd_allocator *a, pd_pda *out,
                       pd_error *err);
/* Checks ir for structural sanity: root set and defined, every referenced
 * rule defined (PD_ERR_SEMANTIC naming it), node indices in range. */
pd_status pd_pda_check(const pd_ir *ir, pd_error *err);
void pd_pda_free(pd_pda *p, const pd_allocator *a);

static inline const pd_pda_rule *pd_pda_rules(const pd_pda *p) {
  return (const pd_pda_rule *)(const void *)((const char *)p->mem + p->rules_at);
}
static inline const pd_pda_state *pd_pda_states(const pd_pda *p) {
  return (const pd_pda_state *)(const void *)((const char *)p->mem + p->states_at);
}
static inline const pd_pda_edge *pd_pda_edges(const pd_pda *p) {
  return (const pd_pda_edge *)(const void *)((const char *)p->mem + p->edges_at);
}
static inline const char *pd_pda_rule_name(const pd_pda *p, uint32_t rule) {
  return (const char *)p->mem + p->names_at + pd_pda_rules(p)[rule].name;
}

/* The call edge of state st (edges: the automaton's edge array) to rule, or
 * NULL: call edges are sorted by callee, at most one per callee. */
static inline const pd_pda_edge *pd_pda_call_to(const pd_pda_edge *edges, const pd_pda_state *st,
                                                uint32_t rule) {
  const pd_pda_edge *e = edges + st->edges + st->n_byte;
  uint32_t lo = 0, hi = st->n_call;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (e[mid].arg < rule) lo = mid + 1;
    else hi = mid;
  }
  return lo < st->n_call && e[lo].arg == rule ? &e[lo] : NULL;
}

/* Or's the bytes state st takes (its byte edges) into b (8 words). */
static inline void pd_pda_state_bytes(const pd_pda_edge *edges, const pd_pda_state *st,
                                      uint32_t b[8]) {
  const pd_pda_edge *e = edges + st->edges;
  for (uint32_t k = 0; k < st->n_byte; k++)
    for (uint32_t x = e[k].lo; x <= e[k].hi; x++) b[x >> 5] |= 1u << (x & 31);
}

/* The state st goes to on byte b, or UINT32_MAX (byte edges are sorted by lo). */
static inline uint32_t pd_pda_byte_target(const pd_pda_edge *edges, const pd_pda_state *st,
                                          uint8_t b) {
  const pd_pda_edge *e = edges + st->edges;
  for (uint32_t k = 0; k < st->n_byte && e[k].lo <= b; k++)
    if (b <= e[k].hi) return e[k].to;
  return UINT32_MAX;
}

/* Appends a readable dump (rules, states, edges) to a NUL-terminated string
 * allocated with a, owned by the caller. For golden tests and debugging. */
pd_status pd_pda_dump(const pd_pda *p, const pd_allocator *a, char **out);

#endif
