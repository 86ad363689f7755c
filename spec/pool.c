/* pool.c - fork-join workers pulling task indices from an atomic counter. */
#include "pool.h"

#include <pthread.h>
#include <stdatomic.h>

typedef struct pd_pool_job {
  atomic_size_t next;
  size_t n_tasks;
  pd_pool_task task;
  void *ctx;
} pd_pool_job;

typedef struct pd_pool_worker {
  pd_pool_job *job;
  unsigned id;
} pd_pool_worker;

static void pd__pool_drain(pd_pool_job *job, unsigned worker) {
  for (;;) {
    size_t i = atomic_fetch_add_explicit(&job->next, 1, memory_order_relaxed);
    if (i >= job->n_tasks) return;
    job->task(job->ctx, i, worker);
  }
}

static void *pd__pool_main(void *arg) {
  pd_pool_worker *w = arg;
  pd__pool_drain(w->job, w->id);
  return NULL;
}

unsigned pd_pool_run(unsigned n_threads, size_t n_tasks, pd_pool_task task, void *ctx) {
  pd_pool_job job = {.n_tasks = n_tasks, .task = task, .ctx = ctx};
  atomic_init(&job.next, 0);
  unsigned want = n_threads ? n_threads : 1;
  if (want > PD_POOL_MAX_THREADS) want = PD_POOL_MAX_THREADS;
  if (want > n_tasks) want = n_tasks ? (unsigned)n_tasks : 1;
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
