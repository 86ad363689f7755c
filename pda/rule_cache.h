/* rule_cache.h - finished rule automata kept across the grammars compiled over
 * one vocabulary (internal to pda/).
 *
 * Schemas repeat themselves across grammars: the member rule of a property
 * named "description" with a string value is the same automaton in every schema
 * that has one, and building it (the key spelled in every escape, about 70
 * states) is most of a small schema's compile. A rule's automaton depends only
 * on its body with the copied-in callees expanded and on which rules it calls,
 * so that body, written out with the called rules numbered by first appearance
 * (slots), keys the automaton; a hit copies it with the slots mapped back to
 * this grammar's rules. The cache is bounded (pd_vocab_options.rule_cache_bytes;
 * full, it keeps what it has) and safe to share between threads: entries are
 * immutable once published. */
#ifndef PD_PDA_RULE_CACHE_H
#define PD_PDA_RULE_CACHE_H
#include "base/array.h"
#include "build.h"
#include "ir.h"

#define PD_RULE_CACHE_MAX_BYTES ((size_t)64 << 20) /* unless pd_vocab_options says */
#define PD_RULE_KEY_MAX_WORDS 16384u /* larger bodies are built every time */

typedef struct pd_rule_cache pd_rule_cache;

/* The written-out body of a rule, and the rules it calls in order of first
 * appearance (slot k calls slots.data[k]); over when it went past the bound. */
typedef struct pd_rule_key {
  PD_ARRAY(uint32_t) words;
  PD_ARRAY(uint32_t) slots;
  uint64_t hash;
  bool over;
} pd_rule_key;

/* The vocab's cache, made on first use; NULL when it cannot be made (then
 * every automaton is built). */
pd_rule_cache *pd_rule_cache_get(pd_vocab *v);
void pd_rule_cache_free(pd_rule_cache *c, const pd_allocator *a);

/* Writes out body as the NFA builder reads it under the inline plan inl.
 * False when out of memory (k->over says the key is unusable otherwise). */
bool pd_rule_key_make(const pd_ir *w, const uint32_t *inl, uint32_t body, pd_rule_key *k,
                      const pd_allocator *a);
void pd_rule_key_free(pd_rule_key *k, const pd_allocator *a);

/* On a hit, appends the cached automaton to b as rule r (calls through
 * k->slots) and returns true; false on a miss, or when it would pass
 * b->max_states (the build then fails as it would have). *st: PD_ERR_NOMEM on
 * an allocation failure (then false). */
bool pd_rule_cache_take(pd_rule_cache *c, const pd_rule_key *k, pd_pda_builder *b, uint32_t r,
                        pd_status *st);
/* Offers rule r of b (just built and minimized, the last rule in b) under k;
 * nothing happens past the bound or on an allocation failure. */
void pd_rule_cache_put(pd_rule_cache *c, const pd_rule_key *k, const pd_pda_builder *b,
                       uint32_t r);

#endif
