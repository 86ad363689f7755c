/* maskbench.c - `pushdown maskbench`: the MaskBench method over a folder of schemas.
 *
 *   pushdown maskbench DIR --tokenizer tokenizer.json [--grammar FILE] [--json] [--cpu-time]
 *                          [--verbose] [--any-order] [--eager] [--cache-mb N]
 *                          [--no-rule-cache] [--brute K] [--slow US]
 *
 * For each schema file under DIR (sorted): compile and fill the first mask
 * (TTFM); then for each of its test instances (DIR/instances.jsonl, field
 * llama3) fill the mask and accept the token, timing the pair (TBM), stopping
 * at the first rejected token; after the last token one more mask is timed and
 * the instance passes when the verdict (accepted and complete) equals `valid`.
 * Counts are printed per instance and per schema (MaskBench's: a schema passes
 * when all its instances do), and TBM also split into a schema's first
 * instance and the rest (a grammar's tables are made when a mask first needs
 * them, so the first instance pays for them).
 * Single-threaded. Times are wall-clock, or with --cpu-time the thread's CPU
 * time (steadier on a loaded machine: preemption is not counted). The bench
 * also checks every timed mask against the token it was asked about (bit set
 * iff accepted) and reports disagreements on stderr; last, it times empty
 * spans the same way (the timer's floor, in every TBM sample too). --verbose
 * prints one line per schema file on stderr (compile status, TTFM, tokens,
 * masks over 50 us, slowest mask, wall time), one per refusal (its message)
 * and one per wrong verdict. --any-order compiles schemas with properties in
 * any order (the default is their declared order, as every engine does;
 * then the valid instances rejected are run again, untimed and after the
 * rest, on a grammar with properties in any order, and those it accepts are
 * counted: their data lists properties in another order than declared);
 * --eager classifies every state at compile time (in TTFM) instead of when a
 * mask first needs it (in that TBM); --cache-mb bounds the vocabulary's
 * classification cache (pd_vocab_options.cache_bytes; its use is printed last);
 * --no-rule-cache builds every rule's automaton afresh instead of reusing those
 * built for earlier files (pd_grammar_options.no_rule_cache). --brute K
 * compares the first PD__MB_BRUTE_MASKS masks of the first instance of every
 * K-th schema with brute force (each id of the vocabulary tried alone, about
 * 20 ms a mask at 128k tokens), outside the timed spans but between them, so
 * that run's timings are not for comparison. --slow US prints each timed fill and
 * accept over US microseconds on stderr with its place (file, test, token), the
 * fill's share and the text before the token: the tail's masks, by kind (it reads
 * the clock once more a span, after the fill, so its timings hold that too). */
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "commands.h"
#include "json_span.h"
#include "util.h"

typedef struct pd__mb_inst {
  char *file;
  long test;
  bool valid;
  uint32_t *ids;
  size_t n;
  bool rejected; /* valid, and its grammar rejected it */
} pd__mb_inst;

typedef struct pd__mb_samples {
  double *v;
  size_t n, cap;
} pd__mb_samples;

typedef struct pd__mb {
  const char *dir, *tokenizer, *grammar_path;
  bool json, cpu_time, verbose, any_order, eager, no_rule_cache;
  size_t brute_every;            /* --brute K; 0 = off */
  double slow_us;                /* --slow US; negative = off */
  uint32_t *brute_row;           /* the brute-force mask */
  bool brute_file, brute_now;    /* this file's first instance is compared; this mask is */
  size_t brute_schemas, brute_masks, brute_differences;
  size_t cache_bytes; /* --cache-mb; 0 = the library's default */
  char *grammar; /* --grammar text */
  size_t grammar_len;
  char *prefix; /* "SUB/" when DIR is a subfolder of the instances' folder */
  pd__mb_inst *inst;
  size_t n_inst;
  char **files;
  size_t n_files, cap_files;
  pd_vocab *vocab;
  uint32_t *row;
  size_t n_words;
  pd__mb_samples tbm, ttfm;
  /* TBM split: a schema's first instance meets its states and caller classes
   * first (made when a mask needs them); later instances mostly reuse them.
   * The first instances' samples are the spans [v[2i], v[2i+1]) of tbm,
   * split at the report: two more sample rows written while timing moved
   * the engine's data out of cache (TBM avg +3%). */
  struct {
    size_t *v, n, cap;
  } firsts;
  pd__mb_samples tbm_first, tbm_later;
  size_t schemas, passing, compile_errors, validation_errors, invalidation_errors, tokens;
  size_t mask_mismatches;
  /* MaskBench's own count is per schema: one that compiles passes when every
   * instance does; otherwise it counts once per kind of error it made. */
  size_t file_valid_errors, file_invalid_errors; /* this file's, so far */
  size_t s_passing, s_validation_errors, s_invalidation_errors;
  /* valid instances rejected in the declared property order that a grammar
   * with properties in any order accepts: their data lists an object's
   * properties in another order (counted after the timed runs) */
  size_t order_only;
} pd__mb;

