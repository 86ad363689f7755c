/* check.h - the one assertion header (after SQLite's ALWAYS/NEVER).
 *
 * PD_ASSERT(x): checked in debug and test builds (-DPD_DEBUG), absent otherwise.
 * PD_ALWAYS(x) / PD_NEVER(x): conditions believed always true / false; in debug
 * builds a violation aborts (a test failure), in release builds the expression is
 * evaluated so the code can still take a defensive branch and report
 * PD_ERR_INTERNAL instead of crashing. */
#ifndef PD_BASE_CHECK_H
#define PD_BASE_CHECK_H
#ifdef PD_DEBUG
#include <assert.h>
#define PD_ASSERT(x) assert(x)
#define PD_ALWAYS(x) ((x) ? 1 : (assert(0), 0))
#define PD_NEVER(x) ((x) ? (assert(0), 1) : 0)
#else
#define PD_ASSERT(x) ((void)0)
#define PD_ALWAYS(x) (x)
#define PD_NEVER(x) (x)
#endif
#endif
