/* schema_string.c - JSON strings: how one decoded character is written (raw or
 * escaped), string literals, keys outside a set, and the string keywords
 * (minLength, maxLength, pattern, format). */
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "pda/grammar.h"
#include "pda/regex.h"
#include "pda/schema_ctx.h"

/* ------------------------------------------------------------ hex escapes */

/* One hex digit whose value is in lo..hi, either case. */
static uint32_t pd__hex_class(pd_ir *ir, uint32_t lo, uint32_t hi) {
  uint32_t p[6], n = 0;
  if (lo <= 9) {
    p[2 * n] = '0' + lo;
    p[2 * n + 1] = '0' + (hi < 9 ? hi : 9);
    n++;
  }
  if (hi >= 10) {
    uint32_t a = lo > 10 ? lo : 10;
    p[2 * n] = 'a' + a - 10;
    p[2 * n + 1] = 'a' + hi - 10;
    n++;
    p[2 * n] = 'A' + a - 10;
    p[2 * n + 1] = 'A' + hi - 10;
    n++;
  }
  return pd_ir_class(ir, p, n, false);
}

/* k hex digits whose value is in lo..hi (the usual digit-by-digit split). */
static uint32_t pd__hex_range(pd_ir *ir, uint32_t lo, uint32_t hi, uint32_t k) {
  if (k == 0) return pd_ir_empty(ir);
  uint32_t shift = 4 * (k - 1), full = (1u << shift) - 1;
  uint32_t dl = lo >> shift, dh = hi >> shift, rl = lo & full, rh = hi & full;
  if (dl == dh) return pd_ir_seq2(ir, pd__hex_class(ir, dl, dl), pd__hex_range(ir, rl, rh, k - 1));
  uint32_t alts[3], n = 0, first = dl, last = dh;
  if (rl != 0) {
    alts[n++] = pd_ir_seq2(ir, pd__hex_class(ir, dl, dl), pd__hex_range(ir, rl, full, k - 1));
    first++;
  }
  if (rh != full) {
    alts[n++] = pd_ir_seq2(ir, pd__hex_class(ir, dh, dh), pd__hex_range(ir, 0, rh, k - 1));
    last--;
  }
  if (first <= last)
    alts[n++] = pd_ir_seq2(ir, pd__hex_class(ir, first, last),
                           pd_ir_repeat(ir, pd__hex_class(ir, 0, 15), k - 1, k - 1));
  return pd_ir_alt(ir, alts, n);
}

static uint32_t pd__u_escape(pd_ir *ir, uint32_t lo, uint32_t hi) {
  return pd_ir_seq2(ir, pd_ir_bytes(ir, "\\u", 2), pd__hex_range(ir, lo, hi, 4));
}

/* Code points lo..hi (all >= 0x10000) as \uHIGH\uLOW surrogate pairs. */
static uint32_t pd__pair_range(pd_ir *ir, uint32_t lo, uint32_t hi) {
  uint32_t hl = 0xD800 + ((lo - 0x10000) >> 10), ll = 0xDC00 + ((lo - 0x10000) & 0x3FF);
  uint32_t hh = 0xD800 + ((hi - 0x10000) >> 10), lh = 0xDC00 + ((hi - 0x10000) & 0x3FF);
  if (hl == hh) return pd_ir_seq2(ir, pd__u_escape(ir, hl, hl), pd__u_escape(ir, ll, lh));
  uint32_t alts[3], n = 0;
  alts[n++] = pd_ir_seq2(ir, pd__u_escape(ir, hl, hl), pd__u_escape(ir, ll, 0xDFFF));
  if (hl + 1 <= hh - 1)
    alts[n++] = pd_ir_seq2(ir, pd__u_escape(ir, hl + 1, hh - 1), pd__u_escape(ir, 0xDC00, 0xDFFF));
  alts[n++] = pd_ir_seq2(ir, pd__u_escape(ir, hh, hh), pd__u_escape(ir, 0xDC00, lh));
  return pd_ir_alt(ir, alts, n);
}

/* ------------------------------------------------------------ one character */

static bool pd__in(const uint32_t *pairs, size_t n, uint32_t c) {
  for (size_t i = 0; i < n; i++)
    if (pairs[2 * i] <= c && c <= pairs[2 * i + 1]) return true;
  return false;
}

/* The characters that may appear raw: >= 0x20 except '"' and '\'. */
static uint32_t pd__raw_part(pd_ir *ir, const uint32_t *pairs, size_t n) {
  uint32_t *p = pd__malloc(ir->alloc, (3 * n + 1) * 2 * sizeof *p);
  if (!p) {
    ir->oom = true;
    return PD_IR_NONE;
  }
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    uint32_t lo = pairs[2 * i] < 0x20 ? 0x20 : pairs[2 * i], hi = pairs[2 * i + 1];
    static const uint32_t cuts[2] = {'"', '\\'};
    for (int k = 0; k < 2 && lo <= hi; k++) {
      if (cuts[k] < lo || cuts[k] > hi) continue;
      if (cuts[k] > lo) {
        p[2 * m] = lo;
        p[2 * m + 1] = cuts[k] - 1;
        m++;
      }
      lo = cuts[k] + 1;
    }
    if (lo <= hi) {
      p[2 * m] = lo;
      p[2 * m + 1] = hi;
      m++;
    }
  }
  uint32_t node = m ? pd_ir_class(ir, p, m, false) : pd_ir_nothing(ir);
  pd__free(ir->alloc, p);
  return node;
}

uint32_t pd_sc_jchar(pd_ir *ir, const uint32_t *pairs, size_t n, void *ud) {
  static const char esc_from[] = "\"\\/\b\f\n\r\t", esc_to[] = "\"\\/bfnrt";
  (void)ud;
  uint32_t acc = pd__raw_part(ir, pairs, n);
  for (int k = 0; k < 8; k++)
    if (pd__in(pairs, n, (uint8_t)esc_from[k])) {
      char e[2] = {'\\', esc_to[k]};
      acc = pd_ir_alt2(ir, acc, pd_ir_bytes(ir, e, 2));
    }
  for (size_t i = 0; i < n; i++) {
    uint32_t lo = pairs[2 * i], hi = pairs[2 * i + 1];
    if (lo <= 0xFFFF) acc = pd_ir_alt2(ir, acc, pd__u_escape(ir, lo, hi < 0xFFFF ? hi : 0xFFFF));
    if (hi >= 0x10000)
      acc = pd_ir_alt2(ir, acc, pd__pair_range(ir, lo < 0x10000 ? 0x10000 : lo, hi));
  }
  return acc;
}

