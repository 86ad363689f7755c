/* gbnf.c - the GBNF front end: llama.cpp's grammar dialect -> grammar IR.
 *
 * The dialect as parsed here (after llama.cpp's grammars/README.md):
 *
 *   grammar    ::= space-nl (rule space-nl)*
 *   rule       ::= name space "::=" space-nl alternates (newline | end)
 *   alternates ::= sequence ("|" space-nl sequence)*
 *   sequence   ::= (primary space postfix*)*
 *   postfix    ::= ("*" | "+" | "?" | braces) space
 *   braces     ::= "{" space int space ("," space int? space)? "}"
 *   primary    ::= literal | class | "." | name | group | token
 *   group      ::= "(" space-nl alternates ")"
 *   literal    ::= '"' char* '"'
 *   class      ::= "[" "^"? (char ("-" char)?)* "]"
 *   token      ::= "!"? "<" ("[" int "]" | text) ">"
 *   char       ::= escape | any UTF-8 character but the closing one
 *   name       ::= [a-zA-Z0-9_-]+
 *   space      ::= ([ \t] | "#" comment)*   (space-nl also skips newlines; inside
 *                  parentheses and braces every space is space-nl)
 *
 * Terminals are code points: "\xFF" is U+00FF, two bytes of UTF-8. A newline
 * ends a rule except after "|" or inside parentheses. Where this parser is
 * stricter or wider than llama.cpp, on purpose:
 *  - '_' is a name character (vLLM's and xgrammar's grammars use it);
 *  - a rule defined twice is an error (llama.cpp silently keeps the last one);
 *  - a raw newline inside a literal, class or token is an error: it is nearly
 *    always a missing closing quote, and the error then points at the line;
 *  - a reversed range [z-a] is an error (llama.cpp makes it match nothing);
 *  - besides llama.cpp's escapes \x \u \U \t \r \n \\ \" \[ \], the C escapes
 *    \a \b \f \v \0 \' \? and \/ \- \^ are accepted (xgrammar's EBNF has them).
 */
#include "gbnf.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/array.h"
#include "base/error.h"
#include "masks/vocab.h"
#include "pda/grammar.h"

typedef struct pd__gbnf {
  const char *s; /* the grammar text */
  size_t n, pos;
  pd_ir *ir;
  pd_vocab *vocab;
  pd_error *err;
  uint32_t depth, max_depth, max_repeat;
  PD_ARRAY(uint32_t) kids;  /* items of the open sequences and alternations, innermost last */
  PD_ARRAY(uint32_t) pairs; /* the class being parsed: lo, hi, lo, hi, ... */
  PD_ARRAY(uint8_t) lit;    /* the literal being parsed, as UTF-8 */
  char found[32];           /* what an error found, for its message */
} pd__gbnf;

/* ------------------------------------------------------------- helpers */

/* The byte k past the cursor, or -1 past the end. */
static int pd__peek(const pd__gbnf *p, size_t k) {
  return p->pos + k < p->n ? (uint8_t)p->s[p->pos + k] : -1;
}

static bool pd__is_name_char(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '-' || c == '_';
}

static bool pd__is_postfix(int c) { return c == '*' || c == '+' || c == '?' || c == '{'; }

/* A short description of the text at byte at, for "found ..." in messages. */
static const char *pd__found(pd__gbnf *p, size_t at) {
  if (at >= p->n) return "end of input";
  uint8_t c = (uint8_t)p->s[at];
  if (c == '\n' || c == '\r') return "end of line";
  if (c > 0x20 && c < 0x7F) snprintf(p->found, sizeof p->found, "'%c'", c);
  else snprintf(p->found, sizeof p->found, "byte 0x%02X", c);
  return p->found;
}

static pd_status pd__error(pd__gbnf *p, pd_status code, size_t at, const char *fmt, ...)
    PD_PRINTF(4, 5);

