/* test_schema_negation.c - not, oneOf by negation, if/then/else over
 * negatable conditions, and maxContains through the negated contains. */
#include "schema_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_negation(void **state) {
  (void)state;
  /* if with a bound: then where it holds, else where it fails (and other types) */
  const char *f =
      "{\"if\":{\"exclusiveMaximum\":0},\"then\":{\"minimum\":-10},"
      "\"else\":{\"type\":\"integer\"}}";
  ACCEPT(f, "-1");
  ACCEPT(f, "-10");
  REJECT(f, "-100");
  ACCEPT(f, "0");
  ACCEPT(f, "3");
  REJECT(f, "3.5");
  ACCEPT(f, "\"x\""); /* not a number: "if" and "then" hold vacuously */
  const char *g =
      "{\"if\":{\"exclusiveMaximum\":0},\"then\":{\"minimum\":-10},"
      "\"else\":{\"type\":\"string\"}}";
  ACCEPT(g, "\"x\"");
  REJECT(g, "1");
  /* string length and required names */
  const char *h =
      "{\"if\":{\"type\":\"string\",\"maxLength\":2},\"then\":{\"minLength\":1},"
      "\"else\":{\"type\":\"string\"}}";
  ACCEPT(h, "\"ab\"");
  REJECT(h, "\"\"");
  ACCEPT(h, "\"bbb\""); /* too long for "if": else */
  REJECT(h, "1");       /* not a string: else */
  const char *r =
      "{\"type\":\"object\",\"if\":{\"required\":[\"a\"]},\"then\":{\"required\":[\"b\"]}}";
  ACCEPT(r, "{\"a\":1,\"b\":2}");
  REJECT(r, "{\"a\":1}");
  ACCEPT(r, "{\"c\":1}");
  /* not anyOf: every branch fails */
  const char *na = "{\"type\":\"object\",\"required\":[\"image\"],\"not\":{\"anyOf\":"
                   "[{\"required\":[\"build\"]},{\"required\":[\"dockerfile\"]}]}}";
  ACCEPT(na, "{\"image\":1}");
  REJECT(na, "{\"image\":1,\"build\":2}");
  REJECT(na, "{\"dockerfile\":1,\"image\":1}");
  const char *nany = "{\"not\":{\"anyOf\":[{\"type\":\"string\"},{\"minimum\":3}]}}";
  ACCEPT(nany, "2.5");
  REJECT(nany, "3");
  REJECT(nany, "\"s\"");
  REJECT(nany, "{}"); /* an object meets "minimum" */
  pdt_refused("{\"not\":{\"anyOf\":[{\"multipleOf\":1.5}]}}", PD_ERR_UNSUPPORTED, "not");
  /* a pattern negates to the strings it does not match (an escape spells a
   * character too), and a non-string matches every pattern */
  const char *nap = "{\"not\":{\"anyOf\":[{\"pattern\":\"a\"}]}}";
  ACCEPT(nap, "\"bcd\"");
  REJECT(nap, "\"bab\"");
  REJECT(nap, "\"b\\u0061\"");
  REJECT(nap, "5");
  const char *pn = "{\"propertyNames\":{\"not\":{\"pattern\":\"^x\"}}}";
  ACCEPT(pn, "{\"a\":1,\"yx\":2}");
  REJECT(pn, "{\"a\":1,\"xa\":2}");
  const char *ip = "{\"type\":\"string\",\"if\":{\"pattern\":\"^a\"},\"then\":{\"maxLength\":2},"
                   "\"else\":{\"pattern\":\"z$\"}}";
  ACCEPT(ip, "\"ab\"");
  REJECT(ip, "\"abc\"");
  ACCEPT(ip, "\"bcz\"");
  REJECT(ip, "\"bcd\"");
  /* a negated pattern beside lengths: the difference cut to the lengths */
  const char *npl = "{\"type\":\"string\",\"not\":{\"pattern\":\"a\"},\"minLength\":2}";
  ACCEPT(npl, "\"bc\"");
  ACCEPT(npl, "\"\\u00e9\\n\""); /* two characters, escaped */
  REJECT(npl, "\"b\"");
  REJECT(npl, "\"bca\"");
  const char *npc = "{\"type\":\"string\",\"not\":{\"pattern\":\"^x\"},\"minLength\":1,"
                    "\"maxLength\":200}"; /* the maximum counted */
  ACCEPT(npc, "\"y\"");
  REJECT(npc, "\"\"");
  REJECT(npc, "\"xy\"");
  pdt_refused("{\"not\":{\"pattern\":\"a\"},\"minLength\":40}", PD_ERR_UNSUPPORTED, "not");
  /* oneOf by negation */
  const char *o = "{\"oneOf\":[{\"type\":\"number\",\"minimum\":0},{\"maximum\":5}]}";
  ACCEPT(o, "6");
  ACCEPT(o, "-1");
  ACCEPT(o, "5.5");
  REJECT(o, "3");
  REJECT(o, "0");
  REJECT(o, "5");
  ACCEPT(o, "\"x\""); /* a string passes {"maximum": 5} only: exactly one */
  /* integers against a bound would need non-integral numbers with bounds */
  pdt_refused("{\"oneOf\":[{\"type\":\"integer\"},{\"minimum\":2}]}", PD_ERR_UNSUPPORTED, "not");
  const char *o3 =
      "{\"type\":\"object\",\"oneOf\":[{\"required\":[\"a\",\"b\"]},"
      "{\"required\":[\"a\",\"c\"]},{\"maxProperties\":1}]}";
  ACCEPT(o3, "{\"a\":1,\"b\":2}");
  ACCEPT(o3, "{\"a\":1,\"c\":2}");
  ACCEPT(o3, "{\"x\":1}");
  REJECT(o3, "{\"a\":1,\"b\":2,\"c\":3}");
  REJECT(o3, "{\"x\":1,\"y\":2}");
  ACCEPT(o3, "{}");
  /* not integer: non-integral numbers (no exponent form: documented false negative) */
  const char *ni = "{\"not\":{\"type\":\"integer\"}}";
  ACCEPT(ni, "1.5");
  ACCEPT(ni, "-0.001");
  ACCEPT(ni, "\"x\"");
  REJECT(ni, "1");
  REJECT(ni, "1.0");
  REJECT(ni, "1.50e1");
  pdt_refused("{\"not\":{\"type\":\"integer\"},\"minimum\":1}", PD_ERR_UNSUPPORTED, "not");
  /* conditions that cannot be negated stay loud */
  pdt_refused("{\"if\":{\"multipleOf\":1.5},\"then\":false}", PD_ERR_UNSUPPORTED, "/if");
  const char *if3 = "{\"if\":{\"multipleOf\":3},\"then\":false}";
  ACCEPT(if3, "4");
  REJECT(if3, "9");
  REJECT(if3, "null");
  const char *ncl = "{\"not\":{\"const\":\"ab\"},\"minLength\":2,\"maxLength\":3}";
  ACCEPT(ncl, "\"ac\"");
  ACCEPT(ncl, "\"abc\"");
  REJECT(ncl, "\"ab\"");
  REJECT(ncl, "\"\\u0061b\""); /* the same string, escaped */
  REJECT(ncl, "\"a\"");
  REJECT(ncl, "\"abcd\"");
  ACCEPT(ncl, "7"); /* lengths and not ask nothing of numbers */
  /* string constants negate to "none of these strings" */
  const char *ns = "{\"not\":{\"enum\":[\"a\",\"bc\"]}}";
  REJECT(ns, "\"a\"");
  REJECT(ns, "\"\\u0062c\""); /* escaped, still "bc" */
  ACCEPT(ns, "\"b\"");
  ACCEPT(ns, "\"bcd\"");
  ACCEPT(ns, "\"\"");
  ACCEPT(ns, "1");
  const char *ce = "{\"enum\":[\"a\",\"b\"],\"not\":{\"const\":\"a\"}}";
  REJECT(ce, "\"a\"");
  ACCEPT(ce, "\"b\"");
  /* properties negate to "present with a failing value" */
  const char *np =
      "{\"type\":\"object\",\"not\":{\"properties\":{\"foo\":{\"type\":\"string\","
      "\"minLength\":2}}}}";
  ACCEPT(np, "{\"foo\":1}");
  ACCEPT(np, "{\"foo\":\"a\"}");
  REJECT(np, "{\"foo\":\"ab\"}");
  REJECT(np, "{}");
  REJECT(np, "{\"bar\":1}");
  /* $ref and allOf members: their failures add up */
  const char *nr =
      "{\"$defs\":{\"d\":{\"minimum\":3}},\"not\":{\"allOf\":[{\"$ref\":\"#/$defs/d\"},"
      "{\"maximum\":5}]}}";
  ACCEPT(nr, "2");
  ACCEPT(nr, "6");
  REJECT(nr, "3");
  REJECT(nr, "5");
  REJECT(nr, "\"x\"");
  /* prefixItems negate to "long enough, and that element fails" */
  const char *pi = "{\"type\":\"array\",\"not\":{\"prefixItems\":[true,{\"const\":\"b\"}]}}";
  ACCEPT(pi, "[1,\"c\"]");
  ACCEPT(pi, "[1,2,3]");
  REJECT(pi, "[1,\"b\",3]");
  REJECT(pi, "[1]");
  REJECT(pi, "[]");
  /* if's annotations count for unevaluatedProperties where it held */
  const char *ue =
      "{\"if\":{\"properties\":{\"foo\":{\"const\":\"then\"}},\"required\":[\"foo\"]},"
      "\"then\":{\"properties\":{\"bar\":{\"type\":\"string\"}},\"required\":[\"bar\"]},"
      "\"else\":{\"properties\":{\"baz\":{\"type\":\"string\"}},\"required\":[\"baz\"]},"
      "\"unevaluatedProperties\":false}";
  ACCEPT(ue, "{\"foo\":\"then\",\"bar\":\"x\"}");
  REJECT(ue, "{\"foo\":\"then\",\"bar\":\"x\",\"baz\":\"y\"}");
  ACCEPT(ue, "{\"baz\":\"y\"}");
  REJECT(ue, "{\"foo\":\"else\",\"baz\":\"y\"}"); /* foo is not evaluated when "if" fails */
  const char *nf = "{\"not\":{\"properties\":{\"x\":{\"type\":\"integer\"}}}}";
  ACCEPT(nf, "{\"x\":1.5}");
  ACCEPT(nf, "{\"x\":null}");
  REJECT(nf, "{\"x\":2}");
  REJECT(nf, "3");
  pdt_refused("{\"not\":{\"enum\":[1,[2]]}}", PD_ERR_UNSUPPORTED, "/not");
  /* const / enum of numbers and booleans negate exactly */
  const char *c1 = "{\"if\":{\"const\":1},\"then\":false}";
  REJECT(c1, "1");
  REJECT(c1, "1.00");
  ACCEPT(c1, "0.999");
  ACCEPT(c1, "2");
  ACCEPT(c1, "true");
  ACCEPT(c1, "\"1\"");
  const char *ne = "{\"not\":{\"enum\":[3,1,true,null,1]}}";
  REJECT(ne, "1");
  REJECT(ne, "3.0");
  REJECT(ne, "true");
  REJECT(ne, "null");
  ACCEPT(ne, "2");
  ACCEPT(ne, "-5");
  ACCEPT(ne, "3.5");
  ACCEPT(ne, "false");
  ACCEPT(ne, "[1]");
  const char *nb = "{\"not\":{\"type\":\"string\",\"maxLength\":2}}";
  REJECT(nb, "\"ab\"");
  ACCEPT(nb, "\"abc\"");
  ACCEPT(nb, "7");
  const char *ab = "{\"oneOf\":[{\"pattern\":\"a\"},{\"pattern\":\"b\"}]}";
  ACCEPT(ab, "\"a\"");
  REJECT(ab, "\"ab\"");
  REJECT(ab, "5"); /* both take numbers */
  /* the difference copies in the rules its operands call: the string's
   * character rule, and the block rules of a long count (both failed the
   * build with "a difference of expressions may not call rules") */
  const char *any =
      "{\"oneOf\":[{\"type\":\"string\",\"pattern\":\"^a+$\"},{\"type\":\"string\"}]}";
  REJECT(any, "\"aaa\"");
  ACCEPT(any, "\"abc\"");
  ACCEPT(any, "\"\"");
  const char *hex = "{\"type\":\"string\",\"oneOf\":[{\"pattern\":\"^[0-9a-f]{40}$\"},"
                    "{\"pattern\":\"^[0-9A-F]{40}$\"}]}";
  ACCEPT(hex, "\"0123456789abcdef0123456789abcdef01234567\"");
  ACCEPT(hex, "\"0123456789ABCDEF0123456789ABCDEF01234567\"");
  REJECT(hex, "\"0123456789012345678901234567890123456789\""); /* digits match both */
  REJECT(hex, "\"0123456789abcdef0123456789abcdef0123456\"");   /* 39 */
  /* a negated integer multipleOf: the other remainders, and fractions */
  const char *n8 = "{\"not\":{\"multipleOf\":8}}";
  REJECT(n8, "16");
  REJECT(n8, "-16.00");
  REJECT(n8, "0");
  REJECT(n8, "-0");
  REJECT(n8, "\"x\""); /* multipleOf takes every string: its negation none */
  ACCEPT(n8, "12");
  ACCEPT(n8, "-7");
  ACCEPT(n8, "16.5");
  ACCEPT(n8, "100000000000000000001");
  const char *n23 =
      "{\"type\":\"integer\",\"not\":{\"anyOf\":[{\"multipleOf\":2},{\"multipleOf\":3}]}}";
  ACCEPT(n23, "25");
  ACCEPT(n23, "-35.0");
  REJECT(n23, "9");
  REJECT(n23, "10");
  REJECT(n23, "2.5");
  const char *m2n3 = "{\"multipleOf\":2,\"not\":{\"multipleOf\":3}}";
  ACCEPT(m2n3, "4");
  REJECT(m2n3, "6");
  REJECT(m2n3, "7");
  REJECT(m2n3, "7.5");
  const char *one = "{\"oneOf\":[{\"multipleOf\":2},{\"multipleOf\":5}]}";
  ACCEPT(one, "4");
  ACCEPT(one, "25");
  REJECT(one, "10");
  REJECT(one, "3");
  REJECT(one, "\"s\""); /* both take it */
  const char *nm1 = "{\"not\":{\"multipleOf\":1}}";
  ACCEPT(nm1, "0.5");
  REJECT(nm1, "3");
  pdt_refused("{\"not\":{\"multipleOf\":1.5}}", PD_ERR_UNSUPPORTED, "/not");
  pdt_refused("{\"minimum\":2,\"not\":{\"multipleOf\":3}}", PD_ERR_UNSUPPORTED, "/not");
  pdt_refused("{\"not\":{\"anyOf\":[{\"multipleOf\":97},{\"multipleOf\":89},{\"multipleOf\":83}]}}",
              PD_ERR_UNSUPPORTED, "/not");
  const char *nin = "{\"type\":\"string\",\"not\":{\"pattern\":\"^x{40}$\"}}";
  REJECT(nin, "\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"");
  ACCEPT(nin, "\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"");
  /* items: an array fails it where some element fails the item schema */
  const char *nit = "{\"not\":{\"type\":\"array\",\"items\":{\"type\":\"integer\"}}}";
  ACCEPT(nit, "[1,\"x\",2]");
  ACCEPT(nit, "{}");
  REJECT(nit, "[1,2]");
  REJECT(nit, "[]");
  /* open objects told apart by their arrays: a oneOf by negation */
  const char *oa = "{\"oneOf\":[{\"properties\":{\"a\":{\"items\":{\"type\":\"integer\"}}},"
                   "\"required\":[\"a\"]},{\"properties\":{\"b\":{\"items\":{\"type\":"
                   "\"string\"}}},\"required\":[\"b\"]}]}";
  ACCEPT(oa, "{\"a\":[1]}");
  ACCEPT(oa, "{\"a\":[1],\"b\":[2,\"x\"]}"); /* b fails its branch */
  REJECT(oa, "{\"a\":[1],\"b\":[\"x\"]}");   /* both branches hold */
  REJECT(oa, "{\"a\":[],\"b\":[]}");
  REJECT(oa, "{}");
  /* combinators inside what is negated: not, anyOf, oneOf */
  const char *nn = "{\"not\":{\"not\":{\"type\":\"string\"}}}";
  ACCEPT(nn, "\"x\"");
  REJECT(nn, "1");
  const char *oany = "{\"oneOf\":[{\"anyOf\":[{\"type\":\"string\",\"maxLength\":1},"
                     "{\"type\":\"integer\"}]},{\"type\":\"string\"}]}";
  REJECT(oany, "\"a\""); /* both */
  ACCEPT(oany, "\"ab\"");
  ACCEPT(oany, "3");
  REJECT(oany, "null"); /* neither */
  REJECT(oany, "2.5");
  const char *noo = "{\"not\":{\"oneOf\":[{\"type\":\"string\"},{\"maxLength\":2}]}}";
  ACCEPT(noo, "\"ab\""); /* both hold */
  ACCEPT(noo, "\"\"");
  REJECT(noo, "\"abc\""); /* the first alone */
  REJECT(noo, "5");       /* the second alone (it holds for a non-string) */
  REJECT(noo, "null");
  /* a format decided by a regex negates to the strings it does not take;
   * an unknown one asserts nothing, and hostname (a grammar) is refused */
  const char *nfu = "{\"not\":{\"format\":\"uuid\"}}";
  ACCEPT(nfu, "\"x\"");
  REJECT(nfu, "\"123e4567-e89b-12d3-a456-426614174000\"");
  REJECT(nfu, "3"); /* a format takes every non-string */
  const char *of = "{\"oneOf\":[{\"type\":\"object\",\"properties\":{\"d\":{\"format\":\"date\"}},"
                   "\"required\":[\"d\"]},{\"type\":\"object\",\"required\":[\"e\"]}]}";
  ACCEPT(of, "{\"d\":\"2020-01-02\"}");
  ACCEPT(of, "{\"d\":\"x\",\"e\":1}"); /* d is no date: the second alone */
  REJECT(of, "{\"d\":\"2020-01-02\",\"e\":1}");
  REJECT(nfu, "{}");
  const char *nu = "{\"type\":\"string\",\"not\":{\"format\":\"no-such-format\",\"maxLength\":1}}";
  ACCEPT(nu, "\"ab\"");
  REJECT(nu, "\"a\"");
  pdt_refused("{\"not\":{\"format\":\"hostname\"}}", PD_ERR_UNSUPPORTED, "/not");
  /* additionalProperties negates to a member whose key the schema does not
   * declare and whose value it rejects: a declared property of the other
   * branch or an additional member (declared order) */
  const char *ap =
      "{\"oneOf\":[{\"type\":\"object\",\"properties\":{\"d\":{\"const\":\"first\"},"
      "\"first\":{\"type\":\"boolean\"}},\"additionalProperties\":false},{\"type\":\"object\","
      "\"properties\":{\"d\":{\"const\":\"second\"},\"second\":{\"type\":\"boolean\"}},"
      "\"additionalProperties\":false}]}";
  REJECT(ap, "{}"); /* both */
  ACCEPT(ap, "{\"d\":\"first\"}");
  ACCEPT(ap, "{\"d\":\"second\",\"second\":true}");
  ACCEPT(ap, "{\"first\":true}");
  ACCEPT(ap, "{\"second\":false}");
  REJECT(ap, "{\"first\":true,\"second\":true}"); /* neither */
  REJECT(ap, "{\"x\":1}");
  const char *apb = "{\"type\":\"object\",\"not\":{\"additionalProperties\":{\"type\":\"integer\"}},"
                    "\"maxProperties\":2}";
  REJECT(apb, "{}");
  REJECT(apb, "{\"a\":1}");
  ACCEPT(apb, "{\"a\":\"s\"}");
  ACCEPT(apb, "{\"a\":1,\"b\":\"s\"}");
  REJECT(apb, "{\"a\":1,\"b\":2}");
  REJECT(apb, "{\"a\":\"s\",\"b\":\"t\",\"c\":1}"); /* three members */
  const char *apc = "{\"type\":\"object\",\"properties\":{\"k\":{\"type\":\"string\"}},"
                    "\"not\":{\"properties\":{\"k\":{}},\"additionalProperties\":false}}";
  REJECT(apc, "{}");
  REJECT(apc, "{\"k\":\"s\"}");
  ACCEPT(apc, "{\"k\":\"s\",\"z\":1}");
  ACCEPT(apc, "{\"z\":1}");
  /* beside patternProperties the additional key also matches none of them;
   * a pattern's own schema negates to a member whose key it matches */
  const char *app = "{\"not\":{\"additionalProperties\":false,\"patternProperties\":{\"^a\":{}}}}";
  REJECT(app, "{}");
  REJECT(app, "{\"ab\":1}");
  ACCEPT(app, "{\"b\":1}");
  ACCEPT(app, "{\"ab\":1,\"c\":2}");
  REJECT(app, "3");
  const char *opp = "{\"oneOf\":[{\"type\":\"object\",\"patternProperties\":{\"^a\":{\"type\":"
                    "\"integer\"}}},{\"type\":\"object\",\"required\":[\"ab\"]}]}";
  ACCEPT(opp, "{}");
  REJECT(opp, "{\"ab\":1}"); /* both */
  ACCEPT(opp, "{\"ab\":\"s\"}");
  ACCEPT(opp, "{\"a\":1}");
  REJECT(opp, "{\"a\":\"s\"}"); /* neither */
  /* strict: an object schema silent on additionalProperties is closed, in a
   * negation too; in any order the member that carries the negation is one
   * more tracked element */
  pd_grammar_options so = pdt_opts();
  so.strict = true;
  const char *aps = "{\"type\":\"object\",\"not\":{\"type\":\"object\",\"properties\":{\"a\":{}}},"
                    "\"additionalProperties\":true}";
  assert_true(pdt_accepts_o(aps, &so, "{\"b\":1}"));
  assert_false(pdt_accepts_o(aps, &so, "{\"a\":1}"));
  pdt_refused(aps, PD_ERR_SEMANTIC, "no string"); /* open without strict: every object passes it */
  /* the ways a branch fails are no schemas the option closes: "b" alone is
   * the second branch's and not the closed third's (found by the strict
   * differential run: every object but {} was refused) */
  const char *few = "{\"oneOf\":[{\"required\":[\"a\"]},{\"required\":[\"b\"]},{\"type\":\"object\"}]}";
  assert_true(pdt_accepts_o(few, &so, "{\"b\":1,\"x\":2}"));
  assert_true(pdt_accepts_o(few, &so, "{}"));
  assert_false(pdt_accepts_o(few, &so, "{\"a\":1,\"b\":2}"));
  assert_false(pdt_accepts_o(few, &so, "\"s\""));
  pd_grammar_options ao = pdt_opts();
  ao.any_order = true;
  assert_true(pdt_accepts_o(ap, &ao, "{\"first\":true,\"d\":\"first\"}"));
  assert_false(pdt_accepts_o(ap, &ao, "{\"second\":true,\"first\":true}"));
  assert_false(pdt_accepts_o(ap, &ao, "{}"));
  assert_true(pdt_accepts_o(apb, &ao, "{\"a\":1,\"b\":\"s\"}"));
  assert_true(pdt_accepts_o(apb, &ao, "{\"b\":\"s\",\"a\":1}"));
  assert_false(pdt_accepts_o(apb, &ao, "{\"a\":1,\"b\":2}"));
  /* a branch placed in a derived schema still resolves its "$ref" in its own
   * resource (it took the root's "#/$defs/s", an integer, before) */
  const char *rr = "{\"$defs\":{\"s\":{\"type\":\"integer\"},\"r\":{\"$id\":\"http://x.test/r.json\","
                   "\"$defs\":{\"s\":{\"type\":\"string\"}},\"not\":{\"oneOf\":[{\"properties\":"
                   "{\"a\":{\"$ref\":\"#/$defs/s\"}}},{\"required\":[\"a\"]}]}}},"
                   "\"$ref\":\"http://x.test/r.json\"}";
  ACCEPT(rr, "{\"a\":\"x\"}");
  REJECT(rr, "{\"a\":1}");
  REJECT(rr, "{}");
  /* a recursive schema's negation is recursive: where the schema meets itself
   * inside its negation, the negation refers to itself (it recursed until the
   * stack overflowed before); through properties, items, and along two paths */
  const char *rp = "{\"$defs\":{\"n\":{\"properties\":{\"c\":{\"$ref\":\"#/$defs/n\"}},"
                   "\"required\":[\"c\"]}},\"not\":{\"$ref\":\"#/$defs/n\"}}";
  ACCEPT(rp, "{}");
  ACCEPT(rp, "{\"c\":{}}");
  ACCEPT(rp, "{\"c\":{\"c\":{\"c\":{}}}}");
  REJECT(rp, "{\"c\":{\"c\":1}}");
  REJECT(rp, "[]"); /* n holds for a non-object */
  const char *ri = "{\"$defs\":{\"n\":{\"items\":{\"$ref\":\"#/$defs/n\"},\"minItems\":1}},"
                   "\"not\":{\"$ref\":\"#/$defs/n\"}}";
  ACCEPT(ri, "[]");
  ACCEPT(ri, "[[[]],[3]]");
  REJECT(ri, "[3]");
  REJECT(ri, "[[3],[true]]");
  REJECT(ri, "{}");
  const char *r2 = "{\"$defs\":{\"n\":{\"properties\":{\"a\":{\"$ref\":\"#/$defs/n\"},\"b\":"
                   "{\"$ref\":\"#/$defs/n\"},\"c\":{\"type\":\"integer\"}}}},\"oneOf\":[{\"$ref\":"
                   "\"#/$defs/n\"},{\"required\":[\"x\"]}]}";
  ACCEPT(r2, "{\"a\":{\"b\":{}}}");
  REJECT(r2, "{\"a\":{},\"x\":1}");               /* both */
  ACCEPT(r2, "{\"a\":{\"b\":{\"c\":\"s\"}},\"x\":1}"); /* the second alone */
  REJECT(r2, "{\"a\":{\"b\":{\"c\":\"s\"}}}");        /* neither */
  /* items beside prefixItems: the elements past the prefix have no keyword */
  pdt_refused("{\"not\":{\"prefixItems\":[true],\"items\":{\"type\":\"integer\"}}}",
              PD_ERR_UNSUPPORTED, "/not");
}

static void test_max_contains(void **state) {
  (void)state;
  const char *s = "{\"contains\":{\"const\":1},\"minContains\":2,\"maxContains\":3}";
  REJECT(s, "[]");
  REJECT(s, "[1]");
  ACCEPT(s, "[1,1]");
  ACCEPT(s, "[2,1,\"x\",1.0,1]");
  REJECT(s, "[1,1,1,1]");
  REJECT(s, "[1,2,1,1.00,1]");
  ACCEPT(s, "{}"); /* not an array */
  const char *z = "{\"contains\":{\"const\":1},\"minContains\":0,\"maxContains\":0}";
  ACCEPT(z, "[]");
  ACCEPT(z, "[2,3]");
  REJECT(z, "[2,1]");
  const char *b =
      "{\"type\":\"array\",\"maxItems\":4,\"contains\":{\"type\":\"integer\",\"minimum\":5},"
      "\"maxContains\":1}";
  ACCEPT(b, "[5]");
  ACCEPT(b, "[4,5.5,\"a\",6]");
  REJECT(b, "[]"); /* minContains defaults to 1 */
  REJECT(b, "[5,6]");
  REJECT(b, "[1,2,3,4,5]");
  /* elements that build no whitespace rule of their own: the counter's rules
   * come after the one the separator adds (it once took the first of them) */
  const char *nul = "{\"type\":\"array\",\"items\":{\"const\":null},\"maxItems\":2,"
                    "\"contains\":{\"const\":null},\"maxContains\":1,\"minContains\":0}";
  ACCEPT(nul, "[]");
  ACCEPT(nul, "[ null ]");
  REJECT(nul, "[null,null]");
  ACCEPT("{\"type\":\"array\",\"items\":{\"const\":null},\"contains\":{\"const\":null},"
         "\"maxContains\":1}",
         "[null]");
  const char *any = "{\"contains\":{},\"maxContains\":1}"; /* every element matches */
  ACCEPT(any, "[[1]]");
  REJECT(any, "[1,2]");
  REJECT(any, "[]");
  /* the contains schema must be negatable */
  pdt_refused("{\"contains\":{\"multipleOf\":1.5},\"maxContains\":1}", PD_ERR_UNSUPPORTED,
              "maxContains");
  const char *c3 = "{\"contains\":{\"multipleOf\":3},\"maxContains\":1}";
  ACCEPT(c3, "[3,4]");
  REJECT(c3, "[3,6]");
  REJECT(c3, "[3,\"s\"]"); /* a string matches multipleOf */
  const char *cp = "{\"contains\":{\"pattern\":\"a\"},\"maxContains\":1}";
  ACCEPT(cp, "[\"a\",\"b\"]");
  REJECT(cp, "[\"a\",\"b\",1]"); /* 1 matches the pattern too: not a string */
  REJECT(cp, "[\"a\",\"ba\"]");
  REJECT(cp, "[\"b\"]");
  const char *str = "{\"contains\":{\"const\":\"a\"},\"maxContains\":1}";
  ACCEPT(str, "[\"a\",\"b\"]");
  REJECT(str, "[\"a\",\"\\u0061\"]");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_negation),
      cmocka_unit_test(test_max_contains),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
