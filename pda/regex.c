/* regex.c - ECMA-262 patterns to grammar IR, and the `regex` constraint kind.
 *
 * Anchors are handled exactly, wherever they occur, without an automaton: a
 * sub-pattern is kept as four anchor-free languages, part[k] with
 * k = 2 * a + b, where a = 1 when its matches contain a `^` and b = 1 when they
 * contain a `$`. A match that puts a `^` after a character or a `$` before
 * one can never succeed (a `^` needs position 0, a `$` the string's end), so
 * such matches are dropped where they form, and in the words kept every `^`
 * precedes every character and every `$` follows them. The pattern's language
 * is then part[0] | part[2] | part[1] | part[3] when anchored at both ends,
 * and any* part[0] any* | part[2] any* | any* part[1] | part[3] for a search.
 * A sub-pattern without anchors has only part[0], so the common case costs
 * nothing.
 *
 * Lookarounds are assertions on the whole input around a position, so they
 * are exact where that input is known: as terms of the pattern's top-level
 * alternatives (not inside a group or a repeat), lookbehinds before
 * lookaheads. A lookahead (?=X) cuts the rest of the input from its position
 * to X any*, (?!X) takes X any* away from it; a lookbehind cuts the input up
 * to its position to any* X. A `$` in a lookahead's X (a `^` in a
 * lookbehind's) makes that match the whole rest (the whole input so far).
 * An alternative with lookarounds is written as such products (PD_IR_AND,
 * PD_IR_DIFF) over the whole input, and joins the pattern's other
 * alternatives after assembly (pd__look_whole). The automata over code points
 * that tell keys apart by pattern are in regex_dfa.c.
 */
#include "regex.h"

#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "masks/vocab.h"
#include "pda/grammar.h"

#define PD__VOID PD_IR_NONE /* the empty language (no string) */
#define PD__MAX_UNROLL 32   /* largest bound of a repeat whose body holds an anchor */

typedef struct pd__lang {
  uint32_t part[4]; /* IR node per anchor kind, or PD__VOID */
  uint8_t nullable; /* bit k: the empty string is in part[k] */
} pd__lang;

typedef struct pd__rx {
  pd_ir *ir;
  const char *s;
  size_t len, pos;
  const pd_regex_target *target;
  uint32_t max_repeat, max_depth, depth;
  pd_error *err;
  pd_status st;
  PD_ARRAY(uint32_t) pairs; /* the class being parsed */
  PD_ARRAY(uint32_t) norm;  /* its normalized form */
  PD_ARRAY(uint32_t) chars; /* nodes that stand for exactly one character */
  bool search;              /* the pattern is a search (for lookarounds) */
  PD_ARRAY(uint32_t) whole; /* top-level alternatives with lookarounds, over the whole input */
} pd__rx;

/* --------------------------------------------------------------- errors */

static bool pd__err(pd__rx *rx, pd_status code, size_t at, const char *what) {
  if (rx->st == PD_OK) {
    rx->st = code;
    if (code == PD_ERR_NOMEM)
      pd__nomem(rx->err);
    else
      pd__fail_at(rx->err, code, rx->s, at, "regex: %s at offset %zu", what, at);
  }
  return false;
}

static bool pd__unsupported(pd__rx *rx, size_t at, const char *construct) {
  if (rx->st == PD_OK) {
    rx->st = PD_ERR_UNSUPPORTED;
    pd__fail_at(rx->err, PD_ERR_UNSUPPORTED, rx->s, at,
                "regex: %s at offset %zu cannot be enforced exactly", construct, at);
  }
  return false;
}

/* -------------------------------------------------- the four-part algebra */

static pd__lang pd__void(void) { return (pd__lang){{PD__VOID, PD__VOID, PD__VOID, PD__VOID}, 0}; }

static pd__lang pd__plain(uint32_t node, bool nullable) {
  pd__lang l = pd__void();
  l.part[0] = node;
  l.nullable = nullable ? 1 : 0;
  return l;
}

static bool pd__anchored(const pd__lang *l) {
  return l->part[1] != PD__VOID || l->part[2] != PD__VOID || l->part[3] != PD__VOID;
}

/* A node usable in many places: a reference to a fresh rule holding it, so
 * the IR stays a tree and its size linear. */
static uint32_t pd__share(pd_ir *ir, uint32_t node) {
  if (node == PD__VOID) return node;
  pd_ir_kind k = (pd_ir_kind)pd_ir_at(ir, node)->kind;
  if (k == PD_IR_EMPTY || k == PD_IR_REF || k == PD_IR_NOTHING) return node;
  uint32_t rule = pd_ir_rule_fresh(ir, "regex");
  pd_ir_rule_define(ir, rule, node);
  return rule == PD_IR_NONE ? PD__VOID : pd_ir_ref(ir, rule);
}

static void pd__share_all(pd_ir *ir, pd__lang *l) {
  for (int k = 0; k < 4; k++) l->part[k] = pd__share(ir, l->part[k]);
}

static bool pd__is_empty(const pd_ir *ir, uint32_t node) {
  return node != PD__VOID && pd_ir_at(ir, node)->kind == PD_IR_EMPTY;
}

/* a then b, leaving out a side that is the empty string. */
static uint32_t pd__seq2(pd_ir *ir, uint32_t a, uint32_t b) {
  if (pd__is_empty(ir, a)) return b;
  if (pd__is_empty(ir, b)) return a;
  return pd_ir_seq2(ir, a, b);
}

/* Adds node to part k of l as one more alternative. */
static void pd__add(pd_ir *ir, pd__lang *l, int k, uint32_t node, bool nullable) {
  if (node == PD__VOID) return;
  l->part[k] = l->part[k] == PD__VOID ? node : pd_ir_alt2(ir, l->part[k], node);
  if (nullable) l->nullable |= (uint8_t)(1u << k);
}

static pd__lang pd__union(pd_ir *ir, pd__lang x, const pd__lang *y) {
  for (int k = 0; k < 4; k++) pd__add(ir, &x, k, y->part[k], y->nullable >> k & 1);
  return x;
}

/* One piece of a concatenation: x's part i then y's part j. A `$` in x
 * (i & 1) leaves no room for characters of y, a `^` in y (j & 2) none for
 * characters of x: then that side may only contribute its empty string. */
static void pd__concat_piece(pd_ir *ir, pd__lang *out, const pd__lang *x, int i, const pd__lang *y,
                             int j) {
  bool x_eps = x->nullable >> i & 1, y_eps = y->nullable >> j & 1;
  bool x_only_eps = (j & 2) != 0, y_only_eps = (i & 1) != 0;
  if ((x_only_eps && !x_eps) || (y_only_eps && !y_eps)) return;
  uint32_t node = pd__seq2(ir, x_only_eps ? pd_ir_empty(ir) : x->part[i],
                           y_only_eps ? pd_ir_empty(ir) : y->part[j]);
  bool nullable = (x_only_eps || x_eps) && (y_only_eps || y_eps);
  pd__add(ir, out, i | j, node, nullable);
}

static pd__lang pd__concat(pd_ir *ir, pd__lang x, pd__lang y) {
  if (!pd__anchored(&x) && !pd__anchored(&y)) {
    if (x.part[0] == PD__VOID || y.part[0] == PD__VOID) return pd__void();
    return pd__plain(pd__seq2(ir, x.part[0], y.part[0]), x.nullable & y.nullable & 1);
  }
  pd__share_all(ir, &x);
  pd__share_all(ir, &y);
  pd__lang out = pd__void();
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++)
      if (x.part[i] != PD__VOID && y.part[j] != PD__VOID) pd__concat_piece(ir, &out, &x, i, &y, j);
  return out;
}

/* The flags (a << 1 | b) the empty-string iterations of a star can gather,
 * from iterations whose empty string carries flags allowed by mask. */
static uint8_t pd__eps_closure(const pd__lang *l, int mask) {
  uint8_t set = 1; /* bit f: flags f reachable; zero iterations give 0 */
  for (int k = 0; k < 4; k++) /* after step k: every OR of a subset of 0..k */
    if ((l->nullable >> k & 1) && (k & ~mask) == 0)
      for (int f = 0; f < 4; f++)
        if (set >> f & 1) set |= (uint8_t)(1u << (f | k));
  return set;
}

