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

static void pdt_refused_any(const char *schema);
static void pdt_refused(const char *schema, pd_status code, const char *what);

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

/* The JSON string of len units (digits of code in base n, lowest first)
 * into text; returns the set of units used (bit per unit). */
static unsigned pdt_spell(char *text, const char *const *units, unsigned n, unsigned len,
                          unsigned code) {
  size_t k = 0;
  unsigned seen = 0;
  text[k++] = '"';
  for (unsigned i = 0, x = code; i < len; i++, x /= n) {
    size_t m = strlen(units[x % n]);
    memcpy(text + k, units[x % n], m);
    k += m;
    seen |= 1u << (x % n);
  }
  text[k++] = '"';
  text[k] = 0;
  return seen;
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
  /* pattern and length together: every string over {a, -, Z} up to 6 long */
  const char *pl = "{\"pattern\":\"^[a-z0-9-]+$\",\"minLength\":2,\"maxLength\":5}";
  pdt_compiled c;
  pdt_compile(&c, pl);
  for (unsigned len = 0, total = 1; len <= 6; len++, total *= 3)
    for (unsigned code = 0; code < total; code++) {
      char text[16];
      size_t k = 0;
      bool in_class = len > 0;
      text[k++] = '"';
      for (unsigned i = 0, x = code; i < len; i++, x /= 3) {
        text[k++] = "a-Z"[x % 3];
        in_class = in_class && text[k - 1] != 'Z';
      }
      text[k++] = '"';
      text[k] = 0;
      bool want = in_class && len >= 2 && len <= 5;
      if (pdt_check(&c, text) != want) fail_msg("%s on %s", pl, text);
    }
  pdt_release(&c);
  /* a search pattern and lengths, not cut on its structure: a product with a
   * count of characters, raw, escaped or a surrogate pair each counting one */
  static const char *const unit[] = {"a", "b", "\\u00e9", "\xc3\xa9", "\\ud83d\\ude00",
                                     "\\/"};
  const char *const counted[] = {"{\"pattern\":\"b\",\"minLength\":2,\"maxLength\":4}",
                                 "{\"pattern\":\"b\",\"minLength\":3}"};
  for (int sc = 0; sc < 2; sc++) {
    pdt_compile(&c, counted[sc]);
    for (unsigned len = 0, total = 1; len <= 5; len++, total *= 6)
      for (unsigned code = 0; code < total; code++) {
        char text[64];
        unsigned seen = pdt_spell(text, unit, 6, len, code);
        bool want = (seen >> 1 & 1) && len >= (sc ? 3u : 2u) && (sc || len <= 4);
        if (pdt_check(&c, text) != want) fail_msg("%s on %s", counted[sc], text);
      }
    pdt_release(&c);
  }
  /* two patterns (and a length): their intersection, one product automaton */
  const char *two[] = {"{\"allOf\":[{\"pattern\":\"^a\"},{\"pattern\":\"b$\"}],\"type\":\"string\"}",
                       "{\"allOf\":[{\"pattern\":\"^a\"},{\"pattern\":\"b$\"}],\"type\":\"string\","
                       "\"maxLength\":3}"};
  static const char *const abc[] = {"a", "b", "c", "\\u00e9"};
  for (int sc = 0; sc < 2; sc++) {
    pdt_compile(&c, two[sc]);
    for (unsigned len = 0, total = 1; len <= 5; len++, total *= 4)
      for (unsigned code = 0; code < total; code++) {
        char text[64];
        pdt_spell(text, abc, 4, len, code);
        /* first unit code % 4, last unit code / 4^(len-1) */
        unsigned last = code;
        for (unsigned i = 1; i < len; i++) last /= 4;
        bool want = len && code % 4 == 0 && last % 4 == 1 && (sc == 0 || len <= 3);
        if (pdt_check(&c, text) != want) fail_msg("%s on %s", two[sc], text);
      }
    pdt_release(&c);
  }
  ACCEPT("{\"format\":\"date\",\"pattern\":\"-02-\"}", "\"2020-02-03\"");
  REJECT("{\"format\":\"date\",\"pattern\":\"-02-\"}", "\"2020-03-02\"");
  REJECT("{\"format\":\"date\",\"pattern\":\"-02-\"}", "\"x-02-\"");
  /* past the product's budget (an e-mail automaton times 7 counts): refused */
  pdt_refused_any("{\"format\":\"email\",\"maxLength\":6}");
  pdt_refused_any("{\"format\":\"hostname\",\"maxLength\":6}");
}

/* A hostname of n labels, each of length len (letters), dot-separated. */
static char *pdt_host(unsigned n, unsigned len) {
  char *s = malloc((size_t)n * (len + 1) + 3), *w = s;
  *w++ = '"';
  for (unsigned i = 0; i < n; i++) {
    if (i) *w++ = '.';
    for (unsigned k = 0; k < len; k++) *w++ = (char)('a' + (i + k) % 26);
  }
  *w++ = '"';
  *w = 0;
  return s;
}

