/* schema_ref.c - $ref targets inside the schema document. Every $id is
 * resolved against the URI of the resource around it, and a $ref against the
 * URI of its own resource (RFC 3986, uri.c); the result names an embedded
 * resource exactly, and its fragment is empty, a JSON pointer ("#/$defs/a",
 * percent-encoded) or a plain-name anchor ($anchor, $dynamicAnchor or a
 * draft-06/07 "$id": "#foo") of that resource. Remote documents are not
 * fetched: such a $ref is a compile error naming it. */
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "pda/schema_ctx.h"
#include "pda/uri.h"

static int pd__hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Decodes one pointer token (percent escapes, then ~1 -> '/', ~0 -> '~'). */
static size_t pd__token(const char *s, size_t n, char *out) {
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (c == '%' && i + 2 < n && pd__hex(s[i + 1]) >= 0 && pd__hex(s[i + 2]) >= 0) {
      c = (char)(pd__hex(s[i + 1]) * 16 + pd__hex(s[i + 2]));
      i += 2;
    }
    out[m++] = c;
  }
  size_t w = 0;
  for (size_t i = 0; i < m; i++) {
    if (out[i] == '~' && i + 1 < m && (out[i + 1] == '0' || out[i + 1] == '1')) {
      out[w++] = out[i + 1] == '1' ? '/' : '~';
      i++;
    } else {
      out[w++] = out[i];
    }
  }
  return w;
}

/* Follows pointer p[0..n) (after the '#') from node at. */
static uint32_t pd__follow(pd_sc *sc, uint32_t at, const char *p, size_t n, char *buf) {
  size_t i = 0;
  while (at != PD_JSON_NONE && i < n) {
    if (p[i] != '/') return PD_JSON_NONE;
    size_t j = i + 1;
    while (j < n && p[j] != '/') j++;
    size_t len = pd__token(p + i + 1, j - i - 1, buf);
    const pd_json_node *node = pd_json_at(&sc->doc, at);
    uint32_t next = PD_JSON_NONE;
    if (node->kind == PD_JSON_OBJECT) {
      for (uint32_t k = pd_json_len(&sc->doc, at); k-- > 0;) {
        uint32_t key = pd_json_mkey(&sc->doc, at, k);
        if (pd_json_at(&sc->doc, key)->n == len &&
            memcmp(pd_json_str(&sc->doc, key), buf, len) == 0) {
          next = pd_json_mval(&sc->doc, at, k);
          break;
        }
      }
    } else if (node->kind == PD_JSON_ARRAY && len > 0 && len < 10 && (buf[0] != '0' || len == 1)) {
      uint32_t idx = 0;
      bool ok = true;
      for (size_t k = 0; k < len; k++) {
        ok = ok && buf[k] >= '0' && buf[k] <= '9';
        idx = idx * 10 + (uint32_t)(buf[k] - '0');
      }
      if (ok && idx < node->n) next = pd_json_elem(&sc->doc, at, idx);
    }
    at = next;
    i = j;
  }
  return at;
}

/* The base URI of a document whose root has no $id. */
#define PD__ROOT_BASE "pushdown:/schema.json"

/* Node's $id when it names a resource: a string, not a draft-06/07 plain-name
 * anchor ("#foo"), and not beside a $ref that stands alone (draft-07 and
 * before ignore the siblings of $ref, $id among them). */
static uint32_t pd__id(const pd_sc *sc, uint32_t node) {
  if (pd_json_at(&sc->doc, node)->kind != PD_JSON_OBJECT) return PD_JSON_NONE;
  uint32_t id = pd_json_get(&sc->doc, node, "$id");
  if (id == PD_JSON_NONE || pd_json_at(&sc->doc, id)->kind != PD_JSON_STRING ||
      pd_json_str(&sc->doc, id)[0] == '#')
    return PD_JSON_NONE;
  if (sc->ref_alone && pd_json_get(&sc->doc, node, "$ref") != PD_JSON_NONE) return PD_JSON_NONE;
  return id;
}

/* The nearest enclosing node (or s itself) with an $id: the resource whose
 * URI relative references in s resolve against; the root of s's document
 * (the schema's, or one of schema_docs) when none. */
