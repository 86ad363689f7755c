/* spec.c - the batch step of speculative decoding: (1+k) mask rows per request,
 * filled by tentatively accepting the drafts and rolling them back (or copied
 * where the mask memo knows the configuration a draft leads to), and the
 * advance after verification.
 *
 * Request r with k drafts d[0..k) whose gate stays open through the first o
 * rows (pd__open_rows: o = k + 1 without a matcher or when the drafts never
 * close the gate, 0 without a gate) and whose matcher accepts v of the drafts
 * after the gate, d[o .. o+v):
 *
 *   rows 0 .. o-1        all ones
 *   rows o .. o+v        the matcher after d[o .. row)
 *   rows o+v+1 .. k      all zeros (past a draft the grammar rejects)
 *
 * and valid_drafts[r] = o + v (k when o = k + 1). Requests are independent, so
 * the fill runs them on a worker pool and each writes only its own rows and
 * slots: the output does not depend on the thread count. */
#include <string.h>

#include "base/error.h"
#include "masks/masks.h"
#include "gate.h"
#include "pool.h"

static size_t pd__open_rows(const pd_spec_request *r) {
  if (!r->matcher) return r->n_drafts + 1;
  bool closes;
  size_t span = pd_gate_span(r->gate, r->drafts, r->n_drafts, &closes);
  return closes ? span : r->n_drafts + 1;
}

static pd_status pd__check_requests(const pd_spec_request *reqs, size_t n, pd_error *err) {
  if (n && !reqs) return pd__fail(err, PD_ERR_ARG, "NULL requests");
  for (size_t r = 0; r < n; r++) {
    if (reqs[r].n_drafts && !reqs[r].drafts)
      return pd__fail(err, PD_ERR_ARG, "request %zu: NULL drafts", r);
    if (reqs[r].n_drafts > SIZE_MAX / 4 / (n + 1))
      return pd__fail(err, PD_ERR_ARG, "request %zu: too many drafts", r);
  }
  return PD_OK;
}

/* Serial part of the fill: offsets, the unconstrained row list. */
static void pd__layout(const pd_spec_request *reqs, size_t n, pd_spec_result *out) {
  size_t row = 0;
  out->n_unconstrained = 0;
  for (size_t r = 0; r < n; r++) {
    out->row_offsets[r] = row;
    size_t open = pd__open_rows(&reqs[r]);
    for (size_t i = 0; i < open; i++) out->unconstrained_rows[out->n_unconstrained++] = row + i;
    row += reqs[r].n_drafts + 1;
  }
  out->row_offsets[n] = row;
}

/* A draft the grammar does not take (rejected, an id out of range, or after
 * a stop token) cuts the window; other failures (memory, limits) are errors. */
static bool pd__draft_invalid(pd_status st) {
  return st == PD_ERR_REJECTED || st == PD_ERR_ARG || st == PD_ERR_STATE;
}

/* The constrained rows o .. k of one request; the matcher ends as it began.
 * Row by row: where the memo knows the configuration a draft leads to
 * (masks.h), its mask is copied and the draft is not accepted yet; otherwise
 * the drafts owed are accepted, then this one, and the row is filled (and the
 * transition recorded). Accepting draft by draft finds the cut exactly as
 * pd_matcher_validate_tokens would (a rejected token leaves the matcher
 * unchanged), and a known transition is a draft accepted before. */
static pd_status pd__fill_matched(const pd_spec_request *r, size_t o, uint32_t *rows,
                                  size_t n_words, size_t *valid, pd_error *err) {
  pd_matcher *m = r->matcher;
  size_t k = r->n_drafts, done = 0, owed = 0; /* owed: drafts done but not accepted */
  const uint32_t *at = NULL;                  /* the memo entry of row o + done */
  pd_status st = pd_masks_fill_entry(m, rows + o * n_words, n_words, &at, err);
  while (st == PD_OK && o + done < k) {
    uint32_t d = r->drafts[o + done], *row = rows + (o + done + 1) * n_words;
    const uint32_t *to = at ? pd_masks_next(m, at, d, row, n_words) : NULL;
    if (to) {
      at = to, done++, owed++;
      continue;
    }
    while (owed && st == PD_OK)
      if ((st = pd_matcher_accept_token(m, r->drafts[o + done - owed], err)) == PD_OK) owed--;
    if (st != PD_OK) break;
    st = pd_matcher_accept_token(m, d, err);
    if (pd__draft_invalid(st)) {
      st = PD_OK;
      break;
    }
    if (st != PD_OK) break;
    done++;
    st = pd_masks_fill_entry(m, row, n_words, &to, err);
    if (at && to) pd_masks_link(m, at, d, to);
    at = to;
  }
  if (done - owed) {
    pd_status rb = pd_matcher_rollback(m, done - owed, st == PD_OK ? err : NULL);
    if (st == PD_OK) st = rb;
  }
  *valid = o + done;
  if (o + done < k)
    memset(rows + (o + done + 1) * n_words, 0, (k - o - done) * n_words * sizeof *rows);
  return st;
}

static pd_status pd__fill_request(const pd_spec_request *r, uint32_t *rows, size_t n_words,
                                  size_t *valid, pd_error *err) {
  size_t k = r->n_drafts, o = pd__open_rows(r);
  memset(rows, 0xff, o * n_words * sizeof *rows);
  *valid = k;
  if (o > k) return PD_OK;
  return pd__fill_matched(r, o, rows, n_words, valid, err);
}

/* The failure of the lowest request each worker ran. */
typedef struct pd_fill_failure {
  size_t req;
  pd_status st;
  pd_error err;
} pd_fill_failure;

typedef struct pd_fill_job {
  const pd_spec_request *reqs;
  pd_spec_result *out;
  pd_fill_failure fail[PD_POOL_MAX_THREADS];
} pd_fill_job;

