/* bench_masks.c - token-mask benchmarks (Google Benchmark through shim.h).
 *
 *   fill/G/T            one mask + accepting the token, along seeded random walks
 *                       of grammar G with tokenizer T (per iteration = per mask); each
 *                       walk gets a freshly compiled grammar, so its mask memo is cold
 *   fill/json/llama3/maskbench  the same along the valid MaskBench instances' ids
 *   compile_cold/G/T    compile with an empty classification cache (fresh vocab)
 *   compile_warm/G/T    compile again over the same vocab (every class cached)
 *   compile_second/T    json_arr.gbnf right after json.gbnf over a fresh vocab:
 *                       a new grammar whose sub-languages are mostly cached
 *   floor/copy_row/T    copying one bitmask row: the physical floor of a fill
 * Counters: cache_bytes / cache_entries (classification memory of the vocab's
 * cache), grammar_bytes (the grammar's own tables). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "masks/cache.h"
#include "masks/masks.h"
#include "masks/vocab.h"
#include "pda/grammar.h"
#include "shim.h"

#define PD_WALK_TOKENS 400

static const char *pd__data(void) {
  const char *d = getenv("PD_SHARED_DATA");
  return d && *d ? d : PD_SHARED_DATA_DEFAULT;
}

static char *pd__read(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) free(buf), buf = NULL;
  fclose(f);
  if (buf) buf[n] = '\0', *len = (size_t)n;
  return buf;
}

static pd_vocab *pd__load_vocab(const char *tok) {
  char path[4096];
  snprintf(path, sizeof path, "%s/tokenizers/%s/tokenizer.json", pd__data(), tok);
  pd_vocab *v = NULL;
  return pd_vocab_load_hf(path, NULL, NULL, &v, NULL) == PD_OK ? v : NULL;
}

/* One vocab per tokenizer, loaded once and kept (warm benchmarks share it). */
static pd_vocab *pd__vocab(const char *tok) {
  static struct {
    const char *name;
    pd_vocab *v;
  } cache[8];
  for (int i = 0; i < 8; i++) {
    if (cache[i].name && !strcmp(cache[i].name, tok)) return cache[i].v;
    if (!cache[i].name) {
      cache[i].name = tok;
      return cache[i].v = pd__load_vocab(tok);
    }
  }
  return NULL;
}

static pd_grammar *pd__compile(const char *gname, pd_vocab *v) {
  char path[4096];
  size_t len;
  snprintf(path, sizeof path, "%s/grammars/gbnf/%s.gbnf", pd__data(), gname);
  char *text = pd__read(path, &len);
  pd_grammar *g = NULL;
  pd_grammar_options eager = {.eager_masks = true}; /* compile times include classification */
  if (text && pd_grammar_compile_gbnf(text, len, v, &eager, &g, NULL) != PD_OK) g = NULL;
  free(text);
  return g;
}

/* ------------------------------------------------------------- sequences */

typedef struct pd__seq {
  uint32_t *ids;
  size_t *starts; /* walk k = ids[starts[k] .. starts[k+1]) */
  size_t n_ids, n_walks;
} pd__seq;

static bool pd__seq_add(pd__seq *s, uint32_t id) {
  uint32_t *p = realloc(s->ids, (s->n_ids + 1) * sizeof *p);
  if (!p) return false;
  s->ids = p;
  s->ids[s->n_ids++] = id;
  return true;
}

static bool pd__seq_walk(pd__seq *s) {
  size_t *p = realloc(s->starts, (s->n_walks + 2) * sizeof *p);
  if (!p) return false;
  s->starts = p;
  s->starts[s->n_walks++] = s->n_ids;
  s->starts[s->n_walks] = s->n_ids;
  return true;
}