/* A string's length bound counted by the matcher (pd_ir_counted) from this
 * many characters past its minimum; shorter ranges are copies (pda.h). */
#define PD_SC_COUNTED_MIN 128u

static const uint32_t pd__all_chars[4] = {0, 0xD7FF, 0xE000, 0x10FFFF};

/* Any one character, a surrogate pair counting as one (for exact lengths). */
static uint32_t pd__char(pd_sc *sc) {
  if (sc->jchar_rule == PD_IR_NONE) {
    sc->jchar_rule = pd_ir_rule_named(&sc->ir, "char", 4);
    pd_ir_rule_define(&sc->ir, sc->jchar_rule, pd_sc_jchar(&sc->ir, pd__all_chars, 2, NULL));
    if (sc->ir.oom) {
      sc->jchar_rule = PD_IR_NONE;
      return PD_IR_NONE;
    }
  }
  return pd_ir_ref(&sc->ir, sc->jchar_rule);
}

static uint32_t pd__quoted(pd_sc *sc, uint32_t inner) {
  uint32_t q = pd_ir_bytes(&sc->ir, "\"", 1), k[3] = {q, inner, q};
  return pd_ir_seq(&sc->ir, k, 3);
}

/* The longest minimum of a counted string written out inside its counted
 * rule (pd_sc_string): a few thousand states; a million copies made a rule of
 * millions. */
#define PD__HEAD_INSIDE 256u

/* Whether a maximum is far enough past the minimum to be counted. */
static bool pd__far(uint32_t min, uint32_t max) {
  return max != PD_IR_INF && max >= min && max - min >= PD_SC_COUNTED_MIN;
}

/* The string of body's characters, cut to the lengths when bounded: a product
 * counting characters to the minimum, and to the maximum unless counted, when
 * the matcher counts to it (the product copies body's rules in, and a counted
 * rule reads bytes only). */
static uint32_t pd__cut(pd_sc *sc, uint32_t body, bool bounded, uint32_t min, uint32_t max,
                        bool counted) {
  pd_ir *ir = &sc->ir;
  if (bounded) /* max < min: nothing */
    body = pd_ir_and_count(ir, body, pd_sc_jchar(ir, pd__all_chars, 2, NULL), min,
                           counted ? PD_IR_INF : max);
  return pd__quoted(sc, counted ? pd_ir_counted(ir, body, max) : body);
}

/* string = '"' char* '"' */
uint32_t pd_sc_any_string(pd_sc *sc) {
  if (sc->string_rule == PD_IR_NONE) {
    sc->string_rule = pd_ir_rule_named(&sc->ir, "string", 6);
    pd_ir_rule_define(&sc->ir, sc->string_rule,
                      pd__quoted(sc, pd_ir_repeat(&sc->ir, pd__char(sc), 0, PD_IR_INF)));
    if (sc->ir.oom) {
      sc->string_rule = PD_IR_NONE;
      return PD_IR_NONE;
    }
  }
  return pd_ir_ref(&sc->ir, sc->string_rule);
}

/* Decodes the UTF-8 (or WTF-8, for lone surrogates) code point at s; *k = its length. */
static uint32_t pd__decode(const uint8_t *s, size_t n, size_t *k) {
  uint8_t b = s[0];
  size_t len = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
  if (len > n) len = n;
  uint32_t c = len == 1 ? b : len == 2 ? b & 0x1Fu : len == 3 ? b & 0x0Fu : b & 0x07u;
  for (size_t j = 1; j < len; j++) c = c << 6 | (s[j] & 0x3Fu);
  *k = len;
  return c;
}

static uint32_t pd__one(pd_sc *sc, uint32_t c) {
  if (c < 128 && sc->spelled_ascii[c]) return sc->spelled_ascii[c] - 1;
  uint32_t p[2] = {c, c}, node = pd_sc_jchar(&sc->ir, p, 1, NULL);
  if (c < 128 && node != PD_IR_NONE) sc->spelled_ascii[c] = node + 1;
  return node;
}

/* Every encoding of the string value s[0..len), without the quotes. */
static uint32_t pd__spelled(pd_sc *sc, const char *s, size_t len) {
  uint32_t acc = pd_ir_empty(&sc->ir);
  for (size_t i = 0, k; i < len; i += k)
    acc = pd_ir_seq2(&sc->ir, acc, pd__one(sc, pd__decode((const uint8_t *)s + i, len - i, &k)));
  return acc;
}

uint32_t pd_sc_string_literal(pd_sc *sc, const char *s, size_t len) {
  return pd__quoted(sc, pd__spelled(sc, s, len));
}

/* ------------------------------------------------------------ keys not in a set */

/* A JSON string whose value is none of names: every encoding of every
 * character (raw or escaped) minus every encoding of each name, as one
 * difference (pda/nfa_diff.c). */
uint32_t pd_sc_string_not_in(pd_sc *sc, const uint32_t *names, size_t n) {
  pd_ir *ir = &sc->ir;
  uint32_t *alts = pd__malloc(ir->alloc, (n + 1) * sizeof *alts), spelled = PD_IR_NONE;
  if (!alts) {
    ir->oom = true;
    return PD_IR_NONE;
  }
  for (size_t i = 0; i < n; i++) /* one list: a chain of pairs is as deep as the names */
    alts[i] = pd__spelled(sc, pd_json_str(&sc->doc, names[i]), pd_json_at(&sc->doc, names[i])->n);
  spelled = pd_ir_alt(ir, alts, n);
  pd__free(ir->alloc, alts);
  uint32_t any = pd_ir_repeat(ir, pd__char(sc), 0, PD_IR_INF);
  return pd__quoted(sc, pd_ir_diff(ir, any, spelled));
}

/* ------------------------------------------------------------ formats */

