/* rehash.h - moving an open-addressing table's records into a larger one.
 *
 * Both move old[0..n_old) into the empty table t[0..n) (n a power of two),
 * each record to the first empty slot from its hash with linear probing. The
 * records' keys are distinct, so none is compared. PD_REHASH: a table of
 * pointers to records with a `hash` (NULL: empty). PD_REHASH_BY: a table of
 * records with a `hash`, empty where member `used` is NULL. */
#ifndef PD_BASE_REHASH_H
#define PD_BASE_REHASH_H
#include <stddef.h>

#define PD_REHASH(t, n, old, n_old)                  \
  for (size_t i_ = 0; i_ < (n_old); i_++) {          \
    if (!(old)[i_]) continue;                        \
    size_t j_ = (size_t)(old)[i_]->hash & ((n) - 1); \
    while ((t)[j_]) j_ = (j_ + 1) & ((n) - 1);       \
    (t)[j_] = (old)[i_];                             \
  }

#define PD_REHASH_BY(t, n, old, n_old, used)        \
  for (size_t i_ = 0; i_ < (n_old); i_++) {         \
    if (!(old)[i_].used) continue;                  \
    size_t j_ = (size_t)(old)[i_].hash & ((n) - 1); \
    while ((t)[j_].used) j_ = (j_ + 1) & ((n) - 1); \
    (t)[j_] = (old)[i_];                            \
  }

#endif