static uint32_t pd__resource(pd_sc *sc, uint32_t s) {
  uint32_t top = sc->doc.root;
  for (uint32_t c = s; c != PD_JSON_NONE; top = c, c = pd_json_at(&sc->doc, c)->parent)
    if (pd__id(sc, c) != PD_JSON_NONE) return c;
  return top < sc->n_parsed ? top : sc->doc.root; /* a derived schema: the root's */
}

static bool pd__key_in(const pd_sc *sc, uint32_t key, const char *const *list) {
  for (; *list; list++)
    if (pd_json_str_eq(&sc->doc, key, *list)) return true;
  return false;
}

/* Adds resource node with URI base[0..bn) + the $id id resolved against it. */
static pd_status pd__add(pd_sc *sc, uint32_t node, const char *base, size_t bn, uint32_t id) {
  const pd_allocator *a = sc->ir.alloc;
  const char *frag;
  size_t fn, n = bn;
  char *uri = id == PD_JSON_NONE ? NULL
                                 : pd_uri_resolve(a, base, bn, pd_json_str(&sc->doc, id),
                                                  pd_json_at(&sc->doc, id)->n, &frag, &fn);
  if (uri) n = strlen(uri);
  pd_sc_resource r = {node, (uint32_t)sc->uris.len, (uint32_t)n};
  bool ok = (id == PD_JSON_NONE || uri) && pd_array_reserve(a, &sc->uris, n + 1) &&
            pd_array_push(a, &sc->res, r);
  if (ok) {
    memcpy(sc->uris.data + sc->uris.len, uri ? uri : base, n);
    sc->uris.len += n;
  }
  pd__free(a, uri);
  return ok ? PD_OK : pd__nomem(sc->err);
}

/* A walk from root (resource base of the table) that resolves each $id
 * against the URI of the resource around it. The values of const, enum,
 * examples and default are data, and the members of properties, $defs and the
 * like are schemas whatever their names, so neither is taken for a keyword. */
static pd_status pd__walk(pd_sc *sc, uint32_t root, uint32_t base) {
  static const char *const data[] = {"const", "enum", "examples", "default", NULL};
  static const char *const maps[] = {"properties",       "patternProperties", "$defs",
                                     "definitions",      "dependentSchemas",  "dependencies",
                                     NULL};
  enum { SCHEMA, MAP };
  typedef struct {
    uint32_t node, base, kind;
  } frame;
  const pd_allocator *a = sc->ir.alloc;
  pd_status st = PD_OK;
  PD_ARRAY(frame) stack = {0};
  if (!pd_array_push(a, &stack, ((frame){root, base, SCHEMA}))) st = pd__nomem(sc->err);
  while (!st && stack.len) {
    frame f = stack.data[--stack.len];
    const pd_json_node *x = pd_json_at(&sc->doc, f.node);
    uint32_t id = f.kind == SCHEMA && f.node != root ? pd__id(sc, f.node) : PD_JSON_NONE;
    if (id != PD_JSON_NONE) {
      const pd_sc_resource *b = &sc->res.data[f.base];
      f.base = (uint32_t)sc->res.len;
      if ((st = pd__add(sc, f.node, sc->uris.data + b->off, b->len, id))) break;
    }
    for (uint32_t i = 0; i < x->n && (x->kind == PD_JSON_OBJECT || x->kind == PD_JSON_ARRAY); i++) {
      frame g = {PD_JSON_NONE, f.base, SCHEMA};
      if (x->kind == PD_JSON_ARRAY) {
        g.node = pd_json_elem(&sc->doc, f.node, i);
      } else {
        uint32_t key = pd_json_mkey(&sc->doc, f.node, i);
        if (f.kind == SCHEMA && pd__key_in(sc, key, data)) continue;
        g.node = pd_json_mval(&sc->doc, f.node, i);
        g.kind = f.kind == SCHEMA && pd__key_in(sc, key, maps) ? MAP : SCHEMA;
      }
      if (!pd_array_push(a, &stack, g)) {
        st = pd__nomem(sc->err);
        break;
      }
    }
  }
  pd_array_free(a, &stack);
  return st;
}

/* The resource table: the schema's root (its $id against PD__ROOT_BASE),
 * then each of schema_docs by its URI and, first, by its root's $id against
 * that URI (the base of its own references); then everything under them. */
