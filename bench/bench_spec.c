/* bench_spec.c - timings of the speculative layer (spec/).
 *
 *   bench_spec [--tokenizer T] [--grammar F]      fill, rollback, batch, verifier
 *   bench_spec --forced [--fixed-ws] [--tokenizer T] [--limit N] [--subset S]
 *                                                 jump-forward share on MaskBench
 *
 * Defaults: the Llama-3 tokenizer and llama.cpp's json.gbnf (its root made
 * "any number of values") from the shared data folder ($PD_SHARED_DATA or
 * ../shared/data beside the checkout). The token histories are a seeded
 * random walk through the grammar's masks, so every draft is valid and every
 * number is reproducible. */
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/json_span.h"
#include "pushdown.h"

#define PDB_WALK 4200
#define PDB_REPEAT 5

static double pdb__now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static char *pdb__read(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  if (buf) buf[n] = '\0', *len = (size_t)n;
  return buf;
}

static const char *pdb__data(const char *rel) {
  static char buf[4096];
  const char *root = getenv("PD_SHARED_DATA");
  snprintf(buf, sizeof buf, "%s/%s", root && *root ? root : PD_SHARED_DATA_DEFAULT, rel);
  return buf;
}

static int pdb__fail(const char *what, const pd_error *e) {
  fprintf(stderr, "bench_spec: %s: %s\n", what, e->message);
  return 1;
}

static int pdb__cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double pdb__median(double *v, size_t n) {
  qsort(v, n, sizeof *v, pdb__cmp_double);
  return v[n / 2];
}

static uint64_t pdb__rand(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return *s >> 33;
}

typedef struct pdb_ctx {
  pd_vocab *v;
  pd_grammar *g;
  size_t n_words;
  uint32_t *walk; /* PDB_WALK valid tokens */
  uint32_t *row;  /* scratch rows */
  char *text;     /* the grammar */
  size_t len;
} pdb_ctx;

/* Collects the allowed ids of row that are not stop tokens; returns how many. */
static size_t pdb__allowed(const pdb_ctx *c, uint32_t *allowed) {
  size_t n = 0;
  for (uint32_t t = 0; t < pd_vocab_size(c->v); t++) {
    const uint8_t *b;
    size_t len;
    uint32_t flags;
    pd_vocab_token(c->v, t, &b, &len, &flags);
    if ((c->row[t / 32] >> (t % 32) & 1) && !(flags & PD_TOKEN_EOS)) allowed[n++] = t;
  }
  return n;
}

/* A seeded random walk through the masks. A token after which only a stop
 * token is allowed is taken back and another drawn, so the walk goes on. */
static int pdb__make_walk(pdb_ctx *c) {
  pd_matcher *m;
  pd_error e;
  if (pd_matcher_new(c->g, &m, &e) != PD_OK) return pdb__fail("matcher", &e);
  uint64_t seed = 42;
  uint32_t *allowed = malloc(2 * pd_vocab_width(c->v) * sizeof *allowed);
  int rc = 0;
  for (size_t i = 0; !rc && i < PDB_WALK; i++) {
    pd_matcher_fill_bitmask(m, c->row, c->n_words, NULL, NULL);
    size_t n = pdb__allowed(c, allowed);
    for (int tries = 0; n && tries < 50; tries++) {
      c->walk[i] = allowed[pdb__rand(&seed) % n];
      pd_matcher_accept_token(m, c->walk[i], NULL);
      pd_matcher_fill_bitmask(m, c->row, c->n_words, NULL, NULL);
      if (pdb__allowed(c, allowed + n)) break;
      pd_matcher_rollback(m, 1, NULL);
    }
    if (!n || pd_matcher_num_tokens(m) != i + 1) {
      fprintf(stderr, "bench_spec: the walk got stuck after %zu tokens\n", i);
      rc = 1;
    }
  }
  free(allowed);
  pd_matcher_free(m);
  return rc;
}

static pd_matcher *pdb__matcher_at(const pdb_ctx *c, size_t pos) {
  pd_matcher *m = NULL;
  if (pd_matcher_new(c->g, &m, NULL) != PD_OK) return NULL;
  for (size_t i = 0; i < pos; i++) pd_matcher_accept_token(m, c->walk[i], NULL);
  return m;
}

