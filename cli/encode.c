/* encode.c - PLACEHOLDER until its owner writes it; must not survive to a release. */
#include "commands.h"
#include "util.h"
int pd_cli_encode(int argc, char **argv) {
  (void)argc;
  (void)argv;
  return pd_cli_usage("'encode' is not built yet");
}
