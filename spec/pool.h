/* pool.h - fork-join worker pool over pthreads (internal).
 *
 * pd_pool_run hands task indices 0..n_tasks-1 to up to n_threads workers (the
 * calling thread is one of them) and returns when every task is done. Each
 * worker has a contiguous share of the indices and, when done, steals from
 * the others', so which worker runs which task varies; callers make output
 * deterministic by having task i write only its own slots. It never fails: when a thread cannot be started, the workers already
 * running (at least the caller) do the remaining tasks. No allocation. */
#ifndef PD_SPEC_POOL_H
#define PD_SPEC_POOL_H
#include <stddef.h>
#include <time.h>

/* Monotonic time in nanoseconds (the pool's join wait, the decoder's timings). */
static inline double pd_now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

#define PD_POOL_MAX_THREADS 64

/* Runs task (ctx, index, worker) for every index; worker < returned count. */
typedef void (*pd_pool_task)(void *ctx, size_t index, unsigned worker);

/* Returns the number of workers used (1 .. min(n_threads, n_tasks, PD_POOL_MAX_THREADS)). */
unsigned pd_pool_run(unsigned n_threads, size_t n_tasks, pd_pool_task task, void *ctx);

/* The same on threads kept in w (pd_workers_new): they sleep between jobs, so
 * a job costs a wake-up instead of starting and joining threads. One job at a
 * time per w. Returns the number of workers (w's threads + the caller). */
struct pd_workers;
unsigned pd_pool_run_on(struct pd_workers *w, size_t n_tasks, pd_pool_task task, void *ctx);

#endif
