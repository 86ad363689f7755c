/* util.h - small helpers shared by the CLI subcommands (the CLI may print; the library never does). */
#ifndef PD_CLI_UTIL_H
#define PD_CLI_UTIL_H
#include <stdbool.h>
#include <stddef.h>

#include "pushdown.h"

/* Reads a whole file ("-" = stdin); NULL on failure (errno set). Caller frees. */
char *pd_cli_read_file(const char *path, size_t *len);
/* Prints "error: <what>: <message>" (with line:column when err has a position)
 * to stderr and returns 2, the CLI's error exit code. */
int pd_cli_fail(const char *what, const pd_error *err);
/* Prints "error: <fmt...>" to stderr and returns 2. */
int pd_cli_usage(const char *fmt, ...);
/* The default tokenizer (../shared/data/tokenizers/llama3/tokenizer.json
 * beside the checkout, or $PD_SHARED_DATA/tokenizers/...) if present, else NULL. */
const char *pd_cli_default_tokenizer(void);
/* Monotonic time in nanoseconds. */
double pd_cli_now_ns(void);
#endif
