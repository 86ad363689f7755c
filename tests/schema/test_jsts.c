/* test_jsts.c - the JSON-Schema-Test-Suite (draft2020-12 and its
 * optional/format tests, the set llguidance's baseline covers) through the
 * public API, with llguidance's categories and a ratchet.
 *
 * Each group's schema is compiled with pd_grammar_compile_json_schema
 * (default options: flexible whitespace, declared property order, formats
 * asserted); each instance is serialized as compact JSON text (json_text.h)
 * and accepted iff pd_matcher_accept_bytes takes it all and the matcher is
 * then accepting. Categories, best to worst:
 *   pass, false_negative, compile_error_all_invalid (the group failed to
 *   compile and none of its instances is valid), compile_error_valid,
 *   false_positive.
 * The ratchet file (argv[1], jsts_expected.tsv: file, group index, test
 * index, category, description) holds the expected category of every test;
 * a test that gets worse fails this program, improvements are printed. Run
 * with PD_SCHEMA_RATCHET_UPDATE=1 to rewrite it. Each instance is also
 * checked with the IR recognizer of ir_match.h: the compiled grammar must
 * agree with the IR it was built from. The suite's remote documents are
 * given to every compile as schema_docs, at the URIs its runner serves. */
#include "support.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "ir_match.h"
#include "json_text.h"
#include "pda/json.h"
#include "pda/schema.h"

enum { PDT_PASS, PDT_FN, PDT_CE_INVALID, PDT_CE_VALID, PDT_FP, PDT_NCAT };
static const char *const pdt_cat_names[PDT_NCAT] = {
    "pass", "false_negative", "compile_error_all_invalid", "compile_error_valid", "false_positive"};

typedef struct pdt_result {
  char key[160]; /* file \t group \t test */
  char desc[200];
  int cat;
} pdt_result;

static pdt_result *pdt_results;
static size_t pdt_n_results, pdt_cap_results;
static long pdt_disagree;
static const char *pdt_ratchet_path;

static void pdt_add(const char *file, uint32_t g, uint32_t t, const char *desc, int cat) {
  if (pdt_n_results == pdt_cap_results) {
    pdt_cap_results = pdt_cap_results ? pdt_cap_results * 2 : 1024;
    pdt_results = realloc(pdt_results, pdt_cap_results * sizeof *pdt_results);
  }
  pdt_result *r = &pdt_results[pdt_n_results++];
  snprintf(r->key, sizeof r->key, "%s\t%u\t%u", file, g, t);
  snprintf(r->desc, sizeof r->desc, "%s", desc);
  for (char *p = r->desc; *p; p++)
    if (*p == '\t' || *p == '\n') *p = ' ';
  r->cat = cat;
}

/* The grammar's verdict, and the IR recognizer's (must agree). */
static bool pdt_accepts(const pd_grammar *g, const pd_ir *ir, const char *text, size_t len) {
  pd_matcher *m = NULL;
  bool ok = false;
  if (getenv("PDT_SCHEMA_IR_ONLY")) return ir && pdt_ir_match(ir, text, len); /* debugging */
  if (pd_matcher_new(g, &m, NULL) == PD_OK) {
    ok = pd_matcher_accept_bytes(m, (const uint8_t *)text, len, NULL, NULL) == PD_OK &&
         pd_matcher_is_accepting(m);
    pd_matcher_free(m);
  }
  if (ir && pdt_ir_match(ir, text, len) != ok) {
    pdt_disagree++;
    printf("disagree (matcher %d): %.*s\n", ok, (int)(len > 200 ? 200 : len), text);
  }
  return ok;
}

/* The suite's remote documents, served at http://localhost:1234/ by its own
 * runner: here they are schema_docs of every compile (draft2020-12's). */
static pd_schema_doc pdt_remotes[64];
static size_t pdt_n_remotes;

