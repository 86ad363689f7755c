/* test_spec.c - the batch step: row layout against replay on fresh matchers,
 * thread-count independence, the reasoning gate, advance, and accept /
 * rollback / fork sequences against replay. */
#include <stdlib.h>
#include <string.h>

#include "support.h"

/* ids: 0 a, 1 b, 2 c, 3 d, 4 ab, 5 bc, 6 cd, 7 </, 8 think, 9 >, 10 </think>, 11 eos */
static const char *const pdt_toks[] = {"a", "b", "c", "d", "ab", "bc", "cd",
                                       "</", "think", ">", "</think>", "</s>"};
enum { PDT_V = 12, PDT_EOS = 11 };
#define PDT_GRAMMAR "root ::= \"a\" (\"b\" | \"c\")* \"d\"\n"

typedef struct pdt_env {
  pd_vocab *v;
  pd_grammar *g;
} pdt_env;

static pdt_env pdt__env(const char *grammar) {
  const uint8_t *t[PDT_V];
  size_t lens[PDT_V];
  uint32_t flags[PDT_V] = {0};
  for (int i = 0; i < PDT_V; i++) {
    t[i] = (const uint8_t *)pdt_toks[i];
    lens[i] = strlen(pdt_toks[i]);
  }
  flags[PDT_EOS] = PD_TOKEN_EOS;
  pdt_env e = {0};
  assert_int_equal(pd_vocab_from_list(t, lens, flags, PDT_V, NULL, &e.v, NULL), PD_OK);
  assert_int_equal(pd_grammar_compile_gbnf(grammar, strlen(grammar), e.v, NULL, &e.g, NULL), PD_OK);
  return e;
}

static void pdt__env_free(pdt_env *e) {
  pd_grammar_free(e->g);
  pd_vocab_free(e->v);
}

/* The mask of a fresh matcher after ids[0..n), or all zeros when rejected. */
static uint32_t pdt__replay_mask(const pd_grammar *g, const uint32_t *ids, size_t n) {
  pd_matcher *m;
  uint32_t w = 0;
  assert_int_equal(pd_matcher_new(g, &m, NULL), PD_OK);
  size_t i = 0;
  while (i < n && pd_matcher_accept_token(m, ids[i], NULL) == PD_OK) i++;
  if (i == n) assert_int_equal(pd_matcher_fill_bitmask(m, &w, 1, NULL, NULL), PD_OK);
  pd_matcher_free(m);
  return w;
}

typedef struct pdt_batch {
  uint32_t bitmask[64];
  size_t offsets[9], valid[8], unc[64];
  pd_spec_result res;
} pdt_batch;

static void pdt__batch_init(pdt_batch *b) {
  memset(b, 0, sizeof *b);
  b->res = (pd_spec_result){b->bitmask, 1, b->offsets, b->valid, b->unc, 0};
}

