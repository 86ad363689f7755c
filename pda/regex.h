/* regex.h - the ECMA-262 regular-expression front end (JSON Schema `pattern`,
 * the `regex` constraint kind).
 *
 * A pattern is translated into an IR expression over code points. Every
 * character the pattern can match (a literal, a class, `.`, `\d`, ... and the
 * characters a search may skip) is written through a pd_regex_target, so a
 * caller can say how one character appears in its output: the JSON Schema
 * front end writes it as it may appear inside a JSON string (literally or as
 * an escape); NULL writes it as raw UTF-8 (pd_ir_class / pd_ir_bytes).
 *
 * Accepted syntax (ECMA-262 with the `u` flag, plus the Annex B leniencies that
 * real schemas rely on: a `{` that is not a quantifier and a lone `]` or `}`
 * are literals; any ASCII punctuation may be escaped; a class escape at a
 * range's end makes `-` a literal, [\w-.] = \w, '-' and '.'):
 *   alternation, groups ( (...) (?:...) (?<name>...) ), classes with ranges,
 *   negation and escapes, `.`, \d \D \w \W \s \S, \xHH \uXXXX \u{X..} (two \u
 *   escapes forming a surrogate pair are one code point), \cX, \0, \f\n\r\t\v,
 *   quantifiers * + ? {m} {m,} {m,n} and their lazy forms (same language),
 *   `^ $` anywhere (also inside alternatives and repeats), and lookarounds
 *   (?=X) (?!X) (?<=X) (?<!X) as terms of a top-level alternative, lookbehinds
 *   before lookaheads, with `^` only before the first and `$` only after the
 *   last, X free of anchors but a lookahead's `$` or a lookbehind's `^` (each
 *   is a product automaton over the whole input).
 * Errors: PD_ERR_SYNTAX (with the byte offset) for malformed patterns;
 * PD_ERR_UNSUPPORTED naming the construct and its offset for backreferences,
 * other lookarounds, word boundaries and \p{..}; PD_ERR_LIMIT when a bound exceeds
 * opts->max_repeat or groups nest deeper than opts->max_depth.
 */
#ifndef PD_PDA_REGEX_H
#define PD_PDA_REGEX_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pda/ir.h"
#include "pushdown.h"

/* How ONE character of a code-point class is written in the output.
 * char_class gets the class as n_pairs sorted, disjoint, non-adjacent pairs
 * lo,hi (pairs[2i], pairs[2i+1]; surrogates already removed; n_pairs >= 1)
 * and returns an IR node matching exactly the writings of those characters,
 * or PD_IR_NONE after an allocation failure (with ir->oom set). pairs is
 * owned by the caller and stays valid during the call only. */
typedef struct pd_regex_target {
  uint32_t (*char_class)(pd_ir *ir, const uint32_t *pairs, size_t n_pairs, void *ud);
  void *ud;
} pd_regex_target;

/* Translates pattern[0..len) into one IR expression, *node, added to ir.
 * target NULL = raw UTF-8. search = false: the expression matches exactly the
 * strings the whole of which match the pattern (`^`/`$` still allowed; they
 * hold at the string's ends). search = true: JSON Schema's semantics, the
 * pattern may match anywhere in the string, so unless anchored any characters
 * may precede and follow the match. opts may be NULL (defaults). On an error
 * nodes may have been added to ir but *node is left unchanged; on
 * PD_ERR_NOMEM ir->oom is set. */
pd_status pd_regex_to_ir(pd_ir *ir, const char *pattern, size_t len, const pd_regex_target *target,
                         bool search, const pd_grammar_options *opts, uint32_t *node,
                         pd_error *err);

/* The same, restricted to the strings of min_len..max_len characters (code
 * points, as JSON Schema's minLength/maxLength count them; max_len PD_IR_INF
 * = no bound), exactly. The cut is made on the pattern's structure:
 * alternatives are cut one by one, a part whose length already fits is kept,
 * one that cannot fit is dropped, a sequence whose parts have fixed lengths
 * but one cuts that one, and x{a,b} with x of fixed length narrows its
 * counts; any other shape (e.g. an unanchored search around a pattern whose
 * length varies) is PD_ERR_UNSUPPORTED, offset 0, and the caller refuses the
 * length keyword. */
pd_status pd_regex_to_ir_len(pd_ir *ir, const char *pattern, size_t len,
                             const pd_regex_target *target, bool search, uint32_t min_len,
                             uint32_t max_len, const pd_grammar_options *opts, uint32_t *node,
                             pd_error *err);

/* A complete deterministic automaton over code points that follows several
 * patterns at once (JSON Schema search semantics) and a set of exact
 * strings. State 0 is the start; the edges of state q are the triples
 * edges[3k .. 3k+2] = lo, hi, to for first[q] <= k < first[q+1], sorted,
 * disjoint and covering 0..0x10FFFF (surrogates included; no input holds
 * them). label[q] bit i: pattern i matches the input read so far;
 * PD_REGEX_DFA_NAME: the input is one of the strings. Arrays are owned (free
 * with pd_regex_dfa_free). */
typedef struct pd_regex_dfa {
  uint32_t n_states;
  uint32_t *first, *edges, *label;
  const pd_allocator *alloc;
} pd_regex_dfa;
#define PD_REGEX_DFA_NAME 0x80000000u

/* Builds the automaton of pats[0..n_pats) (ECMA-262, lengths lens; at most
 * 30) and the UTF-8 strings names[0..n_names). Errors as pd_regex_to_ir's,
 * and PD_ERR_LIMIT past 200000 NFA or 4096 DFA states. */
pd_status pd_regex_dfa_build(const char *const *pats, const size_t *lens, uint32_t n_pats,
                             const char *const *names, const size_t *name_lens, uint32_t n_names,
                             const pd_grammar_options *opts, const pd_allocator *alloc,
                             pd_regex_dfa *out, pd_error *err);
void pd_regex_dfa_free(pd_regex_dfa *d);

#endif
