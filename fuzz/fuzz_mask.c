/* fuzz_mask.c - random grammar + random walk: every filled mask, and the walk
 * over every text token with the suffix memo on, must equal brute force
 * (accept_token of each id), or the target traps. An id whose parse passes
 * max_items_per_row (4,000 here) has no brute-force answer and is skipped.
 *
 * Input: GBNF text, or a JSON Schema when it begins with "{" (no GBNF does:
 * its long string bounds are counted rules, earley.h), then optionally
 * "\n%%\n" and walk bytes (each picks the next token among the allowed ones).
 * The vocabulary is fixed and small but awkward: UTF-8 pieces, tokens crossing
 * rule boundaries, duplicates, an empty token, special / EOS / hole ids and a
 * width past the size. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "masks/cache.h"
#include "masks/masks.h"
#include "pda/grammar.h"
#include "pushdown.h"

static const char *const pd__pieces[] = {
    "a", "b", "ab", "ba", "(", ")", "()", "(a", "a)", "))", "x", "xy", "1", "12", "+", "+1",
    " ", "  ", " a", "\"", "\",", "a\"", ",", ":", "\":", "{", "}", "[", "]", "\xc3", "\xa9",
    "\xc3\xa9", "\xe2\x82", "\xac", "\xe2\x82\xac", "\n", "-", "ab", "", "<eos>", "<sp>", "hole",
    "true", "tr", "0", "e", "\\", "\\\"", "aaaa", "ab(", ")a",
    /* long enough for classes shared with a donor up to a length (classify.c) */
    "aaaaaaaaaa", "ab ab ab ab ab", "xyxyxyxyxyxyxyxyxy\"", "12121212121212121212,1",
    "\"a\",\"b\",\"a\"", "                ", "abababababababababababababab)"};
#define PD_N (sizeof pd__pieces / sizeof pd__pieces[0])
#define PD_WORDS 3 /* width 70 > 58 ids */

static pd_vocab *pd__vocab(void) {
  const uint8_t *b[PD_N];
  size_t lens[PD_N];
  uint32_t flags[PD_N] = {0};
  for (size_t i = 0; i < PD_N; i++) {
    b[i] = (const uint8_t *)pd__pieces[i];
    lens[i] = strlen(pd__pieces[i]);
    if (!strcmp(pd__pieces[i], "<eos>")) flags[i] = PD_TOKEN_EOS | PD_TOKEN_SPECIAL;
    if (!strcmp(pd__pieces[i], "<sp>")) flags[i] = PD_TOKEN_SPECIAL;
    if (!strcmp(pd__pieces[i], "hole")) flags[i] = PD_TOKEN_HOLE;
  }
  pd_vocab_options o = {.width = 70};
  pd_vocab *v = NULL;
  return pd_vocab_from_list(b, lens, flags, PD_N, &o, &v, NULL) == PD_OK ? v : NULL;
}

/* Fills and compares, and so does the walk over every text token with the
 * suffix memo on from its first candidate (the fill itself starts the memo
 * only on long walks over wide rows, which this vocabulary seldom makes; a
 * grammar with token edges, or a terminated matcher, skips that check);
 * returns how many ids are allowed, or -1 when filling failed. */
static int pd__step(pd_vocab *v, const pd_grammar *g, pd_matcher *m, uint32_t *allowed) {
  uint32_t fast[PD_WORDS + 1] = {0}, walk[PD_WORDS + 1] = {0};
  pd_mask_cache *c = NULL;
  if (pd_matcher_fill_bitmask(m, fast, PD_WORDS, NULL, NULL) != PD_OK ||
      pd_mask_cache_get(v, &c, NULL) != PD_OK || pd_masks_fill_walk(m, c, true, walk) != PD_OK)
    return -1;
  int n = 0;
  /* token edges admit text tokens the byte walk does not see (the fill adds them) */
  bool skip_walk = g->pda.n_token_edges || pd_matcher_is_terminated(m);
  for (uint32_t t = 0; t < PD_WORDS * 32; t++) {
    size_t ok = 0, len = 0;
    uint32_t flags = 0;
    const uint8_t *b;
    if (t < PD_N) {
      /* past max_items_per_row the parser, not the language, says no: the
       * bit may then be either (pushdown.h), and the id is not walked */
      if (pd_matcher_validate_tokens(m, &t, 1, &ok, NULL) != PD_OK) continue;
      pd_vocab_token(v, t, &b, &len, &flags);
    }
    if (((fast[t / 32] >> (t % 32)) & 1) != (ok == 1)) __builtin_trap();
    if (len && !flags && !skip_walk && ((walk[t / 32] >> (t % 32)) & 1) != (ok == 1))
      __builtin_trap();
    if (ok == 1) allowed[n++] = t;
  }
  return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static pd_vocab *v;
  if (!v && !(v = pd__vocab())) return 0;
  if (size > 4096) return 0;
  const uint8_t *sep = NULL;
  for (size_t i = 0; i + 4 <= size && !sep; i++)
    if (!memcmp(data + i, "\n%%\n", 4)) sep = data + i;
  size_t glen = sep ? (size_t)(sep - data) : size;
  const uint8_t *walk = sep ? sep + 4 : NULL;
  size_t n_walk = sep ? size - glen - 4 : 8;
  pd_grammar_options opts = {.max_states = 4000, .max_items_per_row = 4000, .max_rules = 500,
                             .max_repeat = 64};
  pd_grammar *g = NULL;
  bool schema = glen && data[0] == '{';
  if (schema) opts.max_repeat = 4096; /* bounds past the counted rules' threshold */
  const char *text = (const char *)data;
  pd_status st = schema ? pd_grammar_compile_json_schema(text, glen, v, &opts, &g, NULL)
                        : pd_grammar_compile_gbnf(text, glen, v, &opts, &g, NULL);
  if (st != PD_OK) return 0;
  pd_matcher *m = NULL;
  if (pd_matcher_new(g, &m, NULL) == PD_OK) {
    uint32_t allowed[PD_WORDS * 32];
    for (size_t s = 0; s < n_walk && s < (schema ? 64u : 24u); s++) {
      int n = pd__step(v, g, m, allowed);
      if (n <= 0) break;
      uint32_t t = allowed[(walk ? walk[s] : (uint8_t)(s * 7 + 3)) % (unsigned)n];
      if (pd_matcher_accept_token(m, t, NULL) != PD_OK) __builtin_trap();
    }
  }
  pd_matcher_free(m);
  pd_grammar_free(g);
  return 0;
}
