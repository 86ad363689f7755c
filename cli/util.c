/* util.c - CLI helpers. */
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

char *pd_cli_read_file(const char *path, size_t *len) {
  FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap + 1);
  while (buf) {
    n += fread(buf + n, 1, cap - n, f);
    if (n < cap) break;
    char *nb = realloc(buf, cap * 2 + 1);
    if (!nb) {
      free(buf);
      buf = NULL;
      break;
    }
    buf = nb;
    cap *= 2;
  }
  if (buf && ferror(f)) {
    free(buf);
    buf = NULL;
  }
  if (f != stdin) fclose(f);
  if (!buf) return NULL;
  buf[n] = '\0';
  if (len) *len = n;
  return buf;
}

int pd_cli_fail(const char *what, const pd_error *err) {
  if (err && err->line)
    fprintf(stderr, "error: %s:%u:%u: %s\n", what, err->line, err->column, err->message);
  else
    fprintf(stderr, "error: %s: %s\n", what, err && err->message[0] ? err->message : "failed");
  return 2;
}

int pd_cli_usage(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("error: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return 2;
}

const char *pd_cli_default_tokenizer(void) {
  static char buf[4096];
  const char *root = getenv("PD_SHARED_DATA");
  struct stat st;
  if (root && *root) {
    snprintf(buf, sizeof buf, "%s/tokenizers/llama3/tokenizer.json", root);
    if (stat(buf, &st) == 0) return buf;
  }
  snprintf(buf, sizeof buf, "%s/tokenizers/llama3/tokenizer.json", PD_SHARED_DATA_DEFAULT);
  if (stat(buf, &st) == 0) return buf;
  return NULL;
}

double pd_cli_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}
