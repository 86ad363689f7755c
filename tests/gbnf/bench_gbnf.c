/* bench_gbnf.c - how long the GBNF front end takes: parse to IR alone, and the
 * whole public compile (parse + automata, no vocabulary), per grammar file.
 *
 *   bench_gbnf FILE.gbnf...        (built, not run by the test command)
 *
 * Prints one line per file: size, mean parse time and throughput, mean compile
 * time. Repetitions adapt to the file size so each file takes about a second. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "pda/gbnf.h"
#include "support.h"

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Mean seconds per parse of text over reps runs; negative on a parse error. */
static double time_parse(const char *text, size_t len, int reps) {
  double t0 = now_s();
  for (int r = 0; r < reps; r++) {
    pd_ir ir;
    pd_ir_init(&ir, NULL);
    pd_status st = pd_gbnf_to_ir(&ir, text, len, NULL, NULL);
    pd_ir_free(&ir);
    if (st) return -1;
  }
  return (now_s() - t0) / reps;
}

static double time_compile(const char *text, size_t len, int reps) {
  double t0 = now_s();
  for (int r = 0; r < reps; r++) {
    pd_grammar *g = NULL;
    pd_error err;
    if (pd_grammar_compile_gbnf(text, len, NULL, NULL, &g, &err) != PD_OK) {
      fprintf(stderr, "compile: %u:%u: %s\n", err.line, err.column, err.message);
      return -1;
    }
    pd_grammar_free(g);
  }
  return (now_s() - t0) / reps;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: bench_gbnf FILE.gbnf...\n");
    return 2;
  }
  for (int i = 1; i < argc; i++) {
    size_t len;
    char *text = pdt_read_file(argv[i], &len);
    if (!text) {
      fprintf(stderr, "cannot read %s\n", argv[i]);
      return 2;
    }
    int reps = len > 100000 ? 3 : (int)(2000000 / (len + 1000));
    double parse = time_parse(text, len, reps), compile = time_compile(text, len, reps);
    if (parse < 0 || compile < 0) {
      fprintf(stderr, "%s does not compile\n", argv[i]);
      free(text);
      return 1;
    }
    printf("%-40s %9zu bytes  parse %10.1f us (%5.1f MB/s)  compile %10.1f us  (%d runs)\n",
           argv[i], len, parse * 1e6, (double)len / parse / 1e6, compile * 1e6, reps);
    free(text);
  }
  return 0;
}
