/* helpers.h - building small grammars by hand for the matcher tests. */
#ifndef PD_TESTS_EARLEY_HELPERS_H
#define PD_TESTS_EARLEY_HELPERS_H
#include <stdio.h>
#include <string.h>

#include "earley/earley.h"
#include "pda/grammar.h"
#include "pda/ir.h"
#include "support.h"

static inline uint32_t pdt_lit(pd_ir *ir, const char *s) { return pd_ir_bytes(ir, s, strlen(s)); }
static inline uint32_t pdt_ref(pd_ir *ir, const char *name) {
  return pd_ir_ref(ir, pd_ir_rule_named(ir, name, strlen(name)));
}
static inline void pdt_def(pd_ir *ir, const char *name, uint32_t body) {
  pd_ir_rule_define(ir, pd_ir_rule_named(ir, name, strlen(name)), body);
}
static inline uint32_t pdt_range(pd_ir *ir, uint32_t lo, uint32_t hi) {
  uint32_t p[2] = {lo, hi};
  return pd_ir_class(ir, p, 1, false);
}

/* Compiles ir (root = "root") with vocab; asserts success. */
static inline pd_grammar *pdt_compile(pd_ir *ir, pd_vocab *vocab) {
  ir->root = pd_ir_rule_find(ir, "root", 4);
  pd_grammar *g = NULL;
  pd_error err;
  pd_status s = pd_grammar_from_ir(ir, vocab, NULL, &g, &err);
  if (s) fprintf(stderr, "compile: %s\n", err.message);
  assert_int_equal(s, PD_OK);
  return g;
}

/* Verdict of text on g: 2 = complete sentence, 1 = viable prefix only, 0 = rejected. */
static inline int pdt_verdict(const pd_grammar *g, const char *text, size_t len) {
  pd_matcher *m = NULL;
  assert_int_equal(pd_matcher_new(g, &m, NULL), PD_OK);
  int v = 0;
  if (pd_matcher_accept_bytes(m, (const uint8_t *)text, len, NULL, NULL) == PD_OK)
    v = pd_matcher_is_accepting(m) ? 2 : 1;
  pd_matcher_free(m);
  return v;
}
#define PDT_V(g, s) pdt_verdict((g), (s), strlen(s))

#endif
