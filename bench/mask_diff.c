/* mask_diff.c - the large differential run: fast masks vs brute force.
 *
 *   mask_diff [--walks N] [--steps N] [--tokenizers llama3,qwen3,...]
 *
 * For every tokenizer and every grammar (the GBNF files in
 * grammars/gbnf, and the gbnf / ebnf grammars of the conformance cases), N
 * seeded random walks of up to S tokens: at each step the filled mask is
 * compared with accept_token over the whole vocabulary. Prints the counts;
 * exit 1 when any mask differs. */
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tests/masks/diff.h"

typedef struct pd__run {
  size_t walks, steps, grammars, compile_fail;
  pdt_diff d;
} pd__run;

static const char *pd__data(void) {
  const char *d = getenv("PD_SHARED_DATA");
  return d && *d ? d : PD_SHARED_DATA_DEFAULT;
}

static void pd__grammar(pd__run *r, pd_vocab *v, const char *text, const char *name) {
  pd_grammar *g = NULL;
  if (pd_grammar_compile_gbnf(text, strlen(text), v, NULL, &g, NULL) != PD_OK) {
    r->compile_fail++;
    return;
  }
  r->grammars++;
  uint64_t rng = 7;
  for (size_t w = 0; w < r->walks; w++) {
    pd_matcher *m = NULL;
    if (pd_matcher_new(g, &m, NULL) != PD_OK) break;
    size_t before = r->d.differences;
    pdt_diff_walk(m, v, r->steps, &rng, &r->d);
    if (r->d.differences != before)
      printf("DIFFERENCE in %s (first token %u)\n", name, r->d.first_bad_token);
    pd_matcher_free(m);
  }
}

static char *pd__read(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) free(buf), buf = NULL;
  fclose(f);
  if (buf) buf[n] = '\0';
  return buf;
}

static void pd__gbnf_files(pd__run *r, pd_vocab *v) {
  char dir[4096], path[8192];
  snprintf(dir, sizeof dir, "%s/grammars/gbnf", pd__data());
  DIR *d = opendir(dir);
  for (struct dirent *e; d && (e = readdir(d));) {
    size_t n = strlen(e->d_name);
    if (n < 6 || strcmp(e->d_name + n - 5, ".gbnf")) continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    char *text = pd__read(path);
    if (text) pd__grammar(r, v, text, e->d_name);
    free(text);
  }
  if (d) closedir(d);
}

static void pd__conformance(pd__run *r, pd_vocab *v, const char *file, const char *kind) {
  char path[4096];
  snprintf(path, sizeof path, "%s/conformance/%s", pd__data(), file);
  json_t *j = json_load_file(path, 0, NULL);
  for (size_t i = 0; i < json_array_size(j); i++) {
    json_t *c = json_array_get(j, i), *g = json_object_get(c, "grammar");
    const char *k = json_string_value(json_object_get(c, "kind"));
    if (k && !strcmp(k, kind) && json_is_string(g)) pd__grammar(r, v, json_string_value(g), file);
  }
  json_decref(j);
}

int main(int argc, char **argv) {
  pd__run r = {.walks = 2, .steps = 8};
  char toks[256] = "llama3,qwen3,gemma3,gpt4o";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--walks")) r.walks = strtoul(argv[i + 1], NULL, 10);
    else if (!strcmp(argv[i], "--steps")) r.steps = strtoul(argv[i + 1], NULL, 10);
    else if (!strcmp(argv[i], "--tokenizers")) snprintf(toks, sizeof toks, "%s", argv[i + 1]);
  }
  for (char *t = strtok(toks, ","); t; t = strtok(NULL, ",")) {
    char path[4096];
    snprintf(path, sizeof path, "%s/tokenizers/%s/tokenizer.json", pd__data(), t);
    pd_vocab *v = NULL;
    if (pd_vocab_load_hf(path, NULL, NULL, &v, NULL) != PD_OK) {
      printf("%s: cannot load\n", t);
      continue;
    }
    size_t masks = r.d.masks;
    pd__gbnf_files(&r, v);
    pd__conformance(&r, v, "llamacpp_grammar_cases.json", "gbnf");
    pd__conformance(&r, v, "xgrammar_cases.json", "ebnf");
    printf("%s: %zu masks compared so far (+%zu)\n", t, r.d.masks, r.d.masks - masks);
    fflush(stdout);
    pd_vocab_free(v);
  }
  printf("grammars %zu (compile failures %zu), masks compared %zu, tokens accepted %zu, "
         "differences %zu\n",
         r.grammars, r.compile_fail, r.d.masks, r.d.tokens, r.d.differences);
  return r.d.differences ? 1 : 0;
}