/* What a pass times at each position: one pd_spec_fill of k drafts; the
 * (1+k) single fills it stands for at the same states, each into the row the
 * batch step writes (as an engine filling row by row into its [rows, vocab]
 * tensor would); or the loop such an engine runs without the batch step:
 * fill, accept the draft, ..., fill, roll the k drafts back. */
typedef enum { PDB_SPEC, PDB_FILLS, PDB_LOOP } pdb_mode;

static double pdb__fill_once(const pdb_ctx *c, pd_matcher *m, size_t pos, size_t k,
                             pdb_mode mode) {
  double t = 0, t0 = pdb__now();
  if (mode == PDB_SPEC) {
    size_t offs[2], valid, unc[9];
    pd_spec_result res = {c->row, c->n_words, offs, &valid, unc, 0};
    pd_spec_request req = {m, c->walk + pos, k, NULL};
    pd_spec_fill(&req, 1, 1, &res, NULL);
    return pdb__now() - t0;
  }
  for (size_t j = 0; j <= k; j++) {
    if (j) pd_matcher_accept_token(m, c->walk[pos + j - 1], NULL);
    if (mode == PDB_FILLS) t0 = pdb__now();
    pd_matcher_fill_bitmask(m, c->row + j * c->n_words, c->n_words, NULL, NULL);
    if (mode == PDB_FILLS) t += pdb__now() - t0;
  }
  pd_matcher_rollback(m, k, NULL);
  return mode == PDB_LOOP ? pdb__now() - t0 : t;
}

/* A pass over N_POS positions of the walk from FIRST, STEP tokens apart, in
 * one mode (modes in separate passes: whichever touched a position's rows and
 * memo entries first would pay the cache misses). */
enum { N_POS = 50, STEP = 60, FIRST = 200 };
static double pdb__fill_pass(const pdb_ctx *c, size_t k, pdb_mode mode) {
  pd_matcher *m = pdb__matcher_at(c, FIRST);
  double t = 0;
  for (size_t p = 0; p < N_POS; p++) {
    t += pdb__fill_once(c, m, FIRST + p * STEP, k, mode);
    for (size_t j = 0; j < STEP; j++)
      pd_matcher_accept_token(m, c->walk[FIRST + p * STEP + j], NULL);
  }
  pd_matcher_free(m);
  return t / N_POS / 1e3;
}

/* The spec fill follows the memo's transitions where it knows them (spec.c):
 * the repeated runs measure that. The first pass is on a freshly compiled
 * grammar whose masks a pass of single fills memoized, but whose transitions
 * are not known yet: drafts accepted and rows keyed one by one. */
static void pdb__bench_fill(const pdb_ctx *c) {
  static const size_t ks[] = {0, 1, 2, 4, 8};
  printf("pd_spec_fill, one request with k drafts, vs (1+k) single fills at the same\n"
         "states and vs the fill/accept loop without the batch step (us per request,\n"
         "mean over %d positions of the walk; repeated: median of %d runs; first pass:\n"
         "transitions not yet known)\n",
         N_POS, PDB_REPEAT);
  printf("  %2s %6s %7s %6s %7s %6s   %11s %6s %6s\n", "k", "spec", "fills", "ratio", "loop",
         "ratio", "first spec", "/fills", "/loop");
  for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
    size_t k = ks[ki];
    double spec[PDB_REPEAT], fills[PDB_REPEAT], loop[PDB_REPEAT], first[PDB_REPEAT],
        r_fills[PDB_REPEAT], r_loop[PDB_REPEAT];
    for (int r = 0; r < PDB_REPEAT; r++) {
      fills[r] = pdb__fill_pass(c, k, PDB_FILLS);
      loop[r] = pdb__fill_pass(c, k, PDB_LOOP);
      spec[r] = pdb__fill_pass(c, k, PDB_SPEC);
      pdb_ctx fresh = *c;
      if (pd_grammar_compile_gbnf(c->text, c->len, c->v, NULL, &fresh.g, NULL) != PD_OK) return;
      pdb__fill_pass(&fresh, k, PDB_FILLS); /* memoizes the masks */
      first[r] = pdb__fill_pass(&fresh, k, PDB_SPEC);
      r_fills[r] = first[r] / pdb__fill_pass(&fresh, k, PDB_FILLS);
      r_loop[r] = first[r] / pdb__fill_pass(&fresh, k, PDB_LOOP);
      pd_grammar_free(fresh.g);
    }
    double s = pdb__median(spec, PDB_REPEAT), f = pdb__median(fills, PDB_REPEAT),
           l = pdb__median(loop, PDB_REPEAT);
    printf("  %2zu %6.2f %7.2f %6.3f %7.2f %6.3f   %11.2f %6.3f %6.3f\n", k, s, f, s / f, l, s / l,
           pdb__median(first, PDB_REPEAT), pdb__median(r_fills, PDB_REPEAT),
           pdb__median(r_loop, PDB_REPEAT));
  }
}

