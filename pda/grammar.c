/* grammar.c - the compiled grammar: IR -> automata (+ token tables), accessors. */
#include "grammar.h"

#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "masks/vocab.h"
#include "rule_cache.h"

static uint32_t pd__or(uint32_t v, uint32_t dflt) { return v ? v : dflt; }

void pd_grammar_resolve_options(const pd_grammar_options *opts, pd_grammar_options *out) {
  pd_grammar_options o = {0};
  if (opts) o = *opts;
  o.max_rules = pd__or(o.max_rules, PD_DEFAULT_MAX_RULES);
  o.max_states = pd__or(o.max_states, PD_DEFAULT_MAX_STATES);
  o.max_items_per_row = pd__or(o.max_items_per_row, PD_DEFAULT_MAX_ITEMS_PER_ROW);
  o.max_depth = pd__or(o.max_depth, PD_DEFAULT_MAX_DEPTH);
  o.max_repeat = pd__or(o.max_repeat, PD_DEFAULT_MAX_REPEAT);
  /* borrowed strings must not outlive the call that passed them */
  o.item_separator = o.key_separator = o.gate_end = NULL;
  o.schema_docs = NULL, o.n_schema_docs = 0;
  *out = o;
}

void pd_grammar_free(pd_grammar *g) {
  if (!g) return;
  const pd_allocator *a = g->alloc;
  pd_masks_free(g->masks, a);
  pd_pda_free(&g->pda, a);
  pd__free(a, g->relaxed);
  pd__free(a, g);
}

pd_status pd_grammar_from_ir(const pd_ir *ir, pd_vocab *vocab, const pd_grammar_options *opts,
                             pd_grammar **out, pd_error *err) {
  if (!out) return pd__fail(err, PD_ERR_ARG, "pd_grammar_from_ir: out is NULL");
  *out = NULL;
  pd_status s = pd_pda_check(ir, err);
  if (s) return s;
  const pd_allocator *a = opts && opts->allocator ? opts->allocator
                          : vocab                 ? vocab->alloc
                                                  : pd_default_allocator();
  pd_grammar *g = pd__calloc(a, 1, sizeof *g);
  if (!g) return pd__nomem(err);
  g->alloc = a;
  g->vocab = vocab;
  pd_grammar_resolve_options(opts, &g->opts);
  g->opts.allocator = a;
  if (ir->rules.len > g->opts.max_rules) {
    uint32_t max_rules = g->opts.max_rules;
    pd_grammar_free(g);
    return pd__fail(err, PD_ERR_LIMIT, "grammar has %zu rules, more than max_rules (%u)",
                    ir->rules.len, max_rules);
  }
  pd_pda_limits lim = {g->opts.max_rules, g->opts.max_states, g->opts.max_repeat};
  pd_rule_cache *cache = vocab && !g->opts.no_rule_cache ? pd_rule_cache_get(vocab) : NULL;
  s = pd_pda_build(ir, vocab, cache, &lim, a, &g->pda, err);
  if (!s && vocab) s = pd_masks_build(g, &g->masks, err);
  if (s) {
    pd_grammar_free(g);
    return s;
  }
  *out = g;
  return PD_OK;
}

pd_status pd_grammar_set_relaxed(pd_grammar *g, const char *text) {
  if (!g) return PD_ERR_ARG;
  char *copy = NULL;
  if (text && *text && !(copy = pd__strndup(g->alloc, text, strlen(text)))) return PD_ERR_NOMEM;
  pd__free(g->alloc, g->relaxed);
  g->relaxed = copy;
  return PD_OK;
}

const char *pd_grammar_relaxed(const pd_grammar *g) {
  return g && g->relaxed ? g->relaxed : "";
}

/* class_bytes: bytes of the compiled automaton block (the token tables report
 * their own size through masks/ when they have one). */
void pd_grammar_stats(const pd_grammar *g, size_t *rules, size_t *states, size_t *class_bytes) {
  if (rules) *rules = g ? g->pda.n_rules : 0;
  if (states) *states = g ? g->pda.n_states : 0;
  if (class_bytes) *class_bytes = g ? g->pda.size : 0;
}
