/* test_schema_refs.c - references: $id and $ref as URIs, documents named by
 * URI (schema_docs), $dynamicRef, and draft-07's "$ref" that ignores its
 * siblings. */
#include "schema_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* $id and $ref resolve as URIs (RFC 3986): against the resource around them,
 * exactly, never by a name's last segment. */
static void test_ref_uris(void **state) {
  (void)state;
  /* relative $ids chain: nested/foo.json's "./bar.json" is nested/bar.json */
  const char *chain =
      "{\"$id\":\"https://e.x/a/base.json\",\"$ref\":\"nested/foo.json\",\"$defs\":{"
      "\"foo\":{\"$id\":\"nested/foo.json\",\"$ref\":\"./bar.json\"},"
      "\"bar\":{\"$id\":\"nested/bar.json\",\"type\":\"number\"},"
      "\"decoy\":{\"$id\":\"bar.json\",\"type\":\"string\"}}}";
  ACCEPT(chain, "5");
  REJECT(chain, "\"a\"");
  /* an absolute path replaces the base's whole path */
  const char *abs = "{\"$id\":\"http://e.x/ref/absref.json\",\"$defs\":{"
                    "\"a\":{\"$id\":\"http://e.x/ref/absref/foobar.json\",\"type\":\"number\"},"
                    "\"b\":{\"$id\":\"http://e.x/absref/foobar.json\",\"type\":\"string\"}},"
                    "\"$ref\":\"/absref/foobar.json\"}";
  ACCEPT(abs, "\"a\"");
  REJECT(abs, "1");
  /* a pointer and an anchor inside an embedded resource, by its URI */
  const char *emb = "{\"$id\":\"http://e.x/root.json\",\"allOf\":[{\"$ref\":\"item.json#/$defs/n\"},"
                    "{\"$ref\":\"item.json#pos\"}],\"$defs\":{\"item\":{\"$id\":\"item.json\","
                    "\"$defs\":{\"n\":{\"type\":\"integer\"},\"p\":{\"$anchor\":\"pos\","
                    "\"minimum\":1}}}}}";
  ACCEPT(emb, "3");
  REJECT(emb, "0");
  REJECT(emb, "1.5");
  /* an anchor belongs to its resource: the root has no "pos" */
  pdt_refused("{\"$id\":\"http://e.x/r.json\",\"$ref\":\"#pos\",\"$defs\":{\"i\":{\"$id\":"
              "\"i.json\",\"$anchor\":\"pos\"}}}",
              PD_ERR_SEMANTIC, "$ref");
  /* the same last segment under another path is another document */
  pdt_refused("{\"$id\":\"http://e.x/a/r.json\",\"$ref\":\"other.json\",\"$defs\":{\"o\":{\"$id\":"
              "\"http://e.x/b/other.json\",\"type\":\"string\"}}}",
              PD_ERR_UNSUPPORTED, "$ref");
  /* an $id inside enum or const is data, not a resource */
  pdt_refused("{\"$id\":\"http://e.x/r.json\",\"$ref\":\"d.json\",\"enum\":[{\"$id\":\"d.json\"}]}",
              PD_ERR_UNSUPPORTED, "$ref");
  /* a property named like a data keyword is still a schema */
  const char *named = "{\"$id\":\"http://e.x/r.json\",\"properties\":{\"const\":{\"$id\":\"c.json\","
                      "\"type\":\"integer\"}},\"$defs\":{\"x\":{\"$ref\":\"c.json\"}},"
                      "\"additionalProperties\":{\"$ref\":\"c.json\"}}";
  ACCEPT(named, "{\"z\":1}");
  REJECT(named, "{\"z\":\"s\"}");
  /* two resources with one URI: which one is meant is not known */
  pdt_refused("{\"$id\":\"http://e.x/r.json\",\"$ref\":\"d.json\",\"$defs\":{\"a\":{\"$id\":\"d.json\"},"
              "\"b\":{\"$id\":\"http://e.x/d.json\"}}}",
              PD_ERR_SEMANTIC, "$ref");
  /* draft-07: an $id beside $ref does not move the $ref's base */
  const char *d7 = "{\"$schema\":\"http://json-schema.org/draft-07/schema#\","
                   "\"$id\":\"http://e.x/r.json\",\"definitions\":{"
                   "\"a\":{\"$id\":\"http://e.x/sub/\",\"$ref\":\"t.json\"},"
                   "\"t\":{\"$id\":\"t.json\",\"type\":\"integer\"},"
                   "\"u\":{\"$id\":\"sub/t.json\",\"type\":\"string\"}},\"$ref\":\"#/definitions/a\"}";
  ACCEPT(d7, "1");
  REJECT(d7, "\"s\"");
  /* a document without $id: relative references resolve among its own */
  ACCEPT("{\"$ref\":\"x.json\",\"$defs\":{\"x\":{\"$id\":\"x.json\",\"const\":2}}}", "2");
  REJECT("{\"$ref\":\"x.json\",\"$defs\":{\"x\":{\"$id\":\"x.json\",\"const\":2}}}", "3");
}