static pd_status pd__resources(pd_sc *sc) {
  const char *rb = PD__ROOT_BASE;
  pd_status st = pd__add(sc, sc->doc.root, rb, strlen(rb), pd__id(sc, sc->doc.root));
  if (!st) st = pd__walk(sc, sc->doc.root, 0);
  for (size_t i = 0; i < sc->doc_roots.len && !st; i++) {
    uint32_t root = sc->doc_roots.data[i], id = pd__id(sc, root), at = (uint32_t)sc->res.len;
    const char *u = sc->opts.schema_docs[i].uri, *frag;
    size_t fn;
    char *uri = pd_uri_resolve(sc->ir.alloc, u, strlen(u), "", 0, &frag, &fn);
    if (!uri) return pd__nomem(sc->err);
    if (id != PD_JSON_NONE) st = pd__add(sc, root, uri, strlen(uri), id);
    if (!st) st = pd__add(sc, root, uri, strlen(uri), PD_JSON_NONE);
    pd__free(sc->ir.alloc, uri);
    if (!st) st = pd__walk(sc, root, at);
  }
  return st;
}

/* The index of resource node r in the table (the root's when r is none of them). */
static uint32_t pd__res_of(const pd_sc *sc, uint32_t r) {
  for (uint32_t i = 0; i < sc->res.len; i++)
    if (sc->res.data[i].node == r) return i;
  return 0;
}

/* A node inside resource `within` whose keyword kw (a string) equals
 * prefix + v[0..n) (prefix: "" or "#"). */
static uint32_t pd__find(pd_sc *sc, const char *kw, const char *prefix, const char *v, size_t n,
                         uint32_t within) {
  size_t pn = strlen(prefix);
  for (uint32_t i = 0; i < sc->n_parsed; i++) {
    if (pd_json_at(&sc->doc, i)->kind != PD_JSON_OBJECT) continue;
    uint32_t x = pd_json_get(&sc->doc, i, kw);
    if (x == PD_JSON_NONE || pd_json_at(&sc->doc, x)->kind != PD_JSON_STRING) continue;
    const char *s = pd_json_str(&sc->doc, x);
    if (pd_json_at(&sc->doc, x)->n == pn + n && !memcmp(s, prefix, pn) && !memcmp(s + pn, v, n) &&
        pd__resource(sc, i) == within)
      return i;
  }
  return PD_JSON_NONE;
}

uint32_t pd_sc_alone(pd_sc *sc, uint32_t s) {
  for (int hops = 0; sc->ref_alone && hops < 16; hops++) {
    uint32_t ref = pd_json_get(&sc->doc, s, "$ref"), t;
    if (ref == PD_JSON_NONE || !pd_sc_ref_quiet(sc, s, ref, false, &t) || t == s) break;
    s = t;
  }
  return s;
}

bool pd_sc_ref_quiet(pd_sc *sc, uint32_t schema, uint32_t ref, bool dynamic, uint32_t *target) {
  pd_error *saved = sc->err;
  bool lenient = sc->opts.lenient;
  sc->err = NULL;
  sc->opts.lenient = false; /* the compile proper reports (or notes) what does not resolve */
  pd_status st = dynamic ? pd_sc_dynref_resolve(sc, schema, ref, target)
                         : pd_sc_ref_resolve(sc, schema, ref, target);
  sc->opts.lenient = lenient;
  sc->err = saved;
  if (st == PD_ERR_NOMEM) sc->ir.oom = true; /* the compile fails with it, not with a guess */
  return st == PD_OK && *target != PD_JSON_NONE;
}