/* 1-based line and column of byte at, counting through NUL bytes too. */
static void pd__line_col(const pd__gbnf *p, size_t at, unsigned *line, unsigned *col) {
  *line = 1;
  *col = 1;
  for (size_t i = 0; i < at && i < p->n; i++) {
    if (p->s[i] == '\n') {
      ++*line;
      *col = 1;
    } else {
      ++*col;
    }
  }
}

/* Fails at byte at of the grammar text; the error gets line and column. */
static pd_status pd__error(pd__gbnf *p, pd_status code, size_t at, const char *fmt, ...) {
  char msg[sizeof p->err->message];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  pd__fail_at(p->err, code, p->s, at, "%s", msg);
  if (p->err) { /* pd__fail_at stops counting at a NUL byte; a grammar may hold one */
    unsigned line, col;
    pd__line_col(p, at, &line, &col);
    p->err->line = line;
    p->err->column = col;
  }
  return code;
}

/* space ::= ([ \t] | "#" comment)*, and newlines too when nl_ok */
static void pd__space(pd__gbnf *p, bool nl_ok) {
  for (int c = pd__peek(p, 0); c != -1; c = pd__peek(p, 0)) {
    if (c == '#') {
      while (p->pos < p->n && p->s[p->pos] != '\n' && p->s[p->pos] != '\r') p->pos++;
    } else if (c == ' ' || c == '\t' || (nl_ok && (c == '\n' || c == '\r'))) {
      p->pos++;
    } else {
      return;
    }
  }
}

/* Length of the well-formed UTF-8 sequence at s[0..n) (no overlongs, no
 * surrogates, at most U+10FFFF) and its code point; 0 when ill-formed. */
static size_t pd__utf8_decode(const uint8_t *s, size_t n, uint32_t *cp) {
  uint8_t c = s[0];
  size_t len = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
             : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
  if (len == 0 || len > n) return 0;
  uint32_t v = len == 1 ? c : c & (0x7Fu >> len);
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    v = v << 6 | (s[i] & 0x3Fu);
  }
  static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (v < min[len] || v > PD_IR_MAX_CODEPOINT || (v >= 0xD800 && v <= 0xDFFF)) return 0;
  *cp = v;
  return len;
}

/* Writes code point cp (valid, not a surrogate) as UTF-8 into out; returns its length. */
static size_t pd__utf8_encode(uint32_t cp, uint8_t out[4]) {
  if (cp < 0x80) {
    out[0] = (uint8_t)cp;
    return 1;
  }
  size_t len = cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  static const uint8_t lead[5] = {0, 0, 0xC0, 0xE0, 0xF0};
  for (size_t i = len - 1; i > 0; i--) {
    out[i] = (uint8_t)(0x80 | (cp & 0x3F));
    cp >>= 6;
  }
  out[0] = (uint8_t)(lead[len] | cp);
  return len;
}

/* The whole text must be UTF-8: names, literals and comments alike. */
static pd_status pd__check_utf8(pd__gbnf *p) {
  const uint8_t *s = (const uint8_t *)p->s;
  for (size_t i = 0; i < p->n;) {
    uint32_t cp;
    size_t len = s[i] < 0x80 ? 1 : pd__utf8_decode(s + i, p->n - i, &cp);
    if (len == 0)
      return pd__error(p, PD_ERR_SYNTAX, i, "invalid UTF-8 (byte 0x%02X): a grammar is UTF-8 text",
                       s[i]);
    i += len;
  }
  return PD_OK;
}

/* ---------------------------------------------------------- characters */

/* int ::= [0-9]+  (the value saturates just above UINT32_MAX, for range checks) */
static bool pd__int(pd__gbnf *p, uint64_t *out) {
  int c = pd__peek(p, 0);
  if (c < '0' || c > '9') return false;
  uint64_t v = 0;
  for (; c >= '0' && c <= '9'; c = pd__peek(p, 0)) {
    v = v * 10 + (uint64_t)(c - '0');
    if (v > UINT32_MAX) v = (uint64_t)UINT32_MAX + 1;
    p->pos++;
  }
  *out = v;
  return true;
}

