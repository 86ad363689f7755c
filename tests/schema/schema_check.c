/* schema_check.c - what the JSON Schema unit tests share (schema_check.h). */
#include "schema_check.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "ir_match.h"
#include "pda/schema.h"

pd_grammar_options pdt_opts(void) {
  pd_grammar_options o;
  memset(&o, 0, sizeof o);
  return o;
}

/* Does the grammar of schema (compiled with o) accept text? Also checks the
 * IR recognizer agrees. */
bool pdt_accepts_o(const char *schema, const pd_grammar_options *o, const char *text) {
  pd_grammar *g = NULL;
  pd_error err;
  pd_status st = pd_grammar_compile_json_schema(schema, strlen(schema), NULL, o, &g, &err);
  if (st) fail_msg("compile %s: %s", schema, err.message);
  pd_matcher *m = NULL;
  assert_int_equal(pd_matcher_new(g, &m, NULL), PD_OK);
  size_t len = strlen(text);
  bool ok = pd_matcher_accept_bytes(m, (const uint8_t *)text, len, NULL, NULL) == PD_OK &&
            pd_matcher_is_accepting(m);
  pd_matcher_free(m);
  pd_grammar_free(g);
  pd_ir ir;
  pd_ir_init(&ir, NULL);
  char *relaxed = NULL;
  assert_int_equal(pd_schema_to_ir(schema, strlen(schema), false, o, &ir, &relaxed, NULL), PD_OK);
  if (pdt_ir_match(&ir, text, len) != ok) fail_msg("IR and grammar disagree on %s", text);
  pd__free(NULL, relaxed);
  pd_ir_free(&ir);
  return ok;
}

bool pdt_accepts(const char *schema, const char *text) {
  pd_grammar_options o = pdt_opts();
  return pdt_accepts_o(schema, &o, text);
}

/* The compile is refused (PD_ERR_UNSUPPORTED). */
void pdt_refused_any(const char *schema) {
  pd_grammar *g = NULL;
  assert_int_equal(pd_grammar_compile_json_schema(schema, strlen(schema), NULL, NULL, &g, NULL),
                   PD_ERR_UNSUPPORTED);
}

/* A compile that must fail with code, its message naming what. */
void pdt_refused(const char *schema, pd_status code, const char *what) {
  pd_grammar *g = NULL;
  pd_error err;
  assert_int_equal(pd_grammar_compile_json_schema(schema, strlen(schema), NULL, NULL, &g, &err),
                   code);
  assert_null(g);
  if (!strstr(err.message, what)) fail_msg("message '%s' lacks '%s'", err.message, what);
}
