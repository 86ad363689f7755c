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
 * large schema's top object used to serialize the whole grammar. Where the
 * state's part of its rule is large (most of an object's members still to
 * come), the key is its place instead (below): written out, it cost every
 * state of a large rule most of the rule again (a sixth of a slow mask's
 * time, with its lookup and copy), and a long part equal to another rule's is
 * mostly an equal rule's, which the place finds too.
 *
 * When the cache cannot intern a closure (past its bound, past its
 * max_closure words, or out of memory)
 * the key falls back to serializing every reachable automaton; the first word
 * tells the forms apart. Past the cache's max_full_key words that form is given
 * up and the state has no key (n = 0): it is classified for its grammar
 * alone. A state of a large schema's top object would otherwise write the
 * whole grammar out at every lookup (a 554 ms mask in JsonSchemaStore's
 * clang-format once the closures had filled the cache).
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
/* The key of state s (valid until the next call) and its hash; *n = 0: none
 * (see above). */
pd_status pd_statekey_get(pd_statekey *k, uint32_t s, const uint32_t **key, size_t *n,
                          uint64_t *hash, pd_error *err);

/* State s's place: its rule's interned closure and its discovery number in it
 * (the rule is interned now if it was not). Equal places are states of equal
 * automata with equal callees at the same spot, so they parse alike (with
 * their rules' lookahead beside: pair.c keys caller classes by places). The
 * place is cheap where the long key is not (a rule is written out once per
 * grammar, not once per state), but only the same rule shares it. *found =
 * false where the closure could not be interned. */
pd_status pd_statekey_place(pd_statekey *k, uint32_t s, uint32_t place[2], bool *found,
                            pd_error *err);

#endif
