/* uri.c - RFC 3986 reference resolution (5.2.2), path merging (5.2.3) and
 * dot-segment removal (5.2.4). No normalization beyond that: JSON Schema
 * compares the resolved URIs as strings. */
#include "uri.h"

#include <string.h>

#include "base/alloc.h"

typedef struct pd__part {
  const char *s; /* NULL: the component is undefined (an empty one is defined) */
  size_t n;
} pd__part;

typedef struct pd__uri {
  pd__part scheme, auth, path, query, frag;
} pd__uri;

static bool pd__scheme_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' ||
         c == '-' || c == '.';
}

/* Splits s[0..n) into its five components (appendix B's regular expression). */
static void pd__split(const char *s, size_t n, pd__uri *u) {
  memset(u, 0, sizeof *u);
  size_t i = 0, j = 0;
  if (n && ((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z'))) {
    while (j < n && pd__scheme_char(s[j])) j++;
    if (j < n && s[j] == ':') u->scheme = (pd__part){s, j}, i = j + 1;
  }
  if (i + 1 < n && s[i] == '/' && s[i + 1] == '/') {
    i += 2;
    for (j = i; j < n && s[j] != '/' && s[j] != '?' && s[j] != '#';) j++;
    u->auth = (pd__part){s + i, j - i}, i = j;
  }
  for (j = i; j < n && s[j] != '?' && s[j] != '#';) j++;
  u->path = (pd__part){s + i, j - i}, i = j;
  if (i < n && s[i] == '?') {
    i++;
    for (j = i; j < n && s[j] != '#';) j++;
    u->query = (pd__part){s + i, j - i}, i = j;
  }
  if (i < n) u->frag = (pd__part){s + i + 1, n - i - 1};
}

bool pd_uri_absolute(const char *u, size_t n) {
  pd__uri x;
  pd__split(u, n, &x);
  return x.scheme.s != NULL;
}

/* Drops the last segment of out[0..*n) and the '/' before it. */
static void pd__pop(const char *out, size_t *n) {
  while (*n && out[*n - 1] != '/') --*n;
  if (*n) --*n;
}

/* 5.2.4 over in[0..n) (modified in place) into out; returns out's length. */
static size_t pd__remove_dots(char *in, size_t n, char *out) {
  size_t i = 0, m = 0;
  while (i < n) {
    size_t left = n - i;
    const char *p = in + i;
    if (left >= 3 && !memcmp(p, "../", 3)) {
      i += 3;
    } else if (left >= 2 && !memcmp(p, "./", 2)) {
      i += 2;
    } else if (left >= 3 && !memcmp(p, "/./", 3)) {
      i += 2;
    } else if (left == 2 && !memcmp(p, "/.", 2)) {
      in[i + 1] = '/', i += 1;
    } else if (left >= 4 && !memcmp(p, "/../", 4)) {
      i += 3, pd__pop(out, &m);
    } else if (left == 3 && !memcmp(p, "/..", 3)) {
      in[i + 2] = '/', i += 2, pd__pop(out, &m);
    } else if ((left == 1 && p[0] == '.') || (left == 2 && !memcmp(p, "..", 2))) {
      i = n;
    } else {
      size_t j = i + 1;
      while (j < n && in[j] != '/') j++;
      memcpy(out + m, in + i, j - i);
      m += j - i, i = j;
    }
  }
  return m;
}

static char *pd__put(char *w, pd__part p) {
  memcpy(w, p.s, p.n);
  return w + p.n;
}

char *pd_uri_resolve(const pd_allocator *a, const char *base, size_t bn, const char *r, size_t rn,
                     const char **frag, size_t *frag_n) {
  pd__uri b, u, t;
  pd__split(base, bn, &b);
  pd__split(r, rn, &u);
  *frag = u.frag.s, *frag_n = u.frag.n;
  size_t cap = bn + rn + 8;
  char *out = pd__malloc(a, cap), *merged = pd__malloc(a, cap), *path = pd__malloc(a, cap);
  if (!out || !merged || !path) {
    pd__free(a, out);
    pd__free(a, merged);
    pd__free(a, path);
    return NULL;
  }
  size_t mn = 0; /* the path before dot removal, in merged */
  t.scheme = u.scheme.s ? u.scheme : b.scheme;
  t.auth = u.scheme.s || u.auth.s ? u.auth : b.auth;
  t.query = u.query;
  if (u.scheme.s || u.auth.s || (u.path.n && u.path.s[0] == '/')) {
    memcpy(merged, u.path.s, mn = u.path.n);
  } else if (!u.path.n) {
    memcpy(merged, b.path.s, mn = b.path.n);
    if (!u.query.s) t.query = b.query;
  } else { /* merge: the base's path up to its last '/', then the reference's */
    if (b.auth.s && !b.path.n) {
      merged[mn++] = '/';
    } else {
      size_t k = b.path.n;
      while (k && b.path.s[k - 1] != '/') k--;
      memcpy(merged, b.path.s, mn = k);
    }
    memcpy(merged + mn, u.path.s, u.path.n);
    mn += u.path.n;
  }
  /* 5.2.2 removes dot segments in every branch but the empty reference path */
  t.path = u.path.n ? (pd__part){path, pd__remove_dots(merged, mn, path)} : (pd__part){merged, mn};
  char *w = out;
  if (t.scheme.s) w = pd__put(w, t.scheme), *w++ = ':';
  if (t.auth.s) *w++ = '/', *w++ = '/', w = pd__put(w, t.auth);
  w = pd__put(w, t.path);
  if (t.query.s) *w++ = '?', w = pd__put(w, t.query);
  *w = '\0';
  pd__free(a, merged);
  pd__free(a, path);
  return out;
}