static void test_rows_equal_replay(void **state) {
  (void)state;
  pdt_env e = pdt__env(PDT_GRAMMAR);
  pd_matcher *m1, *m2, *m3;
  assert_int_equal(pd_matcher_new(e.g, &m1, NULL), PD_OK);
  assert_int_equal(pd_matcher_new(e.g, &m2, NULL), PD_OK);
  assert_int_equal(pd_matcher_new(e.g, &m3, NULL), PD_OK);
  assert_int_equal(pd_matcher_accept_token(m2, 0, NULL), PD_OK); /* m2 has read "a" */
  const uint32_t d1[] = {4, 5, 1, 3}; /* ab bc b d: all valid, then the bonus row */
  const uint32_t d2[] = {2, 0, 1};     /* c, then "a" is rejected: cut at 1 */
  const uint32_t d3[] = {1, 2};
  pd_spec_request reqs[] = {{m1, d1, 4, NULL}, {NULL, d3, 2, NULL}, {m2, d2, 3, NULL},
                            {m3, NULL, 0, NULL}};
  pdt_batch b;
  pdt__batch_init(&b);
  assert_int_equal(pd_spec_fill(reqs, 4, 1, &b.res, NULL), PD_OK);
  const size_t offsets[] = {0, 5, 8, 12, 13};
  for (int r = 0; r <= 4; r++) assert_int_equal(b.offsets[r], offsets[r]);
  assert_int_equal(b.valid[0], 4);
  assert_int_equal(b.valid[1], 2);
  assert_int_equal(b.valid[2], 1);
  assert_int_equal(b.valid[3], 0);
  for (size_t i = 0; i <= 4; i++) assert_int_equal(b.bitmask[i], pdt__replay_mask(e.g, d1, i));
  assert_int_equal(b.res.n_unconstrained, 3);
  for (size_t i = 0; i < 3; i++) {
    assert_int_equal(b.unc[i], 5 + i);
    assert_int_equal(b.bitmask[5 + i], UINT32_MAX);
  }
  const uint32_t h2[] = {0, 2};
  assert_int_equal(b.bitmask[8], pdt__replay_mask(e.g, h2, 1));
  assert_int_equal(b.bitmask[9], pdt__replay_mask(e.g, h2, 2));
  assert_true(b.bitmask[9] != 0);
  assert_int_equal(b.bitmask[10], 0); /* past the rejected draft */
  assert_int_equal(b.bitmask[11], 0);
  assert_int_equal(b.bitmask[12], pdt__replay_mask(e.g, NULL, 0));
  /* the matchers are as they were */
  assert_int_equal(pd_matcher_num_tokens(m1), 0);
  assert_int_equal(pd_matcher_num_tokens(m2), 1);
  uint32_t w;
  assert_int_equal(pd_matcher_fill_bitmask(m2, &w, 1, NULL, NULL), PD_OK);
  assert_int_equal(w, pdt__replay_mask(e.g, h2, 1));
  pd_matcher_free(m1);
  pd_matcher_free(m2);
  pd_matcher_free(m3);
  pdt__env_free(&e);
}

static uint32_t pdt__rand(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(*s >> 33);
}

/* A batch of random requests gives the same bytes on 1, 2 and 3 threads,
 * started per call or kept in a pd_workers (used for several batches). */
static void test_threads_give_identical_output(void **state) {
  (void)state;
  enum { N = 40, K = 6 };
  pdt_env e = pdt__env(PDT_GRAMMAR);
  pd_matcher *m[N];
  uint32_t drafts[N][K];
  pd_spec_request reqs[N];
  uint64_t seed = 7;
  for (int r = 0; r < N; r++) {
    assert_int_equal(pd_matcher_new(e.g, &m[r], NULL), PD_OK);
    for (int j = 0; j < K; j++)
      drafts[r][j] = r % 3 ? 1 + pdt__rand(&seed) % 2 : pdt__rand(&seed) % PDT_V;
    drafts[r][0] = r % 5 ? 0 : drafts[r][0];
    reqs[r] = (pd_spec_request){r % 7 == 3 ? NULL : m[r], drafts[r], (size_t)(r % (K + 1)), NULL};
  }
  static uint32_t masks[6][N * (K + 1)];
  size_t offs[6][N + 1], valid[6][N], unc[6][N * (K + 1)], n_unc[6];
  for (unsigned t = 0; t < 3; t++) {
    pd_spec_result res = {masks[t], 1, offs[t], valid[t], unc[t], 0};
    assert_int_equal(pd_spec_fill(reqs, N, t + 1, &res, NULL), PD_OK);
    n_unc[t] = res.n_unconstrained;
  }
  for (unsigned t = 3; t < 6; t++) {
    pd_workers *w = NULL;
    assert_int_equal(pd_workers_new(t - 2, &w, NULL), PD_OK);
    assert_int_equal(pd_workers_count(w), t - 2);
    for (int again = 0; again < 3; again++) {
      pd_spec_result res = {masks[t], 1, offs[t], valid[t], unc[t], 0};
      assert_int_equal(pd_spec_fill_on(w, reqs, N, &res, NULL), PD_OK);
      n_unc[t] = res.n_unconstrained;
    }
    pd_workers_free(w);
  }
  for (unsigned t = 1; t < 6; t++) {
    assert_memory_equal(masks[0], masks[t], offs[0][N] * sizeof(uint32_t));
    assert_memory_equal(offs[0], offs[t], sizeof offs[0]);
    assert_memory_equal(valid[0], valid[t], sizeof valid[0]);
    assert_int_equal(n_unc[0], n_unc[t]);
    assert_memory_equal(unc[0], unc[t], n_unc[0] * sizeof(size_t));
  }
  /* and every constrained row equals replay */
  for (int r = 0; r < N; r++) {
    if (!reqs[r].matcher) continue;
    for (size_t i = 0; i <= reqs[r].n_drafts; i++) {
      uint32_t want = i <= valid[0][r] ? pdt__replay_mask(e.g, drafts[r], i) : 0;
      assert_int_equal(masks[0][offs[0][r] + i], want);
    }
  }
  for (int r = 0; r < N; r++) pd_matcher_free(m[r]);
  pdt__env_free(&e);
}