/* Nanoseconds: wall-clock, or this thread's CPU time. */
static double pd__mb_now(const pd__mb *b) {
  if (!b->cpu_time) return pd_cli_now_ns();
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static bool pd__mb_push(pd__mb_samples *s, double x) {
  if (s->n == s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 1024;
    double *v = realloc(s->v, cap * sizeof *v);
    if (!v) return false;
    s->v = v;
    s->cap = cap;
  }
  s->v[s->n++] = x;
  return true;
}

/* Notes tbm.n as the start or end of a first instance's span. */
static bool pd__mb_mark(pd__mb *b) {
  if (b->firsts.n == b->firsts.cap) {
    size_t cap = b->firsts.cap ? b->firsts.cap * 2 : 1024;
    size_t *v = realloc(b->firsts.v, cap * sizeof *v);
    if (!v) return false;
    b->firsts.v = v, b->firsts.cap = cap;
  }
  b->firsts.v[b->firsts.n++] = b->tbm.n;
  return true;
}

/* ---------------------------------------------------------- instances */

static int pd__mb_inst_cmp(const void *pa, const void *pb) {
  const pd__mb_inst *a = pa, *b = pb;
  int c = strcmp(a->file, b->file);
  return c ? c : (a->test > b->test) - (a->test < b->test);
}

/* One line {file, test, valid, text, llama3}; false when malformed. */
static bool pd__mb_inst_parse(const char *line, pd__mb_inst *out) {
  json_t *j = json_loads(line, 0, NULL);
  json_t *file = json_object_get(j, "file"), *test = json_object_get(j, "test");
  json_t *valid = json_object_get(j, "valid"), *ids = json_object_get(j, "llama3");
  bool ok = json_is_string(file) && json_is_integer(test) && json_is_boolean(valid) &&
            json_is_array(ids);
  if (ok) {
    out->file = strdup(json_string_value(file));
    out->test = (long)json_integer_value(test);
    out->valid = json_is_true(valid);
    out->rejected = false;
    out->n = json_array_size(ids);
    out->ids = malloc((out->n ? out->n : 1) * sizeof *out->ids);
    ok = out->file && out->ids;
    for (size_t i = 0; ok && i < out->n; i++) {
      json_t *x = json_array_get(ids, i);
      ok = json_is_integer(x) && json_integer_value(x) >= 0 && json_integer_value(x) <= UINT32_MAX;
      if (ok) out->ids[i] = (uint32_t)json_integer_value(x);
    }
    if (!ok) free(out->file), free(out->ids);
  }
  json_decref(j);
  return ok;
}

/* Splits text into lines and parses each; returns false on memory failure. */
static bool pd__mb_inst_lines(pd__mb *b, char *text) {
  size_t cap = 0;
  for (char *line = text, *next; line && *line; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = '\0';
    if (!*line) continue;
    if (b->n_inst == cap) {
      cap = cap ? cap * 2 : 4096;
      pd__mb_inst *p = realloc(b->inst, cap * sizeof *p);
      if (!p) return false;
      b->inst = p;
    }
    if (pd__mb_inst_parse(line, &b->inst[b->n_inst])) b->n_inst++;
  }
  qsort(b->inst, b->n_inst, sizeof *b->inst, pd__mb_inst_cmp);
  return true;
}

/* DIR/instances.jsonl, or the parent's when DIR is one of its subsets (then
 * the paths in it carry the subset's name as a prefix). */
static int pd__mb_inst_load(pd__mb *b) {
  char path[4096];
  snprintf(path, sizeof path, "%s/instances.jsonl", b->dir);
  char *text = pd_cli_read_file(path, NULL);
  if (!text) {
    const char *base = strrchr(b->dir, '/');
    size_t cut = base ? (size_t)(base - b->dir) : 0;
    base = base ? base + 1 : b->dir;
    snprintf(path, sizeof path, "%.*s/instances.jsonl", (int)(cut ? cut : 1), cut ? b->dir : ".");
    text = pd_cli_read_file(path, NULL);
    if (!text) return pd_cli_usage("maskbench: no instances.jsonl in '%s' or above", b->dir);
    size_t n = strlen(base);
    b->prefix = malloc(n + 2);
    if (b->prefix) snprintf(b->prefix, n + 2, "%s/", base);
  }
  bool ok = pd__mb_inst_lines(b, text);
  free(text);
  return ok ? 0 : pd_cli_usage("maskbench: out of memory");
}

/* The first instance of file rel (path relative to DIR), or n_inst. */
static size_t pd__mb_inst_find(const pd__mb *b, const char *rel) {
  char key[4096];
  snprintf(key, sizeof key, "%s%s", b->prefix ? b->prefix : "", rel);
  size_t lo = 0, hi = b->n_inst;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (strcmp(b->inst[mid].file, key) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < b->n_inst && !strcmp(b->inst[lo].file, key) ? lo : b->n_inst;
}

static bool pd__mb_same_file(const pd__mb *b, size_t i, size_t first) {
  return i < b->n_inst && !strcmp(b->inst[i].file, b->inst[first].file);
}

/* -------------------------------------------------------- schema files */

static int pd__mb_str_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool pd__mb_is_json(const char *name) {
  size_t n = strlen(name);
  return n > 5 && !strcmp(name + n - 5, ".json");
}

/* Collects the .json files under DIR/rel, as paths relative to DIR. */
static bool pd__mb_walk(pd__mb *b, const char *rel, int depth) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", b->dir, rel);
  DIR *d = opendir(path);
  if (!d) return depth > 0;
  bool ok = true;
  for (struct dirent *e; ok && (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    char sub[4096], full[8192];
    snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
    snprintf(full, sizeof full, "%s/%s", b->dir, sub);
    struct stat st;
    if (stat(full, &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      if (depth < 16) ok = pd__mb_walk(b, sub, depth + 1);
    } else if (S_ISREG(st.st_mode) && pd__mb_is_json(e->d_name)) {
      if (b->n_files == b->cap_files) {
        b->cap_files = b->cap_files ? b->cap_files * 2 : 256;
        char **f = realloc(b->files, b->cap_files * sizeof *f);
        if (!f) ok = false;
        else b->files = f;
      }
      if (ok && !(b->files[b->n_files++] = strdup(sub))) ok = false;
    }
  }
  closedir(d);
  return ok;
}

/* ------------------------------------------------------------ running */

/* Compiles file rel's grammar (--grammar's text, or the file's "schema"),
 * its properties in any order or as declared. */
static pd_status pd__mb_compile(pd__mb *b, const char *rel, bool any_order, pd_grammar **g,
                                pd_error *err) {
  pd_grammar_options o = {
      .any_order = any_order, .eager_masks = b->eager, .no_rule_cache = b->no_rule_cache};
  if (b->grammar) return pd_grammar_compile_gbnf(b->grammar, b->grammar_len, b->vocab, &o, g, err);
  char path[8192];
  snprintf(path, sizeof path, "%s/%s", b->dir, rel);
  size_t len, n;
  const char *schema;
  char *text = pd_cli_read_file(path, &len);
  pd_status st = PD_ERR_SYNTAX;
  if (text && pd_cli_json_member(text, len, "schema", &schema, &n)) /* as written */
    st = pd_grammar_compile_json_schema(schema, n, b->vocab, &o, g, err);
  else if (err)
    snprintf(err->message, sizeof err->message, "no \"schema\" member");
  free(text);
  return st;
}

#define PD__MB_BRUTE_MASKS 40

/* --brute: the mask in b->row against each id tried alone. */
static __attribute__((noinline, cold)) pd_status pd__mb_brute(pd__mb *b, pd_matcher *m) {
  size_t size = pd_vocab_size(b->vocab), differ = 0;
  memset(b->brute_row, 0, b->n_words * sizeof *b->brute_row);
  for (uint32_t t = 0; t < size; t++) {
    size_t n = 0;
    pd_status st = pd_matcher_validate_tokens(m, &t, 1, &n, NULL);
    if (st == PD_ERR_NOMEM) return st;
    if (n == 1) b->brute_row[t / 32] |= 1u << (t % 32);
  }
  for (size_t w = 0; w < b->n_words; w++) differ += (size_t)__builtin_popcount(b->row[w] ^ b->brute_row[w]);
  b->brute_masks++;
  if (differ) {
    b->brute_differences++;
    fprintf(stderr, "maskbench: a mask differs from brute force in %zu ids\n", differ);
  }
  return PD_OK;
}

/* Bytes s[0..n) for a one-line report: quotes, backslashes and other than
 * printable ASCII escaped. */
static void pd__mb_put_bytes(const uint8_t *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '"' || s[i] == '\\') fprintf(stderr, "\\%c", s[i]);
    else if (s[i] == '\n') fputs("\\n", stderr);
    else if (s[i] < 0x20 || s[i] > 0x7E) fprintf(stderr, "\\x%02x", s[i]);
    else fputc(s[i], stderr);
  }
}

/* Token id's bytes, escaped (nothing for an id without bytes). */
static void pd__mb_put_token(const pd__mb *b, uint32_t id) {
  const uint8_t *bytes;
  size_t len;
  if (pd_vocab_token(b->vocab, id, &bytes, &len, NULL) == PD_OK) pd__mb_put_bytes(bytes, len);
}

#define PD__MB_SLOW_CONTEXT 40 /* bytes of text before a slow mask's token, at least */

/* --slow: the span of token i of in, with the text before it. */
static void pd__mb_slow(const pd__mb *b, const pd__mb_inst *in, size_t i, double us,
                        double fill_us) {
  fprintf(stderr, "slow: %s test %ld token %zu: %.1f us (fill %.1f) after \"", in->file, in->test,
          i, us, fill_us);
  size_t from = i, have = 0, len;
  const uint8_t *bytes;
  while (from > 0 && have < PD__MB_SLOW_CONTEXT &&
         pd_vocab_token(b->vocab, in->ids[from - 1], &bytes, &len, NULL) == PD_OK)
    from--, have += len;
  for (size_t k = from; k < i; k++) pd__mb_put_token(b, in->ids[k]);
  fputs("\" token \"", stderr);
  pd__mb_put_token(b, in->ids[i]);
  fputs("\"\n", stderr);
}

/* Fills the mask and accepts token i of in, timing the pair; *ok = accepted. */
static pd_status pd__mb_step(pd__mb *b, pd_matcher *m, const pd__mb_inst *in, size_t i, bool *ok) {
  double t0 = pd__mb_now(b);
  pd_status st = pd_matcher_fill_bitmask(m, b->row, b->n_words, NULL, NULL);
  if (st != PD_OK) return st;
  double filled = b->slow_us >= 0 ? pd__mb_now(b) : 0;
  double skip = 0; /* the brute force's span, left out (read only then: a clock read costs a memoized fill) */
  if (b->brute_now) {
    double t1 = pd__mb_now(b);
    if ((st = pd__mb_brute(b, m)) != PD_OK) return st;
    skip = pd__mb_now(b) - t1;
  }
  uint32_t id = in->ids[i];
  *ok = pd_matcher_accept_token(m, id, NULL) == PD_OK;
  double t1 = pd__mb_now(b);
  if (!pd__mb_push(&b->tbm, (t1 - t0 - skip) / 1e3)) return PD_ERR_NOMEM;
  if (b->slow_us >= 0 && (t1 - t0 - skip) / 1e3 > b->slow_us)
    pd__mb_slow(b, in, i, (t1 - t0 - skip) / 1e3, (filled - t0) / 1e3);
  b->tokens++;
  bool bit = id < b->n_words * 32 && ((b->row[id / 32] >> (id % 32)) & 1);
  if (bit != *ok) {
    b->mask_mismatches++;
    fprintf(stderr, "maskbench: mask disagrees with accept for token %u\n", id);
  }
  return PD_OK;
}

/* Runs one instance; returns its verdict (tokens accepted and complete). */
static pd_status pd__mb_instance(pd__mb *b, pd_matcher *m, const pd__mb_inst *in, bool *accepted) {
  pd_matcher_reset(m);
  bool ok = true;
  for (size_t i = 0; ok && i < in->n; i++) {
    b->brute_now = b->brute_file && i < PD__MB_BRUTE_MASKS;
    pd_status st = pd__mb_step(b, m, in, i, &ok);
    if (st != PD_OK) return st;
  }
  b->brute_now = false;
  if (ok) {
    double t0 = pd__mb_now(b);
    pd_status st = pd_matcher_fill_bitmask(m, b->row, b->n_words, NULL, NULL);
    if (st != PD_OK) return st;
    if (!pd__mb_push(&b->tbm, (pd__mb_now(b) - t0) / 1e3)) return PD_ERR_NOMEM;
    ok = pd_matcher_is_accepting(m);
  }
  *accepted = ok;
  return PD_OK;
}

static void pd__mb_verdict(pd__mb *b, pd__mb_inst *in, bool accepted) {
  if (accepted == in->valid)
    b->passing++;
  else if (in->valid)
    b->validation_errors++, b->file_valid_errors++, in->rejected = true;
  else
    b->invalidation_errors++, b->file_invalid_errors++;
  if (b->verbose && accepted != in->valid)
    fprintf(stderr, "%s test %ld: %s\n", in->file,
            in->test, in->valid ? "valid instance rejected" : "invalid instance accepted");
}

/* --verbose: one line per file on stderr, to find the slow or failing ones. */
static void pd__mb_verbose(const pd__mb *b, const char *rel, pd_status st, const pd_error *err,
                           double t0, double t1, size_t tbm0, size_t tok0) {
  if (st != PD_OK && err->message[0]) fprintf(stderr, "%s: refused: %s\n", rel, err->message);
  double worst = 0;
  size_t over = 0; /* masks past the 50 us target of the p99 */
  for (size_t i = tbm0; i < b->tbm.n; i++) {
    if (b->tbm.v[i] > worst) worst = b->tbm.v[i];
    over += b->tbm.v[i] > 50;
  }
  fprintf(stderr,
          "%s: %s ttfm %.1f us, %zu tokens, %zu masks over 50 us, slowest mask %.1f us, "
          "%.1f ms in all\n",
          rel, pd_status_str(st), (t1 - t0) / 1e3, b->tokens - tok0, over, worst,
          (pd__mb_now(b) - t0) / 1e6);
}

/* Compile (TTFM = compile + matcher + first mask), then every instance. */
static int pd__mb_file(pd__mb *b, const char *rel) {
  b->schemas++;
  size_t tbm0 = b->tbm.n, tok0 = b->tokens;
  pd_grammar *g = NULL;
  pd_matcher *m = NULL;
  pd_error err = {0};
  double t0 = pd__mb_now(b);
  pd_status st = pd__mb_compile(b, rel, b->any_order, &g, &err);
  if (st == PD_OK) st = pd_matcher_new(g, &m, NULL);
  if (st == PD_OK) st = pd_matcher_fill_bitmask(m, b->row, b->n_words, NULL, NULL);
  double t1 = pd__mb_now(b);
  if (st == PD_ERR_NOMEM) return pd_cli_usage("maskbench: out of memory");
  if (st != PD_OK) {
    b->compile_errors++;
  } else if (!pd__mb_push(&b->ttfm, (t1 - t0) / 1e3)) {
    st = PD_ERR_NOMEM;
  } else {
    size_t first = pd__mb_inst_find(b, rel);
    b->file_valid_errors = b->file_invalid_errors = 0;
    b->brute_file = b->brute_every && (b->schemas - 1) % b->brute_every == 0 &&
                    pd__mb_same_file(b, first, first);
    b->brute_schemas += b->brute_file;
    for (size_t i = first; st == PD_OK && pd__mb_same_file(b, i, first); i++) {
      bool accepted = false;
      if (i > first) b->brute_file = false;
      if (i == first && !pd__mb_mark(b)) st = PD_ERR_NOMEM;
      if (st == PD_OK) st = pd__mb_instance(b, m, &b->inst[i], &accepted);
      if (i == first && st == PD_OK && !pd__mb_mark(b)) st = PD_ERR_NOMEM;
      if (st == PD_OK) pd__mb_verdict(b, &b->inst[i], accepted);
    }
    b->s_passing += !b->file_valid_errors && !b->file_invalid_errors;
    b->s_validation_errors += b->file_valid_errors > 0;
    b->s_invalidation_errors += b->file_invalid_errors > 0;
  }
  pd_matcher_free(m);
  pd_grammar_free(g);
  if (b->verbose) pd__mb_verbose(b, rel, st, &err, t0, t1, tbm0, tok0);
  if (st == PD_ERR_NOMEM) return pd_cli_usage("maskbench: out of memory");
  if (st != PD_OK && g) return pd_cli_usage("maskbench: %s: %s", rel, pd_status_str(st));
  return 0;
}

/* Counts the rejected valid instances that a grammar compiled with
 * properties in any order accepts (untimed, after every timed run: its
 * compiles share the vocabulary's caches). */
static pd_status pd__mb_order_only(pd__mb *b) {
  size_t skip = b->prefix ? strlen(b->prefix) : 0;
  pd_grammar *g = NULL;
  pd_matcher *m = NULL;
  const char *file = NULL;
  pd_status st = PD_OK;
  for (size_t i = 0; i < b->n_inst && st != PD_ERR_NOMEM; i++) {
    const pd__mb_inst *in = &b->inst[i];
    if (!in->rejected) continue;
    if (!file || strcmp(file, in->file)) {
      pd_matcher_free(m), m = NULL;
      pd_grammar_free(g), g = NULL;
      file = in->file;
      st = pd__mb_compile(b, in->file + skip, true, &g, NULL);
      if (st == PD_OK) st = pd_matcher_new(g, &m, NULL);
    }
    if (!m) continue; /* no grammar in any order: not counted */
    pd_matcher_reset(m);
    bool ok = true;
    for (size_t k = 0; ok && k < in->n; k++)
      ok = pd_matcher_accept_token(m, in->ids[k], NULL) == PD_OK;
    b->order_only += ok && pd_matcher_is_accepting(m);
  }
  pd_matcher_free(m);
  pd_grammar_free(g);
  return st == PD_ERR_NOMEM ? st : PD_OK;
}

/* ---------------------------------------------------------- reporting */

static int pd__mb_dbl_cmp(const void *pa, const void *pb) {
  double a = *(const double *)pa, b = *(const double *)pb;
  return (a > b) - (a < b);
}

/* Nearest-rank percentile of sorted samples (0 when none). */
static double pd__mb_pct(const pd__mb_samples *s, double q) {
  if (!s->n) return 0;
  size_t k = (size_t)(q * (double)s->n + 0.999999);
  return s->v[k ? (k > s->n ? s->n : k) - 1 : 0];
}

static double pd__mb_avg(const pd__mb_samples *s) {
  double sum = 0;
  for (size_t i = 0; i < s->n; i++) sum += s->v[i];
  return s->n ? sum / (double)s->n : 0;
}

static void pd__mb_stats_text(const char *name, pd__mb_samples *s) {
  if (s->n) qsort(s->v, s->n, sizeof *s->v, pd__mb_dbl_cmp); /* no samples: v may be NULL */
  printf("%s us: avg %.2f  p50 %.2f  p90 %.2f  p99 %.2f  p99.9 %.2f  max %.2f  (n %zu)\n", name,
         pd__mb_avg(s), pd__mb_pct(s, .5), pd__mb_pct(s, .9), pd__mb_pct(s, .99),
         pd__mb_pct(s, .999), s->n ? s->v[s->n - 1] : 0, s->n);
}

static void pd__mb_stats_json(const char *name, const pd__mb_samples *s) {
  printf("\"%s\":{\"avg\":%.3f,\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f,\"p999\":%.3f,\"max\":%.3f}",
         name, pd__mb_avg(s), pd__mb_pct(s, .5), pd__mb_pct(s, .9), pd__mb_pct(s, .99),
         pd__mb_pct(s, .999), s->n ? s->v[s->n - 1] : 0);
}

/* tbm_first and tbm_later from tbm (before it is sorted). */
static bool pd__mb_split(pd__mb *b) {
  for (size_t i = 0, j = 0; i < b->tbm.n; i++) {
    while (j + 1 < b->firsts.n && b->firsts.v[j + 1] <= i) j += 2;
    bool first = j + 1 < b->firsts.n && b->firsts.v[j] <= i;
    if (!pd__mb_push(first ? &b->tbm_first : &b->tbm_later, b->tbm.v[i])) return false;
  }
  return true;
}

/* The clock's own part of every span: an empty span timed as TBM is (with
 * --cpu-time a clock read is a system call, a good part of the p50). */
static void pd__mb_floor(const pd__mb *b) {
  pd__mb_samples s = {0};
  for (int i = 0; i < 10000; i++) {
    double t0 = pd__mb_now(b);
    if (!pd__mb_push(&s, (pd__mb_now(b) - t0) / 1e3)) break;
  }
  if (s.n) qsort(s.v, s.n, sizeof *s.v, pd__mb_dbl_cmp);
  printf("timer floor (an empty span, timed alike) us: p50 %.2f  p99 %.2f\n", pd__mb_pct(&s, .5),
         pd__mb_pct(&s, .99));
  free(s.v);
}

static void pd__mb_report(pd__mb *b) {
  if (!pd__mb_split(b)) b->tbm_first.n = b->tbm_later.n = 0; /* out of memory: no split */
  pd__mb_stats_text("TBM  ", &b->tbm);
  pd__mb_stats_text("TTFM ", &b->ttfm);
  pd__mb_stats_text("TBM of a schema's first instance", &b->tbm_first);
  pd__mb_stats_text("TBM of its later instances", &b->tbm_later);
  printf("schemas %zu  passing %zu  compile_errors %zu  validation_errors %zu  "
         "invalidation_errors %zu  tokens %zu  mask_mismatches %zu\n",
         b->schemas, b->passing, b->compile_errors, b->validation_errors,
         b->invalidation_errors, b->tokens, b->mask_mismatches);
  printf("per schema (MaskBench's count): passing %zu  compile_errors %zu  validation_errors %zu  "
         "invalidation_errors %zu\n",
         b->s_passing, b->compile_errors, b->s_validation_errors, b->s_invalidation_errors);
  if (!b->any_order && !b->grammar)
    printf("validation errors that a grammar with properties in any order accepts: %zu of %zu "
           "(the instance lists an object's properties in another order than declared)\n",
           b->order_only, b->validation_errors);
  pd_cache_stats cs;
  pd_vocab_cache_stats(b->vocab, &cs);
  printf("cache: %zu classes, %.1f of %.1f MiB, %zu hits, %zu misses\n", cs.classes,
         (double)cs.bytes / (1 << 20), (double)cs.limit / (1 << 20), cs.hits, cs.misses);
  pd__mb_floor(b);
  if (b->brute_every)
    printf("brute force: %zu masks of %zu schemas compared over the whole vocabulary, %zu differ\n",
           b->brute_masks, b->brute_schemas, b->brute_differences);
  if (!b->json) return;
  putchar('{');
  pd__mb_stats_json("tbm_us", &b->tbm);
  putchar(',');
  pd__mb_stats_json("ttfm_us", &b->ttfm);
  putchar(',');
  pd__mb_stats_json("tbm_first_us", &b->tbm_first);
  putchar(',');
  pd__mb_stats_json("tbm_later_us", &b->tbm_later);
  printf(",\"schemas\":%zu,\"passing\":%zu,\"compile_errors\":%zu,\"validation_errors\":%zu,"
         "\"invalidation_errors\":%zu,\"tokens\":%zu,\"schemas_passing\":%zu,"
         "\"schemas_validation_errors\":%zu,\"schemas_invalidation_errors\":%zu,"
         "\"brute_masks\":%zu,\"brute_differences\":%zu,\"validation_errors_order_only\":%zu}\n",
         b->schemas, b->passing, b->compile_errors, b->validation_errors,
         b->invalidation_errors, b->tokens, b->s_passing, b->s_validation_errors,
         b->s_invalidation_errors, b->brute_masks, b->brute_differences, b->order_only);
}

/* ------------------------------------------------------------- driver */

static int pd__mb_args(pd__mb *b, int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    const char *o = argv[i];
    if (!strcmp(o, "--json")) {
      b->json = true;
    } else if (!strcmp(o, "--cpu-time")) {
      b->cpu_time = true;
    } else if (!strcmp(o, "--verbose")) {
      b->verbose = true;
    } else if (!strcmp(o, "--any-order")) {
      b->any_order = true;
    } else if (!strcmp(o, "--eager")) {
      b->eager = true;
    } else if (!strcmp(o, "--no-rule-cache")) {
      b->no_rule_cache = true;
    } else if (!strcmp(o, "--brute")) {
      char *end = NULL;
      unsigned long k = i + 1 < argc ? strtoul(argv[++i], &end, 10) : 0;
      if (!end || *end || !k) return pd_cli_usage("maskbench: --brute needs a positive number");
      b->brute_every = k;
    } else if (!strcmp(o, "--slow")) {
      char *end = NULL;
      double us = i + 1 < argc ? strtod(argv[++i], &end) : -1;
      if (!end || *end || !(us >= 0) || us == HUGE_VAL)
        return pd_cli_usage("maskbench: --slow needs a number of microseconds");
      b->slow_us = us;
    } else if (!strcmp(o, "--cache-mb")) {
      char *end = NULL;
      unsigned long mb = i + 1 < argc ? strtoul(argv[++i], &end, 10) : 0;
      if (!end || *end || !mb || mb > (SIZE_MAX >> 20))
        return pd_cli_usage("maskbench: --cache-mb needs a positive number");
      b->cache_bytes = (size_t)mb << 20;
    } else if (!strcmp(o, "--tokenizer") || !strcmp(o, "--grammar")) {
      if (i + 1 >= argc) return pd_cli_usage("maskbench: %s needs a value", o);
      *(o[2] == 't' ? &b->tokenizer : &b->grammar_path) = argv[++i];
    } else if (o[0] == '-' || b->dir) {
      return pd_cli_usage("maskbench: unexpected argument '%s'", o);
    } else {
      b->dir = o;
    }
  }
  if (!b->tokenizer) b->tokenizer = pd_cli_default_tokenizer();
  if (!b->dir) return pd_cli_usage("maskbench: DIR is required");
  if (!b->tokenizer) return pd_cli_usage("maskbench: --tokenizer FILE is required");
  return 0;
}

