/* statekey.h - the key a state's class is cached under (see classify.h).
 *
 * Equal keys must classify alike under any grammar over the vocabulary, so the
 * key describes the state's local language exactly: the automaton of its rule
 * reachable from it (byte edges, finality, call edges and where they return),
 * the rule's lookahead, and every callee's language. A callee's language is
 * written as an id: its closure (the automata reachable from its start, with
 * its own callees again as ids) interned in the vocabulary's cache, where equal
 * closures get equal ids. Rules that call each other (a strongly connected
 * component of the call graph) are serialized together, the others by id, so
 * a key costs the size of one rule, not of everything under it: a state of a
 * large schema's top object used to serialize the whole grammar.
 *
 * When the cache cannot intern a closure (past its bound, or out of memory)
 * the key falls back to serializing every reachable automaton; the first word
 * tells the forms apart.
 */
#ifndef PD_MASKS_STATEKEY_H
#define PD_MASKS_STATEKEY_H
#include "masks/cache.h"
#include "pda/pda.h"

typedef struct pd_statekey pd_statekey;

/* follow: the lookahead of every rule (follow.h), borrowed; c: the cache that
 * interns closures (allocations in a). */
pd_status pd_statekey_new(const pd_pda *p, const uint32_t *follow, pd_mask_cache *c,
                          const pd_allocator *a, pd_statekey **out, pd_error *err);
void pd_statekey_free(pd_statekey *k);
/* The key of state s (valid until the next call) and its hash. */
pd_status pd_statekey_get(pd_statekey *k, uint32_t s, const uint32_t **key, size_t *n,
                          uint64_t *hash, pd_error *err);

#endif