/* Batch steps from random histories of a recursive grammar, many landing on
 * configurations seen before: the drafts' transitions are then known to the
 * memo and their rows are copied without accepting them (spec.c). Every row
 * and cut equals replay on a fresh matcher, a second fill gives the same
 * bytes, and the matcher ends as it began. */
static void test_known_transitions_equal_replay(void **state) {
  (void)state;
  pdt_env e = pdt__env("root ::= \"a\" (\"b\" | \"c\" root)* \"d\"\n");
  uint64_t seed = 11;
  size_t known = 0; /* rounds whose second fill could follow recorded transitions */
  for (int round = 0; round < 400; round++) {
    uint32_t ids[16];
    size_t n_hist = pdt__rand(&seed) % 7, n = 0, k = pdt__rand(&seed) % 6;
    for (; n < n_hist + k; n++) { /* mostly tokens the grammar takes, some at random */
      uint32_t w = pdt__replay_mask(e.g, ids, n), pick = pdt__rand(&seed);
      w &= ~(1u << PDT_EOS);
      if ((n >= n_hist && pick % 5 == 0) || !w) {
        ids[n] = pick % PDT_V;
        continue;
      }
      uint32_t nth = pick % (uint32_t)__builtin_popcount(w);
      while (nth--) w &= w - 1;
      ids[n] = (uint32_t)__builtin_ctz(w);
    }
    pd_matcher *m;
    assert_int_equal(pd_matcher_new(e.g, &m, NULL), PD_OK);
    size_t h = 0;
    while (h < n_hist && pd_matcher_accept_token(m, ids[h], NULL) == PD_OK) h++;
    /* the cut by replay */
    size_t want_valid = 0;
    while (want_valid < k && pdt__replay_mask(e.g, ids, h + want_valid) >> ids[h + want_valid] & 1)
      want_valid++;
    pd_spec_request req = {m, ids + h, k, NULL};
    uint32_t rows[2][8];
    size_t offs[2], valid, unc[8];
    for (int again = 0; again < 2; again++) {
      pd_spec_result res = {rows[again], 1, offs, &valid, unc, 0};
      assert_int_equal(pd_spec_fill(&req, 1, 1, &res, NULL), PD_OK);
      assert_int_equal(valid, want_valid);
      for (size_t i = 0; i <= k; i++)
        assert_int_equal(rows[again][i], i <= valid ? pdt__replay_mask(e.g, ids, h + i) : 0);
      assert_int_equal(pd_matcher_num_tokens(m), h);
    }
    uint32_t w;
    assert_int_equal(pd_matcher_fill_bitmask(m, &w, 1, NULL, NULL), PD_OK);
    assert_int_equal(w, pdt__replay_mask(e.g, ids, h));
    known += valid > 0;
    pd_matcher_free(m);
  }
  assert_true(known > 100);
  pdt__env_free(&e);
}

/* The same on a real grammar and vocabulary (json.gbnf, Llama 3): a random
 * walk's single fills are the reference; at every position a batch step with
 * the next drafts (the last one sometimes replaced by a random id), twice,
 * must give those rows and cut where the reference mask does. */
