/* test_schema.c - unit tests of the JSON Schema front end: accepted and
 * rejected instances through the public API (checked against the IR
 * recognizer too), loud errors naming keyword and pointer, lenient mode,
 * whitespace modes, number ranges against brute force, allocation failure. */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "ir_match.h"
#include "pda/schema.h"

static pd_grammar_options pdt_opts(void) {
  pd_grammar_options o;
  memset(&o, 0, sizeof o);
  return o;
}

/* A schema compiled once (grammar and IR) for checking many texts. */
typedef struct pdt_compiled {
  pd_grammar *g;
  pd_ir ir;
} pdt_compiled;

static void pdt_compile(pdt_compiled *c, const char *schema) {
  pd_error err;
  if (pd_grammar_compile_json_schema(schema, strlen(schema), NULL, NULL, &c->g, &err))
    fail_msg("compile %s: %s", schema, err.message);
  pd_ir_init(&c->ir, NULL);
  char *relaxed = NULL;
  assert_int_equal(pd_schema_to_ir(schema, strlen(schema), false, NULL, &c->ir, &relaxed, NULL),
                   PD_OK);
  pd__free(NULL, relaxed);
}

static bool pdt_check(pdt_compiled *c, const char *text) {
  pd_matcher *m = NULL;
  assert_int_equal(pd_matcher_new(c->g, &m, NULL), PD_OK);
  size_t len = strlen(text);
  bool ok = pd_matcher_accept_bytes(m, (const uint8_t *)text, len, NULL, NULL) == PD_OK &&
            pd_matcher_is_accepting(m);
  pd_matcher_free(m);
  if (pdt_ir_match(&c->ir, text, len) != ok) fail_msg("IR and grammar disagree on %s", text);
  return ok;
}

static void pdt_release(pdt_compiled *c) {
  pd_grammar_free(c->g);
  pd_ir_free(&c->ir);
}

/* Does the grammar of schema (compiled with o) accept text? Also checks the
 * IR recognizer agrees. */
static bool pdt_accepts_o(const char *schema, const pd_grammar_options *o, const char *text) {
  pd_grammar *g = NULL;
  pd_error err;
  pd_status st = pd_grammar_compile_json_schema(schema, strlen(schema), NULL, o, &g, &err);
  if (st) fail_msg("compile %s: %s", schema, err.message);
  pd_matcher *m = NULL;
  assert_int_equal(pd_matcher_new(g, &m, NULL), PD_OK);
  size_t len = strlen(text);
  bool ok = pd_matcher_accept_bytes(m, (const uint8_t *)text, len, NULL, NULL) == PD_OK &&
            pd_matcher_is_accepting(m);
  pd_matcher_free(m);
  pd_grammar_free(g);
  pd_ir ir;
  pd_ir_init(&ir, NULL);
  char *relaxed = NULL;
  assert_int_equal(pd_schema_to_ir(schema, strlen(schema), false, o, &ir, &relaxed, NULL), PD_OK);
  if (pdt_ir_match(&ir, text, len) != ok) fail_msg("IR and grammar disagree on %s", text);
  pd__free(NULL, relaxed);
  pd_ir_free(&ir);
  return ok;
}

static bool pdt_accepts(const char *schema, const char *text) {
  pd_grammar_options o = pdt_opts();
  return pdt_accepts_o(schema, &o, text);
}

#define ACCEPT(s, t) \
  if (!pdt_accepts(s, t)) fail_msg("%s should accept %s", s, t)
#define REJECT(s, t) \
  if (pdt_accepts(s, t)) fail_msg("%s should reject %s", s, t)

static void test_types(void **state) {
  (void)state;
  ACCEPT("{}", "{\"a\": [1, 2.5e3, \"x\", null, true, {}]}");
  ACCEPT("true", "\"\\u00e9\\n\"");
  ACCEPT("{\"type\":\"integer\"}", "-12");
  ACCEPT("{\"type\":\"integer\"}", "3.000");
  REJECT("{\"type\":\"integer\"}", "3.5");
  REJECT("{\"type\":\"integer\"}", "012");
  ACCEPT("{\"type\":[\"string\",\"null\"]}", "null");
  REJECT("{\"type\":[\"string\",\"null\"]}", "false");
  ACCEPT("{\"type\":\"number\"}", "-0.5E-7");
  REJECT("{\"type\":\"number\"}", "1.");
  REJECT("{\"type\":\"boolean\"}", "1");
}

