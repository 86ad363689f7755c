/* test_follow.c - FOLLOW1 sets (follow.h) equal their definition solved the
 * plain way, a pass over every state until nothing changes, on random
 * grammars, GBNF with deep call chains and wide JSON Schemas; the two bytes
 * after a whitespace rule hold every pair FOLLOW2 finds; and a failed
 * allocation fails the build cleanly. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>

#include "../earley/reference.h"
#include "base/alloc.h"
#include "masks/follow.h"
#include "pda/grammar.h"

static bool pdt__or8(uint32_t *dst, const uint32_t *src) {
  bool changed = false;
  for (int i = 0; i < 8; i++) {
    changed |= (dst[i] | src[i]) != dst[i];
    dst[i] |= src[i];
  }
  return changed;
}

/* follow.h's equations, iterated over every state until they hold. */
static uint32_t *pdt__reference(const pd_pda *p) {
  const pd_pda_state *st = pd_pda_states(p);
  const pd_pda_edge *ed = pd_pda_edges(p);
  const pd_pda_rule *ru = pd_pda_rules(p);
  uint32_t n = p->n_states;
  uint32_t *first = calloc((size_t)n * 8 + 8, 4), *follow = calloc((size_t)p->n_rules * 8 + 8, 4);
  uint8_t *ne = calloc(n + 1, 1);
  assert_non_null(first), assert_non_null(follow), assert_non_null(ne);
  for (uint32_t s = 0; s < n; s++) {
    ne[s] = (st[s].flags & PD_STATE_FINAL) != 0;
    for (uint32_t i = 0; i < st[s].n_byte; i++)
      for (unsigned b = ed[st[s].edges + i].lo; b <= ed[st[s].edges + i].hi; b++)
        first[8 * s + b / 32] |= 1u << (b % 32);
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t s = 0; s < n; s++)
      for (uint32_t c = 0; c < st[s].n_call; c++) {
        const pd_pda_edge *e = &ed[st[s].edges + st[s].n_byte + c];
        bool nullable = ru[e->arg].flags & PD_RULE_NULLABLE;
        if (nullable && ne[e->to] && !ne[s]) ne[s] = 1, changed = true;
        changed |= pdt__or8(first + 8 * s, first + 8 * ru[e->arg].start);
        if (nullable) changed |= pdt__or8(first + 8 * s, first + 8 * e->to);
        changed |= pdt__or8(follow + 8 * e->arg, first + 8 * e->to);
        if (ne[e->to]) changed |= pdt__or8(follow + 8 * e->arg, follow + 8 * st[s].rule);
      }
  }
  free(first);
  free(ne);
  return follow;
}

static void pdt__check(const pd_grammar *g) {
  uint32_t *got = NULL, *want = pdt__reference(&g->pda);
  assert_int_equal(pd_follow_build(&g->pda, pd_default_allocator(), &got, NULL), PD_OK);
  for (uint32_t r = 0; r < g->pda.n_rules; r++)
    for (int w = 0; w < 8; w++)
      if (got[8 * r + w] != want[8 * r + w])
        fail_msg("rule %s word %d: %08x, want %08x", pd_pda_rule_name(&g->pda, r), w,
                 got[8 * r + w], want[8 * r + w]);
  pd__free(pd_default_allocator(), got);
  free(want);
}

static void test_random(void **state) {
  (void)state;
  uint64_t x = 0x9E3779B97F4A7C15ull;
  int built = 0;
  for (int seed = 0; seed < 600; seed++) {
    uint8_t data[96];
    pd_ir ir;
    pdr_generate_next(&ir, &x, data, sizeof data);
    pd_grammar *g = NULL;
    if (pd_grammar_from_ir(&ir, NULL, NULL, &g, NULL) == PD_OK) pdt__check(g), built++;
    pd_grammar_free(g);
    pd_ir_free(&ir);
  }
  assert_true(built > 300);
}

/* Chains of calls numbered both ways, nullable links, left and right
 * recursion: where a pass in one order needs a round per link. */
static void test_chains(void **state) {
  (void)state;
  char text[8192], *w = text;
  w += sprintf(w, "root ::= up0 \"!\" | down0 | \"(\" root \")\" | root \"+\" | ");
  w += sprintf(w, "\"z\"\n");
  for (int i = 0; i < 40; i++) {
    w += sprintf(w, "up%d ::= up%d \"u%c\" | \"\"\n", i, i + 1, 'a' + i % 26);
    w += sprintf(w, "down%d ::= \"d\" down%d? \"%c\"\n", i, i + 1, 'A' + i % 26);
  }
  w += sprintf(w, "up40 ::= \"e\" | \"\"\ndown40 ::= [0-9]* \"end\"\n");
  pd_grammar *g = NULL;
  pd_error err;
  if (pd_grammar_compile_gbnf(text, strlen(text), NULL, NULL, &g, &err) != PD_OK)
    fail_msg("%s", err.message);
  pdt__check(g);
  pd_grammar_free(g);
}