static void test_known_transitions_real(void **state) {
  (void)state;
  const char *tok = pdt_data("tokenizers/llama3/tokenizer.json");
  if (!tok) skip();
  pd_vocab *v = NULL;
  assert_int_equal(pd_vocab_load_hf(tok, NULL, NULL, &v, NULL), PD_OK);
  const char *gp = pdt_data("grammars/gbnf/json.gbnf");
  if (!gp) {
    pd_vocab_free(v);
    skip();
  }
  size_t len;
  char *text = pdt_read_file(gp, &len);
  char *root = strstr(text, "root   ::= object"); /* any number of values: walks go on */
  assert_non_null(root);
  memcpy(root, "root ::= value*  ", 17);
  pd_grammar *g = NULL;
  assert_int_equal(pd_grammar_compile_gbnf(text, len, v, NULL, &g, NULL), PD_OK);
  free(text);
  enum { N = 160, K = 4 };
  size_t n_words = (pd_vocab_width(v) + 31) / 32, size = pd_vocab_size(v);
  uint32_t *ref = calloc((N + 1) * n_words, 4), *rows = calloc((K + 1) * n_words, 4);
  uint32_t walk[N + K], *allowed = calloc(size, 4);
  const uint32_t *eos;
  size_t n_eos = pd_vocab_eos(v, &eos), n = 0;
  uint64_t seed = 3;
  pd_matcher *m;
  assert_int_equal(pd_matcher_new(g, &m, NULL), PD_OK);
  for (; n <= N; n++) { /* ref[n]: the mask after walk[0..n) */
    uint32_t *r = ref + n * n_words;
    assert_int_equal(pd_matcher_fill_bitmask(m, r, n_words, NULL, NULL), PD_OK);
    size_t na = 0;
    for (uint32_t t = 0; t < size; t++)
      if (r[t / 32] >> (t % 32) & 1 && !(n_eos && t == eos[0])) allowed[na++] = t;
    if (n == N || !na) break;
    walk[n] = allowed[pdt__rand(&seed) % na];
    assert_int_equal(pd_matcher_accept_token(m, walk[n], NULL), PD_OK);
  }
  pd_matcher_free(m);
  assert_true(n > 40);
  assert_int_equal(pd_matcher_new(g, &m, NULL), PD_OK);
  size_t cuts = 0;
  for (size_t p = 0; p < n; p++) {
    size_t k = n - p < K ? n - p : K;
    uint32_t d[K];
    memcpy(d, walk + p, k * sizeof *d);
    bool swapped = k && pdt__rand(&seed) % 3 == 0;
    if (swapped) d[k - 1] = pdt__rand(&seed) % (uint32_t)size;
    swapped = swapped && d[k - 1] != walk[p + k - 1];
    const uint32_t *before_last = ref + (p + k - 1) * n_words;
    bool last_ok = !swapped || (k && before_last[d[k - 1] / 32] >> (d[k - 1] % 32) & 1);
    size_t want = k && !last_ok ? k - 1 : k;
    for (int again = 0; again < 2; again++) {
      size_t offs[2], valid, unc[K + 1];
      pd_spec_result res = {rows, n_words, offs, &valid, unc, 0};
      pd_spec_request req = {m, d, k, NULL};
      assert_int_equal(pd_spec_fill(&req, 1, 1, &res, NULL), PD_OK);
      assert_int_equal(pd_matcher_num_tokens(m), p);
      assert_int_equal(valid, want);
      for (size_t i = 0; i <= k; i++) { /* after a swapped draft taken: not in the walk */
        if (i == k && swapped && last_ok) break;
        if (i <= want)
          assert_memory_equal(rows + i * n_words, ref + (p + i) * n_words, n_words * 4);
        else
          for (size_t w = 0; w < n_words; w++) assert_int_equal(rows[i * n_words + w], 0);
      }
      cuts += valid < k;
    }
    assert_int_equal(pd_matcher_accept_token(m, walk[p], NULL), PD_OK);
  }
  assert_true(cuts > 0);
  pd_matcher_free(m);
  free(ref);
  free(rows);
  free(allowed);
  pd_grammar_free(g);
  pd_vocab_free(v);
}

static void test_bad_arguments(void **state) {
  (void)state;
  pdt_batch b;
  pdt__batch_init(&b);
  pd_error err;
  pd_spec_request req = {NULL, NULL, 2, NULL};
  assert_int_equal(pd_spec_fill(&req, 1, 1, &b.res, &err), PD_ERR_ARG);
  assert_int_equal(pd_spec_fill(NULL, 1, 1, &b.res, &err), PD_ERR_ARG);
  req.n_drafts = 0;
  assert_int_equal(pd_spec_fill(&req, 1, 1, NULL, &err), PD_ERR_ARG);
  assert_int_equal(pd_spec_fill(&req, 0, 1, &b.res, &err), PD_OK);
  assert_int_equal(pd_spec_fill_on(NULL, &req, 1, &b.res, &err), PD_ERR_ARG);
  assert_int_equal(pd_workers_new(2, NULL, &err), PD_ERR_ARG);
  pd_workers_free(NULL);
  assert_int_equal(pd_workers_count(NULL), 1);
  assert_int_equal(b.offsets[0], 0);
  size_t acc = 1;
  uint32_t next = 0;
  assert_int_equal(pd_spec_advance(&req, 1, &acc, &next, &err), PD_ERR_ARG);
  assert_int_equal(pd_spec_advance(&req, 1, NULL, &next, &err), PD_ERR_ARG);
}

