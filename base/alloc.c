/* alloc.c - the default allocator (mimalloc when available) and checked helpers. */
#include "alloc.h"

#include <stdlib.h>
#include <string.h>
#ifdef PD_HAVE_MIMALLOC
#include <mimalloc.h>
#endif

#ifdef PD_HAVE_MIMALLOC
static void *pd__dmalloc(void *ud, size_t n) { (void)ud; return mi_malloc(n); }
static void *pd__drealloc(void *ud, void *p, size_t n) { (void)ud; return mi_realloc(p, n); }
static void pd__dfree(void *ud, void *p) { (void)ud; mi_free(p); }
#else
static void *pd__dmalloc(void *ud, size_t n) { (void)ud; return malloc(n); }
static void *pd__drealloc(void *ud, void *p, size_t n) { (void)ud; return realloc(p, n); }
static void pd__dfree(void *ud, void *p) { (void)ud; free(p); }
#endif

static const pd_allocator pd__default = {pd__dmalloc, pd__drealloc, pd__dfree, NULL};

const pd_allocator *pd_default_allocator(void) { return &pd__default; }

void *pd__malloc(const pd_allocator *a, size_t size) {
  a = pd__alloc_or_default(a);
  return a->malloc(a->ud, size ? size : 1);
}

void *pd__calloc(const pd_allocator *a, size_t n, size_t size) {
  if (size && n > SIZE_MAX / size) return NULL;
  void *p = pd__malloc(a, n * size);
  if (p && size && n) memset(p, 0, n * size);
  return p;
}

void *pd__realloc(const pd_allocator *a, void *p, size_t size) {
  a = pd__alloc_or_default(a);
  return a->realloc(a->ud, p, size ? size : 1);
}

void pd__free(const pd_allocator *a, void *p) {
  if (!p) return;
  a = pd__alloc_or_default(a);
  a->free(a->ud, p);
}

char *pd__strndup(const pd_allocator *a, const char *s, size_t len) {
  if (len == SIZE_MAX) return NULL;
  char *d = pd__malloc(a, len + 1);
  if (!d) return NULL;
  if (len) memcpy(d, s, len);
  d[len] = '\0';
  return d;
}