/* accept 4 + rollback 4 at several history lengths: rollback pops rows, so
 * the cost must not grow with the history. Each length is the mean over 8
 * windows of the walk (L, L + 8, ..., L + 56), since what the 4 tokens are
 * moves the accept time more than the history does. */
static void pdb__bench_rollback(const pdb_ctx *c) {
  static const size_t lens[] = {16, 256, 4096};
  enum { ITER = 2000, WINDOWS = 8 };
  printf("\naccept 4 tokens + rollback 4, by history length (median of %d runs of %d, mean over %d "
         "windows)\n",
         PDB_REPEAT, ITER, WINDOWS);
  for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
    double acc[PDB_REPEAT] = {0}, rb[PDB_REPEAT] = {0};
    for (size_t wi = 0; wi < WINDOWS; wi++) {
      size_t at = lens[li] + 8 * wi;
      pd_matcher *m = pdb__matcher_at(c, at);
      for (int r = 0; r < PDB_REPEAT; r++) {
        for (int i = 0; i < ITER; i++) {
          double t0 = pdb__now();
          for (size_t j = 0; j < 4; j++) pd_matcher_accept_token(m, c->walk[at + j], NULL);
          double t1 = pdb__now();
          pd_matcher_rollback(m, 4, NULL);
          rb[r] += pdb__now() - t1;
          acc[r] += t1 - t0;
        }
      }
      pd_matcher_free(m);
    }
    printf("  history %5zu tokens: accept x4 %.3f us, rollback 4 %.3f us\n", lens[li],
           pdb__median(acc, PDB_REPEAT) / ITER / WINDOWS / 1e3,
           pdb__median(rb, PDB_REPEAT) / ITER / WINDOWS / 1e3);
  }
}

/* The floor of a batch: its rows written by memcpy from one row that stays in
 * the cache, on 1 or 2 threads that spin between rounds (no sleep, no
 * wake-up). A batch of 160 rows of 16 KB is 2.5 MB, more than a core's L2, so
 * the copies are bound by the memory's write bandwidth. */
typedef struct pdb_floor {
  uint32_t *out;
  const uint32_t *src;
  size_t n_words, rows, rounds;
  atomic_size_t go, done;
} pdb_floor;

static void pdb__floor_rows(pdb_floor *f, size_t from, size_t to) {
  for (size_t r = from; r < to; r++)
    memcpy(f->out + r * f->n_words, f->src, f->n_words * sizeof *f->out);
}

static void *pdb__floor_helper(void *arg) {
  pdb_floor *f = arg;
  for (size_t i = 1; i <= f->rounds; i++) {
    while (atomic_load(&f->go) < i) {
    }
    pdb__floor_rows(f, f->rows / 2, f->rows);
    atomic_store(&f->done, i);
  }
  return NULL;
}

static double pdb__floor(uint32_t *out, size_t n_words, size_t rows, unsigned threads) {
  enum { ROUNDS = 100 };
  uint32_t *src = malloc(n_words * sizeof *src);
  if (!src) return 0;
  for (size_t w = 0; w < n_words; w++) src[w] = (uint32_t)w * 2654435761u;
  pdb_floor f = {.out = out, .src = src, .n_words = n_words, .rows = rows, .rounds = ROUNDS};
  atomic_init(&f.go, 0);
  atomic_init(&f.done, 0);
  pthread_t helper;
  bool two = threads > 1 && pthread_create(&helper, NULL, pdb__floor_helper, &f) == 0;
  double t0 = pdb__now();
  for (size_t i = 1; i <= ROUNDS; i++) {
    atomic_store(&f.go, i);
    pdb__floor_rows(&f, 0, two ? rows / 2 : rows);
    while (two && atomic_load(&f.done) < i) {
    }
  }
  double t = (pdb__now() - t0) / ROUNDS;
  if (two) pthread_join(helper, NULL);
  free(src);
  return t;
}

