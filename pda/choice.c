/* choice.c - the `choice` constraint as a trie-shaped IR expression.
 *
 * The strings are sorted; a trie node is then a range [lo, hi) of the sorted
 * strings that share their first d bytes. Its expression is
 *   ( "" if some string ends at d )  |  for each run of strings with the same
 *   byte at d: label (their common bytes from d) followed by the child node
 * so each alternative begins with a different byte. */
#include "choice.h"

#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "masks/vocab.h"
#include "pda/grammar.h"

#define PD__CHOICE_NEST 16 /* trie levels inlined in one expression */

typedef struct pd__str {
  const uint8_t *s;
  size_t len;
} pd__str;

typedef struct pd__work {
  size_t lo, hi, d;
  uint32_t rule;
} pd__work;

typedef struct pd__trie {
  pd_ir *ir;
  pd__str *strs;
  PD_ARRAY(pd__work) work; /* nodes deeper than the nesting bound, built later */
} pd__trie;

static int pd__cmp_str(const void *a, const void *b) {
  const pd__str *x = a, *y = b;
  size_t n = x->len < y->len ? x->len : y->len;
  int c = n ? memcmp(x->s, y->s, n) : 0;
  if (c) return c;
  return x->len < y->len ? -1 : x->len > y->len;
}

/* Common prefix length of strings a and b from byte d. */
static size_t pd__lcp(const pd__str *a, const pd__str *b, size_t d) {
  size_t k = d;
  while (k < a->len && k < b->len && a->s[k] == b->s[k]) k++;
  return k - d;
}

static uint32_t pd__node(pd__trie *t, size_t lo, size_t hi, size_t d, int nest);

/* The child below byte d for strings [lo, hi) (at least two, distinct). */
static uint32_t pd__child(pd__trie *t, size_t lo, size_t hi, size_t d, int nest) {
  if (nest < PD__CHOICE_NEST) return pd__node(t, lo, hi, d, nest + 1);
  uint32_t rule = pd_ir_rule_fresh(t->ir, "choice");
  pd__work w = {lo, hi, d, rule};
  if (rule == PD_IR_NONE || !pd_array_push(t->ir->alloc, &t->work, w)) {
    t->ir->oom = true;
    return PD_IR_NONE;
  }
  return pd_ir_ref(t->ir, rule);
}

static uint32_t pd__node(pd__trie *t, size_t lo, size_t hi, size_t d, int nest) {
  uint32_t alts[257];
  size_t n = 0, i = lo;
  if (t->strs[i].len == d) {
    alts[n++] = pd_ir_empty(t->ir);
    i++;
  }
  while (i < hi) {
    size_t j = i + 1;
    while (j < hi && t->strs[j].s[d] == t->strs[i].s[d]) j++;
    const pd__str *first = &t->strs[i];
    if (j - i == 1) {
      alts[n++] = pd_ir_bytes(t->ir, first->s + d, first->len - d);
    } else {
      size_t k = pd__lcp(first, &t->strs[j - 1], d);
      uint32_t label = pd_ir_bytes(t->ir, first->s + d, k);
      alts[n++] = pd_ir_seq2(t->ir, label, pd__child(t, i, j, d + k, nest));
    }
    i = j;
  }
  return pd_ir_alt(t->ir, alts, n);
}

/* Sorted copies of the string views, duplicates removed; *m gets the count. */
static pd_status pd__sorted(const pd_allocator *a, const char *const *choices, const size_t *lens,
                            size_t n, pd__str **out, size_t *m, pd_error *err) {
  pd__str *strs = pd__calloc(a, n, sizeof *strs);
  if (!strs) return pd__nomem(err);
  for (size_t i = 0; i < n; i++) {
    size_t len = lens ? lens[i] : choices[i] ? strlen(choices[i]) : 0;
    if (!choices[i] && len) {
      pd__free(a, strs);
      return pd__fail(err, PD_ERR_ARG, "choice %zu is NULL", i);
    }
    strs[i] = (pd__str){(const uint8_t *)(choices[i] ? choices[i] : ""), len};
  }
  qsort(strs, n, sizeof *strs, pd__cmp_str);
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (k == 0 || pd__cmp_str(&strs[k - 1], &strs[i]) != 0) strs[k++] = strs[i];
  *out = strs;
  *m = k;
  return PD_OK;
}

pd_status pd_choice_to_ir(pd_ir *ir, const char *const *choices, const size_t *lens, size_t n,
                          uint32_t *node, pd_error *err) {
  if (!ir || !node || (n && !choices)) return pd__fail(err, PD_ERR_ARG, "choice: NULL argument");
  if (n == 0) return pd__fail(err, PD_ERR_ARG, "choice: no strings to choose from");
  pd__trie t = {ir, NULL, {0}};
  size_t m = 0;
  pd_status st = pd__sorted(ir->alloc, choices, lens, n, &t.strs, &m, err);
  if (st != PD_OK) return st;
  uint32_t result = pd__node(&t, 0, m, 0, 0);
  while (t.work.len && !ir->oom) {
    pd__work w = t.work.data[--t.work.len];
    pd_ir_rule_define(ir, w.rule, pd__node(&t, w.lo, w.hi, w.d, 0));
  }
  pd_array_free(ir->alloc, &t.work);
  pd__free(ir->alloc, t.strs);
  if (ir->oom || result == PD_IR_NONE) {
    ir->oom = true;
    return pd__nomem(err);
  }
  *node = result;
  return PD_OK;
}

pd_status pd_grammar_compile_choice(const char *const *choices, const size_t *lens, size_t n,
                                    pd_vocab *vocab, const pd_grammar_options *opts,
                                    pd_grammar **out, pd_error *err) {
  if (!out) return pd__fail(err, PD_ERR_ARG, "pd_grammar_compile_choice: out is NULL");
  *out = NULL;
  pd_ir ir;
  pd_ir_init(&ir, opts && opts->allocator ? opts->allocator : vocab ? vocab->alloc : NULL);
  uint32_t node = PD_IR_NONE;
  pd_status st = pd_choice_to_ir(&ir, choices, lens, n, &node, err);
  if (st == PD_OK) {
    pd_ir_set_root(&ir, node);
    st = ir.oom ? pd__nomem(err) : pd_grammar_from_ir(&ir, vocab, opts, out, err);
  }
  pd_ir_free(&ir);
  return st;
}
