/* json.h - a small JSON document (DOM) for the schema compiler.
 *
 * Why not Jansson: every allocation must go through the caller's pd_allocator
 * (failure injection, no global hooks), object members must keep their source
 * order (property order is part of the output language), numbers must keep
 * their text (exact decimal bounds), and every node must know its parent so an
 * error can name its JSON pointer.
 *
 * Encoding: nodes live in one array and refer to each other by index.
 *   STRING  decoded UTF-8 in bytes[off .. off+n) (may hold NUL)
 *   NUMBER  the source text in bytes[off .. off+n)
 *   ARRAY   elements kids[off .. off+n)
 *   OBJECT  members kids[off .. off+2n) as pairs (key STRING node, value node)
 *   parent  the containing node (PD_JSON_NONE for the root); key: for an
 *           object member's value its key node, for an array element its index.
 */
#ifndef PD_PDA_JSON_H
#define PD_PDA_JSON_H
#include <stdbool.h>
#include <stdint.h>

#include "base/array.h"
#include "pushdown.h"

#define PD_JSON_NONE UINT32_MAX

typedef enum pd_json_kind {
  PD_JSON_NULL,
  PD_JSON_FALSE,
  PD_JSON_TRUE,
  PD_JSON_NUMBER,
  PD_JSON_STRING,
  PD_JSON_ARRAY,
  PD_JSON_OBJECT
} pd_json_kind;

typedef struct pd_json_node {
  uint8_t kind;
  uint32_t parent, key;
  uint32_t off, n;
  size_t pos; /* source byte offset */
} pd_json_node;

typedef struct pd_json_doc {
  const pd_allocator *alloc;
  PD_ARRAY(pd_json_node) nodes;
  PD_ARRAY(uint32_t) kids;
  PD_ARRAY(uint8_t) bytes;
  uint32_t root;
} pd_json_doc;

/* Parses one JSON text (RFC 8259; surrounding whitespace allowed). Nesting is
 * limited to max_depth. On failure the document is left empty. */
pd_status pd_json_parse(pd_json_doc *doc, const pd_allocator *alloc, const char *text, size_t len,
                        uint32_t max_depth, pd_error *err);
void pd_json_free(pd_json_doc *doc);
/* Appends every node of src to doc; src's root becomes a parentless node of
 * doc, returned (PD_JSON_NONE when an allocation failed). */
uint32_t pd_json_graft(pd_json_doc *doc, const pd_json_doc *src);
/* Appends a node built by the caller (schemas the compiler derives): a
 * string or number (its bytes, the decoded string or the number's text,
 * copied), false, or an array / object of existing parentless
 * nodes (kids[0..n), objects as key, value pairs), which become its
 * children. Returns the node, or PD_JSON_NONE when out of memory. */
uint32_t pd_json_add(pd_json_doc *doc, pd_json_kind kind, const void *bytes, size_t n_bytes,
                     const uint32_t *kids, uint32_t n_kids);

static inline const pd_json_node *pd_json_at(const pd_json_doc *d, uint32_t id) {
  return &d->nodes.data[id];
}
static inline const char *pd_json_str(const pd_json_doc *d, uint32_t id) {
  return (const char *)d->bytes.data + d->nodes.data[id].off;
}
/* Number of elements (array) or members (object). */
static inline uint32_t pd_json_len(const pd_json_doc *d, uint32_t id) {
  return d->nodes.data[id].n;
}
/* Element i of an array; key / value of member i of an object. */
static inline uint32_t pd_json_elem(const pd_json_doc *d, uint32_t id, uint32_t i) {
  return d->kids.data[d->nodes.data[id].off + i];
}
static inline uint32_t pd_json_mkey(const pd_json_doc *d, uint32_t id, uint32_t i) {
  return d->kids.data[d->nodes.data[id].off + 2 * i];
}
static inline uint32_t pd_json_mval(const pd_json_doc *d, uint32_t id, uint32_t i) {
  return d->kids.data[d->nodes.data[id].off + 2 * i + 1];
}

/* The value of member key in object id (the last one when repeated), or
 * PD_JSON_NONE (also when id is not an object). */
uint32_t pd_json_get(const pd_json_doc *d, uint32_t id, const char *key);
/* String node equals the NUL-terminated s. */
bool pd_json_str_eq(const pd_json_doc *d, uint32_t id, const char *s);
/* Deep equality as JSON Schema defines it: numbers by value (1.0 == 1),
 * objects regardless of member order. */
bool pd_json_equal(const pd_json_doc *d, uint32_t a, uint32_t b);

/* A decimal number as digits and exponent: value = (neg ? -1 : 1) *
 * 0.d1d2...dn * 10^exp, digits without leading or trailing zeros (n = 0 for
 * zero, then neg is false). The exponent saturates at +-2^40. */
typedef struct pd_json_dec {
  bool neg;
  int64_t exp;
  const char *digits; /* points into a caller buffer */
  size_t n;
} pd_json_dec;

/* Decodes number node id; buf must hold pd_json_at(d, id)->n bytes. */
void pd_json_number(const pd_json_doc *d, uint32_t id, char *buf, pd_json_dec *out);
/* Decodes number text (already valid JSON) the same way. */
void pd_json_dec_parse(const char *text, size_t len, char *buf, pd_json_dec *out);
int pd_json_dec_cmp(const pd_json_dec *a, const pd_json_dec *b);
/* The value has no fractional part. */
bool pd_json_dec_is_int(const pd_json_dec *a);

/* Appends the JSON pointer of node id (e.g. "/properties/a~1b") to out,
 * NUL-terminated, truncated to cap bytes. */
void pd_json_pointer(const pd_json_doc *d, uint32_t id, char *out, size_t cap);

#endif
