/* maskbench.c - PLACEHOLDER until its owner writes it; must not survive to a release. */
#include "commands.h"
#include "util.h"
int pd_cli_maskbench(int argc, char **argv) {
  (void)argc;
  (void)argv;
  return pd_cli_usage("'maskbench' is not built yet");
}