/* hex ::= [0-9a-fA-F]{digits}, after the escape \x, \u or \U at esc */
static pd_status pd__hex(pd__gbnf *p, size_t digits, size_t esc, uint32_t *cp) {
  uint32_t v = 0;
  for (size_t i = 0; i < digits; i++) {
    int c = pd__peek(p, 0), d = c >= '0' && c <= '9' ? c - '0'
                              : c >= 'a' && c <= 'f' ? c - 'a' + 10
                              : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0)
      return pd__error(p, PD_ERR_SYNTAX, p->pos,
                       "bad escape \\%c: expected %zu hex digits, found %s", p->s[esc + 1],
                       digits, pd__found(p, p->pos));
    v = v << 4 | (uint32_t)d;
    p->pos++;
  }
  if (v > PD_IR_MAX_CODEPOINT)
    return pd__error(p, PD_ERR_SYNTAX, esc, "bad escape: U+%X is beyond U+10FFFF", v);
  *cp = v;
  return PD_OK;
}

/* The character a one-letter escape \c stands for, or -1 when \c is no escape. */
static int pd__simple_escape(int c) {
  switch (c) {
    case 'a': return '\a';
    case 'b': return '\b';
    case 'f': return '\f';
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    case 'v': return '\v';
    case '0': return 0;
    case '\\': case '"': case '\'': case '?': case '/': case '[': case ']': case '-': case '^':
      return c;
    default: return -1;
  }
}

/* char ::= "\" (simple | "x" hex{2} | "u" hex{4} | "U" hex{8}) | UTF-8 character
 * The caller has checked that a character is there. */
static pd_status pd__char(pd__gbnf *p, uint32_t *cp) {
  size_t at = p->pos;
  if (p->s[at] != '\\') {
    size_t len = pd__utf8_decode((const uint8_t *)p->s + at, p->n - at, cp);
    p->pos += len ? len : 1; /* the text was checked: len is never 0 */
    return PD_OK;
  }
  int c = pd__peek(p, 1);
  p->pos += c == -1 ? 1 : 2; /* never past the end, even for a final '\\' */
  if (c == 'x') return pd__hex(p, 2, at, cp);
  if (c == 'u') return pd__hex(p, 4, at, cp);
  if (c == 'U') return pd__hex(p, 8, at, cp);
  int simple = pd__simple_escape(c);
  if (simple < 0)
    return pd__error(p, PD_ERR_SYNTAX, at,
                     "bad escape: expected one of \\x \\u \\U \\n \\r \\t \\\\ \\\" \\[ \\] after "
                     "'\\', found %s", pd__found(p, at + 1));
  *cp = (uint32_t)simple;
  return PD_OK;
}

/* True when the closing delimiter of a literal, class or token is missing
 * here: end of input, or a raw line break. */
static bool pd__unterminated(const pd__gbnf *p) {
  int c = pd__peek(p, 0);
  return c == -1 || c == '\n' || c == '\r';
}

/* ----------------------------------------------------------- terminals */

/* literal ::= '"' char* '"' */
static pd_status pd__literal(pd__gbnf *p, uint32_t *node) {
  size_t open = p->pos++;
  pd_array_clear(&p->lit);
  while (pd__peek(p, 0) != '"') {
    if (pd__unterminated(p))
      return pd__error(p, PD_ERR_SYNTAX, open,
                       "unterminated string literal: expected '\"' before %s (write \\n for a "
                       "newline)", pd__found(p, p->pos));
    size_t at = p->pos;
    uint32_t cp;
    pd_status st = pd__char(p, &cp);
    if (st) return st;
    if (cp >= 0xD800 && cp <= 0xDFFF)
      return pd__error(p, PD_ERR_SYNTAX, at, "bad escape: U+%04X is a surrogate, not a character",
                       cp);
    uint8_t buf[4];
    size_t len = pd__utf8_encode(cp, buf);
    if (!pd_array_reserve(p->ir->alloc, &p->lit, len)) return pd__nomem(p->err);
    memcpy(p->lit.data + p->lit.len, buf, len);
    p->lit.len += len;
  }
  p->pos++;
  *node = pd_ir_bytes(p->ir, p->lit.data, p->lit.len);
  return PD_OK;
}

