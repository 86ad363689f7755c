/* classify.c - the local Earley parse that classifies a state's text tokens
 * (see classify.h). */
#include "classify.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/bits.h"
#include "base/error.h"
#include "masks/follow.h"
#include "masks/vocab.h"

#define PD__ROW_MAX 4096u   /* items in one local row; past it the state is left to the walk */
/* the same for a pair parse: the rows of a wide object (a comma predicts
 * every member left) cost a chain of callers as much as the walk, and each
 * chain there is met once, so its tokens are left to the walk */
#define PD__PAIR_ROW_MAX 64u
/* tokens of a pair parse that take the walk by configurations (fewer: the
 * plain walk, which needs no tables cleared) */
#define PD__PAIR_CFG_MIN 16u
#define PD__SLOTS 16384u    /* dedup slots, a power of two >= 2 * PD__ROW_MAX */
#define PD__LINEAR 16u      /* items of a row searched one by one (pd__add) */
#define PD__END 1u
#define PD__LIVE_END 2u
/* the rule ended right before the last byte, which begins a pair whose
 * second byte decides (follow.h: two bytes after a whitespace rule) */
#define PD__HALF 4u
/* origins of the callers' items in a pair parse (pd_classifier_pair): caller
 * i's are PD__TOP - i; real origins are row numbers, far below */
#define PD__TOP 0x7fffffffu
#define PD__TOPS 64u
#define PD__DIRTY 256u      /* words of acc or cd tracked before a run goes dense */
#define PD__NARROW 4u       /* byte edges of a narrow state (pd__narrow_walk) */
#define PD__NARROW_DEPTH 64u /* the narrow walk's recursion; deeper, the plain walk goes on */
/* tokens below a narrow path that take the survivors' pass, not the plain walk */
#define PD__NARROW_SURVIVORS 64u

typedef struct pd__item {
  uint32_t state, origin;
} pd__item;

struct pd_classifier {
  const pd_allocator *a;
  const pd_pda_state *states;
  const pd_pda_edge *edges;
  const pd_pda_rule *rules;
  uint32_t n_states, n_rules;
  const pd_vocab *v;
  const pd_mask_cache *c;
  PD_ARRAY(pd__item) items;
  PD_ARRAY(uint32_t) rows;   /* first item of each row */
  /* per row r: PD__END when the seed's rule may end after r bytes (r >= 1);
   * PD__LIVE_END when it may end after some r' < r bytes and the token's byte
   * r' may follow the rule (lookahead): then a token dying past it is cd */
  PD_ARRAY(uint8_t) ends;
  const uint32_t *follow;    /* [8 * n_rules] lookahead bytes (follow.h) */
  const uint32_t *seed_follow;
  const uint32_t *seed_two;  /* the same rule's two-byte block, or NULL (follow.h) */
  /* pair parse: the callers' return states; where the seed's rule ends the
   * first is entered (origin PD__TOP), where its rule ends the next, and so
   * on; PD__END marks the end of the last one's rule, and seed_follow is
   * that rule's lookahead. n_tops 0: a plain run */
  const uint32_t *tops;
  uint32_t n_tops;
  uint64_t *slot;            /* dedup of the row being built: (state, origin) + 1 */
  uint32_t *slot_gen, gen;
  /* the row being built is in the dedup table (it grew past PD__LINEAR
   * items); below that it is its own set, searched item by item */
  bool hashed;
  bool over;                 /* a row went past row_max */
  uint32_t row_max;          /* PD__ROW_MAX, or PD__PAIR_ROW_MAX in a pair parse */
  uint32_t *acc;             /* bitset of ids being filled, zero between runs */
  uint32_t *cd;              /* bitset of trie positions being filled, likewise */
  /* the words of acc and cd a run made nonzero, while they are few: a narrow
   * state's class holds a handful of tokens, and clearing, counting and
   * listing two 128k-bit rows was most of its cost (8 of 14 us); dense: past
   * PD__DIRTY words, or filled whole from a donor's dense sets */
  uint32_t dirty[2][PD__DIRTY], n_dirty[2];
  bool dense;
  PD_ARRAY(uint32_t) queue;
  uint32_t *canon;           /* marks of pd__calls_no_rule */
  /* byte transitions of the states walked so far, as 256-entry rows (target
   * + 1, 0 = none): the walk steps once per trie node, and a scan of a JSON
   * character's dozen byte ranges was a good part of that step */
  uint32_t *row_of;          /* [n_states] row + 1, 0 = none yet */
  /* steps each state took by a scan of its edges: a state gets its row at
   * the PD__SCANS_FOR_ROW-th. A new grammar's caller rows hold dozens of
   * states a pair parse steps once or twice each: a row for every state
   * stepped wrote 1.99 M rows of 1 KB over MaskBench, 0.91 M now */
  uint8_t *scans;
  PD_ARRAY(uint32_t) rows256;
  /* call-free states (their automaton from them calls no rule) as a dense
   * DFA: 256 entries a row, (target's row + 1) << 1 | target final, 0 = none;
   * a state gets its row with every state it reaches, so the trie walk of
   * pd__walk_dfa makes one load a byte (16-bit entries: the walk waits on
   * that load, and half the bytes keep twice the rows in cache) */
  uint32_t *dfa_row;         /* [n_states] row + 1, 0 = none */
  PD_ARRAY(uint16_t) dfa;
  /* pd__same_language: union-find over states (parent + 1, 0 = a root), the
   * roots it changed, the pairs left to compare, and the pair steps left to
   * the donor pick of one run */
  uint32_t *uf;
  PD_ARRAY(uint32_t) touched;
  PD_ARRAY(uint32_t) pairs;
  uint32_t budget;
  /* pd__agree_depth: the state pairs of a depth and the next (the pairs seen
   * are a set of the dedup table above), and the pairs left to the donor
   * pick of one run */
  PD_ARRAY(uint32_t) level;
  uint32_t n_seen, abudget;
  const uint32_t *first;     /* trie positions by first byte (pd_trie.first) */
  uint32_t ranges[512];      /* the trie ranges a run walks: at most one per byte */
  uint32_t keep[256];        /* per range: its tokens of at most keep[j] bytes keep the
                                donor's class (0: the whole range is walked) */
  /* a donor beside the Earley walk (pd__walk): dpath[d] is its state after
   * the first d bytes of the token on the stack while its row is that lone
   * item (no calls, not final), UINT32_MAX past that, and dflags[d] that
   * row's end flags. Where the seed's row is the same lone item with the same
   * flags, every token under that prefix classifies as from the donor: after
   * a declared key's first letter and one more byte that leaves every name,
   * the walk of a key-complement state is the rest of any string. The donor's
   * sets as bits (don_acc by id, don_cd by trie position), made when a large
   * subtree is copied (a small one looks its tokens up in the sets). */
  uint32_t donor, *dpath, *don_acc, *don_cd;
  uint32_t *cand;            /* the survivors' pass: trie positions left to the Earley walk, zero between runs */
  uint32_t ddead;            /* dpath is UINT32_MAX from this depth on (past the stack: alive) */
  uint32_t dpatience;        /* steps left before a donor that was never met is dropped */
  uint8_t *dflags;
  const pd_mask_class *don_cls;
  bool don_bits;
  /* acc and cd hold the donor's dense sets in the walked ranges too, and
   * the walk writes each verdict whole (set and clear): a subtree that
   * classifies as from that donor then costs nothing; changed: a verdict
   * differed from the donor's */
  bool overwrite, changed;
  /* the Earley walk's rows as interned configurations (pd__walk_cfg): a row
   * is its items with each origin row named by its configuration (SELF: the
   * row itself), so equal configurations step alike wherever they stand.
   * cfg_items[cfg_at[c] ..) are c's items (state << 32 | origin's), cfg_lone
   * the state of c's lone item of origin 0 (else UINT32_MAX), cfg_next c's
   * dense row of steps (0 unknown, 1 dead, 2 + (to << 1 | the seed's rule
   * ends there)); cst/cfl the configurations and end flags of the path; the
   * real rows (items, rows, ends) hold the path's first real_d + 1 rows, and
   * a step not yet known pushes there */
  PD_ARRAY(uint64_t) cfg_items;
  PD_ARRAY(uint32_t) cfg_at, cfg_lone, cfg_next;
  uint32_t *cfg_slot, *cst, real_d;
  uint32_t cfg_gen;          /* cfg_slot entries of this walk: cfg_gen << 12 | c + 1 */
  uint8_t *cfl;
};

#define PD__DENSE_ROWS 4096u /* rows kept (4 MB); states past it scan their edges */
#define PD__SCANS_FOR_ROW 16u /* a state's steps by scans before it gets a row */
#define PD__CFG_MAX 2048u    /* configurations one walk interns (2 MB of steps); past it: pd__walk */
_Static_assert(PD__CFG_MAX < 0x1000u, "a configuration's slot holds it in 12 bits");
#define PD__CFG_SLOTS 4096u  /* their interning table, a power of two, at most half full */
#define PD__SELF UINT32_MAX  /* an item's origin row is its own */
#define PD__SEEN (PD__SLOTS / 4) /* pairs one pd__agree_depth may see */
#define PD__AGREE_BUDGET 1024u /* state pairs compared by one donor pick */
#define PD__DFA_ROWS 4096u   /* dense DFA rows kept (2 MB); seeds past it take the Earley walk */
/* in keep[]: the tokens holding a '"' are walked too, whatever their length */
#define PD__KEEP_QUOTE 0x40000000u
_Static_assert(((PD__DFA_ROWS + 1) << 1 | 1) <= UINT16_MAX, "a DFA entry is 16 bits");

