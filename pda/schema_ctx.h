/* schema_ctx.h - the JSON Schema compiler's state, shared by pda/schema*.c.
 *
 * Model. A schema position is compiled as a conjunction ("conj") of schema
 * nodes that must all hold, plus a mask of allowed JSON types. allOf and $ref
 * add members; anyOf / oneOf / if-then-else distribute (conj AND (A OR B) =
 * (conj AND A) OR (conj AND B)); then the language is the union over allowed
 * types of one exact builder per type (strings, numbers, arrays, objects),
 * each reading the keywords of every member. A conj lives as a slice of
 * sc->pool; each entry is node << 3 | consumed-flags. Every compiled conj
 * becomes one IR rule, memoized by its entries, so recursive $refs close into
 * recursive rules.
 *
 * Exact or loud: a keyword that applies to an allowed type and that the
 * builders cannot enforce exactly goes through pd_sc_unsupported, which fails
 * (naming keyword and JSON pointer) or, when lenient, records it and goes on
 * as if it were absent.
 */
#ifndef PD_PDA_SCHEMA_CTX_H
#define PD_PDA_SCHEMA_CTX_H
#include <stdbool.h>
#include <stdint.h>

#include "base/array.h"
#include "pda/ir.h"
#include "pda/json.h"
#include "pushdown.h"

/* Allowed-type mask. INT and FRAC split "number" into integral and
 * non-integral values; type "number" is INT | FRAC. */
enum {
  PD_SC_NULL = 1,
  PD_SC_BOOL = 2,
  PD_SC_INT = 4,
  PD_SC_FRAC = 8,
  PD_SC_STR = 16,
  PD_SC_ARR = 32,
  PD_SC_OBJ = 64,
  PD_SC_NUM = PD_SC_INT | PD_SC_FRAC,
  PD_SC_ALL = 127
};

/* Conj entry flags: the disjunctive keyword of that member was distributed. */
enum {
  PD_SC_ANYOF_DONE = 1,
  PD_SC_ONEOF_DONE = 2,
  PD_SC_IF_DONE = 4,
  PD_SC_DEP_DONE = 8,
  PD_SC_NOT_DONE = 16
};
#define PD_SC_ENTRY(node, flags) ((node) << 5 | (flags))
#define PD_SC_NODE(e) ((e) >> 5)
#define PD_SC_FLAGS(e) ((e)&31u)

typedef struct pd_sc_memo {
  uint64_t hash;
  uint32_t off, n; /* key entries in sc->memo_keys */
  uint32_t types, depth, rule;
} pd_sc_memo;

/* An embedded resource: a schema with an $id, and its absolute URI (without
 * fragment) at uris[off .. off + len). */
typedef struct pd_sc_resource {
  uint32_t node, off, len;
} pd_sc_resource;

/* Where JSON whitespace stands. Each place has a whitespace rule of its own
 * (equal bodies, kept apart): a rule's lookahead is the union of what may
 * follow it anywhere, and a token that begins with whitespace and runs past
 * it is decided by the live parser when no caller class takes it (pair.c).
 * One shared rule had every value's first byte in its lookahead, so before
 * a key its context-dependent tokens were every " t...", " f...", " n..."
 * word too (4,419 tokens in Llama 3), walked at each new configuration. */
typedef enum pd_sc_ws_at {
  PD_SC_WS_VALUE, /* before a value (or an array's "]") */
  PD_SC_WS_KEY,   /* before a member's key (or an object's "}") */
  PD_SC_WS_AFTER, /* after a value or a key: before ",", ":", "]", "}" or the end */
  PD_SC_WS_PLACES
} pd_sc_ws_at;

