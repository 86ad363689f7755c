/* ir.c - building the grammar IR. */
#include "ir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pd_ir_init(pd_ir *ir, const pd_allocator *alloc) {
  memset(ir, 0, sizeof *ir);
  ir->alloc = pd__alloc_or_default(alloc);
  ir->root = PD_IR_NONE;
}

void pd_ir_free(pd_ir *ir) {
  pd_array_free(ir->alloc, &ir->nodes);
  pd_array_free(ir->alloc, &ir->kids);
  pd_array_free(ir->alloc, &ir->bytes);
  pd_array_free(ir->alloc, &ir->ranges);
  pd_array_free(ir->alloc, &ir->rules);
  pd_array_free(ir->alloc, &ir->names);
  pd_array_free(ir->alloc, &ir->table);
}

/* FNV-1a over the name. */
static uint32_t pd__name_hash(const char *s, size_t len) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < len; i++) h = (h ^ (uint8_t)s[i]) * 16777619u;
  return h;
}

static bool pd__name_eq(const pd_ir *ir, uint32_t rule, const char *s, size_t len) {
  const pd_ir_rule *r = &ir->rules.data[rule];
  return r->name_len == len && memcmp(ir->names.data + r->name_off, s, len) == 0;
}

/* Slot of name in the table: the matching entry or the empty slot to fill. */
static size_t pd__slot(const pd_ir *ir, const char *s, size_t len) {
  size_t mask = ir->table.len - 1, i = pd__name_hash(s, len) & mask;
  while (ir->table.data[i] && !pd__name_eq(ir, ir->table.data[i] - 1, s, len)) i = (i + 1) & mask;
  return i;
}

/* Keeps the table at most half full; size is a power of two. */
static bool pd__table_grow(pd_ir *ir) {
  if (ir->table.len && ir->rules.len * 2 < ir->table.len) return true;
  size_t n = ir->table.len ? ir->table.len * 2 : 64;
  uint32_t *t = pd__calloc(ir->alloc, n, sizeof *t);
  if (!t) return false;
  pd__free(ir->alloc, ir->table.data);
  ir->table.data = t;
  ir->table.len = ir->table.cap = n;
  for (uint32_t r = 0; r < ir->rules.len; r++) {
    const pd_ir_rule *rr = &ir->rules.data[r];
    ir->table.data[pd__slot(ir, ir->names.data + rr->name_off, rr->name_len)] = r + 1;
  }
  return true;
}

uint32_t pd_ir_rule_find(const pd_ir *ir, const char *name, size_t len) {
  if (!ir->table.len) return PD_IR_NONE;
  uint32_t e = ir->table.data[pd__slot(ir, name, len)];
  return e ? e - 1 : PD_IR_NONE;
}

uint32_t pd_ir_rule_named(pd_ir *ir, const char *name, size_t len) {
  if (ir->oom) return PD_IR_NONE;
  uint32_t found = pd_ir_rule_find(ir, name, len);
  if (found != PD_IR_NONE) return found;
  if (ir->rules.len >= UINT32_MAX - 1 || len >= UINT32_MAX || !pd__table_grow(ir) ||
      !pd_array_reserve(ir->alloc, &ir->names, len + 1) ||
      !pd_array_reserve(ir->alloc, &ir->rules, 1)) {
    ir->oom = true;
    return PD_IR_NONE;
  }
  pd_ir_rule r = {
      .name_off = (uint32_t)ir->names.len, .name_len = (uint32_t)len, .body = PD_IR_NONE};
  memcpy(ir->names.data + ir->names.len, name, len);
  ir->names.len += len;
  ir->names.data[ir->names.len++] = '\0';
  uint32_t id = (uint32_t)ir->rules.len;
  ir->rules.data[ir->rules.len++] = r;
  ir->table.data[pd__slot(ir, name, len)] = id + 1;
  return id;
}

uint32_t pd_ir_rule_fresh(pd_ir *ir, const char *hint) {
  char buf[96];
  for (size_t k = ir->rules.len;; k++) {
    int n = snprintf(buf, sizeof buf, "%.64s-%zu", hint, k);
    if (pd_ir_rule_find(ir, buf, (size_t)n) == PD_IR_NONE) return pd_ir_rule_named(ir, buf, (size_t)n);
  }
}