pd_status pd_classifier_new(const pd_pda *p, const uint32_t *follow, const pd_vocab *v,
                            const pd_mask_cache *c, const pd_allocator *a, pd_classifier **out,
                            pd_error *err) {
  pd_classifier *k = pd__calloc(a, 1, sizeof *k);
  if (!k) return pd__nomem(err);
  *k = (pd_classifier){.a = a, .states = pd_pda_states(p), .edges = pd_pda_edges(p),
                       .rules = pd_pda_rules(p), .n_states = p->n_states,
                       .n_rules = p->n_rules, .v = v, .c = c, .first = c->trie.first,
                       .follow = follow,
                       .row_max = PD__ROW_MAX};
  size_t w = c->u.n_words ? c->u.n_words : 1;
  k->slot = pd__malloc(a, PD__SLOTS * sizeof *k->slot);
  k->slot_gen = pd__calloc(a, PD__SLOTS, sizeof *k->slot_gen);
  k->acc = pd__calloc(a, w, sizeof *k->acc);
  k->cd = pd__calloc(a, c->pu.n_words ? c->pu.n_words : 1, sizeof *k->cd);
  k->canon = pd__calloc(a, p->n_states ? p->n_states : 1, sizeof *k->canon);
  k->row_of = pd__calloc(a, p->n_states ? p->n_states : 1, sizeof *k->row_of);
  k->scans = pd__calloc(a, p->n_states ? p->n_states : 1, 1);
  k->dfa_row = pd__calloc(a, p->n_states ? p->n_states : 1, sizeof *k->dfa_row);
  k->uf = pd__calloc(a, p->n_states ? p->n_states : 1, sizeof *k->uf);
  k->dpath = pd__malloc(a, ((size_t)c->trie.max_len + 1) * sizeof *k->dpath);
  k->dflags = pd__malloc(a, (size_t)c->trie.max_len + 1);
  k->don_acc = pd__malloc(a, w * sizeof *k->don_acc);
  k->don_cd = pd__malloc(a, (c->pu.n_words ? c->pu.n_words : 1) * sizeof *k->don_cd);
  k->cand = pd__calloc(a, c->pu.n_words ? c->pu.n_words : 1, sizeof *k->cand);
  k->cfg_slot = pd__calloc(a, PD__CFG_SLOTS, sizeof *k->cfg_slot);
  k->cst = pd__malloc(a, ((size_t)c->trie.max_len + 1) * sizeof *k->cst);
  k->cfl = pd__malloc(a, (size_t)c->trie.max_len + 1);
  k->donor = UINT32_MAX;
  if (!k->slot || !k->slot_gen || !k->acc || !k->cd || !k->canon || !k->row_of || !k->scans ||
      !k->dfa_row || !k->uf || !k->dpath || !k->dflags || !k->don_acc || !k->don_cd || !k->cand ||
      !k->cfg_slot || !k->cst || !k->cfl) {
    pd_classifier_free(k);
    return pd__nomem(err);
  }
  *out = k;
  return PD_OK;
}

void pd_classifier_free(pd_classifier *k) {
  if (!k) return;
  const pd_allocator *a = k->a;
  pd_array_free(a, &k->items);
  pd_array_free(a, &k->rows);
  pd_array_free(a, &k->ends);
  pd_array_free(a, &k->queue);
  pd__free(a, k->slot);
  pd__free(a, k->slot_gen);
  pd__free(a, k->acc);
  pd__free(a, k->cd);
  pd__free(a, k->canon);
  pd__free(a, k->row_of);
  pd__free(a, k->scans);
  pd_array_free(a, &k->rows256);
  pd__free(a, k->dfa_row);
  pd_array_free(a, &k->dfa);
  pd__free(a, k->uf);
  pd__free(a, k->dpath);
  pd__free(a, k->dflags);
  pd__free(a, k->don_acc);
  pd__free(a, k->don_cd);
  pd__free(a, k->cand);
  pd_array_free(a, &k->touched);
  pd_array_free(a, &k->pairs);
  pd_array_free(a, &k->level);
  pd_array_free(a, &k->cfg_items);
  pd_array_free(a, &k->cfg_at);
  pd_array_free(a, &k->cfg_lone);
  pd_array_free(a, &k->cfg_next);
  pd__free(a, k->cfg_slot);
  pd__free(a, k->cst);
  pd__free(a, k->cfl);
  pd__free(a, k);
}

/* ------------------------------------------------------------ local parse */

/* Sets bit t of acc (which = 0) or cd (1) when on (0 or 1), noting a word
 * it makes nonzero; no branch on on (the node walk sets a bit at about every
 * other node, and a branch on it missed often). */
static inline void pd__set_if(pd_classifier *k, int which, uint32_t t, uint32_t on) {
  uint32_t *w = (which ? k->cd : k->acc) + (t >> 5), old = *w;
  if (!k->dense && k->n_dirty[which] < PD__DIRTY) { /* the slot is written, kept when the word is new */
    k->dirty[which][k->n_dirty[which]] = t >> 5;
    k->n_dirty[which] += on & (old == 0);
  } else if (on && !old) {
    k->dense = true;
  }
  *w = old | on << (t & 31);
}

static inline void pd__set(pd_classifier *k, int which, uint32_t t) { pd__set_if(k, which, t, 1); }

/* Starts a new set in the dedup table (stamps, cleared when they wrap). */
static void pd__new_set(pd_classifier *k) {
  if (++k->gen == 0) {
    memset(k->slot_gen, 0, PD__SLOTS * sizeof *k->slot_gen);
    k->gen = 1;
  }
}

/* Puts pair (a, b) in the current set; false when it was there. */
static bool pd__mark(pd_classifier *k, uint32_t a, uint32_t b) {
  uint64_t key = ((uint64_t)a << 32 | b) + 1;
  uint32_t i = (uint32_t)((key * 0x9e3779b97f4a7c15u) >> 50) & (PD__SLOTS - 1);
  for (; k->slot_gen[i] == k->gen; i = (i + 1) & (PD__SLOTS - 1))
    if (k->slot[i] == key) return false;
  k->slot_gen[i] = k->gen;
  k->slot[i] = key;
  return true;
}

/* Adds (state, origin) to the row being built unless present. A row of a
 * few items (a pair parse's average 5) is searched: the dedup table is 192 KB,
 * and each mark of such a row was a load from outside the L1 cache. Past
 * PD__LINEAR items the row goes into the table, and the table dedups. */
static bool pd__add(pd_classifier *k, uint32_t state, uint32_t origin) {
  uint32_t a = pd_array_last(&k->rows), n = (uint32_t)k->items.len - a;
  if (!k->hashed) {
    const pd__item *it = k->items.data + a;
    for (uint32_t i = 0; i < n; i++)
      if (it[i].state == state && it[i].origin == origin) return true;
    if (n == PD__LINEAR) {
      pd__new_set(k);
      for (uint32_t i = 0; i < n; i++) pd__mark(k, it[i].state, it[i].origin);
      k->hashed = true;
    }
  }
  if (k->hashed && !pd__mark(k, state, origin)) return true;
  if (n >= k->row_max) {
    k->over = true; /* the run stops: the mark without an item is never read */
    return true;
  }
  return pd_array_push(k->a, &k->items, ((pd__item){state, origin}));
}

/* Completes item it (final, origin > 0) into the callers of its rule. */
static bool pd__complete(pd_classifier *k, pd__item it) {
  uint32_t rule = k->states[it.state].rule;
  uint32_t a = k->rows.data[it.origin], e = k->rows.data[it.origin + 1];
  for (uint32_t j = a; j < e; j++) {
    pd__item caller = k->items.data[j];
    const pd_pda_edge *call = pd_pda_call_to(k->edges, &k->states[caller.state], rule);
    if (call && !pd__add(k, call->to, caller.origin)) return false;
  }
  return true;
}

/* Closes the newest row: completion and prediction (nullable callees are
 * stepped over at once, so completions with origin == row never arise).
 * *ends: a final item of origin 0 (the seed's rule) is in the row; in a pair
 * parse that item enters the first caller's return state instead, a final
 * item of caller i's rule the next caller's, and *ends is a final item of
 * the last caller's rule. */
static bool pd__close(pd_classifier *k, bool *ends) {
  uint32_t row = (uint32_t)k->rows.len - 1;
  for (size_t i = pd_array_last(&k->rows); i < k->items.len; i++) {
    pd__item it = k->items.data[i];
    const pd_pda_state *st = &k->states[it.state];
    if (st->flags & PD_STATE_FINAL) {
      /* the frame whose rule ends: 0 the seed's, i + 1 caller i's, else none */
      uint32_t f = it.origin == 0 ? 0 : it.origin > PD__TOP - PD__TOPS ? PD__TOP - it.origin + 1
                                                                       : UINT32_MAX;
      if (f < k->n_tops) {
        if (!pd__add(k, k->tops[f], PD__TOP - f)) return false;
      } else if (f != UINT32_MAX) {
        *ends = true;
      } else if (it.origin < row && !pd__complete(k, it)) {
        return false;
      }
    }
    const pd_pda_edge *e = k->edges + st->edges + st->n_byte;
    for (uint32_t c = 0; c < st->n_call; c++) {
      if (!pd__add(k, k->rules[e[c].arg].start, row)) return false;
      if ((k->rules[e[c].arg].flags & PD_RULE_NULLABLE) && !pd__add(k, e[c].to, it.origin))
        return false;
    }
  }
  return true;
}

/* The target of state s on byte b, or UINT32_MAX: a scan of its edges, or
 * once it has taken enough steps its row made now (past the rows' bound, a
 * scan again). */
static __attribute__((noinline)) uint32_t pd__step_slow(pd_classifier *k, uint32_t s, uint8_t b) {
  const pd_pda_state *st = &k->states[s];
  const pd_pda_edge *e = k->edges + st->edges;
  size_t at = k->rows256.len;
  if (k->scans[s] < PD__SCANS_FOR_ROW) k->scans[s]++;
  else if (at / 256 < PD__DENSE_ROWS && pd_array_reserve(k->a, &k->rows256, 256)) {
    uint32_t *row = k->rows256.data + at;
    memset(row, 0, 256 * sizeof *row);
    for (uint32_t i = 0; i < st->n_byte; i++)
      for (uint32_t c = e[i].lo; c <= e[i].hi; c++) row[c] = e[i].to + 1;
    k->rows256.len = at + 256;
    k->row_of[s] = (uint32_t)(at / 256) + 1;
    return row[b] - 1;
  }
  return pd_pda_byte_target(k->edges, st, b);
}

/* The target of state s on byte b, or UINT32_MAX. */
static inline uint32_t pd__step(pd_classifier *k, uint32_t s, uint8_t b) {
  uint32_t r = k->row_of[s];
  return r ? k->rows256.data[(size_t)(r - 1) * 256 + b] - 1 : pd__step_slow(k, s, b);
}

static void pd__pop(pd_classifier *k, uint32_t n) {
  k->rows.len -= n;
  k->ends.len -= n;
  k->items.len = k->rows.data[k->rows.len];
}

static inline bool pd__has(const uint32_t *set, uint8_t b) {
  return set[b / 32] >> (b % 32) & 1;
}

/* The end flags that byte c brings a row whose flags are f (prev: the byte
 * before c): PD__LIVE_END when the seed's rule ended before and the bytes
 * since may follow it, PD__HALF when it ended right before c and c's next
 * byte decides, else 0. Where c kills the row instead, the same says what the
 * tokens under it are: context-dependent, each as pd__half_cd finds, or
 * rejected. */
static inline uint8_t pd__after(const pd_classifier *k, uint8_t f, uint8_t prev, uint8_t c) {
  if (f & PD__LIVE_END) return PD__LIVE_END;
  if (f & PD__HALF && pd__has(pd_follow2_row(k->seed_two, prev), c)) return PD__LIVE_END;
  if (!(f & PD__END) || !pd__has(k->seed_follow, c)) return 0;
  return pd_follow2_row(k->seed_two, c) ? PD__HALF : PD__LIVE_END;
}

/* Whether the token at trie position q, whose byte depth killed the row
 * under PD__HALF (row: what may follow that byte), is context-dependent: it
 * ends there, or its next byte may follow. */
static inline bool pd__half_cd(const pd_trie *t, const uint32_t *row, uint32_t q, uint32_t depth) {
  return t->at[q + 1] - t->at[q] == depth + 1 || pd__has(row, t->bytes[t->at[q] + depth + 1]);
}

