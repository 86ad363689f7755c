/* uri.h - resolving a URI reference against a base URI (RFC 3986, section 5.2,
 * strict), for the $id and $ref of JSON Schema (internal to pda/). */
#ifndef PD_PDA_URI_H
#define PD_PDA_URI_H
#include <stddef.h>

#include "pushdown.h"

/* The target URI of reference r[0..rn) against base[0..bn) (an absolute URI),
 * without its fragment, into a NUL-terminated string allocated with a; *frag
 * and *frag_n are r's fragment (after '#'; NULL when r has none). NULL when an
 * allocation failed. */
char *pd_uri_resolve(const pd_allocator *a, const char *base, size_t bn, const char *r, size_t rn,
                     const char **frag, size_t *frag_n);

/* Whether u[0..n) starts with a scheme (a letter, then letters, digits, "+",
 * "-", ".", then ":"), as an absolute URI does. */
bool pd_uri_absolute(const char *u, size_t n);

#endif