typedef struct pdb_batch {
  pd_matcher *m[32];
  pd_spec_request reqs[32];
  uint32_t *bitmask;
  size_t offs[33], valid[32], unc[32 * 5];
} pdb_batch;

static void pdb__bench_batch(const pdb_ctx *c, pdb_batch *b) {
  enum { N = 32, K = 4, ITER = 20 };
  for (size_t r = 0; r < N; r++) {
    b->m[r] = pdb__matcher_at(c, 100 + r * 120);
    b->reqs[r] = (pd_spec_request){b->m[r], c->walk + 100 + r * 120, K, NULL};
  }
  printf("\nbatch of %d requests, k = %d (%d rows), median of %d runs of %d fills\n", N, K,
         N * (K + 1), PDB_REPEAT, ITER);
  /* threads started per call (pd_spec_fill), then kept (pd_spec_fill_on) */
  for (int kept = 0; kept < 2; kept++)
    for (unsigned threads = 1; threads <= 2; threads++) {
      pd_workers *w = NULL;
      if (kept && pd_workers_new(threads, &w, NULL) != PD_OK) return;
      double t[PDB_REPEAT];
      for (int r = 0; r < PDB_REPEAT; r++) {
        pd_spec_result res = {b->bitmask, c->n_words, b->offs, b->valid, b->unc, 0};
        double t0 = pdb__now();
        for (int i = 0; i < ITER; i++) {
          if (w) pd_spec_fill_on(w, b->reqs, N, &res, NULL);
          else pd_spec_fill(b->reqs, N, threads, &res, NULL);
        }
        t[r] = (pdb__now() - t0) / ITER;
      }
      pd_workers_free(w);
      double med = pdb__median(t, PDB_REPEAT);
      printf("  %u thread%s, %s: %.1f us per batch, %.0f rows/s\n", threads,
             threads > 1 ? "s" : " ", kept ? "kept   " : "per call", med / 1e3,
             N * (K + 1) / (med / 1e9));
    }
  for (unsigned threads = 1; threads <= 2; threads++) {
    double t[PDB_REPEAT];
    for (int r = 0; r < PDB_REPEAT; r++)
      t[r] = pdb__floor(b->bitmask, c->n_words, N * (K + 1), threads);
    double med = pdb__median(t, PDB_REPEAT);
    printf("  floor, %u thread%s: %.1f us to write the %d rows (%.1f MB) with memcpy, %.1f GB/s\n",
           threads, threads > 1 ? "s" : " ", med / 1e3, N * (K + 1),
           N * (K + 1) * c->n_words * 4 / 1e6, N * (K + 1) * c->n_words * 4 / med);
  }
}

/* pd_cpu_verify on the batch's real masks with random logits. */
static void pdb__bench_verify(const pdb_ctx *c, pdb_batch *b) {
  enum { N = 32, K = 4, ROWS = N * (K + 1) };
  size_t width = pd_vocab_width(c->v);
  float *logits = malloc(ROWS * width * sizeof *logits);
  float *q = malloc(N * K * width * sizeof *q);
  uint32_t drafts[N * K], out_tokens[ROWS], counts[N];
  size_t doffs[N + 1];
  uint64_t seed = 9;
  for (size_t i = 0; i < ROWS * width; i++) logits[i] = (float)(pdb__rand(&seed) % 20000) / 1000;
  for (size_t i = 0; i < N * K * width; i++) q[i] = 1.0f / width;
  for (size_t r = 0; r <= N; r++) doffs[r] = r * K;
  for (size_t r = 0; r < N; r++) memcpy(drafts + r * K, b->reqs[r].drafts, K * sizeof *drafts);
  printf("\npd_cpu_verify, %d requests x %d rows, vocabulary width %zu\n", N, K + 1, width);
  static const char *names[] = {"greedy", "sample", "sample, point-mass drafts"};
  for (int mode = 0; mode < 3; mode++) {
    pd_verify_args a = {.mode = (pd_verify_mode)mode, .target_logits = logits, .dtype = PD_F32,
                        .width = width, .bitmask = b->bitmask, .n_words = c->n_words,
                        .draft_probs = q, .draft_tokens = drafts, .draft_offsets = doffs, .n = N,
                        .temperature = mode ? 1.0f : 0.0f, .seed = 1, .offset = 0,
                        .out_tokens = out_tokens, .out_counts = counts};
    double t[PDB_REPEAT];
    for (int r = 0; r < PDB_REPEAT; r++) {
      double t0 = pdb__now();
      pd_error e;
      if (pd_cpu_verify(&a, &e) != PD_OK) {
        pdb__fail("verify", &e);
        break;
      }
      t[r] = pdb__now() - t0;
    }
    printf("  %-26s %.2f us per row\n", names[mode], pdb__median(t, PDB_REPEAT) / ROWS / 1e3);
  }
  free(logits);
  free(q);
}