void pd_ir_rule_flag(pd_ir *ir, uint32_t rule, uint32_t flags) {
  if (rule != PD_IR_NONE) ir->rules.data[rule].flags |= flags;
}

/* A fresh rule of body that is never copied into its callers: the matcher
 * keeps what it needs of it (a count, a set of members) in its own items. */
static uint32_t pd__called(pd_ir *ir, const char *hint, uint32_t body) {
  uint32_t r = pd_ir_rule_fresh(ir, hint);
  pd_ir_rule_define(ir, r, body);
  if (ir->oom) return PD_IR_NONE;
  ir->rules.data[r].flags |= PD_IR_RULE_CALLED;
  return r;
}

uint32_t pd_ir_counted(pd_ir *ir, uint32_t body, uint32_t max) {
  uint32_t r = pd__called(ir, "counted", body);
  if (r == PD_IR_NONE) return PD_IR_NONE;
  ir->rules.data[r].count = max;
  return pd_ir_ref(ir, r);
}

uint32_t pd_ir_set_member(pd_ir *ir, uint32_t body, uint32_t p) {
  uint32_t r = pd__called(ir, "member", body);
  if (r == PD_IR_NONE) return PD_IR_NONE;
  ir->rules.data[r].set_bit = p + 1;
  return pd_ir_ref(ir, r);
}

uint32_t pd_ir_set(pd_ir *ir, uint32_t body, uint32_t need) {
  uint32_t r = pd__called(ir, "set", body);
  if (r == PD_IR_NONE) return PD_IR_NONE;
  ir->rules.data[r].set_need = need;
  return pd_ir_ref(ir, r);
}

void pd_ir_rule_define(pd_ir *ir, uint32_t rule, uint32_t body) {
  if (rule == PD_IR_NONE || body == PD_IR_NONE) {
    ir->oom = ir->oom || body == PD_IR_NONE || rule == PD_IR_NONE;
    return;
  }
  ir->rules.data[rule].body = body;
}

void pd_ir_set_root(pd_ir *ir, uint32_t body) {
  uint32_t root = pd_ir_rule_named(ir, "root", 4);
  pd_ir_rule_define(ir, root, body);
  ir->root = root;
}

static uint32_t pd__node(pd_ir *ir, pd_ir_node n) {
  if (ir->oom || ir->nodes.len >= UINT32_MAX - 1 || !pd_array_push(ir->alloc, &ir->nodes, n)) {
    ir->oom = true;
    return PD_IR_NONE;
  }
  return (uint32_t)(ir->nodes.len - 1);
}

uint32_t pd_ir_empty(pd_ir *ir) { return pd__node(ir, (pd_ir_node){.kind = PD_IR_EMPTY}); }
uint32_t pd_ir_nothing(pd_ir *ir) { return pd__node(ir, (pd_ir_node){.kind = PD_IR_NOTHING}); }

uint32_t pd_ir_bytes(pd_ir *ir, const void *bytes, size_t len) {
  if (len == 0) return pd_ir_empty(ir);
  if (ir->oom || len >= UINT32_MAX || !pd_array_reserve(ir->alloc, &ir->bytes, len)) {
    ir->oom = true;
    return PD_IR_NONE;
  }
  uint32_t off = (uint32_t)ir->bytes.len;
  memcpy(ir->bytes.data + off, bytes, len);
  ir->bytes.len += len;
  return pd__node(ir, (pd_ir_node){.kind = PD_IR_BYTES, .off = off, .n = (uint32_t)len});
}

