/* test_reference.c - the matcher against the naive reference recognizer on many
 * random grammars and inputs (the same check as fuzz/fuzz_matcher.c); odd seeds
 * compile over one shared vocab, so their rule automata may come from the
 * cache that earlier grammars filled. */
#include <stdio.h>

#include "pda/gbnf.h"
#include "reference.h"
#include "support.h"

#define PDT_SEEDS 700

static uint64_t pdt_rand(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static void test_random_grammars(void **state) {
  (void)state;
  int compiled = 0, refused = 0;
  pd_vocab *v = pdr_vocab(); /* every grammar over one vocab: its rule cache carries over */
  assert_non_null(v);
  for (uint64_t seed = 1; seed <= PDT_SEEDS; seed++) {
    uint64_t x = seed * 0x9E3779B97F4A7C15ull;
    uint8_t data[64], choice[40], input[PDR_MAX_INPUT];
    for (size_t i = 0; i < sizeof data; i++) data[i] = (uint8_t)pdt_rand(&x);
    for (size_t i = 0; i < sizeof choice; i++) choice[i] = (uint8_t)pdt_rand(&x);
    pd_ir ir;
    pd_ir_init(&ir, NULL);
    pdr_generate(&ir, data, sizeof data);
    pd_grammar *g = NULL;
    pd_error err;
    pd_status s = pd_grammar_from_ir(&ir, seed % 2 ? v : NULL, NULL, &g, &err);
    if (s) {
      /* only a grammar whose root derives nothing may be refused */
      bool complete, viable;
      pdr_run(&ir, input, 0, &complete, &viable);
      if (s != PD_ERR_SEMANTIC || viable)
        fail_msg("seed %llu: %s", (unsigned long long)seed, err.message);
      refused++;
      pd_ir_free(&ir);
      continue;
    }
    compiled++;
    pd_matcher *m = NULL;
    assert_int_equal(pd_matcher_new(g, &m, NULL), PD_OK);
    int n, bad = pdr_diff(&ir, m, choice, sizeof choice, input, &n);
    if (bad >= 0) {
      char *dump = NULL;
      pd_ir_dump(&ir, &dump);
      fprintf(stderr, "seed %llu: mismatch at prefix %d of", (unsigned long long)seed, bad);
      for (int i = 0; i < bad; i++) fprintf(stderr, " %02X", input[i]);
      fprintf(stderr, "\n%s", dump ? dump : "");
      pd__free(ir.alloc, dump);
    }
    assert_int_equal(bad, -1);
    pd_matcher_free(m);
    pd_grammar_free(g);
    pd_ir_free(&ir);
  }
  pd_vocab_free(v);
  printf("%d grammars compiled, %d refused (derive nothing)\n", compiled, refused);
  assert_true(compiled > PDT_SEEDS / 2);
}

/* Wide rows: the row where item is predicted holds a call to each of 24
 * rules (two to r0 and r3, from item and pair), so completions into it go
 * through the row's index of calls (earley/calls.c) rather than a scan;
 * nested parentheses and lists keep completing into such rows at several
 * depths. Against the reference. */
static void test_wide_rows(void **state) {
  (void)state;
  char text[4096];
  int at = snprintf(text, sizeof text,
                    "root ::= \"[\" elem (\",\" elem)* \"]\" | elem\nelem ::= item | pair\n"
                    "pair ::= r0 \"=\" elem | r3 \"=\" elem\nitem ::= r0");
  for (int i = 1; i < 24; i++) at += snprintf(text + at, sizeof text - (size_t)at, " | r%d", i);
  for (int i = 0; i < 24; i++) /* recursive, so no rule is copied into item */
    at += snprintf(text + at, sizeof text - (size_t)at,
                   "\nr%d ::= \"%c\" | \"(\" r%d \")\" | \"%c\" root", i, 'a' + i, i, 'A' + i);
  pd_ir ir;
  pd_ir_init(&ir, NULL);
  assert_int_equal(pd_gbnf_to_ir(&ir, text, (size_t)at, NULL, NULL), PD_OK);
  pd_grammar *g = NULL;
  assert_int_equal(pd_grammar_from_ir(&ir, NULL, NULL, &g, NULL), PD_OK);
  uint64_t x = 0x2545F4914F6CDD1Dull;
  size_t wide = 0;
  for (int run = 0; run < 300; run++) {
    uint8_t choice[48], input[PDR_MAX_INPUT];
    for (size_t i = 0; i < sizeof choice; i++) choice[i] = (uint8_t)(pdt_rand(&x) % 0xE0);
    pd_matcher *m = NULL;
    assert_int_equal(pd_matcher_new(g, &m, NULL), PD_OK);
    int n, bad = pdr_diff(&ir, m, choice, sizeof choice, input, &n);
    if (bad >= 0) fprintf(stderr, "wide rows: mismatch at prefix %d: %.*s\n", bad, bad, input);
    assert_int_equal(bad, -1);
    wide += m->calls != NULL;
    pd_matcher_free(m);
  }
  assert_true(wide > 100); /* the index was made */
  pd_grammar_free(g);
  pd_ir_free(&ir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_random_grammars),
      cmocka_unit_test(test_wide_rows),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