/* Advance: accepted drafts and the next token, all or nothing. */
static void test_advance_matches_replay(void **state) {
  (void)state;
  pdt_env e = pdt__env(PDT_GRAMMAR);
  pd_matcher *m1, *m2;
  assert_int_equal(pd_matcher_new(e.g, &m1, NULL), PD_OK);
  assert_int_equal(pd_matcher_new(e.g, &m2, NULL), PD_OK);
  const uint32_t d1[] = {0, 1, 2}, d2[] = {4, 5};
  pd_spec_request reqs[] = {{m1, d1, 3, NULL}, {m2, d2, 2, NULL}};
  size_t acc[] = {2, 2};
  uint32_t next[] = {5, 6};
  assert_int_equal(pd_spec_advance(reqs, 2, acc, next, NULL), PD_OK);
  const uint32_t h1[] = {0, 1, 5}, h2[] = {4, 5, 6};
  uint32_t w;
  assert_int_equal(pd_matcher_num_tokens(m1), 3);
  assert_int_equal(pd_matcher_fill_bitmask(m1, &w, 1, NULL, NULL), PD_OK);
  assert_int_equal(w, pdt__replay_mask(e.g, h1, 3));
  assert_int_equal(pd_matcher_num_tokens(m2), 3);
  assert_true(pd_matcher_is_accepting(m2));
  assert_int_equal(pd_matcher_fill_bitmask(m2, &w, 1, NULL, NULL), PD_OK);
  assert_int_equal(w, pdt__replay_mask(e.g, h2, 3));
  /* request 1 cannot take "a": nothing moves, request 0 included */
  size_t acc2[] = {0, 0};
  uint32_t next2[] = {1, 0};
  pd_error err;
  assert_int_equal(pd_spec_advance(reqs, 2, acc2, next2, &err), PD_ERR_REJECTED);
  assert_int_equal(pd_matcher_num_tokens(m1), 3);
  assert_int_equal(pd_matcher_num_tokens(m2), 3);
  next2[1] = PDT_EOS;
  assert_int_equal(pd_spec_advance(reqs, 2, acc2, next2, &err), PD_OK);
  assert_true(pd_matcher_is_terminated(m2));
  assert_int_equal(pd_matcher_num_tokens(m1), 4);
  pd_matcher_free(m1);
  pd_matcher_free(m2);
  pdt__env_free(&e);
}

/* The gate keeps rows unconstrained until "</think>" (as one token or as
 * several) has been produced, also inside the draft window. */
