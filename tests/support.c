/* support.c - shared test helpers. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *pdt_data(const char *rel) {
  static char buf[4096];
  const char *root = getenv("PD_SHARED_DATA");
  if (!root || !*root) root = PD_SHARED_DATA_DEFAULT;
  snprintf(buf, sizeof buf, "%s/%s", root, rel);
  struct stat st;
  if (stat(buf, &st) != 0) {
    printf("skip: %s not found\n", buf);
    return NULL;
  }
  return buf;
}

char *pdt_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap + 1);
  while (buf) {
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
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
  fclose(f);
  if (!buf) return NULL;
  buf[n] = '\0';
  if (len) *len = n;
  return buf;
}

pdt_alloc_state pdt_alloc;

void pdt_alloc_reset(long fail_at) {
  memset(&pdt_alloc, 0, sizeof pdt_alloc);
  pdt_alloc.fail_at = fail_at;
}

static int pdt__should_fail(void) {
  pdt_alloc.count++;
  if (pdt_alloc.fail_at && pdt_alloc.count == pdt_alloc.fail_at) {
    pdt_alloc.failed = 1;
    return 1;
  }
  return 0;
}

static void *pdt__malloc(void *ud, size_t n) {
  (void)ud;
  if (pdt__should_fail()) return NULL;
  void *p = malloc(n);
  if (p) pdt_alloc.live++;
  return p;
}

static void *pdt__realloc(void *ud, void *p, size_t n) {
  (void)ud;
  if (pdt__should_fail()) return NULL;
  void *q = realloc(p, n);
  if (q && !p) pdt_alloc.live++;
  return q;
}

static void pdt__free(void *ud, void *p) {
  (void)ud;
  if (!p) return;
  pdt_alloc.live--;
  free(p);
}

const pd_allocator pdt_allocator = {pdt__malloc, pdt__realloc, pdt__free, NULL};
