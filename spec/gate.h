/* gate.h - the reasoning gate's byte matcher (internal; the struct is public). */
#ifndef PD_SPEC_GATE_H
#define PD_SPEC_GATE_H
#include "pushdown.h"

/* Feeds the bytes of token id to an open gate; closes it when they complete
 * the end marker. A closed gate ignores tokens. An id the vocabulary does not
 * know carries no text and breaks a partial match. */
void pd_gate_feed(pd_spec_gate *g, uint32_t id);

/* How many of tokens[0..n) the gate g (NULL = none, closed) consumes while
 * open: the tokens up to and including the one that closes it, or n when it
 * stays open (then *closes = false). g is not changed. */
size_t pd_gate_span(const pd_spec_gate *g, const uint32_t *tokens, size_t n, bool *closes);

#endif