typedef struct pd__format {
  const char *name, *regex; /* regex NULL: known but not enforced exactly */
} pd__format;

/* ------------------------------------------------------------ hostname
 *
 * RFC 1123 host names: labels of 1..63 letters, digits and hyphens, not
 * starting or ending with a hyphen, dot-separated, at most 253 characters in
 * all. Labels with "--" in positions 3-4 are refused: RFC 5891 reserves them,
 * and the "xn--" ones are valid only as well-formed Punycode A-labels, which
 * no regular language of manageable size decides (a documented false
 * negative; never a false positive). The total bound is exact through budget
 * rules: with b characters left, H(b) is a label of j <= min(63, b)
 * characters followed by T(b - j), where T(r) = "" | "." H(r - 1) (the dot
 * only when r >= 2). The label is spelled character by character inside
 * H(b), so that its automaton follows every length at once:
 *   H(b) = A (T(b-1) | N(1)),  N(k) = A T(b-k-1) | L N(k+1)   (k chars read)
 * (A a letter or digit, L that or a hyphen); with a rule per label length,
 * the start of H(b) was 63 parses side by side, and classifying it over a
 * 128k vocabulary took 0.3 s. Each character is a JSON string character:
 * raw, or a \u escape written by a small shared rule (inline, the escapes
 * made each position a dozen states). */

#define PD__HOST_MAX 253u
#define PD__LABEL_MAX 63u

/* The \u escapes of the characters pairs[0..n), as a rule of their own. */
static uint32_t pd__escapes(pd_ir *ir, const uint32_t *pairs, size_t n) {
  uint32_t r = pd_ir_rule_fresh(ir, "hesc"), acc = pd_ir_nothing(ir);
  for (size_t i = 0; i < n; i++)
    acc = pd_ir_alt2(ir, acc, pd__u_escape(ir, pairs[2 * i], pairs[2 * i + 1]));
  pd_ir_rule_define(ir, r, acc);
  pd_ir_rule_flag(ir, r, PD_IR_RULE_CALLED);
  return pd_ir_ref(ir, r);
}

/* One of the characters pairs[0..n): raw, or escaped by a call. */
static uint32_t pd__host_char(pd_ir *ir, const uint32_t *pairs, size_t n) {
  return pd_ir_alt2(ir, pd__raw_part(ir, pairs, n), pd__escapes(ir, pairs, n));
}

typedef struct pd__host {
  uint32_t an, hy, ldh, dot; /* characters */
  uint32_t *h;               /* h[b]: the rule H(b) */
} pd__host;

/* T(r): the end of the name, or a dot and a name of at most r - 1 characters. */
static uint32_t pd__host_tail(pd_ir *ir, const pd__host *x, uint32_t r) {
  uint32_t end = pd_ir_empty(ir);
  return r >= 2 ? pd_ir_alt2(ir, end, pd_ir_seq2(ir, x->dot, pd_ir_ref(ir, x->h[r - 1]))) : end;
}

/* The body of H(b): the label's characters from the last one back. */
static uint32_t pd__host_body(pd_ir *ir, const pd__host *x, uint32_t b) {
  uint32_t m = b < PD__LABEL_MAX ? b : PD__LABEL_MAX;
  uint32_t next = PD_IR_NONE, next4 = PD_IR_NONE; /* N(k + 1), N(4) */
  for (uint32_t k = m - 1; k >= 1; k--) {          /* N(k): reads character k + 1 */
    uint32_t ends = pd_ir_seq2(ir, x->an, pd__host_tail(ir, x, b - k - 1)), n;
    if (next == PD_IR_NONE) {
      n = ends; /* character m: the label's last */
    } else if (k == 2) { /* characters 3 and 4 are not both hyphens */
      uint32_t fourth = pd_ir_seq2(
          ir, x->an,
          next4 == PD_IR_NONE ? pd__host_tail(ir, x, b - 4)
                              : pd_ir_alt2(ir, pd__host_tail(ir, x, b - 4), next4));
      n = pd_ir_alt(ir,
                    (uint32_t[]){ends, pd_ir_seq2(ir, x->an, next), pd_ir_seq2(ir, x->hy, fourth)},
                    3);
    } else {
      n = pd_ir_alt2(ir, ends, pd_ir_seq2(ir, x->ldh, next));
    }
    if (k == 4) next4 = n;
    next = n;
  }
  uint32_t rest = pd__host_tail(ir, x, b - 1);
  if (next != PD_IR_NONE) rest = pd_ir_alt2(ir, rest, next);
  return pd_ir_seq2(ir, x->an, rest);
}

/* A host name of at most budget characters (1..PD__HOST_MAX): the rule H(budget),
 * which is how maxLength below 253 is exact for one. */
static pd_status pd__hostname(pd_sc *sc, uint32_t budget, uint32_t *node) {
  pd_ir *ir = &sc->ir;
  if (sc->host_rule == PD_IR_NONE) {
    static const uint32_t an[6] = {'0', '9', 'A', 'Z', 'a', 'z'}, hy[2] = {'-', '-'},
                          ldh[8] = {'-', '-', '0', '9', 'A', 'Z', 'a', 'z'}, dot[2] = {'.', '.'};
    uint32_t h[PD__HOST_MAX + 1];
    pd__host x = {pd__host_char(ir, an, 3), pd__host_char(ir, hy, 1),
                  pd__host_char(ir, ldh, 4), pd__host_char(ir, dot, 1), h};
    for (uint32_t b = 1; b <= PD__HOST_MAX; b++) h[b] = pd_ir_rule_fresh(ir, "host");
    for (uint32_t b = 1; b <= PD__HOST_MAX && !ir->oom; b++)
      pd_ir_rule_define(ir, h[b], pd__host_body(ir, &x, b));
    if (ir->oom) return pd__nomem(sc->err);
    sc->host_rule = h[1]; /* the rules H(1..253) are consecutive */
  }
  *node = pd_ir_ref(ir, sc->host_rule + budget - 1);
  return pd_sc_ir_status(sc);
}

#define PD__D2 "[0-9]{2}"
#define PD__TIME \
  "([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]+)?([zZ]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])"
