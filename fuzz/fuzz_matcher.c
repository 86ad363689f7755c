/* fuzz_matcher.c - random small grammars (from the first fuzz bytes) and a walk
 * of input bytes (from the rest); the matcher's verdict on every prefix, complete
 * and viable, must equal the naive reference recognizer's (tests/earley/reference.h).
 * Any difference aborts. Also exercises rollback and fork on the walked input.
 * Inputs of odd length compile over one vocab kept for the whole run, so their
 * rule automata may come from the cache earlier inputs filled. */
#include <stdio.h>
#include <stdlib.h>

#include "tests/earley/reference.h"

#define PD__GRAMMAR_BYTES 48

static void pd__fuzz_walk(const pd_ir *ir, const pd_grammar *g, const uint8_t *choice, size_t n) {
  pd_matcher *m = NULL, *f = NULL;
  if (pd_matcher_new(g, &m, NULL)) abort();
  uint8_t input[PDR_MAX_INPUT];
  int len, bad = pdr_diff(ir, m, choice, n, input, &len);
  if (bad >= 0) {
    fprintf(stderr, "matcher and reference disagree at prefix %d\n", bad);
    abort();
  }
  /* the walked input again through the public API, in one call, on a fork */
  if (pd_matcher_fork(m, &f, NULL)) abort();
  pd_matcher_reset(f);
  size_t ok = 0;
  if (pd_matcher_accept_bytes(f, input, (size_t)len, &ok, NULL) || ok != (size_t)len) abort();
  if (pd_matcher_is_accepting(f) != pd_matcher_is_accepting(m)) abort();
  pd_matcher_free(f);
  pd_matcher_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t gl = size < PD__GRAMMAR_BYTES ? size : PD__GRAMMAR_BYTES;
  pd_ir ir;
  pd_ir_init(&ir, NULL);
  pdr_generate(&ir, data, gl);
  pd_grammar *g = NULL;
  static pd_vocab *v; /* one for every input: automata cached by earlier inputs get reused */
  if (!v && !(v = pdr_vocab())) abort();
  pd_status s = pd_grammar_from_ir(&ir, size % 2 ? v : NULL, NULL, &g, NULL);
  if (s == PD_OK) {
    pd__fuzz_walk(&ir, g, data + gl, size - gl);
  } else {
    bool complete, viable;
    uint8_t none = 0;
    pdr_run(&ir, &none, 0, &complete, &viable);
    /* only "derives nothing" may be refused, or a limit said as one (a random
     * grammar whose automaton passes the state bound: found by this target) */
    if (s != PD_ERR_LIMIT && (s != PD_ERR_SEMANTIC || viable)) abort();
  }
  pd_grammar_free(g);
  pd_ir_free(&ir);
  return 0;
}
