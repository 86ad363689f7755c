/* test_schema_values.c - listed values (const, enum): equality by value, and
 * each value decided against its sibling keywords; long lists stay flat. */
#include "schema_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_enum_const(void **state) {
  (void)state;
  /* values checked against sibling lengths and bounds */
  const char *sl =
      "{\"enum\":[\"a\",\"abc\",\"\\u00e9\\u00e9\",5,7.5],\"maxLength\":2,\"minimum\":6}";
  ACCEPT(sl, "\"a\"");
  ACCEPT(sl, "\"\u00e9\u00e9\""); /* two characters */
  REJECT(sl, "\"abc\"");
  REJECT(sl, "5");
  ACCEPT(sl, "7.5");
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
  /* normalized scientific notation: Python writes 1e-06, JavaScript 1e-7 */
  const char *tiny = "{\"const\":1e-06}";
  ACCEPT(tiny, "1e-06");
  ACCEPT(tiny, "1E-6");
  ACCEPT(tiny, "1.00e-0006");
  ACCEPT(tiny, "0.000001");
  REJECT(tiny, "1e-07");
  REJECT(tiny, "1e6");
  REJECT(tiny, "1e");
  REJECT(tiny, "10e-7"); /* not normalized: a documented false negative */
  ACCEPT("{\"const\":150}", "1.5e2");
  ACCEPT("{\"const\":150}", "1.50E+002");
  REJECT("{\"const\":150}", "1.5e3");
  REJECT("{\"const\":150}", "1.5e-2");
  ACCEPT("{\"enum\":[-2.5]}", "-2.5e0");
  ACCEPT("{\"enum\":[-2.5]}", "-2.5E-00");
  REJECT("{\"enum\":[-2.5]}", "2.5e0");
  REJECT("{\"enum\":[-2.5]}", "-2.5e");
  ACCEPT("{\"const\":0}", "0e0");
  ACCEPT("{\"const\":0}", "-0.0E+5");
  REJECT("{\"const\":0}", "1e0");
  ACCEPT("{\"const\":1e400}", "1e400");
  ACCEPT("{\"const\":1e400}", "1.0E+400");
  /* unbounded integers and non-integers in the exponent forms that decide it */
  const char *in = "{\"type\":\"integer\"}";
  ACCEPT(in, "1e+20");
  ACCEPT(in, "-1.0E5");
  ACCEPT(in, "0e-5");
  ACCEPT(in, "3e-00");
  REJECT(in, "1e-2");
  REJECT(in, "1.5e-3");
  REJECT(in, "1.5e1"); /* integral, but the fraction against the exponent: a false negative */
  const char *nin = "{\"not\":{\"type\":\"integer\"}}";
  ACCEPT(nin, "-3e-07");
  ACCEPT(nin, "1.5e-3");
  ACCEPT(nin, "3.0E-1");
  REJECT(nin, "30e-1");
  REJECT(nin, "1e+20");
  REJECT(nin, "0e-5");
  REJECT("{\"$schema\":\"http://json-schema.org/draft-04/schema#\",\"type\":\"integer\"}", "1e5");
  /* a draft-04 "integer" literal is its digits alone; without the type, any spelling */
  const char *d4 = "{\"$schema\":\"http://json-schema.org/draft-04/schema#\",\"type\":\"integer\",\"enum\":[1]}";
  ACCEPT(d4, "1");
  REJECT(d4, "1.0");
  REJECT(d4, "1e0");
  const char *d4u = "{\"$schema\":\"http://json-schema.org/draft-04/schema#\",\"uniqueItems\":true,"
                    "\"type\":\"array\",\"items\":{\"type\":\"integer\",\"enum\":[1,2]}}";
  ACCEPT(d4u, "[2,1]");
  REJECT(d4u, "[1.0]");
  REJECT(d4u, "[1e0]");
  const char *d4any = "{\"$schema\":\"http://json-schema.org/draft-04/schema#\",\"enum\":[1]}";
  ACCEPT(d4any, "1.0");
  ACCEPT(d4any, "1e0");
  ACCEPT("{\"type\":\"string\",\"enum\":[1,\"a\"]}", "\"a\"");
  REJECT("{\"type\":\"string\",\"enum\":[1,\"a\"]}", "1");
  REJECT("{\"allOf\":[{\"enum\":[1,2]},{\"enum\":[2,3]}]}", "1");
  ACCEPT("{\"allOf\":[{\"enum\":[1,2]},{\"enum\":[2,3]}]}", "2");
  /* string values checked against a sibling pattern (a search) and format */
  const char *sp = "{\"type\":\"string\",\"pattern\":\"\\\\d+\\\\.\\\\d+\",\"enum\":"
                   "[\"0.19\",\"x.y\",\"v1.2 beta\",\"\u00e91.0\"]}";
  ACCEPT(sp, "\"0.19\"");
  REJECT(sp, "\"x.y\"");
  ACCEPT(sp, "\"v1.2 beta\"");
  ACCEPT(sp, "\"\u00e91.0\"");
  const char *anch = "{\"pattern\":\"^a\",\"enum\":[\"ab\",\"ba\",3]}";
  ACCEPT(anch, "\"ab\"");
  REJECT(anch, "\"ba\"");
  ACCEPT(anch, "3"); /* pattern constrains strings only */
  const char *sf = "{\"format\":\"email\",\"enum\":[\"a@b.co\",\"nope\"]}";
  ACCEPT(sf, "\"a@b.co\"");
  REJECT(sf, "\"nope\"");
  const char *su = "{\"format\":\"uri\",\"const\":\"https://jsonfeed.org/version/1\"}";
  ACCEPT(su, "\"https://jsonfeed.org/version/1\"");
  /* a sibling not decided here is still refused */
  pdt_refused_any("{\"format\":\"hostname\",\"enum\":[\"a.b\"]}");
  ACCEPT("{\"multipleOf\":5,\"enum\":[5,6]}", "5"); /* decided on the value */
  REJECT("{\"multipleOf\":5,\"enum\":[5,6]}", "6");
}