static void test_strings(void **state) {
  (void)state;
  const char *s = "{\"type\":\"string\",\"minLength\":2,\"maxLength\":3}";
  ACCEPT(s, "\"ab\"");
  ACCEPT(s, "\"\\u00e9\\ud83d\\ude00\\n\""); /* three characters, each written escaped */
  ACCEPT(s, "\"\xc3\xa9\xf0\x9f\x98\x80\""); /* two characters, raw UTF-8 */
  REJECT(s, "\"a\"");
  REJECT(s, "\"abcd\"");
  REJECT(s, "\"\\ud83d\"\""); /* a lone surrogate */
  ACCEPT("{\"const\":\"a/b\"}", "\"a\\/b\"");
  ACCEPT("{\"const\":\"a/b\"}", "\"\\u0061/b\"");
  REJECT("{\"const\":\"a/b\"}", "\"a/c\"");
  ACCEPT("{\"format\":\"date\"}", "\"2024-02-29\"");
  REJECT("{\"format\":\"date\"}", "\"2023-02-29\"");
  ACCEPT("{\"format\":\"ipv4\"}", "\"192.168.0.1\"");
  REJECT("{\"format\":\"ipv4\"}", "\"192.168.0.01\"");
  ACCEPT("{\"pattern\":\"^a+$\"}", "\"aa\\u0061\"");
  ACCEPT("{\"pattern\":\"b\"}", "\"abc\"");
  REJECT("{\"pattern\":\"^a+$\"}", "\"ab\"");
}

static void test_enum_const(void **state) {
  (void)state;
  const char *s = "{\"enum\":[1, \"x\", [true], {\"a\":null}]}";
  ACCEPT(s, "1.0");
  ACCEPT(s, "\"x\"");
  ACCEPT(s, "[ true ]");
  ACCEPT(s, "{\"a\":null}");
  REJECT(s, "2");
  REJECT(s, "[]");
  const char *longf = "{\"type\":\"integer\",\"enum\":[1.00000000000000000000000000000000000000000000"
                      "000000000000000000000000000000001, 2.0000000000000000000000000000000000000000000"
                      "0000000000000000000000000000000000000000000]}";
  REJECT(longf, "1.00000000000000000000000000000000000000000000000000000000000000000000000000001");
  ACCEPT(longf, "2");
  ACCEPT("{\"const\":0}", "-0");
  ACCEPT("{\"const\":1.5}", "1.50");
  REJECT("{\"const\":1.5}", "1.05");
  ACCEPT("{\"type\":\"string\",\"enum\":[1,\"a\"]}", "\"a\"");
  REJECT("{\"type\":\"string\",\"enum\":[1,\"a\"]}", "1");
  REJECT("{\"allOf\":[{\"enum\":[1,2]},{\"enum\":[2,3]}]}", "1");
  ACCEPT("{\"allOf\":[{\"enum\":[1,2]},{\"enum\":[2,3]}]}", "2");
}

/* The compile is refused (PD_ERR_UNSUPPORTED). */
static void pdt_refused_any(const char *schema) {
  pd_grammar *g = NULL;
  assert_int_equal(pd_grammar_compile_json_schema(schema, strlen(schema), NULL, NULL, &g, NULL),
                   PD_ERR_UNSUPPORTED);
}

static void test_objects(void **state) {
  (void)state;
  const char *s =
      "{\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"string\"}},"
      "\"required\":[\"b\"]}";
  ACCEPT(s, "{\"a\":1,\"b\":\"x\"}");
  ACCEPT(s, "{\"b\":\"x\",\"c\":[]}");
  REJECT(s, "{\"a\":1}");
  REJECT(s, "{\"b\":\"x\",\"\\u0061\":\"not an integer\"}"); /* escaped "a" is still "a" */
  REJECT(s, "{\"b\":1}");
  const char *closed = "{\"properties\":{\"a\":{}},\"additionalProperties\":false}";
  ACCEPT(closed, "{}");
  ACCEPT(closed, "{\"a\":{}}");
  REJECT(closed, "{\"b\":1}");
  const char *counted = "{\"minProperties\":1,\"maxProperties\":2}";
  REJECT(counted, "{}");
  ACCEPT(counted, "{\"x\":1,\"y\":2}");
  REJECT(counted, "{\"x\":1,\"y\":2,\"z\":3}");
  const char *every = "{\"patternProperties\":{\".*\":{\"type\":\"integer\"}}}";
  ACCEPT(every, "{\"x\":1,\"y\":2}");
  REJECT(every, "{\"x\":1,\"y\":\"2\"}");
  const char *closed_pat =
      "{\"properties\":{\"id\":{}},\"patternProperties\":{\"^x-\":{\"type\":"
      "\"string\"}},\"additionalProperties\":false}";
  ACCEPT(closed_pat, "{\"id\":1,\"x-a\":\"s\"}");
  REJECT(closed_pat, "{\"id\":1,\"x-a\":2}");
  REJECT(closed_pat, "{\"id\":1,\"y\":\"s\"}");
  pdt_refused_any("{\"patternProperties\":{\"^a\":{\"type\":\"string\"}}}");
  pd_grammar_options o = pdt_opts();
  o.any_order = true;
  if (!pdt_accepts_o(s, &o, "{\"c\":0,\"b\":\"x\",\"a\":1}")) fail_msg("any order");
  if (pdt_accepts_o(s, &o, "{\"a\":1,\"a\":2,\"b\":\"x\"}")) fail_msg("any order: a twice");
  if (pdt_accepts_o(s, &o, "{\"a\":1}")) fail_msg("any order: b required");
  o.any_order = false;
  o.strict = true;
  if (pdt_accepts_o("{\"type\":\"object\",\"properties\":{\"a\":{}}}", &o, "{\"b\":1}"))
    fail_msg("strict should close the object");
}