static void pdt_load_remotes(const char *dir, const char *sub) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, sub);
  DIR *dd = opendir(path);
  if (!dd) return;
  struct dirent *e;
  while ((e = readdir(dd)) && pdt_n_remotes < 64) {
    size_t l = strlen(e->d_name);
    char rel[1024];
    snprintf(rel, sizeof rel, "%s/%s", sub, e->d_name);
    if (l > 5 && strcmp(e->d_name + l - 5, ".json") == 0) {
      char file[4096], uri[1200];
      snprintf(file, sizeof file, "%s/%s", dir, rel);
      snprintf(uri, sizeof uri, "http://localhost:1234/%s", rel);
      pd_schema_doc *r = &pdt_remotes[pdt_n_remotes++];
      r->json = pdt_read_file(file, &r->len);
      r->uri = strdup(uri);
      assert_non_null(r->json);
    } else if (e->d_name[0] != '.') {
      pdt_load_remotes(dir, rel); /* a folder (opendir fails on a file) */
    }
  }
  closedir(dd);
}

static void pdt_group(const char *file, const pd_json_doc *d, uint32_t grp, uint32_t gi) {
  uint32_t grp_i = gi;
  uint32_t schema = pd_json_get(d, grp, "schema"), tests = pd_json_get(d, grp, "tests");
  size_t slen, n_tests = pd_json_len(d, tests);
  char *stext = pdt_json_text(d, schema, &slen);
  pd_grammar *g = NULL;
  pd_error err;
  pd_grammar_options o;
  memset(&o, 0, sizeof o);
  o.any_order = getenv("PDT_SCHEMA_ANY_ORDER") != NULL; /* for reports; the ratchet uses defaults */
  o.schema_docs = pdt_remotes, o.n_schema_docs = pdt_n_remotes;
  pd_status st = pd_grammar_compile_json_schema(stext, slen, NULL, &o, &g, &err);
  pd_ir ir;
  pd_ir_init(&ir, NULL);
  char *relaxed = NULL;
  bool have_ir = !st && pd_schema_to_ir(stext, slen, false, &o, &ir, &relaxed, NULL) == PD_OK;
  if (st && getenv("PDT_SCHEMA_VERBOSE"))
    printf("compile error %s #%u: %s\n", file, grp_i, err.message);
  bool any_valid = false;
  for (uint32_t t = 0; t < n_tests; t++)
    any_valid |=
        pd_json_at(d, pd_json_get(d, pd_json_elem(d, tests, t), "valid"))->kind == PD_JSON_TRUE;
  for (uint32_t t = 0; t < n_tests; t++) {
    uint32_t tc = pd_json_elem(d, tests, t), data = pd_json_get(d, tc, "data");
    uint32_t desc = pd_json_get(d, tc, "description");
    bool valid = pd_json_at(d, pd_json_get(d, tc, "valid"))->kind == PD_JSON_TRUE;
    int cat;
    if (st) {
      cat = any_valid ? PDT_CE_VALID : PDT_CE_INVALID;
    } else {
      size_t ilen;
      char *itext = pdt_json_text(d, data, &ilen);
      bool acc = pdt_accepts(g, have_ir ? &ir : NULL, itext, ilen);
      cat = acc == valid ? PDT_PASS : acc ? PDT_FP : PDT_FN;
      if (cat == PDT_FP) printf("FALSE POSITIVE %s #%u #%u: %s\n", file, gi, t, itext);
      free(itext);
    }
    pdt_add(file, gi, t, pd_json_str(d, desc), cat);
  }
  pd__free(NULL, relaxed);
  pd_ir_free(&ir);
  pd_grammar_free(g);
  free(stext);
}

static void pdt_file(const char *dir, const char *rel) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.json", dir, rel);
  size_t len;
  char *text = pdt_read_file(path, &len);
  assert_non_null(text);
  pd_json_doc d;
  assert_int_equal(pd_json_parse(&d, NULL, text, len, 1000, NULL), PD_OK);
  for (uint32_t g = 0; g < pd_json_len(&d, d.root); g++)
    pdt_group(rel, &d, pd_json_elem(&d, d.root, g), g);
  pd_json_free(&d);
  free(text);
}