pd_status pd_sc_ref_resolve(pd_sc *sc, uint32_t schema, uint32_t ref, uint32_t *target) {
  if (pd_json_at(&sc->doc, ref)->kind != PD_JSON_STRING)
    return pd_sc_fail(sc, PD_ERR_SEMANTIC, ref, "'$ref' must be a string");
  pd_status st;
  if (!sc->res.len && (st = pd__resources(sc))) {
    sc->res.len = sc->uris.len = 0; /* a partial table would miss resources: made again */
    return st;
  }
  *target = PD_JSON_NONE;
  const pd_sc_resource *b = &sc->res.data[pd__res_of(sc, pd__resource(sc, schema))];
  const char *frag;
  size_t fn;
  char *uri = pd_uri_resolve(sc->ir.alloc, sc->uris.data + b->off, b->len,
                             pd_json_str(&sc->doc, ref), pd_json_at(&sc->doc, ref)->n, &frag, &fn);
  if (!uri) return pd__nomem(sc->err);
  size_t n = strlen(uri);
  uint32_t base = PD_JSON_NONE, count = 0;
  for (uint32_t i = 0; i < sc->res.len; i++)
    if (sc->res.data[i].len == n && !memcmp(sc->uris.data + sc->res.data[i].off, uri, n) &&
        sc->res.data[i].node != base) /* a document may be named twice: by URI and $id */
      base = base == PD_JSON_NONE ? sc->res.data[i].node : base, count++;
  pd__free(sc->ir.alloc, uri);
  if (count > 1)
    return pd_sc_fail(sc, PD_ERR_SEMANTIC, ref, "two schemas have the $id of this $ref");
  if (base == PD_JSON_NONE) /* lenient: dropped, *target stays NONE */
    return pd_sc_unsupported(sc, ref, "$ref", "remote reference (not fetched)");
  uint32_t t = base;
  if (fn > 0 && frag[0] == '/') {
    char *buf = pd__malloc(sc->ir.alloc, fn + 1);
    if (!buf) return pd__nomem(sc->err);
    t = pd__follow(sc, base, frag, fn, buf);
    pd__free(sc->ir.alloc, buf);
  } else if (fn > 0) {
    t = pd__find(sc, "$anchor", "", frag, fn, base);
    if (t == PD_JSON_NONE) t = pd__find(sc, "$dynamicAnchor", "", frag, fn, base);
    if (t == PD_JSON_NONE) t = pd__find(sc, "$id", "#", frag, fn, base);
  }
  if (t == PD_JSON_NONE) return pd_sc_fail(sc, PD_ERR_SEMANTIC, ref, "unresolved $ref");
  *target = t;
  return PD_OK;
}

/* $dynamicRef resolves as $ref does, then, when its target carries a
 * $dynamicAnchor of the fragment's name, to the outermost resource of the
 * dynamic scope with that anchor. When no other node of the document has
 * that anchor, every scope resolves to the target itself: a plain $ref.
 * Otherwise the result depends on the evaluation path, which is refused. */
pd_status pd_sc_dynref_resolve(pd_sc *sc, uint32_t schema, uint32_t ref, uint32_t *target) {
  pd_status st = pd_sc_ref_resolve(sc, schema, ref, target);
  if (st || *target == PD_JSON_NONE) return st;
  const char *r = pd_json_str(&sc->doc, ref), *frag = memchr(r, '#', pd_json_at(&sc->doc, ref)->n);
  if (!frag || frag[1] == '/' || frag[1] == 0) return PD_OK;
  frag++;
  size_t fn = pd_json_at(&sc->doc, ref)->n - (size_t)(frag - r);
  uint32_t da = pd_json_get(&sc->doc, *target, "$dynamicAnchor");
  if (da == PD_JSON_NONE || pd_json_at(&sc->doc, da)->kind != PD_JSON_STRING ||
      pd_json_at(&sc->doc, da)->n != fn || memcmp(pd_json_str(&sc->doc, da), frag, fn) != 0)
    return PD_OK; /* no matching dynamic anchor: a plain $ref */
  uint32_t count = 0;
  for (uint32_t i = 0; i < sc->n_parsed; i++) {
    if (pd_json_at(&sc->doc, i)->kind != PD_JSON_OBJECT) continue;
    uint32_t x = pd_json_get(&sc->doc, i, "$dynamicAnchor");
    if (x != PD_JSON_NONE && pd_json_at(&sc->doc, x)->kind == PD_JSON_STRING &&
        pd_json_at(&sc->doc, x)->n == fn && memcmp(pd_json_str(&sc->doc, x), frag, fn) == 0)
      count++;
  }
  if (count <= 1) return PD_OK;
  *target = PD_JSON_NONE;
  return pd_sc_unsupported(sc, ref, "$dynamicRef", "resolution depends on the dynamic scope");
}