/* The end of a class range after "-" (the caller saw one there). */
static pd_status pd__range_end(pd__gbnf *p, size_t open, size_t start, uint32_t lo,
                               uint32_t *hi) {
  p->pos++; /* '-' */
  if (pd__unterminated(p))
    return pd__error(p, PD_ERR_SYNTAX, open, "unterminated character class: expected ']' before %s",
                     pd__found(p, p->pos));
  pd_status st = pd__char(p, hi);
  if (st) return st;
  if (*hi < lo)
    return pd__error(p, PD_ERR_SYNTAX, start,
                     "reversed range in character class: %.*s (U+%04X-U+%04X; the first must not "
                     "exceed the second)", (int)(p->pos - start), p->s + start, lo, *hi);
  return PD_OK;
}

/* class ::= "[" "^"? (char ("-" char)?)* "]"
 * A "-" first, last, or right after a range is the character itself. */
static pd_status pd__class(pd__gbnf *p, uint32_t *node) {
  size_t open = p->pos++;
  bool negated = pd__peek(p, 0) == '^';
  if (negated) p->pos++;
  pd_array_clear(&p->pairs);
  while (pd__peek(p, 0) != ']') {
    if (pd__unterminated(p))
      return pd__error(p, PD_ERR_SYNTAX, open,
                       "unterminated character class: expected ']' before %s",
                       pd__found(p, p->pos));
    size_t start = p->pos;
    uint32_t lo, hi;
    pd_status st = pd__char(p, &lo);
    hi = lo;
    if (!st && pd__peek(p, 0) == '-' && pd__peek(p, 1) != ']' && pd__peek(p, 1) != -1)
      st = pd__range_end(p, open, start, lo, &hi);
    if (st) return st;
    if (!pd_array_reserve(p->ir->alloc, &p->pairs, 2)) return pd__nomem(p->err);
    p->pairs.data[p->pairs.len++] = lo;
    p->pairs.data[p->pairs.len++] = hi;
  }
  p->pos++;
  *node = pd_ir_class(p->ir, p->pairs.data, p->pairs.len / 2, negated);
  return PD_OK;
}

/* The text form of a token, <...> at open (the "<"): its id in the vocabulary. */
static pd_status pd__token_text(pd__gbnf *p, size_t open, uint32_t *id) {
  while (pd__peek(p, 0) != '>') {
    if (pd__unterminated(p))
      return pd__error(p, PD_ERR_SYNTAX, open, "unterminated token: expected '>' before %s",
                       pd__found(p, p->pos));
    p->pos++;
  }
  p->pos++;
  int len = (int)(p->pos - open);
  if (!p->vocab)
    return pd__error(p, PD_ERR_SEMANTIC, open,
                     "token %.*s is written by its text and needs a vocabulary (none was given); "
                     "<[id]> needs none", len, p->s + open);
  if (pd_vocab_find(p->vocab, (const uint8_t *)p->s + open, (size_t)len, id) != PD_OK)
    return pd__error(p, PD_ERR_SEMANTIC, open, "no token %.*s in the vocabulary", len,
                     p->s + open);
  return PD_OK;
}