/* l* exactly. Characters come from a run of iterations; in it only the first
 * may hold a `^` and only the last a `$`, and the iterations between hold no
 * anchor. Around the run, empty iterations may add `^` before and `$` after;
 * with no run at all, any mix of empty iterations. */
static pd__lang pd__star_anchored(pd_ir *ir, pd__lang l) {
  pd__share_all(ir, &l);
  uint32_t mid = l.part[0] == PD__VOID ? pd_ir_empty(ir)
                                       : pd__share(ir, pd_ir_repeat(ir, l.part[0], 0, PD_IR_INF));
  pd__lang core = l, pre_mid = pd__void(), mid_post;
  pd__lang middle = pd__plain(mid, true);
  for (int a = 0; a < 2; a++)
    pd__add(ir, &pre_mid, a << 1, l.part[a << 1], l.nullable >> (a << 1) & 1);
  pre_mid = pd__concat(ir, pre_mid, middle);
  mid_post = pd__void();
  for (int b = 0; b < 2; b++) pd__add(ir, &mid_post, b, l.part[b], l.nullable >> b & 1);
  pd__lang run = pd__concat(ir, pre_mid, mid_post);
  core = pd__union(ir, core, &run);
  pd__share_all(ir, &core);
  uint8_t pre = pd__eps_closure(&l, 2), post = pd__eps_closure(&l, 1), all = pd__eps_closure(&l, 3);
  pd__lang out = pd__void();
  for (int c = 0; c < 4; c++) {
    if (core.part[c] == PD__VOID) continue;
    for (int p = 0; p < 4; p++)
      if ((pre >> (p & 2) & 1) && (post >> (p & 1) & 1))
        pd__add(ir, &out, c | p, core.part[c], core.nullable >> c & 1);
  }
  for (int f = 0; f < 4; f++)
    if (all >> f & 1) pd__add(ir, &out, f, pd_ir_empty(ir), true);
  return out;
}

static pd__lang pd__optional(pd_ir *ir, pd__lang l) {
  pd__lang eps = pd__plain(pd_ir_empty(ir), true);
  return pd__union(ir, l, &eps);
}

/* l{min,max} when l holds an anchor: unrolled (bounds are small in practice). */
static pd__lang pd__repeat_anchored(pd__rx *rx, pd__lang l, uint32_t min, uint32_t max, size_t at) {
  pd_ir *ir = rx->ir;
  uint32_t span = max == PD_IR_INF ? min : max;
  if (span > PD__MAX_UNROLL) {
    pd__unsupported(rx, at, "a repeat bound above 32 around an anchor");
    return pd__void();
  }
  pd__share_all(ir, &l);
  pd__lang acc = pd__plain(pd_ir_empty(ir), true);
  for (uint32_t i = 0; i < min; i++) acc = pd__concat(ir, acc, l);
  if (max == PD_IR_INF) return pd__concat(ir, acc, pd__star_anchored(ir, l));
  pd__lang opt = pd__optional(ir, l);
  pd__share_all(ir, &opt);
  for (uint32_t i = min; i < max; i++) acc = pd__concat(ir, acc, opt);
  return acc;
}

static pd__lang pd__repeat(pd__rx *rx, pd__lang l, uint32_t min, uint32_t max, size_t at) {
  if (pd__anchored(&l)) return pd__repeat_anchored(rx, l, min, max, at);
  if (l.part[0] == PD__VOID) return min == 0 ? pd__plain(pd_ir_empty(rx->ir), true) : pd__void();
  bool nullable = min == 0 || (l.nullable & 1);
  return pd__plain(pd_ir_repeat(rx->ir, l.part[0], min, max), nullable);
}

/* ------------------------------------------------------- characters */

static bool pd__at_end(const pd__rx *rx) { return rx->pos >= rx->len; }
static int pd__peek(const pd__rx *rx) {
  return pd__at_end(rx) ? -1 : (unsigned char)rx->s[rx->pos];
}
static int pd__peek_at(const pd__rx *rx, size_t k) {
  return rx->pos + k >= rx->len ? -1 : (unsigned char)rx->s[rx->pos + k];
}

/* Decodes one UTF-8 code point at rx->pos (strict: no overlongs, no
 * surrogates); false on malformed input. */
