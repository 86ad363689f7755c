/* ir.h - the grammar IR every front end emits (GBNF, JSON Schema, regex, choice).
 *
 * A grammar is a list of rules; each rule has one body expression. Expressions
 * live in one node array and refer to each other by index, so building one is a
 * sequence of appends. Builders return a node id, or PD_IR_NONE after an
 * allocation failure; the failure is sticky (ir->oom) so a front end checks it
 * once at the end instead of after every call.
 *
 * Node encoding (pd_ir_node):
 *   EMPTY    matches ""                        -
 *   NOTHING  matches no string                 -
 *   BYTES    the literal bytes[off .. off+n)   off, n
 *   CLASS    one UTF-8 code point c with       off, n: ranges[off .. off+2n) as
 *            lo <= c <= hi for some pair       sorted, disjoint, non-adjacent
 *                                              pairs lo,hi (no surrogates)
 *   REF      the rule a                        a
 *   SEQ/ALT  kids[off .. off+n)                off, n
 *   REPEAT   a repeated min..max times         a, min, max (PD_IR_INF = no bound)
 *   TOKEN    the single token id a             a; negated: any one token but a
 *   DIFF     the strings of a that b does      a, off = b; both byte-level (every
 *            not match                         rule referenced is copied in; no tokens)
 *   AND      the strings of a that b matches   a, off = b; both byte-level. n = 1: b is
 *            too                               u{min,max} (a REPEAT), u non-empty and
 *                                              prefix-free; u's copies are counted, not made
 */
#ifndef PD_PDA_IR_H
#define PD_PDA_IR_H
#include <stdbool.h>
#include <stdint.h>

#include "base/array.h"
#include "pushdown.h"

#define PD_IR_NONE UINT32_MAX
#define PD_IR_INF UINT32_MAX
#define PD_IR_MAX_CODEPOINT 0x10FFFFu

typedef enum pd_ir_kind {
  PD_IR_EMPTY,
  PD_IR_NOTHING,
  PD_IR_BYTES,
  PD_IR_CLASS,
  PD_IR_REF,
  PD_IR_SEQ,
  PD_IR_ALT,
  PD_IR_REPEAT,
  PD_IR_TOKEN,
  PD_IR_DIFF,
  PD_IR_AND
} pd_ir_kind;

typedef struct pd_ir_node {
  uint8_t kind;    /* pd_ir_kind */
  uint8_t negated; /* TOKEN only */
  uint32_t a;      /* REF: rule; REPEAT, DIFF: child node; TOKEN: token id */
  uint32_t off, n; /* BYTES/CLASS/SEQ/ALT: slice; REPEAT: off = min, n = max; DIFF: off = b */
} pd_ir_node;

typedef struct pd_ir_rule {
  uint32_t name_off, name_len; /* into names */
  uint32_t body;               /* node, or PD_IR_NONE while only referenced */
  size_t ref_offset;           /* source offset of the first reference (for errors) */
  uint32_t flags;              /* PD_IR_RULE_* */
  uint32_t count;              /* a counted rule's bound in characters (pd_ir_counted); 0 = not */
  uint32_t set_need;           /* a set rule's members that must all complete (pd_ir_set) */
  uint32_t set_bit;            /* a set member's bit + 1 (pd_ir_set_member); 0: not one */
} pd_ir_rule;

enum {
  /* The front end builds the rule close to minimal, and its automaton is
   * neither minimized nor has its NFA's tails merged: adjacent byte ranges are
   * merged and no more (pda.c). An object member (a key's spellings, a
   * separator, a value's reference) lost 0.7 of its 104 states on average to
   * minimization over MaskBench, for 28 us a member: a ninth of the time to
   * first mask; merging tails first cost another 2-4%, and saved a state per
   * character of a declared name (its raw and escaped spellings end apart). */
  PD_IR_RULE_NO_MINIMIZE = 1u << 0,
  /* Never copied into its callers (inline.c), however small: a character's
   * escapes called from every position of a host name, where copies made each
   * position a dozen states (schema_string.c). */
  PD_IR_RULE_CALLED = 1u << 1,
  /* Never merged with a rule of an equal body (dedup.c): the whitespace of
   * each place in JSON is a rule of its own, so that its lookahead holds only
   * what may follow it there (schema_json.c). */
  PD_IR_RULE_DISTINCT = 1u << 2
};

typedef struct pd_ir {
  const pd_allocator *alloc;
  PD_ARRAY(pd_ir_node) nodes;
  PD_ARRAY(uint32_t) kids;
  PD_ARRAY(uint8_t) bytes;
  PD_ARRAY(uint32_t) ranges;
  PD_ARRAY(pd_ir_rule) rules;
  PD_ARRAY(char) names;
  PD_ARRAY(uint32_t) table; /* open-addressing name -> rule + 1; 0 = empty */
  uint32_t root;            /* root rule, PD_IR_NONE until set */
  bool oom;
} pd_ir;