/* The second-byte row a dead subtree's verdict g (pd__after) needs: NULL
 * unless g is PD__HALF (c: the byte that killed it). */
static inline const uint32_t *pd__half_row(const pd_classifier *k, uint8_t g, uint8_t c) {
  return g == PD__HALF ? pd_follow2_row(k->seed_two, c) : NULL;
}

/* Whether trie position q under a dead prefix (verdict g, row from
 * pd__half_row) is context-dependent. */
static inline bool pd__dead_cd(const pd_trie *t, uint8_t g, const uint32_t *row, uint32_t q,
                               uint32_t depth) {
  return g == PD__LIVE_END || (row && pd__half_cd(t, row, q, depth));
}

/* Sets the context-dependent ones of trie positions [q, e), whose byte depth
 * (c) killed the row under verdict g (pd__after). */
static void pd__set_dead(pd_classifier *k, uint32_t q, uint32_t e, uint8_t g, uint32_t depth,
                         uint8_t c) {
  const uint32_t *row = pd__half_row(k, g, c);
  if (g)
    for (; q < e; q++)
      if (pd__dead_cd(&k->c->trie, g, row, q, depth)) pd__set(k, 1, q);
}

/* Scans b into a new closed row (prev: the byte before it on the path): 1
 * pushed, 0 dead, -1 out of memory. */
static int pd__push(pd_classifier *k, uint8_t prev, uint8_t b) {
  uint32_t a = pd_array_last(&k->rows), e = (uint32_t)k->items.len;
  if (!pd_array_push(k->a, &k->rows, e) || !pd_array_reserve(k->a, &k->ends, 1)) return -1;
  if (e - a == 1) {
    /* one item stepping to a state without calls or end: the row is that one
     * item and needs neither dedup nor closing (inside strings and literals) */
    pd__item it = k->items.data[a];
    uint32_t x = pd__step(k, it.state, b);
    if (x == UINT32_MAX) {
      k->rows.len--;
      return 0;
    }
    const pd_pda_state *to = &k->states[x];
    if (!to->n_call && !(to->flags & PD_STATE_FINAL)) {
      if (!pd_array_push(k->a, &k->items, ((pd__item){x, it.origin}))) return -1;
      uint8_t live = pd__after(k, pd_array_last(&k->ends), prev, b);
      k->ends.data[k->ends.len++] = live;
      return 1;
    }
  }
  k->hashed = false;
  for (uint32_t i = a; i < e; i++) {
    uint32_t x = pd__step(k, k->items.data[i].state, b);
    if (x != UINT32_MAX && !pd__add(k, x, k->items.data[i].origin)) return -1;
  }
  bool ends = false;
  if (k->items.len > e && !pd__close(k, &ends)) return -1;
  uint8_t live = pd__after(k, pd_array_last(&k->ends), prev, b);
  k->ends.data[k->ends.len++] = (uint8_t)(live | (ends ? PD__END : 0));
  if (k->items.len > e) return 1;
  pd__pop(k, 1);
  return 0;
}

#define PD__DONOR_PATIENCE 1024u /* donor steps without a meeting before it is dropped */

/* Steps the donor's path past byte c of depth d (k->dpath); whether the
 * seed's new row (lone: the state of its lone item of origin 0, else
 * UINT32_MAX; flags: its end flags) is then the donor's: the same lone item
 * of the seed's rule (the donor is of that rule) with the same end flags, so
 * both walks go on alike from there. */
static bool pd__donor_step_to(pd_classifier *k, uint32_t d, uint8_t prev, uint8_t c,
                              uint32_t lone, uint8_t flags) {
  if (!k->dpatience--) {
    /* a path beside the seed's that never meets it (the positions of a
     * bounded string) made the walk a tenth longer */
    k->donor = UINT32_MAX;
    return false;
  }
  uint32_t y = k->dpath[d];
  if (y != UINT32_MAX) y = pd__step(k, y, c);
  if (y != UINT32_MAX && (k->states[y].n_call || k->states[y].flags & PD_STATE_FINAL))
    y = UINT32_MAX; /* the donor's row is more than the lone item */
  k->dpath[d + 1] = y;
  if (y == UINT32_MAX) {
    k->ddead = d + 1; /* no step below this prefix reaches the donor's row again */
    return false;
  }
  k->dflags[d + 1] = pd__after(k, k->dflags[d], prev, c);
  return lone == y && flags == k->dflags[d + 1];
}

/* The state of row r's lone item of origin 0, else UINT32_MAX (r the last row). */
static uint32_t pd__lone(const pd_classifier *k, uint32_t r) {
  uint32_t a = k->rows.data[r];
  return k->items.len - a == 1 && k->items.data[a].origin == 0 ? k->items.data[a].state
                                                                : UINT32_MAX;
}

static bool pd__donor_step(pd_classifier *k, uint32_t d, uint8_t prev, uint8_t c) {
  return pd__donor_step_to(k, d, prev, c, pd__lone(k, d + 1), k->ends.data[d + 1]);
}

/* Whether byte c, unpushed, would take the seed's row at depth d (lone and
 * flags as above) and the donor's path to the same lone item with the same
 * end flags (as pd__donor_step finds after the push): past a wide state of a
 * key complement, most bytes lead back to the rest of any string, and each
 * cost a push and a donor step to find that out. */
static bool pd__donor_meets_at(pd_classifier *k, uint32_t d, uint8_t prev, uint8_t c,
                               uint32_t lone, uint8_t flags) {
  if (lone == UINT32_MAX) return false;
  uint32_t x = pd__step(k, lone, c);
  if (x == UINT32_MAX || x != pd__step(k, k->dpath[d], c) || k->states[x].n_call ||
      k->states[x].flags & PD_STATE_FINAL)
    return false;
  return pd__after(k, k->dflags[d], prev, c) == pd__after(k, flags, prev, c);
}

static bool pd__donor_meets(pd_classifier *k, uint32_t d, uint8_t prev, uint8_t c) {
  return pd__donor_meets_at(k, d, prev, c, pd__lone(k, d), k->ends.data[d]);
}

/* Pushes token bytes b[*depth..len); 1 when all went in, 0 when one died, -1 on
 * error, 2 when the row reached is the donor's (pd__donor_step; *depth is its
 * depth), 3 when byte *depth would reach it (pd__donor_meets; not pushed). */
static int pd__push_rest(pd_classifier *k, const uint8_t *b, uint32_t len, uint32_t *depth) {
  for (; *depth < len; ++*depth) {
    uint8_t prev = *depth ? b[*depth - 1] : 0;
    if (k->donor != UINT32_MAX && *depth < k->ddead &&
        pd__donor_meets(k, *depth, prev, b[*depth])) {
      k->dpatience = PD__DONOR_PATIENCE;
      return 3;
    }
    int r = pd__push(k, prev, b[*depth]);
    if (r <= 0) return r;
    if (k->donor != UINT32_MAX && *depth < k->ddead && pd__donor_step(k, *depth, prev, b[*depth])) {
      k->dpatience = PD__DONOR_PATIENCE;
      ++*depth;
      return 2;
    }
  }
  return 1;
}

#define PD__DONOR_LOOKUPS 256u /* tokens of a subtree looked up one by one */

/* The tokens of trie positions [lo, hi) as the donor classified them. */
static void pd__donor_copy(pd_classifier *k, uint32_t lo, uint32_t hi) {
  const pd_trie *t = &k->c->trie;
  const pd_tokset *acc = &k->don_cls->accepted, *cd = &k->don_cls->cd;
  if (!k->don_bits && hi - lo <= PD__DONOR_LOOKUPS) {
    for (uint32_t q = lo; q < hi; q++) {
      if (pd_tokset_has(acc, t->order[q], &k->c->u)) pd__set(k, 0, t->order[q]);
      if (pd_tokset_has(cd, q, &k->c->pu)) pd__set(k, 1, q);
    }
    return;
  }
  if (!k->don_bits) { /* 16 KB each at 128k tokens: once a run */
    pd_tokset_union(&acc, 1, k->don_acc, &k->c->u);
    pd_tokset_union(&cd, 1, k->don_cd, &k->c->pu);
    k->don_bits = true;
  }
  for (uint32_t q = lo; q < hi; q++) {
    if (pd_bit_get(k->don_acc, t->order[q])) pd__set(k, 0, t->order[q]);
    if (pd_bit_get(k->don_cd, q)) pd__set(k, 1, q);
  }
}

/* Whether the donor's path beside the walk dies at byte c of depth d as the
 * seed's row did, with the same verdict g (pd__after): its row there is a
 * lone item, so its verdicts on the tokens under that prefix are the seed's,
 * and the sets that hold them need no token compared. A key complement's
 * walks beside another state of its rule that end with the donor's class
 * (23 k over MaskBench) took 6-8% less. */
static bool pd__donor_dies_alike(pd_classifier *k, uint32_t d, uint8_t prev, uint8_t c,
                                 uint8_t g) {
  if (k->donor == UINT32_MAX || d >= k->ddead || k->dpath[d] == UINT32_MAX) return false;
  return pd__step(k, k->dpath[d], c) == UINT32_MAX && pd__after(k, k->dflags[d], prev, c) == g;
}

/* A walk's verdict on trie position i (of a range ending at hi), whose bytes
 * b were pushed up to depth with result r (pd__push_rest), flags the end
 * flags of the row there: under a prefix met by the donor its verdicts (r >=
 * 2), i accepted (1), or the tokens under the dead prefix context-dependent
 * where the seed's rule may end before the byte (0). Returns the next position. */
static uint32_t pd__verdict(pd_classifier *k, uint32_t i, uint32_t hi, int r, uint32_t depth,
                            uint8_t flags, const uint8_t *b) {
  const pd_trie *t = &k->c->trie;
  if (r >= 2) { /* every token under this prefix as the donor has it */
    uint32_t next = pd_trie_skip_depth(t, i, r == 2 ? depth : depth + 1);
    if (next > hi) next = hi;
    if (!k->overwrite) pd__donor_copy(k, i, next);
    return next;
  }
  if (r) {
    if (k->overwrite && (!pd_bit_get(k->acc, t->order[i]) || pd_bit_get(k->cd, i)))
      k->changed = true;
    pd__set(k, 0, t->order[i]);
    if (k->overwrite) pd_bit_clear(k->cd, i);
    return i + 1;
  }
  uint32_t next = pd_trie_skip_depth(t, i, depth + 1);
  uint8_t g = pd__after(k, flags, depth ? b[depth - 1] : 0, b[depth]);
  if (!k->overwrite) {
    pd__set_dead(k, i, next, g, depth, b[depth]);
    return next;
  }
  if (pd__donor_dies_alike(k, depth, depth ? b[depth - 1] : 0, b[depth], g))
    return next; /* the sets hold the donor's verdicts there, which are these */
  const uint32_t *row = pd__half_row(k, g, b[depth]);
  for (uint32_t q = i; q < next; q++) {
    bool live = pd__dead_cd(t, g, row, q, depth);
    if (pd_bit_get(k->acc, t->order[q]) || pd_bit_get(k->cd, q) != live) k->changed = true;
    pd_bit_clear(k->acc, t->order[q]);
    if (live) pd_bit_set(k->cd, q);
    else pd_bit_clear(k->cd, q);
  }
  return next;
}