static bool pd__utf8(pd__rx *rx, uint32_t *cp) {
  const unsigned char *p = (const unsigned char *)rx->s + rx->pos;
  size_t left = rx->len - rx->pos;
  unsigned char b = p[0];
  size_t n = b < 0x80                 ? 1
             : b >= 0xC2 && b <= 0xDF ? 2
             : b >= 0xE0 && b <= 0xEF ? 3
             : b >= 0xF0 && b <= 0xF4 ? 4
                                      : 0;
  if (n == 0 || n > left) return pd__err(rx, PD_ERR_SYNTAX, rx->pos, "invalid UTF-8");
  uint32_t c = n == 1 ? b : b & (0x7Fu >> n);
  for (size_t i = 1; i < n; i++) {
    if ((p[i] & 0xC0) != 0x80) return pd__err(rx, PD_ERR_SYNTAX, rx->pos, "invalid UTF-8");
    c = c << 6 | (p[i] & 0x3Fu);
  }
  static const uint32_t min_of[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (c < min_of[n] || c > PD_IR_MAX_CODEPOINT || (c >= 0xD800 && c <= 0xDFFF))
    return pd__err(rx, PD_ERR_SYNTAX, rx->pos, "invalid UTF-8");
  rx->pos += n;
  *cp = c;
  return true;
}

static size_t pd__utf8_encode(uint32_t c, unsigned char *out) {
  if (c < 0x80) {
    out[0] = (unsigned char)c;
    return 1;
  }
  if (c < 0x800) {
    out[0] = (unsigned char)(0xC0 | c >> 6);
    out[1] = (unsigned char)(0x80 | (c & 0x3F));
    return 2;
  }
  if (c < 0x10000) {
    out[0] = (unsigned char)(0xE0 | c >> 12);
    out[1] = (unsigned char)(0x80 | (c >> 6 & 0x3F));
    out[2] = (unsigned char)(0x80 | (c & 0x3F));
    return 3;
  }
  out[0] = (unsigned char)(0xF0 | c >> 18);
  out[1] = (unsigned char)(0x80 | (c >> 12 & 0x3F));
  out[2] = (unsigned char)(0x80 | (c >> 6 & 0x3F));
  out[3] = (unsigned char)(0x80 | (c & 0x3F));
  return 4;
}

static int pd__cmp_lo(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

/* Appends [lo,hi] minus the surrogates to rx->norm, merging with the last pair. */
static void pd__norm_add(pd__rx *rx, uint32_t lo, uint32_t hi) {
  if (lo <= 0xDFFF && hi >= 0xD800) {
    if (lo < 0xD800) pd__norm_add(rx, lo, 0xD7FF);
    if (hi <= 0xDFFF) return;
    lo = 0xE000;
  }
  uint32_t *d = rx->norm.data;
  if (rx->norm.len && d[rx->norm.len - 1] + 1 == lo) {
    d[rx->norm.len - 1] = hi;
    return;
  }
  d[rx->norm.len++] = lo;
  d[rx->norm.len++] = hi;
}

/* rx->pairs (any order, overlapping) -> rx->norm: sorted, disjoint, no
 * surrogates, complemented when negated. */
static bool pd__normalize(pd__rx *rx, bool negated) {
  size_t n = rx->pairs.len / 2;
  rx->norm.len = 0;
  if (!pd_array_reserve(rx->ir->alloc, &rx->norm, 2 * n + 8)) return false;
  uint32_t *p = rx->pairs.data;
  if (n) qsort(p, n, 2 * sizeof *p, pd__cmp_lo);
  uint32_t next = 0; /* first code point not yet covered or skipped */
  bool done = false;
  for (size_t i = 0; i < n && !done; i++) {
    uint32_t lo = p[2 * i], hi = p[2 * i + 1];
    if (hi < next) continue;
    if (lo < next) lo = next;
    if (negated && lo > next) pd__norm_add(rx, next, lo - 1);
    if (!negated) pd__norm_add(rx, lo, hi);
    done = hi >= PD_IR_MAX_CODEPOINT;
    next = hi + 1;
  }
  if (negated && !done) pd__norm_add(rx, next, PD_IR_MAX_CODEPOINT);
  return true;
}

/* One character of the normalized class in rx->norm. */
/* Notes node as one character (for pd__cut); sticky failure like the IR's. */
static uint32_t pd__one_char(pd__rx *rx, uint32_t node) {
  if (node != PD_IR_NONE && !pd_array_push(rx->ir->alloc, &rx->chars, node)) rx->ir->oom = true;
  return node;
}

static pd__lang pd__class_node(pd__rx *rx) {
  size_t n = rx->norm.len / 2;
  if (n == 0) return pd__void();
  uint32_t node;
  if (rx->target)
    node = rx->target->char_class(rx->ir, rx->norm.data, n, rx->target->ud);
  else
    node = pd_ir_class(rx->ir, rx->norm.data, n, false);
  return pd__plain(pd__one_char(rx, node), false);
}

static pd__lang pd__char_node(pd__rx *rx, uint32_t c) {
  if (c >= 0xD800 && c <= 0xDFFF) return pd__void(); /* a lone surrogate is no UTF-8 text */
  if (rx->target) {
    uint32_t pair[2] = {c, c};
    return pd__plain(pd__one_char(rx, rx->target->char_class(rx->ir, pair, 1, rx->target->ud)),
                     false);
  }
  unsigned char buf[4];
  return pd__plain(pd_ir_bytes(rx->ir, buf, pd__utf8_encode(c, buf)), false);
}

static bool pd__push_pair(pd__rx *rx, uint32_t lo, uint32_t hi) {
  if (!pd_array_push(rx->ir->alloc, &rx->pairs, lo) ||
      !pd_array_push(rx->ir->alloc, &rx->pairs, hi))
    return pd__err(rx, PD_ERR_NOMEM, rx->pos, "out of memory");
  return true;
}

/* The sets of \d \w \s and `.` (ECMA-262 22.2.2.9 / WhiteSpace, LineTerminator). */
static const uint32_t pd__digit[] = {'0', '9'};
static const uint32_t pd__word[] = {'0', '9', 'A', 'Z', '_', '_', 'a', 'z'};
static const uint32_t pd__space[] = {0x09,   0x0D,   0x20,   0x20,   0xA0,   0xA0,   0x1680,
                                     0x1680, 0x2000, 0x200A, 0x2028, 0x2029, 0x202F, 0x202F,
                                     0x205F, 0x205F, 0x3000, 0x3000, 0xFEFF, 0xFEFF};
static const uint32_t pd__line_term[] = {0x0A, 0x0A, 0x0D, 0x0D, 0x2028, 0x2029};

/* Adds the pairs of a set, or of its complement. */
static bool pd__push_set(pd__rx *rx, const uint32_t *set, size_t n_pairs, bool negated) {
  uint32_t next = 0;
  for (size_t i = 0; i < n_pairs; i++) {
    if (!negated && !pd__push_pair(rx, set[2 * i], set[2 * i + 1])) return false;
    if (negated && set[2 * i] > next && !pd__push_pair(rx, next, set[2 * i] - 1)) return false;
    next = set[2 * i + 1] + 1;
  }
  return !negated || pd__push_pair(rx, next, PD_IR_MAX_CODEPOINT);
}

/* \d \D \w \W \s \S: adds the class for letter e; false when e is none of them. */
static bool pd__class_escape(pd__rx *rx, int e, bool *ok) {
  int lower = e | 0x20;
  bool negated = e != lower;
  *ok = true;
  if (lower == 'd') return pd__push_set(rx, pd__digit, 1, negated);
  if (lower == 'w') return pd__push_set(rx, pd__word, 4, negated);
  if (lower == 's') return pd__push_set(rx, pd__space, 10, negated);
  *ok = false;
  return true;
}

static int pd__hex(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f') return (c | 0x20) - 'a' + 10;
  return -1;
}

/* Reads exactly n hex digits at rx->pos; -1 when they are not there. */
static long pd__hex_n(pd__rx *rx, size_t n) {
  long v = 0;
  for (size_t i = 0; i < n; i++) {
    int h = pd__hex(pd__peek_at(rx, i));
    if (h < 0) return -1;
    v = v * 16 + h;
  }
  rx->pos += n;
  return v;
}

/* RegExpUnicodeEscapeSequence :: 'u' ( '{' hex+ '}' | hex4 ( '\u' hex4 )? )
 * (rx->pos is after the 'u'; a lead and a trail surrogate form one code point) */
static bool pd__unicode_escape(pd__rx *rx, size_t at, uint32_t *cp) {
  if (pd__peek(rx) == '{') {
    rx->pos++;
    uint32_t v = 0;
    size_t digits = 0;
    for (int h; (h = pd__hex(pd__peek(rx))) >= 0; rx->pos++, digits++) {
      v = v * 16 + (uint32_t)h;
      if (v > PD_IR_MAX_CODEPOINT) return pd__err(rx, PD_ERR_SYNTAX, at, "\\u{...} above 10FFFF");
    }
    if (!digits || pd__peek(rx) != '}') return pd__err(rx, PD_ERR_SYNTAX, at, "malformed \\u{...}");
    rx->pos++;
    *cp = v;
    return true;
  }
  long v = pd__hex_n(rx, 4);
  if (v < 0) return pd__err(rx, PD_ERR_SYNTAX, at, "malformed \\u escape");
  *cp = (uint32_t)v;
  if (v >= 0xD800 && v <= 0xDBFF && pd__peek(rx) == '\\' && pd__peek_at(rx, 1) == 'u') {
    size_t save = rx->pos;
    rx->pos += 2;
    long t = pd__hex_n(rx, 4);
    if (t >= 0xDC00 && t <= 0xDFFF)
      *cp = 0x10000 + (((uint32_t)v - 0xD800) << 10) + (uint32_t)t - 0xDC00;
    else
      rx->pos = save;
  }
  return true;
}

/* CharacterEscape (after the backslash, at rx->pos): control escapes, \cX,
 * \0, \xHH, \u..., and identity escapes of punctuation. in_class allows \b
 * (backspace) and \-. */
static bool pd__char_escape(pd__rx *rx, bool in_class, uint32_t *cp) {
  size_t at = rx->pos - 1;
  if (pd__at_end(rx)) return pd__err(rx, PD_ERR_SYNTAX, at, "\\ at end of pattern");
  int e = pd__peek(rx);
  static const char controls[] = "fnrtv";
  static const uint32_t control_cp[] = {0x0C, 0x0A, 0x0D, 0x09, 0x0B};
  const char *ctl = e ? strchr(controls, e) : NULL;
  if (ctl) {
    rx->pos++;
    *cp = control_cp[ctl - controls];
    return true;
  }
  if (e == 'b' && in_class) {
    rx->pos++;
    *cp = 0x08;
    return true;
  }
  if (e == 'c') {
    int l = pd__peek_at(rx, 1);
    if (!((l >= 'a' && l <= 'z') || (l >= 'A' && l <= 'Z')))
      return pd__err(rx, PD_ERR_SYNTAX, at, "\\c must be followed by a letter");
    rx->pos += 2;
    *cp = (uint32_t)l % 32;
    return true;
  }
  if (e == '0') {
    int d = pd__peek_at(rx, 1);
    if (d >= '0' && d <= '9') return pd__err(rx, PD_ERR_SYNTAX, at, "octal escape");
    rx->pos++;
    *cp = 0;
    return true;
  }
  if (e == 'x') {
    rx->pos++;
    long v = pd__hex_n(rx, 2);
    if (v < 0) return pd__err(rx, PD_ERR_SYNTAX, at, "malformed \\x escape");
    *cp = (uint32_t)v;
    return true;
  }
  if (e == 'u') {
    rx->pos++;
    return pd__unicode_escape(rx, at, cp);
  }
  if (e >= 0x80) return pd__utf8(rx, cp); /* Annex B: a non-ASCII character escapes to itself */
  bool alnum = (e >= '0' && e <= '9') || ((e | 0x20) >= 'a' && (e | 0x20) <= 'z');
  if (alnum || e < 0x20 || e == 0x7F) {
    if (e >= '1' && e <= '9') return pd__err(rx, PD_ERR_SYNTAX, at, "backreference inside a class");
    return pd__err(rx, PD_ERR_SYNTAX, at, "unknown escape");
  }
  rx->pos++;
  *cp = (uint32_t)e;
  return true;
}

/* ----------------------------------------------------------- the parser */

static bool pd__disjunction(pd__rx *rx, pd__lang *out);

/* ClassAtom :: '-' | ClassAtomNoDash | '\' ClassEscape
 * Sets *single to the code point, or to UINT32_MAX after a class escape
 * (\d ...), whose pairs are already added. */
static bool pd__class_atom(pd__rx *rx, uint32_t *single) {
  if (pd__peek(rx) != '\\') return pd__utf8(rx, single);
  rx->pos++;
  int e = pd__peek(rx);
  bool is_set;
  if (!pd__class_escape(rx, e, &is_set)) return false;
  if (is_set) {
    rx->pos++;
    *single = UINT32_MAX;
    return true;
  }
  if (e == 'p' || e == 'P') return pd__unsupported(rx, rx->pos - 1, "Unicode property escape");
  if (e == 'B') return pd__err(rx, PD_ERR_SYNTAX, rx->pos - 1, "\\B inside a class");
  return pd__char_escape(rx, true, single);
}

/* ClassRanges :: ( ClassAtom ( '-' ClassAtom )? )*   up to the closing ']' */
static bool pd__class_ranges(pd__rx *rx, size_t open) {
  while (pd__peek(rx) != ']') {
    if (pd__at_end(rx)) return pd__err(rx, PD_ERR_SYNTAX, open, "unterminated class");
    size_t at = rx->pos;
    uint32_t lo, hi;
    if (!pd__class_atom(rx, &lo)) return false;
    bool range = pd__peek(rx) == '-' && pd__peek_at(rx, 1) != ']' && pd__peek_at(rx, 1) != -1;
    if (!range) {
      if (lo != UINT32_MAX && !pd__push_pair(rx, lo, lo)) return false;
      continue;
    }
    rx->pos++;
    if (!pd__class_atom(rx, &hi)) return false;
    if (lo == UINT32_MAX || hi == UINT32_MAX) {
      /* Annex B: [\w-.] is \w, '-' and '.' (a SyntaxError with the u flag) */
      if (lo != UINT32_MAX && !pd__push_pair(rx, lo, lo)) return false;
      if (hi != UINT32_MAX && !pd__push_pair(rx, hi, hi)) return false;
      if (!pd__push_pair(rx, '-', '-')) return false;
      continue;
    }
    if (lo > hi) return pd__err(rx, PD_ERR_SYNTAX, at, "range out of order");
    if (!pd__push_pair(rx, lo, hi)) return false;
  }
  rx->pos++;
  return true;
}

/* CharacterClass :: '[' '^'? ClassRanges ']' */
static bool pd__class(pd__rx *rx, pd__lang *out) {
  size_t open = rx->pos++;
  bool negated = pd__peek(rx) == '^';
  if (negated) rx->pos++;
  rx->pairs.len = 0;
  if (!pd__class_ranges(rx, open)) return false;
  if (!pd__normalize(rx, negated)) return pd__err(rx, PD_ERR_NOMEM, open, "out of memory");
  *out = pd__class_node(rx);
  return true;
}

/* '.': any code point but the line terminators. */
static bool pd__dot(pd__rx *rx, pd__lang *out) {
  rx->pos++;
  rx->pairs.len = 0;
  if (!pd__push_set(rx, pd__line_term, 3, true)) return false;
  if (!pd__normalize(rx, false)) return pd__err(rx, PD_ERR_NOMEM, rx->pos, "out of memory");
  *out = pd__class_node(rx);
  return true;
}

/* AtomEscape :: DecimalEscape | 'k' GroupName | CharacterClassEscape | CharacterEscape */
static bool pd__atom_escape(pd__rx *rx, pd__lang *out) {
  size_t at = rx->pos++;
  int e = pd__peek(rx);
  if ((e >= '1' && e <= '9') || (e == 'k' && pd__peek_at(rx, 1) == '<'))
    return pd__unsupported(rx, at, "backreference");
  if (e == 'b' || e == 'B') return pd__unsupported(rx, at, "word boundary assertion");
  if (e == 'p' || e == 'P') return pd__unsupported(rx, at, "Unicode property escape");
  bool is_set;
  rx->pairs.len = 0;
  if (!pd__class_escape(rx, e, &is_set)) return false;
  if (is_set) {
    rx->pos++;
    if (!pd__normalize(rx, false)) return pd__err(rx, PD_ERR_NOMEM, at, "out of memory");
    *out = pd__class_node(rx);
    return true;
  }
  uint32_t cp;
  if (!pd__char_escape(rx, false, &cp)) return false;
  *out = pd__char_node(rx, cp);
  return true;
}

static bool pd__is_id_char(int c, bool first) {
  return c == '_' || c == '$' || c >= 0x80 || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') ||
         (!first && c >= '0' && c <= '9');
}

/* GroupSpecifier :: '?' ( ':' | '<' GroupName '>' )   (rx->pos after '(';
 * lookarounds reach here only inside a group: refused) */
static bool pd__group_specifier(pd__rx *rx, size_t open) {
  if (pd__peek(rx) != '?') return true;
  int k = pd__peek_at(rx, 1);
  if (k == ':') {
    rx->pos += 2;
    return true;
  }
  if (k == '=' || k == '!') return pd__unsupported(rx, open, "lookahead inside a group");
  if (k != '<') return pd__err(rx, PD_ERR_SYNTAX, open, "unknown group kind");
  int l = pd__peek_at(rx, 2);
  if (l == '=' || l == '!') return pd__unsupported(rx, open, "lookbehind inside a group");
  rx->pos += 2;
  size_t start = rx->pos;
  while (pd__peek(rx) != '>' && pd__is_id_char(pd__peek(rx), rx->pos == start)) rx->pos++;
  if (rx->pos == start || pd__peek(rx) != '>')
    return pd__err(rx, PD_ERR_SYNTAX, open, "malformed group name");
  rx->pos++;
  return true;
}

/* Group :: '(' GroupSpecifier? Disjunction ')' */
static bool pd__group(pd__rx *rx, pd__lang *out) {
  size_t open = rx->pos++;
  if (!pd__group_specifier(rx, open)) return false;
  if (++rx->depth > rx->max_depth)
    return pd__err(rx, PD_ERR_LIMIT, open, "groups nested too deeply");
  if (!pd__disjunction(rx, out)) return false;
  rx->depth--;
  if (pd__peek(rx) != ')') return pd__err(rx, PD_ERR_SYNTAX, open, "unterminated group");
  rx->pos++;
  return true;
}

/* Reads a decimal number, saturating below PD_IR_INF; false when no digit. */
static bool pd__number(pd__rx *rx, uint32_t *v) {
  size_t start = rx->pos;
  uint64_t x = 0;
  for (int c; (c = pd__peek(rx)) >= '0' && c <= '9'; rx->pos++) {
    x = x * 10 + (uint64_t)(c - '0');
    if (x >= UINT32_MAX) x = UINT32_MAX - 1; /* finite, and above any max_repeat */
  }
  *v = (uint32_t)x;
  return rx->pos > start;
}

/* BracedQuantifier :: '{' digits ( ',' digits? )? '}'
 * false (rx->pos unchanged) when the text is not one: Annex B reads it as a literal. */
static bool pd__braced(pd__rx *rx, uint32_t *min, uint32_t *max) {
  size_t save = rx->pos++;
  if (!pd__number(rx, min)) goto literal;
  *max = *min;
  if (pd__peek(rx) == ',') {
    rx->pos++;
    if (!pd__number(rx, max)) *max = PD_IR_INF;
  }
  if (pd__peek(rx) == '}') {
    rx->pos++;
    return true;
  }
literal:
  rx->pos = save;
  return false;
}

/* Quantifier :: ( '*' | '+' | '?' | BracedQuantifier ) '?'?
 * *found = false when none follows. */
static bool pd__quantifier(pd__rx *rx, bool *found, uint32_t *min, uint32_t *max) {
  size_t at = rx->pos;
  int c = pd__peek(rx);
  *found = true;
  if (c == '*' || c == '+' || c == '?') {
    rx->pos++;
    *min = c == '+';
    *max = c == '?' ? 1 : PD_IR_INF;
  } else if (!(c == '{' && pd__braced(rx, min, max))) {
    *found = false;
    return true;
  }
  if (pd__peek(rx) == '?') rx->pos++; /* lazy: same language */
  if (*max != PD_IR_INF && *min > *max)
    return pd__err(rx, PD_ERR_SYNTAX, at, "numbers out of order in {} quantifier");
  uint32_t big = *max == PD_IR_INF ? *min : *max;
  if (big > rx->max_repeat) return pd__err(rx, PD_ERR_LIMIT, at, "repeat bound above max_repeat");
  return true;
}

/* Atom :: PatternCharacter | '.' | '\' AtomEscape | CharacterClass | Group
 * (Annex B: a `{` that opens no quantifier, and lone `]` `}`, are literals) */
static bool pd__atom(pd__rx *rx, pd__lang *out) {
  int c = pd__peek(rx);
  size_t at = rx->pos;
  uint32_t lo, hi;
  switch (c) {
    case '.': return pd__dot(rx, out);
    case '\\': return pd__atom_escape(rx, out);
    case '[': return pd__class(rx, out);
    case '(': return pd__group(rx, out);
    case '*':
    case '+':
    case '?': return pd__err(rx, PD_ERR_SYNTAX, rx->pos, "nothing to repeat");
    case '{':
      if (pd__braced(rx, &lo, &hi)) return pd__err(rx, PD_ERR_SYNTAX, at, "nothing to repeat");
      break;
    default: break;
  }
  uint32_t cp;
  if (!pd__utf8(rx, &cp)) return false;
  *out = pd__char_node(rx, cp);
  return true;
}

/* Term :: Assertion | Atom Quantifier? ; Assertion :: '^' | '$' */
static bool pd__term(pd__rx *rx, pd__lang *out) {
  int c = pd__peek(rx);
  if (c == '^' || c == '$') {
    rx->pos++;
    *out = pd__void();
    out->part[c == '^' ? 2 : 1] = pd_ir_empty(rx->ir);
    out->nullable = c == '^' ? 4 : 2;
    size_t at = rx->pos;
    bool q;
    uint32_t min, max;
    if (!pd__quantifier(rx, &q, &min, &max)) return false;
    return !q || pd__err(rx, PD_ERR_SYNTAX, at, "an anchor cannot be repeated");
  }
  size_t at = rx->pos;
  if (!pd__atom(rx, out)) return false;
  bool q;
  uint32_t min, max;
  if (!pd__quantifier(rx, &q, &min, &max)) return false;
  if (q) *out = pd__repeat(rx, *out, min, max, at);
  return rx->st == PD_OK;
}

/* Whether a lookaround the pattern can make exact starts here: one among
 * the terms of a top-level alternative. */
static bool pd__at_look(const pd__rx *rx) {
  if (rx->depth || pd__peek(rx) != '(' || pd__peek_at(rx, 1) != '?') return false;
  int k = pd__peek_at(rx, 2), l = pd__peek_at(rx, 3);
  return k == '=' || k == '!' || (k == '<' && (l == '=' || l == '!'));
}

/* Term* up to the end of the alternative or a lookaround (anchor-free terms
 * gather in one flat sequence). */
static bool pd__segment(pd__rx *rx, pd__lang *out) {
  PD_ARRAY(uint32_t) plain = {0};
  bool plain_void = false, plain_nullable = true, ok = true;
  pd__lang acc = pd__plain(pd_ir_empty(rx->ir), true);
  while (ok && !pd__at_end(rx) && pd__peek(rx) != '|' && pd__peek(rx) != ')' && !pd__at_look(rx)) {
    pd__lang t;
    ok = pd__term(rx, &t);
    if (!ok) break;
    if (pd__anchored(&t)) {
      pd__lang run = plain_void
                         ? pd__void()
                         : pd__plain(pd_ir_seq(rx->ir, plain.data, plain.len), plain_nullable);
      acc = pd__concat(rx->ir, pd__concat(rx->ir, acc, run), t);
      plain.len = 0;
      plain_void = false;
      plain_nullable = true;
    } else if (t.part[0] == PD__VOID) {
      plain_void = true;
    } else if (!pd_array_push(rx->ir->alloc, &plain, t.part[0])) {
      ok = pd__err(rx, PD_ERR_NOMEM, rx->pos, "out of memory");
    } else {
      plain_nullable = plain_nullable && (t.nullable & 1);
    }
  }
  if (ok) {
    pd__lang run = plain_void ? pd__void()
                              : pd__plain(pd_ir_seq(rx->ir, plain.data, plain.len), plain_nullable);
    *out = pd__concat(rx->ir, acc, run);
  }
  pd_array_free(rx->ir->alloc, &plain);
  return ok;
}

typedef struct pd__look {
  uint32_t node; /* X's matches without an anchor; PD__VOID: none */
  uint32_t edge; /* X's matches with a `$` (ahead) or a `^` (behind): at the input's end */
  bool behind, negative;
  size_t at;
} pd__look;

/* (?=X) (?!X) (?<=X) (?<!X) at rx->pos. */
static bool pd__look_parse(pd__rx *rx, pd__look *lk) {
  size_t open = rx->pos, at;
  lk->at = open;
  lk->behind = pd__peek_at(rx, 2) == '<';
  lk->negative = pd__peek_at(rx, lk->behind ? 3 : 2) == '!';
  rx->pos += lk->behind ? 4 : 3;
  rx->depth++; /* a lookaround inside is one inside a group */
  pd__lang x;
  if (!pd__disjunction(rx, &x)) return false;
  rx->depth--;
  if (pd__peek(rx) != ')') return pd__err(rx, PD_ERR_SYNTAX, open, "unterminated group");
  at = ++rx->pos;
  bool q;
  uint32_t min, max;
  if (!pd__quantifier(rx, &q, &min, &max)) return false;
  if (q) return pd__unsupported(rx, at, "a repeated lookaround");
  if (x.part[3] != PD__VOID || x.part[lk->behind ? 1 : 2] != PD__VOID)
    return pd__unsupported(rx, open,
                           lk->behind ? "a `$` inside a lookbehind" : "a `^` inside a lookahead");
  lk->node = x.part[0];
  lk->edge = x.part[lk->behind ? 2 : 1];
  return true;
}

static uint32_t pd__any_star(pd__rx *rx);

/* a then b, either PD__VOID (no string) making the whole so. */
static uint32_t pd__then(pd_ir *ir, uint32_t a, uint32_t b) {
  return a == PD__VOID || b == PD__VOID ? PD__VOID : pd__seq2(ir, a, b);
}

static uint32_t pd__or(pd_ir *ir, uint32_t a, uint32_t b) {
  return a == PD__VOID ? b : b == PD__VOID ? a : pd_ir_alt2(ir, a, b);
}

/* The input, in, narrowed by lookaround lk: to the strings that end (behind)
 * or start (ahead) with a match of X, or the others when negative (a match of
 * X with an anchor is the whole of that side). The product is a rule of its
 * own: beside a search's any* the caller's automaton would otherwise
 * determinize any* and the product together. */
static uint32_t pd__narrow(pd__rx *rx, uint32_t in, const pd__look *lk) {
  pd_ir *ir = rx->ir;
  uint32_t with = lk->edge;
  if (lk->node != PD__VOID) {
    uint32_t any = pd__any_star(rx);
    with = pd__or(ir, with, lk->behind ? pd__seq2(ir, any, lk->node) : pd__seq2(ir, lk->node, any));
  }
  if (in == PD__VOID || with == PD__VOID) return lk->negative ? in : PD__VOID;
  return pd__share(ir, lk->negative ? pd_ir_diff(ir, in, with) : pd_ir_and(ir, in, with));
}

/* An alternative S0 L1 S1 .. Ln Sn with lookarounds Li, as the whole inputs
 * it matches: lookbehinds first (each narrows the input so far), then
 * lookaheads (each narrows the rest of the input, built from the end). A `^`
 * may stand only in S0 and a `$` only in Sn; a search lets any characters
 * precede S0 and follow Sn unless those anchor them. */
static uint32_t pd__look_whole(pd__rx *rx, const pd__lang *seg, const pd__look *look, size_t n) {
  pd_ir *ir = rx->ir;
  size_t a = 0;
  while (a < n && look[a].behind) a++;
  for (size_t i = a; i < n; i++)
    if (look[i].behind) {
      pd__unsupported(rx, look[i].at, "a lookbehind after a lookahead");
      return PD__VOID;
    }
  for (size_t i = 0; i <= n; i++) {
    const pd__lang *s = &seg[i];
    bool caret = s->part[2] != PD__VOID || s->part[3] != PD__VOID;
    bool dollar = s->part[1] != PD__VOID || s->part[3] != PD__VOID;
    if ((caret && i > 0) || (dollar && i < n)) {
      pd__unsupported(rx, look[i ? i - 1 : 0].at, "an anchor on the far side of a lookaround");
      return PD__VOID;
    }
  }
  uint32_t head = PD__VOID, tail = PD__VOID;
  for (int k = 0; k <= 2; k += 2) /* S0, anchored at the input's start or after any* */
    if (seg[0].part[k] != PD__VOID)
      head = pd__or(ir, head, pd__seq2(ir, rx->search && !k ? pd__any_star(rx) : pd_ir_empty(ir),
                                       seg[0].part[k]));
  for (int k = 0; k <= 1; k++) /* Sn, anchored at the input's end or before any* */
    if (seg[n].part[k] != PD__VOID)
      tail = pd__or(ir, tail, pd__seq2(ir, seg[n].part[k],
                                       rx->search && !k ? pd__any_star(rx) : pd_ir_empty(ir)));
  uint32_t in = head;
  for (size_t i = 0; i < a; i++)
    in = pd__then(ir, pd__narrow(rx, in, &look[i]), i + 1 < n ? seg[i + 1].part[0] : tail);
  if (a == n) return in;
  uint32_t rest = tail;
  for (size_t i = n; i-- > a;) {
    rest = pd__narrow(rx, rest, &look[i]);
    if (i > a) rest = pd__then(ir, seg[i].part[0], rest);
  }
  return pd__then(ir, in, rest);
}

/* Alternative :: Term*   (one with top-level lookarounds goes to rx->whole,
 * and its own language is then none) */
static bool pd__alternative(pd__rx *rx, pd__lang *out) {
  if (!pd__segment(rx, out)) return false;
  if (!pd__at_look(rx)) return true;
  PD_ARRAY(pd__lang) seg = {0};
  PD_ARRAY(pd__look) look = {0};
  const pd_allocator *al = rx->ir->alloc;
  bool ok = pd_array_push(al, &seg, *out) || pd__err(rx, PD_ERR_NOMEM, rx->pos, "out of memory");
  while (ok && pd__at_look(rx)) {
    pd__look lk;
    pd__lang s;
    ok = pd__look_parse(rx, &lk) && pd__segment(rx, &s);
    if (ok && (!pd_array_push(al, &look, lk) || !pd_array_push(al, &seg, s)))
      ok = pd__err(rx, PD_ERR_NOMEM, rx->pos, "out of memory");
  }
  uint32_t whole = ok ? pd__look_whole(rx, seg.data, look.data, look.len) : PD__VOID;
  ok = ok && rx->st == PD_OK;
  if (ok && whole != PD__VOID && !pd_array_push(al, &rx->whole, whole))
    ok = pd__err(rx, PD_ERR_NOMEM, rx->pos, "out of memory");
  pd_array_free(al, &seg);
  pd_array_free(al, &look);
  *out = pd__void();
  return ok;
}

/* Disjunction :: Alternative ( '|' Alternative )* */
static bool pd__disjunction(pd__rx *rx, pd__lang *out) {
  PD_ARRAY(uint32_t) alts[4] = {{0}, {0}, {0}, {0}};
  uint8_t nullable = 0;
  bool ok = true;
  for (;;) {
    pd__lang a;
    if (!(ok = pd__alternative(rx, &a))) break;
    nullable |= a.nullable;
    for (int k = 0; k < 4 && ok; k++)
      if (a.part[k] != PD__VOID && !pd_array_push(rx->ir->alloc, &alts[k], a.part[k]))
        ok = pd__err(rx, PD_ERR_NOMEM, rx->pos, "out of memory");
    if (!ok || pd__peek(rx) != '|') break;
    rx->pos++;
  }
  if (ok) {
    *out = pd__void();
    for (int k = 0; k < 4; k++)
      if (alts[k].len) out->part[k] = pd_ir_alt(rx->ir, alts[k].data, alts[k].len);
    out->nullable = nullable;
  }
  for (int k = 0; k < 4; k++) pd_array_free(rx->ir->alloc, &alts[k]);
  return ok;
}

/* ------------------------------------------------------------ assembly */

static uint32_t pd__any_star(pd__rx *rx) {
  uint32_t all[2] = {0, PD_IR_MAX_CODEPOINT};
  rx->pairs.len = 0;
  if (!pd__push_pair(rx, all[0], all[1]) || !pd__normalize(rx, false)) return PD_IR_NONE;
  return pd_ir_repeat(rx->ir, pd__class_node(rx).part[0], 0, PD_IR_INF);
}

/* Whether node surely derives the empty string (false when unsure). */
static bool pd__surely_nullable(const pd_ir *ir, uint32_t node) {
  const pd_ir_node *n = pd_ir_at(ir, node);
  bool seq = n->kind == PD_IR_SEQ;
  switch ((pd_ir_kind)n->kind) {
    case PD_IR_EMPTY: return true;
    case PD_IR_REPEAT: return n->off == 0 || pd__surely_nullable(ir, n->a);
    case PD_IR_SEQ:
    case PD_IR_ALT:
      for (uint32_t i = 0; i < n->n; i++)
        if (pd__surely_nullable(ir, ir->kids.data[n->off + i]) != seq) return !seq;
      return seq;
    default: return false;
  }
}

/* The part of a search that decides a match, where any* stands beside it
 * (left, right): any* x y any* matches where any* x does when y is nullable,
 * and x{m,n} (m >= 1) at a free end matches where x{m} does, since any*
 * takes the rest. Unlike .+ in a rule of its own, whose every start Earley
 * kept alive to the end of the string (rows as long as the key, and 45 ms to
 * classify one state of a patternProperties ".+" key), what is left ends. */
static uint32_t pd__search_core(pd_ir *ir, uint32_t node, bool left, bool right) {
  if (node == PD_IR_NONE || ir->oom || (!left && !right)) return node;
  const pd_ir_node *n = pd_ir_at(ir, node);
  if (n->kind == PD_IR_REPEAT && n->off >= 1 && n->n != n->off) {
    uint32_t a = n->a, m = n->off;
    return pd__search_core(ir, m == 1 ? a : pd_ir_repeat(ir, a, m, m), left, right);
  }
  if (n->kind == PD_IR_REF) { /* a group beside an anchor is a rule of its own */
    uint32_t body = ir->rules.data[n->a].body, core = pd__search_core(ir, body, left, right);
    return core == body ? node : core;
  }
  if (n->kind == PD_IR_ALT) { /* unchanged, the node stays (a character's node is known) */
    uint32_t off = n->off, count = n->n, acc = PD_IR_NONE;
    bool same = true;
    for (uint32_t i = 0; i < count; i++) {
      uint32_t kid = ir->kids.data[off + i], k = pd__search_core(ir, kid, left, right);
      same = same && k == kid;
      acc = acc == PD_IR_NONE ? k : pd_ir_alt2(ir, acc, k);
    }
    return same ? node : acc;
  }
  if (n->kind != PD_IR_SEQ) return node;
  uint32_t off = n->off, a = 0, count = n->n, e = count;
  while (left && a < e && pd__surely_nullable(ir, ir->kids.data[off + a])) a++;
  while (right && e > a && pd__surely_nullable(ir, ir->kids.data[off + e - 1])) e--;
  if (a == e) return pd_ir_empty(ir);
  if (e - a == 1) return pd__search_core(ir, ir->kids.data[off + a], left, right);
  uint32_t first = pd__search_core(ir, ir->kids.data[off + a], left, false);
  uint32_t last = pd__search_core(ir, ir->kids.data[off + e - 1], false, right);
  if (a == 0 && e == count && first == ir->kids.data[off] && last == ir->kids.data[off + e - 1])
    return node;
  uint32_t acc = first;
  for (uint32_t i = a + 1; i + 1 < e; i++) acc = pd_ir_seq2(ir, acc, ir->kids.data[off + i]);
  return pd_ir_seq2(ir, acc, last);
}

#define PD__SEARCH_INLINE 4 /* char positions of a search's part kept in its caller */

/* The characters node's automaton tracks, up to cap + 1: a part with a few
 * determinizes beside any* into a handful of states (at most 2^positions),
 * so it needs no rule of its own; a.{n} would blow up, and keeps its rule. */
static uint32_t pd__positions(const pd__rx *rx, uint32_t node, uint32_t cap) {
  const pd_ir *ir = rx->ir;
  for (size_t i = 0; i < rx->chars.len; i++)
    if (rx->chars.data[i] == node) return 1;
  const pd_ir_node *n = pd_ir_at(ir, node);
  uint32_t sum = 0;
  switch ((pd_ir_kind)n->kind) {
    case PD_IR_EMPTY:
    case PD_IR_NOTHING: return 0;
    case PD_IR_CLASS: return 1;
    case PD_IR_BYTES:
      for (uint32_t i = 0; i < n->n; i++) sum += (ir->bytes.data[n->off + i] & 0xC0) != 0x80;
      return sum;
    case PD_IR_REF: return pd__positions(rx, ir->rules.data[n->a].body, cap);
    case PD_IR_SEQ:
    case PD_IR_ALT:
      for (uint32_t i = 0; i < n->n && sum <= cap; i++)
        sum += pd__positions(rx, ir->kids.data[n->off + i], cap);
      return sum;
    case PD_IR_REPEAT: {
      uint32_t copies = n->n == PD_IR_INF ? (n->off ? n->off : 1) : n->n;
      uint64_t p = (uint64_t)pd__positions(rx, n->a, cap) * copies;
      return p > cap ? cap + 1 : (uint32_t)p;
    }
    default: return cap + 1;
  }
}

/* The pattern's language from its four parts (see the header comment). */
static uint32_t pd__assemble(pd__rx *rx, const pd__lang *l, bool search) {
  pd_ir *ir = rx->ir;
  uint32_t alts[4];
  size_t n = 0;
  if (search && (l->nullable & 1)) return pd__any_star(rx);
  for (int k = 0; k < 4; k++) {
    if (l->part[k] == PD__VOID) continue;
    uint32_t kids[3];
    size_t m = 0;
    if (search && !(k & 2)) kids[m++] = pd__any_star(rx);
    /* past PD__SEARCH_INLINE characters in a rule of its own, so the
     * automaton of the search is not the subset construction of any* x
     * (exponential for x = a.{n}): Earley tracks the starts instead */
    uint32_t part = l->part[k];
    if (search && k != 3) {
      part = pd__search_core(ir, part, !(k & 2), !(k & 1));
      if (part != PD_IR_NONE && pd__positions(rx, part, PD__SEARCH_INLINE) > PD__SEARCH_INLINE)
        part = pd__share(ir, part);
      else /* a group beside an anchor came as a rule: its body goes inline */
        while (part != PD_IR_NONE && pd_ir_at(ir, part)->kind == PD_IR_REF)
          part = ir->rules.data[pd_ir_at(ir, part)->a].body;
    }
    kids[m++] = part;
    if (search && !(k & 1)) kids[m++] = pd__any_star(rx);
    alts[n++] = pd_ir_seq(ir, kids, m);
  }
  return n ? pd_ir_alt(ir, alts, n) : pd_ir_nothing(ir);
}

/* ------------------------------------------------ length intersection */

/* Lengths in characters, saturating; hi = PD__LEN_INF when unbounded. */
#define PD__LEN_INF UINT64_MAX
typedef struct pd__span {
  uint64_t lo, hi;
  bool none; /* the language is empty */
} pd__span;

/* Flags of the nodes that existed when the cut began ([n_marked]): bit 0, the
 * node stands for one character; bit 1, span[node] is known. The IR shares
 * subtrees (a group repeated, a rule called twice), so spans are remembered:
 * walked afresh, a shared subtree costs once per path to it, exponential in
 * the nesting (a fuzzer's 79-byte pattern ran for minutes). */
typedef struct pd__cutter {
  pd_ir *ir;
  uint8_t *flags;
  struct pd__span *span;
  size_t n_marked;
  bool fail; /* a shape the cut cannot make exact */
} pd__cutter;

static uint64_t pd__sat_add(uint64_t a, uint64_t b) { return a > PD__LEN_INF - b ? PD__LEN_INF : a + b; }
static uint64_t pd__sat_mul(uint64_t a, uint64_t b) {
  if (a == 0 || b == 0) return 0;
  return a > PD__LEN_INF / b ? PD__LEN_INF : a * b;
}

static bool pd__marked(const pd__cutter *c, uint32_t node) {
  return node < c->n_marked && (c->flags[node] & 1);
}

static pd__span pd__span_of(pd__cutter *c, uint32_t node);

static pd__span pd__span_list(pd__cutter *c, const pd_ir_node *n) {
  bool seq = n->kind == PD_IR_SEQ;
  pd__span s = seq ? (pd__span){0, 0, false} : (pd__span){PD__LEN_INF, 0, true};
  for (uint32_t i = 0; i < n->n; i++) {
    pd__span k = pd__span_of(c, c->ir->kids.data[n->off + i]);
    if (seq && k.none) return k;
    if (seq) s = (pd__span){pd__sat_add(s.lo, k.lo), pd__sat_add(s.hi, k.hi), false};
    if (!seq && !k.none)
      s = (pd__span){k.lo < s.lo ? k.lo : s.lo, k.hi > s.hi ? k.hi : s.hi, false};
  }
  return s;
}

static pd__span pd__span_calc(pd__cutter *c, uint32_t node);

static pd__span pd__span_of(pd__cutter *c, uint32_t node) {
  if (pd__marked(c, node)) return (pd__span){1, 1, false};
  if (node >= c->n_marked) return pd__span_calc(c, node); /* made by the cut itself */
  if (!(c->flags[node] & 2)) {
    c->span[node] = pd__span_calc(c, node);
    c->flags[node] |= 2;
  }
  return c->span[node];
}

static pd__span pd__span_calc(pd__cutter *c, uint32_t node) {
  const pd_ir_node *n = pd_ir_at(c->ir, node);
  uint64_t k = 0;
  switch ((pd_ir_kind)n->kind) {
    case PD_IR_EMPTY: return (pd__span){0, 0, false};
    case PD_IR_NOTHING: return (pd__span){0, 0, true};
    case PD_IR_CLASS: return (pd__span){1, 1, false};
    case PD_IR_BYTES: /* raw UTF-8: count the lead bytes */
      for (uint32_t i = 0; i < n->n; i++) k += (c->ir->bytes.data[n->off + i] & 0xC0) != 0x80;
      return (pd__span){k, k, false};
    case PD_IR_REF: return pd__span_of(c, c->ir->rules.data[n->a].body);
    case PD_IR_SEQ:
    case PD_IR_ALT: return pd__span_list(c, n);
    case PD_IR_REPEAT: {
      pd__span b = pd__span_of(c, n->a);
      if (b.none) return n->off == 0 ? (pd__span){0, 0, false} : b;
      uint64_t hi = n->n == PD_IR_INF ? (b.hi ? PD__LEN_INF : 0) : pd__sat_mul(b.hi, n->n);
      return (pd__span){pd__sat_mul(b.lo, n->off), hi, false};
    }
    case PD_IR_DIFF: return pd__span_of(c, n->a); /* within a's (a lookaround) */
    case PD_IR_AND: {
      uint32_t b = n->off;
      pd__span x = pd__span_of(c, n->a), y = pd__span_of(c, b);
      if (x.none || y.none) return x.none ? x : y;
      return (pd__span){x.lo > y.lo ? x.lo : y.lo, x.hi < y.hi ? x.hi : y.hi, false};
    }
    case PD_IR_TOKEN: break;
  }
  return (pd__span){0, PD__LEN_INF, false};
}

static uint32_t pd__cut(pd__cutter *c, uint32_t node, uint64_t min, uint64_t max);

/* A sequence whose parts have fixed lengths but one: that one takes the rest. */
static uint32_t pd__cut_seq(pd__cutter *c, const pd_ir_node *n, uint64_t min, uint64_t max) {
  uint64_t fixed = 0;
  uint32_t var = UINT32_MAX, off = n->off, count = n->n;
  for (uint32_t i = 0; i < count; i++) {
    pd__span k = pd__span_of(c, c->ir->kids.data[off + i]);
    if (k.lo != k.hi && var != UINT32_MAX) c->fail = true;
    if (k.lo != k.hi) var = i;
    else fixed = pd__sat_add(fixed, k.lo);
  }
  if (var == UINT32_MAX) c->fail = true; /* unreachable: a fixed length fits or not */
  if (c->fail) return PD_IR_NONE;
  uint32_t cut = pd__cut(c, c->ir->kids.data[off + var], min > fixed ? min - fixed : 0,
                         max == PD__LEN_INF ? max : max - fixed);
  if (c->fail) return PD_IR_NONE; /* no node of a failed cut: a builder given one marks oom */
  uint32_t *kids = pd__malloc(c->ir->alloc, count * sizeof *kids);
  if (!kids) {
    c->ir->oom = true;
    return PD_IR_NONE;
  }
  memcpy(kids, c->ir->kids.data + off, count * sizeof *kids);
  kids[var] = cut;
  uint32_t out = pd_ir_seq(c->ir, kids, count);
  pd__free(c->ir->alloc, kids);
  return out;
}

/* x{a,b} with x of fixed length l > 0: the counts whose length fits. */
static uint32_t pd__cut_repeat(pd__cutter *c, const pd_ir_node *n, uint64_t min, uint64_t max) {
  pd__span b = pd__span_of(c, n->a);
  if (b.none || b.lo != b.hi || b.lo == 0) {
    c->fail = true;
    return PD_IR_NONE;
  }
  uint64_t lo = (min + b.lo - 1) / b.lo, hi = max == PD__LEN_INF ? max : max / b.lo;
  if (lo < n->off) lo = n->off;
  if (n->n != PD_IR_INF && hi > n->n) hi = n->n;
  if (lo > hi) return pd_ir_nothing(c->ir);
  if (lo >= PD_IR_INF || (hi != PD__LEN_INF && hi >= PD_IR_INF)) {
    c->fail = true;
    return PD_IR_NONE;
  }
  return pd_ir_repeat(c->ir, n->a, (uint32_t)lo, hi == PD__LEN_INF ? PD_IR_INF : (uint32_t)hi);
}

/* node restricted to the strings of min..max characters, or PD_IR_NONE with
 * c->fail when its shape allows no exact cut. */
static uint32_t pd__cut(pd__cutter *c, uint32_t node, uint64_t min, uint64_t max) {
  pd__span s = pd__span_of(c, node);
  if (s.none || (s.lo >= min && s.hi <= max)) return node;
  if (s.hi < min || s.lo > max) return pd_ir_nothing(c->ir);
  const pd_ir_node *n = pd_ir_at(c->ir, node);
  if (pd__marked(c, node)) n = NULL;
  if (n && n->kind == PD_IR_REF) return pd__cut(c, c->ir->rules.data[n->a].body, min, max);
  if (n && n->kind == PD_IR_SEQ) return pd__cut_seq(c, n, min, max);
  if (n && n->kind == PD_IR_REPEAT) return pd__cut_repeat(c, n, min, max);
  if (n && (n->kind == PD_IR_AND || n->kind == PD_IR_DIFF) && !n->n) { /* (a & b) cut = a cut & b */
    bool diff = n->kind == PD_IR_DIFF;
    uint32_t b = n->off, a = pd__cut(c, n->a, min, max);
    if (c->fail || a == PD_IR_NONE) return PD_IR_NONE;
    return diff ? pd_ir_diff(c->ir, a, b) : pd_ir_and(c->ir, a, b);
  }
  if (n && n->kind == PD_IR_ALT) {
    uint32_t out = PD_IR_NONE, off = n->off, count = n->n;
    for (uint32_t i = 0; i < count && !c->fail; i++) {
      uint32_t k = pd__cut(c, c->ir->kids.data[off + i], min, max);
      if (c->fail) return PD_IR_NONE;
      if (k != PD_IR_NONE && pd_ir_at(c->ir, k)->kind == PD_IR_NOTHING) continue;
      out = out == PD_IR_NONE ? k : pd_ir_alt2(c->ir, out, k);
    }
    return out == PD_IR_NONE && !c->fail ? pd_ir_nothing(c->ir) : out;
  }
  c->fail = true;
  return PD_IR_NONE;
}

/* Restricts *node to min..max characters (see pd_regex_to_ir_len). */
static void pd__cut_length(pd__rx *rx, uint32_t *node, uint32_t min, uint32_t max) {
  pd_ir *ir = rx->ir;
  if ((min == 0 && max == PD_IR_INF) || ir->oom) return;
  pd__cutter c = {ir, NULL, NULL, ir->nodes.len, false};
  size_t n = c.n_marked ? c.n_marked : 1;
  c.flags = pd__calloc(ir->alloc, n, 1);
  c.span = c.flags ? pd__malloc(ir->alloc, n * sizeof *c.span) : NULL;
  if (!c.span) {
    pd__free(ir->alloc, c.flags);
    pd__err(rx, PD_ERR_NOMEM, 0, "out of memory");
    return;
  }
  for (size_t i = 0; i < rx->chars.len; i++) c.flags[rx->chars.data[i]] = 1;
  uint32_t cut = pd__cut(&c, *node, min, max == PD_IR_INF ? PD__LEN_INF : max);
  pd__free(ir->alloc, c.span);
  pd__free(ir->alloc, c.flags);
  if (c.fail) pd__unsupported(rx, 0, "a length bound on this pattern's shape");
  else *node = cut;
}

pd_status pd_regex_to_ir_len(pd_ir *ir, const char *pattern, size_t len,
                             const pd_regex_target *target, bool search, uint32_t min_len,
                             uint32_t max_len, const pd_grammar_options *opts, uint32_t *node,
                             pd_error *err) {
  if (!ir || !node || (!pattern && len)) return pd__fail(err, PD_ERR_ARG, "regex: NULL argument");
  if (target && !target->char_class)
    return pd__fail(err, PD_ERR_ARG, "regex: target without char_class");
  pd__rx rx = {.ir = ir, .s = pattern ? pattern : "", .len = len, .target = target, .err = err,
               .search = search};
  rx.max_repeat = opts && opts->max_repeat ? opts->max_repeat : PD_DEFAULT_MAX_REPEAT;
  rx.max_depth = opts && opts->max_depth ? opts->max_depth : 256;
  pd__lang l;
  if (pd__disjunction(&rx, &l) && !pd__at_end(&rx))
    pd__err(&rx, PD_ERR_SYNTAX, rx.pos, "unmatched )");
  uint32_t result = PD_IR_NONE;
  if (rx.st == PD_OK) {
    bool none = l.nullable == 0 && !pd__anchored(&l) && l.part[0] == PD__VOID;
    result = none && rx.whole.len ? PD__VOID : pd__assemble(&rx, &l, search);
    for (size_t i = 0; i < rx.whole.len; i++) result = pd__or(ir, result, rx.whole.data[i]);
  }
  if (rx.st == PD_OK && result != PD_IR_NONE) pd__cut_length(&rx, &result, min_len, max_len);
  pd_array_free(ir->alloc, &rx.pairs);
  pd_array_free(ir->alloc, &rx.norm);
  pd_array_free(ir->alloc, &rx.chars);
  pd_array_free(ir->alloc, &rx.whole);
  if (rx.st == PD_OK && (ir->oom || result == PD_IR_NONE)) rx.st = pd__nomem(err);
  if (rx.st == PD_ERR_NOMEM) ir->oom = true;
  if (rx.st == PD_OK) *node = result;
  return rx.st;
}

pd_status pd_regex_to_ir(pd_ir *ir, const char *pattern, size_t len, const pd_regex_target *target,
                         bool search, const pd_grammar_options *opts, uint32_t *node,
                         pd_error *err) {
  return pd_regex_to_ir_len(ir, pattern, len, target, search, 0, PD_IR_INF, opts, node, err);
}

/* ------------------------------------------------- the `regex` constraint */

pd_status pd_grammar_compile_regex(const char *pattern, size_t len, pd_vocab *vocab,
                                   const pd_grammar_options *opts, pd_grammar **out,
                                   pd_error *err) {
  if (!out) return pd__fail(err, PD_ERR_ARG, "pd_grammar_compile_regex: out is NULL");
  *out = NULL;
  pd_ir ir;
  pd_ir_init(&ir, opts && opts->allocator ? opts->allocator : vocab ? vocab->alloc : NULL);
  uint32_t node = PD_IR_NONE;
  pd_status st = pd_regex_to_ir(&ir, pattern, len, NULL, false, opts, &node, err);
  if (st == PD_OK && pd_ir_at(&ir, node)->kind == PD_IR_NOTHING)
    st = pd__fail(err, PD_ERR_SEMANTIC, "regex: the pattern matches no string");
  if (st == PD_OK) {
    pd_ir_set_root(&ir, node);
    st = ir.oom ? pd__nomem(err) : pd_grammar_from_ir(&ir, vocab, opts, out, err);
  }
  pd_ir_free(&ir);
  return st;
}
