/* regex_check.c - see regex_check.h. */
#include "regex_check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ir_eval.h"
#include "pda/grammar.h"
#include "pda/regex.h"
#include "support.h"

struct pdt_regex {
  pd_ir ir;
  uint32_t full, search;
  pd_grammar *g, *gs; /* anchored (pd_grammar_compile_regex), search (from the IR) */
  pd_matcher *m, *ms;
};

/* Whether node's expression holds a product (AND, DIFF). */
static bool pdt__has_product(const pd_ir *ir, uint32_t node, int depth) {
  const pd_ir_node *n = pd_ir_at(ir, node);
  if (n->kind == PD_IR_AND || n->kind == PD_IR_DIFF) return true;
  if (depth > 64) return false;
  if (n->kind == PD_IR_REF) return pdt__has_product(ir, ir->rules.data[n->a].body, depth + 1);
  if (n->kind == PD_IR_REPEAT) return pdt__has_product(ir, n->a, depth + 1);
  if (n->kind == PD_IR_SEQ || n->kind == PD_IR_ALT)
    for (uint32_t i = 0; i < n->n; i++)
      if (pdt__has_product(ir, ir->kids.data[n->off + i], depth + 1)) return true;
  return false;
}

pdt_regex *pdt_regex_new(const char *pattern, size_t len, pd_status *st, pd_error *err) {
  pdt_regex *r = calloc(1, sizeof *r);
  assert_non_null(r);
  pd_ir_init(&r->ir, NULL);
  *st = pd_regex_to_ir(&r->ir, pattern, len, NULL, false, NULL, &r->full, err);
  if (*st == PD_OK) *st = pd_regex_to_ir(&r->ir, pattern, len, NULL, true, NULL, &r->search, err);
  pd_status gs = PD_ERR_UNSUPPORTED;
  if (*st == PD_OK) gs = pd_grammar_compile_regex(pattern, len, NULL, NULL, &r->g, NULL);
  if (*st != PD_OK) {
    pdt_regex_free(r);
    return NULL;
  }
  /* a pattern that matches no string is refused by the grammar compiler; its
   * IR is NOTHING, or holds a product (a lookaround) whose emptiness only the
   * automaton shows: the IR's evaluator then gives the verdicts alone */
  bool product = pdt__has_product(&r->ir, r->full, 0);
  if (gs != PD_OK) assert_int_equal(gs, PD_ERR_SEMANTIC);
  if (gs == PD_ERR_SEMANTIC && !product)
    assert_int_equal(pd_ir_at(&r->ir, r->full)->kind, PD_IR_NOTHING);
  if (gs == PD_OK) assert_int_equal(pd_matcher_new(r->g, &r->m, NULL), PD_OK);
  if (pd_ir_at(&r->ir, r->search)->kind != PD_IR_NOTHING) {
    uint32_t root = pd_ir_rule_named(&r->ir, "root", 4);
    pd_ir_rule_define(&r->ir, root, r->search);
    r->ir.root = root;
    pd_status ss = pd_grammar_from_ir(&r->ir, NULL, NULL, &r->gs, NULL);
    if (ss != PD_ERR_SEMANTIC || !product) assert_int_equal(ss, PD_OK);
    if (ss == PD_OK) assert_int_equal(pd_matcher_new(r->gs, &r->ms, NULL), PD_OK);
  }
  return r;
}

void pdt_regex_free(pdt_regex *r) {
  if (!r) return;
  pd_matcher_free(r->m);
  pd_matcher_free(r->ms);
  pd_grammar_free(r->g);
  pd_grammar_free(r->gs);
  pd_ir_free(&r->ir);
  free(r);
}

bool pdt_regex_has_matcher(const pdt_regex *r) { return r->m && r->ms; }

static int pdt__matcher_verdict(pd_matcher *m, const char *s, size_t len) {
  pd_matcher_reset(m);
  pd_status st = pd_matcher_accept_bytes(m, (const uint8_t *)s, len, NULL, NULL);
  if (st == PD_ERR_REJECTED) return 0;
  assert_int_equal(st, PD_OK);
  return pd_matcher_is_accepting(m) ? 1 : 0;
}

int pdt_regex_verdict(pdt_regex *r, const char *s, size_t len, bool search) {
  int v = pdt_ir_matches(&r->ir, search ? r->search : r->full, s, len);
  pd_matcher *m = search ? r->ms : r->m;
  if (m) {
    int mv = pdt__matcher_verdict(m, s, len);
    if (v >= 0 && mv != v) {
      print_error("matcher says %d, IR says %d on \"%.*s\"\n", mv, v, (int)len, s);
      fail();
    }
    v = mv;
  }
  return v;
}
