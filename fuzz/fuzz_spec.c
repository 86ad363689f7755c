/* fuzz_spec.c - the batch step and the matcher's history operations against
 * replay on a fresh matcher.
 *
 * The input is a program over one matcher (a small vocabulary, a grammar with
 * recursion and ambiguity); its first byte, when odd, puts a reasoning gate
 * "</t>" in front. Each op byte then picks:
 *   0 fill: k drafts (next bytes); rows before the gate closes must be all
 *     ones (the oracle searches the reasoning text), every other row must
 *     equal a fresh matcher fed the history and the drafts after the gate,
 *     rows past the cut must be zero, and the matcher must be unchanged
 *   1 advance by the last fill's drafts: accepted <= valid, next allowed
 *   2 rollback n (matcher tokens only)    3 fork
 * A broken invariant traps. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pushdown.h"

/* ids: 0 a, 1 b, 2 [, 3 ], 4 ab, 5 [a, 6 ], 7 </t>, 8 </, 9 t>, 10 eos */
static const char *const pdf_toks[] = {"a", "b", "[", "]", "ab", "[a", "],", "</t>", "</", "t>",
                                       "</s>"};
enum { PDF_V = 11, PDF_EOS = 10, PDF_MAX_HIST = 64, PDF_MAX_K = 7 };
#define PDF_GRAMMAR "root ::= item (\",\" item)*\nitem ::= \"a\" | \"b\"+ | \"[\" root? \"]\"\n"

#define PDF_CHECK(x) \
  do {               \
    if (!(x)) __builtin_trap(); \
  } while (0)

typedef struct pdf_state {
  pd_vocab *v;
  pd_grammar *g;
  pd_matcher *m;
  uint32_t hist[PDF_MAX_HIST + PDF_MAX_K + 1]; /* tokens given to the matcher */
  size_t n_hist;
  uint32_t drafts[PDF_MAX_K];
  size_t k, valid;
  pd_spec_gate gate;
  bool gated;
  char text[PDF_MAX_HIST * 8]; /* the output while the gate was open */
  size_t n_text;
} pdf_state;

static bool pdf__contains_marker(const char *s, size_t n) {
  for (size_t i = 0; i + 4 <= n; i++)
    if (!memcmp(s + i, "</t>", 4)) return true;
  return false;
}

/* The oracle of the gate: of tokens[0..n), how many the gate consumes (up to
 * the one after which the text contains the marker), and whether it closes. */
static size_t pdf__gate_oracle(const pdf_state *s, const uint32_t *tokens, size_t n, bool *closes) {
  char buf[sizeof s->text + (PDF_MAX_K + 1) * 8];
  size_t len = s->n_text;
  *closes = !s->gated || s->gate.closed;
  if (*closes) return 0;
  memcpy(buf, s->text, len);
  for (size_t i = 0; i < n; i++) {
    size_t tl = strlen(pdf_toks[tokens[i]]);
    memcpy(buf + len, pdf_toks[tokens[i]], tl);
    len += tl;
    if (pdf__contains_marker(buf, len)) {
      *closes = true;
      return i + 1;
    }
  }
  return n;
}

static bool pdf__setup(pdf_state *s) {
  const uint8_t *t[PDF_V];
  size_t lens[PDF_V];
  uint32_t flags[PDF_V] = {0};
  for (int i = 0; i < PDF_V; i++) {
    t[i] = (const uint8_t *)pdf_toks[i];
    lens[i] = strlen(pdf_toks[i]);
  }
  flags[PDF_EOS] = PD_TOKEN_EOS;
  memset(s, 0, sizeof *s);
  if (pd_vocab_from_list(t, lens, flags, PDF_V, NULL, &s->v, NULL) != PD_OK) return false;
  if (pd_grammar_compile_gbnf(PDF_GRAMMAR, strlen(PDF_GRAMMAR), s->v, NULL, &s->g, NULL) != PD_OK)
    return false;
  return pd_matcher_new(s->g, &s->m, NULL) == PD_OK;
}

/* Mask of a fresh matcher after hist then extra[0..n), 0 when rejected. */
static uint32_t pdf__replay(const pdf_state *s, const uint32_t *extra, size_t n) {
  pd_matcher *m;
  uint32_t w = 0;
  PDF_CHECK(pd_matcher_new(s->g, &m, NULL) == PD_OK);
  bool ok = true;
  for (size_t i = 0; ok && i < s->n_hist; i++)
    ok = pd_matcher_accept_token(m, s->hist[i], NULL) == PD_OK;
  PDF_CHECK(ok);
  for (size_t i = 0; ok && i < n; i++) ok = pd_matcher_accept_token(m, extra[i], NULL) == PD_OK;
  if (ok) PDF_CHECK(pd_matcher_fill_bitmask(m, &w, 1, NULL, NULL) == PD_OK);
  pd_matcher_free(m);
  return w;
}