static void test_reasoning_gate(void **state) {
  (void)state;
  pdt_env e = pdt__env(PDT_GRAMMAR);
  pd_matcher *m;
  assert_int_equal(pd_matcher_new(e.g, &m, NULL), PD_OK);
  pd_spec_gate gate;
  pd_spec_gate_init(&gate, e.v, "</think>");
  assert_false(gate.closed);
  /* drafts: "b" "</" "think" ">" | "a" "b" "a": the gate closes at draft 3 */
  const uint32_t d[] = {1, 7, 8, 9, 0, 1, 0};
  pd_spec_request req = {m, d, 7, &gate};
  pdt_batch b;
  pdt__batch_init(&b);
  assert_int_equal(pd_spec_fill(&req, 1, 1, &b.res, NULL), PD_OK);
  assert_int_equal(b.res.n_unconstrained, 4);
  for (size_t i = 0; i < 4; i++) assert_int_equal(b.unc[i], i);
  for (size_t i = 0; i < 4; i++) assert_int_equal(b.bitmask[i], UINT32_MAX);
  assert_int_equal(b.valid[0], 6);
  assert_int_equal(b.bitmask[4], pdt__replay_mask(e.g, NULL, 0));
  assert_int_equal(b.bitmask[5], pdt__replay_mask(e.g, d + 4, 1));
  assert_int_equal(b.bitmask[6], pdt__replay_mask(e.g, d + 4, 2));
  assert_int_equal(b.bitmask[7], 0);
  assert_false(gate.closed); /* fill does not move the gate */
  /* advance by 2 drafts + "think": still open, nothing reached the matcher */
  size_t acc = 2;
  uint32_t next = 8;
  assert_int_equal(pd_spec_advance(&req, 1, &acc, &next, NULL), PD_OK);
  assert_false(gate.closed);
  assert_int_equal(pd_matcher_num_tokens(m), 0);
  /* ">" closes it inside the window; "a" then goes to the matcher */
  const uint32_t d2[] = {9, 0, 2};
  req.drafts = d2;
  req.n_drafts = 3;
  acc = 2;
  next = 3;
  assert_int_equal(pd_spec_advance(&req, 1, &acc, &next, NULL), PD_OK);
  assert_true(gate.closed);
  assert_int_equal(pd_matcher_num_tokens(m), 2);
  assert_true(pd_matcher_is_accepting(m));
  pd_matcher_free(m);
  /* the marker as one special-looking token, closing at the very last draft */
  assert_int_equal(pd_matcher_new(e.g, &m, NULL), PD_OK);
  pd_spec_gate_init(&gate, e.v, "</think>");
  const uint32_t d3[] = {2, 7, 10};
  req = (pd_spec_request){m, d3, 3, &gate};
  pdt__batch_init(&b);
  assert_int_equal(pd_spec_fill(&req, 1, 1, &b.res, NULL), PD_OK);
  assert_int_equal(b.res.n_unconstrained, 3);
  assert_int_equal(b.bitmask[3], pdt__replay_mask(e.g, NULL, 0));
  /* a partial marker that restarts: "</" "</" "think" ">" still closes */
  pd_spec_gate_init(&gate, e.v, "</think>");
  const uint32_t d4[] = {7, 7, 8, 9};
  req = (pd_spec_request){m, d4, 4, &gate};
  pdt__batch_init(&b);
  assert_int_equal(pd_spec_fill(&req, 1, 1, &b.res, NULL), PD_OK);
  assert_int_equal(b.res.n_unconstrained, 4);
  assert_int_equal(b.bitmask[4], pdt__replay_mask(e.g, NULL, 0));
  pd_matcher_free(m);
  pdt__env_free(&e);
}

/* Random accept / rollback / fork sequences leave the matcher in the state a
 * fresh matcher reaches by replaying the surviving tokens. */
static void test_rollback_fork_replay(void **state) {
  (void)state;
  pdt_env e = pdt__env("root ::= (\"a\" | \"b\" \"c\"* \"d\" | \"cd\")+\n");
  pd_matcher *m;
  assert_int_equal(pd_matcher_new(e.g, &m, NULL), PD_OK);
  uint32_t hist[512];
  size_t n = 0;
  uint64_t seed = 99;
  for (int op = 0; op < 600; op++) {
    uint32_t r = pdt__rand(&seed) % 10;
    if (r < 6 && n < 500) {
      uint32_t w;
      assert_int_equal(pd_matcher_fill_bitmask(m, &w, 1, NULL, NULL), PD_OK);
      w &= ~(1u << PDT_EOS);
      if (!w) continue;
      uint32_t t;
      do t = pdt__rand(&seed) % PDT_V;
      while (!(w >> t & 1));
      assert_int_equal(pd_matcher_accept_token(m, t, NULL), PD_OK);
      hist[n++] = t;
    } else if (r < 9) {
      size_t k = n ? pdt__rand(&seed) % (n < 6 ? n + 1 : 6) : 0;
      assert_int_equal(pd_matcher_rollback(m, k, NULL), PD_OK);
      n -= k;
    } else {
      pd_matcher *f;
      assert_int_equal(pd_matcher_fork(m, &f, NULL), PD_OK);
      pd_matcher_free(m);
      m = f;
    }
    uint32_t w;
    assert_int_equal(pd_matcher_num_tokens(m), n);
    assert_int_equal(pd_matcher_fill_bitmask(m, &w, 1, NULL, NULL), PD_OK);
    assert_int_equal(w, pdt__replay_mask(e.g, hist, n));
  }
  pd_matcher_free(m);
  pdt__env_free(&e);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rows_equal_replay),
      cmocka_unit_test(test_threads_give_identical_output),
      cmocka_unit_test(test_known_transitions_equal_replay),
      cmocka_unit_test(test_known_transitions_real),
      cmocka_unit_test(test_bad_arguments),
      cmocka_unit_test(test_advance_matches_replay),
      cmocka_unit_test(test_reasoning_gate),
      cmocka_unit_test(test_rollback_fork_replay),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
