/* classify.h - compile-time classification of the text tokens for one state.
 *
 * For a state s of rule R, a local Earley parse starts from the lone item
 * (s, origin 0) and walks the vocabulary trie. Its first byte is scanned by s's
 * own byte edges only: every accepted path at run time begins with the byte
 * edge of some item of the live row, and that item's class accounts for it.
 * Items of origin 0 are R's own, so a final one means R may end there (it is
 * not completed: the caller is unknown). A token is
 *   accepted  when all its bytes are pushed (sound in every context),
 *   cd        else, when R may end after 1 .. len-1 of its bytes and the byte after
 *             that end may follow R somewhere (lookahead, follow.h): the stack
 *             decides (stored as trie positions),
 *   rejected  otherwise.
 * States without byte edges get empty classes: no accepted path begins there.
 *
 * The key of a state is its local language: the automaton reachable from s
 * (byte edges, call edges into callees and back) serialized with states and
 * rules renumbered in discovery order, so equal keys classify alike under any
 * grammar over the same vocabulary; the lookahead of R is part of it.
 */
#ifndef PD_MASKS_CLASSIFY_H
#define PD_MASKS_CLASSIFY_H
#include "base/array.h"
#include "masks/cache.h"
#include "pda/pda.h"

typedef struct pd_classifier pd_classifier;

/* follow: the lookahead of every rule (follow.h), borrowed. */
pd_status pd_classifier_new(const pd_pda *p, const uint32_t *follow, const pd_vocab *v,
                            const pd_mask_cache *c, const pd_allocator *a, pd_classifier **out,
                            pd_error *err);
void pd_classifier_free(pd_classifier *k);
/* Classifies state s into *out (owned by the caller). PD_ERR_LIMIT when a row
 * grows past max_items: the state is then left to the run-time walk.
 * donors[0..n_donors) are states already classified (dcls[i]): the tokens
 * whose first byte takes s and a donor to states of the same language (the
 * same state, or a bisimilar one in another rule with the same lookahead)
 * classify alike, so the run walks only the other first bytes of the best
 * donor (the states of a key-complement trie differ in a few bytes, each walk
 * covered nearly the whole vocabulary). Where both targets are states of
 * dense DFAs that agree for K bytes (the positions of a bounded string, a
 * room of K apart), the tokens of at most K + 1 bytes classify alike too, and
 * only the longer ones are walked (trie.h keeps lists of them). An Earley walk
 * also steps a donor of the seed's rule beside it: where, after the same
 * bytes, the seed's row is the donor's lone item with the same end flags, the
 * tokens under that prefix classify as the donor's do and are not walked (a
 * key-complement state past the first letter of a declared name is, one byte
 * later, the rest of any string). Without a donor, a state whose first bytes
 * mostly loop back to it takes the tokens its own automaton keeps alive as
 * accepted and walks only the others (classify.c, the survivors' pass). A
 * narrow seed (a few edges of one byte each: a key's name, or its escape)
 * finds the tokens under each byte by binary search in the trie instead.
 * *same: the index of the donor whose dense class s's is, as the walk found
 * no verdict of its own (out is then empty: the caller shares the donor's),
 * else -1. */
/* The state most first bytes of s lead to, when s's walk is broad and that
 * state takes more than half of it; when that state only calls a rule, the
 * rule's start instead; else UINT32_MAX. Classified first, it is the donor of
 * s: inside a key-complement trie it is the rest of the string, whose local
 * language names no property, so its class is in the cache from other
 * schemas; in a key with patterns (a rule per automaton state, each calling
 * the next) it is the start of the rest of the key. */
uint32_t pd_classifier_heir(pd_classifier *k, uint32_t s);
pd_status pd_classifier_run(pd_classifier *k, uint32_t s, const uint32_t *donors,
                            const pd_mask_class *const *dcls, size_t n_donors,
                            pd_mask_class *out, int *same, pd_error *err);

/* The context-dependent tokens of a state s, trie positions pos[0..n)
 * (ascending), decided for a chain of callers: where s's rule ends the local
 * parse goes on at the first caller's return state tops[0] (tail callers
 * already stood in for, memo.h), where that rule ends at tops[1], and so on;
 * only what may outlive the last one's rule stays context-dependent (against
 * its lookahead). Fills acc with the ids of the accepted ones (trie order)
 * and cd with the positions still context-dependent, each room for n; the
 * others die on this path. PD_ERR_LIMIT as for pd_classifier_run. */
pd_status pd_classifier_pair(pd_classifier *k, uint32_t s, const uint32_t *tops, uint32_t n_tops,
                             const uint32_t *pos, uint32_t n, uint32_t *acc, uint32_t *n_acc,
                             uint32_t *cd, uint32_t *n_cd, pd_error *err);

#endif
