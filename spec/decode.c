/* decode.c - the n-gram decoding loop of decode.h, one batch step at a time.
 *
 * Buffers are sized once for the largest step (n outputs, k + 1 rows each):
 *   drafts [n * k], q [n * k * width] (sampling with draft probabilities),
 *   logits [n * (k+1) * width], bitmask [n * (k+1) * n_words].
 * A step packs the unfinished outputs into requests 0..b-1 (active[i] = the
 * output of request i); verifier rows follow pd_spec_fill's row_offsets. */
#include "decode.h"

#include <math.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "base/error.h"
#include "pool.h"

typedef struct pd_dec {
  const pd_allocator *a;
  const pd_vocab *v;
  const pd_ngram *target, *draft;
  const pd_decode_options *o;
  pd_decode_output *outs;
  pd_decode_stats st;
  size_t size, width, n_words, k;
  uint64_t offset; /* Philox position of the verifier */
  pd_matcher **m;
  bool *done;
  pd_jumper *jumper;
  size_t *active, n_active;
  pd_spec_request *reqs;
  uint32_t *drafts, *bitmask, *out_tokens, *out_counts, *out_acc, *next;
  float *q, *logits;
  size_t *draft_offsets, *row_offsets, *valid, *unc, *accepted;
} pd_dec;

static bool pd__alloc_buffers(pd_dec *d) {
  size_t n = d->o->n_outputs, k = d->k, rows = n * (k + 1);
  bool need_q = d->o->temperature > 0 && d->o->draft_probs && k;
#define PD__ALLOC(f, cnt) ((d->f = pd__calloc(d->a, (cnt), sizeof *d->f)) != NULL)
  return PD__ALLOC(m, n) && PD__ALLOC(done, n) && PD__ALLOC(active, n) && PD__ALLOC(reqs, n) &&
         PD__ALLOC(drafts, n * k) && PD__ALLOC(bitmask, rows * d->n_words) &&
         PD__ALLOC(out_tokens, rows) && PD__ALLOC(out_counts, n) && PD__ALLOC(out_acc, n) &&
         PD__ALLOC(next, n) && (!need_q || PD__ALLOC(q, n * k * d->width)) &&
         PD__ALLOC(logits, rows * d->width) && PD__ALLOC(draft_offsets, n + 1) &&
         PD__ALLOC(row_offsets, n + 1) && PD__ALLOC(valid, n) && PD__ALLOC(unc, rows) &&
         PD__ALLOC(accepted, n);
#undef PD__ALLOC
}

static void pd__free_buffers(pd_dec *d) {
  for (size_t i = 0; d->m && i < d->o->n_outputs; i++) pd_matcher_free(d->m[i]);
  pd_jumper_free(d->jumper);
  void *bufs[] = {d->m,          d->done,    d->active, d->reqs,      d->drafts,
                  d->bitmask,    d->out_tokens, d->out_counts, d->out_acc, d->next,
                  d->q,          d->logits,  d->draft_offsets, d->row_offsets, d->valid,
                  d->unc,        d->accepted};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) pd__free(d->a, bufs[i]);
}

static pd_status pd__setup(pd_dec *d, const pd_grammar *g, pd_error *err) {
  const pd_decode_options *o = d->o;
  if (!pd__alloc_buffers(d)) return pd__nomem(err);
  for (size_t i = 0; i < o->n_outputs; i++) {
    d->outs[i].tokens = pd__malloc(d->a, (o->max_tokens + 1) * sizeof *d->outs[i].tokens);
    if (!d->outs[i].tokens) return pd__nomem(err);
    pd_status st = pd_matcher_new(g, &d->m[i], err);
    if (st != PD_OK) return st;
    d->done[i] = o->max_tokens == 0;
  }
  return o->jump_forward ? pd_jumper_new(d->v, &d->jumper, err) : PD_OK;
}

static bool pd__is_eos(const pd_dec *d, uint32_t id) {
  const uint8_t *b;
  size_t len;
  uint32_t flags = 0;
  return pd_vocab_token(d->v, id, &b, &len, &flags) == PD_OK && (flags & PD_TOKEN_EOS);
}

