/* bench_earley.c - bytes per second of pd_matcher_accept_bytes on a JSON grammar
 * and on a left-recursive expression grammar (plain C; prints one line each).
 * Times are process CPU time.
 *
 *   build-x/bench/bench_earley [seconds-per-case]   (default 1) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pushdown.h"

static const char pd__json_gbnf[] =
    "root   ::= ws value ws\n"
    "value  ::= object | array | string | number | \"true\" | \"false\" | \"null\"\n"
    "object ::= \"{\" ws ( member ( ws \",\" ws member )* )? ws \"}\"\n"
    "member ::= string ws \":\" ws value\n"
    "array  ::= \"[\" ws ( value ( ws \",\" ws value )* )? ws \"]\"\n"
    "string ::= \"\\\"\" ( [^\"\\\\\\x00-\\x1F] | \"\\\\\" ( [\"\\\\/bfnrt] | \"u\" [0-9a-fA-F]{4} "
    ") )* "
    "\"\\\"\"\n"
    "number ::= \"-\"? ( \"0\" | [1-9] [0-9]* ) ( \".\" [0-9]+ )? ( [eE] [-+]? [0-9]+ )?\n"
    "ws     ::= [ \\t\\n\\r]*\n";

static const char pd__expr_gbnf[] =
    "root ::= expr\n"
    "expr ::= expr (\"+\" | \"-\") term | term\n"
    "term ::= term (\"*\" | \"/\") factor | factor\n"
    "factor ::= \"(\" expr \")\" | [0-9]+\n";

static double pd__now(void) {
  struct timespec t;
  /* CPU time of this process: the machine is shared, wall time would measure the neighbours */
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* A JSON document of about n bytes: records with strings, numbers, nesting. */
static size_t pd__make_json(char *buf, size_t n) {
  size_t at = 0;
  at += (size_t)sprintf(buf + at, "{\"items\": [");
  for (int i = 0; at + 200 < n; i++)
    at += (size_t)sprintf(buf + at,
                          "%s{\"id\": %d, \"name\": \"item \\u00e9 %d\", \"price\": %d.%02d, "
                          "\"tags\": [\"a\", \"b\\n\"], \"ok\": %s, \"next\": null}",
                          i ? ", " : "", i, i * 7, i % 1000, i % 100, i % 2 ? "true" : "false");
  at += (size_t)sprintf(buf + at, "]}");
  return at;
}

/* (1+2*(3-4))+... nested a few levels, about n bytes. */
static size_t pd__make_expr(char *buf, size_t n) {
  size_t at = 0;
  for (int i = 0; at + 40 < n; i++)
    at += (size_t)sprintf(buf + at, "%s(%d*(%d-%d/(7+%d)))", i ? "+" : "", i, i % 13, i % 5 + 1, i);
  return at;
}

static int pd__bench(const char *name, const char *gbnf, const char *text, size_t len,
                     double secs) {
  pd_grammar *g = NULL;
  pd_matcher *m = NULL;
  pd_error err;
  if (pd_grammar_compile_gbnf(gbnf, strlen(gbnf), NULL, NULL, &g, &err) ||
      pd_matcher_new(g, &m, &err)) {
    fprintf(stderr, "%s: %s\n", name, err.message);
    pd_grammar_free(g);
    return 1;
  }
  size_t total = 0;
  int runs = 0;
  double t0 = pd__now(), t;
  do {
    pd_matcher_reset(m);
    if (pd_matcher_accept_bytes(m, (const uint8_t *)text, len, NULL, &err) ||
        !pd_matcher_is_accepting(m)) {
      fprintf(stderr, "%s: input rejected: %s\n", name, err.message);
      break;
    }
    total += len;
    runs++;
    t = pd__now();
  } while (t - t0 < secs);
  t = pd__now() - t0;
  printf("%-6s %8zu bytes x %3d runs: %8.2f MB/s (%.1f ns/byte)\n", name, len, runs,
         (double)total / t / 1e6, t * 1e9 / (double)(total ? total : 1));
  pd_matcher_free(m);
  pd_grammar_free(g);
  return 0;
}

int main(int argc, char **argv) {
  double secs = argc > 1 ? atof(argv[1]) : 1.0;
  size_t cap = 256 * 1024;
  char *buf = malloc(cap);
  if (!buf) return 1;
  int rc = pd__bench("json", pd__json_gbnf, buf, pd__make_json(buf, cap), secs);
  rc |= pd__bench("expr", pd__expr_gbnf, buf, pd__make_expr(buf, cap), secs);
  free(buf);
  return rc;
}