static void pd__fill_task(void *ctx, size_t r, unsigned worker) {
  pd_fill_job *job = ctx;
  pd_spec_result *out = job->out;
  pd_fill_failure *f = &job->fail[worker];
  pd_error e;
  e.message[0] = '\0';
  uint32_t *rows = out->bitmask + out->row_offsets[r] * out->n_words;
  pd_status st = pd__fill_request(&job->reqs[r], rows, out->n_words, &out->valid_drafts[r], &e);
  if (st != PD_OK && (f->st == PD_OK || r < f->req)) *f = (pd_fill_failure){r, st, e};
}

/* Reports the failure of the lowest request, so errors too are deterministic. */
static pd_status pd__fill_report(const pd_fill_job *job, unsigned workers, pd_error *err) {
  const pd_fill_failure *first = NULL;
  for (unsigned w = 0; w < workers; w++)
    if (job->fail[w].st != PD_OK && (!first || job->fail[w].req < first->req))
      first = &job->fail[w];
  if (!first) return PD_OK;
  return pd__fail(err, first->st, "request %zu: %s", first->req, first->err.message);
}

/* pd_spec_fill on threads started for the call (w NULL) or kept in w. */
static pd_status pd__fill(pd_workers *w, unsigned n_threads, pd_spec_request *reqs, size_t n,
                          pd_spec_result *out, pd_error *err) {
  pd_status st = pd__check_requests(reqs, n, err);
  if (st != PD_OK) return st;
  if (!out || !out->row_offsets || !out->valid_drafts || !out->unconstrained_rows ||
      (n && (!out->bitmask || !out->n_words)))
    return pd__fail(err, PD_ERR_ARG, "incomplete pd_spec_result");
  pd__layout(reqs, n, out);
  pd_fill_job job;
  job.reqs = reqs;
  job.out = out;
  unsigned most = w ? pd_workers_count(w) : n_threads + 1;
  for (unsigned i = 0; i < PD_POOL_MAX_THREADS && i < most; i++) job.fail[i].st = PD_OK;
  unsigned workers = w ? pd_pool_run_on(w, n, pd__fill_task, &job)
                       : pd_pool_run(n_threads, n, pd__fill_task, &job);
  return pd__fill_report(&job, workers, err);
}

pd_status pd_spec_fill(pd_spec_request *reqs, size_t n, unsigned n_threads, pd_spec_result *out,
                       pd_error *err) {
  return pd__fill(NULL, n_threads, reqs, n, out, err);
}

pd_status pd_spec_fill_on(pd_workers *w, pd_spec_request *reqs, size_t n, pd_spec_result *out,
                          pd_error *err) {
  if (!w) return pd__fail(err, PD_ERR_ARG, "pd_spec_fill_on: NULL workers");
  return pd__fill(w, 0, reqs, n, out, err);
}

/* Of the accepted drafts and next, how many go to the gate (the rest go to
 * the matcher): those up to the one that closes it, all when it stays open. */
static size_t pd__gate_tokens(const pd_spec_request *r, size_t accepted) {
  bool closes;
  size_t span = pd_gate_span(r->gate, r->drafts, accepted, &closes);
  return closes ? span : accepted + 1;
}

/* Feeds request r's matcher its share of the tokens; all or nothing. */
static pd_status pd__advance_matcher(const pd_spec_request *r, size_t accepted, uint32_t next,
                                     pd_error *err) {
  if (!r->matcher) return PD_OK;
  size_t done = 0;
  for (size_t i = pd__gate_tokens(r, accepted); i <= accepted; i++, done++) {
    pd_status st = pd_matcher_accept_token(r->matcher, i < accepted ? r->drafts[i] : next, err);
    if (st != PD_OK) {
      pd_matcher_rollback(r->matcher, done, NULL);
      return st;
    }
  }
  return PD_OK;
}

static void pd__advance_gate(pd_spec_request *r, size_t accepted, uint32_t next) {
  if (!r->gate) return;
  for (size_t i = 0; i < accepted; i++) pd_gate_feed(r->gate, r->drafts[i]);
  pd_gate_feed(r->gate, next);
}

/* Undoes the matcher part of pd__advance_matcher for requests 0..n-1. */
static void pd__advance_undo(pd_spec_request *reqs, size_t n, const size_t *accepted) {
  for (size_t r = 0; r < n; r++)
    if (reqs[r].matcher)
      pd_matcher_rollback(reqs[r].matcher, accepted[r] + 1 - pd__gate_tokens(&reqs[r], accepted[r]),
                          NULL);
}

pd_status pd_spec_advance(pd_spec_request *reqs, size_t n, const size_t *accepted,
                          const uint32_t *next, pd_error *err) {
  pd_status st = pd__check_requests(reqs, n, err);
  if (st != PD_OK) return st;
  if (n && (!accepted || !next)) return pd__fail(err, PD_ERR_ARG, "NULL accepted or next");
  for (size_t r = 0; r < n; r++)
    if (accepted[r] > reqs[r].n_drafts)
      return pd__fail(err, PD_ERR_ARG, "request %zu: %zu accepted of %zu drafts", r, accepted[r],
                      reqs[r].n_drafts);
  for (size_t r = 0; r < n; r++) {
    pd_error e;
    e.message[0] = '\0';
    st = pd__advance_matcher(&reqs[r], accepted[r], next[r], &e);
    if (st != PD_OK) {
      pd__advance_undo(reqs, r, accepted);
      return pd__fail(err, st, "request %zu: %s", r, e.message);
    }
  }
  /* gates move last: nothing can fail any more */
  for (size_t r = 0; r < n; r++) pd__advance_gate(&reqs[r], accepted[r], next[r]);
  return PD_OK;
}