/* Appends token id to output i; a stop token or a full budget ends it. */
static void pd__emit(pd_dec *d, size_t i, uint32_t id) {
  pd_decode_output *out = &d->outs[i];
  out->tokens[out->n_tokens++] = id;
  if (pd__is_eos(d, id)) out->finished = d->done[i] = true;
  if (out->n_tokens >= d->o->max_tokens) d->done[i] = true;
}


/* Jump-forward: forced tokens go straight into the output. */
static pd_status pd__jump(pd_dec *d, size_t i, pd_error *err) {
  pd_decode_output *out = &d->outs[i];
  size_t n = 0, room = d->o->max_tokens - out->n_tokens;
  uint32_t *ids = out->tokens + out->n_tokens;
  pd_status st = pd_jumper_tokens(d->jumper, d->m[i], ids, room, &n, err);
  for (size_t j = 0; st == PD_OK && j < n && !d->done[i]; j++) {
    st = pd_matcher_accept_token(d->m[i], ids[j], err);
    if (st == PD_OK) {
      out->forced++;
      pd__emit(d, i, ids[j]);
    }
  }
  return st;
}

/* The last tokens of output i followed by drafts[0..n_drafts), as a history
 * for the n-gram models (only the last PD_NGRAM_MAX_ORDER - 1 matter). */
static size_t pd__history(const pd_dec *d, size_t i, const uint32_t *drafts, size_t n_drafts,
                          uint32_t *hist) {
  const pd_decode_output *out = &d->outs[i];
  size_t want = PD_NGRAM_MAX_ORDER - 1, n = 0;
  size_t from_out = n_drafts >= want ? 0 : want - n_drafts;
  if (from_out > out->n_tokens) from_out = out->n_tokens;
  for (size_t j = out->n_tokens - from_out; j < out->n_tokens; j++) hist[n++] = out->tokens[j];
  size_t skip = n_drafts > want ? n_drafts - want : 0;
  for (size_t j = skip; j < n_drafts; j++) hist[n++] = drafts[j];
  return n;
}

/* A uniform in [0, 1) for draft j of output i at this step. */
static double pd__draft_uniform(const pd_dec *d, size_t i, size_t j) {
  uint32_t r[4];
  pd_philox4x32_10(d->o->seed ^ 0x9e3779b97f4a7c15ull, i, d->st.steps * (d->k + 1) * 4 + j * 4,
                   r);
  return (r[0] >> 8) * (1.0 / 16777216.0);
}

/* Turns model probabilities p[0..size) into the draft's sampling
 * distribution (temperature applied, padding 0) and picks a token. */
static uint32_t pd__draft_pick(const pd_dec *d, float *p, double u) {
  float t = d->o->temperature;
  size_t best = 0;
  for (size_t w = 1; w < d->size; w++)
    if (p[w] > p[best]) best = w;
  if (t <= 0) return (uint32_t)best;
  double sum = 0;
  /* most ids share one backed-off probability: reuse the last power */
  float in = -1, out = 0;
  for (size_t w = 0; w < d->size; w++) {
    if (p[w] != in) in = p[w], out = (float)pow(p[w] / p[best], 1.0 / t);
    sum += p[w] = out;
  }
  for (size_t w = 0; w < d->size; w++) p[w] = (float)(p[w] / sum);
  for (size_t w = d->size; w < d->width; w++) p[w] = 0;
  double acc = 0;
  for (size_t w = 0; w < d->size; w++)
    if (p[w] > 0 && (acc += p[w]) > u) return (uint32_t)w;
  return (uint32_t)best;
}

/* Drafts of request b (output i): k_b tokens from the draft model. */
static void pd__draft_request(pd_dec *d, size_t b, size_t i, size_t k_b, float *scratch) {
  uint32_t *drafts = d->drafts + d->draft_offsets[b];
  uint32_t hist[PD_NGRAM_MAX_ORDER];
  for (size_t j = 0; j < k_b; j++) {
    float *p = d->q && d->o->temperature > 0 ? d->q + (d->draft_offsets[b] + j) * d->width
                                             : scratch;
    size_t nh = pd__history(d, i, drafts, j, hist);
    pd_ngram_probs(d->draft, hist, nh, p);
    drafts[j] = pd__draft_pick(d, p, pd__draft_uniform(d, i, j));
  }
  d->reqs[b] = (pd_spec_request){d->m[i], drafts, k_b, NULL};
  d->outs[i].drafted += k_b;
}