/* Objects in any order: thousands of rules calling each other. */
static void test_schemas(void **state) {
  (void)state;
  const char *schemas[] = {
      "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":"
      "\"string\",\"maxLength\":40},\"c\":{\"type\":\"array\",\"items\":{\"$ref\":\"#\"}},"
      "\"d\":{},\"e\":{\"enum\":[1,\"x\",null]},\"f\":{\"type\":\"boolean\"},\"g\":{},\"h\":{}},"
      "\"required\":[\"a\",\"c\"]}",
      "{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"k\":{\"type\":"
      "\"number\",\"minimum\":-3},\"v\":{\"type\":[\"string\",\"null\"]}},"
      "\"additionalProperties\":{\"type\":\"integer\"},\"minProperties\":1,\"maxProperties\":4}}",
  };
  for (size_t i = 0; i < sizeof schemas / sizeof schemas[0]; i++)
    for (int order = 0; order < 2; order++) {
      pd_grammar_options o = {.any_order = order};
      pd_grammar *g = NULL;
      pd_error err;
      if (pd_grammar_compile_json_schema(schemas[i], strlen(schemas[i]), NULL, &o, &g, &err))
        fail_msg("schema %zu: %s", i, err.message);
      pdt__check(g);
      pd_grammar_free(g);
    }
}

/* schema compiled with the default options; the test fails where it cannot. */
static pd_grammar *pdt__schema(const char *schema) {
  pd_grammar *g = NULL;
  pd_error err;
  if (pd_grammar_compile_json_schema(schema, strlen(schema), NULL, NULL, &g, &err))
    fail_msg("%s", err.message);
  return g;
}

/* The rule named name in g, or UINT32_MAX. */
static uint32_t pdt__rule(const pd_grammar *g, const char *name) {
  for (uint32_t r = 0; r < g->pda.n_rules; r++)
    if (!strcmp(pd_pda_rule_name(&g->pda, r), name)) return r;
  return UINT32_MAX;
}

static bool pdt__has(const uint32_t *follow, uint32_t r, uint8_t b) {
  return follow[8 * (size_t)r + b / 32] >> (b % 32) & 1;
}

/* A schema's whitespace is a rule per place (schema_ctx.h), never merged for
 * their equal bodies: before a key only '"' and '}' may follow it, after a
 * value or a key only separators and closers, and a value's first bytes only
 * before a value (here any JSON value's: additionalProperties is true). */
static void test_ws_places(void **state) {
  (void)state;
  const char *schema = "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"boolean\"},"
                       "\"b\":{\"type\":\"array\",\"items\":{\"type\":\"null\"}}}}";
  pd_grammar *g = pdt__schema(schema);
  uint32_t *follow = NULL, key = pdt__rule(g, "ws-key"), after = pdt__rule(g, "ws-after"),
           value = pdt__rule(g, "ws");
  assert_int_equal(pd_follow_build(&g->pda, pd_default_allocator(), &follow, NULL), PD_OK);
  assert_int_not_equal(key, UINT32_MAX);
  assert_int_not_equal(after, UINT32_MAX);
  assert_int_not_equal(value, UINT32_MAX);
  for (unsigned b = 0; b < 256; b++) { /* within what each place allows */
    if (pdt__has(follow, key, (uint8_t)b)) assert_true(b == '"' || b == '}');
    if (pdt__has(follow, after, (uint8_t)b))
      assert_true(b == ',' || b == ':' || b == '}' || b == ']');
    if (pdt__has(follow, value, (uint8_t)b))
      assert_true(b && strchr("\"-0123456789[]{tfn", (int)b));
  }
  assert_true(pdt__has(follow, key, '"'));
  assert_true(pdt__has(follow, after, ',') && pdt__has(follow, after, ':'));
  assert_true(pdt__has(follow, value, 't') && pdt__has(follow, value, 'n'));
  pd__free(pd_default_allocator(), follow);
  pd_grammar_free(g);
}

/* Strings of at most two bytes: the empty one, those of one byte, and pairs
 * (two bytes, maybe cut from a longer string). */
