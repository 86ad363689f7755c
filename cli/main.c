/* main.c - the pushdown command: dispatch to one subcommand. */
#include <stdio.h>
#include <string.h>
#ifdef PD_HAVE_MIMALLOC
#include <mimalloc.h>
#endif

#include "commands.h"
#include "pushdown.h"

static const struct {
  const char *name;
  int (*run)(int, char **);
  const char *help;
} pd__commands[] = {
    {"check", pd_cli_check,
     "--grammar F | --schema F | --regex P [--prefix] [--input F | --batch F] [--any-order] [--strict] [--lenient]"
     " [--schema-doc URI=F ...]"},
    {"mask", pd_cli_mask, "--grammar F --tokenizer T [--after-text F] [--vocab-size N]"},
    {"maskbench", pd_cli_maskbench,
     "DIR --tokenizer T [--grammar F] [--json] [--cpu-time] [--verbose] [--any-order] [--eager] [--brute K]"
     " [--cache-mb N] [--slow US]"},
    {"encode", pd_cli_encode, "--tokenizer T [--batch F]"},
    {"generate", pd_cli_generate, "(--grammar F | --schema F | --regex P) --tokenizer T --corpus F ..."},
    {"demo", pd_cli_demo, "[--tokenizer T]: a short demonstration with timings"},
    {"kernels-selftest", pd_cli_kernels_selftest, "check the CPU twins (and the GPU when present)"},
    {"bench", pd_cli_bench, "kernels: time the bitmask and sampler kernels"},
};

static void pd__usage(FILE *f) {
  fprintf(f, "pushdown %s - grammar-constrained decoding\nusage:\n", PD_VERSION_STRING);
  for (size_t i = 0; i < sizeof pd__commands / sizeof pd__commands[0]; i++)
    fprintf(f, "  pushdown %s %s\n", pd__commands[i].name, pd__commands[i].help);
}

int main(int argc, char **argv) {
#ifdef PD_HAVE_MIMALLOC
  /* Policies of the process, so the command's, not the library's. Memory a
   * grammar frees (its memo's rows: 16 KB each at 128k tokens) stays
   * committed for the next grammar for 10 s, not mimalloc's 25 ms: given
   * back sooner, it came back page by page, each a fault, under MaskBench's
   * masks (825 k faults a run; 297 k kept). And 2 MiB pages where the system
   * gives them (transparent huge pages): the classifier's trie and tables
   * missed the TLB less (MaskBench's p99 mask 2-3 us lower, 12 MB more
   * resident of 782). */
  mi_option_set(mi_option_decommit_delay, 10000);
  mi_option_enable(mi_option_large_os_pages);
#endif
  if (argc < 2) {
    pd__usage(stderr);
    return 2;
  }
  if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
    pd__usage(stdout);
    return 0;
  }
  if (!strcmp(argv[1], "--version")) {
    printf("pushdown %s\n", PD_VERSION_STRING);
    return 0;
  }
  for (size_t i = 0; i < sizeof pd__commands / sizeof pd__commands[0]; i++)
    if (!strcmp(argv[1], pd__commands[i].name)) return pd__commands[i].run(argc - 1, argv + 1);
  fprintf(stderr, "error: unknown command '%s'\n", argv[1]);
  pd__usage(stderr);
  return 2;
}