static void test_arrays(void **state) {
  (void)state;
  const char *s =
      "{\"prefixItems\":[{\"type\":\"string\"}],\"items\":{\"type\":\"integer\"},"
      "\"minItems\":2,\"maxItems\":3}";
  ACCEPT(s, "[\"a\",1]");
  ACCEPT(s, "[\"a\",1,2]");
  REJECT(s, "[\"a\"]");
  REJECT(s, "[\"a\",1,2,3]");
  REJECT(s, "[1,1]");
  const char *has = "{\"contains\":{\"type\":\"null\"},\"minContains\":2,\"maxItems\":4}";
  ACCEPT(has, "[null,1,null]");
  REJECT(has, "[null,1]");
  REJECT(has, "[null,null,1,2,3]");
  ACCEPT("{\"items\":[{\"type\":\"null\"}],\"additionalItems\":false}", "[null]");
  REJECT("{\"items\":[{\"type\":\"null\"}],\"additionalItems\":false}", "[null,null]");
}

static void test_combinators_refs(void **state) {
  (void)state;
  const char *tree =
      "{\"$defs\":{\"t\":{\"type\":\"object\",\"properties\":{\"kids\":{\"type\":"
      "\"array\",\"items\":{\"$ref\":\"#/$defs/t\"}}},\"additionalProperties\":false}},"
      "\"$ref\":\"#/$defs/t\"}";
  ACCEPT(tree, "{\"kids\":[{},{\"kids\":[{}]}]}");
  REJECT(tree, "{\"kids\":[{\"x\":1}]}");
  const char *one = "{\"oneOf\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}";
  ACCEPT(one, "\"x\"");
  ACCEPT(one, "5");
  REJECT(one, "null");
  const char *tagged =
      "{\"oneOf\":[{\"properties\":{\"k\":{\"const\":\"a\"},\"v\":{\"type\":\"integer\"}},"
      "\"required\":[\"k\"],\"type\":\"object\"},{\"properties\":{\"k\":{\"const\":\"b\"}},"
      "\"required\":[\"k\"],\"type\":\"object\"}]}";
  ACCEPT(tagged, "{\"k\":\"a\",\"v\":1}");
  REJECT(tagged, "{\"k\":\"a\",\"v\":\"x\"}");
  ACCEPT(tagged, "{\"k\":\"b\",\"v\":\"x\"}");
  const char *closed =
      "{\"$defs\":{\"g\":{\"properties\":{\"graph\":{}},\"required\":[\"graph\"],"
      "\"additionalProperties\":false}},\"oneOf\":[{\"$ref\":\"#/$defs/g\"},"
      "{\"type\":\"object\",\"required\":[\"graphs\"]}]}";
  ACCEPT(closed, "{\"graph\":1}");
  ACCEPT(closed, "{\"graphs\":1,\"x\":2}");
  REJECT(closed, "{\"x\":2}");
  ACCEPT("{\"not\":{\"not\":{\"type\":\"string\"}}}", "\"s\"");
  REJECT("{\"not\":{\"not\":{\"type\":\"string\"}}}", "1");
  ACCEPT("{\"not\":{\"type\":\"string\"}}", "1");
  REJECT("{\"not\":{\"type\":\"string\"}}", "\"s\"");
  const char *cond =
      "{\"if\":{\"type\":\"string\"},\"then\":{\"minLength\":2},\"else\":{\"type\":\"null\"}}";
  ACCEPT(cond, "\"ab\"");
  REJECT(cond, "\"a\"");
  ACCEPT(cond, "null");
  REJECT(cond, "1");
}