static void test_formats(void **state) {
  (void)state;
  /* uri-template literals: RFC 6570's set with "-" (and "'", per its errata) */
  static const char *const ut = "{\"format\":\"uri-template\"}";
  assert_true(pdt_accepts(ut, "\"http://ex-ample.com/{id}/a-b\""));
  assert_true(pdt_accepts(ut, "\"a'b\""));
  assert_false(pdt_accepts(ut, "\"a b\""));
  assert_false(pdt_accepts(ut, "\"a^b\""));
  pdt_compiled h;
  pdt_compile(&h, "{\"format\":\"hostname\"}");
  static const char *const host_ok[] = {
      "\"a\"",     "\"www.example.com\"",
      "\"1host\"", "\"a--b.com\"",
      "\"A-9.b\"", "\"\\u0061b.com\"", /* an escaped letter is still a letter */
      "12",        "{}"};
  static const char *const host_bad[] = {
      "\"\"",     "\".\"",   "\".a\"",    "\"a.\"",     "\"a..b\"", "\"-a\"",          "\"a-\"",
      "\"a-.b\"", "\"a_b\"", "\"xn--X\"", "\"ab--cd\"", "\"a\\n\"", "\"\xe2\x84\xaa\""};
  for (size_t i = 0; i < sizeof host_ok / sizeof *host_ok; i++)
    if (!pdt_check(&h, host_ok[i])) fail_msg("hostname should accept %s", host_ok[i]);
  for (size_t i = 0; i < sizeof host_bad / sizeof *host_bad; i++)
    if (pdt_check(&h, host_bad[i])) fail_msg("hostname should reject %s", host_bad[i]);
  /* label length 63 / 64; total length 253 / 254 (4 labels: 3*63 + 61 + 3 dots) */
  char *t = pdt_host(1, 63);
  assert_true(pdt_check(&h, t));
  free(t);
  t = pdt_host(1, 64);
  assert_false(pdt_check(&h, t));
  free(t);
  t = pdt_host(4, 63);
  t[1 + 3 * 64 + 61] = '"', t[1 + 3 * 64 + 62] = 0; /* 3*63 + 3 + 61 = 253 characters */
  assert_true(pdt_check(&h, t));
  t[1 + 3 * 64 + 61] = 'x', t[1 + 3 * 64 + 62] = '"', t[1 + 3 * 64 + 63] = 0; /* 254 */
  assert_false(pdt_check(&h, t));
  free(t);
  t = pdt_host(127, 1); /* 127 one-letter labels: 253 characters */
  assert_true(pdt_check(&h, t));
  free(t);
  t = pdt_host(128, 1);
  assert_false(pdt_check(&h, t));
  free(t);
  pdt_release(&h);

  const char *e = "{\"format\":\"email\"}";
  ACCEPT(e, "\"joe.bloggs@example.com\"");
  ACCEPT(e, "\"te~st@a-b.example.com\"");
  ACCEPT(e, "\"\\\"joe@bloggs\\\"@example.com\"");
  ACCEPT(e, "\"x@[127.0.0.1]\"");
  ACCEPT(e, "\"x@[IPv6:::1]\"");
  REJECT(e, "\".a@example.com\"");
  REJECT(e, "\"a..b@example.com\"");
  REJECT(e, "\"a@b@example.com\"");
  REJECT(e, "\"a@-example.com\"");
  REJECT(e, "\"a@[127.0.0.300]\"");
  REJECT(e, "\"a b@example.com\"");
  REJECT(e, "\"\xce\xb4@example.com\""); /* non-ASCII only in idn-email */
  const char *ie = "{\"format\":\"idn-email\"}";
  ACCEPT(ie, "\"\xce\xb4\xce\xbf@example.com\"");
  ACCEPT(ie, "\"\\u0085@example.com\"");
  ACCEPT(ie, "\"\\\"\xce\xb4\\\"@example.com\"");
  REJECT(ie,
         "\"user\xef\xbc\xa0"
         "example.com\"");
  REJECT(ie, "\"a@b..c\"");

  const char *iri = "{\"format\":\"iri\"}";
  ACCEPT(iri, "\"http://\xc6\x92\xc3\xb8\xc3\xb8.com/p?q=\xcf\x80#\xcf\x80\"");
  ACCEPT(iri, "\"http://[V1.fe]\"");
  ACCEPT(iri, "\"urn:example:resource\"");
  ACCEPT(iri, "\"http://a/?\xee\x80\x80\""); /* iprivate U+E000 in the query */
  REJECT(iri, "\"http://a/#\xee\x80\x80\""); /* but not in the fragment */
  REJECT(iri, "\"/abc\"");
  REJECT(iri, "\"http://2001:0db8:85a3::1\"");
  REJECT(iri, "\"http://a/\\n\"");
  const char *ref = "{\"format\":\"iri-reference\"}";
  ACCEPT(ref, "\"/\xc3\xa2\xcf\x80\"");
  ACCEPT(ref, "\"#\xc6\x92r\"");
  REJECT(ref, "\"#a\\\\b\"");
  ACCEPT("{\"format\":\"uri\"}", "\"http://[V1.fe]/x\"");
  REJECT("{\"format\":\"uri\"}", "\"http://\xc6\x92.com\"");
}

