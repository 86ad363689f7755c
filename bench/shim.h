/* shim.h - the C face of Google Benchmark (bench/shim.cc), so benchmarks stay C11.
 *
 *   static void bm(pd_bench_state *st, void *arg) {
 *     while (pd_bench_keep_running(st)) { ... }
 *   }
 *   pd_bench_register("name", bm, arg);  then  return pd_bench_main(argc, argv);
 */
#ifndef PD_BENCH_SHIM_H
#define PD_BENCH_SHIM_H
#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pd_bench_state pd_bench_state;
typedef void (*pd_bench_fn)(pd_bench_state *st, void *arg);

/* Registers fn under name; iterations 0 = let the library choose. */
void pd_bench_register(const char *name, pd_bench_fn fn, void *arg, int64_t iterations);
bool pd_bench_keep_running(pd_bench_state *st);
void pd_bench_pause(pd_bench_state *st);
void pd_bench_resume(pd_bench_state *st);
/* A user counter shown next to the timing (e.g. bytes of cache memory). */
void pd_bench_counter(pd_bench_state *st, const char *name, double value);
/* Items processed in total (Google Benchmark reports items per second). */
void pd_bench_items(pd_bench_state *st, int64_t n);
void pd_bench_skip(pd_bench_state *st, const char *why);
/* Parses the benchmark flags and runs every registered benchmark. */
int pd_bench_main(int argc, char **argv);

#ifdef __cplusplus
}
#endif
#endif