static void pdf__check_same(const pdf_state *s) {
  uint32_t w;
  PDF_CHECK(pd_matcher_num_tokens(s->m) == s->n_hist);
  PDF_CHECK(pd_matcher_fill_bitmask(s->m, &w, 1, NULL, NULL) == PD_OK);
  PDF_CHECK(w == pdf__replay(s, NULL, 0));
}

static size_t pdf__fill(pdf_state *s, const uint8_t *in, size_t n) {
  size_t used = 0;
  s->k = n ? in[used++] % (PDF_MAX_K + 1) : 0;
  for (size_t i = 0; i < s->k; i++) s->drafts[i] = used < n ? in[used++] % PDF_V : 0;
  uint32_t rows[PDF_MAX_K + 1];
  size_t offs[2], unc[PDF_MAX_K + 1];
  pd_spec_result res = {rows, 1, offs, &s->valid, unc, 0};
  pd_spec_request req = {s->m, s->drafts, s->k, s->gated ? &s->gate : NULL};
  PDF_CHECK(pd_spec_fill(&req, 1, 1, &res, NULL) == PD_OK);
  bool closes;
  size_t o = pdf__gate_oracle(s, s->drafts, s->k, &closes);
  if (!closes) o = s->k + 1;
  PDF_CHECK(offs[0] == 0 && offs[1] == s->k + 1 && res.n_unconstrained == o && s->valid <= s->k);
  for (size_t i = 0; i < o; i++) PDF_CHECK(unc[i] == i && rows[i] == UINT32_MAX);
  for (size_t i = o; i <= s->k; i++)
    PDF_CHECK(rows[i] == (i <= s->valid ? pdf__replay(s, s->drafts + o, i - o) : 0));
  if (s->valid < s->k) PDF_CHECK(!(rows[s->valid] >> s->drafts[s->valid] & 1));
  pdf__check_same(s);
  return used;
}

/* Records tokens[0..n) as produced: the first g (the gate's share) as text,
 * the rest as history. */
static void pdf__produce(pdf_state *s, const uint32_t *tokens, size_t n, size_t g) {
  for (size_t i = 0; i < g; i++) {
    size_t tl = strlen(pdf_toks[tokens[i]]);
    memcpy(s->text + s->n_text, pdf_toks[tokens[i]], tl);
    s->n_text += tl;
  }
  memcpy(s->hist + s->n_hist, tokens + g, (n - g) * sizeof *tokens);
  s->n_hist += n - g;
}

static size_t pdf__advance(pdf_state *s, const uint8_t *in, size_t n) {
  bool full = s->n_hist + s->valid + 1 > PDF_MAX_HIST ||
              s->n_text + 8 * (s->valid + 1) > sizeof s->text;
  if (!n || full) return n ? 1 : 0;
  uint32_t tokens[PDF_MAX_K + 1];
  size_t acc = s->valid ? in[0] % (s->valid + 1) : 0;
  memcpy(tokens, s->drafts, acc * sizeof *tokens);
  bool closes;
  size_t g = pdf__gate_oracle(s, tokens, acc, &closes);
  uint32_t w = closes ? pdf__replay(s, tokens + g, acc - g) : UINT32_MAX;
  if (!w) return 1;
  uint32_t next = in[0] % PDF_V;
  while (!(w >> next & 1)) next = (next + 1) % PDF_V;
  tokens[acc] = next;
  g = pdf__gate_oracle(s, tokens, acc + 1, &closes);
  pd_spec_request req = {s->m, s->drafts, s->k, s->gated ? &s->gate : NULL};
  PDF_CHECK(pd_spec_advance(&req, 1, &acc, &next, NULL) == PD_OK);
  pdf__produce(s, tokens, acc + 1, g);
  PDF_CHECK(!s->gated || s->gate.closed == pdf__contains_marker(s->text, s->n_text));
  s->k = s->valid = 0; /* the drafts were used up */
  return 1;
}

static void pdf__run(pdf_state *s, const uint8_t *in, size_t n) {
  for (size_t i = 0; i < n;) {
    uint8_t op = in[i++] % 4;
    if (op == 0) i += pdf__fill(s, in + i, n - i);
    else if (op == 1) i += pdf__advance(s, in + i, n - i);
    else if (op == 2 && i < n) {
      size_t back = in[i++] % (s->n_hist + 1);
      PDF_CHECK(pd_matcher_rollback(s->m, back, NULL) == PD_OK);
      s->n_hist -= back;
      s->k = s->valid = 0;
    } else if (op == 3) {
      pd_matcher *f;
      PDF_CHECK(pd_matcher_fork(s->m, &f, NULL) == PD_OK);
      pd_matcher_free(s->m);
      s->m = f;
    }
    pdf__check_same(s);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static pdf_state s;
  if (size && pdf__setup(&s)) {
    s.gated = data[0] & 1;
    pd_spec_gate_init(&s.gate, s.v, "</t>");
    pdf__run(&s, data + 1, size > 4096 ? 4095 : size - 1);
  }
  pd_matcher_free(s.m);
  pd_grammar_free(s.g);
  pd_vocab_free(s.v);
  return 0;
}