#define PD__DATE                                                                            \
  "([0-9]{4}-((0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])|(0[469]|11)-(0[1-9]|[12][0-9]|30)|" \
  "02-(0[1-9]|1[0-9]|2[0-8]))|([0-9]{2}(0[48]|[2468][048]|[13579][26])|"                    \
  "([02468][048]|[13579][26])00)-02-29)"
#define PD__DUR_TIME "T([0-9]+H([0-9]+M([0-9]+S)?)?|[0-9]+M([0-9]+S)?|[0-9]+S)"
#define PD__H16 "[0-9a-fA-F]{1,4}"
#define PD__OCTET "(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
#define PD__IPV4 PD__OCTET "\\." PD__OCTET "\\." PD__OCTET "\\." PD__OCTET
#define PD__LS32 "(" PD__H16 ":" PD__H16 "|" PD__IPV4 ")"

#define PD__IPV6                                                                                  \
  "((" PD__H16 ":){6}" PD__LS32 "|::(" PD__H16 ":){5}" PD__LS32 "|(" PD__H16 ")?::(" PD__H16      \
  ":){4}" PD__LS32 "|((" PD__H16 ":){0,1}" PD__H16 ")?::(" PD__H16 ":){3}" PD__LS32 "|((" PD__H16 \
  ":){0,2}" PD__H16 ")?::(" PD__H16 ":){2}" PD__LS32 "|((" PD__H16 ":){0,3}" PD__H16              \
  ")?::" PD__H16 ":" PD__LS32 "|((" PD__H16 ":){0,4}" PD__H16 ")?::" PD__LS32 "|((" PD__H16       \
  ":){0,5}" PD__H16 ")?::" PD__H16 "|((" PD__H16 ":){0,6}" PD__H16 ")?::)"
/* RFC 3986, appendix A; the IRI forms (RFC 3987) are the same with ucschar
 * added to the unreserved characters (U) and iprivate to the query (Q). ABNF
 * literals are case-insensitive, hence [vV] for IPvFuture. */
#define PD__PCT "%[0-9A-Fa-f]{2}"
#define PD__UNRES_SUB "-A-Za-z0-9._~!$&'()*+,;="
#define PD__PCHAR_(U) "([" U ":@]|" PD__PCT ")"
#define PD__AUTHORITY_(U)                                                              \
  "(([" U ":]|" PD__PCT ")*@)?(\\[(" PD__IPV6 "|[vV][0-9A-Fa-f]+\\.[" U ":]+)\\]|([" U \
  "]|" PD__PCT ")*)(:[0-9]*)?"
#define PD__QUERY_FRAG_(U, Q) "(\\?(" PD__PCHAR_(U) "|[/?" Q "])*)?(#(" PD__PCHAR_(U) "|[/?])*)?"
#define PD__SEGMENTS_(U) "(/" PD__PCHAR_(U) "*)*"
#define PD__URI_(U, Q)                                                               \
  "[A-Za-z][A-Za-z0-9+.-]*:(//" PD__AUTHORITY_(U) PD__SEGMENTS_(U) "|/(" PD__PCHAR_( \
      U) "+" PD__SEGMENTS_(U) ")?|" PD__PCHAR_(U) "+" PD__SEGMENTS_(U) ")?" PD__QUERY_FRAG_(U, Q)
#define PD__RELATIVE_(U, Q)                                                       \
  "(//" PD__AUTHORITY_(U) PD__SEGMENTS_(U) "|/(" PD__PCHAR_(U) "+" PD__SEGMENTS_( \
      U) ")?|([" U "@]|" PD__PCT ")+" PD__SEGMENTS_(U) ")?" PD__QUERY_FRAG_(U, Q)
#define PD__URI PD__URI_(PD__UNRES_SUB, "")
#define PD__RELATIVE PD__RELATIVE_(PD__UNRES_SUB, "")
/* ucschar above the BMP (planes 1-13 less their last two code points, plane
 * 14 from E1000) and iprivate above the BMP (planes 15-16, same cut). */
#define PD__UCS_PLANES                                              \
  "\\u{10000}-\\u{1FFFD}\\u{20000}-\\u{2FFFD}\\u{30000}-\\u{3FFFD}" \
  "\\u{40000}-\\u{4FFFD}\\u{50000}-\\u{5FFFD}\\u{60000}-\\u{6FFFD}" \
  "\\u{70000}-\\u{7FFFD}\\u{80000}-\\u{8FFFD}\\u{90000}-\\u{9FFFD}" \
  "\\u{A0000}-\\u{AFFFD}\\u{B0000}-\\u{BFFFD}\\u{C0000}-\\u{CFFFD}" \
  "\\u{D0000}-\\u{DFFFD}\\u{E1000}-\\u{EFFFD}"
#define PD__PRIVATE_PLANES "\\u{F0000}-\\u{FFFFD}\\u{100000}-\\u{10FFFD}"
#define PD__IUNRES_SUB PD__UNRES_SUB "\\u00A0-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFEF" PD__UCS_PLANES
#define PD__IPRIVATE "\\uE000-\\uF8FF" PD__PRIVATE_PLANES
#define PD__IRI PD__URI_(PD__IUNRES_SUB, PD__IPRIVATE)
#define PD__IRELATIVE PD__RELATIVE_(PD__IUNRES_SUB, PD__IPRIVATE)
/* RFC 5321 4.1.2 Mailbox (no size limits: those are section 4.5.3, not the
 * syntax), with the address literals of 4.1.3 less General-address-literal
 * (its tags are an IANA registry, none but IPv6 registered). RFC 6531 adds
 * UTF8-non-ascii to atext and qtextSMTP; its U-label domains are not enforced
 * (IDNA2008 validity is not a regular language of manageable size), so
 * idn-email takes ASCII domains only (a documented false negative). */
#define PD__ATEXT "-A-Za-z0-9!#$%&'*+/=?^_`{|}~" /* '-' first: X may follow */
#define PD__QTEXT " !#-\\[\\]-~"
#define PD__LOCAL_(X) \
  "([" PD__ATEXT X "]+(\\.[" PD__ATEXT X "]+)*|\"([" PD__QTEXT X "]|\\\\[ -~])*\")"
#define PD__DOMAIN_5321                                                                 \
  "([A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*" \
  "|\\[(" PD__IPV4 "|IPv6:" PD__IPV6 ")\\])"