static void test_dependent_schemas(void **state) {
  (void)state;
  const char *s =
      "{\"dependentSchemas\":{\"bar\":{\"properties\":{\"foo\":{\"type\":\"integer\"},"
      "\"bar\":{\"type\":\"integer\"}}}}}";
  ACCEPT(s, "{\"foo\":1,\"bar\":2}"); /* declared order */
  ACCEPT(s, "{\"foo\":\"quux\"}");    /* no bar: foo is free */
  ACCEPT(s, "{}");
  ACCEPT(s, "[\"bar\"]"); /* other types are untouched */
  ACCEPT(s, "\"bar\"");
  REJECT(s, "{\"foo\":\"quux\",\"bar\":2}");
  REJECT(s, "{\"foo\":2,\"bar\":\"quux\"}");
  REJECT(s, "{\"\\u0062ar\":\"x\"}"); /* an escaped key is the same key */
  const char *b = "{\"dependentSchemas\":{\"foo\":true,\"bar\":false}}";
  ACCEPT(b, "{\"foo\":1}");
  ACCEPT(b, "{}");
  REJECT(b, "{\"bar\":2}");
  REJECT(b, "{\"foo\":1,\"bar\":2}");
  /* the dependent schema closes the object */
  const char *c =
      "{\"properties\":{\"foo\":{}},\"dependentSchemas\":{\"foo\":{\"properties\":"
      "{\"bar\":{}},\"additionalProperties\":false}}}";
  REJECT(c, "{\"foo\":1}"); /* foo is additional in the dependent schema */
  ACCEPT(c, "{\"baz\":1}");
  REJECT(c, "{\"foo\":1,\"baz\":1}");
  const char *m =
      "{\"dependentSchemas\":{\"a\":{\"minProperties\":3},\"b\":{\"required\":[\"c\"]}}}";
  /* declared order: names required by dependentSchemas come after the others */
  ACCEPT(m, "{\"c\":3,\"a\":1,\"b\":2}");
  REJECT(m, "{\"a\":1,\"b\":2}");
  ACCEPT(m, "{\"x\":1}");
  REJECT(m, "{\"b\":1}");
  /* a recursive schema with dependentSchemas still closes (memoized) */
  const char *r =
      "{\"properties\":{\"n\":{\"$ref\":\"#\"}},\"dependentSchemas\":{\"n\":"
      "{\"required\":[\"v\"]}}}";
  ACCEPT(r, "{\"n\":{\"n\":{\"v\":2},\"v\":1},\"v\":0}");
  REJECT(r, "{\"n\":{\"n\":{\"v\":2}},\"v\":0}");
  /* draft-07 "dependencies": schema values as dependentSchemas, arrays as
   * dependentRequired, in one keyword */
  const char *d7 = "{\"dependencies\":{\"bar\":{\"properties\":{\"foo\":{\"type\":\"integer\"}}},"
                   "\"q\":[\"r\"]}}";
  ACCEPT(d7, "{\"foo\":\"x\"}");
  ACCEPT(d7, "{\"foo\":1,\"bar\":2}");
  REJECT(d7, "{\"foo\":\"x\",\"bar\":2}");
  ACCEPT(d7, "{\"q\":1,\"r\":2}");
  REJECT(d7, "{\"q\":1}");
  ACCEPT(d7, "7"); /* objects only */
  pdt_refused("{\"dependentRequired\":{\"a\":{}}}", PD_ERR_SEMANTIC, "arrays");
}


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
  /* additional keys: every string whose value is no declared name */
  const char *names =
      "{\"properties\":{\"abc\":{\"type\":\"integer\"},\"\u00e9\":{\"type\":\"integer\"}}}";
  ACCEPT(names, "{\"ab\":\"x\",\"abcd\":\"x\",\"\":\"x\",\"\u00e8\":\"x\",\"\\u00e8\":\"x\"}");
  ACCEPT(names, "{\"abc\":1,\"\\u00e9\":2}");
  REJECT(names, "{\"ab\\u0063\":\"x\"}");   /* "abc", one letter escaped */
  REJECT(names, "{\"\\u00E9\":\"x\"}");     /* "\u00e9", upper-case hex */
  REJECT(names, "{\"\u00e9\":\"x\"}");
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
  /* general patterns: keys told apart by the set of patterns they match */
  const char *open_pat = "{\"patternProperties\":{\"^a\":{\"type\":\"string\"}}}";
  ACCEPT(open_pat, "{\"ab\":\"s\",\"b\":1}");
  REJECT(open_pat, "{\"ab\":1}");
  REJECT(open_pat, "{\"\\u0061\":1}"); /* an escaped key still matches */
  ACCEPT(open_pat, "{\"ba\":1}");
  const char *two =
      "{\"properties\":{\"aa\":{\"minimum\":5}},\"patternProperties\":{\"a\":"
      "{\"type\":\"integer\"},\"^b\":{\"maximum\":3}},\"additionalProperties\":"
      "{\"type\":\"string\"}}";
  ACCEPT(two, "{\"aa\":7,\"xa\":1,\"b\":2,\"ba\":3,\"c\":\"s\"}");
  REJECT(two, "{\"aa\":4}"); /* declared and matching: both schemas */
  REJECT(two, "{\"aa\":5.5}");
  REJECT(two, "{\"ba\":4}"); /* both patterns */
  REJECT(two, "{\"ba\":2.5}");
  REJECT(two, "{\"c\":1}");    /* no pattern: additionalProperties */
  ACCEPT(two, "{\"b\":-1.5}"); /* only ^b */
  const char *un = "{\"patternProperties\":{\"^x\":true},\"unevaluatedProperties\":false}";
  ACCEPT(un, "{\"xy\":1}");
  REJECT(un, "{\"y\":1}");
  pdt_refused_any("{\"patternProperties\":{\"\\\\p{L}\":{\"type\":\"string\"}}}");
  pd_grammar_options o = pdt_opts();
  o.any_order = true;
  if (!pdt_accepts_o(s, &o, "{\"c\":0,\"b\":\"x\",\"a\":1}")) fail_msg("any order");
  if (pdt_accepts_o(s, &o, "{\"a\":1,\"a\":2,\"b\":\"x\"}")) fail_msg("any order: a twice");
  if (pdt_accepts_o(s, &o, "{\"a\":1}")) fail_msg("any order: b required");
  /* past 12 declared properties only the required ones are tracked: an
   * optional one may repeat (a parser keeps the last value, each was checked) */
  const char *big = "{\"properties\":{\"a\":{},\"b\":{\"type\":\"integer\"},\"c\":{},\"d\":{},"
                    "\"e\":{},\"f\":{},\"g\":{},\"h\":{},\"i\":{},\"j\":{},\"k\":{},\"l\":{},"
                    "\"m\":{}},\"required\":[\"a\",\"m\"],\"additionalProperties\":false%s}";
  char wide[512];
  snprintf(wide, sizeof wide, big, "");
  if (!pdt_accepts_o(wide, &o, "{\"m\":2,\"b\":3,\"a\":1}")) fail_msg("wide: any order");
  if (!pdt_accepts_o(wide, &o, "{\"b\":1,\"m\":2,\"b\":3,\"a\":1}")) fail_msg("wide: b twice");
  if (pdt_accepts_o(wide, &o, "{\"b\":1,\"m\":2,\"b\":3.5,\"a\":1}")) fail_msg("wide: b's type");
  if (pdt_accepts_o(wide, &o, "{\"m\":2,\"a\":1,\"a\":1}")) fail_msg("wide: a twice");
  if (pdt_accepts_o(wide, &o, "{\"m\":2,\"b\":3}")) fail_msg("wide: a required");
  if (pdt_accepts_o(wide, &o, "{\"m\":2,\"a\":1,\"n\":3}")) fail_msg("wide: n not declared");
  snprintf(wide, sizeof wide, big, ",\"maxProperties\":3"); /* repeats count: stricter */
  if (!pdt_accepts_o(wide, &o, "{\"m\":2,\"c\":3,\"a\":1}")) fail_msg("wide: three");
  if (pdt_accepts_o(wide, &o, "{\"m\":2,\"c\":3,\"a\":1,\"d\":1}")) fail_msg("wide: four");
  /* up to 12 required ones tracked (2^12 rules); 13 keep the declared order */
  char req[1024], in[512], *w;
  for (int n_req = 12; n_req <= 13; n_req++) {
    w = req + sprintf(req, "{\"properties\":{");
    for (int i = 0; i < 16; i++) w += sprintf(w, "%s\"%c\":{}", i ? "," : "", 'a' + i);
    w += sprintf(w, "},\"required\":[");
    for (int i = 0; i < n_req; i++) w += sprintf(w, "%s\"%c\"", i ? "," : "", 'a' + i);
    sprintf(w, "]}");
    w = in + sprintf(in, "{\"p\":0");
    for (int i = n_req; i-- > 0;) w += sprintf(w, ",\"%c\":%d", 'a' + i, i);
    sprintf(w, "}");
    if (pdt_accepts_o(req, &o, in) != (n_req == 12)) fail_msg("%d required, reversed", n_req);
    size_t len = strlen(in); /* ...,"a":0} loses "a" */
    in[len - 7] = '}', in[len - 6] = 0;
    if (pdt_accepts_o(req, &o, in)) fail_msg("%d required, one missing", n_req);
  }
  /* minProperties past the required ones would count repeats: declared order */
  snprintf(wide, sizeof wide, big, ",\"minProperties\":3");
  if (!pdt_accepts_o(wide, &o, "{\"a\":1,\"c\":3,\"m\":2}")) fail_msg("wide: in order");
  if (pdt_accepts_o(wide, &o, "{\"m\":2,\"c\":3,\"a\":1}")) fail_msg("wide: kept in order");
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
  /* per type: objects told apart by a discriminator; other types satisfy both
   * branches (no keyword of theirs applies), so none of them is valid */
  const char *dis = "{\"oneOf\":[{\"properties\":{\"k\":{\"enum\":[\"a\"]}},\"required\":[\"k\"]},"
                    "{\"properties\":{\"k\":{\"enum\":[\"b\"]}},\"required\":[\"k\"]}]}";
  ACCEPT(dis, "{\"k\":\"a\"}");
  ACCEPT(dis, "{\"k\":\"b\"}");
  REJECT(dis, "{\"k\":\"c\"}");
  REJECT(dis, "{}");
  REJECT(dis, "5");
  REJECT(dis, "\"a\"");
  const char *mix = "{\"oneOf\":[{\"minimum\":3},{\"type\":\"string\"}]}";
  ACCEPT(mix, "5");
  REJECT(mix, "1");
  REJECT(mix, "\"s\""); /* a string meets "minimum" too */
  ACCEPT(mix, "null");
  /* the same through $ref and allOf */
  const char *refs = "{\"$defs\":{\"a\":{\"properties\":{\"k\":{\"const\":1},\"v\":{\"pattern\":\"a\"}},"
                     "\"required\":[\"k\"]},"
                     "\"b\":{\"allOf\":[{\"required\":[\"k\"],\"properties\":{\"k\":{\"const\":2}}}]}},"
                     "\"oneOf\":[{\"$ref\":\"#/$defs/a\"},{\"$ref\":\"#/$defs/b\"}]}";
  ACCEPT(refs, "{\"k\":2}");
  ACCEPT(refs, "{\"k\":1,\"v\":\"ab\"}");
  REJECT(refs, "{\"k\":1,\"v\":\"b\"}");
  REJECT(refs, "{\"k\":3}");
  REJECT(refs, "[]");
  /* lengths, counts and numeric ranges that do not meet; values a "not" excludes */
  const char *lens = "{\"oneOf\":[{\"maxLength\":0},{\"minLength\":1,\"format\":\"unknown-x\"}]}";
  ACCEPT(lens, "\"\"");
  ACCEPT(lens, "\"a\"");
  REJECT(lens, "1"); /* both take numbers */
  const char *nums = "{\"type\":\"number\",\"oneOf\":[{\"exclusiveMaximum\":0},{\"minimum\":0}]}";
  ACCEPT(nums, "-0.5");
  ACCEPT(nums, "0");
  const char *touch = "{\"type\":\"number\",\"oneOf\":[{\"maximum\":0},{\"minimum\":0}]}";
  REJECT(touch, "0"); /* in both: by negation */
  ACCEPT(touch, "1");
  const char *arrs = "{\"type\":\"array\",\"oneOf\":[{\"maxItems\":1},{\"minItems\":2}]}";
  ACCEPT(arrs, "[1]");
  ACCEPT(arrs, "[1,2]");
  const char *neg = "{\"$defs\":{\"p\":{\"enum\":[\"int\",\"bool\"]}},\"oneOf\":[{\"$ref\":\"#/$defs/p\"},"
                    "{\"type\":\"string\",\"not\":{\"$ref\":\"#/$defs/p\"}}]}";
  ACCEPT(neg, "\"int\"");
  ACCEPT(neg, "\"foo\"");
  REJECT(neg, "5");
  const char *both = "{\"oneOf\":[{\"enum\":[\"a\",\"b\"]},{\"type\":\"string\",\"not\":{\"enum\":[\"a\"]}}]}";
  ACCEPT(both, "\"a\"");
  REJECT(both, "\"b\""); /* in both: strings are told apart by automata */
  ACCEPT(both, "\"c\"");
  /* one branch takes all strings, the other some: the strings of one less the other's */
  const char *half = "{\"oneOf\":[{\"required\":[\"a\"]},{\"type\":\"string\",\"pattern\":\"^x\"}]}";
  ACCEPT(half, "\"y\"");
  REJECT(half, "\"x1\"");
  ACCEPT(half, "{\"a\":1}");
  REJECT(half, "{}");
  ACCEPT(half, "5");
  /* a hostname's automaton is too deep to copy into those automata: refused */
  pdt_refused("{\"oneOf\":[{\"format\":\"hostname\"},{\"format\":\"ipv4\"}]}", PD_ERR_UNSUPPORTED,
              "oneOf");
  /* string branches: patterns no string matches both of, values missing a pattern or format */
  const char *pats = "{\"oneOf\":[{\"type\":\"integer\"},{\"type\":\"string\",\"pattern\":"
                     "\"^-?\\\\d+/\\\\d+$\"},{\"type\":\"string\",\"pattern\":\"^0x[0-9a-f]+$\"},"
                     "{\"$ref\":\"#/$defs/e\"}],\"$defs\":{\"e\":{\"enum\":[\"text\",\"0x\",\"x/1\"]}}}";
  ACCEPT(pats, "\"-3/4\"");
  ACCEPT(pats, "\"0x1f\"");
  ACCEPT(pats, "7");
  ACCEPT(pats, "\"text\"");
  ACCEPT(pats, "\"0x\""); /* "^0x[0-9a-f]+$" needs a digit */
  REJECT(pats, "\"0xg\"");
  REJECT(pats, "\"3/\"");
  const char *fmt = "{\"oneOf\":[{\"type\":\"string\",\"format\":\"date\"},"
                    "{\"enum\":[\"today\",\"x\"]}]}";
  ACCEPT(fmt, "\"2020-01-31\"");
  ACCEPT(fmt, "\"today\"");
  REJECT(fmt, "\"2020-01-32\"");
  /* a value in both, patterns a string meets together: exactly one, by automata */
  const char *day = "{\"oneOf\":[{\"type\":\"string\",\"format\":\"date\"},{\"enum\":[\"2020-01-31\"]}]}";
  ACCEPT(day, "\"2020-02-01\"");
  REJECT(day, "\"2020-01-31\"");
  const char *ends = "{\"oneOf\":[{\"type\":\"string\",\"pattern\":\"^a\"},{\"type\":\"string\","
                     "\"pattern\":\"b$\"}]}";
  ACCEPT(ends, "\"ax\"");
  ACCEPT(ends, "\"xb\"");
  REJECT(ends, "\"ab\"");
  REJECT(ends, "\"x\"");
  const char *tx = "{\"oneOf\":[{\"type\":\"string\",\"pattern\":\"^x/\"},{\"enum\":[\"text\",\"x/1\"]}]}";
  ACCEPT(tx, "\"x/2\"");
  ACCEPT(tx, "\"text\"");
  REJECT(tx, "\"x/1\"");
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
  pdt_refused("{\"not\":{\"anyOf\":[{\"multipleOf\":3}]}}", PD_ERR_UNSUPPORTED, "not");
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
  pdt_refused("{\"not\":{\"pattern\":\"a\"},\"minLength\":2}", PD_ERR_UNSUPPORTED, "not");
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
  pdt_refused("{\"if\":{\"multipleOf\":3},\"then\":false}", PD_ERR_UNSUPPORTED, "/if");
  pdt_refused("{\"not\":{\"const\":\"a\"},\"maxLength\":3}", PD_ERR_UNSUPPORTED, "not");
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
  pdt_refused("{\"contains\":{\"multipleOf\":3},\"maxContains\":1}", PD_ERR_UNSUPPORTED,
              "maxContains");
  const char *cp = "{\"contains\":{\"pattern\":\"a\"},\"maxContains\":1}";
  ACCEPT(cp, "[\"a\",\"b\"]");
  REJECT(cp, "[\"a\",\"b\",1]"); /* 1 matches the pattern too: not a string */
  REJECT(cp, "[\"a\",\"ba\"]");
  REJECT(cp, "[\"b\"]");
  const char *str = "{\"contains\":{\"const\":\"a\"},\"maxContains\":1}";
  ACCEPT(str, "[\"a\",\"b\"]");
  REJECT(str, "[\"a\",\"\\u0061\"]");
}