typedef struct pd_sc {
  pd_json_doc doc;
  pd_ir ir;
  const char *text;        /* the schema text, for error positions */
  pd_grammar_options opts; /* resolved */
  pd_error *err;
  PD_ARRAY(uint32_t) pool; /* conj entries, used as a stack */
  PD_ARRAY(pd_sc_memo) memo;
  PD_ARRAY(uint32_t) memo_keys;
  PD_ARRAY(char) relaxed; /* "keyword at /pointer\n" lines */
  PD_ARRAY(uint32_t) synth;  /* dependentSchemas: key, {required:[key]}, {properties:{key:false}} */
  PD_ARRAY(uint32_t) negs;   /* derived failure schemas: (source node, derived node) pairs */
  PD_ARRAY(uint32_t) negsch; /* negated schemas: (schema node, derived node) pairs */
  PD_ARRAY(uint32_t) negating; /* schemas being negated now, outermost first */
  uint32_t depth;         /* compile recursion depth */
  size_t any_order_left;  /* rules the objects in any order may still take */
  /* shared, lazily made */
  uint32_t ws_rule[PD_SC_WS_PLACES], value_rule, string_rule, number_rule, jchar_rule;
  uint32_t host_rule; /* format hostname, lazily made */
  /* the spellings of each ASCII character (node + 1, 0 = not made yet): the
   * names of an object's members are spelled character by character, raw or
   * escaped, and making the same escapes again was 3% of the time to first mask */
  uint32_t spelled_ascii[128];
  bool int_no_frac;   /* draft-04 "$schema": an integer is written without a fraction */
  bool ref_alone;     /* draft-04/06/07 "$schema": "$ref" ignores its sibling keywords */
  uint32_t n_parsed;  /* nodes of the parsed schema; later ones are derived */
  /* opts.schema_docs[i] is parsed into doc after the schema: its root is
   * doc_roots[i], and its nodes lie between n_main and n_parsed */
  PD_ARRAY(uint32_t) doc_roots;
  uint32_t n_main;
  /* the resources, the root's first, made by the first $ref (schema_ref.c) */
  PD_ARRAY(pd_sc_resource) res;
  PD_ARRAY(char) uris;
} pd_sc;

/* A conj: entries sc->pool.data[off .. off+n) and the allowed types. */
typedef struct pd_sc_conj {
  size_t off, n;
  uint32_t types;
} pd_sc_conj;

static inline uint32_t pd_sc_member(const pd_sc *sc, const pd_sc_conj *c, size_t i) {
  return PD_SC_NODE(sc->pool.data[c->off + i]);
}

/* ---- schema.c: driver */
/* Compiles the conj of entries pool[off .. off+n) (which the call may pop)
 * at nesting depth (indentation level) into *node. */
pd_status pd_sc_compile(pd_sc *sc, size_t off, size_t n, uint32_t types, uint32_t depth,
                        uint32_t *node);
/* Compiles the conj of schema nodes list[0..k) (PD_JSON_NONE entries skipped). */
pd_status pd_sc_compile_nodes(pd_sc *sc, const uint32_t *list, size_t k, uint32_t depth,
                              uint32_t *node);
/* Reports keyword kw of schema node at as not enforceable: an error, or under
 * lenient a note in sc->relaxed and PD_OK. */
pd_status pd_sc_unsupported(pd_sc *sc, uint32_t at, const char *kw, const char *why);
/* A schema error (PD_ERR_SEMANTIC / SYNTAX) at node at. */
pd_status pd_sc_fail(pd_sc *sc, pd_status code, uint32_t at, const char *fmt, ...);
pd_status pd_sc_ir_status(pd_sc *sc);
/* Value of keyword kw in member i of conj c, or PD_JSON_NONE. */
uint32_t pd_sc_kw(const pd_sc *sc, const pd_sc_conj *c, size_t i, const char *kw);
/* Whether the number node is a non-negative integer that fits in uint32. */
bool pd_sc_uint(const pd_sc *sc, uint32_t node, uint32_t *out);
/* Combines an unsigned bound over every member: the largest minimum
 * (want_max false) or the smallest maximum (want_max true; PD_IR_INF if none). */
pd_status pd_sc_bound(pd_sc *sc, const pd_sc_conj *c, const char *kw, bool want_max, uint32_t *out);

/* The schema nodes whose annotations member node m sees (for unevaluated*):
 * m and, transitively, its allOf members, $ref target and the anyOf / oneOf /
 * then / else branches the conj holds. *out allocated with the IR allocator
 * (caller frees); NULL on allocation failure. */
uint32_t *pd_sc_reach(pd_sc *sc, const pd_sc_conj *c, uint32_t m, size_t *n);

/* Keywords only derived schemas carry (nodes added after parsing): a string
 * is none of the listed strings; a string the pattern does not match; a
 * number that is not a multiple of the integer; a string the format (one
 * enforced by a regex) does not take. */