/* Packs the unfinished outputs into requests with their drafts. */
static void pd__draft_all(pd_dec *d, float *scratch) {
  d->n_active = 0;
  d->draft_offsets[0] = 0;
  for (size_t i = 0; i < d->o->n_outputs; i++) {
    if (d->done[i]) continue;
    size_t b = d->n_active++, room = d->o->max_tokens - d->outs[i].n_tokens;
    size_t k_b = d->k < room - 1 ? d->k : room - 1;
    d->active[b] = i;
    d->draft_offsets[b + 1] = d->draft_offsets[b] + k_b;
    pd__draft_request(d, b, i, k_b, scratch);
  }
}

/* Target logits for every row: log p, padding -inf. */
static void pd__score(pd_dec *d) {
  uint32_t hist[PD_NGRAM_MAX_ORDER];
  for (size_t b = 0; b < d->n_active; b++) {
    size_t i = d->active[b];
    for (size_t j = 0; j <= d->reqs[b].n_drafts; j++) {
      float *row = d->logits + (d->row_offsets[b] + j) * d->width;
      size_t nh = pd__history(d, i, d->reqs[b].drafts, j, hist);
      pd_ngram_probs(d->target, hist, nh, row);
      float in = -1, out = 0; /* as in pd__draft_pick: reuse the last log */
      for (size_t w = 0; w < d->size; w++) {
        if (row[w] != in) in = row[w], out = logf(row[w]);
        row[w] = out;
      }
      for (size_t w = d->size; w < d->width; w++) row[w] = -INFINITY;
    }
  }
}

static pd_status pd__verify(pd_dec *d, pd_error *err) {
  bool sample = d->o->temperature > 0;
  pd_verify_args a = {
      .mode = !sample ? PD_VERIFY_GREEDY : d->q ? PD_VERIFY_SAMPLE : PD_VERIFY_SAMPLE_POINT,
      .target_logits = d->logits, .dtype = PD_F32, .width = d->width,
      .bitmask = d->bitmask, .n_words = d->n_words, .draft_probs = d->q,
      .draft_tokens = d->drafts, .draft_offsets = d->draft_offsets, .n = d->n_active,
      .temperature = sample ? d->o->temperature : 0, .seed = d->o->seed, .offset = d->offset,
      .out_tokens = d->out_tokens, .out_counts = d->out_counts, .out_accepted = d->out_acc};
  d->offset += 4 + d->width + 3 + 1;
  return pd_cpu_verify(&a, err);
}

/* Advances the matchers by what the verifier emitted and appends it. A
 * request whose row allowed nothing (count == accepted) ends there. */
static pd_status pd__commit(pd_dec *d, pd_error *err) {
  size_t n_adv = 0;
  for (size_t b = 0; b < d->n_active; b++) {
    uint32_t acc = d->out_acc[b], cnt = d->out_counts[b];
    d->outs[d->active[b]].accepted += acc;
    if (cnt <= acc) continue;
    d->reqs[n_adv] = d->reqs[b];
    d->accepted[n_adv] = acc;
    d->next[n_adv++] = d->out_tokens[d->draft_offsets[b] + b + acc];
  }
  pd_status st = pd_spec_advance(d->reqs, n_adv, d->accepted, d->next, err);
  for (size_t b = 0; st == PD_OK && b < d->n_active; b++) {
    size_t i = d->active[b];
    const uint32_t *toks = d->out_tokens + d->draft_offsets[b] + b;
    for (uint32_t j = 0; j < d->out_counts[b] && !d->done[i]; j++) pd__emit(d, i, toks[j]);
    if (d->out_counts[b] <= d->out_acc[b]) d->done[i] = true;
  }
  return st;
}