static void test_multiple_of(void **state) {
  (void)state;
  /* several values: their least common multiple */
  const char *m = "{\"allOf\":[{\"multipleOf\":4}],\"multipleOf\":6}";
  ACCEPT(m, "12");
  ACCEPT(m, "-24.0");
  REJECT(m, "6");
  REJECT(m, "8");
  REJECT(m, "12.5");
  const char *d = "{\"allOf\":[{\"multipleOf\":0.01}],\"multipleOf\":0.1}";
  ACCEPT(d, "0.3");
  REJECT(d, "0.31");
  const char *k = "{\"allOf\":[{\"multipleOf\":0.5}],\"multipleOf\":3}"; /* 0.5: refused */
  pdt_refused(k, PD_ERR_UNSUPPORTED, "multipleOf");
  pdt_refused("{\"allOf\":[{\"multipleOf\":9973}],\"multipleOf\":9967}", PD_ERR_UNSUPPORTED,
              "multipleOf");
  /* with bounds: few multiples are listed; 1 and 10^-d meet the range in one
   * product automaton; many multiples of a larger integer are refused */
  const char *few = "{\"type\":\"integer\",\"minimum\":-10,\"exclusiveMaximum\":16,\"multipleOf\":4}";
  for (int v = -12; v <= 20; v++) {
    char text[16];
    snprintf(text, sizeof text, "%d", v);
    if (pdt_accepts(few, text) != (v >= -10 && v < 16 && v % 4 == 0)) fail_msg("%s on %s", few, text);
  }
  ACCEPT(few, "-0");
  ACCEPT(few, "12.00");
  REJECT(few, "12.5");
  const char *cents = "{\"type\":\"number\",\"minimum\":0,\"maximum\":99.99,\"multipleOf\":0.01}";
  ACCEPT(cents, "0");
  ACCEPT(cents, "99.99");
  ACCEPT(cents, "12.30");
  REJECT(cents, "12.345");
  REJECT(cents, "100");
  REJECT(cents, "-0.01");
  const char *whole = "{\"type\":\"number\",\"minimum\":1000,\"multipleOf\":1}";
  ACCEPT(whole, "1000.0");
  ACCEPT(whole, "123456789");
  REJECT(whole, "999");
  REJECT(whole, "1000.5");
  pdt_refused("{\"type\":\"integer\",\"minimum\":0,\"multipleOf\":3}", PD_ERR_UNSUPPORTED,
              "multipleOf");
  pdt_refused("{\"type\":\"integer\",\"minimum\":0,\"maximum\":100000,\"multipleOf\":3}",
              PD_ERR_UNSUPPORTED, "multipleOf");
}