/* Listed values (const, enum) beside object, array and combinator keywords:
 * each value is decided on itself (schema_value.c), the rest refused. */
static void test_values_against_siblings(void **state) {
  (void)state;
  const char *obj =
      "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"}},\"required\":[\"a\"],"
      "\"patternProperties\":{\"^x\":{\"type\":\"string\"}},\"additionalProperties\":false,"
      "\"maxProperties\":2,\"enum\":[{\"a\":1},{\"a\":\"s\"},{\"b\":1},{\"a\":1,\"xy\":\"q\"},"
      "{\"a\":1,\"xy\":2},{\"a\":1,\"z\":0},{\"a\":1,\"xa\":\"1\",\"xb\":\"2\"},{\"a\":\"s\",\"a\":2}]}";
  ACCEPT(obj, "{\"a\":1}");
  REJECT(obj, "{\"a\":\"s\"}");  /* properties */
  REJECT(obj, "{\"b\":1}");      /* required */
  ACCEPT(obj, "{\"a\":1,\"xy\":\"q\"}");
  REJECT(obj, "{\"a\":1,\"xy\":2}"); /* patternProperties */
  REJECT(obj, "{\"a\":1,\"z\":0}");  /* additionalProperties */
  REJECT(obj, "{\"a\":1,\"xa\":\"1\",\"xb\":\"2\"}"); /* maxProperties */
  ACCEPT(obj, "{\"a\":\"s\",\"a\":2}"); /* a parser keeps the last "a" */
  const char *deps = "{\"dependentRequired\":{\"a\":[\"b\"]},\"propertyNames\":{\"maxLength\":1},"
                     "\"dependentSchemas\":{\"b\":{\"minProperties\":3}},"
                     "\"enum\":[{\"a\":1},{\"a\":1,\"b\":2},{\"a\":1,\"b\":2,\"c\":3},{\"cc\":1}]}";
  REJECT(deps, "{\"a\":1}");
  REJECT(deps, "{\"a\":1,\"b\":2}");
  ACCEPT(deps, "{\"a\":1,\"b\":2,\"c\":3}");
  REJECT(deps, "{\"cc\":1}");
  /* a required name with a NUL inside is not decided on a value */
  pdt_refused_any("{\"required\":[\"a\\u0000b\"],\"enum\":[{\"a\":1}]}");
  const char *arr = "{\"prefixItems\":[{\"type\":\"string\"}],\"items\":{\"type\":\"integer\"},"
                    "\"minItems\":2,\"uniqueItems\":true,\"contains\":{\"const\":5},\"maxContains\":1,"
                    "\"enum\":[[\"s\",5],[\"s\"],[1,5],[\"s\",5,\"t\"],[\"s\",5,5],[\"s\",4,6],[\"s\",5,6]]}";
  ACCEPT(arr, "[\"s\",5]");
  REJECT(arr, "[\"s\"]");         /* minItems */
  REJECT(arr, "[1,5]");           /* prefixItems */
  REJECT(arr, "[\"s\",5,\"t\"]"); /* items */
  REJECT(arr, "[\"s\",5,5]");     /* uniqueItems, maxContains */
  REJECT(arr, "[\"s\",4,6]");     /* contains */
  ACCEPT(arr, "[\"s\",5,6]");
  const char *tuple = "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"items\":[{\"type\":"
                      "\"integer\"}],\"additionalItems\":{\"type\":\"string\"},\"enum\":[[1,\"a\"],[1,2]]}";
  ACCEPT(tuple, "[1,\"a\"]");
  REJECT(tuple, "[1,2]");
  /* subschemas with combinators and references decide too */
  const char *comb = "{\"$defs\":{\"pos\":{\"exclusiveMinimum\":0}},\"type\":\"object\",\"properties\":"
                     "{\"v\":{\"oneOf\":[{\"$ref\":\"#/$defs/pos\"},{\"maximum\":3}]},\"w\":{\"not\":"
                     "{\"type\":\"null\"}},\"i\":{\"if\":{\"minimum\":10},\"then\":{\"maximum\":20},"
                     "\"else\":{\"maximum\":5}}},\"enum\":[{\"v\":-1},{\"v\":2},{\"v\":5},{\"w\":null},"
                     "{\"i\":15},{\"i\":7},{\"i\":3}]}";
  ACCEPT(comb, "{\"v\":-1}"); /* the second branch only */
  REJECT(comb, "{\"v\":2}");  /* both */
  ACCEPT(comb, "{\"v\":5}");  /* the first only */
  REJECT(comb, "{\"w\":null}");
  ACCEPT(comb, "{\"i\":15}");
  REJECT(comb, "{\"i\":7}");
  ACCEPT(comb, "{\"i\":3}");
  /* draft-04 boolean exclusive bounds */
  const char *d4 = "{\"$schema\":\"http://json-schema.org/draft-04/schema#\",\"properties\":{\"n\":"
                   "{\"minimum\":1,\"exclusiveMinimum\":true}},\"enum\":[{\"n\":1},{\"n\":2}]}";
  REJECT(d4, "{\"n\":1}");
  ACCEPT(d4, "{\"n\":2}");
  /* multiples decided on the value: 0 always, decimals by their digits */
  const char *mo = "{\"multipleOf\":1.5,\"enum\":[0,3,4.5,4,1.5e1,0.75,-3.0,\"x\"]}";
  ACCEPT(mo, "0");
  ACCEPT(mo, "3");
  ACCEPT(mo, "4.5");
  REJECT(mo, "4");
  ACCEPT(mo, "15");
  REJECT(mo, "0.75");
  ACCEPT(mo, "-3");
  ACCEPT(mo, "\"x\"");
  ACCEPT("{\"multipleOf\":0.01,\"const\":19.99}", "19.99");
  pdt_refused("{\"multipleOf\":0.01,\"const\":19.999}", PD_ERR_SEMANTIC, "");
  /* what is not decided on a value still refuses the enum */
  pdt_refused("{\"multipleOf\":12345678901,\"enum\":[3,4]}", PD_ERR_UNSUPPORTED, "enum");
  pdt_refused("{\"properties\":{\"a\":{\"unevaluatedProperties\":false}},\"enum\":[{\"a\":{}}]}",
              PD_ERR_UNSUPPORTED, "enum");
  /* --strict closes a schema silent on additionalProperties for its listed
   * values too (found by the strict differential run: {"c":1} was kept) */
  pd_grammar_options so = pdt_opts();
  so.strict = true;
  const char *se = "{\"type\":\"object\",\"properties\":{\"b\":{\"type\":\"object\","
                   "\"properties\":{\"foo\":{}},\"enum\":[{\"foo\":3},{\"c\":1}]}}}";
  if (!pdt_accepts_o(se, &so, "{\"b\":{\"foo\":3}}")) fail_msg("strict enum: declared key");
  if (pdt_accepts_o(se, &so, "{\"b\":{\"c\":1}}")) fail_msg("strict enum: undeclared key");
  ACCEPT(se, "{\"b\":{\"c\":1}}"); /* without strict the object is open */
  const char *sn = "{\"type\":\"object\",\"properties\":{\"b\":{\"properties\":{\"x\":{\"type\":"
                   "\"object\"}},\"const\":{\"x\":{\"y\":1}}}}}";
  if (pdt_accepts_o(sn, &so, "{\"b\":{\"x\":{\"y\":1}}}")) fail_msg("strict const: nested");
}

