/* schema_check.h - what the JSON Schema unit tests share: compile a schema,
 * run a text through its grammar and through the IR recognizer (they must
 * agree), and expect a refusal. */
#ifndef PDT_SCHEMA_CHECK_H
#define PDT_SCHEMA_CHECK_H
#include "support.h"

/* Zeroed options (the defaults). */
pd_grammar_options pdt_opts(void);
/* Does the grammar of schema (compiled with o) accept text? Fails the test
 * when the compile fails or the IR recognizer disagrees. */
bool pdt_accepts_o(const char *schema, const pd_grammar_options *o, const char *text);
bool pdt_accepts(const char *schema, const char *text);
/* The compile is refused with PD_ERR_UNSUPPORTED. */
void pdt_refused_any(const char *schema);
/* The compile fails with code, its message naming what. */
void pdt_refused(const char *schema, pd_status code, const char *what);

#define ACCEPT(s, t) \
  if (!pdt_accepts(s, t)) fail_msg("%s should accept %s", s, t)
#define REJECT(s, t) \
  if (pdt_accepts(s, t)) fail_msg("%s should reject %s", s, t)

#endif