static bool pdt_accepts_docs(const char *schema, const pd_schema_doc *docs, size_t n,
                             const char *text) {
  pd_grammar_options o = pdt_opts();
  o.schema_docs = docs, o.n_schema_docs = n;
  return pdt_accepts_o(schema, &o, text);
}

static pd_status pdt_compile_docs(const char *schema, const pd_schema_doc *docs, size_t n,
                                  pd_error *err) {
  pd_grammar_options o = pdt_opts();
  o.schema_docs = docs, o.n_schema_docs = n;
  pd_grammar *g = NULL;
  pd_status st = pd_grammar_compile_json_schema(schema, strlen(schema), NULL, &o, &g, err);
  pd_grammar_free(g);
  return st;
}

/* Documents a $ref names by URI (pd_grammar_options.schema_docs). */
static void test_schema_docs(void **state) {
  (void)state;
  static const char defs[] = "{\"$defs\":{\"pos\":{\"type\":\"integer\",\"minimum\":1},"
                             "\"s\":{\"$anchor\":\"str\",\"type\":\"string\"},"
                             "\"list\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/pos\"}},"
                             "\"near\":{\"$ref\":\"near.json\"}}}";
  static const char near[] = "{\"const\":7}";
  /* named by its URI; its own references resolve against it */
  const pd_schema_doc docs[] = {{"https://e.x/lib/defs.json", defs, sizeof defs - 1},
                                {"https://e.x/lib/near.json", near, sizeof near - 1}};
  const char *s = "{\"$id\":\"https://e.x/app/s.json\",\"properties\":{"
                  "\"a\":{\"$ref\":\"../lib/defs.json#/$defs/list\"},"
                  "\"b\":{\"$ref\":\"https://e.x/lib/defs.json#str\"},"
                  "\"c\":{\"$ref\":\"/lib/defs.json#/$defs/near\"}}}";
  assert_true(pdt_accepts_docs(s, docs, 2, "{\"a\":[1,2],\"b\":\"x\",\"c\":7}"));
  assert_false(pdt_accepts_docs(s, docs, 2, "{\"a\":[0]}"));
  assert_false(pdt_accepts_docs(s, docs, 2, "{\"b\":1}"));
  assert_false(pdt_accepts_docs(s, docs, 2, "{\"c\":8}"));
  /* near.json missing: its reference is remote, loudly */
  pd_error err;
  assert_int_equal(pdt_compile_docs(s, docs, 1, &err), PD_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.message, "in https://e.x/lib/defs.json"));
  /* a document whose $id differs from its URI answers to both, and its own
   * references resolve against the $id */
  static const char moved[] = "{\"$id\":\"https://f.y/real/t.json\",\"$ref\":\"u.json\"}";
  static const char u[] = "{\"type\":\"boolean\"}";
  const pd_schema_doc two[] = {{"https://e.x/t.json", moved, sizeof moved - 1},
                               {"https://f.y/real/u.json", u, sizeof u - 1}};
  assert_true(pdt_accepts_docs("{\"$ref\":\"https://e.x/t.json\"}", two, 2, "true"));
  assert_false(pdt_accepts_docs("{\"$ref\":\"https://e.x/t.json\"}", two, 2, "1"));
  assert_true(pdt_accepts_docs("{\"$ref\":\"https://f.y/real/t.json\"}", two, 2, "false"));
  /* bad documents and URIs: clear statuses */
  const pd_schema_doc bad_json[] = {{"https://e.x/b.json", "{\"type\":", 8}};
  assert_int_equal(pdt_compile_docs("{}", bad_json, 1, &err), PD_ERR_SYNTAX);
  assert_non_null(strstr(err.message, "schema_docs[0] (https://e.x/b.json)"));
  const pd_schema_doc relative[] = {{"lib/defs.json", defs, sizeof defs - 1}};
  assert_int_equal(pdt_compile_docs("{}", relative, 1, &err), PD_ERR_ARG);
  const pd_schema_doc no_uri[] = {{NULL, defs, sizeof defs - 1}};
  assert_int_equal(pdt_compile_docs("{}", no_uri, 1, &err), PD_ERR_ARG);
  const pd_schema_doc no_json[] = {{"https://e.x/x.json", NULL, 0}};
  assert_int_equal(pdt_compile_docs("{}", no_json, 1, &err), PD_ERR_ARG);
  /* the same URI twice is ambiguous when named */
  const pd_schema_doc twice[] = {{"https://e.x/n.json", near, sizeof near - 1},
                                 {"https://e.x/n.json", u, sizeof u - 1}};
  assert_int_equal(pdt_compile_docs("{\"$ref\":\"https://e.x/n.json\"}", twice, 2, &err),
                   PD_ERR_SEMANTIC);
}