void pd_ir_init(pd_ir *ir, const pd_allocator *alloc);
void pd_ir_free(pd_ir *ir);

/* The rule named name[0..len): found, or created with no body yet. */
uint32_t pd_ir_rule_named(pd_ir *ir, const char *name, size_t len);
/* Looks a rule up without creating it; PD_IR_NONE when absent. */
uint32_t pd_ir_rule_find(const pd_ir *ir, const char *name, size_t len);
/* A fresh rule with a unique name built from hint (for generated grammars). */
uint32_t pd_ir_rule_fresh(pd_ir *ir, const char *hint);
void pd_ir_rule_define(pd_ir *ir, uint32_t rule, uint32_t body);
/* Makes body the language of the rule "root" and that rule the root. */
void pd_ir_set_root(pd_ir *ir, uint32_t body);
/* Sets flags (PD_IR_RULE_*) on rule; no-op on PD_IR_NONE (after a failure). */
void pd_ir_rule_flag(pd_ir *ir, uint32_t rule, uint32_t flags);

uint32_t pd_ir_empty(pd_ir *ir);
uint32_t pd_ir_nothing(pd_ir *ir);
uint32_t pd_ir_bytes(pd_ir *ir, const void *bytes, size_t len);
/* A code-point class from pairs[0..2*n_pairs) (any order, may overlap);
 * negated complements within 0..0x10FFFF. Surrogates are always removed. */
uint32_t pd_ir_class(pd_ir *ir, const uint32_t *pairs, size_t n_pairs, bool negated);
uint32_t pd_ir_any_char(pd_ir *ir);
uint32_t pd_ir_ref(pd_ir *ir, uint32_t rule);
uint32_t pd_ir_seq(pd_ir *ir, const uint32_t *nodes, size_t n);
uint32_t pd_ir_alt(pd_ir *ir, const uint32_t *nodes, size_t n);
uint32_t pd_ir_seq2(pd_ir *ir, uint32_t a, uint32_t b);
uint32_t pd_ir_alt2(pd_ir *ir, uint32_t a, uint32_t b);
uint32_t pd_ir_repeat(pd_ir *ir, uint32_t node, uint32_t min, uint32_t max);
uint32_t pd_ir_token(pd_ir *ir, uint32_t token_id, bool negated);
/* The strings a matches and b does not (a JSON key that is not a declared
 * name): built as one deterministic automaton, never as copies per name. Every
 * rule a and b refer to is copied in, since the product reads bytes only (a
 * string's character rule, a pattern's shared parts, the block rules of a
 * long count). */
uint32_t pd_ir_diff(pd_ir *ir, uint32_t a, uint32_t b);
/* The strings both a and b match (a string under two patterns), one product
 * automaton. */
uint32_t pd_ir_and(pd_ir *ir, uint32_t a, uint32_t b);
/* The strings of body (a JSON string's body: bytes of JSON characters, no
 * calls or tokens once rules are copied in) of at most max characters, as a
 * call of a rule the matcher counts (earley.h): the matcher refuses its
 * (max+1)-th character, so a long bound costs neither copies nor a state per
 * position (a JSON string's maxLength, alone or beside a pattern or format).
 * A raw UTF-8 character, an escape and a surrogate pair of escapes are one
 * character each (units.c marks where each begins). max >= 1. */
uint32_t pd_ir_counted(pd_ir *ir, uint32_t body, uint32_t max);
/* Members written in any order, each at most once: an object with more
 * required properties than subsets of them can be rules (2^18 for 18). The
 * matcher keeps the set of members written in the set rule's items (earley.h)
 * instead. pd_ir_set_member(ir, body, p) is member p (p < 32) as a fresh rule
 * that is always called; pd_ir_set(ir, body, need) is a fresh rule whose body
 * calls members, that may complete each member at most once and may end only
 * once every member in need has completed (need != 0). A member belongs to one
 * set rule. */
uint32_t pd_ir_set_member(pd_ir *ir, uint32_t body, uint32_t p);
uint32_t pd_ir_set(pd_ir *ir, uint32_t body, uint32_t need);
/* The strings of a made of min..max units u (a JSON string's body whose
 * characters are counted): one product automaton of a and a counter, never
 * max copies of u. u must be non-empty and prefix-free (a string of units
 * splits into them one way). */
uint32_t pd_ir_and_count(pd_ir *ir, uint32_t a, uint32_t u, uint32_t min, uint32_t max);

static inline const pd_ir_node *pd_ir_at(const pd_ir *ir, uint32_t node) {
  return &ir->nodes.data[node];
}
static inline const char *pd_ir_rule_name(const pd_ir *ir, uint32_t rule) {
  return ir->names.data + ir->rules.data[rule].name_off;
}

/* Appends a readable dump of every rule to out (NUL-terminated, allocated with
 * ir->alloc, owned by the caller). For golden tests and debugging. */
pd_status pd_ir_dump(const pd_ir *ir, char **out);

#endif