#define PD__NON_ASCII "\\u0080-\\uD7FF\\uE000-\\u{10FFFF}"
#define PD__EMAIL PD__LOCAL_("") "@" PD__DOMAIN_5321
#define PD__IDN_EMAIL PD__LOCAL_(PD__NON_ASCII) "@" PD__DOMAIN_5321
/* RFC 6570 (with the errata that let "'" be a literal): ucschar and iprivate. */
#define PD__UCS_HIGH PD__UCS_PLANES PD__PRIVATE_PLANES
#define PD__VARCHAR "([A-Za-z0-9_]|" PD__PCT ")"
#define PD__VARSPEC PD__VARCHAR "(\\.?" PD__VARCHAR ")*(:[1-9][0-9]{0,3}|\\*)?"
#define PD__URI_TEMPLATE                                                              \
  "([!#$&'()*+,\\-./0-9:;=?@A-Z\\[\\]_a-z~\\u00A0-\\uD7FF\\uE000-\\uFDCF\\uFDF0-\\uFFEF" \
  PD__UCS_HIGH "]|" PD__PCT "|\\{[+#./;?&=,!@|]?" PD__VARSPEC "(," PD__VARSPEC ")*\\})*"

static const pd__format pd__formats[] = {
    {"date", PD__DATE},
    {"time", PD__TIME},
    {"date-time", PD__DATE "[tT]" PD__TIME},
    {"duration", "P(([0-9]+D|[0-9]+M([0-9]+D)?|[0-9]+Y([0-9]+M([0-9]+D)?)?)(" PD__DUR_TIME
                 ")?|" PD__DUR_TIME "|[0-9]+W)"},
    {"uuid", "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"},
    {"ipv4", PD__IPV4},
    {"ipv6", PD__IPV6},
    {"uri", PD__URI},
    {"uri-reference", "(" PD__URI "|" PD__RELATIVE ")"},
    {"uri-template", PD__URI_TEMPLATE},
    {"json-pointer", "(/([^~/]|~[01])*)*"},
    {"relative-json-pointer", "(0|[1-9][0-9]*)(#|(/([^~/]|~[01])*)*)"},
    {"email", PD__EMAIL},
    {"idn-email", PD__IDN_EMAIL},
    {"hostname", ""}, /* "": built by pd__hostname */
    {"idn-hostname", NULL},
    {"iri", PD__IRI},
    {"iri-reference", "(" PD__IRI "|" PD__IRELATIVE ")"},
    {"regex", NULL},
};

/* The regex enforcing format node f; NULL when the format is unknown (an
 * annotation). *known_only when known but not enforceable. */
static const char *pd__format_regex(pd_sc *sc, uint32_t f, bool *refused) {
  *refused = false;
  if (pd_json_at(&sc->doc, f)->kind != PD_JSON_STRING) return NULL;
  for (size_t i = 0; i < sizeof pd__formats / sizeof pd__formats[0]; i++)
    if (pd_json_str_eq(&sc->doc, f, pd__formats[i].name)) {
      *refused = pd__formats[i].regex == NULL;
      return pd__formats[i].regex;
    }
  return NULL;
}

int pd_sc_format_kind(pd_sc *sc, uint32_t f) {
  bool refused;
  const char *re = pd__format_regex(sc, f, &refused);
  return re && *re ? 1 : re || refused ? 2 : 0;
}

/* ------------------------------------------------------------ the string type */

static pd_status pd__regex(pd_sc *sc, uint32_t at, const char *re, size_t len, bool search,
                           uint32_t *node) {
  pd_regex_target t = {pd_sc_jchar, NULL};
  pd_error e;
  pd_status st = pd_regex_to_ir(&sc->ir, re, len, &t, search, &sc->opts, node, &e);
  if (st == PD_ERR_NOMEM) return pd__nomem(sc->err);
  if (st == PD_ERR_UNSUPPORTED) {
    /* lenient: dropped, so any string body (the node was left unset, and
     * found by fuzz_schema where a length went on to count it) */
    *node = pd_ir_repeat(&sc->ir, pd__char(sc), 0, PD_IR_INF);
    return pd_sc_unsupported(sc, at, "pattern", e.message);
  }
  if (st) return pd_sc_fail(sc, st, at, "pattern: %s", e.message);
  return PD_OK;
}

pd_status pd_sc_pattern_key(pd_sc *sc, uint32_t pattern, uint32_t *node) {
  uint32_t inner;
  pd_status st = pd__regex(sc, pattern, pd_json_str(&sc->doc, pattern),
                           pd_json_at(&sc->doc, pattern)->n, true, &inner);
  if (st) return st;
  *node = pd__quoted(sc, inner);
  return pd_sc_ir_status(sc);
}

/* Runs the compiled search grammar of the pattern over s. */
static pd_status pd__pattern_run(pd_sc *sc, pd_ir *ir, const char *s, size_t n, bool *match) {
  pd_grammar *g = NULL;
  pd_matcher *m = NULL;
  pd_error e;
  pd_status st = pd_grammar_from_ir(ir, NULL, &sc->opts, &g, &e);
  *match = false;
  if (st == PD_ERR_SEMANTIC) return PD_OK; /* a pattern matching nothing */
  if (st)
    return st == PD_ERR_NOMEM ? pd__nomem(sc->err)
                              : pd__fail(sc->err, st, "pattern: %s", e.message);
  if ((st = pd_matcher_new(g, &m, NULL))) {
    pd_grammar_free(g);
    return pd__nomem(sc->err);
  }
  *match = pd_matcher_accept_bytes(m, (const uint8_t *)s, n, NULL, NULL) == PD_OK &&
           pd_matcher_is_accepting(m);
  pd_matcher_free(m);
  pd_grammar_free(g);
  return PD_OK;
}

/* Runs node, the whole of ir's language, over s. */
static pd_status pd__regex_run(pd_sc *sc, pd_ir *ir, uint32_t node, const char *s, size_t n,
                               bool *match) {
  pd_ir_set_root(ir, node);
  return ir->oom ? pd__nomem(sc->err) : pd__pattern_run(sc, ir, s, n, match);
}