/* One batch step; false when every output is done. */
static pd_status pd__step(pd_dec *d, float *scratch, bool *more, pd_error *err) {
  pd_status st = PD_OK;
  double t = pd_now_ns();
  for (size_t i = 0; d->jumper && st == PD_OK && i < d->o->n_outputs; i++)
    if (!d->done[i]) st = pd__jump(d, i, err);
  double t1 = pd_now_ns();
  d->st.jump_ns += t1 - t;
  if (st == PD_OK) pd__draft_all(d, scratch);
  *more = st == PD_OK && d->n_active > 0;
  if (!*more) return st;
  pd_spec_result res = {d->bitmask, d->n_words, d->row_offsets, d->valid, d->unc, 0};
  double t2 = pd_now_ns();
  st = pd_spec_fill(d->reqs, d->n_active, d->o->n_threads, &res, err);
  double t3 = pd_now_ns();
  if (st == PD_OK) pd__score(d);
  double t4 = pd_now_ns();
  if (st == PD_OK) st = pd__verify(d, err);
  double t5 = pd_now_ns();
  if (st == PD_OK) st = pd__commit(d, err);
  d->st.model_ns += (t2 - t1) + (t4 - t3);
  d->st.fill_ns += t3 - t2;
  d->st.verify_ns += t5 - t4;
  d->st.rows += d->row_offsets[d->n_active];
  d->st.fill_calls++;
  d->st.steps++;
  return st;
}

static pd_status pd__check_run(const pd_grammar *g, const pd_vocab *v, const pd_ngram *target,
                               const pd_ngram *draft, const pd_decode_options *o,
                               const pd_decode_output *outs, pd_error *err) {
  if (!g || !v || !target || !o || !outs || !o->n_outputs || (o->draft_k && !draft))
    return pd__fail(err, PD_ERR_ARG, "missing grammar, vocab, model, options or outputs");
  size_t size = pd_vocab_size(v);
  if (pd_ngram_vocab_size(target) != size || (draft && pd_ngram_vocab_size(draft) != size))
    return pd__fail(err, PD_ERR_ARG, "the models do not cover the vocabulary");
  if (o->draft_k > 1024 || o->n_outputs > SIZE_MAX / 4 / (o->draft_k + 1) / (size + 64))
    return pd__fail(err, PD_ERR_LIMIT, "too many outputs or drafts");
  if (!(o->temperature >= 0) || isinf(o->temperature))
    return pd__fail(err, PD_ERR_ARG, "temperature must be finite and not negative");
  return PD_OK;
}

pd_status pd_decode_run(const pd_grammar *g, const pd_vocab *v, const pd_ngram *target,
                        const pd_ngram *draft, const pd_decode_options *o,
                        pd_decode_output *outs, pd_decode_stats *stats, pd_error *err) {
  if (outs && o) memset(outs, 0, o->n_outputs * sizeof *outs);
  pd_status st = pd__check_run(g, v, target, draft, o, outs, err);
  if (st != PD_OK) return st;
  pd_dec d = {.a = o->allocator, .v = v, .target = target, .draft = draft, .o = o, .outs = outs,
              .size = pd_vocab_size(v), .width = pd_vocab_width(v), .k = o->draft_k};
  d.n_words = (d.width + 31) / 32;
  double t0 = pd_now_ns();
  st = pd__setup(&d, g, err);
  float *scratch = st == PD_OK ? pd__malloc(d.a, d.width * sizeof *scratch) : NULL;
  if (st == PD_OK && !scratch) st = pd__nomem(err);
  for (bool more = st == PD_OK; more;) st = pd__step(&d, scratch, &more, err);
  d.st.total_ns = pd_now_ns() - t0;
  if (stats) *stats = d.st;
  pd__free(d.a, scratch);
  pd__free_buffers(&d);
  return st;
}

void pd_decode_outputs_free(const pd_decode_options *o, pd_decode_output *outs) {
  for (size_t i = 0; o && outs && i < o->n_outputs; i++) {
    pd__free(o->allocator, outs[i].tokens);
    outs[i].tokens = NULL;
  }
}