/* A compile that must fail with code, its message naming what. */
static void pdt_refused(const char *schema, pd_status code, const char *what) {
  pd_grammar *g = NULL;
  pd_error err;
  assert_int_equal(pd_grammar_compile_json_schema(schema, strlen(schema), NULL, NULL, &g, &err),
                   code);
  assert_null(g);
  if (!strstr(err.message, what)) fail_msg("message '%s' lacks '%s'", err.message, what);
}

static void test_loud(void **state) {
  (void)state;
  pdt_refused("{\"properties\":{\"a\":{\"type\":\"array\",\"contains\":{},\"maxContains\":1}}}",
              PD_ERR_UNSUPPORTED, "/properties/a/maxContains");
  pdt_refused("{\"oneOf\":[{\"type\":\"string\"},{\"minLength\":1}]}", PD_ERR_UNSUPPORTED, "oneOf");
  pdt_refused("{\"type\":\"strnig\"}", PD_ERR_SEMANTIC, "type");
  pdt_refused("{\"$ref\":\"#/nowhere\"}", PD_ERR_SEMANTIC, "$ref");
  pdt_refused("{\"type\":", PD_ERR_SYNTAX, "JSON");
  pdt_refused("{\"$ref\":\"http://example.com/x.json\"}", PD_ERR_UNSUPPORTED, "$ref");
  /* a refused keyword on a type the position does not allow is harmless */
  ACCEPT("{\"type\":\"string\",\"contains\":{},\"maxContains\":1}", "\"x\"");
}

static void test_lenient(void **state) {
  (void)state;
  const char *s = "{\"type\":\"array\",\"uniqueItems\":true,\"items\":{\"type\":\"integer\"}}";
  pd_grammar_options o = pdt_opts();
  o.lenient = true;
  pd_grammar *g = NULL;
  assert_int_equal(pd_grammar_compile_json_schema(s, strlen(s), NULL, &o, &g, NULL), PD_OK);
  assert_string_equal(pd_grammar_relaxed(g), "uniqueItems at /uniqueItems\n");
  pd_grammar_free(g);
  if (!pdt_accepts_o(s, &o, "[1,1]")) fail_msg("lenient drops uniqueItems");
  if (pdt_accepts_o(s, &o, "[\"x\"]")) fail_msg("lenient keeps items");
}

static void test_whitespace(void **state) {
  (void)state;
  const char *s = "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"array\"}}}";
  pd_grammar_options o = pdt_opts();
  o.ws_mode = PD_WS_COMPACT;
  if (!pdt_accepts_o(s, &o, "{\"a\":[1,2]}")) fail_msg("compact");
  if (pdt_accepts_o(s, &o, "{\"a\": [1,2]}")) fail_msg("compact rejects spaces");
  o.ws_mode = PD_WS_FIXED;
  o.indent = 2;
  o.key_separator = ": ";
  if (!pdt_accepts_o(s, &o, "{\n  \"a\": [\n    1,\n    2\n  ]\n}")) fail_msg("indent 2");
  if (pdt_accepts_o(s, &o, "{\"a\": [1, 2]}")) fail_msg("indent rejects one line");
  o.indent = -1;
  o.item_separator = ", ";
  if (!pdt_accepts_o(s, &o, "{\"a\": [1, 2]}")) fail_msg("fixed separators");
  o = pdt_opts();
  o.max_ws_run = 2;
  if (!pdt_accepts_o(s, &o, "{  \"a\":[]}")) fail_msg("run of 2");
  if (pdt_accepts_o(s, &o, "{   \"a\":[]}")) fail_msg("run of 3");
}

/* Every integer in -300..300 against the bounds, by brute force. */
static void test_integer_ranges(void **state) {
  (void)state;
  static const char *const bounds[][2] = {{"-17", "250"},  {"0", NULL},     {NULL, "-3"},
                                          {"9.5", "99.2"}, {"-100", "-10"}, {"1e2", NULL}};
  for (size_t b = 0; b < sizeof bounds / sizeof bounds[0]; b++)
    for (int excl = 0; excl < 2; excl++) {
      char schema[200], text[32];
      snprintf(schema, sizeof schema, "{\"type\":\"integer\"%s%s%s%s%s%s}",
               bounds[b][0] ? excl ? ",\"exclusiveMinimum\":" : ",\"minimum\":" : "",
               bounds[b][0] ? bounds[b][0] : "", "",
               bounds[b][1] ? excl ? ",\"exclusiveMaximum\":" : ",\"maximum\":" : "",
               bounds[b][1] ? bounds[b][1] : "", "");
      double lo = bounds[b][0] ? atof(bounds[b][0]) : -1e9,
             hi = bounds[b][1] ? atof(bounds[b][1]) : 1e9;
      pdt_compiled c;
      pdt_compile(&c, schema);
      for (int v = -300; v <= 300; v += 1) {
        bool want = excl ? v > lo && v < hi : v >= lo && v <= hi;
        snprintf(text, sizeof text, "%d", v);
        if (pdt_check(&c, text) != want) fail_msg("%s on %s", schema, text);
      }
      pdt_release(&c);
    }
}