/* The id form <[id]>, after "<[". */
static pd_status pd__token_id(pd__gbnf *p, size_t open, uint32_t *id) {
  uint64_t v;
  if (!pd__int(p, &v))
    return pd__error(p, PD_ERR_SYNTAX, p->pos, "expected a token id (digits) after '<[', found %s",
                     pd__found(p, p->pos));
  if (pd__peek(p, 0) != ']' || pd__peek(p, 1) != '>')
    return pd__error(p, PD_ERR_SYNTAX, p->pos, "expected ']>' to end the token, found %s",
                     pd__found(p, p->pos));
  p->pos += 2;
  size_t size = p->vocab ? pd_vocab_size(p->vocab) : (size_t)UINT32_MAX;
  if (v >= size)
    return pd__error(p, PD_ERR_SEMANTIC, open, "token id %llu is outside the vocabulary (%zu ids)",
                     (unsigned long long)v, size);
  *id = (uint32_t)v;
  return PD_OK;
}

/* A token the grammar requires must be one a matcher can take: not an id the
 * tokenizer leaves unused, and not a stop token, which ends the output only
 * when the grammar is complete and so never matches a token edge. */
static pd_status pd__token_usable(pd__gbnf *p, size_t open, uint32_t id) {
  const uint8_t *bytes;
  size_t len;
  uint32_t flags = 0;
  if (!p->vocab || pd_vocab_token(p->vocab, id, &bytes, &len, &flags) != PD_OK) return PD_OK;
  if (flags & PD_TOKEN_HOLE)
    return pd__error(p, PD_ERR_SEMANTIC, open, "token id %u is not used by the tokenizer", id);
  if (flags & PD_TOKEN_EOS)
    return pd__error(p, PD_ERR_SEMANTIC, open,
                     "token %u is a stop token: it ends the output once the grammar is complete "
                     "and cannot be required inside it", id);
  return PD_OK;
}

/* token ::= "!"? "<" ("[" int "]" | text) ">" */
static pd_status pd__token(pd__gbnf *p, uint32_t *node) {
  bool negated = pd__peek(p, 0) == '!';
  if (negated) {
    p->pos++;
    if (pd__peek(p, 0) != '<')
      return pd__error(p, PD_ERR_SYNTAX, p->pos,
                       "expected '<' after '!' (a negated token is !<[id]> or !<text>), found %s",
                       pd__found(p, p->pos));
  }
  size_t open = p->pos++;
  uint32_t id;
  pd_status st;
  if (pd__peek(p, 0) == '[') {
    p->pos++;
    st = pd__token_id(p, open, &id);
  } else {
    st = pd__token_text(p, open, &id);
  }
  if (!st && !negated) st = pd__token_usable(p, open, id);
  if (st) return st;
  *node = pd_ir_token(p->ir, id, negated);
  return PD_OK;
}

/* name (in a sequence): a reference to the rule, which may be defined later. */
static pd_status pd__reference(pd__gbnf *p, uint32_t *node) {
  size_t at = p->pos, before = p->ir->rules.len;
  while (pd__is_name_char(pd__peek(p, 0))) p->pos++;
  uint32_t rule = pd_ir_rule_named(p->ir, p->s + at, p->pos - at);
  if (rule == PD_IR_NONE) return pd__nomem(p->err);
  /* the first use of a rule not yet defined is where "undefined" will point */
  if (p->ir->rules.len > before) p->ir->rules.data[rule].ref_offset = at;
  *node = pd_ir_ref(p->ir, rule);
  return PD_OK;
}

/* ----------------------------------------------------------- structure */

static pd_status pd__alternates(pd__gbnf *p, bool nested, uint32_t *node);

/* group ::= "(" space-nl alternates ")" */
static pd_status pd__group(pd__gbnf *p, uint32_t *node) {
  size_t open = p->pos++;
  if (p->depth >= p->max_depth)
    return pd__error(p, PD_ERR_LIMIT, open, "nesting deeper than the limit of %u (max_depth)",
                     p->max_depth);
  p->depth++;
  pd__space(p, true);
  pd_status st = pd__alternates(p, true, node);
  if (st) return st;
  if (pd__peek(p, 0) != ')') {
    unsigned line, col;
    pd__line_col(p, open, &line, &col);
    return pd__error(p, PD_ERR_SYNTAX, p->pos,
                     "expected ')' to close the '(' of line %u, column %u, found %s", line, col,
                     pd__found(p, p->pos));
  }
  p->pos++;
  p->depth--;
  return PD_OK;
}