/* The trie walk from the seed row over trie positions ranges[2j] ..
 * ranges[2j+1) (each the tokens of some first bytes, so its first token shares
 * no byte with the one before and the walk starts it from row 0): fills acc
 * and cd. base > 0: the tokens that share a narrow path's base bytes, whose
 * rows are pushed and stay (pd__narrow_walk). */
static pd_status pd__walk(pd_classifier *k, const uint32_t *ranges, size_t n_ranges,
                          uint32_t base, pd_error *err) {
  const pd_trie *t = &k->c->trie;
  uint32_t depth = base;
  for (size_t j = 0; j < n_ranges && !k->over; j++) {
    uint32_t i = ranges[2 * j], hi = ranges[2 * j + 1];
    while (i < hi && !k->over) {
      uint32_t len, lcp = t->lcp[i] < base ? base : t->lcp[i];
      const uint8_t *b = pd_trie_bytes(t, i, &len);
      if (lcp < depth) {
        pd__pop(k, depth - lcp);
        depth = lcp;
        if (k->ddead > depth) k->ddead = UINT32_MAX;
      }
      int r = pd__push_rest(k, b, len, &depth);
      if (r < 0) return pd__nomem(err);
      i = pd__verdict(k, i, hi, r, depth, k->ends.data[depth], b);
    }
  }
  if (depth > base) pd__pop(k, depth - base);
  if (k->over) return pd__fail(err, PD_ERR_LIMIT, "classification row over %u items", k->row_max);
  return PD_OK;
}

/* ---------------------------------------------- the walk by configurations */