/* Decimals on a grid of hundredths against decimal bounds. */
static void test_number_ranges(void **state) {
  (void)state;
  static const char *const bounds[][2] = {
      {"-1.25", "2.5"}, {"0.05", NULL}, {NULL, "-0.3"}, {"0", "10"}};
  for (size_t b = 0; b < sizeof bounds / sizeof bounds[0]; b++)
    for (int excl = 0; excl < 2; excl++) {
      char schema[200], text[32];
      snprintf(schema, sizeof schema, "{\"type\":\"number\"%s%s%s%s}",
               bounds[b][0] ? excl ? ",\"exclusiveMinimum\":" : ",\"minimum\":" : "",
               bounds[b][0] ? bounds[b][0] : "",
               bounds[b][1] ? excl ? ",\"exclusiveMaximum\":" : ",\"maximum\":" : "",
               bounds[b][1] ? bounds[b][1] : "");
      long lo = bounds[b][0] ? lround(atof(bounds[b][0]) * 100) : -100000;
      long hi = bounds[b][1] ? lround(atof(bounds[b][1]) * 100) : 100000;
      pdt_compiled c;
      pdt_compile(&c, schema);
      for (long v = -400; v <= 400; v += 3) {
        bool want = excl ? v > lo && v < hi : v >= lo && v <= hi;
        snprintf(text, sizeof text, "%s%ld.%02ld", v < 0 ? "-" : "", labs(v) / 100, labs(v) % 100);
        if (pdt_check(&c, text) != want) fail_msg("%s on %s", schema, text);
      }
      pdt_release(&c);
    }
}

/* Every allocation failure is reported as NOMEM and leaks nothing. */
static void test_alloc_failure(void **state) {
  (void)state;
  const char *s =
      "{\"$defs\":{\"n\":{\"type\":[\"integer\",\"null\"],\"minimum\":-5,\"maximum\":70}},"
      "\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":\"#/$defs/n\"},\"b\":{\"type\":"
      "\"array\",\"items\":{\"enum\":[\"x\",1.5]},\"maxItems\":3},\"c\":{\"format\":\"date\"}},"
      "\"required\":[\"a\"],\"minProperties\":1,\"anyOf\":[{\"required\":[\"b\"]},{}]}";
  pd_grammar_options o = pdt_opts();
  o.allocator = &pdt_allocator;
  for (long n = 1;; n++) {
    pdt_alloc_reset(n);
    pd_ir ir;
    pd_ir_init(&ir, &pdt_allocator);
    char *relaxed = NULL;
    pd_status st = pd_schema_to_ir(s, strlen(s), false, &o, &ir, &relaxed, NULL);
    pd__free(&pdt_allocator, relaxed);
    pd_ir_free(&ir);
    assert_int_equal(pdt_alloc.live, 0);
    if (!pdt_alloc.failed) {
      assert_int_equal(st, PD_OK);
      break;
    }
    assert_int_equal(st, PD_ERR_NOMEM);
  }
  for (long n = 1;; n++) {
    pdt_alloc_reset(n);
    pd_grammar *g = NULL;
    pd_status st = pd_grammar_compile_json_schema(s, strlen(s), NULL, &o, &g, NULL);
    pd_grammar_free(g);
    assert_int_equal(pdt_alloc.live, 0);
    if (!pdt_alloc.failed) {
      assert_int_equal(st, PD_OK);
      break;
    }
    assert_int_equal(st, PD_ERR_NOMEM);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_types),         cmocka_unit_test(test_strings),
      cmocka_unit_test(test_enum_const),    cmocka_unit_test(test_objects),
      cmocka_unit_test(test_arrays),        cmocka_unit_test(test_combinators_refs),
      cmocka_unit_test(test_loud),          cmocka_unit_test(test_lenient),
      cmocka_unit_test(test_whitespace),    cmocka_unit_test(test_integer_ranges),
      cmocka_unit_test(test_number_ranges), cmocka_unit_test(test_alloc_failure),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
