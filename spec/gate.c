/* gate.c - the reasoning gate: a streaming search for the end marker.
 *
 * matched = the longest prefix of end that is a suffix of the output so far.
 * On a mismatch it falls back to the longest shorter such prefix (the naive
 * form of Knuth-Morris-Pratt's failure function: markers are a few bytes). */
#include "gate.h"

#include <string.h>

void pd_spec_gate_init(pd_spec_gate *g, const pd_vocab *vocab, const char *end) {
  if (!g) return;
  size_t len = end ? strlen(end) : 0;
  *g = (pd_spec_gate){vocab, (const uint8_t *)end, len, 0, len == 0};
}

/* The longest k < matched with end[0..k) == end[matched-k .. matched) whose
 * next byte is b, plus one for b; 0 when none. */
static size_t pd__gate_fallback(const uint8_t *end, size_t matched, uint8_t b) {
  for (size_t k = matched; k-- > 0;)
    if (end[k] == b && !memcmp(end, end + matched - k, k)) return k + 1;
  return 0;
}

void pd_gate_feed(pd_spec_gate *g, uint32_t id) {
  if (g->closed) return;
  const uint8_t *bytes = NULL;
  size_t len = 0;
  uint32_t flags = 0;
  if (!g->vocab || pd_vocab_token(g->vocab, id, &bytes, &len, &flags) != PD_OK) {
    g->matched = 0;
    return;
  }
  for (size_t i = 0; i < len; i++) {
    if (g->end[g->matched] == bytes[i]) g->matched++;
    else g->matched = pd__gate_fallback(g->end, g->matched, bytes[i]);
    if (g->matched == g->end_len) {
      g->closed = true;
      return;
    }
  }
}

size_t pd_gate_span(const pd_spec_gate *g, const uint32_t *tokens, size_t n, bool *closes) {
  *closes = true;
  if (!g || g->closed) return 0;
  pd_spec_gate sim = *g;
  for (size_t i = 0; i < n; i++) {
    pd_gate_feed(&sim, tokens[i]);
    if (sim.closed) return i + 1;
  }
  *closes = false;
  return n;
}