static void test_unique_items(void **state) {
  (void)state;
  /* finite element sets: the set of values written is the state */
  const char *e =
      "{\"type\":\"array\",\"uniqueItems\":true,\"items\":{\"enum\":[\"a\",1,1.0,null]},"
      "\"minItems\":1}";
  ACCEPT(e, "[\"a\",1,null]");
  ACCEPT(e, "[null,1.00]");
  REJECT(e, "[1,1.0]"); /* equal values */
  REJECT(e, "[\"a\",\"\\u0061\"]");
  REJECT(e, "[]");
  REJECT(e, "[2]");
  const char *b =
      "{\"prefixItems\":[{\"type\":\"boolean\"},{\"type\":\"boolean\"}],"
      "\"uniqueItems\":true,\"items\":false}";
  ACCEPT(b, "[true,false]");
  ACCEPT(b, "[false]");
  ACCEPT(b, "[]");
  REJECT(b, "[true,true]");
  REJECT(b, "[true,false,null]");
  ACCEPT(b, "\"x\""); /* not an array */
  pdt_refused("{\"uniqueItems\":true,\"items\":{\"type\":\"string\"}}", PD_ERR_UNSUPPORTED,
              "uniqueItems");
}

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
}

/* Long lists stay flat: an enum of 5,000 values, an object of 3,000 declared
 * names (its additional keys are every other string; in any order, its
 * optional members), an anyOf of 2,500 branches and 2,500 prefixItems once
 * nested one level per item, past the IR's depth limit. */
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
  free(in);
  free(s);
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

