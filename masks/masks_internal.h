/* masks_internal.h - the layout of pd_masks, shared by masks.c and fill.c. */
#ifndef PD_MASKS_MASKS_INTERNAL_H
#define PD_MASKS_MASKS_INTERNAL_H
#include "masks/cache.h"
#include "masks/masks.h"
#include "masks/memo.h"

struct pd_classifier;
struct pd_statekey;
struct pd_drop_table;

#define PD_MASKS_DONORS 4

struct pd_masks {
  const struct pd_grammar *g;    /* the grammar that owns these tables */
  pd_mask_cache *cache;          /* the vocab's (borrowed) */
  uint32_t n_states;
  const pd_mask_class **cls;     /* [n_states]; NULL: not classified yet (masks.c) */
  pd_mask_class *owned;          /* [n_states] classes the cache did not keep */
  size_t bytes;                  /* memory of the tables above */
  pd_memo memo;                  /* whole masks by configuration (memo.h) */
  bool memo_ok;                  /* memo initialized */
  /* with set rules (pda.h), NULL without: set_in[r] when rule r's language
   * (its automaton and its callees', classify.h) holds a set rule. Their
   * items differ by their sets, which the classes know nothing of, so a row
   * with an item of such a rule is the walk's, and a chain of caller classes
   * stops at such a caller (fill.c) */
  uint8_t *set_in;
  pthread_mutex_t lock;          /* guards classifying: k, owned, bytes, cls writes */
  struct pd_classifier *k;       /* made on the first class needed */
  struct pd_statekey *sk;        /* likewise */
  uint32_t *follow;              /* lookahead of every rule (follow.h), vocab allocator */
  uint32_t *donors;              /* [PD_MASKS_DONORS * n_rules] states classified last, by
                                    rule (donors for the next, classify.h); UINT32_MAX: none */
  struct pd_pair_table *pairs;   /* pair classes by (state, return state), masks.c */
  size_t n_pairs, pair_bytes;
  struct pd_drop_table *drops;   /* walk candidates by a row's sets, drop.c */
  size_t drop_bytes;
  /* the least bound of a counted rule (earley.h), UINT32_MAX with none: a
   * token that enters one afresh begins at most its length in units there */
  uint32_t fresh_room;
  /* with counted rules: exit_of[s] = R + 1 when every call that returns to
   * state s calls counted rule R and s only takes bytes (UINT32_MAX: several
   * rules; 0: none), and forced[R] when the bytes R's calls return to are
   * none its final states take and those states only take bytes: a text token then
   * leaves R where R's automaton stops taking it (fill.c's count walk) */
  uint32_t *exit_of;
  uint8_t *forced;
  uint32_t *gkey;                /* the grammar as a snapshot key (cache.h); NULL: none */
  size_t gkey_len;
  uint64_t ghash;
};

/* The class of state s, classified now if no mask needed it before; *cls =
 * NULL when the state is left to the run-time walk (its local parse is too
 * wide). Thread-safe. */
pd_status pd_masks_class(pd_masks *mk, uint32_t s, const pd_mask_class **cls, pd_error *err);

/* mk->k, made on first use (lock held). */
pd_status pd_masks_classifier(pd_masks *mk, pd_error *err);

#define PD_PAIR_DEPTH 4 /* callers a chain of caller classes goes through */

/* The cd tokens of state s decided through callers returning to tops[0],
 * then tops[1], ... (pair.c): cls.accepted are taken on that path, cls.cd
 * may outlive the last caller's rule too (trie positions). */
typedef struct pd_pair_class {
  pd_mask_class cls;
  uint32_t state, n_tops;
  uint32_t tops[PD_PAIR_DEPTH];
  bool shared; /* cls is the vocabulary cache's (pair.c), not the grammar's */
} pd_pair_class;

/* The class of cd, the cd set of state s's class (parent NULL) or of parent,
 * one caller further: one that returns to state r. Made on first use and
 * kept by the grammar; NULL when there is none (out of memory, past the
 * bounds, a local parse too wide): then cd is walked whole. Thread-safe;
 * lookups take no lock. */
const pd_pair_class *pd_masks_pair(pd_masks *mk, uint32_t s, const pd_pair_class *parent,
                                   uint32_t r, const pd_tokset *cd);
void pd_masks_pairs_free(pd_masks *mk);

/* A row's sets as drop.c keys them: the accepted sets whose union the mask
 * holds and the cd sets left to the walk, each list sorted in place. */
typedef struct pd_drop_key {
  const pd_tokset **acc, **cd;
  size_t n_acc, n_cd;
  uint64_t hash;
} pd_drop_key;
void pd_masks_drop_key(pd_drop_key *k, const pd_tokset **acc, size_t n_acc,
                       const pd_tokset **cd, size_t n_cd);
/* The candidates kept for k (the union of its cd sets less the tokens of its
 * accepted ones, as trie positions) into cand[0..n_words); false when none
 * are kept. Thread-safe. */
bool pd_masks_drop_find(pd_masks *mk, const pd_drop_key *k, uint32_t *cand, size_t n_words);
/* Keeps cand for k (within the grammar's bound; silently not otherwise). */
void pd_masks_drop_put(pd_masks *mk, const pd_drop_key *k, const uint32_t *cand);
void pd_masks_drops_free(pd_masks *mk);

#endif