pd_status pd_sc_pattern_test(pd_sc *sc, uint32_t pattern, const char *s, size_t n, bool *match) {
  pd_ir ir;
  pd_ir_init(&ir, sc->ir.alloc);
  uint32_t node;
  pd_error e;
  pd_status st = pd_regex_to_ir(&ir, pd_json_str(&sc->doc, pattern),
                                pd_json_at(&sc->doc, pattern)->n, NULL, true, &sc->opts, &node, &e);
  if (st == PD_ERR_NOMEM)
    st = pd__nomem(sc->err);
  else if (st == PD_ERR_UNSUPPORTED)
    st = pd_sc_unsupported(sc, pattern, "patternProperties", e.message), *match = false;
  else if (st)
    st = pd_sc_fail(sc, st, pattern, "pattern: %s", e.message);
  else
    st = pd__regex_run(sc, &ir, node, s, n, match);
  pd_ir_free(&ir);
  return st;
}

pd_status pd_sc_string_meets(pd_sc *sc, const char *name, uint32_t x, const char *s, size_t n,
                             bool *known, bool *match) {
  bool search = strcmp(name, "pattern") == 0, refused;
  *known = *match = false;
  if (!search && strcmp(name, "format") != 0) return PD_OK;
  if (pd_json_at(&sc->doc, x)->kind != PD_JSON_STRING) return PD_OK;
  const char *re = search ? pd_json_str(&sc->doc, x) : pd__format_regex(sc, x, &refused);
  if (!re || (!search && !*re)) return PD_OK; /* a format without a regex (hostname: built) */
  pd_ir ir;
  pd_ir_init(&ir, sc->ir.alloc);
  uint32_t node;
  pd_error e;
  pd_status st = pd_regex_to_ir(&ir, re, search ? pd_json_at(&sc->doc, x)->n : strlen(re), NULL,
                                search, &sc->opts, &node, &e);
  if (st == PD_ERR_NOMEM)
    st = pd__nomem(sc->err);
  else if (st)
    st = PD_OK; /* a pattern the front end refuses: not decided here */
  else if ((st = pd__regex_run(sc, &ir, node, s, n, match)) == PD_OK)
    *known = true;
  pd_ir_free(&ir);
  return st;
}

pd_status pd_sc_patterns_meet(pd_sc *sc, uint32_t pa, uint32_t pb, bool *known, bool *meet) {
  *known = *meet = false;
  if (pd_json_at(&sc->doc, pa)->kind != PD_JSON_STRING ||
      pd_json_at(&sc->doc, pb)->kind != PD_JSON_STRING)
    return PD_OK;
  const char *pats[2] = {pd_json_str(&sc->doc, pa), pd_json_str(&sc->doc, pb)};
  size_t lens[2] = {pd_json_at(&sc->doc, pa)->n, pd_json_at(&sc->doc, pb)->n};
  pd_regex_dfa d;
  pd_error e;
  pd_status st = pd_regex_dfa_build(pats, lens, 2, NULL, NULL, 0, &sc->opts, sc->ir.alloc, &d, &e);
  if (st == PD_ERR_NOMEM) return pd__nomem(sc->err);
  if (st) return PD_OK; /* refused or too large: not decided */
  *known = true; /* every state is reachable: one labeled with both reads a common match */
  for (uint32_t q = 0; q < d.n_states && !*meet; q++) *meet = (d.label[q] & 3u) == 3u;
  pd_regex_dfa_free(&d);
  return PD_OK;
}

/* A pattern (a search) or a format (its regex matches the whole string). */
typedef struct pd__rxkw {
  uint32_t at;    /* the keyword's value */
  bool search;    /* a pattern */
  const char *re; /* "" for hostname (built by pd__hostname) */
  size_t len;
} pd__rxkw;

#define PD__MAX_RX 8 /* distinct patterns and formats on one string */

/* Collects the distinct patterns and formats of the conj. */
static pd_status pd__string_regexes(pd_sc *sc, const pd_sc_conj *c, pd__rxkw *rx, size_t *n) {
  pd_status st;
  *n = 0;
  for (size_t i = 0; i < c->n; i++) {
    uint32_t p = pd_sc_kw(sc, c, i, "pattern"), f = pd_sc_kw(sc, c, i, "format");
    bool refused;
    const char *fre = f != PD_JSON_NONE ? pd__format_regex(sc, f, &refused) : NULL;
    if (f != PD_JSON_NONE && !fre) {
      if (refused && (st = pd_sc_unsupported(sc, f, "format", "format not implemented"))) return st;
      f = PD_JSON_NONE;
    }
    if (p != PD_JSON_NONE && pd_json_at(&sc->doc, p)->kind != PD_JSON_STRING)
      return pd_sc_fail(sc, PD_ERR_SEMANTIC, p, "'pattern' must be a string");
    pd__rxkw found[2] = {{p, true, p != PD_JSON_NONE ? pd_json_str(&sc->doc, p) : NULL,
                          p != PD_JSON_NONE ? pd_json_at(&sc->doc, p)->n : 0},
                         {f, false, fre, fre ? strlen(fre) : 0}};
    for (int k = 0; k < 2; k++) {
      if (found[k].at == PD_JSON_NONE) continue;
      bool dup = false;
      for (size_t j = 0; j < *n && !dup; j++)
        dup = rx[j].search == found[k].search && pd_json_equal(&sc->doc, rx[j].at, found[k].at);
      if (dup) continue;
      if (*n == PD__MAX_RX) {
        if ((st = pd_sc_unsupported(sc, found[k].at, k ? "format" : "pattern",
                                    "more than 8 patterns/formats on one string")))
          return st;
        continue;
      }
      rx[(*n)++] = found[k];
    }
  }
  return PD_OK;
}

#define PD__COUNT_BUDGET 4096u /* automaton states of the patterns times the counted lengths */

/* Whether the patterns and formats rx[0..n) together, cut to min..max
 * characters (when bounded), make a product automaton small enough: their
 * automaton over code points, which follows all of them at once, times the
 * counts it must tell apart (up to max, or min when there is none) within
 * PD__COUNT_BUDGET. The automaton over bytes is some ten times that (a JSON
 * character is some 20 states), built and minimized at compile time, and
 * every state is one the masks classify. */