/* primary ::= literal | class | "." | name | group | token
 * *found is false (and nothing consumed) when no primary starts here. */
static pd_status pd__primary(pd__gbnf *p, uint32_t *node, bool *found) {
  int c = pd__peek(p, 0);
  *found = true;
  if (c == '"') return pd__literal(p, node);
  if (c == '[') return pd__class(p, node);
  if (c == '(') return pd__group(p, node);
  if (c == '<' || c == '!') return pd__token(p, node);
  if (pd__is_name_char(c)) return pd__reference(p, node);
  if (c == '.') {
    p->pos++;
    *node = pd_ir_any_char(p->ir);
    return PD_OK;
  }
  *found = false;
  return PD_OK;
}

/* A repetition bound: int, at most max_repeat. */
static pd_status pd__bound(pd__gbnf *p, const char *after, uint32_t *out) {
  uint64_t v;
  size_t at = p->pos;
  if (!pd__int(p, &v))
    return pd__error(p, PD_ERR_SYNTAX, at,
                     "bad repetition: expected a number after '%s', found %s%s", after,
                     pd__found(p, at),
                     after[0] == '{' ? " (write {0,n} for 'at most n')" : "");
  if (v > p->max_repeat)
    return pd__error(p, PD_ERR_LIMIT, at, "repetition bound %llu exceeds the limit of %u "
                     "(max_repeat)", (unsigned long long)v, p->max_repeat);
  *out = (uint32_t)v;
  return PD_OK;
}

/* braces ::= "{" space int space ("," space int? space)? "}" */
static pd_status pd__braces(pd__gbnf *p, uint32_t *min, uint32_t *max) {
  size_t open = p->pos++;
  pd__space(p, true);
  pd_status st = pd__bound(p, "{", min);
  if (st) return st;
  pd__space(p, true);
  *max = *min;
  if (pd__peek(p, 0) == ',') {
    p->pos++;
    pd__space(p, true);
    *max = PD_IR_INF;
    int c = pd__peek(p, 0);
    if (c >= '0' && c <= '9' && (st = pd__bound(p, ",", max))) return st;
    pd__space(p, true);
  }
  if (pd__peek(p, 0) != '}')
    return pd__error(p, PD_ERR_SYNTAX, p->pos, "bad repetition: expected '}' or ',' , found %s",
                     pd__found(p, p->pos));
  p->pos++;
  if (*max != PD_IR_INF && *max < *min)
    return pd__error(p, PD_ERR_SYNTAX, open,
                     "bad repetition bounds {%u,%u}: the minimum exceeds the maximum", *min, *max);
  return PD_OK;
}

/* postfix ::= ("*" | "+" | "?" | braces) space, applied to *node in turn.
 * Each operator nests the IR one level deeper, so it counts toward max_depth. */
static pd_status pd__postfix(pd__gbnf *p, bool nested, uint32_t *node) {
  uint32_t extra = 0;
  for (int c = pd__peek(p, 0); pd__is_postfix(c); c = pd__peek(p, 0)) {
    if (p->depth + ++extra > p->max_depth)
      return pd__error(p, PD_ERR_LIMIT, p->pos, "nesting deeper than the limit of %u (max_depth)",
                       p->max_depth);
    uint32_t min = c == '+', max = c == '?' ? 1 : PD_IR_INF;
    if (c == '{') {
      pd_status st = pd__braces(p, &min, &max);
      if (st) return st;
    } else {
      p->pos++;
    }
    *node = pd_ir_repeat(p->ir, *node, min, max);
    pd__space(p, nested);
  }
  return PD_OK;
}

