/* json_text.c - compact JSON text of a node (see json_text.h). */
#include "json_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pdt__buf {
  char *s;
  size_t n, cap;
} pdt__buf;

static void pdt__put(pdt__buf *b, const char *s, size_t n) {
  if (b->n + n + 1 > b->cap) {
    while (b->n + n + 1 > b->cap) b->cap = b->cap ? b->cap * 2 : 256;
    b->s = realloc(b->s, b->cap);
  }
  memcpy(b->s + b->n, s, n);
  b->n += n;
  b->s[b->n] = '\0';
}

static void pdt__string(pdt__buf *b, const char *s, size_t n) {
  pdt__put(b, "\"", 1);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    const char *e = c == '"'    ? "\\\""
                    : c == '\\' ? "\\\\"
                    : c == '\b' ? "\\b"
                    : c == '\f' ? "\\f"
                    : c == '\n' ? "\\n"
                    : c == '\r' ? "\\r"
                    : c == '\t' ? "\\t"
                                : NULL;
    char u[8];
    if (e) {
      pdt__put(b, e, 2);
    } else if (c < 0x20) {
      snprintf(u, sizeof u, "\\u%04x", c);
      pdt__put(b, u, 6);
    } else {
      pdt__put(b, (const char *)&s[i], 1);
    }
  }
  pdt__put(b, "\"", 1);
}

static void pdt__value(pdt__buf *b, const pd_json_doc *d, uint32_t v) {
  const pd_json_node *n = pd_json_at(d, v);
  switch ((pd_json_kind)n->kind) {
    case PD_JSON_NULL:
      pdt__put(b, "null", 4);
      break;
    case PD_JSON_FALSE:
      pdt__put(b, "false", 5);
      break;
    case PD_JSON_TRUE:
      pdt__put(b, "true", 4);
      break;
    case PD_JSON_NUMBER:
      pdt__put(b, pd_json_str(d, v), n->n);
      break;
    case PD_JSON_STRING:
      pdt__string(b, pd_json_str(d, v), n->n);
      break;
    case PD_JSON_ARRAY:
      pdt__put(b, "[", 1);
      for (uint32_t i = 0; i < n->n; i++) {
        if (i) pdt__put(b, ",", 1);
        pdt__value(b, d, pd_json_elem(d, v, i));
      }
      pdt__put(b, "]", 1);
      break;
    case PD_JSON_OBJECT:
      pdt__put(b, "{", 1);
      for (uint32_t i = 0; i < n->n; i++) {
        uint32_t k = pd_json_mkey(d, v, i);
        if (i) pdt__put(b, ",", 1);
        pdt__string(b, pd_json_str(d, k), pd_json_at(d, k)->n);
        pdt__put(b, ":", 1);
        pdt__value(b, d, pd_json_mval(d, v, i));
      }
      pdt__put(b, "}", 1);
      break;
  }
}

char *pdt_json_text(const pd_json_doc *d, uint32_t node, size_t *len) {
  pdt__buf b = {0};
  pdt__put(&b, "", 0);
  pdt__value(&b, d, node);
  *len = b.n;
  return b.s;
}
