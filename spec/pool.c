/* pool.c - fork-join workers, each with a share of the task indices to run
 * and stealing from the others' when done. */
#include "pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/alloc.h"
#include "base/error.h"

/* Worker i owns a contiguous share of the tasks and takes them from the
 * front; when its share is done it steals from the back of the others'. The
 * same worker then runs the same tasks job after job (a request's matcher
 * and mask rows stay in its core's cache: on a batch of 160 rows of 16 KB,
 * 2.5 MB, a shared counter that scattered the requests made two threads no
 * faster than one, bench_spec), and a worker that wakes late or a slow task
 * still leaves no one idle. A share is one word, lo | hi << 32, changed by
 * compare-and-swap; shares sit on cache lines of their own. */
typedef struct pd_pool_share {
  _Alignas(64) _Atomic uint64_t span;
} pd_pool_share;

typedef struct pd_pool_job {
  unsigned n_shares;
  pd_pool_task task;
  void *ctx;
  pd_pool_share share[PD_POOL_MAX_THREADS];
} pd_pool_job;

#define PD__NONE UINT64_MAX

/* Takes the first (front) or last task of a share; PD__NONE when it is empty. */
static uint64_t pd__take(pd_pool_share *sh, bool front) {
  uint64_t v = atomic_load_explicit(&sh->span, memory_order_relaxed);
  for (;;) {
    uint64_t lo = v & 0xffffffffu, hi = v >> 32;
    if (lo >= hi) return PD__NONE;
    uint64_t next = front ? (lo + 1) | hi << 32 : lo | (hi - 1) << 32;
    if (atomic_compare_exchange_weak_explicit(&sh->span, &v, next, memory_order_relaxed,
                                              memory_order_relaxed))
      return front ? lo : hi - 1;
  }
}

#define PD__MAX_SHARED 0xffffffffu /* tasks a share can count; more run on the caller */

/* Splits n_tasks (at most PD__MAX_SHARED) into n_shares contiguous shares. */
static void pd__pool_init(pd_pool_job *job, unsigned n_shares, size_t n_tasks, pd_pool_task task,
                          void *ctx) {
  job->n_shares = n_shares ? n_shares : 1, job->task = task, job->ctx = ctx;
  for (unsigned i = 0; i < job->n_shares; i++) {
    uint64_t lo = n_tasks * i / job->n_shares, hi = n_tasks * (i + 1) / job->n_shares;
    atomic_init(&job->share[i].span, lo | hi << 32);
  }
}

static void pd__pool_drain(pd_pool_job *job, unsigned worker) {
  uint64_t i;
  for (unsigned k = 0; k < job->n_shares; k++) {
    pd_pool_share *sh = &job->share[(worker + k) % job->n_shares];
    while ((i = pd__take(sh, k == 0)) != PD__NONE) job->task(job->ctx, (size_t)i, worker);
  }
}

typedef struct pd_pool_worker {
  pd_pool_job *job;
  unsigned id;
} pd_pool_worker;

static void *pd__pool_main(void *arg) {
  pd_pool_worker *w = arg;
  pd__pool_drain(w->job, w->id);
  return NULL;
}

/* One worker, the caller: no shares, no atomics (a fill of one request is
 * about 100 ns when its mask is memoized). */
static unsigned pd__pool_serial(size_t n_tasks, pd_pool_task task, void *ctx) {
  for (size_t i = 0; i < n_tasks; i++) task(ctx, i, 0);
  return 1;
}

unsigned pd_pool_run(unsigned n_threads, size_t n_tasks, pd_pool_task task, void *ctx) {
  if (n_tasks > PD__MAX_SHARED) return pd__pool_serial(n_tasks, task, ctx);
  unsigned want = n_threads ? n_threads : 1;
  if (want > PD_POOL_MAX_THREADS) want = PD_POOL_MAX_THREADS;
  if (want > n_tasks) want = n_tasks ? (unsigned)n_tasks : 1;
  if (want == 1) return pd__pool_serial(n_tasks, task, ctx);
  pd_pool_job job;
  pd__pool_init(&job, want, n_tasks, task, ctx);
  pthread_t threads[PD_POOL_MAX_THREADS];
  pd_pool_worker workers[PD_POOL_MAX_THREADS];
  unsigned started = 0;
  for (unsigned i = 1; i < want; i++) {
    workers[started] = (pd_pool_worker){&job, started + 1};
    if (pthread_create(&threads[started], NULL, pd__pool_main, &workers[started]) != 0) break;
    started++;
  }
  pd__pool_drain(&job, 0);
  for (unsigned i = 0; i < started; i++) pthread_join(threads[i], NULL);
  return started + 1;
}

/* ------------------------------------------------------------ kept threads */

#define PD__JOIN_SPIN_NS 50000 /* how long the caller waits awake for the others */