/* sequence ::= (primary space postfix*)* */
static pd_status pd__sequence(pd__gbnf *p, bool nested, uint32_t *node) {
  size_t base = p->kids.len;
  for (;;) {
    uint32_t item = PD_IR_NONE;
    bool found;
    pd_status st = pd__primary(p, &item, &found);
    if (st) return st;
    if (!found) break;
    pd__space(p, nested);
    if ((st = pd__postfix(p, nested, &item))) return st;
    if (!pd_array_push(p->ir->alloc, &p->kids, item)) return pd__nomem(p->err);
  }
  if (pd__is_postfix(pd__peek(p, 0)))
    return pd__error(p, PD_ERR_SYNTAX, p->pos, "expected an item before %s to repeat",
                     pd__found(p, p->pos));
  /* an empty sequence may come before anything was ever pushed: no data yet */
  *node = pd_ir_seq(p->ir, p->kids.len ? p->kids.data + base : NULL, p->kids.len - base);
  p->kids.len = base;
  return PD_OK;
}

/* alternates ::= sequence ("|" space-nl sequence)* */
static pd_status pd__alternates(pd__gbnf *p, bool nested, uint32_t *node) {
  size_t base = p->kids.len;
  for (;;) {
    uint32_t seq = PD_IR_NONE;
    pd_status st = pd__sequence(p, nested, &seq);
    if (st) return st;
    if (!pd_array_push(p->ir->alloc, &p->kids, seq)) return pd__nomem(p->err);
    if (pd__peek(p, 0) != '|') break;
    p->pos++;
    pd__space(p, true);
  }
  *node = pd_ir_alt(p->ir, p->kids.data + base, p->kids.len - base);
  p->kids.len = base;
  return PD_OK;
}

/* After a rule: a line break, or the end of the text. */
static pd_status pd__rule_end(pd__gbnf *p) {
  int c = pd__peek(p, 0);
  if (c == -1) return PD_OK;
  if (c == '\n' || c == '\r') {
    p->pos += c == '\r' && pd__peek(p, 1) == '\n' ? 2 : 1;
    return PD_OK;
  }
  if (c == ')')
    return pd__error(p, PD_ERR_SYNTAX, p->pos,
                     "unmatched ')': expected end of line after the rule");
  return pd__error(p, PD_ERR_SYNTAX, p->pos, "expected end of line after the rule, found %s",
                   pd__found(p, p->pos));
}

/* rule ::= name space "::=" space-nl alternates (newline | end) */
static pd_status pd__rule(pd__gbnf *p) {
  size_t at = p->pos;
  while (pd__is_name_char(pd__peek(p, 0))) p->pos++;
  size_t len = p->pos - at;
  if (len == 0)
    return pd__error(p, PD_ERR_SYNTAX, at,
                     "expected a rule 'name ::= ...', found %s (a rule continues on the next line "
                     "only after '|' or inside parentheses)", pd__found(p, at));
  pd__space(p, false);
  if (p->pos + 3 > p->n || memcmp(p->s + p->pos, "::=", 3) != 0)
    return pd__error(p, PD_ERR_SYNTAX, p->pos,
                     "expected '::=' after the rule name '%.*s', found %s", (int)len, p->s + at,
                     pd__found(p, p->pos));
  p->pos += 3;
  pd__space(p, true);
  uint32_t rule = pd_ir_rule_named(p->ir, p->s + at, len);
  if (rule == PD_IR_NONE) return pd__nomem(p->err);
  if (p->ir->rules.data[rule].body != PD_IR_NONE)
    return pd__error(p, PD_ERR_SEMANTIC, at, "rule '%.*s' is defined twice", (int)len, p->s + at);
  uint32_t body = PD_IR_NONE;
  pd_status st = pd__alternates(p, false, &body);
  if (st) return st;
  if ((st = pd__rule_end(p))) return st;
  pd_ir_rule_define(p->ir, rule, body);
  return p->ir->oom ? pd__nomem(p->err) : PD_OK;
}

