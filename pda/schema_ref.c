/* schema_ref.c - $ref targets inside the schema document: "#", JSON pointers
 * ("#/$defs/a", percent-encoded), plain-name anchors ("#foo" via $anchor or a
 * draft-06/07 "$id": "#foo"), and references to an embedded resource by its
 * $id (exact text or last path segment). Remote documents are not fetched:
 * such a $ref is a compile error naming it. */
#include <string.h>

#include "base/error.h"
#include "pda/schema_ctx.h"

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

/* The nearest enclosing node (or s itself) carrying a string $id: the base of
 * fragment-only references; the document root when none. */
static uint32_t pd__resource(pd_sc *sc, uint32_t s) {
  for (uint32_t c = s; c != PD_JSON_NONE; c = pd_json_at(&sc->doc, c)->parent) {
    uint32_t id = pd_json_get(&sc->doc, c, "$id");
    if (id != PD_JSON_NONE && pd_json_at(&sc->doc, id)->kind == PD_JSON_STRING &&
        pd_json_str(&sc->doc, id)[0] != '#')
      return c;
  }
  return sc->doc.root;
}

/* A node whose keyword kw (a string) equals v[0..n), or whose $id ends with
 * "/" + v when by_suffix; inside resource `within` unless that is NONE. */
static uint32_t pd__find(pd_sc *sc, const char *kw, const char *v, size_t n, bool by_suffix,
                         uint32_t within) {
  for (uint32_t i = 0; i < sc->doc.nodes.len; i++) {
    if (pd_json_at(&sc->doc, i)->kind != PD_JSON_OBJECT) continue;
    if (within != PD_JSON_NONE && pd__resource(sc, i) != within) continue;
    uint32_t x = pd_json_get(&sc->doc, i, kw);
    if (x == PD_JSON_NONE || pd_json_at(&sc->doc, x)->kind != PD_JSON_STRING) continue;
    const char *s = pd_json_str(&sc->doc, x);
    size_t m = pd_json_at(&sc->doc, x)->n;
    if (m == n && memcmp(s, v, n) == 0) return i;
    if (by_suffix && m > n && s[m - n - 1] == '/' && memcmp(s + m - n, v, n) == 0) return i;
  }
  return PD_JSON_NONE;
}

/* The node a resource part (before '#') names, or NONE. */
static uint32_t pd__by_id(pd_sc *sc, const char *r, size_t n) {
  uint32_t t = pd__find(sc, "$id", r, n, false, PD_JSON_NONE);
  if (t == PD_JSON_NONE) t = pd__find(sc, "$id", r, n, true, PD_JSON_NONE);
  if (t == PD_JSON_NONE) { /* the last path segment of an absolute reference */
    size_t k = n;
    while (k > 0 && r[k - 1] != '/') k--;
    if (k > 0 && k < n) t = pd__find(sc, "$id", r + k, n - k, false, PD_JSON_NONE);
  }
  return t;
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
  return st == PD_OK && *target != PD_JSON_NONE;
}

pd_status pd_sc_ref_resolve(pd_sc *sc, uint32_t schema, uint32_t ref, uint32_t *target) {
  if (pd_json_at(&sc->doc, ref)->kind != PD_JSON_STRING)
    return pd_sc_fail(sc, PD_ERR_SEMANTIC, ref, "'$ref' must be a string");
  const char *r = pd_json_str(&sc->doc, ref);
  size_t n = pd_json_at(&sc->doc, ref)->n, hash = 0;
  while (hash < n && r[hash] != '#') hash++;
  uint32_t base = hash == 0 ? pd__resource(sc, schema) : pd__by_id(sc, r, hash);
  *target = PD_JSON_NONE;
  if (base == PD_JSON_NONE) /* lenient: dropped, *target stays NONE */
    return pd_sc_unsupported(sc, ref, "$ref", "remote reference (not fetched)");
  const char *frag = r + hash + (hash < n);
  size_t fn = hash < n ? n - hash - 1 : 0;
  uint32_t t = base;
  if (fn > 0 && frag[0] == '/') {
    char *buf = pd__malloc(sc->ir.alloc, fn + 1);
    if (!buf) return pd__nomem(sc->err);
    t = pd__follow(sc, base, frag, fn, buf);
    pd__free(sc->ir.alloc, buf);
  } else if (fn > 0) {
    t = pd__find(sc, "$anchor", frag, fn, false, base);
    if (t == PD_JSON_NONE) t = pd__find(sc, "$dynamicAnchor", frag, fn, false, base);
    if (t == PD_JSON_NONE) t = pd__find(sc, "$id", frag - 1, fn + 1, false, PD_JSON_NONE);
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
