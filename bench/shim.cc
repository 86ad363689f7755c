// shim.cc - forwards the C benchmark API of shim.h to Google Benchmark.
#include "shim.h"

#include <benchmark/benchmark.h>

struct pd_bench_state {
  benchmark::State *s;
};

extern "C" {

void pd_bench_register(const char *name, pd_bench_fn fn, void *arg, int64_t iterations) {
  auto *b = benchmark::RegisterBenchmark(name, [fn, arg](benchmark::State &s) {
    pd_bench_state st{&s};
    fn(&st, arg);
  });
  b->Unit(benchmark::kMicrosecond);
  if (iterations > 0) b->Iterations(iterations);
}

bool pd_bench_keep_running(pd_bench_state *st) { return st->s->KeepRunning(); }
void pd_bench_pause(pd_bench_state *st) { st->s->PauseTiming(); }
void pd_bench_resume(pd_bench_state *st) { st->s->ResumeTiming(); }

void pd_bench_counter(pd_bench_state *st, const char *name, double value) {
  st->s->counters[name] = value;
}

void pd_bench_items(pd_bench_state *st, int64_t n) { st->s->SetItemsProcessed(n); }
void pd_bench_skip(pd_bench_state *st, const char *why) { st->s->SkipWithError(why); }

int pd_bench_main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
}