static int pd__u64_cmp(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Sorts x[0..n): most rows hold an item or two. */
static void pd__sort_u64(uint64_t *x, uint32_t n) {
  if (n > 16) {
    qsort(x, n, sizeof *x, pd__u64_cmp);
    return;
  }
  for (uint32_t i = 1; i < n; i++)
    for (uint32_t j = i; j > 0 && x[j - 1] > x[j]; j--) {
      uint64_t y = x[j];
      x[j] = x[j - 1], x[j - 1] = y;
    }
}

/* Interns the last real row, the path's row r, as a configuration into *cfg;
 * false past PD__CFG_MAX or out of memory (then *nomem). */
static bool pd__cfg_intern(pd_classifier *k, uint32_t r, uint32_t *cfg, bool *nomem) {
  uint32_t a = pd_array_last(&k->rows), n = (uint32_t)k->items.len - a;
  size_t at = k->cfg_items.len;
  if (!pd_array_reserve(k->a, &k->cfg_items, n)) return !(*nomem = true);
  uint64_t *x = k->cfg_items.data + at, h = n;
  for (uint32_t i = 0; i < n; i++) {
    pd__item it = k->items.data[a + i];
    /* a caller's item of a pair parse keeps its origin, a mark of its own */
    uint32_t o = it.origin == r ? PD__SELF : it.origin > PD__TOP - PD__TOPS ? it.origin
                                                                            : k->cst[it.origin];
    x[i] = (uint64_t)it.state << 32 | o;
  }
  pd__sort_u64(x, n); /* a row's items are a set */
  for (uint32_t i = 0; i < n; i++) h = (h ^ x[i]) * 0x9e3779b97f4a7c15u;
  uint32_t j = (uint32_t)(h >> 40) & (PD__CFG_SLOTS - 1);
  for (; k->cfg_slot[j] >> 12 == k->cfg_gen; j = (j + 1) & (PD__CFG_SLOTS - 1)) {
    uint32_t c = (k->cfg_slot[j] & 0xfff) - 1, m = k->cfg_at.data[c + 1] - k->cfg_at.data[c];
    if (m == n && !memcmp(k->cfg_items.data + k->cfg_at.data[c], x, n * sizeof *x)) {
      *cfg = c;
      return true;
    }
  }
  uint32_t c = (uint32_t)k->cfg_lone.len;
  if (c == PD__CFG_MAX) return false;
  if (!pd_array_reserve(k->a, &k->cfg_next, 256) || !pd_array_push(k->a, &k->cfg_at, 0) ||
      !pd_array_push(k->a, &k->cfg_lone, UINT32_MAX))
    return !(*nomem = true);
  k->cfg_items.len = at + n;
  k->cfg_at.data[c + 1] = (uint32_t)k->cfg_items.len;
  if (n == 1 && (uint32_t)x[0] == 0) k->cfg_lone.data[c] = (uint32_t)(x[0] >> 32);
  memset(k->cfg_next.data + k->cfg_next.len, 0, 256 * sizeof *k->cfg_next.data);
  k->cfg_next.len += 256;
  k->cfg_slot[j] = k->cfg_gen << 12 | (c + 1);
  *cfg = c;
  return true;
}

/* The path's step from depth d by byte b[d] (b: the token on the path): 1
 * on (cst and cfl at d + 1 set), 0 dead (or the row went past row_max), -1
 * out of memory, -2 past PD__CFG_MAX. A step not known yet is pushed on the
 * real rows, the path's rows up to d pushed first where they are not. */
static int pd__cfg_step(pd_classifier *k, const uint8_t *b, uint32_t d) {
  uint32_t x = k->cfg_next.data[(size_t)k->cst[d] * 256 + b[d]];
  if (!x) {
    for (; k->real_d < d; k->real_d++) /* it went on before: a failure is memory */
      if (pd__push(k, k->real_d ? b[k->real_d - 1] : 0, b[k->real_d]) <= 0) return -1;
    int r = pd__push(k, d ? b[d - 1] : 0, b[d]);
    if (r < 0) return -1;
    if (k->over) return 0;
    x = 1;
    if (r) {
      uint32_t to;
      bool nomem = false;
      k->real_d = d + 1; /* popped with the others, whatever follows */
      if (!pd__cfg_intern(k, d + 1, &to, &nomem)) return nomem ? -1 : -2;
      x = 2 + (to << 1 | (k->ends.data[d + 1] & PD__END ? 1u : 0u));
    }
    k->cfg_next.data[(size_t)k->cst[d] * 256 + b[d]] = x;
  }
  if (x == 1) return 0;
  x -= 2;
  k->cst[d + 1] = x >> 1;
  uint8_t live = pd__after(k, k->cfl[d], d ? b[d - 1] : 0, b[d]);
  k->cfl[d + 1] = (uint8_t)(live | (x & 1 ? PD__END : 0));
  return 1;
}

/* pd__push_rest over configurations, and -2 past PD__CFG_MAX. */
static int pd__cfg_push_rest(pd_classifier *k, const uint8_t *b, uint32_t len, uint32_t *depth) {
  for (; *depth < len; ++*depth) {
    uint32_t d = *depth;
    uint8_t prev = d ? b[d - 1] : 0;
    if (k->donor != UINT32_MAX && d < k->ddead &&
        pd__donor_meets_at(k, d, prev, b[d], k->cfg_lone.data[k->cst[d]], k->cfl[d])) {
      k->dpatience = PD__DONOR_PATIENCE;
      return 3;
    }
    int r = pd__cfg_step(k, b, d);
    if (r <= 0) return r;
    if (k->donor != UINT32_MAX && d < k->ddead &&
        pd__donor_step_to(k, d, prev, b[d], k->cfg_lone.data[k->cst[d + 1]], k->cfl[d + 1])) {
      k->dpatience = PD__DONOR_PATIENCE;
      ++*depth;
      return 2;
    }
  }
  return 1;
}

/* Forgets the configurations of the last walk but configuration 0, the seed
 * row (row 0, its lone item of origin 0, which no other row equals: no item
 * is interned by it), where the path starts; false out of memory. */
static bool pd__cfg_begin(pd_classifier *k) {
  k->cfg_items.len = k->cfg_at.len = k->cfg_lone.len = k->cfg_next.len = 0;
  if (++k->cfg_gen >> 20) { /* 2^20 walks (every caller class's parse is one): stamps anew */
    memset(k->cfg_slot, 0, PD__CFG_SLOTS * sizeof *k->cfg_slot);
    k->cfg_gen = 1;
  }
  if (!pd_array_push(k->a, &k->cfg_at, 0) || !pd_array_push(k->a, &k->cfg_at, 0) ||
      !pd_array_push(k->a, &k->cfg_lone, k->items.data[0].state) ||
      !pd_array_reserve(k->a, &k->cfg_next, 256))
    return false;
  memset(k->cfg_next.data, 0, 256 * sizeof *k->cfg_next.data);
  k->cfg_next.len = 256;
  k->cst[0] = 0, k->cfl[0] = k->ends.data[0], k->real_d = 0;
  return true;
}

/* pd__walk from the seed row (base 0) with the rows as configurations: a
 * step already taken from an equal row is a load, as in the DFA walk (the
 * Earley walk pushed 75 M rows over MaskBench, 64% of them of one item).
 * *bound: past PD__CFG_MAX, where the caller walks again by pd__walk (the
 * verdicts set so far are the same). */
static pd_status pd__walk_cfg(pd_classifier *k, const uint32_t *ranges, size_t n_ranges,
                              bool *bound, pd_error *err) {
  const pd_trie *t = &k->c->trie;
  if (!pd__cfg_begin(k)) return pd__nomem(err);
  uint32_t depth = 0;
  int r = 1;
  for (size_t j = 0; j < n_ranges && !k->over && r >= 0; j++) {
    uint32_t i = ranges[2 * j], hi = ranges[2 * j + 1];
    while (i < hi && !k->over) {
      uint32_t len;
      const uint8_t *b = pd_trie_bytes(t, i, &len);
      if (t->lcp[i] < depth) {
        depth = t->lcp[i];
        if (k->ddead > depth) k->ddead = UINT32_MAX;
        if (k->real_d > depth) pd__pop(k, k->real_d - depth), k->real_d = depth;
      }
      if ((r = pd__cfg_push_rest(k, b, len, &depth)) < 0) break;
      i = pd__verdict(k, i, hi, r, depth, k->cfl[depth], b);
    }
  }
  if (k->real_d) pd__pop(k, k->real_d), k->real_d = 0;
  if (r == -1) return pd__nomem(err);
  *bound = r == -2;
  if (k->over) return pd__fail(err, PD_ERR_LIMIT, "classification row over %u items", k->row_max);
  return PD_OK;
}

/* The trie walk of pd__walk over the trie positions pos[0..n) (ascending):
 * a prefix shared with the last token walked stays pushed, and a dead prefix
 * skips the positions under it. Accepted ids go to acc, cd positions to cd.
 * base > 0: the positions share their first base bytes, whose rows are
 * pushed and stay (pd__narrow_walk). cfg: over configurations from the seed
 * row (base 0), as pd__walk_cfg, *bound as there: a pair parse's tokens end
 * the seed's rule after bytes of their own (a string's content) and then
 * step through the same few rows of the callers, which the plain walk pushed
 * again for each token (two thirds of a pair parse were pushes). */
static pd_status pd__walk_list(pd_classifier *k, const uint32_t *pos, uint32_t n, uint32_t base,
                               bool cfg, uint32_t *acc, uint32_t *n_acc, uint32_t *cd,
                               uint32_t *n_cd, bool *bound, pd_error *err) {
  const pd_trie *t = &k->c->trie;
  const uint8_t *last = NULL;
  uint32_t depth = base;
  int r = 1;
  if (cfg && !pd__cfg_begin(k)) return pd__nomem(err);
  for (uint32_t j = 0; j < n && !k->over;) {
    uint32_t len, keep = base;
    const uint8_t *b = pd_trie_bytes(t, pos[j], &len);
    while (keep < depth && keep < len && last[keep] == b[keep]) keep++;
    if (cfg && k->real_d > keep) pd__pop(k, k->real_d - keep), k->real_d = keep;
    if (!cfg && keep < depth) pd__pop(k, depth - keep);
    depth = keep;
    last = b;
    r = cfg ? pd__cfg_push_rest(k, b, len, &depth) : pd__push_rest(k, b, len, &depth);
    if (r < 0) break;
    if (r) {
      acc[(*n_acc)++] = t->order[pos[j++]];
      continue;
    }
    uint32_t next = pd_trie_skip_depth(t, pos[j], depth + 1);
    uint8_t f = cfg ? k->cfl[depth] : k->ends.data[depth];
    uint8_t g = pd__after(k, f, depth ? b[depth - 1] : 0, b[depth]);
    const uint32_t *row = pd__half_row(k, g, b[depth]);
    for (; j < n && pos[j] < next; j++)
      if (pd__dead_cd(t, g, row, pos[j], depth)) cd[(*n_cd)++] = pos[j];
  }
  if (cfg && k->real_d) pd__pop(k, k->real_d), k->real_d = 0;
  if (!cfg && depth > base) pd__pop(k, depth - base);
  if (r == -1) return pd__nomem(err);
  if (bound) *bound = r == -2;
  if (k->over) return pd__fail(err, PD_ERR_LIMIT, "classification row over %u items", k->row_max);
  return PD_OK;
}

/* tokens of a seed's first bytes that take the survivors' pass, or an
 * eighth of a smaller vocabulary (the tests' and the fuzz target's) */
#define PD__SURVIVORS_MIN 4096u

/* The survivors' pass: a token of the ranges whose bytes the seed's own
 * automaton takes to the end (its byte edges, no calls) leaves that item of
 * the seed's rule alive, so it is accepted whatever else the row holds. Those
 * are set in acc by a walk of single states; the others become candidates
 * (trie positions in cand) of the Earley walk, pd__walk_cand. A state inside
 * a string or a search (a self-loop over every character, beside a call that
 * looks for the pattern) has only the tokens with a quote or a byte no string
 * holds left: the Earley walk of every token of the vocabulary, its rows
 * carrying a start of the pattern per character, took 9-33 ms. base > 0:
 * the tokens share their first base bytes, a narrow path from the seed to s
 * (pd__narrow_walk), whose rows are pushed. */
static void pd__survivors(pd_classifier *k, uint32_t s, const uint32_t *ranges, size_t n_ranges,
                          uint32_t base, uint32_t *cand) {
  const pd_trie *t = &k->c->trie;
  uint32_t *st = k->dpath; /* the seed's path, free without a donor */
  st[base] = s;
  for (size_t j = 0; j < n_ranges; j++) {
    uint32_t i = ranges[2 * j], hi = ranges[2 * j + 1], depth = base;
    while (i < hi) {
      uint32_t len;
      const uint8_t *b = pd_trie_bytes(t, i, &len);
      if (t->lcp[i] < depth) depth = t->lcp[i] < base ? base : t->lcp[i];
      for (; depth < len; depth++) {
        uint32_t x = pd__step(k, st[depth], b[depth]);
        if (x == UINT32_MAX) break;
        st[depth + 1] = x;
      }
      if (depth == len) {
        pd__set(k, 0, t->order[i++]);
        continue;
      }
      uint32_t next = pd_trie_skip_depth(t, i, depth + 1);
      pd_bits_set_range(cand, i, next);
      i = next;
    }
  }
}

/* Whether the survivors' pass suits s: most tokens of its first bytes begin
 * with a byte that loops back to s (the interior of a string, or of the any*
 * before a search's pattern), and they are many. */
static bool pd__loops(pd_classifier *k, uint32_t s) {
  const pd_pda_edge *e = k->edges + k->states[s].edges;
  uint64_t all = 0, loop = 0;
  for (uint32_t i = 0; i < k->states[s].n_byte; i++) {
    uint32_t n = k->first[e[i].hi + 1] - k->first[e[i].lo];
    all += n;
    if (e[i].to == s) loop += n;
  }
  uint32_t min = k->c->trie.n / 8 < PD__SURVIVORS_MIN ? k->c->trie.n / 8 : PD__SURVIVORS_MIN;
  return all >= min && all && 2 * loop >= all;
}

/* The Earley walk of the candidates cand (trie positions in [lo, hi), which
 * share their first base bytes; cleared). */
static pd_status pd__walk_cand(pd_classifier *k, uint32_t *cand, uint32_t lo, uint32_t hi,
                               uint32_t base, pd_error *err) {
  size_t w0 = lo / 32, nw = (hi + 31) / 32 - w0;
  uint32_t n = (uint32_t)pd_popcount_words(cand + w0, nw), i = 0, n_acc = 0, n_cd = 0;
  /* positions, then the accepted ids and the cd positions of pd__walk_list */
  uint32_t *buf = pd__malloc(k->a, (3 * (size_t)n + 1) * sizeof *buf);
  for (uint32_t p = pd_next_bit(cand, w0 + nw, lo); buf && p != UINT32_MAX;
       p = pd_next_bit(cand, w0 + nw, p + 1))
    buf[i++] = p;
  memset(cand + w0, 0, nw * sizeof *cand);
  if (!buf) return pd__nomem(err);
  pd_status st =
      pd__walk_list(k, buf, n, base, false, buf + n, &n_acc, buf + 2 * (size_t)n, &n_cd, NULL, err);
  for (uint32_t q = 0; st == PD_OK && q < n_acc; q++) pd__set(k, 0, buf[n + q]);
  for (uint32_t q = 0; st == PD_OK && q < n_cd; q++) pd__set(k, 1, buf[2 * (size_t)n + q]);
  pd__free(k->a, buf);
  return st;
}

pd_status pd_classifier_pair(pd_classifier *k, uint32_t s, const uint32_t *tops, uint32_t n_tops,
                             const uint32_t *pos, uint32_t n, uint32_t *acc, uint32_t *n_acc,
                             uint32_t *cd, uint32_t *n_cd, pd_error *err) {
  *n_acc = *n_cd = 0;
  if (!n_tops || n_tops > PD__TOPS)
    return pd__fail(err, PD_ERR_ARG, "pair classification through %u callers", n_tops);
  k->items.len = k->rows.len = k->ends.len = 0;
  k->over = false;
  k->tops = tops, k->n_tops = n_tops;
  k->row_max = PD__PAIR_ROW_MAX;
  k->seed_follow = k->follow + 8 * (size_t)k->states[tops[n_tops - 1]].rule;
  k->seed_two = pd_follow2(k->follow, k->n_rules, k->states[tops[n_tops - 1]].rule);
  pd_status st = PD_OK;
  if (!pd_array_push(k->a, &k->rows, 0) || !pd_array_push(k->a, &k->ends, 0) ||
      !pd_array_push(k->a, &k->items, ((pd__item){s, 0})))
    st = pd__nomem(err);
  /* few tokens, or past the configurations' bound: by the plain walk */
  bool plain = n < PD__PAIR_CFG_MIN;
  if (st == PD_OK && !plain)
    st = pd__walk_list(k, pos, n, 0, true, acc, n_acc, cd, n_cd, &plain, err);
  if (st == PD_OK && plain) {
    *n_acc = *n_cd = 0;
    st = pd__walk_list(k, pos, n, 0, false, acc, n_acc, cd, n_cd, NULL, err);
  }
  k->n_tops = 0;
  k->row_max = PD__ROW_MAX;
  return st;
}

/* Whether no state of s's rule reachable from s calls a rule: then the local
 * parse is one item, a state of a deterministic automaton, at every byte. */
static bool pd__calls_no_rule(pd_classifier *k, uint32_t s) {
  bool ok = true;
  k->queue.len = 0;
  if (!pd_array_push(k->a, &k->queue, s)) return false;
  k->canon[s] = 1;
  for (size_t q = 0; q < k->queue.len && ok; q++) {
    const pd_pda_state *st = &k->states[k->queue.data[q]];
    const pd_pda_edge *e = k->edges + st->edges;
    ok = st->n_call == 0;
    for (uint32_t i = 0; i < st->n_byte && ok; i++)
      if (!k->canon[e[i].to]) {
        k->canon[e[i].to] = 1;
        ok = pd_array_push(k->a, &k->queue, e[i].to);
      }
  }
  for (size_t q = 0; q < k->queue.len; q++) k->canon[k->queue.data[q]] = 0;
  return ok;
}

/* Gives the states of k->queue (a call-free closure, pd__calls_no_rule) their
 * dense DFA rows; false past PD__DFA_ROWS or out of memory (then the seed
 * walks as before: nothing is half made, as rows are only added). */
static bool pd__dfa_rows(pd_classifier *k) {
  size_t fresh = 0, at = k->dfa.len / 256;
  for (size_t q = 0; q < k->queue.len; q++) fresh += !k->dfa_row[k->queue.data[q]];
  if (at + fresh > PD__DFA_ROWS || !pd_array_reserve(k->a, &k->dfa, 256 * fresh)) return false;
  for (size_t q = 0; q < k->queue.len; q++)
    if (!k->dfa_row[k->queue.data[q]]) k->dfa_row[k->queue.data[q]] = (uint32_t)++at;
  for (size_t q = 0; q < k->queue.len; q++) {
    uint32_t s = k->queue.data[q], r = k->dfa_row[s] - 1;
    if ((size_t)r * 256 < k->dfa.len) continue; /* had its row */
    uint16_t *row = k->dfa.data + (size_t)r * 256;
    memset(row, 0, 256 * sizeof *row);
    const pd_pda_edge *e = k->edges + k->states[s].edges;
    for (uint32_t i = 0; i < k->states[s].n_byte; i++) {
      uint16_t x = (uint16_t)(k->dfa_row[e[i].to] << 1 |
                              (k->states[e[i].to].flags & PD_STATE_FINAL ? 1 : 0));
      for (uint32_t c = e[i].lo; c <= e[i].hi; c++) row[c] = x;
    }
  }
  k->dfa.len = at * 256;
  return true;
}

/* The list of long tokens (trie.h) a range keeping tokens of up to keep
 * bytes walks: the longest threshold at most keep (keep >= PD_TRIE_LONG_MIN),
 * in the lists with the quoted tokens for PD__KEEP_QUOTE. */
static int pd__long_list(uint32_t keep) {
  int l = 0;
  uint32_t len = keep & ~PD__KEEP_QUOTE;
  while (l + 1 < PD_TRIE_LONG && PD_TRIE_LONG_MIN << (l + 1) <= len) l++;
  return keep & PD__KEEP_QUOTE ? l + PD_TRIE_LONG : l;
}

/* Whether a token of bytes b[0..len) keeps the donor's class under keep (0:
 * none does, the whole range is walked). */
static bool pd__keeps(uint32_t keep, const uint8_t *b, uint32_t len) {
  if (keep == UINT32_MAX) return true;
  return len <= (keep & ~PD__KEEP_QUOTE) && !((keep & PD__KEEP_QUOTE) && memchr(b, '"', len));
}

/* The first index of a[0..n) (ascending) whose value is >= v. */
static uint32_t pd__lower_bound(const uint32_t *a, uint32_t n, uint32_t v) {
  uint32_t lo = 0, hi = n;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (a[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* The long tokens of trie positions [lo, hi) for a range keeping keep bytes:
 * entries [*a, *e) of the trie's list returned. */
static int pd__long_span(const pd_trie *t, uint32_t keep, uint32_t lo, uint32_t hi, uint32_t *a,
                         uint32_t *e) {
  int l = pd__long_list(keep);
  *a = pd__lower_bound(t->long_at[l], t->n_long[l], lo);
  *e = pd__lower_bound(t->long_at[l], t->n_long[l], hi);
  return l;
}

/* The DFA walk (below) of trie positions [lo, hi), the tokens of some first
 * bytes, over the trie's nodes (trie.h); st[0] and fl[0] hold the seed's, and
 * by[d] the path's byte d (what the byte after it is judged by, PD__HALF). */
static void pd__walk_nodes(pd_classifier *k, uint32_t *st, uint8_t *fl, uint8_t *by,
                           uint32_t lo, uint32_t hi) {
  const pd_trie *t = &k->c->trie;
  const uint16_t *dfa = k->dfa.data;
  const uint32_t *info = t->node_info;
  for (uint32_t j = t->node_at[lo], e = t->node_at[hi]; j < e;) {
    uint32_t d = info[j] >> 16;
    uint8_t c = (uint8_t)info[j], f = fl[d];
    uint32_t x = dfa[(size_t)st[d] * 256 + c];
    uint8_t g = f ? pd__after(k, f, d ? by[d - 1] : 0, c) : 0;
    if (!x) { /* its subtree dies: cd where the rule may end before c */
      uint32_t next = t->node_skip[j];
      pd__set_dead(k, t->node_tok[j], next < t->n_nodes ? t->node_tok[next] : t->n, g, d, c);
      j = next;
      continue;
    }
    st[d + 1] = (x >> 1) - 1;
    fl[d + 1] = (uint8_t)(g | (x & 1 ? PD__END : 0));
    by[d] = c;
    uint32_t q = t->node_tok[j], m = info[j] >> 8 & 0xff;
    pd__set_if(k, 0, t->order[q], m != 0);
    for (uint32_t r = 1; r < m; r++) pd__set(k, 0, t->order[q + r]); /* tokens alike */
    j++;
  }
}

/* The trie walk of pd__walk for a seed with a dense DFA row (its automaton
 * calls nothing from it): the row and the rule-end flags per depth on two
 * stacks, no Earley rows. */
static pd_status pd__walk_dfa(pd_classifier *k, uint32_t s, const uint32_t *ranges,
                              size_t n_ranges, pd_error *err) {
  const pd_trie *t = &k->c->trie;
  const uint16_t *dfa = k->dfa.data;
  size_t cap = (size_t)t->max_len + 1;
  uint32_t *st = pd__malloc(k->a, cap * sizeof *st);
  uint8_t *fl = pd__malloc(k->a, 2 * cap), *by = fl + cap; /* flags, bytes by depth */
  if (!st || !fl) {
    pd__free(k->a, st);
    pd__free(k->a, fl);
    return pd__nomem(err);
  }
  st[0] = k->dfa_row[s] - 1, fl[0] = 0; /* row 0: the seed alone (see pd_classifier_run) */
  uint32_t depth = 0;
  for (size_t j = 0; j < n_ranges; j++) {
    uint32_t i = ranges[2 * j], hi = ranges[2 * j + 1], keep = k->keep[j];
    if (!keep && t->node_info) { /* every token: over the nodes */
      pd__walk_nodes(k, st, fl, by, i, hi);
      continue;
    }
    /* with keep: only the tokens longer than keep, from a list of long ones */
    const uint32_t *at = NULL, *gap = NULL;
    uint32_t li = 0, le = 0, lcp = 0;
    if (keep) {
      int l = pd__long_span(t, keep, i, hi, &li, &le);
      at = t->long_at[l], gap = t->long_lcp[l];
    }
    while (keep ? li < le : i < hi) {
      if (keep) { /* the next long token; lcp: what it shares with the last one walked */
        lcp = gap[li] < lcp ? gap[li] : lcp;
        i = at[li++];
        if (pd__keeps(keep, t->bytes + t->at[i], t->at[i + 1] - t->at[i])) continue;
      } else {
        lcp = t->lcp[i];
      }
      uint32_t len;
      const uint8_t *b = pd_trie_bytes(t, i, &len);
      if (lcp < depth) depth = lcp;
      lcp = UINT32_MAX;
      for (; depth < len; depth++) {
        uint8_t c = b[depth];
        uint32_t x = dfa[(size_t)st[depth] * 256 + c];
        if (!x) break;
        st[depth + 1] = (x >> 1) - 1;
        fl[depth + 1] =
            (uint8_t)(pd__after(k, fl[depth], depth ? b[depth - 1] : 0, c) | (x & 1 ? PD__END : 0));
      }
      if (depth == len) {
        pd__set(k, 0, t->order[i]);
        i++;
        continue;
      }
      /* the tokens sharing the dead prefix die with it, the kept ones too:
       * alike from the donor, so setting their bits changes nothing */
      uint8_t c = b[depth], g = pd__after(k, fl[depth], depth ? b[depth - 1] : 0, c);
      uint32_t next = pd_trie_skip_depth(t, i, depth + 1);
      pd__set_dead(k, i, next, g, depth, c);
      for (; keep && li < le && at[li] < next; li++) lcp = gap[li] < lcp ? gap[li] : lcp;
      i = next;
    }
    depth = 0;
  }
  pd__free(k->a, st);
  pd__free(k->a, fl);
  return PD_OK;
}

/* The tokens of trie positions [*lo, *hi), which share their first d bytes,
 * whose byte d is c, by binary search; those of d bytes (first) left out. */
static void pd__narrow(const pd_trie *t, uint32_t d, uint8_t c, uint32_t *lo, uint32_t *hi) {
  uint32_t a = *lo, e = *hi, x, y;
  while (a < e && t->at[a + 1] - t->at[a] == d) a++;
  for (x = a, y = e; x < y;) { /* the first whose byte d is >= c */
    uint32_t m = x + (y - x) / 2;
    if (t->bytes[t->at[m] + d] < c) x = m + 1;
    else y = m;
  }
  for (*lo = x, y = e; x < y;) { /* the first whose byte d is > c */
    uint32_t m = x + (y - x) / 2;
    if (t->bytes[t->at[m] + d] <= c) x = m + 1;
    else y = m;
  }
  *hi = x;
}

/* Whether state x is narrow: a few byte edges, each of one byte, and no
 * call (a key's name, where each character may also begin its \u escape). */
static bool pd__narrow_state(const pd_classifier *k, uint32_t x) {
  const pd_pda_state *st = &k->states[x];
  const pd_pda_edge *e = k->edges + st->edges;
  if (st->n_call || !st->n_byte || st->n_byte > PD__NARROW) return false;
  for (uint32_t i = 0; i < st->n_byte; i++)
    if (e[i].lo != e[i].hi) return false;
  return true;
}

/* The Earley walk of a narrow seed: along the narrow states below it (not
 * final: nothing ends there), a token that leaves their bytes dies with
 * nothing ended, so the tokens under each of their bytes are found by binary
 * search in the trie instead of stepping through every sibling (after a key's
 * opening quote, a hundred); those that end on the path are accepted, and the
 * others are walked from the first state off it. x is the state after depth
 * bytes, [a, e) the tokens that begin with those bytes, whose rows are pushed. */
static pd_status pd__narrow_walk(pd_classifier *k, uint32_t x, uint32_t depth, uint32_t a,
                                 uint32_t e, pd_error *err) {
  const pd_trie *t = &k->c->trie;
  const pd_pda_state *st = &k->states[x];
  const pd_pda_edge *ed = k->edges + st->edges;
  pd_status s = PD_OK;
  for (uint32_t i = 0; i < st->n_byte && s == PD_OK; i++) {
    uint32_t lo = a, hi = e, to = ed[i].to;
    if (depth) pd__narrow(t, depth, (uint8_t)ed[i].lo, &lo, &hi);
    else lo = k->first[ed[i].lo], hi = k->first[ed[i].lo + 1]; /* no search of the whole trie */
    if (lo == hi) continue;
    int r = pd__push(k, depth ? t->bytes[t->at[lo] + depth - 1] : 0, (uint8_t)ed[i].lo);
    if (r < 0) return pd__nomem(err);
    if (!r) continue; /* past the row bound (k->over): nothing pushed */
    if (depth + 1 == PD__NARROW_DEPTH || k->states[to].flags & PD_STATE_FINAL ||
        !pd__narrow_state(k, to)) {
      uint32_t range[2] = {lo, hi};
      if (hi - lo >= PD__NARROW_SURVIVORS && !(k->states[to].flags & PD_STATE_FINAL)) {
        /* the survivors' pass below the path (no rule ends on it) */
        pd__survivors(k, to, range, 1, depth + 1, k->cand);
        s = pd__walk_cand(k, k->cand, lo, hi, depth + 1, err);
      } else {
        s = pd__walk(k, range, 1, depth + 1, err);
      }
    } else {
      for (; lo < hi && t->at[lo + 1] - t->at[lo] == depth + 1; lo++) pd__set(k, 0, t->order[lo]);
      s = pd__narrow_walk(k, to, depth + 1, lo, hi, err);
    }
    pd__pop(k, 1);
  }
  return s;
}

static uint32_t pd__find(const pd_classifier *k, uint32_t x) {
  while (k->uf[x]) x = k->uf[x] - 1;
  return x;
}

/* Joins the classes of x and y, queueing the pair; false out of memory. */
static bool pd__unite(pd_classifier *k, uint32_t x, uint32_t y) {
  x = pd__find(k, x), y = pd__find(k, y);
  if (x == y) return true;
  k->uf[x] = y + 1;
  return pd_array_push(k->a, &k->touched, x) && pd_array_push(k->a, &k->pairs, x) &&
         pd_array_push(k->a, &k->pairs, y);
}

/* Whether states x and y have the same language (the strings that reach an
 * end, calls expanded), by a bisimulation that pairs edges position by
 * position: byte ranges equal, callees' start states paired, finality equal.
 * Union-find keeps it to one pass per state (as for DFA equivalence); false
 * when the budget of pair steps runs out or memory does (nothing is shared
 * then, which is always exact). The rules of x and y may differ:
 * a right-recursive key rule R(q) = char R(t) | '"' per state of a
 * pattern automaton is, past its first byte, the same language as the rest
 * of any other key. */
static bool pd__same_language(pd_classifier *k, uint32_t x, uint32_t y) {
  k->touched.len = k->pairs.len = 0;
  bool same = pd__unite(k, x, y);
  while (same && k->pairs.len) {
    uint32_t b = k->pairs.data[--k->pairs.len], a = k->pairs.data[--k->pairs.len];
    const pd_pda_state *sa = &k->states[a], *sb = &k->states[b];
    if (!k->budget || sa->n_byte != sb->n_byte || sa->n_call != sb->n_call ||
        sa->n_token != sb->n_token || (sa->flags ^ sb->flags) & PD_STATE_FINAL) {
      same = false;
      break;
    }
    k->budget--;
    const pd_pda_edge *ea = k->edges + sa->edges, *eb = k->edges + sb->edges;
    for (uint32_t i = 0; same && i < sa->n_byte + sa->n_call + sa->n_token; i++) {
      const pd_pda_edge *p = ea + i, *q = eb + i;
      if (p->kind == PD_EDGE_CALL) {
        const pd_pda_rule *rp = &k->rules[p->arg], *rq = &k->rules[q->arg];
        same = q->kind == PD_EDGE_CALL && rp->flags == rq->flags &&
               pd__unite(k, rp->start, rq->start);
      } else {
        same = p->kind == q->kind && p->lo == q->lo && p->hi == q->hi && p->neg == q->neg &&
               (p->kind != PD_EDGE_TOKEN || p->arg == q->arg);
      }
      same = same && pd__unite(k, p->to, q->to);
    }
  }
  for (size_t i = 0; i < k->touched.len; i++) k->uf[k->touched.data[i]] = 0;
  return same;
}

/* Puts pair (x, y) in pd__agree_depth's set; *fresh when it was not there.
 * False past PD__SEEN pairs (the search then stops short). */
static bool pd__seen_add(pd_classifier *k, uint32_t x, uint32_t y, bool *fresh) {
  *fresh = pd__mark(k, x, y);
  return !*fresh || ++k->n_seen <= PD__SEEN;
}

/* How many bytes past states x and y their automata agree: the largest K
 * such that every string of at most K bytes is defined from both or from
 * neither, and every string of fewer bytes ends in states alike final
 * (UINT32_MAX: past the longest token). Both must be call-free (dense DFA
 * rows), so byte edges are all there is. A token whose first byte takes the
 * seed to x and a donor of the same lookahead to y, with at most K bytes after
 * it, classifies alike: its death and the rule's ends before its last byte
 * are all the walk judges it by. Level by level over pairs of states, each
 * pair's byte ranges merged (a JSON character is a dozen ranges); a pair seen
 * at a smaller depth is not searched again (its differences lie deeper), and a
 * search out of budget stops short, at a smaller K, which is always sound.
 * quote_free: the strings without a '"' only (the byte's edges left out): two
 * positions of a string with a length differ where a quote may close them,
 * before its minimum at once, and agree on the characters up to the nearer
 * maximum. */
static uint32_t pd__agree_depth(pd_classifier *k, uint32_t x, uint32_t y, bool quote_free) {
  if ((k->states[x].flags ^ k->states[y].flags) & PD_STATE_FINAL) return 0;
  pd__new_set(k);
  k->n_seen = 0;
  k->level.len = 0;
  bool fresh;
  if (!pd__seen_add(k, x, y, &fresh) || !pd_array_push(k->a, &k->level, x) ||
      !pd_array_push(k->a, &k->level, y))
    return 0;
  for (uint32_t depth = 0, from = 0; depth < k->c->trie.max_len; depth++) {
    uint32_t to = (uint32_t)k->level.len;
    bool final_differs = false;
    if (from == to) return UINT32_MAX; /* every pair met in one state */
    for (uint32_t q = from; q < to; q += 2) {
      if (!k->abudget) return depth;
      k->abudget--;
      const pd_pda_state *sx = &k->states[k->level.data[q]];
      const pd_pda_state *sy = &k->states[k->level.data[q + 1]];
      const pd_pda_edge *ex = k->edges + sx->edges, *ey = k->edges + sy->edges;
      const pd_pda_edge *xe = ex + sx->n_byte, *ye = ey + sy->n_byte;
      for (uint32_t c = 0; c < 256;) { /* c: the first byte not compared yet */
        if (quote_free && c == '"') {
          c++;
          continue;
        }
        while (ex < xe && ex->hi < c) ex++;
        while (ey < ye && ey->hi < c) ey++;
        bool in_x = ex < xe && ex->lo <= c, in_y = ey < ye && ey->lo <= c;
        if (in_x != in_y) return depth;
        /* the bytes from c on that fall alike: up to the next edge boundary */
        uint32_t end = 255;
        if (in_x) {
          end = ex->hi < ey->hi ? ex->hi : ey->hi;
          final_differs |= (k->states[ex->to].flags ^ k->states[ey->to].flags) & PD_STATE_FINAL;
          if (ex->to != ey->to) {
            if (!pd__seen_add(k, ex->to, ey->to, &fresh)) return depth;
            if (fresh && (!pd_array_push(k->a, &k->level, ex->to) ||
                          !pd_array_push(k->a, &k->level, ey->to)))
              return depth;
          }
        } else {
          if (ex < xe) end = ex->lo - 1u;
          if (ey < ye && ey->lo - 1u < end) end = ey->lo - 1u;
        }
        if (quote_free && c < '"' && end >= '"') end = '"' - 1;
        c = end + 1;
      }
    }
    if (final_differs) return depth + 1;
    from = to;
  }
  return UINT32_MAX;
}

#define PD__PAIR_MEMO 16  /* distinct target pairs remembered by one donor's comparison */
#define PD__PAIR_BUDGET 4096u

/* For each first byte b, the tokens that classify from s (its targets: to)
 * as from donor d: keep[b] = UINT32_MAX when all do (no token begins with b,
 * or b leads both to states of the same language), else the length up to
 * which they do (pd__agree_depth; only when both targets have dense DFA rows
 * and the seed walks its DFA, dfa), 0 for none. Across rules the lookahead
 * must be the same too, since it judges the ends of the seed's rule (a donor
 * with less would reject tokens s leaves to the walk). */
static void pd__same_targets(pd_classifier *k, uint32_t s, uint32_t d, const uint32_t *to,
                             bool dfa, uint32_t *keep) {
  uint32_t memo[PD__PAIR_MEMO][3], n_memo = 0;
  uint32_t rs = k->states[s].rule, rd = k->states[d].rule;
  const uint32_t *ts = pd_follow2(k->follow, k->n_rules, rs);
  const uint32_t *td = pd_follow2(k->follow, k->n_rules, rd);
  bool follow_same =
      !memcmp(k->follow + 8 * (size_t)rs, k->follow + 8 * (size_t)rd, 8 * sizeof *k->follow) &&
      pd_follow2_words(ts) == pd_follow2_words(td) &&
      (!ts || !memcmp(ts, td, pd_follow2_words(ts) * sizeof *ts));
  for (int b = 0; b < 256; b++) {
    uint32_t x = to[b], y = pd__step(k, d, (uint8_t)b);
    keep[b] = x == y || k->first[b] == k->first[b + 1] ? UINT32_MAX : 0;
    if (keep[b] || !follow_same || x == UINT32_MAX || y == UINT32_MAX) continue;
    uint32_t m = 0;
    while (m < n_memo && (memo[m][0] != x || memo[m][1] != y)) m++;
    if (m < n_memo) {
      keep[b] = memo[m][2];
      continue;
    }
    if (pd__same_language(k, x, y)) {
      keep[b] = UINT32_MAX;
    } else if (dfa && k->dfa_row[x] && k->dfa_row[y]) {
      uint32_t depth = pd__agree_depth(k, x, y, false), max = k->c->trie.max_len;
      keep[b] = depth >= max ? UINT32_MAX : depth + 1;
      if (keep[b] < PD_TRIE_LONG_MIN) { /* else the tokens without a quote */
        depth = pd__agree_depth(k, x, y, true);
        uint32_t q = depth >= max ? max : depth + 1;
        keep[b] = q >= PD_TRIE_LONG_MIN ? q | PD__KEEP_QUOTE : 0; /* 0: walk them all */
      }
    }
    if (n_memo < PD__PAIR_MEMO)
      memo[n_memo][0] = x, memo[n_memo][1] = y, memo[n_memo++][2] = keep[b];
  }
}

/* The tokens of first byte b a donor with keep[b] leaves to the walk. */
static uint64_t pd__walked(const pd_classifier *k, int b, uint32_t keep) {
  const pd_trie *t = &k->c->trie;
  if (keep == UINT32_MAX) return 0;
  if (!keep) return k->first[b + 1] - k->first[b];
  uint32_t a, e;
  pd__long_span(t, keep, k->first[b], k->first[b + 1], &a, &e);
  return e - a;
}

/* Picks, among the donors, the one whose class covers the most of s: tokens
 * whose first byte takes s and the donor to states of the same language
 * classify alike (row 0 is the seed alone, so after one byte only that state
 * and the rule's lookahead matter), and with dense DFA rows (dfa) so do the
 * tokens short enough for the two automata to agree on. Fills k->ranges and
 * k->keep with what is left to walk and returns the donor's index, or -1 when
 * walking everything is as cheap. */
static int pd__pick_donor(pd_classifier *k, uint32_t s, const uint32_t *donors, size_t n,
                          bool dfa, size_t *n_ranges) {
  uint64_t full = 0, best_cost = UINT64_MAX;
  int best = -1;
  uint32_t to[256], keep[256], best_keep[256];
  for (int b = 0; b < 256; b++) {
    to[b] = pd__step(k, s, (uint8_t)b);
    if (to[b] != UINT32_MAX) full += k->first[b + 1] - k->first[b];
  }
  k->budget = PD__PAIR_BUDGET;
  k->abudget = PD__AGREE_BUDGET;
  for (size_t d = 0; d < n; d++) {
    uint64_t cost = 0;
    pd__same_targets(k, s, donors[d], to, dfa, keep);
    for (int b = 0; b < 256; b++) cost += pd__walked(k, b, keep[b]) + (keep[b] != UINT32_MAX);
    if (cost < best_cost) {
      best_cost = cost, best = (int)d;
      memcpy(best_keep, keep, sizeof keep);
    }
  }
  if (best < 0 || best_cost * 4 > full * 3) return -1; /* under a quarter saved */
  *n_ranges = 0;
  for (int b = 0; b < 256; b++) {
    if (best_keep[b] == UINT32_MAX || k->first[b] == k->first[b + 1]) continue;
    uint32_t *r = k->ranges, j = (uint32_t)*n_ranges;
    if (j && r[2 * j - 1] == k->first[b] && k->keep[j - 1] == best_keep[b]) {
      r[2 * j - 1] = k->first[b + 1]; /* adjacent, kept alike: one range */
    } else {
      r[2 * j] = k->first[b], r[2 * j + 1] = k->first[b + 1], k->keep[j] = best_keep[b];
      ++*n_ranges;
    }
  }
  return best;
}

uint32_t pd_classifier_heir(pd_classifier *k, uint32_t s) {
  /* the tokens under each target's byte ranges, from the edges (a DFA's:
   * disjoint), not from a step per byte: a broad state's 256 steps and its
   * pairs of bytes were a microsecond of each slow mask's new class */
  const pd_pda_state *st = &k->states[s];
  const pd_pda_edge *e = k->edges + st->edges;
  uint32_t to[256], n_to = 0, lo[256], cnt[256], full = 0, best = UINT32_MAX, best_n = 0;
  for (uint32_t i = 0; i < st->n_byte; i++) {
    uint32_t n = k->first[e[i].hi + 1] - k->first[e[i].lo], j = 0;
    full += n;
    if (e[i].to == s) continue;
    while (j < n_to && to[j] != e[i].to) j++;
    if (j == n_to) to[n_to] = e[i].to, lo[n_to] = e[i].lo, cnt[n_to++] = 0;
    if (e[i].lo < lo[j]) lo[j] = e[i].lo;
    cnt[j] += n;
  }
  if (full < k->c->trie.n / 8) return UINT32_MAX; /* a narrow walk: no need */
  uint32_t best_lo = 256;
  for (uint32_t j = 0; j < n_to; j++) /* the most tokens; a tie to the lowest byte */
    if (cnt[j] > best_n || (cnt[j] == best_n && best_n && lo[j] < best_lo))
      best_n = cnt[j], best = to[j], best_lo = lo[j];
  if (best_n * 2 <= full) return UINT32_MAX;
  /* a state that only calls the rest of the key (pd__same_language): that
   * rule's start is the donor, it has the byte edges */
  const pd_pda_state *h = &k->states[best];
  if (!h->n_byte && h->n_call == 1 && !h->n_token) {
    uint32_t y = k->rules[k->edges[h->edges].arg].start;
    return y != s && k->states[y].n_byte ? y : UINT32_MAX;
  }
  return h->n_byte ? best : UINT32_MAX;
}

/* What a donor's set leaves to the walk, by first byte: UINT32_MAX nothing,
 * 0 every token, else the tokens longer than that (k->ranges, k->keep). */
static void pd__walked_by_byte(const pd_classifier *k, size_t n_ranges, uint32_t *by) {
  const pd_trie *t = &k->c->trie;
  for (int b = 0; b < 256; b++) by[b] = UINT32_MAX;
  for (size_t j = 0; j < n_ranges; j++) {
    uint32_t lo = k->ranges[2 * j], hi = k->ranges[2 * j + 1];
    for (uint32_t b = t->bytes[t->at[lo]]; b <= t->bytes[t->at[hi - 1]]; b++) by[b] = k->keep[j];
  }
}

/* The donor's class less the tokens walked again: set by set where the donor
 * lists ids (its tokens, not the row, are visited), else through whole rows;
 * with overwrite (an Earley walk, which writes each verdict whole), dense sets
 * keep the walked tokens too. */
static void pd__from_donor(pd_classifier *k, const pd_mask_class *dc, size_t n_ranges,
                           bool overwrite) {
  const pd_trie *t = &k->c->trie;
  if (dc->accepted.kind == PD_TOKSET_IDS && dc->cd.kind == PD_TOKSET_IDS) {
    uint32_t by[256];
    pd__walked_by_byte(k, n_ranges, by);
    const pd_vocab *v = k->v;
    for (uint32_t i = 0; i < dc->accepted.n; i++) {
      uint32_t id = dc->accepted.data[i], at = v->offs[id];
      if (pd__keeps(by[v->bytes[at]], v->bytes + at, v->offs[id + 1] - at)) pd__set(k, 0, id);
    }
    for (uint32_t i = 0; i < dc->cd.n; i++) {
      uint32_t q = dc->cd.data[i];
      if (pd__keeps(by[t->bytes[t->at[q]]], t->bytes + t->at[q], t->at[q + 1] - t->at[q]))
        pd__set(k, 1, q);
    }
    return;
  }
  k->dense = true;
  const pd_tokset *acc = &dc->accepted, *cd = &dc->cd;
  pd_tokset_union(&acc, 1, k->acc, &k->c->u);
  pd_tokset_union(&cd, 1, k->cd, &k->c->pu);
  if ((k->overwrite = overwrite)) return;
  for (size_t j = 0; j < n_ranges; j++) {
    uint32_t lo = k->ranges[2 * j], hi = k->ranges[2 * j + 1], keep = k->keep[j];
    if (!keep) {
      for (uint32_t i = lo; i < hi; i++) pd_bit_clear(k->acc, t->order[i]), pd_bit_clear(k->cd, i);
      continue;
    }
    uint32_t x, e;
    const uint32_t *at = t->long_at[pd__long_span(t, keep, lo, hi, &x, &e)];
    for (; x < e; x++)
      if (!pd__keeps(keep, t->bytes + t->at[at[x]], t->at[at[x] + 1] - t->at[at[x]]))
        pd_bit_clear(k->acc, t->order[at[x]]), pd_bit_clear(k->cd, at[x]);
  }
}

/* acc or cd (which) as a set; then zero again. */
static pd_status pd__take(pd_classifier *k, int which, pd_tokset *out, pd_error *err) {
  uint32_t *bits = which ? k->cd : k->acc;
  const pd_universe *u = which ? &k->c->pu : &k->c->u;
  pd_status st;
  if (k->dense) {
    st = pd_tokset_from_bits(out, bits, pd_popcount_words(bits, u->n_words), u, k->a, err);
    memset(bits, 0, u->n_words * sizeof *bits);
  } else {
    st = pd_tokset_from_words(out, bits, k->dirty[which], k->n_dirty[which], u, k->a, err);
    for (uint32_t i = 0; i < k->n_dirty[which]; i++) bits[k->dirty[which][i]] = 0;
  }
  return st;
}

pd_status pd_classifier_run(pd_classifier *k, uint32_t s, const uint32_t *donors,
                            const pd_mask_class *const *dcls, size_t n_donors,
                            pd_mask_class *out, int *same, pd_error *err) {
  memset(out, 0, sizeof *out);
  *same = -1;
  if (!k->states[s].n_byte) return PD_OK;
  size_t n_ranges = 1;
  k->dense = false, k->n_dirty[0] = k->n_dirty[1] = 0;
  /* a narrow seed of the Earley walk walks a few subtrees: no donor saves more
   * than its pick costs (a DFA walk steps each byte with one load: as before) */
  bool dfa = k->dfa_row[s] || (pd__calls_no_rule(k, s) && pd__dfa_rows(k));
  bool narrow = !dfa && pd__narrow_state(k, s);
  int d = n_donors && !narrow ? pd__pick_donor(k, s, donors, n_donors, dfa, &n_ranges) : -1;
  bool survivors = !dfa && d < 0 && !narrow && pd__loops(k, s);
  if (d < 0) { /* the tokens of the first bytes s takes (the others die at once) */
    const pd_pda_edge *e = k->edges + k->states[s].edges;
    n_ranges = 0;
    for (uint32_t i = 0; i < k->states[s].n_byte; i++) {
      uint32_t lo = k->first[e[i].lo], hi = k->first[e[i].hi + 1], j = (uint32_t)n_ranges;
      if (lo == hi) continue;
      if (j && k->ranges[2 * j - 1] == lo) {
        k->ranges[2 * j - 1] = hi;
      } else {
        k->ranges[2 * j] = lo, k->ranges[2 * j + 1] = hi, k->keep[j] = 0;
        n_ranges++;
      }
    }
  } else {
    pd__from_donor(k, dcls[d], n_ranges, !dfa);
  }
  k->items.len = k->rows.len = k->ends.len = 0;
  k->over = false;
  k->seed_follow = k->follow + 8 * (size_t)k->states[s].rule;
  k->seed_two = pd_follow2(k->follow, k->n_rules, k->states[s].rule);
  /* row 0: the seed alone, not closed (its own byte edges take the first byte) */
  pd_status st = PD_OK;
  if (!pd_array_push(k->a, &k->rows, 0) || !pd_array_push(k->a, &k->ends, 0) ||
      !pd_array_push(k->a, &k->items, ((pd__item){s, 0})))
    st = pd__nomem(err);
  /* the Earley walk takes a donor of the seed's rule beside it */
  int j = d >= 0 ? d : 0;
  if (!dfa && !survivors && !narrow && n_donors &&
      k->states[donors[j]].rule == k->states[s].rule) {
    k->donor = k->dpath[0] = donors[j], k->dflags[0] = 0, k->ddead = UINT32_MAX;
    k->dpatience = PD__DONOR_PATIENCE;
    k->don_cls = dcls[j], k->don_bits = false;
  }
  if (st == PD_OK && narrow) {
    st = pd__narrow_walk(k, s, 0, 0, k->c->trie.n, err);
    if (st == PD_OK && k->over)
      st = pd__fail(err, PD_ERR_LIMIT, "classification row over %u items", k->row_max);
  } else if (st == PD_OK && dfa) {
    st = pd__walk_dfa(k, s, k->ranges, n_ranges, err);
  } else if (st == PD_OK && survivors) {
    pd__survivors(k, s, k->ranges, n_ranges, 0, k->cand);
    st = pd__walk_cand(k, k->cand, 0, k->c->trie.n, 0, err);
  } else if (st == PD_OK) {
    bool bound = false;
    st = pd__walk_cfg(k, k->ranges, n_ranges, &bound, err);
    if (st == PD_OK && bound) st = pd__walk(k, k->ranges, n_ranges, 0, err);
  }
  k->donor = UINT32_MAX, k->don_cls = NULL;
  if (st == PD_OK && k->overwrite && !k->changed) { /* the donor's class: nothing to take */
    memset(k->acc, 0, k->c->u.n_words * sizeof *k->acc);
    memset(k->cd, 0, k->c->pu.n_words * sizeof *k->cd);
    k->overwrite = false;
    *same = d;
    return PD_OK;
  }
  k->overwrite = k->changed = false;
  /* both sets are taken even after a failure: acc and cd must be zero again */
  pd_error *e = st == PD_OK ? err : NULL;
  pd_status st_acc = pd__take(k, 0, &out->accepted, e);
  pd_status st_cd = pd__take(k, 1, &out->cd, e);
  if (st == PD_OK) st = st_acc != PD_OK ? st_acc : st_cd;
  if (st != PD_OK) pd_mask_class_free(out, k->a);
  return st;
}
