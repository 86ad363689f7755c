/* array.h - the one growable array of the project.
 *
 *   PD_ARRAY(uint32_t) a = {0};
 *   if (!pd_array_push(alloc, &a, 7)) return pd__nomem(err);
 *   ... a.data[i], a.len ...
 *   pd_array_free(alloc, &a);
 *
 * Growth doubles capacity; a failed grow leaves the array unchanged and the
 * macros evaluate to false. */
#ifndef PD_BASE_ARRAY_H
#define PD_BASE_ARRAY_H
#include <stdbool.h>
#include <string.h>

#include "alloc.h"

#define PD_ARRAY(T) \
  struct {          \
    T *data;        \
    size_t len;     \
    size_t cap;     \
  }

/* Ensure room for n more elements of size elem. */
static inline bool pd__array_reserve(const pd_allocator *a, void **data, size_t *cap, size_t len,
                                     size_t n, size_t elem) {
  if (n <= *cap - len) return true;
  if (n > SIZE_MAX / elem - len) return false;
  size_t want = len + n, c = *cap ? *cap : 8;
  while (c < want) c = c > SIZE_MAX / 2 ? want : c * 2;
  if (c > SIZE_MAX / elem) return false;
  void *p = pd__realloc(a, *data, c * elem);
  if (!p) return false;
  *data = p;
  *cap = c;
  return true;
}

#define pd_array_reserve(al, arr, n)                                                     \
  pd__array_reserve((al), (void **)&(arr)->data, &(arr)->cap, (arr)->len, (n),           \
                    sizeof *(arr)->data)
#define pd_array_push(al, arr, v) \
  (pd_array_reserve(al, arr, 1) ? ((arr)->data[(arr)->len++] = (v), true) : false)
#define pd_array_free(al, arr)       \
  do {                               \
    pd__free((al), (arr)->data);     \
    (arr)->data = NULL;              \
    (arr)->len = (arr)->cap = 0;     \
  } while (0)
#define pd_array_clear(arr) ((arr)->len = 0)
#define pd_array_last(arr) ((arr)->data[(arr)->len - 1])

#endif
