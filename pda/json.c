/* json.c - parsing a JSON text into a pd_json_doc, deep equality, pointers. */
#include "json.h"

#include <stdio.h>
#include <string.h>

#include "base/error.h"

typedef struct pd__jp {
  pd_json_doc *doc;
  const char *s;
  size_t len, i;
  uint32_t max_depth;
  PD_ARRAY(uint32_t) stack; /* children of open containers, copied to kids on close */
  pd_error *err;
  bool oom;
} pd__jp;

static pd_status pd__jp_fail(pd__jp *p, const char *what) {
  return pd__fail_at(p->err, PD_ERR_SYNTAX, p->s, p->i, "JSON: %s", what);
}

static void pd__jp_ws(pd__jp *p) {
  while (p->i < p->len &&
         (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' || p->s[p->i] == '\r'))
    p->i++;
}

static uint32_t pd__jp_node(pd__jp *p, pd_json_kind kind, size_t pos) {
  pd_json_node n = {(uint8_t)kind, PD_JSON_NONE, 0, 0, 0, pos};
  if (p->doc->nodes.len >= UINT32_MAX - 1 || !pd_array_push(p->doc->alloc, &p->doc->nodes, n)) {
    p->oom = true;
    return PD_JSON_NONE;
  }
  return (uint32_t)(p->doc->nodes.len - 1);
}

static bool pd__jp_byte(pd__jp *p, uint8_t b) {
  if (!pd_array_push(p->doc->alloc, &p->doc->bytes, b)) p->oom = true;
  return !p->oom;
}

static bool pd__jp_utf8(pd__jp *p, uint32_t c) {
  if (c < 0x80) return pd__jp_byte(p, (uint8_t)c);
  if (c < 0x800)
    return pd__jp_byte(p, (uint8_t)(0xC0 | c >> 6)) && pd__jp_byte(p, (uint8_t)(0x80 | (c & 0x3F)));
  if (c < 0x10000)
    return pd__jp_byte(p, (uint8_t)(0xE0 | c >> 12)) &&
           pd__jp_byte(p, (uint8_t)(0x80 | ((c >> 6) & 0x3F))) &&
           pd__jp_byte(p, (uint8_t)(0x80 | (c & 0x3F)));
  return pd__jp_byte(p, (uint8_t)(0xF0 | c >> 18)) &&
         pd__jp_byte(p, (uint8_t)(0x80 | ((c >> 12) & 0x3F))) &&
         pd__jp_byte(p, (uint8_t)(0x80 | ((c >> 6) & 0x3F))) &&
         pd__jp_byte(p, (uint8_t)(0x80 | (c & 0x3F)));
}

static int pd__hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* hex4 = 4 HEXDIG, at p->i; -1 when malformed. */
static long pd__jp_hex4(pd__jp *p) {
  if (p->len - p->i < 4) return -1;
  long v = 0;
  for (int k = 0; k < 4; k++) {
    int h = pd__hexval(p->s[p->i + k]);
    if (h < 0) return -1;
    v = v * 16 + h;
  }
  p->i += 4;
  return v;
}

/* Length of the valid UTF-8 sequence at s[0..n), or 0 when invalid. */
static size_t pd__utf8_len(const uint8_t *s, size_t n) {
  uint8_t b = s[0];
  size_t k = b < 0x80             ? 1
             : (b & 0xE0) == 0xC0 ? 2
             : (b & 0xF0) == 0xE0 ? 3
             : (b & 0xF8) == 0xF0 ? 4
                                  : 0;
  if (k == 0 || k > n) return 0;
  uint32_t c = k == 1 ? b : k == 2 ? b & 0x1Fu : k == 3 ? b & 0x0Fu : b & 0x07u;
  for (size_t j = 1; j < k; j++) {
    if ((s[j] & 0xC0) != 0x80) return 0;
    c = c << 6 | (s[j] & 0x3Fu);
  }
  static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (c < min[k] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return 0;
  return k;
}

/* escape = "\" ( ["\/bfnrt] | "u" hex4 ), with surrogate pairs joined. */
static pd_status pd__jp_escape(pd__jp *p) {
  static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
  if (p->i >= p->len) return pd__jp_fail(p, "unterminated string");
  char e = p->s[p->i++];
  const char *k = e ? strchr(from, e) : NULL;
  if (k) return pd__jp_byte(p, (uint8_t)to[k - from]) ? PD_OK : PD_ERR_NOMEM;
  if (e != 'u') return pd__jp_fail(p, "bad escape");
  long c = pd__jp_hex4(p);
  if (c < 0) return pd__jp_fail(p, "bad \\u escape");
  if (c >= 0xD800 && c <= 0xDBFF && p->len - p->i >= 6 && p->s[p->i] == '\\' &&
      p->s[p->i + 1] == 'u') {
    size_t save = p->i;
    p->i += 2;
    long lo = pd__jp_hex4(p);
    if (lo >= 0xDC00 && lo <= 0xDFFF)
      c = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
    else
      p->i = save;
  }
  return pd__jp_utf8(p, (uint32_t)c) ? PD_OK : PD_ERR_NOMEM;
}

/* string = '"' *char '"' */
static pd_status pd__jp_string(pd__jp *p, uint32_t *out) {
  uint32_t id = pd__jp_node(p, PD_JSON_STRING, p->i);
  if (id == PD_JSON_NONE) return PD_ERR_NOMEM;
  p->i++;
  size_t start = p->doc->bytes.len;
  for (;;) {
    if (p->i >= p->len) return pd__jp_fail(p, "unterminated string");
    uint8_t b = (uint8_t)p->s[p->i];
    if (b == '"') break;
    if (b < 0x20) return pd__jp_fail(p, "control character in string");
    if (b == '\\') {
      p->i++;
      pd_status st = pd__jp_escape(p);
      if (st) return p->oom ? PD_ERR_NOMEM : st;
      continue;
    }
    size_t k = pd__utf8_len((const uint8_t *)p->s + p->i, p->len - p->i);
    if (!k) return pd__jp_fail(p, "invalid UTF-8");
    for (size_t j = 0; j < k; j++)
      if (!pd__jp_byte(p, (uint8_t)p->s[p->i + j])) return PD_ERR_NOMEM;
    p->i += k;
  }
  p->i++;
  if (!pd__jp_byte(p, 0)) return PD_ERR_NOMEM; /* keeps C string helpers safe */
  p->doc->nodes.data[id].off = (uint32_t)start;
  p->doc->nodes.data[id].n = (uint32_t)(p->doc->bytes.len - 1 - start);
  *out = id;
  return PD_OK;
}

static bool pd__isdigit(char c) {
  return c >= '0' && c <= '9';
}

static size_t pd__digits(const char *s, size_t i, size_t len) {
  while (i < len && pd__isdigit(s[i])) i++;
  return i;
}

/* number = [ "-" ] int [ frac ] [ exp ] */
static pd_status pd__jp_number(pd__jp *p, uint32_t *out) {
  size_t i = p->i, len = p->len;
  const char *s = p->s;
  if (i < len && s[i] == '-') i++;
  if (i >= len || !pd__isdigit(s[i])) return pd__jp_fail(p, "bad number");
  i = s[i] == '0' ? i + 1 : pd__digits(s, i, len);
  if (i < len && s[i] == '.') {
    if (i + 1 >= len || !pd__isdigit(s[i + 1])) return pd__jp_fail(p, "bad number");
    i = pd__digits(s, i + 1, len);
  }
  if (i < len && (s[i] == 'e' || s[i] == 'E')) {
    i++;
    if (i < len && (s[i] == '+' || s[i] == '-')) i++;
    if (i >= len || !pd__isdigit(s[i])) return pd__jp_fail(p, "bad number");
    i = pd__digits(s, i, len);
  }
  uint32_t id = pd__jp_node(p, PD_JSON_NUMBER, p->i);
  size_t start = p->doc->bytes.len;
  if (id == PD_JSON_NONE || !pd_array_reserve(p->doc->alloc, &p->doc->bytes, i - p->i + 1))
    return PD_ERR_NOMEM;
  memcpy(p->doc->bytes.data + start, s + p->i, i - p->i);
  p->doc->bytes.len += i - p->i;
  p->doc->bytes.data[p->doc->bytes.len++] = 0;
  p->doc->nodes.data[id].off = (uint32_t)start;
  p->doc->nodes.data[id].n = (uint32_t)(i - p->i);
  p->i = i;
  *out = id;
  return PD_OK;
}

static pd_status pd__jp_value(pd__jp *p, uint32_t depth, uint32_t *out);

/* Moves the last n stack entries into kids as the slice of container id. */
static pd_status pd__jp_close(pd__jp *p, uint32_t id, size_t base, uint32_t per) {
  size_t n = p->stack.len - base;
  pd_json_doc *d = p->doc;
  if (d->kids.len + n >= UINT32_MAX || !pd_array_reserve(d->alloc, &d->kids, n))
    return PD_ERR_NOMEM;
  if (n) memcpy(d->kids.data + d->kids.len, p->stack.data + base, n * sizeof(uint32_t));
  d->nodes.data[id].off = (uint32_t)d->kids.len;
  d->nodes.data[id].n = (uint32_t)(n / per);
  for (size_t k = 0; k < n; k += per) {
    uint32_t v = p->stack.data[base + k + per - 1];
    d->nodes.data[v].parent = id;
    d->nodes.data[v].key = per == 2 ? p->stack.data[base + k] : (uint32_t)(k);
    if (per == 2) d->nodes.data[p->stack.data[base + k]].parent = id;
  }
  d->kids.len += n;
  p->stack.len = base;
  return PD_OK;
}

static pd_status pd__jp_push(pd__jp *p, uint32_t v) {
  return pd_array_push(p->doc->alloc, &p->stack, v) ? PD_OK : PD_ERR_NOMEM;
}

/* array = "[" [ value *( "," value ) ] "]" ;  object = "{" [ member *( "," member ) ] "}"
 * member = string ":" value */
static pd_status pd__jp_container(pd__jp *p, uint32_t depth, uint32_t *out) {
  bool obj = p->s[p->i] == '{';
  char close = obj ? '}' : ']';
  uint32_t id = pd__jp_node(p, obj ? PD_JSON_OBJECT : PD_JSON_ARRAY, p->i);
  if (id == PD_JSON_NONE) return PD_ERR_NOMEM;
  size_t base = p->stack.len;
  pd_status st;
  p->i++;
  pd__jp_ws(p);
  if (p->i < p->len && p->s[p->i] == close) {
    p->i++;
    *out = id;
    return pd__jp_close(p, id, base, obj ? 2 : 1);
  }
  for (;;) {
    uint32_t k, v;
    pd__jp_ws(p);
    if (obj) {
      if (p->i >= p->len || p->s[p->i] != '"') return pd__jp_fail(p, "expected a key");
      if ((st = pd__jp_string(p, &k)) || (st = pd__jp_push(p, k))) return st;
      pd__jp_ws(p);
      if (p->i >= p->len || p->s[p->i] != ':') return pd__jp_fail(p, "expected ':'");
      p->i++;
    }
    if ((st = pd__jp_value(p, depth + 1, &v)) || (st = pd__jp_push(p, v))) return st;
    pd__jp_ws(p);
    if (p->i < p->len && p->s[p->i] == ',') {
      p->i++;
      continue;
    }
    if (p->i < p->len && p->s[p->i] == close) break;
    return pd__jp_fail(p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
  }
  p->i++;
  *out = id;
  return pd__jp_close(p, id, base, obj ? 2 : 1);
}

/* value = object | array | string | number | "true" | "false" | "null" */
static pd_status pd__jp_value(pd__jp *p, uint32_t depth, uint32_t *out) {
  static const char *const words[3] = {"null", "false", "true"};
  pd__jp_ws(p);
  if (depth > p->max_depth)
    return pd__fail_at(p->err, PD_ERR_LIMIT, p->s, p->i, "JSON nested deeper than %u",
                       p->max_depth);
  if (p->i >= p->len) return pd__jp_fail(p, "unexpected end of text");
  char c = p->s[p->i];
  if (c == '{' || c == '[') return pd__jp_container(p, depth, out);
  if (c == '"') return pd__jp_string(p, out);
  if (c == '-' || pd__isdigit(c)) return pd__jp_number(p, out);
  for (int k = 0; k < 3; k++) {
    size_t n = strlen(words[k]);
    if (p->len - p->i >= n && memcmp(p->s + p->i, words[k], n) == 0) {
      *out = pd__jp_node(p, (pd_json_kind)(PD_JSON_NULL + k), p->i);
      p->i += n;
      return *out == PD_JSON_NONE ? PD_ERR_NOMEM : PD_OK;
    }
  }
  return pd__jp_fail(p, "unexpected character");
}

pd_status pd_json_parse(pd_json_doc *doc, const pd_allocator *alloc, const char *text, size_t len,
                        uint32_t max_depth, pd_error *err) {
  memset(doc, 0, sizeof *doc);
  doc->alloc = pd__alloc_or_default(alloc);
  doc->root = PD_JSON_NONE;
  if (!text) return pd__fail(err, PD_ERR_ARG, "JSON text is NULL");
  pd__jp p = {.doc = doc, .s = text, .len = len, .max_depth = max_depth, .err = err};
  uint32_t root = PD_JSON_NONE;
  pd_status st = pd__jp_value(&p, 0, &root);
  if (!st) {
    pd__jp_ws(&p);
    if (p.i != p.len) st = pd__jp_fail(&p, "trailing characters");
  }
  if (p.oom && (!st || st == PD_ERR_SYNTAX)) st = PD_ERR_NOMEM;
  pd_array_free(doc->alloc, &p.stack);
  if (st) {
    if (st == PD_ERR_NOMEM) pd__nomem(err);
    pd_json_free(doc);
    return st;
  }
  doc->root = root;
  return PD_OK;
}

uint32_t pd_json_add(pd_json_doc *doc, pd_json_kind kind, const void *bytes, size_t n_bytes,
                     const uint32_t *kids, uint32_t n_kids) {
  pd_json_node nd = {(uint8_t)kind, PD_JSON_NONE, PD_JSON_NONE, 0, 0, 0};
  if (kind == PD_JSON_STRING || kind == PD_JSON_NUMBER) {
    nd.off = (uint32_t)doc->bytes.len;
    nd.n = (uint32_t)n_bytes;
    /* NUL-terminated like parsed strings, so pd_json_str is a C string */
    if (!pd_array_reserve(doc->alloc, &doc->bytes, n_bytes + 1)) return PD_JSON_NONE;
    if (n_bytes) memcpy(doc->bytes.data + doc->bytes.len, bytes, n_bytes);
    doc->bytes.data[doc->bytes.len + n_bytes] = 0;
    doc->bytes.len += n_bytes + 1;
  } else if (kind == PD_JSON_ARRAY || kind == PD_JSON_OBJECT) {
    nd.off = (uint32_t)doc->kids.len;
    nd.n = kind == PD_JSON_OBJECT ? n_kids / 2 : n_kids;
    if (!pd_array_reserve(doc->alloc, &doc->kids, n_kids ? n_kids : 1)) return PD_JSON_NONE;
    if (n_kids) memcpy(doc->kids.data + doc->kids.len, kids, n_kids * sizeof *kids);
    doc->kids.len += n_kids;
  }
  if (!pd_array_push(doc->alloc, &doc->nodes, nd)) return PD_JSON_NONE;
  uint32_t id = (uint32_t)doc->nodes.len - 1;
  for (uint32_t i = 0; i < n_kids; i++) {
    pd_json_node *k = &doc->nodes.data[kids[i]];
    /* a node placed in a second container keeps its first: the parents of a
     * schema say which resource its relative "$ref"s resolve in */
    if (k->parent != PD_JSON_NONE) continue;
    k->parent = id;
    k->key = kind == PD_JSON_OBJECT ? (i % 2 ? kids[i - 1] : PD_JSON_NONE) : i;
  }
  return id;
}

uint32_t pd_json_graft(pd_json_doc *doc, const pd_json_doc *src) {
  uint32_t nb = (uint32_t)doc->nodes.len, kb = (uint32_t)doc->kids.len;
  uint32_t bb = (uint32_t)doc->bytes.len;
  if (!pd_array_reserve(doc->alloc, &doc->nodes, src->nodes.len) ||
      !pd_array_reserve(doc->alloc, &doc->kids, src->kids.len) ||
      !pd_array_reserve(doc->alloc, &doc->bytes, src->bytes.len))
    return PD_JSON_NONE;
  for (size_t i = 0; i < src->nodes.len; i++) {
    pd_json_node n = src->nodes.data[i];
    /* an element's key is its index; a member's, the key's node */
    if (n.parent != PD_JSON_NONE && src->nodes.data[n.parent].kind == PD_JSON_OBJECT &&
        n.key != PD_JSON_NONE)
      n.key += nb;
    if (n.parent != PD_JSON_NONE) n.parent += nb;
    if (n.kind == PD_JSON_STRING || n.kind == PD_JSON_NUMBER) n.off += bb;
    if (n.kind == PD_JSON_ARRAY || n.kind == PD_JSON_OBJECT) n.off += kb;
    doc->nodes.data[doc->nodes.len++] = n;
  }
  for (size_t i = 0; i < src->kids.len; i++)
    doc->kids.data[doc->kids.len++] = src->kids.data[i] + nb;
  if (src->bytes.len) memcpy(doc->bytes.data + bb, src->bytes.data, src->bytes.len);
  doc->bytes.len += src->bytes.len;
  return src->root + nb;
}

void pd_json_free(pd_json_doc *doc) {
  pd_array_free(doc->alloc, &doc->nodes);
  pd_array_free(doc->alloc, &doc->kids);
  pd_array_free(doc->alloc, &doc->bytes);
  doc->root = PD_JSON_NONE;
}

bool pd_json_str_eq(const pd_json_doc *d, uint32_t id, const char *s) {
  const pd_json_node *n = pd_json_at(d, id);
  return n->kind == PD_JSON_STRING && strlen(s) == n->n && memcmp(pd_json_str(d, id), s, n->n) == 0;
}

uint32_t pd_json_get(const pd_json_doc *d, uint32_t id, const char *key) {
  if (id == PD_JSON_NONE || pd_json_at(d, id)->kind != PD_JSON_OBJECT) return PD_JSON_NONE;
  for (uint32_t i = pd_json_len(d, id); i-- > 0;)
    if (pd_json_str_eq(d, pd_json_mkey(d, id, i), key)) return pd_json_mval(d, id, i);
  return PD_JSON_NONE;
}

/* ------------------------------------------------------------- numbers */

void pd_json_dec_parse(const char *s, size_t len, char *buf, pd_json_dec *out) {
  size_t i = 0, n = 0;
  int64_t exp = 0;
  bool neg = s[0] == '-', seen_nonzero = false;
  if (neg) i++;
  for (; i < len && pd__isdigit(s[i]); i++) {
    if (s[i] != '0' || seen_nonzero) {
      seen_nonzero = true;
      buf[n++] = s[i];
      exp++;
    }
  }
  if (i < len && s[i] == '.') {
    for (i++; i < len && pd__isdigit(s[i]); i++) {
      if (s[i] != '0' || seen_nonzero) {
        seen_nonzero = true;
        buf[n++] = s[i];
      } else {
        exp--;
      }
    }
  }
  if (i < len && (s[i] == 'e' || s[i] == 'E')) {
    bool eneg = s[++i] == '-';
    if (s[i] == '-' || s[i] == '+') i++;
    int64_t e = 0;
    for (; i < len && pd__isdigit(s[i]); i++)
      if (e < ((int64_t)1 << 40)) e = e * 10 + (s[i] - '0');
    exp += eneg ? -e : e;
  }
  while (n > 0 && buf[n - 1] == '0') n--;
  out->neg = n > 0 && neg;
  out->exp = n > 0 ? exp : 0;
  out->digits = buf;
  out->n = n;
}

void pd_json_number(const pd_json_doc *d, uint32_t id, char *buf, pd_json_dec *out) {
  const pd_json_node *n = pd_json_at(d, id);
  pd_json_dec_parse((const char *)d->bytes.data + n->off, n->n, buf, out);
}

static int pd__mag_cmp(const pd_json_dec *a, const pd_json_dec *b) {
  if (a->n == 0 || b->n == 0) return (a->n > 0) - (b->n > 0);
  if (a->exp != b->exp) return a->exp < b->exp ? -1 : 1;
  size_t m = a->n < b->n ? a->n : b->n;
  int c = memcmp(a->digits, b->digits, m);
  if (c) return c < 0 ? -1 : 1;
  return (a->n > b->n) - (a->n < b->n);
}

int pd_json_dec_cmp(const pd_json_dec *a, const pd_json_dec *b) {
  if (a->neg != b->neg) return a->neg ? -1 : 1;
  int c = pd__mag_cmp(a, b);
  return a->neg ? -c : c;
}

bool pd_json_dec_is_int(const pd_json_dec *a) {
  return a->n == 0 || (int64_t)a->n <= a->exp;
}

static bool pd__num_equal(const pd_json_doc *d, uint32_t a, uint32_t b) {
  char stack_a[64], stack_b[64];
  size_t na = pd_json_at(d, a)->n, nb = pd_json_at(d, b)->n;
  if (na > sizeof stack_a || nb > sizeof stack_b) { /* long texts: compare normalized in place */
    char *ba = pd__malloc(d->alloc, na + 1), *bb = pd__malloc(d->alloc, nb + 1);
    bool eq = false;
    if (ba && bb) {
      pd_json_dec x, y;
      pd_json_number(d, a, ba, &x);
      pd_json_number(d, b, bb, &y);
      eq = pd_json_dec_cmp(&x, &y) == 0;
    }
    pd__free(d->alloc, ba);
    pd__free(d->alloc, bb);
    return eq;
  }
  pd_json_dec x, y;
  pd_json_number(d, a, stack_a, &x);
  pd_json_number(d, b, stack_b, &y);
  return pd_json_dec_cmp(&x, &y) == 0;
}

/* ------------------------------------------------------------- equality */

static bool pd__obj_equal(const pd_json_doc *d, uint32_t a, uint32_t b) {
  uint32_t n = pd_json_len(d, a);
  if (n != pd_json_len(d, b)) return false;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t v = pd_json_get(d, b, pd_json_str(d, pd_json_mkey(d, a, i)));
    if (v == PD_JSON_NONE || !pd_json_equal(d, pd_json_mval(d, a, i), v)) return false;
  }
  return true;
}

bool pd_json_equal(const pd_json_doc *d, uint32_t a, uint32_t b) {
  const pd_json_node *x = pd_json_at(d, a), *y = pd_json_at(d, b);
  if (x->kind != y->kind) return false;
  switch ((pd_json_kind)x->kind) {
    case PD_JSON_NUMBER:
      return pd__num_equal(d, a, b);
    case PD_JSON_STRING:
      return x->n == y->n && memcmp(pd_json_str(d, a), pd_json_str(d, b), x->n) == 0;
    case PD_JSON_ARRAY:
      if (x->n != y->n) return false;
      for (uint32_t i = 0; i < x->n; i++)
        if (!pd_json_equal(d, pd_json_elem(d, a, i), pd_json_elem(d, b, i))) return false;
      return true;
    case PD_JSON_OBJECT:
      return pd__obj_equal(d, a, b);
    default:
      return true;
  }
}

/* ------------------------------------------------------------- pointers */

static size_t pd__ptr_put(char *out, size_t cap, size_t at, const char *s, size_t n) {
  for (size_t i = 0; i < n && at + 1 < cap; i++) out[at++] = s[i];
  return at;
}

void pd_json_pointer(const pd_json_doc *d, uint32_t id, char *out, size_t cap) {
  uint32_t path[64];
  size_t depth = 0, at = 0;
  for (uint32_t c = id; c != PD_JSON_NONE && pd_json_at(d, c)->parent != PD_JSON_NONE && depth < 64;
       c = pd_json_at(d, c)->parent)
    path[depth++] = c;
  if (cap == 0) return;
  while (depth-- > 0) {
    uint32_t c = path[depth];
    const pd_json_node *n = pd_json_at(d, c), *par = pd_json_at(d, n->parent);
    at = pd__ptr_put(out, cap, at, "/", 1);
    if (par->kind == PD_JSON_ARRAY) {
      char b[16];
      int k = snprintf(b, sizeof b, "%u", n->key);
      at = pd__ptr_put(out, cap, at, b, (size_t)k);
      continue;
    }
    if (par->kind != PD_JSON_OBJECT) continue; /* a key string itself */
    const char *k = pd_json_str(d, n->key);
    for (uint32_t i = 0; i < pd_json_at(d, n->key)->n; i++)
      at = k[i] == '~'   ? pd__ptr_put(out, cap, at, "~0", 2)
           : k[i] == '/' ? pd__ptr_put(out, cap, at, "~1", 2)
                         : pd__ptr_put(out, cap, at, k + i, 1);
  }
  out[at] = '\0';
}