/* Seeded random walks (text tokens only) until PD_WALK_TOKENS tokens. */
static void pd__seq_random(pd__seq *s, const pd_grammar *g, const pd_vocab *v) {
  size_t n_words = (pd_vocab_width(v) + 31) / 32, size = pd_vocab_size(v);
  uint32_t *row = calloc(n_words, 4), *ids = calloc(size, 4);
  uint64_t rng = 12345;
  while (row && ids && s->n_ids < PD_WALK_TOKENS && pd__seq_walk(s)) {
    pd_matcher *m = NULL;
    if (pd_matcher_new(g, &m, NULL) != PD_OK) break;
    for (int step = 0; step < 100 && s->n_ids < PD_WALK_TOKENS; step++) {
      if (pd_matcher_fill_bitmask(m, row, n_words, NULL, NULL) != PD_OK) break;
      size_t n = 0;
      for (uint32_t t = 0; t < size; t++)
        if ((row[t / 32] >> (t % 32) & 1) && !(v->flags[t] & PD_TOKEN_EOS)) ids[n++] = t;
      if (!n) break;
      rng = rng * 6364136223846793005u + 1442695040888963407u;
      uint32_t t = ids[(rng >> 33) % n];
      if (pd_matcher_accept_token(m, t, NULL) != PD_OK || !pd__seq_add(s, t)) break;
      s->starts[s->n_walks] = s->n_ids;
    }
    pd_matcher_free(m);
  }
  free(row);
  free(ids);
}

/* The llama3 ids of the valid MaskBench instances. */
static void pd__seq_maskbench(pd__seq *s) {
  char path[4096];
  size_t len;
  snprintf(path, sizeof path, "%s/maskbench/instances.jsonl", pd__data());
  char *text = pd__read(path, &len);
  for (char *line = text, *next; line && *line; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = '\0';
    json_t *j = json_loads(line, 0, NULL), *ids = json_object_get(j, "llama3");
    if (json_is_true(json_object_get(j, "valid")) && json_is_array(ids) && pd__seq_walk(s))
      for (size_t i = 0; i < json_array_size(ids); i++)
        if (pd__seq_add(s, (uint32_t)json_integer_value(json_array_get(ids, i))))
          s->starts[s->n_walks] = s->n_ids;
    json_decref(j);
  }
  free(text);
}

/* ---------------------------------------------------------- benchmarks */

typedef struct pd__arg {
  const char *grammar, *tok;
  bool maskbench;
} pd__arg;

static void pd__cache_counters(pd_bench_state *st, const pd_vocab *v, const pd_grammar *g) {
  const pd_mask_cache *c = v->mask_cache;
  pd_bench_counter(st, "cache_bytes", c ? (double)c->bytes : 0);
  pd_bench_counter(st, "cache_entries", c ? (double)c->n_entries : 0);
  pd_bench_counter(st, "grammar_bytes", g ? (double)pd_masks_bytes(g->masks) : 0);
}

/* Per iteration: fill one mask and accept its token. A walk whose token is
 * rejected (the grammar is not MaskBench's schema) ends there. */
static void pd__bm_fill(pd_bench_state *st, void *varg) {
  const pd__arg *arg = varg;
  pd_vocab *v = pd__vocab(arg->tok);
  pd_grammar *g = v ? pd__compile(arg->grammar, v) : NULL;
  pd__seq seq = {0};
  if (g && arg->maskbench) pd__seq_maskbench(&seq);
  else if (g) pd__seq_random(&seq, g, v);
  size_t n_words = v ? (pd_vocab_width(v) + 31) / 32 : 0;
  uint32_t *row = calloc(n_words + 1, 4);
  pd_matcher *m = NULL;
  if (!g || !row || !seq.n_ids || pd_matcher_new(g, &m, NULL) != PD_OK) {
    pd_bench_skip(st, "no grammar, tokenizer or tokens");
  } else {
    size_t walk = 0, pos = seq.starts[0];
    int64_t masks = 0;
    while (pd_bench_keep_running(st)) {
      if (pos == seq.starts[walk + 1]) {
        /* a fresh (warm-compiled) grammar per walk: its mask memo starts empty,
         * as for a new request's schema */
        pd_bench_pause(st);
        pd_matcher_free(m);
        m = NULL;
        pd_grammar_free(g);
        g = pd__compile(arg->grammar, v);
        do walk = (walk + 1) % seq.n_walks;
        while (seq.starts[walk] == seq.starts[walk + 1]);
        pos = seq.starts[walk];
        if (g) pd_matcher_new(g, &m, NULL);
        pd_bench_resume(st);
        if (!m) break;
      }
      pd_matcher_fill_bitmask(m, row, n_words, NULL, NULL);
      if (pd_matcher_accept_token(m, seq.ids[pos++], NULL) != PD_OK) pos = seq.starts[walk + 1];
      masks++;
    }
    pd_bench_items(st, masks);
    pd__cache_counters(st, v, g);
  }
  pd_matcher_free(m);
  pd_grammar_free(g);
  free(row);
  free(seq.ids);
  free(seq.starts);
}

