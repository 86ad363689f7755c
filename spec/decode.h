/* decode.h - a complete constrained decoding loop over two n-gram models
 * (internal): what `pushdown generate`, the spec tests and the benchmarks run.
 *
 * Every step, for each unfinished output: jump-forward tokens (when on) are
 * emitted without the models; the draft model proposes k tokens (unmasked, so
 * some break the grammar and cut the window); pd_spec_fill gives the k + 1
 * mask rows; the target model scores them; pd_cpu_verify picks the tokens;
 * pd_spec_advance moves the matcher. k = 0 is plain masked decoding through
 * the same calls. Outputs decode together as one batch. */
#ifndef PD_SPEC_DECODE_H
#define PD_SPEC_DECODE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ngram.h"
#include "pushdown.h"

typedef struct pd_decode_options {
  const pd_allocator *allocator; /* NULL = default */
  size_t n_outputs;
  uint64_t seed;
  float temperature;  /* 0 = greedy */
  size_t draft_k;     /* drafts per step; 0 = no speculation */
  size_t max_tokens;  /* per output, forced tokens included */
  unsigned n_threads; /* for pd_spec_fill; 0 = 1 */
  bool jump_forward;  /* emit forced tokens without sampling */
  bool draft_probs;   /* sampling: verify with the draft's q (else q = point mass) */
} pd_decode_options;

typedef struct pd_decode_output {
  uint32_t *tokens; /* emitted ids (EOS included when produced) */
  size_t n_tokens;
  bool finished;    /* a stop token ended it (else the budget, or a row allowing nothing) */
  size_t drafted, accepted, forced;
} pd_decode_output;

/* Time spent, in nanoseconds, and how much work it covered. */
typedef struct pd_decode_stats {
  double fill_ns, verify_ns, model_ns, jump_ns, total_ns;
  size_t steps, rows, fill_calls;
} pd_decode_stats;

/* Decodes o->n_outputs outputs with grammar g (compiled with vocab v).
 * target and draft cover ids 0 .. pd_vocab_size(v)-1; draft may be NULL when
 * draft_k = 0. outs[0 .. n_outputs) receives the outputs (free them with
 * pd_decode_outputs_free, also after an error); stats may be NULL. */
pd_status pd_decode_run(const pd_grammar *g, const pd_vocab *v, const pd_ngram *target,
                        const pd_ngram *draft, const pd_decode_options *o,
                        pd_decode_output *outs, pd_decode_stats *stats, pd_error *err);
void pd_decode_outputs_free(const pd_decode_options *o, pd_decode_output *outs);

#endif