static void test_dynamic_ref(void **state) {
  (void)state;
  /* one $dynamicAnchor of the name in the document: a plain $ref */
  const char *one =
      "{\"$defs\":{\"n\":{\"$dynamicAnchor\":\"items\",\"type\":\"string\"}},"
      "\"type\":\"array\",\"items\":{\"$dynamicRef\":\"#items\"}}";
  ACCEPT(one, "[\"a\"]");
  REJECT(one, "[1]");
  /* a $ref to a $dynamicAnchor is a $ref to an anchor */
  ACCEPT("{\"$defs\":{\"n\":{\"$dynamicAnchor\":\"x\",\"minimum\":2}},\"$ref\":\"#x\"}", "3");
  REJECT("{\"$defs\":{\"n\":{\"$dynamicAnchor\":\"x\",\"minimum\":2}},\"$ref\":\"#x\"}", "1");
  /* several: the target depends on the dynamic scope */
  pdt_refused(
      "{\"$id\":\"https://e.x/root\",\"$dynamicAnchor\":\"t\",\"$defs\":{\"n\":{\"$id\":"
      "\"n\",\"$dynamicAnchor\":\"t\",\"type\":\"string\"}},\"items\":{\"$dynamicRef\":"
      "\"n#t\"}}",
      PD_ERR_UNSUPPORTED, "$dynamicRef");
}

/* Up to draft-07 "$ref" ignores its siblings; from 2019-09 on they apply too. */
static void test_ref_siblings(void **state) {
  (void)state;
  static const char *const body =
      "\"properties\":{\"a\":{\"type\":\"string\",\"$ref\":\"#/$defs/o\"}},"
      "\"$defs\":{\"o\":{\"type\":\"object\"}}}";
  char d7[300], d12[300];
  snprintf(d7, sizeof d7, "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",%s", body);
  snprintf(d12, sizeof d12, "{%s", body);
  assert_true(pdt_accepts(d7, "{\"a\":{}}"));
  assert_false(pdt_accepts(d7, "{\"a\":\"x\"}"));
  assert_false(pdt_accepts(d12, "{\"a\":{}}"));
  assert_false(pdt_accepts(d12, "{\"a\":\"x\"}"));
  assert_true(pdt_accepts(d12, "{}"));
  /* a "$ref" back to the root inside an allOf, under a root anyOf: each
   * flatten brings the "$ref" back, and its target must keep the anyOf it
   * had distributed (it once came back without, and the rule called only
   * itself: every "items" value was rejected) */
  const char *back = "{\"$schema\":\"http://json-schema.org/draft-04/schema#\",\"type\":\"object\","
                     "\"properties\":{\"type\":{\"type\":\"string\"},\"items\":{\"$ref\":\"#/definitions/io\"}},"
                     "\"definitions\":{\"io\":{\"allOf\":[{\"$ref\":\"#\"},{\"required\":[\"type\"],"
                     "\"properties\":{\"type\":{}},\"additionalProperties\":false}]}},"
                     "\"anyOf\":[{\"required\":[\"type\"]},{\"required\":[\"zz\"]}]}";
  assert_true(pdt_accepts(back, "{\"type\":\"a\",\"items\":{\"type\":\"b\"}}"));
  assert_false(pdt_accepts(back, "{\"type\":\"a\",\"items\":{\"type\":\"b\",\"items\":{}}}"));
  assert_false(pdt_accepts(back, "{\"type\":\"a\",\"items\":{}}"));
  /* the proofs read a "$ref" beside siblings as draft-07 does: the first
   * branch is the string of its target, both branches take every string,
   * and oneOf holds for no instance (once "integer" made them disjoint, and
   * "x" was accepted) */
  pdt_refused("{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"definitions\":{\"s\":"
              "{\"type\":\"string\"}},\"oneOf\":[{\"$ref\":\"#/definitions/s\",\"type\":\"integer\"},"
              "{\"type\":\"string\"}]}",
              PD_ERR_SEMANTIC, "no string");
  const char *nd = "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"definitions\":{\"s\":"
                   "{\"type\":\"string\"}},\"not\":{\"$ref\":\"#/definitions/s\",\"type\":\"integer\"}}";
  assert_false(pdt_accepts(nd, "\"x\"")); /* not string */
  assert_true(pdt_accepts(nd, "5"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ref_uris),
      cmocka_unit_test(test_schema_docs),
      cmocka_unit_test(test_dynamic_ref),
      cmocka_unit_test(test_ref_siblings),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
