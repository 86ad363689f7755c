/* kernels.c - PLACEHOLDER until its owner writes it; must not survive to a release. */
#include "commands.h"
#include "util.h"
int pd_cli_kernels_selftest(int argc, char **argv) {
  (void)argc;
  (void)argv;
  return pd_cli_usage("'kernels-selftest' is not built yet");
}
int pd_cli_bench(int argc, char **argv) {
  (void)argc;
  (void)argv;
  return pd_cli_usage("'bench' is not built yet");
}
