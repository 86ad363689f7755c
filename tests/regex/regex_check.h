/* regex_check.h - verdicts of a pattern on strings, through the IR interpreter
 * and, once a grammar compiles, through the matcher (test helper). */
#ifndef PDT_REGEX_CHECK_H
#define PDT_REGEX_CHECK_H
#include <stdbool.h>
#include <stddef.h>

#include "pushdown.h"

/* A pattern translated once (both the anchored and the search form) and a
 * compiled grammar (NULL while the grammar compiler is not built). */
typedef struct pdt_regex pdt_regex;

/* NULL with *st set when the pattern does not compile; err may be NULL. */
pdt_regex *pdt_regex_new(const char *pattern, size_t len, pd_status *st, pd_error *err);
void pdt_regex_free(pdt_regex *r);
/* 1 / 0: does the whole string match (search = false) or does the pattern
 * match somewhere in it (search = true)? -1 when the string is too long for
 * the interpreter. Fails the test when the matcher disagrees with the IR. */
int pdt_regex_verdict(pdt_regex *r, const char *s, size_t len, bool search);
/* Whether verdicts of both forms also went through the matcher. */
bool pdt_regex_has_matcher(const pdt_regex *r);

#endif