static int pd__cmp_pair(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

/* Appends [lo,hi] to ir->ranges, merging with the previous pair when they touch. */
static void pd__range_add(pd_ir *ir, uint32_t lo, uint32_t hi, size_t start) {
  if (lo > hi) return;
  uint32_t *r = ir->ranges.data;
  if (ir->ranges.len > start && r[ir->ranges.len - 1] + 1 >= lo) {
    if (hi > r[ir->ranges.len - 1]) r[ir->ranges.len - 1] = hi;
    return;
  }
  r[ir->ranges.len++] = lo;
  r[ir->ranges.len++] = hi;
}

/* Adds [lo,hi] minus the surrogates. */
static void pd__range_add_valid(pd_ir *ir, uint32_t lo, uint32_t hi, size_t start) {
  if (hi > PD_IR_MAX_CODEPOINT) hi = PD_IR_MAX_CODEPOINT;
  if (lo < 0xD800 && hi >= 0xD800) {
    pd__range_add(ir, lo, 0xD7FF, start);
    lo = 0xE000;
  } else if (lo >= 0xD800 && lo <= 0xDFFF) {
    lo = 0xE000;
  }
  pd__range_add(ir, lo, hi, start);
}

uint32_t pd_ir_class(pd_ir *ir, const uint32_t *pairs, size_t n_pairs, bool negated) {
  if (ir->oom) return PD_IR_NONE;
  uint32_t *sorted = pd__malloc(ir->alloc, (n_pairs ? n_pairs : 1) * 2 * sizeof *sorted);
  /* normalized output has at most n_pairs + 2 pairs (negation and surrogate splits) */
  if (!sorted || !pd_array_reserve(ir->alloc, &ir->ranges, 2 * n_pairs + 8)) {
    pd__free(ir->alloc, sorted);
    ir->oom = true;
    return PD_IR_NONE;
  }
  size_t m = 0;
  for (size_t i = 0; i < n_pairs; i++) {
    uint32_t lo = pairs[2 * i], hi = pairs[2 * i + 1];
    if (lo > hi || lo > PD_IR_MAX_CODEPOINT) continue;
    sorted[2 * m] = lo;
    sorted[2 * m + 1] = hi > PD_IR_MAX_CODEPOINT ? PD_IR_MAX_CODEPOINT : hi;
    m++;
  }
  qsort(sorted, m, 2 * sizeof *sorted, pd__cmp_pair);
  size_t start = ir->ranges.len;
  if (!negated) {
    for (size_t i = 0; i < m; i++) pd__range_add_valid(ir, sorted[2 * i], sorted[2 * i + 1], start);
  } else {
    uint32_t next = 0; /* first code point not yet covered */
    bool done = false;
    for (size_t i = 0; i < m && !done; i++) {
      if (sorted[2 * i] > next) pd__range_add_valid(ir, next, sorted[2 * i] - 1, start);
      if (sorted[2 * i + 1] >= next) {
        if (sorted[2 * i + 1] == PD_IR_MAX_CODEPOINT) done = true;
        next = sorted[2 * i + 1] + 1;
      }
    }
    if (!done) pd__range_add_valid(ir, next, PD_IR_MAX_CODEPOINT, start);
  }
  pd__free(ir->alloc, sorted);
  size_t n = (ir->ranges.len - start) / 2;
  if (n == 0) return pd_ir_nothing(ir);
  return pd__node(ir, (pd_ir_node){.kind = PD_IR_CLASS, .off = (uint32_t)start, .n = (uint32_t)n});
}

uint32_t pd_ir_any_char(pd_ir *ir) { return pd_ir_class(ir, NULL, 0, true); }

uint32_t pd_ir_ref(pd_ir *ir, uint32_t rule) {
  if (rule == PD_IR_NONE) {
    ir->oom = true;
    return PD_IR_NONE;
  }
  return pd__node(ir, (pd_ir_node){.kind = PD_IR_REF, .a = rule});
}

static uint32_t pd__list(pd_ir *ir, pd_ir_kind kind, const uint32_t *nodes, size_t n) {
  if (ir->oom) return PD_IR_NONE;
  for (size_t i = 0; i < n; i++)
    if (nodes[i] == PD_IR_NONE) {
      ir->oom = true;
      return PD_IR_NONE;
    }
  if (n == 0) return kind == PD_IR_SEQ ? pd_ir_empty(ir) : pd_ir_nothing(ir);
  if (n == 1) return nodes[0];
  if (n >= UINT32_MAX || !pd_array_reserve(ir->alloc, &ir->kids, n)) {
    ir->oom = true;
    return PD_IR_NONE;
  }
  uint32_t off = (uint32_t)ir->kids.len;
  memcpy(ir->kids.data + off, nodes, n * sizeof *nodes);
  ir->kids.len += n;
  return pd__node(ir, (pd_ir_node){.kind = (uint8_t)kind, .off = off, .n = (uint32_t)n});
}

uint32_t pd_ir_seq(pd_ir *ir, const uint32_t *nodes, size_t n) {
  return pd__list(ir, PD_IR_SEQ, nodes, n);
}
uint32_t pd_ir_alt(pd_ir *ir, const uint32_t *nodes, size_t n) {
  return pd__list(ir, PD_IR_ALT, nodes, n);
}
uint32_t pd_ir_seq2(pd_ir *ir, uint32_t a, uint32_t b) {
  uint32_t k[2] = {a, b};
  return pd_ir_seq(ir, k, 2);
}
uint32_t pd_ir_alt2(pd_ir *ir, uint32_t a, uint32_t b) {
  uint32_t k[2] = {a, b};
  return pd_ir_alt(ir, k, 2);
}

uint32_t pd_ir_repeat(pd_ir *ir, uint32_t node, uint32_t min, uint32_t max) {
  if (node == PD_IR_NONE) {
    ir->oom = true;
    return PD_IR_NONE;
  }
  if (max != PD_IR_INF && max < min) return pd_ir_nothing(ir);
  if (max == 0) return pd_ir_empty(ir);
  if (min == 1 && max == 1) return node;
  /* Counts of counts of one x fold into one count where the sums leave no gap:
   * (x{0,a}){m,n} is x{0,a*n} (any copy may be empty) and (x{1,a}){m,n} is x{m,a*n}
   * (k copies make k..k*a, which meets k+1's range); x*, x+ and x? are a = inf and
   * a = 1, and (x*){m,n} is x* itself. The nested counts only multiplied an Earley
   * row's ways to split the same text: (x*){0,33} took 0.4 s over 300 bytes, and
   * fuzz units' [..]+{053} and [..]{0,33}{0,33} 107 s and 20 s (ASan). A product past
   * the count range stays nested. */
  const pd_ir_node *in = pd_ir_at(ir, node);
  if (in->kind == PD_IR_REPEAT && in->off == 0 && in->n == PD_IR_INF) return node;
  if (in->kind == PD_IR_REPEAT && in->off <= 1) {
    bool inf = in->n == PD_IR_INF || max == PD_IR_INF;
    uint64_t top = inf ? PD_IR_INF : (uint64_t)in->n * max;
    if (inf || top < PD_IR_INF)
      return pd__node(ir, (pd_ir_node){.kind = PD_IR_REPEAT, .a = in->a, .off = in->off ? min : 0,
                                       .n = (uint32_t)top});
  }
  return pd__node(ir, (pd_ir_node){.kind = PD_IR_REPEAT, .a = node, .off = min, .n = max});
}

uint32_t pd_ir_diff(pd_ir *ir, uint32_t a, uint32_t b) {
  if (a == PD_IR_NONE || b == PD_IR_NONE) {
    ir->oom = true;
    return PD_IR_NONE;
  }
  if (pd_ir_at(ir, b)->kind == PD_IR_NOTHING || pd_ir_at(ir, a)->kind == PD_IR_NOTHING) return a;
  return pd__node(ir, (pd_ir_node){.kind = PD_IR_DIFF, .a = a, .off = b});
}

static uint32_t pd__and(pd_ir *ir, uint32_t a, uint32_t b, bool counted) {
  if (a == PD_IR_NONE || b == PD_IR_NONE) {
    ir->oom = true;
    return PD_IR_NONE;
  }
  if (pd_ir_at(ir, a)->kind == PD_IR_NOTHING || pd_ir_at(ir, b)->kind == PD_IR_NOTHING)
    return pd_ir_nothing(ir);
  return pd__node(ir, (pd_ir_node){.kind = PD_IR_AND, .a = a, .off = b, .n = counted});
}

uint32_t pd_ir_and(pd_ir *ir, uint32_t a, uint32_t b) { return pd__and(ir, a, b, false); }

uint32_t pd_ir_and_count(pd_ir *ir, uint32_t a, uint32_t u, uint32_t min, uint32_t max) {
  if (max != PD_IR_INF && min > max) return pd_ir_nothing(ir);
  uint32_t b = pd_ir_repeat(ir, u, min, max);
  if (b != PD_IR_NONE && pd_ir_at(ir, b)->kind != PD_IR_REPEAT) /* x{1,1}, x{0,0}: not counted */
    return pd__and(ir, a, b, false);
  return pd__and(ir, a, b, true);
}

uint32_t pd_ir_token(pd_ir *ir, uint32_t token_id, bool negated) {
  return pd__node(ir, (pd_ir_node){.kind = PD_IR_TOKEN, .negated = negated, .a = token_id});
}

/* ------------------------------------------------------------------ dump */

typedef struct pd__out {
  const pd_allocator *alloc;
  PD_ARRAY(char) s;
  bool oom;
} pd__out;

static void pd__put(pd__out *o, const char *s, size_t n) {
  if (o->oom || !pd_array_reserve(o->alloc, &o->s, n + 1)) {
    o->oom = true;
    return;
  }
  memcpy(o->s.data + o->s.len, s, n);
  o->s.len += n;
}

static void pd__puts(pd__out *o, const char *s) { pd__put(o, s, strlen(s)); }

static void pd__putf_u(pd__out *o, const char *fmt, uint32_t v) {
  char b[32];
  int n = snprintf(b, sizeof b, fmt, v);
  pd__put(o, b, (size_t)n);
}

static void pd__dump_char(pd__out *o, uint32_t c) {
  if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\' && c != ']' && c != '-' && c != '^') {
    char ch = (char)c;
    pd__put(o, &ch, 1);
  } else {
    pd__putf_u(o, c <= 0xFF ? "\\x%02X" : c <= 0xFFFF ? "\\u%04X" : "\\U%08X", c);
  }
}

