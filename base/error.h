/* error.h - filling the caller's optional pd_error. */
#ifndef PD_BASE_ERROR_H
#define PD_BASE_ERROR_H
#include "pushdown.h"

#if defined(__GNUC__)
#define PD_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define PD_PRINTF(f, a)
#endif

/* Sets err (when non-NULL) and returns code, so callers can write
 * `return pd__fail(err, PD_ERR_ARG, "bad id %u", id);`. */
pd_status pd__fail(pd_error *err, pd_status code, const char *fmt, ...) PD_PRINTF(3, 4);
/* Same, with a position in text: offset, and line/column computed from text. */
pd_status pd__fail_at(pd_error *err, pd_status code, const char *text, size_t offset,
                      const char *fmt, ...) PD_PRINTF(5, 6);
/* Out of memory, the most common failure. */
pd_status pd__nomem(pd_error *err);
/* Clear err to PD_OK with an empty message. */
void pd__error_clear(pd_error *err);

#endif