typedef struct pdb_forced {
  size_t instances, tokens, forced, rejected, no_schema;
  double compile_ns, walk_ns;
  bool fixed_ws; /* separators ", " and ": " as json.dumps writes them */
} pdb_forced;

/* Walks one instance's reference tokens; at every step the jump-forward
 * tokens that equal the next reference tokens count as forced. */
static void pdb__forced_instance(const pd_grammar *g, const pd_jumper *j, const json_t *ids,
                                 pdb_forced *f) {
  pd_matcher *m;
  if (pd_matcher_new(g, &m, NULL) != PD_OK) return;
  size_t n = json_array_size(ids), forced = 0, i = 0;
  uint32_t jump[64];
  bool ok = true;
  while (ok && i < n) {
    size_t nj = 0;
    if (pd_jumper_tokens(j, m, jump, 64, &nj, NULL) != PD_OK) nj = 0;
    for (size_t k = 0; k < nj && i < n && jump[k] == json_integer_value(json_array_get(ids, i));
         k++, i++, forced++)
      ok = pd_matcher_accept_token(m, jump[k], NULL) == PD_OK;
    if (ok && i < n)
      ok = pd_matcher_accept_token(m, (uint32_t)json_integer_value(json_array_get(ids, i++)),
                                   NULL) == PD_OK;
  }
  pd_matcher_free(m);
  if (!ok) {
    f->rejected++;
    return;
  }
  f->instances++;
  f->tokens += n;
  f->forced += forced;
}

/* The compiled schema of a MaskBench file, kept while lines share the file. */
static pd_grammar *pdb__schema(pd_vocab *v, const char *file, char *cached, pd_grammar *prev,
                               pdb_forced *f) {
  if (prev && !strcmp(cached, file)) return prev;
  double t0 = pdb__now();
  pd_grammar_free(prev);
  snprintf(cached, 512, "%s", file);
  char rel[600];
  snprintf(rel, sizeof rel, "maskbench/%s", file);
  size_t len, n;
  const char *schema;
  char *text = pdb__read(pdb__data(rel), &len);
  pd_grammar *g = NULL;
  pd_grammar_options o = {.ws_mode = f->fixed_ws ? PD_WS_FIXED : PD_WS_FLEXIBLE,
                          .item_separator = ", ", .key_separator = ": ", .indent = -1};
  if (text && pd_cli_json_member(text, len, "schema", &schema, &n) && /* as written */
      pd_grammar_compile_json_schema(schema, n, v, &o, &g, NULL) != PD_OK)
    g = NULL;
  free(text);
  f->compile_ns += pdb__now() - t0;
  return g;
}

static int pdb__bench_forced(pd_vocab *v, size_t limit, const char *subset, bool fixed_ws) {
  FILE *in = fopen(pdb__data("maskbench/instances.jsonl"), "r");
  if (!in) return fprintf(stderr, "bench_spec: no maskbench/instances.jsonl\n"), 1;
  pd_jumper *j;
  pd_error e;
  if (pd_jumper_new(v, &j, &e) != PD_OK) return pdb__fail("jumper", &e);
  pdb_forced f = {.fixed_ws = fixed_ws};
  char line[1 << 16], cached[512] = "";
  pd_grammar *g = NULL;
  double t0 = pdb__now();
  size_t seen = 0;
  while (seen < limit && fgets(line, sizeof line, in)) {
    json_t *inst = json_loads(line, 0, NULL);
    const char *file = json_string_value(json_object_get(inst, "file"));
    if (file && json_is_true(json_object_get(inst, "valid")) &&
        (!subset || !strncmp(file, subset, strlen(subset)))) {
      seen++;
      g = pdb__schema(v, file, cached, g, &f);
      double t0 = pdb__now();
      if (g) pdb__forced_instance(g, j, json_object_get(inst, "llama3"), &f);
      else f.no_schema++;
      f.walk_ns += pdb__now() - t0;
    }
    json_decref(inst);
  }
  fclose(in);
  pd_grammar_free(g);
  pd_jumper_free(j);
  printf("jump-forward on MaskBench (valid instances, Llama-3 tokens): %zu instances walked, "
         "%zu without a compiled schema, %zu rejected\n", f.instances, f.no_schema, f.rejected);
  printf("whitespace %s: forced tokens %zu of %zu (%.1f%%); %.1f s (compiling %.1f s, "
         "walking %.1f s)\n", fixed_ws ? "fixed \", \" \": \"" : "flexible", f.forced, f.tokens,
         f.tokens ? 100.0 * f.forced / f.tokens : 0.0, (pdb__now() - t0) / 1e9,
         f.compile_ns / 1e9, f.walk_ns / 1e9);
  return 0;
}