typedef struct pdt__l2 {
  bool e;
  uint32_t one[8], two[2048];
} pdt__l2;

static bool pdt__set(uint32_t *w, unsigned i) {
  bool had = w[i / 32] >> (i % 32) & 1;
  w[i / 32] |= 1u << (i % 32);
  return !had;
}

/* d |= a . b cut to two bytes; whether d changed. */
static bool pdt__cat(pdt__l2 *d, const pdt__l2 *a, const pdt__l2 *b) {
  bool changed = false;
  uint32_t first[8];
  memcpy(first, b->one, sizeof first);
  for (unsigned x = 0; x < 256; x++)
    for (unsigned w = 0; w < 8; w++)
      if (b->two[8 * x + w]) pdt__set(first, x);
  if (a->e) {
    if (b->e && !d->e) d->e = changed = true;
    changed |= pdt__or8(d->one, b->one);
    for (unsigned w = 0; w < 2048; w += 8) changed |= pdt__or8(d->two + w, b->two + w);
  }
  for (unsigned x = 0; x < 256; x++) {
    if (!(a->one[x / 32] >> (x % 32) & 1)) continue;
    if (b->e) changed |= pdt__set(d->one, x);
    changed |= pdt__or8(d->two + 8 * x, first);
  }
  for (unsigned w = 0; w < 2048; w += 8) changed |= pdt__or8(d->two + w, a->two + w);
  return changed;
}

/* FOLLOW2 the textbook way: L2 of each state (the cut strings from it to its
 * rule's end), then what may follow each rule, iterated until nothing changes
 * (the end of the input: the empty string after the root). */
static pdt__l2 *pdt__follow2(const pd_pda *p) {
  const pd_pda_state *st = pd_pda_states(p);
  const pd_pda_edge *ed = pd_pda_edges(p);
  const pd_pda_rule *ru = pd_pda_rules(p);
  pdt__l2 *l = calloc(p->n_states + 1, sizeof *l), *f = calloc(p->n_rules + 1, sizeof *f), c;
  assert_true(l && f);
  for (uint32_t s = 0; s < p->n_states; s++) l[s].e = st[s].flags & PD_STATE_FINAL;
  f[p->root].e = true;
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t s = 0; s < p->n_states; s++)
      for (uint32_t i = 0; i < st[s].n_byte + st[s].n_call; i++) {
        const pd_pda_edge *e = &ed[st[s].edges + i];
        memset(&c, 0, sizeof c);
        if (i < st[s].n_byte) {
          for (unsigned b = e->lo; b <= e->hi; b++) pdt__set(c.one, b);
          changed |= pdt__cat(&l[s], &c, &l[e->to]);
        } else {
          changed |= pdt__cat(&l[s], &l[ru[e->arg].start], &l[e->to]);
          changed |= pdt__cat(&f[e->arg], &l[e->to], &f[st[s].rule]);
        }
      }
  }
  free(l);
  return f;
}

/* Every two-byte block against FOLLOW2: a restricted first byte is in the
 * follow set, and every pair that may follow the rule is in its row. The
 * number of blocks goes to *blocks. */
static void pdt__check_two(const pd_grammar *g, int *blocks) {
  const pd_pda *p = &g->pda;
  uint32_t *got = NULL;
  assert_int_equal(pd_follow_build(p, pd_default_allocator(), &got, NULL), PD_OK);
  pdt__l2 *want = pdt__follow2(p);
  for (uint32_t r = 0; r < p->n_rules; r++) {
    const uint32_t *blk = pd_follow2(got, p->n_rules, r);
    if (!blk) continue;
    ++*blocks;
    for (unsigned a = 0; a < 256; a++) {
      const uint32_t *row = pd_follow2_row(blk, (uint8_t)a);
      if (!row) continue;
      assert_true(pdt__has(got, r, (uint8_t)a));
      for (unsigned b = 0; b < 256; b++)
        if (want[r].two[8 * a + b / 32] >> (b % 32) & 1 && !(row[b / 32] >> (b % 32) & 1))
          fail_msg("rule %s: \"%c%c\" may follow it, not in its block", pd_pda_rule_name(p, r),
                   a, b);
    }
  }
  free(want);
  pd__free(pd_default_allocator(), got);
}

/* Two bytes after whitespace rules (follow.h), against FOLLOW2: random
 * grammars of keywords between whitespace, where the rule ends its caller
 * (opt, then "Qz" only there), before a call and at the end of the input. */
