/* error.c - status strings and error reporting. */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *pd_status_str(pd_status s) {
  switch (s) {
    case PD_OK: return "ok";
    case PD_ERR_NOMEM: return "out of memory";
    case PD_ERR_ARG: return "invalid argument";
    case PD_ERR_SYNTAX: return "syntax error";
    case PD_ERR_SEMANTIC: return "semantic error";
    case PD_ERR_UNSUPPORTED: return "unsupported";
    case PD_ERR_LIMIT: return "limit exceeded";
    case PD_ERR_IO: return "i/o error";
    case PD_ERR_REJECTED: return "rejected";
    case PD_ERR_STATE: return "invalid state";
    case PD_ERR_INTERNAL: return "internal error";
  }
  return "unknown status";
}

void pd__error_clear(pd_error *err) {
  if (!err) return;
  memset(err, 0, sizeof *err);
}

static void pd__vset(pd_error *err, pd_status code, const char *fmt, va_list ap) {
  err->code = code;
  vsnprintf(err->message, sizeof err->message, fmt, ap);
}

pd_status pd__fail(pd_error *err, pd_status code, const char *fmt, ...) {
  if (!err) return code;
  pd__error_clear(err);
  va_list ap;
  va_start(ap, fmt);
  pd__vset(err, code, fmt, ap);
  va_end(ap);
  return code;
}

pd_status pd__fail_at(pd_error *err, pd_status code, const char *text, size_t offset,
                      const char *fmt, ...) {
  if (!err) return code;
  pd__error_clear(err);
  va_list ap;
  va_start(ap, fmt);
  pd__vset(err, code, fmt, ap);
  va_end(ap);
  err->offset = offset;
  err->line = 1;
  err->column = 1;
  for (size_t i = 0; text && i < offset && text[i]; i++) {
    if (text[i] == '\n') {
      err->line++;
      err->column = 1;
    } else {
      err->column++;
    }
  }
  return code;
}

pd_status pd__nomem(pd_error *err) { return pd__fail(err, PD_ERR_NOMEM, "out of memory"); }
