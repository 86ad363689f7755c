/* fuzz_regex.c - arbitrary bytes as an ECMA-262 pattern. The translation
 * must return a status, never crash; when the pattern compiles, the matcher
 * runs over a few strings taken from the input, byte by byte and whole, and
 * the two ways must agree. The first byte picks search vs anchored, a
 * target, and a length bound for pd_regex_to_ir_len. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pda/ir.h"
#include "pda/regex.h"
#include "pushdown.h"

/* A target that writes each character as a backslash and its class size. */
static uint32_t pdf_target(pd_ir *ir, const uint32_t *pairs, size_t n_pairs, void *ud) {
  (void)ud;
  uint8_t w[2] = {'\\', (uint8_t)('a' + n_pairs % 26)};
  return pd_ir_alt2(ir, pd_ir_class(ir, pairs, n_pairs, false), pd_ir_bytes(ir, w, 2));
}

/* Feeds s whole and byte by byte; the verdicts must agree. */
static void pdf_run(pd_matcher *m, const uint8_t *s, size_t len) {
  pd_matcher_reset(m);
  size_t n_ok = 0;
  pd_status whole = pd_matcher_accept_bytes(m, s, len, &n_ok, NULL);
  bool whole_acc = whole == PD_OK && pd_matcher_is_accepting(m);
  pd_matcher_reset(m);
  size_t i = 0;
  while (i < len && pd_matcher_accept_bytes(m, s + i, 1, NULL, NULL) == PD_OK) i++;
  bool bytes_acc = i == len && pd_matcher_is_accepting(m);
  if ((whole == PD_OK) != (i == len) || whole_acc != bytes_acc || (whole != PD_OK && n_ok != i))
    abort();
  uint8_t forced[16];
  size_t n_forced;
  pd_matcher_forced_bytes(m, forced, sizeof forced, &n_forced, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1 || size > 512) return 0;
  uint8_t mode = data[0];
  const char *pattern = (const char *)data + 1;
  size_t len = size - 1;
  pd_grammar_options opts = {0};
  opts.max_repeat = 40;    /* keeps each run fast; the limit paths are exercised too */
  opts.max_states = 20000; /* x+.{90} determinizes into ~n^2 states: slow, not wrong */
  pd_ir ir;
  pd_ir_init(&ir, NULL);
  uint32_t node;
  pd_regex_target t = {pdf_target, NULL};
  pd_regex_to_ir(&ir, pattern, len, mode & 1 ? &t : NULL, mode & 2, &opts, &node, NULL);
  uint32_t min = mode >> 2 & 7, max = mode >> 5 ? min + (mode >> 5) : PD_IR_INF;
  pd_regex_to_ir_len(&ir, pattern, len, mode & 1 ? &t : NULL, mode & 2, min, max, &opts, &node,
                     NULL);
  pd_ir_free(&ir);
  pd_grammar *g = NULL;
  if (pd_grammar_compile_regex(pattern, len, NULL, &opts, &g, NULL) != PD_OK) return 0;
  pd_matcher *m = NULL;
  if (pd_matcher_new(g, &m, NULL) == PD_OK) {
    pdf_run(m, data + 1, len);
    pdf_run(m, data + 1, len / 2);
    size_t cut = mode % (len + 1);
    pdf_run(m, data + 1 + cut, len - cut);
    pdf_run(m, (const uint8_t *)"", 0);
    pd_matcher_free(m);
  }
  pd_grammar_free(g);
  return 0;
}