static void pd__dump_node(const pd_ir *ir, pd__out *o, uint32_t id, int depth) {
  const pd_ir_node *n = pd_ir_at(ir, id);
  if (depth > 200) {
    pd__puts(o, "...");
    return;
  }
  switch ((pd_ir_kind)n->kind) {
    case PD_IR_EMPTY: pd__puts(o, "\"\""); break;
    case PD_IR_NOTHING: pd__puts(o, "[]"); break;
    case PD_IR_BYTES:
      pd__puts(o, "\"");
      for (uint32_t i = 0; i < n->n; i++) {
        uint8_t b = ir->bytes.data[n->off + i];
        if (b >= 0x20 && b < 0x7F && b != '"' && b != '\\') pd__put(o, (const char *)&b, 1);
        else pd__putf_u(o, "\\x%02X", b);
      }
      pd__puts(o, "\"");
      break;
    case PD_IR_CLASS:
      pd__puts(o, "[");
      for (uint32_t i = 0; i < n->n; i++) {
        uint32_t lo = ir->ranges.data[n->off + 2 * i], hi = ir->ranges.data[n->off + 2 * i + 1];
        pd__dump_char(o, lo);
        if (hi != lo) {
          pd__puts(o, "-");
          pd__dump_char(o, hi);
        }
      }
      pd__puts(o, "]");
      break;
    case PD_IR_REF: pd__puts(o, pd_ir_rule_name(ir, n->a)); break;
    case PD_IR_SEQ:
    case PD_IR_ALT:
      pd__puts(o, "(");
      for (uint32_t i = 0; i < n->n; i++) {
        if (i) pd__puts(o, n->kind == PD_IR_SEQ ? " " : " | ");
        pd__dump_node(ir, o, ir->kids.data[n->off + i], depth + 1);
      }
      pd__puts(o, ")");
      break;
    case PD_IR_REPEAT:
      pd__dump_node(ir, o, n->a, depth + 1);
      pd__putf_u(o, "{%u,", n->off);
      if (n->n != PD_IR_INF) pd__putf_u(o, "%u", n->n);
      pd__puts(o, "}");
      break;
    case PD_IR_TOKEN: pd__putf_u(o, n->negated ? "!<[%u]>" : "<[%u]>", n->a); break;
    case PD_IR_DIFF:
    case PD_IR_AND:
      pd__puts(o, "(");
      pd__dump_node(ir, o, n->a, depth + 1);
      pd__puts(o, n->kind == PD_IR_DIFF ? " - " : " & ");
      pd__dump_node(ir, o, n->off, depth + 1);
      pd__puts(o, ")");
      break;
  }
}

pd_status pd_ir_dump(const pd_ir *ir, char **out) {
  pd__out o = {ir->alloc, {0}, false};
  for (uint32_t r = 0; r < ir->rules.len; r++) {
    pd__puts(&o, pd_ir_rule_name(ir, r));
    pd__puts(&o, " ::= ");
    if (ir->rules.data[r].body == PD_IR_NONE) pd__puts(&o, "<undefined>");
    else pd__dump_node(ir, &o, ir->rules.data[r].body, 0);
    pd__puts(&o, "\n");
  }
  pd__put(&o, "", 1);
  if (o.oom) {
    pd_array_free(o.alloc, &o.s);
    *out = NULL;
    return PD_ERR_NOMEM;
  }
  *out = o.s.data;
  return PD_OK;
}