static void test_two_bytes(void **state) {
  (void)state;
  static const char *const words[] = {"true", "then", "to", "tx", "null", "no", "false", "fa",
                                      "x", "Xy", "ab", "b"};
  uint64_t x = 0x2545F4914F6CDD1Dull;
  int blocks = 0;
  for (int seed = 0; seed < 40; seed++) {
    char text[2048], *w = text;
    const char *kw[4];
    for (int i = 0; i < 4; i++) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      kw[i] = words[(x >> 33) % (sizeof words / sizeof *words)];
    }
    w += sprintf(w, "root ::= \"(\" ws list ws \")\" | item ws%s\n", seed % 2 ? "" : " end?");
    w += sprintf(w, "list ::= item (ws \",\" ws item)* | opt\n");
    /* recursive: not copied into its callers */
    w += sprintf(w, "opt ::= \"%s\" ws2 | \"%s\" | \"<\" opt\n", kw[0], kw[1]);
    w += sprintf(w, "item ::= \"%s\" | \"%s\" [a-c]* | \"[\" ws2 list? ws2 \"]\" | [0-9]+ | opt | "
                    "opt \"Qz\"\n", kw[2], kw[3]);
    /* whitespace of unbounded length: a call, not copied into callers (inline.c) */
    w += sprintf(w, "end ::= \"!\"\nws ::= [ \\t\\n]*\nws2 ::= %s\n",
                 seed % 3 ? "[ ]*" : "(\"\\n\" [ \\t]*)?");
    pd_grammar *g = NULL;
    pd_error err;
    if (pd_grammar_compile_gbnf(text, strlen(text), NULL, NULL, &g, &err) != PD_OK)
      fail_msg("%s: %s", err.message, text);
    pdt__check_two(g, &blocks);
    pdt__check(g);
    pd_grammar_free(g);
  }
  assert_true(blocks >= 40);
}

/* Before a JSON value the second byte is exact for the literals: 't' of
 * true, 'f' of false and 'n' of null each have the one next letter. */
static void test_two_bytes_schema(void **state) {
  (void)state;
  const char *schema = "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"boolean\"},"
                       "\"b\":{\"type\":[\"null\",\"integer\"]}}}";
  pd_grammar *g = pdt__schema(schema);
  int blocks = 0;
  pdt__check_two(g, &blocks);
  uint32_t *follow = NULL, value = pdt__rule(g, "ws");
  assert_int_equal(pd_follow_build(&g->pda, pd_default_allocator(), &follow, NULL), PD_OK);
  const uint32_t *blk = pd_follow2(follow, g->pda.n_rules, value);
  assert_non_null(blk);
  static const char pairs[][3] = {"tr", "fa", "nu"};
  for (int i = 0; i < 3; i++) {
    const uint32_t *row = pd_follow2_row(blk, (uint8_t)pairs[i][0]);
    assert_non_null(row);
    assert_int_equal(pd_popcount_words(row, 8), 1);
    assert_true(row[pairs[i][1] / 32] >> (pairs[i][1] % 32) & 1);
  }
  assert_null(pd_follow2_row(blk, '"')); /* only letters get a second byte */
  pd__free(pd_default_allocator(), follow);
  pd_grammar_free(g);
}

/* Every allocation of the build failed in turn: PD_ERR_NOMEM, nothing held. */
static void test_nomem(void **state) {
  (void)state;
  const char *text = "root ::= a b? ws \"x\" ws \"true\"\na ::= \"y\" a | \"\"\nb ::= a \"z\"\n"
                     "ws ::= [ \\t]*\n";
  pd_grammar *g = NULL;
  assert_int_equal(pd_grammar_compile_gbnf(text, strlen(text), NULL, NULL, &g, NULL), PD_OK);
  bool succeeded = false;
  for (long n = 1; !succeeded && n < 100; n++) {
    uint32_t *out = NULL;
    pd_error err;
    pdt_alloc_reset(n);
    pd_status st = pd_follow_build(&g->pda, &pdt_allocator, &out, &err);
    if (st == PD_OK) {
      succeeded = true;
      pd__free(&pdt_allocator, out);
    } else {
      assert_int_equal(st, PD_ERR_NOMEM);
      assert_null(out);
    }
    assert_int_equal(pdt_alloc.live, 0);
  }
  assert_true(succeeded);
  pdt_alloc_reset(0);
  pd_grammar_free(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_random),
      cmocka_unit_test(test_chains),
      cmocka_unit_test(test_schemas),
      cmocka_unit_test(test_ws_places),
      cmocka_unit_test(test_two_bytes),
      cmocka_unit_test(test_two_bytes_schema),
      cmocka_unit_test(test_nomem),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