#define PD_SC_NOT_IN "$pd:notIn"
#define PD_SC_NOT_PATTERN "$pd:notPattern"
#define PD_SC_NOT_MULTIPLE "$pd:notMultipleOf"
#define PD_SC_NOT_FORMAT "$pd:notFormat" /* a string the format's regex does not match */
/* an object with a member whose key is none of the names (the keys of an
 * object node) and whose value the schema of PD_SC_SOME_VALUE takes */
#define PD_SC_SOME_KEY "$pd:someKeyNotIn"
#define PD_SC_SOME_VALUE "$pd:someValue"
/* beside PD_SC_SOME_KEY: the member's key also matches this pattern, or none
 * of these patterns (an array) */
#define PD_SC_SOME_PATTERN "$pd:someKeyMatching"
#define PD_SC_SOME_NOT_MATCHING "$pd:someKeyMatchingNone"
/* the negation of the schema that is the value, made once that negation is
 * done: where a recursive schema meets itself inside it */
#define PD_SC_NEG_OF "$pd:negationOf"
static inline bool pd_sc_derived(const pd_sc *sc, uint32_t node) {
  return node != PD_JSON_NONE && node >= sc->n_parsed;
}
/* The value of derived keyword kw of schema m, or NONE. */
static inline uint32_t pd_sc_derived_kw(const pd_sc *sc, uint32_t m, const char *kw) {
  return pd_sc_derived(sc, m) ? pd_json_get(&sc->doc, m, kw) : PD_JSON_NONE;
}

/* One way an instance fails a schema: being of the types and matching node
 * (a schema node, possibly derived). */
typedef struct pd_sc_lit {
  uint32_t node, types;
} pd_sc_lit;
#define PD_SC_MAX_LITS 16u
/* Negates schema s when it is a conjunction ($ref, allOf) of type, numeric /
 * length / count bounds, required names, const / enum, pattern, a format a
 * regex decides, multipleOf, properties, patternProperties,
 * additionalProperties, prefixItems and items (no prefix) of negatable
 * schemas, and not, anyOf and oneOf (annotations ignored; a recursive schema
 * refers to its own negation): an instance fails s iff its type is outside
 * *mask, or it is of lits[k].types and matches lits[k].node for some k < *n.
 * *ok false when s has any other shape or more ways to fail than
 * PD_SC_MAX_LITS. */
pd_status pd_sc_negate(pd_sc *sc, uint32_t s, uint32_t *mask, pd_sc_lit *lits, size_t *n, bool *ok);
/* The keyword value derived schema m was made from (a refusal points there),
 * or m itself. */
uint32_t pd_sc_neg_origin(const pd_sc *sc, uint32_t m);
/* Whether the strict option closes schema object s: it says nothing of
 * additionalProperties and has properties or a type (additionalProperties is
 * false for it then, wherever it applies). */
bool pd_sc_strict_closes(const pd_sc *sc, uint32_t s);
/* The negation of schema S (a PD_SC_NEG_OF value), or PD_JSON_NONE when it
 * was never completed. */
uint32_t pd_sc_neg_target(const pd_sc *sc, uint32_t S);

/* The values schema s allows when it is a finite set given by const / enum /
 * a type of null and booleans (with type filtering; annotations ignored):
 * vals[0..*n), distinct, at most cap; false otherwise. `false` allows none. */
bool pd_sc_finite_values(pd_sc *sc, uint32_t s, uint32_t *vals, size_t cap, size_t *n);

typedef enum pd_sc_verdict { PD_SC_NO, PD_SC_YES, PD_SC_UNKNOWN } pd_sc_verdict;

/* ---- schema_disjoint.c */
/* The finite value set schema s gives by const (*single) or enum, or NONE. */
uint32_t pd_sc_values(pd_sc *sc, uint32_t s, bool *single);
/* Whether x equals vals (single) or one of the array vals. */
bool pd_sc_in_values(pd_sc *sc, uint32_t vals, bool single, uint32_t x);
/* *proved = the types, of types, no instance of which satisfies a, b and
 * the schemas ctx[0..n_ctx) (those around them) together. */