static pd_status pd__rx_fits(pd_sc *sc, const pd__rxkw *rx, size_t n, uint32_t min, uint32_t max,
                             bool *small) {
  *small = false;
  bool bounded = min > 0 || max != PD_IR_INF;
  uint64_t counts = bounded ? (uint64_t)(max == PD_IR_INF ? min : max) + 1 : 1;
  if (counts > PD__COUNT_BUDGET) return PD_OK;
  const char *res[PD__MAX_RX] = {0};
  size_t lens[PD__MAX_RX] = {0};
  char *wrapped[PD__MAX_RX] = {0}; /* a format matches the whole string: anchored as a search */
  pd_status st = PD_OK;
  bool built = true;
  for (size_t i = 0; i < n && !st && built; i++) {
    res[i] = rx[i].re, lens[i] = rx[i].len;
    built = rx[i].len > 0; /* hostname: no regex */
    if (rx[i].search || !built) continue;
    if (!(wrapped[i] = pd__malloc(sc->ir.alloc, rx[i].len + 8))) {
      st = pd__nomem(sc->err);
      break;
    }
    memcpy(wrapped[i], "^(?:", 4);
    memcpy(wrapped[i] + 4, rx[i].re, rx[i].len);
    memcpy(wrapped[i] + 4 + rx[i].len, ")$", 2);
    res[i] = wrapped[i], lens[i] += 6;
  }
  pd_regex_dfa d;
  pd_error e;
  pd_status b = st || !built ? PD_ERR_UNSUPPORTED
                             : pd_regex_dfa_build(res, lens, (uint32_t)n, NULL, NULL, 0, &sc->opts,
                                                  sc->ir.alloc, &d, &e);
  for (size_t i = 0; i < n; i++) pd__free(sc->ir.alloc, wrapped[i]);
  if (st) return st;
  if (b == PD_ERR_NOMEM) return pd__nomem(sc->err);
  if (b) return PD_OK; /* no automaton of them: not small */
  *small = (uint64_t)d.n_states * counts <= PD__COUNT_BUDGET;
  pd_regex_dfa_free(&d);
  return PD_OK;
}

/* The body of a string under the patterns and formats rx[0..n) (n >= 1)
 * and the lengths min..max: one pattern cut to the lengths on its structure
 * (pd_regex_to_ir_len) where it can be; else the patterns intersected and
 * their characters counted, as one product automaton (pd_ir_and,
 * pd_ir_and_count), when that stays small; else for one pattern or format
 * the characters past the minimum counted by the matcher (pd_ir_counted);
 * else refused (lenient: the first pattern alone, or the length dropped). */
static pd_status pd__matching(pd_sc *sc, const pd_sc_conj *c, const pd__rxkw *rx, size_t n,
                              uint32_t min, uint32_t max, uint32_t *node) {
  bool bounded = min > 0 || max != PD_IR_INF;
  uint32_t inner;
  pd_status st;
  if (n == 1 && !rx[0].search && !rx[0].len && min <= 1) {
    /* a host name has 1 to 253 characters; a lower maximum is its budget */
    if (max == 0) return *node = pd_ir_nothing(&sc->ir), pd_sc_ir_status(sc);
    if ((st = pd__hostname(sc, max < PD__HOST_MAX ? max : PD__HOST_MAX, &inner))) return st;
    *node = pd__quoted(sc, inner);
    return pd_sc_ir_status(sc);
  }
  if (n == 1 && bounded && rx[0].len) {
    pd_regex_target t = {pd_sc_jchar, NULL};
    pd_error e;
    st = pd_regex_to_ir_len(&sc->ir, rx[0].re, rx[0].len, &t, rx[0].search, min, max, &sc->opts,
                            &inner, &e);
    if (st == PD_ERR_NOMEM) return pd__nomem(sc->err);
    if (st == PD_OK) {
      *node = pd__quoted(sc, inner);
      return pd_sc_ir_status(sc);
    }
  }
  bool small = true;
  if ((n > 1 || bounded) && (st = pd__rx_fits(sc, rx, n, min, max, &small))) return st;
  if (!small && n > 1) {
    st = pd_sc_unsupported(sc, rx[1].at, rx[1].search ? "pattern" : "format",
                           "two patterns/formats on one string");
    if (st) return st;
    return pd__matching(sc, c, rx, 1, min, max, node); /* lenient: the first alone */
  }
  bool counted = false; /* the maximum counted by the matcher, the minimum in the product */
  if (!small && n == 1 && rx[0].len && max != PD_IR_INF && max >= min) { /* not hostname's */
    counted = true;
    if (min > 0 && (st = pd__rx_fits(sc, rx, n, min, PD_IR_INF, &counted))) return st;
    small = counted;
  }
  if (!small) {
    uint32_t where = pd_sc_kw(sc, c, 0, min > 0 ? "minLength" : "maxLength");
    st = pd_sc_unsupported(sc, where == PD_JSON_NONE ? rx[0].at : where,
                           min > 0 ? "minLength" : "maxLength", "length with pattern/format");
    if (st) return st;
    bounded = false; /* lenient: the length dropped */
  }
  inner = PD_IR_NONE;
  for (size_t i = 0; i < n; i++) {
    uint32_t one;
    st = !rx[i].search && !rx[i].len ? pd__hostname(sc, PD__HOST_MAX, &one)
                                     : pd__regex(sc, rx[i].at, rx[i].re, rx[i].len, rx[i].search,
                                                 &one);
    if (st) return st;
    inner = i ? pd_ir_and(&sc->ir, inner, one) : one;
  }
  *node = pd__cut(sc, inner, bounded, min, max, counted);
  return pd_sc_ir_status(sc);
}

/* Most characters of a minimum beside negations: the difference's product
 * with the count has a copy of it per character counted. */
#define PD__NEG_MIN_MAX 32u

/* The derived negations of conj c (negated string constants, negated
 * patterns): the strings of its one pattern or format, or any string, that
 * none of them takes, as one difference of automata (*done), cut to the
 * lengths as pd__matching cuts a pattern (a product counting characters to
 * the minimum, the maximum counted by the matcher when far past it). Beside
 * more patterns, a host name or a minimum over PD__NEG_MIN_MAX they are
 * refused (lenient: dropped, *done false). */