static void test_loud(void **state) {
  (void)state;
  pdt_refused("{\"enum\":[\"a\"],\"format\":\"hostname\"}", PD_ERR_UNSUPPORTED, "/format");
  pdt_refused(
      "{\"properties\":{\"a\":{\"type\":\"array\",\"contains\":{\"multipleOf\":3},"
      "\"maxContains\":1}}}",
      PD_ERR_UNSUPPORTED, "/properties/a/maxContains");
  pdt_refused("{\"oneOf\":[{\"type\":\"string\"},{\"required\":[\"a\"],\"properties\":{\"a\":{\"multipleOf\":"
              "3}}},{\"type\":\"object\"}]}",
              PD_ERR_UNSUPPORTED, "oneOf");
  /* exact by negation: strings of length 0, or non-strings */
  ACCEPT("{\"oneOf\":[{\"type\":\"string\"},{\"minLength\":1}]}", "\"\"");
  ACCEPT("{\"oneOf\":[{\"type\":\"string\"},{\"minLength\":1}]}", "1");
  REJECT("{\"oneOf\":[{\"type\":\"string\"},{\"minLength\":1}]}", "\"a\"");
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
  /* maxContains over a contains that cannot be negated: dropped, contains kept */
  const char *mc = "{\"contains\":{\"pattern\":\"a\",\"multipleOf\":3},\"maxContains\":1}";
  assert_int_equal(pd_grammar_compile_json_schema(mc, strlen(mc), NULL, &o, &g, NULL), PD_OK);
  assert_string_equal(pd_grammar_relaxed(g), "maxContains at /maxContains\n");
  pd_grammar_free(g);
  if (!pdt_accepts_o(mc, &o, "[\"a\",\"ba\"]")) fail_msg("lenient drops maxContains");
  if (pdt_accepts_o(mc, &o, "[\"b\"]")) fail_msg("lenient keeps contains");
  /* non-integral numbers with a bound: the negation is dropped */
  const char *ni = "{\"not\":{\"type\":\"integer\"},\"type\":\"number\",\"minimum\":1}";
  assert_int_equal(pd_grammar_compile_json_schema(ni, strlen(ni), NULL, &o, &g, NULL), PD_OK);
  assert_string_equal(pd_grammar_relaxed(g), "not at /minimum\n");
  pd_grammar_free(g);
  if (!pdt_accepts_o(ni, &o, "2")) fail_msg("lenient drops the negation");
  if (pdt_accepts_o(ni, &o, "0.5")) fail_msg("lenient keeps the bound");
  /* a remote $ref in a oneOf branch: noted once, by the compile, not by each
   * proof that looks through it (they once listed it five times) */
  const char *rr = "{\"oneOf\":[{\"$ref\":\"http://x.org/y\",\"minimum\":1},{\"type\":\"string\","
                   "\"pattern\":\"^a\"}]}";
  assert_int_equal(pd_grammar_compile_json_schema(rr, strlen(rr), NULL, &o, &g, NULL), PD_OK);
  assert_string_equal(pd_grammar_relaxed(g), "oneOf at /oneOf\n$ref at /oneOf/0/$ref\n");
  pd_grammar_free(g);
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

/* Numbers with an exponent under zero bounds, against strtod: the sign and
 * the mantissa's digits decide the side; malformed texts stay rejected. */
static void test_exponent_bounds(void **state) {
  (void)state;
  static const char *const kws[][2] = {{"minimum", NULL},      {"exclusiveMinimum", NULL},
                                       {NULL, "maximum"},      {NULL, "exclusiveMaximum"},
                                       {"minimum", "maximum"}, {NULL, NULL}};
  static const char *const texts[] = {"1e2",     "-1e2",     "0e0",   "-0e1", "0.0e-3",  "0.001E+2",
                                      "-0.5e-1", "0.000e5",  "1.5e0", "2E-7", "-0.00E0", "0.01e1",
                                      "10e-1",   "-10.0e-1", "0.0",   "-0",   "3.5",     "-2",
                                      "00e1",    "1e",       "1e+",   ".5e1", "-e1",     "1.e2"};
  for (size_t k = 0; k < sizeof kws / sizeof kws[0]; k++) {
    char schema[160], lo_kw[40] = "", hi_kw[40] = "";
    if (kws[k][0]) snprintf(lo_kw, sizeof lo_kw, ",\"%s\":0", kws[k][0]);
    if (kws[k][1]) snprintf(hi_kw, sizeof hi_kw, ",\"%s\":0", kws[k][1]);
    snprintf(schema, sizeof schema, "{\"type\":\"number\"%s%s}", lo_kw, hi_kw);
    pdt_compiled c;
    pdt_compile(&c, schema);
    for (size_t t = 0; t < sizeof texts / sizeof texts[0]; t++) {
      const char *x = texts[t];
      bool wellformed = strcmp(x, "00e1") && strcmp(x, "1e") && strcmp(x, "1e+") &&
                        strcmp(x, ".5e1") && strcmp(x, "-e1") && strcmp(x, "1.e2");
      double v = strtod(x, NULL);
      bool lo = !kws[k][0] || (strcmp(kws[k][0], "minimum") ? v > 0 : v >= 0);
      bool hi = !kws[k][1] || (strcmp(kws[k][1], "maximum") ? v < 0 : v <= 0);
      bool want = wellformed && lo && hi;
      if (pdt_check(&c, x) != want) fail_msg("%s on %s: want %d", schema, x, want);
    }
    pdt_release(&c);
  }
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

/* draft-04 integers are written without a fraction; 2020-12 ones may end in ".0". */
static void test_draft4_integers(void **state) {
  (void)state;
  static const char *const kinds[] = {"", ",\"minimum\":-5,\"maximum\":500", ",\"multipleOf\":5"};
  for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
    for (int d4 = 0; d4 < 2; d4++) {
      char schema[200];
      snprintf(schema, sizeof schema, "{%s\"type\":\"integer\"%s}",
               d4 ? "\"$schema\":\"http://json-schema.org/draft-04/schema#\"," : "", kinds[k]);
      assert_true(pdt_accepts(schema, "10"));
      assert_int_equal(pdt_accepts(schema, "10.0"), !d4);
      assert_int_equal(pdt_accepts(schema, "10.00"), !d4);
      assert_false(pdt_accepts(schema, "10.5"));
    }
  /* numbers keep their fractions under draft-04 */
  assert_true(pdt_accepts("{\"$schema\":\"http://json-schema.org/draft-04/schema#\","
                          "\"type\":\"number\",\"maximum\":10}",
                          "10.0"));
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

/* Fails allocation n of compiling s (to IR only, or the whole grammar) for
 * n = 1, 2, ... until one succeeds: every failure is NOMEM and leaks nothing. */
static void pdt_fail_each_docs(const char *s, bool grammar, const pd_schema_doc *docs, size_t n) {
  pd_grammar_options o = pdt_opts();
  o.allocator = &pdt_allocator;
  o.schema_docs = docs, o.n_schema_docs = n;
  for (long n = 1;; n++) {
    pdt_alloc_reset(n);
    pd_status st;
    if (grammar) {
      pd_grammar *g = NULL;
      st = pd_grammar_compile_json_schema(s, strlen(s), NULL, &o, &g, NULL);
      pd_grammar_free(g);
    } else {
      pd_ir ir;
      pd_ir_init(&ir, &pdt_allocator);
      char *relaxed = NULL;
      st = pd_schema_to_ir(s, strlen(s), false, &o, &ir, &relaxed, NULL);
      pd__free(&pdt_allocator, relaxed);
      pd_ir_free(&ir);
    }
    assert_int_equal(pdt_alloc.live, 0);
    if (!pdt_alloc.failed) {
      assert_int_equal(st, PD_OK);
      return;
    }
    if (st != PD_ERR_NOMEM) fail_msg("allocation %ld: status %d", n, (int)st);
  }
}

static void pdt_fail_each(const char *s, bool grammar) { pdt_fail_each_docs(s, grammar, NULL, 0); }

/* Every allocation failure is reported as NOMEM and leaks nothing. */
static void test_alloc_failure(void **state) {
  (void)state;
  const char *s =
      "{\"$defs\":{\"n\":{\"type\":[\"integer\",\"null\"],\"minimum\":-5,\"maximum\":70}},"
      "\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":\"#/$defs/n\"},\"b\":{\"type\":"
      "\"array\",\"items\":{\"enum\":[\"x\",1.5]},\"maxItems\":3},\"c\":{\"format\":\"date\"}},"
      "\"required\":[\"a\"],\"minProperties\":1,\"anyOf\":[{\"required\":[\"b\"]},{}]}";
  pdt_fail_each(s, false);
  pdt_fail_each(s, true);
  /* the derived schemas, automata and counters of the newer keywords */
  const char *s2 =
      "{\"patternProperties\":{\"^a\":{\"type\":\"string\"},\"b\":{\"minimum\":1}},"
      "\"properties\":{\"ab\":{},\"u\":{\"type\":\"array\",\"uniqueItems\":true,\"items\":"
      "{\"enum\":[1,2]}},\"c\":{\"contains\":{\"const\":1},\"maxContains\":2}},"
      "\"dependentSchemas\":{\"x\":{\"required\":[\"y\"]}},\"if\":{\"maxLength\":3},"
      "\"then\":{\"const\":\"ab\"},\"else\":{\"not\":{\"enum\":[\"zzzz\",1,true]}},"
      "\"oneOf\":[{\"minimum\":2},{\"maximum\":5},{\"properties\":{\"q\":{\"const\":3}}}],"
      "\"unevaluatedProperties\":{\"multipleOf\":2}}";
  pdt_fail_each(s2, false);
  /* $ref through schema_docs: the resource table and the grafted documents */
  static const char d[] = "{\"$id\":\"http://e.x/d\",\"$defs\":{\"n\":{\"$ref\":\"m.json\"}}}";
  static const char m[] = "{\"type\":\"integer\"}";
  const pd_schema_doc docs[] = {{"http://e.x/d.json", d, sizeof d - 1},
                                {"http://e.x/m.json", m, sizeof m - 1}};
  pdt_fail_each_docs("{\"$ref\":\"http://e.x/d#/$defs/n\"}", false, docs, 2);
  pdt_fail_each_docs("{\"$ref\":\"http://e.x/d#/$defs/n\"}", true, docs, 2);
  /* m.json missing: unsupported whenever the allocations succeed, NOMEM otherwise */
  pd_grammar_options o = pdt_opts();
  o.allocator = &pdt_allocator;
  o.schema_docs = docs, o.n_schema_docs = 1;
  const char *r = "{\"oneOf\":[{\"$ref\":\"http://e.x/d#/$defs/n\"},{\"type\":\"string\"}]}";
  for (long n = 1;; n++) {
    pdt_alloc_reset(n);
    pd_grammar *g = NULL;
    pd_status st = pd_grammar_compile_json_schema(r, strlen(r), NULL, &o, &g, NULL);
    pd_grammar_free(g);
    assert_int_equal(pdt_alloc.live, 0);
    assert_int_equal(st, pdt_alloc.failed ? PD_ERR_NOMEM : PD_ERR_UNSUPPORTED);
    if (!pdt_alloc.failed) break;
  }
  pdt_alloc_reset(0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_types),         cmocka_unit_test(test_strings),
      cmocka_unit_test(test_enum_const),    cmocka_unit_test(test_objects),
      cmocka_unit_test(test_arrays),        cmocka_unit_test(test_combinators_refs),
      cmocka_unit_test(test_loud),          cmocka_unit_test(test_lenient),
      cmocka_unit_test(test_whitespace),    cmocka_unit_test(test_integer_ranges), cmocka_unit_test(test_exponent_bounds),
      cmocka_unit_test(test_number_ranges), cmocka_unit_test(test_alloc_failure),
      cmocka_unit_test(test_formats),       cmocka_unit_test(test_dependent_schemas),
      cmocka_unit_test(test_negation),      cmocka_unit_test(test_max_contains),
      cmocka_unit_test(test_dynamic_ref),   cmocka_unit_test(test_multiple_of),
      cmocka_unit_test(test_unique_items),   cmocka_unit_test(test_draft4_integers),
      cmocka_unit_test(test_ref_siblings),  cmocka_unit_test(test_ref_uris),
      cmocka_unit_test(test_schema_docs),   cmocka_unit_test(test_values_against_siblings),
      cmocka_unit_test(test_long_lists),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
