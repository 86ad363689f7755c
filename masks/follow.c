/* follow.c - FOLLOW1 byte sets of the rules (see follow.h), by fixed points. */
#include "follow.h"

#include <string.h>

#include "base/alloc.h"
#include "base/error.h"

static bool pd__or8(uint32_t *dst, const uint32_t *src) {
  bool changed = false;
  for (int i = 0; i < 8; i++) {
    uint32_t x = dst[i] | src[i];
    changed |= x != dst[i];
    dst[i] = x;
  }
  return changed;
}

/* Sets bits lo..hi a word at a time (a JSON character's ranges span a hundred
 * bytes, and setting them one by one was a third of this file's time). */
static void pd__range(uint32_t *set, unsigned lo, unsigned hi) {
  for (unsigned w = lo / 32; w <= hi / 32; w++) {
    uint32_t from = w == lo / 32 ? ~0u << (lo % 32) : ~0u;
    uint32_t to = w == hi / 32 ? ~0u >> (31 - hi % 32) : ~0u;
    set[w] |= from & to;
  }
}

/* nullable_to_end[s]: s reaches a final state of its rule consuming nothing. */
static void pd__nullable_to_end(const pd_pda *p, uint8_t *ne) {
  const pd_pda_state *st = pd_pda_states(p);
  const pd_pda_edge *ed = pd_pda_edges(p);
  const pd_pda_rule *ru = pd_pda_rules(p);
  for (uint32_t s = 0; s < p->n_states; s++) ne[s] = (st[s].flags & PD_STATE_FINAL) != 0;
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t s = 0; s < p->n_states; s++) {
      const pd_pda_edge *e = ed + st[s].edges + st[s].n_byte;
      for (uint32_t c = 0; c < st[s].n_call && !ne[s]; c++)
        if ((ru[e[c].arg].flags & PD_RULE_NULLABLE) && ne[e[c].to]) ne[s] = 1, changed = true;
    }
  }
}

static void pd__first(const pd_pda *p, uint32_t *first) {
  const pd_pda_state *st = pd_pda_states(p);
  const pd_pda_edge *ed = pd_pda_edges(p);
  const pd_pda_rule *ru = pd_pda_rules(p);
  for (uint32_t s = 0; s < p->n_states; s++)
    for (uint32_t i = 0; i < st[s].n_byte; i++)
      pd__range(first + 8 * (size_t)s, ed[st[s].edges + i].lo, ed[st[s].edges + i].hi);
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t s = 0; s < p->n_states; s++) {
      const pd_pda_edge *e = ed + st[s].edges + st[s].n_byte;
      for (uint32_t c = 0; c < st[s].n_call; c++) {
        changed |= pd__or8(first + 8 * (size_t)s, first + 8 * (size_t)ru[e[c].arg].start);
        if (ru[e[c].arg].flags & PD_RULE_NULLABLE)
          changed |= pd__or8(first + 8 * (size_t)s, first + 8 * (size_t)e[c].to);
      }
    }
  }
}

static void pd__follow(const pd_pda *p, const uint32_t *first, const uint8_t *ne,
                       uint32_t *follow) {
  const pd_pda_state *st = pd_pda_states(p);
  const pd_pda_edge *ed = pd_pda_edges(p);
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t s = 0; s < p->n_states; s++) {
      const pd_pda_edge *e = ed + st[s].edges + st[s].n_byte;
      for (uint32_t c = 0; c < st[s].n_call; c++) {
        uint32_t *f = follow + 8 * (size_t)e[c].arg;
        changed |= pd__or8(f, first + 8 * (size_t)e[c].to);
        if (ne[e[c].to]) changed |= pd__or8(f, follow + 8 * (size_t)st[s].rule);
      }
    }
  }
}

pd_status pd_follow_build(const pd_pda *p, const pd_allocator *a, uint32_t **out, pd_error *err) {
  *out = pd__calloc(a, (size_t)(p->n_rules ? p->n_rules : 1) * 8, sizeof **out);
  if (!*out) return pd__nomem(err);
  if (p->n_states > PD_FOLLOW_MAX_STATES) {
    memset(*out, 0xff, (size_t)p->n_rules * 8 * sizeof **out);
    return PD_OK;
  }
  uint32_t *first = pd__calloc(a, (size_t)(p->n_states ? p->n_states : 1) * 8, sizeof *first);
  uint8_t *ne = pd__calloc(a, p->n_states ? p->n_states : 1, 1);
  if (!first || !ne) {
    pd__free(a, first);
    pd__free(a, ne);
    pd__free(a, *out);
    *out = NULL;
    return pd__nomem(err);
  }
  pd__nullable_to_end(p, ne);
  pd__first(p, first);
  pd__follow(p, first, ne, *out);
  pd__free(a, first);
  pd__free(a, ne);
  return PD_OK;
}
