/* check.c - PLACEHOLDER until its owner writes it; must not survive to a release. */
#include "commands.h"
#include "util.h"
int pd_cli_check(int argc, char **argv) {
  (void)argc;
  (void)argv;
  return pd_cli_usage("'check' is not built yet");
}
