/* json_span.c - a JSON skipper that finds a member's text (see json_span.h). */
#include "json_span.h"

#include <string.h>

static const char *pd__ws(const char *p, const char *e) {
  while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
  return p;
}

/* p at an opening quote: just past the closing one, or NULL. */
static const char *pd__string_end(const char *p, const char *e) {
  for (p++; p < e; p++) {
    if (*p == '\\')
      p++;
    else if (*p == '"')
      return p + 1;
  }
  return NULL;
}

/* Just past the value starting at p, or NULL (the value is not checked). */
static const char *pd__value_end(const char *p, const char *e) {
  if (p >= e) return NULL;
  if (*p == '"') return pd__string_end(p, e);
  if (*p != '{' && *p != '[') {
    while (p < e && *p && !strchr(",}] \t\r\n", *p)) p++;
    return p;
  }
  for (size_t depth = 0; p < e; p++) {
    if (*p == '"') {
      if (!(p = pd__string_end(p, e))) return NULL;
      p--; /* the loop steps past the closing quote */
    } else if (*p == '{' || *p == '[') {
      depth++;
    } else if ((*p == '}' || *p == ']') && --depth == 0) {
      return p + 1;
    }
  }
  return NULL;
}

bool pd_cli_json_member(const char *text, size_t len, const char *key, const char **at,
                        size_t *n) {
  const char *e = text + len, *p = pd__ws(text, e);
  size_t kl = strlen(key);
  if (p >= e || *p != '{') return false;
  for (p = pd__ws(p + 1, e); p < e && *p == '"';) {
    const char *ke = pd__string_end(p, e);
    if (!ke) return false;
    bool hit = (size_t)(ke - p - 2) == kl && !memcmp(p + 1, key, kl);
    p = pd__ws(ke, e);
    if (p >= e || *p != ':') return false;
    p = pd__ws(p + 1, e);
    const char *ve = pd__value_end(p, e);
    if (!ve || ve == p) return false;
    if (hit) {
      *at = p;
      *n = (size_t)(ve - p);
      return true;
    }
    p = pd__ws(ve, e);
    if (p >= e || *p != ',') return false;
    p = pd__ws(p + 1, e);
  }
  return false;
}