static int pdt_cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs every *.json of dir/sub (names without .json, sorted). */
static void pdt_dir(const char *dir, const char *sub) {
  char path[4096], *names[256];
  size_t n = 0;
  snprintf(path, sizeof path, "%s/%s", dir, sub);
  DIR *dd = opendir(path);
  if (!dd) return;
  struct dirent *e;
  while ((e = readdir(dd)) && n < 256) {
    size_t l = strlen(e->d_name);
    if (l > 5 && strcmp(e->d_name + l - 5, ".json") == 0) {
      char buf[512];
      snprintf(buf, sizeof buf, "%s%s%.*s", sub, *sub ? "/" : "", (int)(l - 5), e->d_name);
      names[n++] = strdup(buf);
    }
  }
  closedir(dd);
  qsort(names, n, sizeof *names, pdt_cmp_str);
  for (size_t i = 0; i < n; i++) {
    pdt_file(dir, names[i]);
    free(names[i]);
  }
}

static int pdt_cat_of(const char *name) {
  for (int c = 0; c < PDT_NCAT; c++)
    if (strcmp(name, pdt_cat_names[c]) == 0) return c;
  return -1;
}

static void pdt_write_ratchet(void) {
  FILE *f = fopen(pdt_ratchet_path, "w");
  assert_non_null(f);
  for (size_t i = 0; i < pdt_n_results; i++)
    fprintf(f, "%s\t%s\t%s\n", pdt_results[i].key, pdt_cat_names[pdt_results[i].cat],
            pdt_results[i].desc);
  fclose(f);
  printf("ratchet rewritten: %s\n", pdt_ratchet_path);
}

/* Compares with the ratchet; returns the number of regressions. */
static long pdt_compare(void) {
  size_t len;
  char *text = pdt_read_file(pdt_ratchet_path, &len);
  long worse = 0, better = 0, missing = 0;
  for (size_t i = 0; i < pdt_n_results; i++) {
    const pdt_result *r = &pdt_results[i];
    char *at = text ? strstr(text, r->key) : NULL;
    while (at && !(at == text || at[-1] == '\n')) at = strstr(at + 1, r->key);
    if (!at || at[strlen(r->key)] != '\t') {
      missing++;
      continue;
    }
    char name[64];
    sscanf(at + strlen(r->key) + 1, "%63[^\t\n]", name);
    int want = pdt_cat_of(name);
    if (r->cat > want) {
      worse++;
      printf("REGRESSION %s (%s): %s, expected %s\n", r->key, r->desc, pdt_cat_names[r->cat], name);
    } else if (r->cat < want) {
      better++;
    }
  }
  printf("ratchet: %ld worse, %ld better (update %s with PD_SCHEMA_RATCHET_UPDATE=1), %ld new\n",
         worse, better, pdt_ratchet_path, missing);
  free(text);
  return worse + (text ? 0 : 1);
}

static void test_suite(void **state) {
  (void)state;
  const char *dir = pdt_data("json-schema-test-suite/tests/draft2020-12");
  if (!dir) skip();
  char root[4096];
  snprintf(root, sizeof root, "%s", dir);
  const char *remotes = pdt_data("json-schema-test-suite/remotes");
  if (remotes) {
    char rdir[4096];
    snprintf(rdir, sizeof rdir, "%s", remotes);
    pdt_load_remotes(rdir, "draft2020-12");
  }
  pdt_dir(root, "");
  pdt_dir(root, "optional/format");
  long counts[PDT_NCAT] = {0};
  for (size_t i = 0; i < pdt_n_results; i++) counts[pdt_results[i].cat]++;
  printf("json-schema-test-suite draft2020-12: %zu tests:", pdt_n_results);
  for (int c = 0; c < PDT_NCAT; c++) printf(" %s %ld", pdt_cat_names[c], counts[c]);
  printf("; grammar/IR disagreements %ld\n", pdt_disagree);
  if (getenv("PD_SCHEMA_RATCHET_UPDATE")) pdt_write_ratchet();
  assert_int_equal(pdt_compare(), 0);
  assert_int_equal(counts[PDT_FP], 0);
  assert_int_equal(pdt_disagree, 0);
}

int main(int argc, char **argv) {
  pdt_ratchet_path = argc > 1 ? argv[1] : "jsts_expected.tsv";
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_suite)};
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  free(pdt_results);
  for (size_t i = 0; i < pdt_n_remotes; i++) {
    free((char *)pdt_remotes[i].json);
    free((char *)pdt_remotes[i].uri);
  }
  return rc;
}