pd_status pd_sc_disjoint(pd_sc *sc, uint32_t a, uint32_t b, uint32_t types, const uint32_t *ctx,
                         size_t n_ctx, uint32_t *proved);
/* Whether a and b are closed objects that share no property name: their
 * objects have no member in common, so {} is the only instance both may take. */
pd_status pd_sc_closed_apart(pd_sc *sc, uint32_t a, uint32_t b, bool *yes);
/* Whether schema s takes the empty object, where its keywords decide that
 * alone (PD_SC_UNKNOWN otherwise: enum, a combinator, a $ref beside others). */
pd_sc_verdict pd_sc_takes_empty_object(pd_sc *sc, uint32_t s);
/* Whether schema s accepts every instance of type t (one type bit). */
bool pd_sc_accepts_all(pd_sc *sc, uint32_t s, uint32_t t);
/* Whether the asserting keywords of schema object s are all in allowed (NULL-ended). */
bool pd_sc_only_keys(pd_sc *sc, uint32_t s, const char *const *allowed);

/* ---- schema.c: shared with schema_not.c */
/* Whether keyword name is known and asserts something (not an annotation). */
bool pd_sc_kw_asserts(const char *name);
/* The instance types an asserting keyword constrains (0: an annotation, or
 * not a keyword). */
uint32_t pd_sc_kw_constrains(const char *name);
/* The type mask of a "type" value t (a name or a list). */
pd_status pd_sc_type_mask(pd_sc *sc, uint32_t t, uint32_t *mask);
/* The same for a proof: nothing reported, false when t is malformed. */
bool pd_sc_type_mask_quiet(pd_sc *sc, uint32_t t, uint32_t *mask);
/* The type bit of the JSON value v (INT or FRAC for numbers). */
uint32_t pd_sc_value_type(pd_sc *sc, uint32_t v);
/* Whether schema s asserts nothing (true, {} or absent). */
bool pd_sc_trivial_schema(const pd_sc *sc, uint32_t s);
/* The schemas {"required": [key]} (*req) and {"properties": {key: false}}
 * (*forbid), made once per key. */
pd_status pd_sc_key_schemas(pd_sc *sc, uint32_t key, uint32_t *req, uint32_t *forbid);

/* ---- schema_not.c: negation */
/* A derived schema {kw: number} (the number's text[0..n)); PD_JSON_NONE when
 * out of memory. */
uint32_t pd_sc_derived_number(pd_sc *sc, const char *kw, const char *text, size_t n);
/* Orders the JSON values a and b (numbers by value). */
int pd_sc_value_cmp(pd_sc *sc, uint32_t a, uint32_t b);

/* ---- schema_value.c: a value of the schema document against a schema */
/* Whether JSON value v meets keyword name = x of schema object s (its
 * siblings read where the keyword depends on them: additionalProperties,
 * additionalItems, items after prefixItems, draft-04 exclusive bounds). */
pd_status pd_sc_value_kw(pd_sc *sc, uint32_t v, uint32_t s, const char *name, uint32_t x,
                         pd_sc_verdict *out);
/* Whether object v meets the closure --strict gives schema s (PD_SC_YES when
 * the option or the closure does not apply). */
pd_status pd_sc_value_closed(pd_sc *sc, uint32_t v, uint32_t s, pd_sc_verdict *out);

/* ---- schema_ref.c: $ref targets */
/* *target = the schema node $ref (node ref, in schema) names; PD_JSON_NONE
 * (with PD_OK) when lenient dropped an unresolvable remote reference. */
pd_status pd_sc_ref_resolve(pd_sc *sc, uint32_t schema, uint32_t ref, uint32_t *target);
/* The same for $dynamicRef where its resolution does not depend on the
 * dynamic scope (else refused; PD_JSON_NONE with PD_OK when lenient). */
pd_status pd_sc_dynref_resolve(pd_sc *sc, uint32_t schema, uint32_t ref, uint32_t *target);
/* Schema s as draft-07 and before read it: a schema with "$ref" is its
 * target alone, siblings ignored (followed up to 16 times); s itself in
 * later drafts. The proofs and negations start from it, as the compile's
 * flattening does. */
uint32_t pd_sc_alone(pd_sc *sc, uint32_t s);
/* Either resolution (dynamic: $dynamicRef) for a proof or a look-ahead: it
 * reports and notes nothing; false when it does not resolve to a schema. */