/* When the caller's share of a job is done, the others are on their last
 * tasks: waiting awake for a while saves a sleep and a wake-up, each a system
 * call (on a 2-vCPU VM they made two threads slower than one on a batch of
 * 32 requests, bench_spec). */
static void pd__join_spin(const unsigned *busy) {
  double end = pd_now_ns() + PD__JOIN_SPIN_NS;
  while (__atomic_load_n(busy, __ATOMIC_ACQUIRE) && pd_now_ns() < end) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
  }
}

typedef struct pd__kept {
  struct pd_workers *w;
  unsigned id;
} pd__kept;

struct pd_workers {
  pthread_mutex_t lock;
  pthread_cond_t start, done;
  pd_pool_job *job;
  uint64_t gen;  /* jobs handed out so far */
  unsigned busy; /* threads still on the current job */
  bool quit;
  unsigned n;    /* threads started */
  pthread_t threads[PD_POOL_MAX_THREADS];
  pd__kept ids[PD_POOL_MAX_THREADS];
};

static void *pd__workers_main(void *arg) {
  pd__kept *me = arg;
  struct pd_workers *w = me->w;
  uint64_t seen = 0;
  pthread_mutex_lock(&w->lock);
  for (;;) {
    while (w->gen == seen && !w->quit) pthread_cond_wait(&w->start, &w->lock);
    if (w->quit) break;
    seen = w->gen;
    pd_pool_job *job = w->job;
    pthread_mutex_unlock(&w->lock);
    pd__pool_drain(job, me->id);
    pthread_mutex_lock(&w->lock);
    if (__atomic_sub_fetch(&w->busy, 1, __ATOMIC_RELEASE) == 0) pthread_cond_signal(&w->done);
  }
  pthread_mutex_unlock(&w->lock);
  return NULL;
}

pd_status pd_workers_new(unsigned n_threads, pd_workers **out, pd_error *err) {
  if (!out) return pd__fail(err, PD_ERR_ARG, "pd_workers_new: NULL out");
  *out = NULL;
  struct pd_workers *w = pd__calloc(pd__alloc_or_default(NULL), 1, sizeof *w);
  if (!w) return pd__nomem(err);
  if (pthread_mutex_init(&w->lock, NULL) != 0) {
    pd__free(pd__alloc_or_default(NULL), w);
    return pd__fail(err, PD_ERR_INTERNAL, "cannot create the workers' lock");
  }
  bool start = pthread_cond_init(&w->start, NULL) == 0;
  if (!start || pthread_cond_init(&w->done, NULL) != 0) {
    if (start) pthread_cond_destroy(&w->start);
    pthread_mutex_destroy(&w->lock);
    pd__free(pd__alloc_or_default(NULL), w);
    return pd__fail(err, PD_ERR_INTERNAL, "cannot create the workers' condition");
  }
  unsigned want = n_threads ? n_threads : 1;
  if (want > PD_POOL_MAX_THREADS) want = PD_POOL_MAX_THREADS;
  for (unsigned i = 1; i < want; i++) {
    w->ids[w->n] = (pd__kept){w, w->n + 1};
    if (pthread_create(&w->threads[w->n], NULL, pd__workers_main, &w->ids[w->n]) != 0) break;
    w->n++;
  }
  *out = w;
  return PD_OK;
}

void pd_workers_free(pd_workers *w) {
  if (!w) return;
  pthread_mutex_lock(&w->lock);
  w->quit = true;
  pthread_cond_broadcast(&w->start);
  pthread_mutex_unlock(&w->lock);
  for (unsigned i = 0; i < w->n; i++) pthread_join(w->threads[i], NULL);
  pthread_cond_destroy(&w->start);
  pthread_cond_destroy(&w->done);
  pthread_mutex_destroy(&w->lock);
  pd__free(pd__alloc_or_default(NULL), w);
}

unsigned pd_workers_count(const pd_workers *w) { return w ? w->n + 1 : 1; }

unsigned pd_pool_run_on(struct pd_workers *w, size_t n_tasks, pd_pool_task task, void *ctx) {
  /* nothing to share: no wake-ups */
  if (n_tasks > PD__MAX_SHARED || !w->n || n_tasks < 2) return pd__pool_serial(n_tasks, task, ctx);
  pd_pool_job job;
  pd__pool_init(&job, n_tasks < w->n + 1 ? (unsigned)n_tasks : w->n + 1, n_tasks, task, ctx);
  pthread_mutex_lock(&w->lock);
  w->job = &job;
  w->busy = w->n;
  w->gen++;
  pthread_cond_broadcast(&w->start);
  pthread_mutex_unlock(&w->lock);
  pd__pool_drain(&job, 0);
  pd__join_spin(&w->busy);
  pthread_mutex_lock(&w->lock);
  while (__atomic_load_n(&w->busy, __ATOMIC_ACQUIRE)) pthread_cond_wait(&w->done, &w->lock);
  pthread_mutex_unlock(&w->lock);
  return w->n + 1;
}
