/* fuzz_gbnf.c - the GBNF front end on arbitrary bytes.
 *
 * Input: grammar text, optionally followed by a NUL byte and up to 16 bytes of
 * sample input. Every grammar must end in a status (never a crash, hang or
 * leak). One that compiles also runs a matcher over the sample bytes; at each
 * step the bitmask must agree with accepting each token one by one (the
 * brute-force definition; checked at the first steps), and rollback must
 * restore the state. With PD_FUZZ_PARSE_ONLY set, only the front end runs
 * (parse and IR dump), for campaigns aimed at the parser alone. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pda/gbnf.h"
#include "pushdown.h"

#define FUZZ_SPECIAL 8u
#define FUZZ_VOCAB (FUZZ_SPECIAL + 256u + 4u)

/* Specials <|s0|>..<|s7|> (7 is the stop token), every single byte, and a few
 * multi-byte tokens; built once, like a serving engine's vocabulary. */
static pd_vocab *fuzz_vocab(void) {
  static pd_vocab *v;
  static char special[FUZZ_SPECIAL][8];
  static uint8_t bytes[256];
  static const char *multi[4] = {"ab", "\"a\"", "root", "\xC3\xA9"};
  if (v) return v;
  const uint8_t *tokens[FUZZ_VOCAB];
  size_t lens[FUZZ_VOCAB];
  uint32_t flags[FUZZ_VOCAB];
  for (uint32_t i = 0; i < FUZZ_VOCAB; i++) {
    if (i < FUZZ_SPECIAL) {
      memcpy(special[i], "<|s0|>", 7);
      special[i][3] = (char)('0' + i);
      tokens[i] = (const uint8_t *)special[i];
      lens[i] = 6;
      flags[i] = i == FUZZ_SPECIAL - 1 ? PD_TOKEN_EOS : PD_TOKEN_SPECIAL;
    } else if (i < FUZZ_SPECIAL + 256) {
      bytes[i - FUZZ_SPECIAL] = (uint8_t)(i - FUZZ_SPECIAL);
      tokens[i] = &bytes[i - FUZZ_SPECIAL];
      lens[i] = 1;
      flags[i] = PD_TOKEN_NORMAL;
    } else {
      tokens[i] = (const uint8_t *)multi[i - FUZZ_SPECIAL - 256];
      lens[i] = strlen(multi[i - FUZZ_SPECIAL - 256]);
      flags[i] = PD_TOKEN_NORMAL;
    }
  }
  if (pd_vocab_from_list(tokens, lens, flags, FUZZ_VOCAB, NULL, &v, NULL) != PD_OK) abort();
  return v;
}

/* The mask must say exactly which tokens accept_token takes. */
static void check_mask(pd_matcher *m) {
  uint32_t words[(FUZZ_VOCAB + 31) / 32];
  if (pd_matcher_fill_bitmask(m, words, sizeof words / sizeof words[0], NULL, NULL) != PD_OK)
    return; /* a limit: a status is a fine answer */
  for (uint32_t t = 0; t < FUZZ_VOCAB; t++) {
    bool allowed = words[t / 32] >> (t % 32) & 1;
    pd_status st = pd_matcher_accept_token(m, t, NULL);
    if (st == PD_OK && pd_matcher_rollback(m, 1, NULL) != PD_OK) abort();
    if (st != PD_OK && st != PD_ERR_REJECTED) continue; /* limit or memory */
    if (allowed != (st == PD_OK)) abort();
  }
}

static void run_matcher(const pd_grammar *g, const uint8_t *in, size_t n) {
  pd_matcher *m = NULL;
  if (pd_matcher_new(g, &m, NULL) != PD_OK) return;
  for (size_t i = 0; i < n; i++) {
    if (i < 4) check_mask(m); /* brute force costs a vocabulary of accepts: sample it */
    if (pd_matcher_accept_token(m, FUZZ_SPECIAL + in[i], NULL) != PD_OK) break;
  }
  (void)pd_matcher_is_accepting(m);
  uint8_t forced[16];
  size_t len;
  (void)pd_matcher_forced_bytes(m, forced, sizeof forced, &len, NULL);
  pd_matcher_free(m);
}

/* Parse to IR and dump it: the front end alone. */
static void parse_only(const uint8_t *data, size_t len) {
  pd_ir ir;
  pd_ir_init(&ir, NULL);
  pd_error err;
  pd_status st = pd_gbnf_to_ir(&ir, (const char *)data, len, fuzz_vocab(), &err);
  if (st != PD_OK && (err.code != st || err.message[0] == '\0')) abort();
  char *dump = NULL;
  if (st == PD_OK && pd_ir_dump(&ir, &dump) == PD_OK) pd__free(ir.alloc, dump);
  pd_ir_free(&ir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int only = -1;
  if (only < 0) only = getenv("PD_FUZZ_PARSE_ONLY") != NULL;
  if (only) {
    parse_only(data, size);
    return 0;
  }
  const uint8_t *nul = memchr(data, 0, size);
  size_t glen = nul ? (size_t)(nul - data) : size;
  const uint8_t *in = nul ? nul + 1 : data;
  size_t n = nul ? size - glen - 1 : 0;
  if (n > 16) n = 16;
  /* small limits keep every input fast; exceeding one is a status */
  pd_grammar_options o = {.max_states = 20000, .max_items_per_row = 4000, .max_repeat = 200,
                          .max_rules = 2000};
  pd_grammar *g = NULL;
  pd_error err;
  if (pd_grammar_compile_gbnf((const char *)data, glen, fuzz_vocab(), &o, &g, &err) == PD_OK) {
    run_matcher(g, in, n);
    pd_grammar_free(g);
  } else if (err.message[0] == '\0' || err.code == PD_OK) {
    abort(); /* a failure must say why */
  }
  return 0;
}