/* Long lists stay flat: an enum of 5,000 values, an object of 3,000 declared
 * names (its additional keys are every other string; in any order, its
 * optional members), an anyOf of 2,500 branches, 2,500 prefixItems and the
 * strings other than 3,000 once nested one level per item, past the IR's
 * depth limit. */
static void test_long_lists(void **state) {
  (void)state;
  size_t cap = 200000;
  char *s = malloc(cap), *w = s;
  assert_non_null(s);
  w += sprintf(w, "{\"enum\":[");
  for (int i = 0; i < 5000; i++) w += sprintf(w, "%s\"v%d\"", i ? "," : "", i);
  sprintf(w, "]}");
  ACCEPT(s, "\"v4999\"");
  ACCEPT(s, "\"v0\"");
  REJECT(s, "\"v5000\"");
  w = s + sprintf(s, "{\"type\":\"object\",\"properties\":{");
  for (int i = 0; i < 3000; i++) w += sprintf(w, "%s\"k%d\":{\"type\":\"integer\"}", i ? "," : "", i);
  sprintf(w, "}}");
  ACCEPT(s, "{\"k2999\":1,\"zz\":\"x\"}");
  REJECT(s, "{\"k5\":\"x\"}");
  REJECT(s, "{\"k2999\":1.5}");
  pd_grammar_options o = pdt_opts(); /* past 12 declared, any order lists every optional one */
  o.any_order = true;
  if (!pdt_accepts_o(s, &o, "{\"k2999\":1,\"k0\":2}")) fail_msg("wide any order");
  if (pdt_accepts_o(s, &o, "{\"k2999\":\"x\",\"k0\":2}")) fail_msg("wide any order: type");
  w = s + sprintf(s, "{\"anyOf\":[");
  for (int i = 0; i < 2500; i++) w += sprintf(w, "%s{\"const\":%d}", i ? "," : "", i);
  sprintf(w, "]}");
  ACCEPT(s, "2499");
  REJECT(s, "2500");
  w = s + sprintf(s, "{\"prefixItems\":[");
  for (int i = 0; i < 2500; i++) w += sprintf(w, "%s{\"const\":%d}", i ? "," : "", i % 7);
  sprintf(w, "],\"items\":false}");
  char *in = malloc(20000), *x = in;
  assert_non_null(in);
  x += sprintf(x, "[");
  for (int i = 0; i < 2500; i++) x += sprintf(x, "%s%d", i ? "," : "", i % 7);
  sprintf(x, "]");
  ACCEPT(s, in);
  in[strlen(in) - 2] = '9'; /* the last element is wrong */
  REJECT(s, in);
  ACCEPT(s, "[0,1,2]");
  w = s + sprintf(s, "{\"type\":\"string\",\"not\":{\"enum\":[");
  for (int i = 0; i < 3000; i++) w += sprintf(w, "%s\"v%d\"", i ? "," : "", i);
  sprintf(w, "]}}");
  REJECT(s, "\"v2999\"");
  ACCEPT(s, "\"v3000\"");
  free(in);
  free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_enum_const),
      cmocka_unit_test(test_values_against_siblings),
      cmocka_unit_test(test_long_lists),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
