/* build.h - the passes of pd_pda_build (internal to pda/).
 *
 *   repeat.c  lowers large x{m,n} in a working copy of the IR into helper rules
 *   inline.c  picks the small non-recursive rules that are copied into their callers
 *   nfa.c     one rule body -> Thompson NFA with epsilon edges (UTF-8 -> byte ranges)
 *   nfa_tails.c merges the NFA's copies that end alike, before determinization
 *   nfa_diff.c a difference of two byte-level expressions, or one cut to a count of
 *             units, as a product automaton
 *   sets.c    the interned NFA-state sets of both subset constructions
 *   dfa.c     NFA -> deterministic automaton by subset construction, appended to the
 *             growing state/edge arrays of the whole grammar
 *   minimize.c merges equivalent states of that automaton
 *   pda.c     checks, productive/dead-state pruning, nullable rules, packing
 */
#ifndef PD_PDA_BUILD_H
#define PD_PDA_BUILD_H
#include "base/array.h"
#include "pda/ir.h"
#include "pda/pda.h"

#define PD_NFA_EPS 3 /* NFA-only edge kind next to pd_pda_edge_kind */

/* Subset states one rule, or one product of two expressions in it, may take
 * before minimization. A search pattern such as "a" and then dozens of "."
 * has an exponential automaton: it ran for a minute and a half up to the
 * grammar's whole limit (fuzz_schema), and a oneOf of such patterns (each
 * branch less the others, nfa_diff.c) for 50 s. The largest rule of all
 * MaskBench schemas takes 24,192. */
#define PD_PDA_RULE_MAX_STATES (1u << 18)

typedef struct pd_nfa_edge {
  uint32_t from, to;
  uint8_t kind; /* pd_pda_edge_kind or PD_NFA_EPS */
  uint8_t lo, hi, neg;
  uint32_t arg;
} pd_nfa_edge;

/* A Thompson NFA for one rule. After pd_pda_nfa_build, edges are sorted by
 * from and the edges of state q are edges[first[q] .. first[q+1]). */
typedef struct pd_nfa {
  const pd_allocator *a;
  uint32_t n_states, start, final;
  PD_ARRAY(pd_nfa_edge) edges;
  PD_ARRAY(uint32_t) first;
  PD_ARRAY(pd_nfa_edge) spare; /* scratch of the sort by source */
  uint32_t max_states; /* NFA states allowed, else PD_ERR_LIMIT */
  const uint32_t *inl; /* per rule: copied in at a reference unless PD_IR_NONE; may be NULL */
  /* rules already built with the same inl (ready[r] != 0): a reference copies
   * that finished automaton instead of expanding the body again (may be NULL) */
  const struct pd_pda_builder *built;
  const uint8_t *ready;
  /* an operand of an AND or a DIFF (nfa_diff.c): every reference is copied in, since
   * the product reads bytes only (the regex front end shares parts of a
   * pattern through rules of its own); a cycle ends at the nesting bound */
  bool copy_all;
  bool keep_tails; /* no pd_pda_nfa_merge_tails: a rule flagged PD_IR_RULE_NO_MINIMIZE */
  /* a product went past PD_PDA_RULE_MAX_STATES, which no inline plan moves
   * (its operands are copied in whole): pda.c does not build the rule again */
  bool capped;
} pd_nfa;

/* The automata of the whole grammar while they are built. */
typedef struct pd_pda_builder {
  const pd_allocator *a;
  PD_ARRAY(pd_pda_state) states;
  PD_ARRAY(pd_pda_edge) edges;
  PD_ARRAY(pd_pda_rule) rules;
  uint32_t max_states;
} pd_pda_builder;

/* Replaces every REPEAT node of w that is too large to copy inline by helper
 * rules (see pda.h); checks bounds against max_repeat. */
pd_status pd_pda_lower_repeats(pd_ir *w, uint32_t max_repeat, pd_error *err);

/* How pd_ir_same compares: rules through rep (rule -> the rule standing for
 * it; NULL: by number), nodes first by hash (NULL: none), and at most *budget
 * node pairs in all (then the answer is false: never a wrong true). */
typedef struct pd_ir_eq {
  const uint32_t *rep;
  const uint64_t *hash;
  size_t *budget;
} pd_ir_eq;

/* Whether expressions a and b are equal (dedup.c). */
bool pd_ir_same(const pd_ir *w, uint32_t a, uint32_t b, const pd_ir_eq *eq, int depth);

/* Merges rules whose bodies are equal (after merging their callees): every
 * reference goes to one of them and the others lose their bodies. The root
 * keeps its number. */
pd_status pd_pda_dedup(pd_ir *w, pd_error *err);
/* Marks PD_STATE_UNIT_START in the automata of w's counted rules (units.c);
 * PD_ERR_INTERNAL for one that does not read JSON characters. */
pd_status pd_pda_mark_units(pd_pda_builder *b, const pd_ir *w, pd_error *err);
/* Weight of a node: roughly the NFA states it costs when inlined (capped). */
uint32_t pd_pda_weight(const pd_ir *w, uint32_t node, int depth);
/* Whether a REPEAT node of child weight weight and bounds min..max is copied inline. */
bool pd_pda_repeat_inline(uint32_t weight, uint32_t min, uint32_t max);

/* *out[r] = the weight of rule r when it is copied into its callers, else
 * PD_IR_NONE; rules from n_own on are never copied (inline.c; free with w's
 * allocator). */
pd_status pd_pda_inline_plan(const pd_ir *w, size_t n_own, uint32_t **out, pd_error *err);

/* Builds the NFA of body into nfa (cleared first). */
pd_status pd_pda_nfa_build(pd_nfa *nfa, const pd_ir *w, uint32_t body, pd_error *err);
void pd_pda_nfa_free(pd_nfa *nfa);

/* Appends to n the deterministic fragment for L(a) minus L(b), entered from
 * state in; *out gets its exit (nfa_diff.c). */
pd_status pd_pda_nfa_diff(pd_nfa *n, const pd_ir *w, uint32_t a, uint32_t b, uint32_t in,
                          uint32_t *out, pd_error *err);
/* The same for L(a) and L(b), or (counted) L(a) cut to min..max units,
 * b = u{min,max} (nfa_diff.c). */
pd_status pd_pda_nfa_and(pd_nfa *n, const pd_ir *w, uint32_t a, uint32_t b, bool counted,
                         uint32_t in, uint32_t *out, pd_error *err);

/* Merges states of nfa with the same right language (nfa_tails.c). */
pd_status pd_pda_nfa_merge_tails(pd_nfa *nfa, pd_error *err);

/* Determinizes nfa as the states of rule (appended to b; fills b->rules[rule]). */
pd_status pd_pda_dfa_build(pd_pda_builder *b, const pd_nfa *nfa, uint32_t rule, pd_error *err);

/* Merges equivalent states of rule (the last rule appended to b), then
 * adjacent byte ranges to the same state; with full false, only the ranges. */
pd_status pd_pda_minimize(pd_pda_builder *b, uint32_t rule, bool full, pd_error *err);

#endif