/* grammar ::= space-nl (rule space-nl)* */
static pd_status pd__grammar(pd__gbnf *p) {
  pd__space(p, true);
  if (p->pos >= p->n)
    return pd__error(p, PD_ERR_SYNTAX, p->pos, "empty grammar: expected a rule such as "
                     "'root ::= \"yes\" | \"no\"'");
  while (p->pos < p->n) {
    pd_status st = pd__rule(p);
    if (st) return st;
    pd__space(p, true);
  }
  return PD_OK;
}

/* Every referenced rule is defined, and the start rule exists. Rules are
 * numbered by first mention, so the first undefined one is the earliest use. */
static pd_status pd__check_rules(pd__gbnf *p, const char *root) {
  pd_ir *ir = p->ir;
  for (uint32_t r = 0; r < ir->rules.len; r++)
    if (ir->rules.data[r].body == PD_IR_NONE)
      return pd__error(p, PD_ERR_SEMANTIC, ir->rules.data[r].ref_offset,
                       "undefined rule '%s': it is used here but never defined",
                       pd_ir_rule_name(ir, r));
  uint32_t start = pd_ir_rule_find(ir, root, strlen(root));
  if (start == PD_IR_NONE)
    return pd__fail(p->err, PD_ERR_SEMANTIC, "missing start rule: no rule named '%s' is defined",
                    root);
  ir->root = start;
  return PD_OK;
}

pd_status pd_gbnf_to_ir_opts(pd_ir *ir, const char *text, size_t len, pd_vocab *vocab,
                             const pd_gbnf_options *opts, pd_error *err) {
  if (!ir || (!text && len)) return pd__fail(err, PD_ERR_ARG, "pd_gbnf_to_ir: bad arguments");
  pd__gbnf p = {.s = text ? text : "", .n = len, .ir = ir, .vocab = vocab, .err = err};
  p.max_depth = opts && opts->max_depth ? opts->max_depth : PD_GBNF_DEFAULT_DEPTH;
  p.max_repeat = opts && opts->max_repeat ? opts->max_repeat : PD_GBNF_DEFAULT_REPEAT;
  if (p.max_repeat >= PD_IR_INF) p.max_repeat = PD_IR_INF - 1;
  pd_status st = pd__check_utf8(&p);
  if (!st) st = pd__grammar(&p);
  if (!st && ir->oom) st = pd__nomem(err);
  if (!st) st = pd__check_rules(&p, opts && opts->root ? opts->root : "root");
  pd_array_free(ir->alloc, &p.kids);
  pd_array_free(ir->alloc, &p.pairs);
  pd_array_free(ir->alloc, &p.lit);
  return st;
}

pd_status pd_gbnf_to_ir(pd_ir *ir, const char *text, size_t len, pd_vocab *vocab,
                        pd_error *err) {
  return pd_gbnf_to_ir_opts(ir, text, len, vocab, NULL, err);
}

pd_status pd_grammar_compile_gbnf(const char *text, size_t len, pd_vocab *vocab,
                                  const pd_grammar_options *opts, pd_grammar **out,
                                  pd_error *err) {
  if (!out) return pd__fail(err, PD_ERR_ARG, "pd_grammar_compile_gbnf: out is NULL");
  *out = NULL;
  /* the IR lives only for this call, on the allocator the grammar will use */
  const pd_allocator *a = opts && opts->allocator ? opts->allocator : vocab ? vocab->alloc : NULL;
  pd_ir ir;
  pd_ir_init(&ir, a);
  pd_gbnf_options go = {0};
  if (opts) go = (pd_gbnf_options){opts->gbnf_root, opts->max_depth, opts->max_repeat};
  pd_status st = pd_gbnf_to_ir_opts(&ir, text, len, vocab, &go, err);
  if (!st) st = pd_grammar_from_ir(&ir, vocab, opts, out, err);
  pd_ir_free(&ir);
  return st;
}