static pd_status pd__negations(pd_sc *sc, const pd_sc_conj *c, const pd__rxkw *rx, size_t n_rx,
                               uint32_t min, uint32_t max, uint32_t *node, bool *done) {
  pd_ir *ir = &sc->ir;
  uint32_t where = PD_JSON_NONE, inner;
  PD_ARRAY(uint32_t) neg = {0}; /* one list of what is taken out, however many */
  pd_status st = PD_OK;
  *done = false;
  for (size_t i = 0; i < c->n && !st; i++) {
    uint32_t m = pd_sc_member(sc, c, i), list = pd_sc_derived_kw(sc, m, PD_SC_NOT_IN);
    uint32_t pat = pd_sc_derived_kw(sc, m, PD_SC_NOT_PATTERN);
    uint32_t fmt = pd_sc_derived_kw(sc, m, PD_SC_NOT_FORMAT);
    bool refused;
    const char *fre = fmt != PD_JSON_NONE ? pd__format_regex(sc, fmt, &refused) : NULL;
    if (fre && *fre) { /* made only for a format with a regex (pd_sc_format_kind) */
      st = pd__regex(sc, fmt, fre, strlen(fre), false, &inner);
      if (!st && !pd_array_push(ir->alloc, &neg, inner)) st = pd__nomem(sc->err);
      where = fmt;
    }
    for (uint32_t k = 0; list != PD_JSON_NONE && k < pd_json_len(&sc->doc, list); k++) {
      uint32_t x = pd_json_elem(&sc->doc, list, k);
      uint32_t spelled = pd__spelled(sc, pd_json_str(&sc->doc, x), pd_json_at(&sc->doc, x)->n);
      if (!pd_array_push(ir->alloc, &neg, spelled)) st = pd__nomem(sc->err);
      where = list;
    }
    if (pat == PD_JSON_NONE || st) continue;
    st = pd__regex(sc, pat, pd_json_str(&sc->doc, pat), pd_json_at(&sc->doc, pat)->n, true, &inner);
    if (!st && !pd_array_push(ir->alloc, &neg, inner)) st = pd__nomem(sc->err);
    where = pat;
  }
  uint32_t taken = st ? PD_IR_NONE : pd_ir_alt(ir, neg.data, neg.len);
  pd_array_free(ir->alloc, &neg);
  if (st || where == PD_JSON_NONE) return st ? st : pd_sc_ir_status(sc);
  if (n_rx > 1 || (n_rx && !rx[0].len) || min > PD__NEG_MIN_MAX) {
    for (size_t i = 0; i < c->n && !n_rx; i++)
      if ((where = pd_sc_kw(sc, c, i, "minLength")) != PD_JSON_NONE ||
          (where = pd_sc_kw(sc, c, i, "maxLength")) != PD_JSON_NONE)
        break;
    return pd_sc_unsupported(sc, n_rx ? rx[n_rx - 1].at : where, "not",
                             "a negated string constant or pattern with other string keywords");
  }
  uint32_t from = pd_ir_repeat(ir, pd__char(sc), 0, PD_IR_INF);
  if (n_rx && (st = pd__regex(sc, rx[0].at, rx[0].re, rx[0].len, rx[0].search, &from))) return st;
  *node = pd__cut(sc, pd_ir_diff(ir, from, taken), min > 0 || max != PD_IR_INF, min, max,
                  pd__far(min, max));
  *done = true;
  return pd_sc_ir_status(sc);
}

pd_status pd_sc_string(pd_sc *sc, const pd_sc_conj *c, uint32_t *node) {
  uint32_t min, max;
  pd__rxkw rx[PD__MAX_RX];
  size_t n_rx;
  pd_status st;
  if ((st = pd_sc_bound(sc, c, "minLength", false, &min)) ||
      (st = pd_sc_bound(sc, c, "maxLength", true, &max)) ||
      (st = pd__string_regexes(sc, c, rx, &n_rx)))
    return st;
  bool negated = false;
  if ((st = pd__negations(sc, c, rx, n_rx, min, max, node, &negated)) || negated) return st;
  if (n_rx) return pd__matching(sc, c, rx, n_rx, min, max, node);
  if (min > sc->opts.max_repeat || (max != PD_IR_INF && max > sc->opts.max_repeat))
    return pd__fail(sc->err, PD_ERR_LIMIT, "string length bound over max_repeat (%u)",
                    sc->opts.max_repeat);
  if (min == 0 && max == PD_IR_INF) {
    *node = pd_sc_any_string(sc);
  } else if (pd__far(min, max) && min <= PD__HEAD_INSIDE) {
    /* the characters counted by the matcher: as copies, each position was a
     * configuration of its own, and a mask inside a long string cost 0.1-1 ms
     * at every token. The minimum's are counted too, written out (repeated,
     * they would become helper rules, repeat.c, which a counted rule cannot
     * call): before the counted rule's call, each of their states had a class
     * of its own made by the local Earley parse over most of the vocabulary
     * (5-10 ms each); inside, they call nothing (a trie walk of the automaton)
     * and every schema with that minimum shares them. */
    uint32_t seq[PD__HEAD_INSIDE + 1];
    for (uint32_t i = 0; i < min; i++) seq[i] = pd__char(sc);
    seq[min] = pd_ir_repeat(&sc->ir, pd__char(sc), 0, PD_IR_INF);
    *node = pd__quoted(sc, pd_ir_counted(&sc->ir, pd_ir_seq(&sc->ir, seq, (size_t)min + 1), max));
  } else if (pd__far(min, max)) { /* a longer minimum as helper rules, before the count */
    uint32_t head = pd_ir_repeat(&sc->ir, pd__char(sc), min, min);
    uint32_t any = pd_ir_repeat(&sc->ir, pd__char(sc), 0, PD_IR_INF);
    *node = pd__quoted(sc, pd_ir_seq2(&sc->ir, head, pd_ir_counted(&sc->ir, any, max - min)));
  } else {
    *node = pd__quoted(sc, pd_ir_repeat(&sc->ir, pd__char(sc), min, max));
  }
  return pd_sc_ir_status(sc);
}