static void pd__bm_compile_cold(pd_bench_state *st, void *varg) {
  const pd__arg *arg = varg;
  while (pd_bench_keep_running(st)) {
    pd_bench_pause(st);
    pd_vocab *v = pd__load_vocab(arg->tok);
    pd_bench_resume(st);
    pd_grammar *g = v ? pd__compile(arg->grammar, v) : NULL;
    pd_bench_pause(st);
    if (!g) pd_bench_skip(st, "cannot compile");
    else pd__cache_counters(st, v, g);
    pd_grammar_free(g);
    pd_vocab_free(v);
    pd_bench_resume(st);
  }
}

static void pd__bm_compile_warm(pd_bench_state *st, void *varg) {
  const pd__arg *arg = varg;
  pd_vocab *v = pd__vocab(arg->tok);
  pd_grammar *g0 = v ? pd__compile(arg->grammar, v) : NULL; /* warms the cache */
  if (!g0) pd_bench_skip(st, "cannot compile");
  while (g0 && pd_bench_keep_running(st)) pd_grammar_free(pd__compile(arg->grammar, v));
  if (g0) pd__cache_counters(st, v, g0);
  pd_grammar_free(g0);
}

static void pd__bm_compile_second(pd_bench_state *st, void *varg) {
  const pd__arg *arg = varg;
  while (pd_bench_keep_running(st)) {
    pd_bench_pause(st);
    pd_vocab *v = pd__load_vocab(arg->tok);
    pd_grammar *g0 = v ? pd__compile("json", v) : NULL;
    pd_bench_resume(st);
    pd_grammar *g = g0 ? pd__compile(arg->grammar, v) : NULL;
    pd_bench_pause(st);
    if (!g) pd_bench_skip(st, "cannot compile");
    else pd__cache_counters(st, v, g);
    pd_grammar_free(g);
    pd_grammar_free(g0);
    pd_vocab_free(v);
    pd_bench_resume(st);
  }
}

static void pd__bm_copy_row(pd_bench_state *st, void *varg) {
  const pd__arg *arg = varg;
  pd_vocab *v = pd__vocab(arg->tok);
  size_t n_words = v ? (pd_vocab_width(v) + 31) / 32 : 4096;
  uint32_t *a = calloc(n_words, 4), *b = calloc(n_words, 4);
  while (a && b && pd_bench_keep_running(st)) {
    memcpy(b, a, n_words * 4);
    a[n_words / 2] ^= b[n_words / 3] + 1; /* keep the copy observable */
  }
  free(a);
  free(b);
}

int main(int argc, char **argv) {
  static const char *const grammars[] = {"json", "c", "arithmetic"};
  static const char *const toks[] = {"llama3", "gemma3"};
  static pd__arg args[32];
  int k = 0;
  char name[128];
  for (int t = 0; t < 2; t++)
    for (int gi = 0; gi < 3; gi++) {
      args[k] = (pd__arg){grammars[gi], toks[t], false};
      snprintf(name, sizeof name, "fill/%s/%s", grammars[gi], toks[t]);
      pd_bench_register(name, pd__bm_fill, &args[k], 0);
      snprintf(name, sizeof name, "compile_cold/%s/%s", grammars[gi], toks[t]);
      pd_bench_register(name, pd__bm_compile_cold, &args[k], 2);
      snprintf(name, sizeof name, "compile_warm/%s/%s", grammars[gi], toks[t]);
      pd_bench_register(name, pd__bm_compile_warm, &args[k++], 0);
    }
  args[k] = (pd__arg){"json", "llama3", true};
  pd_bench_register("fill/json/llama3/maskbench", pd__bm_fill, &args[k++], 0);
  for (int t = 0; t < 2; t++) {
    args[k] = (pd__arg){"json_arr", toks[t], false};
    snprintf(name, sizeof name, "compile_second/json_arr/%s", toks[t]);
    pd_bench_register(name, pd__bm_compile_second, &args[k], 2);
    snprintf(name, sizeof name, "floor/copy_row/%s", toks[t]);
    pd_bench_register(name, pd__bm_copy_row, &args[k++], 0);
  }
  return pd_bench_main(argc, argv);
}