/* json.gbnf's root is one object; the walk needs histories of thousands of
 * tokens, so the default root becomes any number of values. */
static void pdb__endless_root(char *text, size_t *len) {
  static const char root[] = "root ::= value*";
  char *line = strstr(text, "root");
  char *end = line ? strchr(line, '\n') : NULL;
  if (!end || (size_t)(end - line) < sizeof root - 1) return;
  memset(line, ' ', (size_t)(end - line));
  memcpy(line, root, sizeof root - 1);
  (void)len;
}

int main(int argc, char **argv) {
  const char *tok = NULL, *gram = NULL, *subset = NULL;
  bool forced = false, fixed_ws = false;
  size_t limit = SIZE_MAX;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--forced")) forced = true;
    else if (!strcmp(argv[i], "--fixed-ws")) fixed_ws = true;
    else if (i + 1 < argc && !strcmp(argv[i], "--tokenizer")) tok = argv[++i];
    else if (i + 1 < argc && !strcmp(argv[i], "--grammar")) gram = argv[++i];
    else if (i + 1 < argc && !strcmp(argv[i], "--subset")) subset = argv[++i];
    else if (i + 1 < argc && !strcmp(argv[i], "--limit")) limit = strtoull(argv[++i], NULL, 10);
    else return fprintf(stderr, "bench_spec: unknown option '%s'\n", argv[i]), 2;
  }
  pdb_ctx c = {0};
  pd_error e;
  char tok_path[4096];
  snprintf(tok_path, sizeof tok_path, "%s",
           tok ? tok : pdb__data("tokenizers/llama3/tokenizer.json"));
  if (pd_vocab_load_hf(tok_path, NULL, NULL, &c.v, &e) != PD_OK) return pdb__fail(tok_path, &e);
  if (forced) {
    int rc = pdb__bench_forced(c.v, limit, subset, fixed_ws);
    pd_vocab_free(c.v);
    return rc;
  }
  char gpath[4096];
  snprintf(gpath, sizeof gpath, "%s", gram ? gram : pdb__data("grammars/gbnf/json.gbnf"));
  size_t len;
  char *text = pdb__read(gpath, &len);
  if (!text) return fprintf(stderr, "bench_spec: cannot read %s\n", gpath), 1;
  if (!gram) pdb__endless_root(text, &len);
  if (pd_grammar_compile_gbnf(text, len, c.v, NULL, &c.g, &e) != PD_OK) return pdb__fail(gpath, &e);
  c.text = text, c.len = len;
  c.n_words = (pd_vocab_width(c.v) + 31) / 32;
  c.walk = malloc(PDB_WALK * sizeof *c.walk);
  c.row = malloc(9 * c.n_words * sizeof *c.row);
  int rc = pdb__make_walk(&c);
  if (!rc) {
    static pdb_batch b;
    b.bitmask = malloc(32 * 5 * c.n_words * sizeof *b.bitmask);
    pdb__bench_fill(&c);
    pdb__bench_rollback(&c);
    pdb__bench_batch(&c, &b);
    pdb__bench_verify(&c, &b);
    for (int r = 0; r < 32; r++) pd_matcher_free(b.m[r]);
    free(b.bitmask);
  }
  free(c.walk);
  free(c.row);
  free(c.text);
  pd_grammar_free(c.g);
  pd_vocab_free(c.v);
  return rc;
}