static int pd__mb_setup(pd__mb *b) {
  pd_error err;
  if (b->grammar_path && !(b->grammar = pd_cli_read_file(b->grammar_path, &b->grammar_len)))
    return pd_cli_usage("maskbench: cannot read '%s'", b->grammar_path);
  pd_vocab_options vo = {.cache_bytes = b->cache_bytes};
  if (pd_vocab_load_hf(b->tokenizer, NULL, &vo, &b->vocab, &err) != PD_OK)
    return pd_cli_fail(b->tokenizer, &err);
  b->n_words = (pd_vocab_width(b->vocab) + 31) / 32;
  if (!(b->row = calloc(b->n_words + 1, sizeof *b->row)) ||
      (b->brute_every && !(b->brute_row = calloc(b->n_words, sizeof *b->brute_row))))
    return pd_cli_usage("maskbench: out of memory");
  int rc = pd__mb_inst_load(b);
  if (rc) return rc;
  if (!pd__mb_walk(b, "", 0)) return pd_cli_usage("maskbench: cannot read '%s'", b->dir);
  qsort(b->files, b->n_files, sizeof *b->files, pd__mb_str_cmp);
  return 0;
}

static void pd__mb_free(pd__mb *b) {
  for (size_t i = 0; i < b->n_inst; i++) free(b->inst[i].file), free(b->inst[i].ids);
  for (size_t i = 0; i < b->n_files; i++) free(b->files[i]);
  free(b->inst);
  free(b->files);
  free(b->grammar);
  free(b->prefix);
  free(b->row);
  free(b->brute_row);
  free(b->tbm.v);
  free(b->firsts.v);
  free(b->tbm_first.v);
  free(b->tbm_later.v);
  free(b->ttfm.v);
  pd_vocab_free(b->vocab);
}

int pd_cli_maskbench(int argc, char **argv) {
  pd__mb b = {0};
  b.slow_us = -1;
  int rc = pd__mb_args(&b, argc, argv);
  if (!rc) rc = pd__mb_setup(&b);
  for (size_t i = 0; !rc && i < b.n_files; i++) rc = pd__mb_file(&b, b.files[i]);
  if (!rc && !b.any_order && !b.grammar && pd__mb_order_only(&b) != PD_OK)
    rc = pd_cli_usage("maskbench: out of memory");
  if (!rc) pd__mb_report(&b);
  pd__mb_free(&b);
  return rc;
}
