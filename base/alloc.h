/* alloc.h - allocation through a pd_allocator; failure is a status, never a crash. */
#ifndef PD_BASE_ALLOC_H
#define PD_BASE_ALLOC_H
#include "pushdown.h"

/* The allocator to use: a (when non-NULL) else the default. */
static inline const pd_allocator *pd__alloc_or_default(const pd_allocator *a) {
  return a ? a : pd_default_allocator();
}
void *pd__malloc(const pd_allocator *a, size_t size);
void *pd__calloc(const pd_allocator *a, size_t n, size_t size); /* overflow-checked, zeroed */
void *pd__realloc(const pd_allocator *a, void *p, size_t size);
void pd__free(const pd_allocator *a, void *p);
/* Copy of bytes[0..len) plus a NUL; NULL on failure. */
char *pd__strndup(const pd_allocator *a, const char *s, size_t len);

#endif
