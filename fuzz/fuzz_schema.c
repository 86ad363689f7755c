/* fuzz_schema.c - the JSON Schema compiler on arbitrary bytes.
 *
 * Input: one option byte (bit 0 lenient, 1 strict, 2 any_order, 3-4 the
 * whitespace mode, 5 max_ws_run = 2, 6 indent, 7 the schema text is also a
 * schema_doc at http://f.x/d.json), the schema text, and optionally a NUL
 * byte followed by an instance to run through a matcher. Every schema must end
 * in a status (never a crash, hang or leak). Invariants checked: a schema that
 * compiles strictly also compiles leniently with nothing relaxed, and a
 * lenient compile that relaxed nothing means the strict compile succeeds. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pushdown.h"

static pd_status fuzz_compile(const char *s, size_t n, const pd_grammar_options *o,
                              pd_grammar **g) {
  *g = NULL;
  return pd_grammar_compile_json_schema(s, n, NULL, o, g, NULL);
}

static void fuzz_run(pd_grammar *g, const uint8_t *in, size_t n) {
  pd_matcher *m = NULL;
  if (pd_matcher_new(g, &m, NULL) != PD_OK) return;
  size_t ok = 0;
  if (pd_matcher_accept_bytes(m, in, n, &ok, NULL) != PD_OK && ok < n) {
    /* the prefix that was accepted must be accepted on its own */
    pd_matcher_reset(m);
    if (pd_matcher_accept_bytes(m, in, ok, NULL, NULL) != PD_OK) abort();
  }
  (void)pd_matcher_is_accepting(m);
  pd_matcher_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1 || size > 4096) return 0;
  uint8_t flags = data[0];
  const char *schema = (const char *)data + 1;
  size_t slen = size - 1, ilen = 0;
  const uint8_t *inst = memchr(schema, 0, slen);
  if (inst) {
    ilen = slen - (size_t)(inst - (const uint8_t *)schema) - 1;
    slen = (size_t)(inst - (const uint8_t *)schema);
    inst++;
    if (ilen > 64) ilen = 64;
  }
  pd_grammar_options o;
  memset(&o, 0, sizeof o);
  o.strict = flags & 2;
  o.any_order = flags & 4;
  o.ws_mode = (pd_ws_mode)((flags >> 3) % 3);
  o.max_ws_run = flags & 32 ? 2 : 0;
  o.indent = o.ws_mode == PD_WS_FIXED && (flags & 64) ? 2 : -1;
  o.max_rules = 20000; /* keeps each input fast */
  pd_schema_doc doc = {"http://f.x/d.json", schema, slen};
  if (flags & 128) o.schema_docs = &doc, o.n_schema_docs = 1;
  pd_grammar *strict, *lenient;
  pd_status s1 = fuzz_compile(schema, slen, &o, &strict);
  o.lenient = true;
  pd_status s2 = fuzz_compile(schema, slen, &o, &lenient);
  if (s1 == PD_OK && (s2 != PD_OK || pd_grammar_relaxed(lenient)[0] != '\0')) abort();
  if (s2 == PD_OK && pd_grammar_relaxed(lenient)[0] == '\0' && s1 != PD_OK && s1 != PD_ERR_LIMIT &&
      s1 != PD_ERR_NOMEM)
    abort();
  if (strict && inst) fuzz_run(strict, inst, ilen);
  if (lenient && inst && flags & 1) fuzz_run(lenient, inst, ilen);
  pd_grammar_free(strict);
  pd_grammar_free(lenient);
  return 0;
}