bool pd_sc_ref_quiet(pd_sc *sc, uint32_t schema, uint32_t ref, bool dynamic, uint32_t *target);

/* ---- schema_json.c: whitespace, separators, any JSON value */
/* between tokens (FLEXIBLE), the rule of its place; "" otherwise */
uint32_t pd_sc_ws(pd_sc *sc, pd_sc_ws_at at);
/* after "[" / "{" of a non-empty container (obj: "{") */
uint32_t pd_sc_open_ws(pd_sc *sc, uint32_t depth, bool obj);
uint32_t pd_sc_close_ws(pd_sc *sc, uint32_t depth); /* before "]" / "}" of a non-empty one */
uint32_t pd_sc_empty_ws(pd_sc *sc);                 /* inside "[]" / "{}" */
/* "," between items (obj: members), with whitespace */
uint32_t pd_sc_item_sep(pd_sc *sc, uint32_t depth, bool obj);
uint32_t pd_sc_key_sep(pd_sc *sc);                  /* ":" with whitespace */
bool pd_sc_indented(const pd_sc *sc);               /* FIXED with indent >= 0 */
/* Any JSON value of the given types (mask) at depth. */
uint32_t pd_sc_any_value(pd_sc *sc, uint32_t types, uint32_t depth);
/* The literal JSON text of value node v, with every writing of equal value
 * (string escapes, 1 = 1.0, object members as written). */
uint32_t pd_sc_literal(pd_sc *sc, uint32_t v, uint32_t depth);

/* ---- schema_string.c */
/* One string character (decoded code point in pairs[0..2n)) as JSON writes it. */
uint32_t pd_sc_jchar(pd_ir *ir, const uint32_t *pairs, size_t n_pairs, void *ud);
uint32_t pd_sc_any_string(pd_sc *sc);
/* The JSON string (with quotes) whose decoded value is s[0..len). */
uint32_t pd_sc_string_literal(pd_sc *sc, const char *s, size_t len);
/* Any JSON string (with quotes) whose decoded value is none of names[i]
 * (string nodes). */
uint32_t pd_sc_string_not_in(pd_sc *sc, const uint32_t *names, size_t n);
pd_status pd_sc_string(pd_sc *sc, const pd_sc_conj *c, uint32_t *node);
/* How format node f is enforced: 0 not at all (unknown: an annotation), 1 by
 * a regex, 2 otherwise (a grammar of its own, or refused). */
int pd_sc_format_kind(pd_sc *sc, uint32_t f);
/* The JSON string (with quotes) whose decoded value the pattern (a string
 * node, ECMA-262, search semantics) matches. */
pd_status pd_sc_pattern_key(pd_sc *sc, uint32_t pattern, uint32_t *node);
/* Whether the pattern matches the decoded string s[0..n) (lenient-dropped
 * patterns report no match). */
pd_status pd_sc_pattern_test(pd_sc *sc, uint32_t pattern, const char *s, size_t n, bool *match);
/* Whether the string s[0..n) meets the string keyword name = x, when that is
 * decided here ("pattern", and a "format" with a regex): *known, *match. */
pd_status pd_sc_string_meets(pd_sc *sc, const char *name, uint32_t x, const char *s, size_t n,
                             bool *known, bool *match);
/* Whether some string matches both patterns pa and pb (search semantics):
 * *known when decided (an automaton of both), *meet. */
pd_status pd_sc_patterns_meet(pd_sc *sc, uint32_t pa, uint32_t pb, bool *known, bool *meet);

/* ---- schema_number.c */
/* The spellings of number v's value; digits_only: an integral value as its
 * digits alone (a draft-04 "integer": no fraction, no exponent). */
uint32_t pd_sc_number_literal(pd_sc *sc, uint32_t v, bool digits_only);
pd_status pd_sc_number(pd_sc *sc, const pd_sc_conj *c, uint32_t *node);

/* ---- schema_array.c / schema_object.c */
pd_status pd_sc_array(pd_sc *sc, const pd_sc_conj *c, uint32_t depth, uint32_t *node);
pd_status pd_sc_object(pd_sc *sc, const pd_sc_conj *c, uint32_t depth, uint32_t *node);

#endif
