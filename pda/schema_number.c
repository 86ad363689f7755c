/* schema_number.c - numbers: literals by value, and minimum / maximum /
 * exclusive bounds / multipleOf as exact languages over decimal text.
 *
 * Bounded numbers are written without an exponent (a documented false
 * negative: "1e2" is refused where a bound applies) unless the bounds are
 * zero (then the sign tells the side, pd__exp_forms); "integer" accepts an
 * integral value written as digits with an optional ".0+" tail (no tail under
 * a draft-04 "$schema", whose integers are written without a fraction), and
 * unbounded, times a power of ten that is not negative ("1e+20"); numbers
 * that are not integers take their exponent forms that keep a fraction digit
 * (pd__frac_number); the other spellings are documented false negatives. Bounds are
 * decimal strings of any length, compared digit by digit, never as doubles.
 * A literal (a const or an enum member) is written plainly, with any trailing
 * zeros, or in normalized scientific notation (pd__sci_literal); its other
 * spellings with an exponent ("10e-7" for 1e-06) are a documented false negative.
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "pda/schema_ctx.h"

/* Decimal bounds longer than this (1e5000) are refused rather than expanded. */
#define PD__MAX_DIGITS 1000

/* A non-negative decimal: integer part ip (canonical: no leading zeros, "0"
 * for zero) and fraction fp (no trailing zeros). */
typedef struct pd__dec {
  char ip[PD__MAX_DIGITS + 2], fp[PD__MAX_DIGITS + 2];
  bool neg;
} pd__dec;

/* A bound: value, exclusive flag; inf = no bound. */
typedef struct pd__bound {
  pd__dec v;
  bool excl, inf;
} pd__bound;

static uint32_t pd__digit(pd_ir *ir, int lo, int hi) {
  uint32_t p[2] = {(uint32_t)('0' + lo), (uint32_t)('0' + hi)};
  return lo > hi ? pd_ir_nothing(ir) : pd_ir_class(ir, p, 1, false);
}

static uint32_t pd__digits(pd_ir *ir, uint32_t min, uint32_t max) {
  return pd_ir_repeat(ir, pd__digit(ir, 0, 9), min, max);
}

/* "-"? */
static uint32_t pd__opt_minus(pd_ir *ir) { return pd_ir_repeat(ir, pd_ir_bytes(ir, "-", 1), 0, 1); }

/* A natural number in canonical writing: "0" | [1-9] [0-9]* */
static uint32_t pd__natural(pd_ir *ir) {
  return pd_ir_alt2(ir, pd_ir_bytes(ir, "0", 1),
                    pd_ir_seq2(ir, pd__digit(ir, 1, 9), pd__digits(ir, 0, PD_IR_INF)));
}

/* From a parsed number: false when it has more than PD__MAX_DIGITS digits. */
static bool pd__dec_from(const pd_json_dec *d, pd__dec *out) {
  int64_t e = d->exp, n = (int64_t)d->n;
  if (e > PD__MAX_DIGITS || e < -PD__MAX_DIGITS || n > PD__MAX_DIGITS) return false;
  size_t ii = 0, fi = 0;
  for (int64_t k = 0; k < e; k++) out->ip[ii++] = k < n ? d->digits[k] : '0';
  if (ii == 0) out->ip[ii++] = '0';
  for (int64_t k = e < 0 ? e : 0; k < 0; k++) out->fp[fi++] = '0';
  for (int64_t k = e > 0 ? e : 0; k < n; k++) out->fp[fi++] = d->digits[k];
  out->ip[ii] = out->fp[fi] = '\0';
  out->neg = d->neg;
  return true;
}

/* ------------------------------------------------------------ digit strings */

/* Adds delta (+1 / -1) to the canonical integer string s in place; s > 0 for -1. */
static void pd__step(char *s, int delta) {
  size_t n = strlen(s);
  if (delta > 0) {
    size_t i = n;
    while (i > 0 && s[i - 1] == '9') s[--i] = '0';
    if (i == 0) {
      memmove(s + 1, s, n + 1);
      s[0] = '1';
    } else {
      s[i - 1]++;
    }
    return;
  }
  size_t i = n;
  while (i > 0 && s[i - 1] == '0') s[--i] = '9';
  if (i == 0) return; /* s was 0, which the callers never pass */
  s[i - 1]--;
  if (s[0] == '0' && n > 1) memmove(s, s + 1, n);
}

static int pd__icmp(const char *a, const char *b) {
  size_t x = strlen(a), y = strlen(b);
  if (x != y) return x < y ? -1 : 1;
  int c = strcmp(a, b);
  return (c > 0) - (c < 0);
}

/* Digit strings of length k between lo and hi (both length k, lo <= hi). */
static uint32_t pd__same_len(pd_ir *ir, const char *lo, const char *hi, size_t k) {
  if (k == 0) return pd_ir_empty(ir);
  int l = lo[0] - '0', h = hi[0] - '0';
  if (l == h) return pd_ir_seq2(ir, pd__digit(ir, l, l), pd__same_len(ir, lo + 1, hi + 1, k - 1));
  bool lo_zeros = strspn(lo + 1, "0") == k - 1, hi_nines = strspn(hi + 1, "9") == k - 1;
  uint32_t alts[3], n = 0;
  char *buf = pd__malloc(ir->alloc, k + 1);
  if (!buf) {
    ir->oom = true;
    return PD_IR_NONE;
  }
  if (!lo_zeros) {
    memset(buf, '9', k - 1);
    buf[k - 1] = '\0';
    alts[n++] = pd_ir_seq2(ir, pd__digit(ir, l, l), pd__same_len(ir, lo + 1, buf, k - 1));
  }
  if (!hi_nines) {
    memset(buf, '0', k - 1);
    buf[k - 1] = '\0';
    alts[n++] = pd_ir_seq2(ir, pd__digit(ir, h, h), pd__same_len(ir, buf, hi + 1, k - 1));
  }
  int first = lo_zeros ? l : l + 1, last = hi_nines ? h : h - 1;
  if (first <= last)
    alts[n++] = pd_ir_seq2(ir, pd__digit(ir, first, last),
                           pd__digits(ir, (uint32_t)k - 1, (uint32_t)k - 1));
  pd__free(ir->alloc, buf);
  return pd_ir_alt(ir, alts, n);
}

/* Canonical integers (no leading zeros) in [a, b]; b NULL = no upper bound. */
static uint32_t pd__int_range(pd_ir *ir, const char *a, const char *b) {
  if (b && pd__icmp(a, b) > 0) return pd_ir_nothing(ir);
  size_t la = strlen(a), lb = b ? strlen(b) : SIZE_MAX;
  size_t cap = (b ? lb : la) + 2; /* lo holds a length-lb bound, hi a length-la one */
  char *lo = pd__malloc(ir->alloc, cap), *hi = pd__malloc(ir->alloc, cap);
  uint32_t acc = pd_ir_nothing(ir);
  if (!lo || !hi) {
    ir->oom = true;
    acc = PD_IR_NONE;
    goto out;
  }
  memset(hi, '9', la);
  hi[la] = '\0';
  acc = pd__same_len(ir, a, la == lb ? b : hi, la); /* length la */
  if (la == lb) goto out;
  if (!b || lb > la + 1) { /* lengths la+1 .. lb-1 (or unbounded) */
    uint32_t max = b ? (uint32_t)(lb - 2) : PD_IR_INF;
    acc =
        pd_ir_alt2(ir, acc, pd_ir_seq2(ir, pd__digit(ir, 1, 9), pd__digits(ir, (uint32_t)la, max)));
  }
  if (b) { /* length lb, from 10..0 */
    memset(lo, '0', lb);
    lo[0] = '1';
    lo[lb] = '\0';
    acc = pd_ir_alt2(ir, acc, pd__same_len(ir, lo, b, lb));
  }
out:
  pd__free(ir->alloc, lo);
  pd__free(ir->alloc, hi);
  return acc;
}

/* ------------------------------------------------------------ fractions */

/* Digit strings s (maybe empty) with 0.s >= 0.d (excl: >). */
static uint32_t pd__frac_ge(pd_ir *ir, const char *d, bool excl) {
  if (!*d)
    return excl ? pd_ir_seq2(ir, pd__digits(ir, 0, PD_IR_INF),
                             pd_ir_seq2(ir, pd__digit(ir, 1, 9), pd__digits(ir, 0, PD_IR_INF)))
                : pd__digits(ir, 0, PD_IR_INF);
  int c = d[0] - '0';
  return pd_ir_alt2(ir, pd_ir_seq2(ir, pd__digit(ir, c + 1, 9), pd__digits(ir, 0, PD_IR_INF)),
                    pd_ir_seq2(ir, pd__digit(ir, c, c), pd__frac_ge(ir, d + 1, excl)));
}

/* Non-empty digit strings s with 0.s <= 0.d (excl: <). */
static uint32_t pd__frac_le1(pd_ir *ir, const char *d, bool excl);

/* Digit strings s (maybe empty) with 0.s <= 0.d (excl: <). */
static uint32_t pd__frac_le(pd_ir *ir, const char *d, bool excl) {
  if (!*d) return excl ? pd_ir_nothing(ir) : pd_ir_repeat(ir, pd__digit(ir, 0, 0), 0, PD_IR_INF);
  return pd_ir_alt2(ir, pd_ir_empty(ir), pd__frac_le1(ir, d, excl));
}

static uint32_t pd__frac_le1(pd_ir *ir, const char *d, bool excl) {
  if (!*d) return excl ? pd_ir_nothing(ir) : pd_ir_repeat(ir, pd__digit(ir, 0, 0), 1, PD_IR_INF);
  int c = d[0] - '0';
  return pd_ir_alt2(ir, pd_ir_seq2(ir, pd__digit(ir, 0, c - 1), pd__digits(ir, 0, PD_IR_INF)),
                    pd_ir_seq2(ir, pd__digit(ir, c, c), pd__frac_le(ir, d + 1, excl)));
}

static uint32_t pd__dot(pd_ir *ir, uint32_t frac) {
  return pd_ir_seq2(ir, pd_ir_bytes(ir, ".", 1), frac);
}

/* ------------------------------------------------------------ non-negative ranges */

typedef struct pd__numctx {
  pd_sc *sc;
  bool integer;  /* integral values only: fractions are ".0+" */
  uint32_t at;   /* keyword node for errors */
  bool int_type; /* the type is "integer" (draft-04: no fraction at all) */
} pd__numctx;

/* Optional fraction of any value (or ".0+" for integers). */
static uint32_t pd__any_frac(pd__numctx *nc) {
  pd_ir *ir = &nc->sc->ir;
  if (nc->integer && nc->int_type && nc->sc->int_no_frac) return pd_ir_empty(ir);
  uint32_t f = nc->integer ? pd_ir_repeat(ir, pd__digit(ir, 0, 0), 1, PD_IR_INF)
                           : pd__digits(ir, 1, PD_IR_INF);
  return pd_ir_repeat(ir, pd__dot(ir, f), 0, 1);
}

/* Integer part exactly ip, then fraction >= / > fp. */
static uint32_t pd__at_low(pd__numctx *nc, const pd__bound *a) {
  pd_ir *ir = &nc->sc->ir;
  uint32_t head = pd_ir_bytes(ir, a->v.ip, strlen(a->v.ip)), tail;
  if (nc->integer)
    tail = a->excl || a->v.fp[0] ? pd_ir_nothing(ir) : pd__any_frac(nc);
  else if (!a->v.fp[0] && !a->excl)
    tail = pd__any_frac(nc);
  else
    tail = pd__dot(ir, pd__frac_ge(ir, a->v.fp, a->excl));
  return pd_ir_seq2(ir, head, tail);
}

/* Integer part exactly ip, then fraction <= / < fp, or none. */
static uint32_t pd__at_high(pd__numctx *nc, const pd__bound *b) {
  pd_ir *ir = &nc->sc->ir;
  uint32_t head = pd_ir_bytes(ir, b->v.ip, strlen(b->v.ip)), tail;
  if (!b->v.fp[0] && b->excl) return pd_ir_nothing(ir);
  if (nc->integer || !b->v.fp[0])
    tail = pd__any_frac(&(pd__numctx){nc->sc, true, nc->at, nc->int_type});
  else
    tail = pd_ir_repeat(ir, pd__dot(ir, pd__frac_le1(ir, b->v.fp, b->excl)), 0, 1);
  return pd_ir_seq2(ir, head, tail);
}

static int pd__dcmp(const pd__dec *a, const pd__dec *b) {
  int c = pd__icmp(a->ip, b->ip);
  return c ? c : strcmp(a->fp, b->fp) < 0 ? -1 : strcmp(a->fp, b->fp) > 0;
}

/* Non-negative values in [a, b] (b->inf: unbounded), written without sign. */
static pd_status pd__nonneg(pd__numctx *nc, const pd__bound *a, const pd__bound *b,
                            uint32_t *node) {
  pd_ir *ir = &nc->sc->ir;
  int cmp = b->inf ? -1 : pd__dcmp(&a->v, &b->v);
  if (cmp > 0 || (cmp == 0 && (a->excl || b->excl))) {
    *node = pd_ir_nothing(ir);
    return PD_OK;
  }
  int icmp = b->inf ? -1 : pd__icmp(a->v.ip, b->v.ip);
  if (icmp == 0) { /* one integer part: the fraction has two bounds */
    if (a->v.fp[0] || a->excl)
      return pd_sc_unsupported(nc->sc, nc->at, "minimum", "both bounds inside one unit interval");
    *node = pd__at_high(nc, b);
    return PD_OK;
  }
  char lo[PD__MAX_DIGITS + 3], hi[PD__MAX_DIGITS + 3];
  strcpy(lo, a->v.ip);
  pd__step(lo, +1);
  uint32_t acc = pd_ir_alt2(ir, pd__at_low(nc, a),
                            pd_ir_seq2(ir, pd__int_range(ir, lo, NULL), pd__any_frac(nc)));
  if (!b->inf) {
    strcpy(hi, b->v.ip);
    if (strcmp(hi, "0") != 0) pd__step(hi, -1);
    uint32_t mid = pd__icmp(lo, hi) <= 0 && strcmp(b->v.ip, "0") != 0
                       ? pd_ir_seq2(ir, pd__int_range(ir, lo, hi), pd__any_frac(nc))
                       : pd_ir_nothing(ir);
    acc = pd_ir_alt(ir, (uint32_t[]){pd__at_low(nc, a), mid, pd__at_high(nc, b)}, 3);
  }
  *node = acc;
  return PD_OK;
}

/* ------------------------------------------------------------ bounds from keywords */

/* *ok false (and PD_OK) when lenient dropped an oversized bound. */
static pd_status pd__read_bound(pd_sc *sc, uint32_t v, const char *kw, pd__dec *out, bool *ok) {
  *ok = false;
  if (pd_json_at(&sc->doc, v)->kind != PD_JSON_NUMBER)
    return pd_sc_fail(sc, PD_ERR_SEMANTIC, v, "'%s' must be a number", kw);
  size_t n = pd_json_at(&sc->doc, v)->n;
  char *buf = pd__malloc(sc->ir.alloc, n + 1);
  if (!buf) return pd__nomem(sc->err);
  pd_json_dec d;
  pd_json_number(&sc->doc, v, buf, &d);
  *ok = pd__dec_from(&d, out);
  pd__free(sc->ir.alloc, buf);
  if (!*ok) return pd_sc_unsupported(sc, v, kw, "bound has too many digits");
  return PD_OK;
}

/* Signed comparison of two decimals. */
static int pd__scmp(const pd__dec *a, const pd__dec *b) {
  bool za = !strcmp(a->ip, "0") && !a->fp[0], zb = !strcmp(b->ip, "0") && !b->fp[0];
  bool na = a->neg && !za, nb = b->neg && !zb;
  if (na != nb) return na ? -1 : 1;
  int c = pd__dcmp(a, b);
  return na ? -c : c;
}

/* Tightens lo (want_low) or hi with bound x. */
static void pd__tighten(pd__bound *cur, const pd__dec *x, bool excl, bool want_low) {
  if (!cur->inf) {
    int c = pd__scmp(x, &cur->v);
    if (c == 0) {
      cur->excl = cur->excl || excl;
      return;
    }
    if (want_low ? c < 0 : c > 0) return;
  }
  cur->v = *x;
  cur->excl = excl;
  cur->inf = false;
}

/* minimum, exclusiveMinimum (number, or draft-04 boolean) and the maxima. */
static pd_status pd__bounds(pd_sc *sc, const pd_sc_conj *c, pd__bound *lo, pd__bound *hi,
                            uint32_t *at) {
  static const char *const kws[4] = {"minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"};
  pd_status st;
  lo->inf = hi->inf = true;
  *at = PD_JSON_NONE;
  for (size_t i = 0; i < c->n; i++)
    for (int k = 0; k < 4; k++) {
      uint32_t v = pd_sc_kw(sc, c, i, kws[k]);
      if (v == PD_JSON_NONE || pd_json_at(&sc->doc, v)->kind == PD_JSON_FALSE) continue;
      bool want_low = k < 2, excl = k % 2 == 1;
      if (pd_json_at(&sc->doc, v)->kind == PD_JSON_TRUE) { /* draft-04: applies to the sibling */
        v = pd_sc_kw(sc, c, i, want_low ? "minimum" : "maximum");
        if (v == PD_JSON_NONE) continue;
      }
      pd__dec x;
      bool ok;
      if ((st = pd__read_bound(sc, v, kws[k], &x, &ok))) return st;
      if (!ok) continue;
      *at = v;
      pd__tighten(want_low ? lo : hi, &x, excl, want_low);
    }
  return PD_OK;
}

/* For integers: the smallest integer in the bound (ceil, floor), inclusive. */
static void pd__int_bound(pd__bound *b, bool low) {
  if (b->inf) return;
  pd__dec *v = &b->v;
  bool frac = v->fp[0] != '\0', up = low != v->neg; /* moving away from zero in magnitude? */
  v->fp[0] = '\0';
  if (frac) {
    if (up) pd__step(v->ip, +1);
  } else if (b->excl) {
    if (up)
      pd__step(v->ip, +1);
    else if (strcmp(v->ip, "0") == 0) { /* 0 exclusive towards zero: cross the sign */
      strcpy(v->ip, "1");
      v->neg = !v->neg;
    } else {
      pd__step(v->ip, -1);
    }
  }
  b->excl = false;
  if (strcmp(v->ip, "0") == 0) v->neg = false;
}

static bool pd__is_zero(const pd__dec *d) {
  return !strcmp(d->ip, "0") && !d->fp[0];
}

/* The whole range [lo, hi] as "-" (values <= 0) | (values >= 0). */
static pd_status pd__range(pd__numctx *nc, const pd__bound *lo, const pd__bound *hi,
                           uint32_t *node) {
  pd_ir *ir = &nc->sc->ir;
  pd__bound zero = {.inf = false}, a, b;
  strcpy(zero.v.ip, "0");
  uint32_t neg = pd_ir_nothing(ir), pos = pd_ir_nothing(ir);
  pd_status st;
  /* values <= 0, as magnitudes x in [max(0, -hi), -lo] */
  bool lo_nonpos = lo->inf || lo->v.neg || pd__is_zero(&lo->v);
  if (lo_nonpos) {
    a = zero;
    if (!hi->inf && (hi->v.neg || pd__is_zero(&hi->v))) a = *hi;
    a.v.neg = false;
    b = lo->inf ? (pd__bound){.inf = true} : *lo;
    b.v.neg = false;
    if (!hi->inf && !hi->v.neg && !pd__is_zero(&hi->v)) a.excl = false;
    if ((st = pd__nonneg(nc, &a, &b, &neg))) return st;
    neg = pd_ir_seq2(ir, pd_ir_bytes(ir, "-", 1), neg);
  }
  bool hi_nonneg = hi->inf || !hi->v.neg || pd__is_zero(&hi->v);
  if (hi_nonneg) {
    a = zero;
    if (!lo->inf && (!lo->v.neg || pd__is_zero(&lo->v)))
      a = *lo;
    else
      a.excl = false;
    a.v.neg = false;
    b = *hi;
    b.v.neg = false;
    if ((st = pd__nonneg(nc, &a, &b, &pos))) return st;
  }
  *node = pd_ir_alt2(ir, neg, pos);
  return PD_OK;
}

/* ------------------------------------------------------------ multipleOf */

/* The remainders modulo L that a value may leave: divisible by k (0: any)
 * and by none of neg[0..n_neg). */
typedef struct pd__mods {
  uint32_t L, k, n_neg, neg[8];
} pd__mods;

static bool pd__mod_ok(const pd__mods *m, uint32_t r) {
  if (m->k && r % m->k) return false;
  for (uint32_t i = 0; i < m->n_neg; i++)
    if (r % m->neg[i] == 0) return false;
  return true;
}

/* Canonical non-negative integers whose remainder modulo m->L is allowed:
 * one rule per remainder; nothing when no remainder is. */
static uint32_t pd__residues(pd_sc *sc, const pd__mods *m) {
  pd_ir *ir = &sc->ir;
  uint32_t L = m->L, any = 0;
  for (uint32_t r = 0; r < L && !any; r++) any = pd__mod_ok(m, r);
  if (!any) return pd_ir_nothing(ir);
  uint32_t first = (uint32_t)ir->rules.len;
  for (uint32_t r = 0; r < L; r++) pd_ir_rule_fresh(ir, "mod");
  if (ir->oom) return PD_IR_NONE;
  for (uint32_t r = 0; r < L; r++) {
    uint32_t acc = pd__mod_ok(m, r) ? pd_ir_empty(ir) : pd_ir_nothing(ir);
    for (uint32_t d = 0; d < 10; d++)
      acc = pd_ir_alt2(ir, acc,
                       pd_ir_seq2(ir, pd__digit(ir, (int)d, (int)d),
                                  pd_ir_ref(ir, first + (uint32_t)((10ull * r + d) % L))));
    pd_ir_rule_define(ir, first + r, acc);
  }
  uint32_t acc = pd__mod_ok(m, 0) ? pd_ir_bytes(ir, "0", 1) : pd_ir_nothing(ir);
  for (uint32_t d = 1; d < 10; d++)
    acc = pd_ir_alt2(ir, acc,
                     pd_ir_seq2(ir, pd__digit(ir, (int)d, (int)d), pd_ir_ref(ir, first + d % L)));
  return acc;
}

/* multipleOf: integers k <= 10000 without bounds, or 10^-d on numbers without
 * bounds. Several values combine exactly: integers by their least common
 * multiple (when <= 10000; a multiple of an integer is a multiple of every
 * 10^-d), powers 10^-d by the largest. A negated multipleOf (derived, from
 * not / oneOf) takes the integers of the other remainders, and every number
 * with a nonzero fraction digit. */
#define PD__MAX_MULTIPLE 10000u

static uint32_t pd__gcd(uint32_t a, uint32_t b) {
  while (b) {
    uint32_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

static uint32_t pd__tenths(pd_sc *sc, size_t d);
static uint32_t pd__frac_number(pd_sc *sc);

/* lcm(a, b), or 0 past PD__MAX_MULTIPLE. */
static uint32_t pd__lcm(uint32_t a, uint32_t b) {
  uint64_t l = (uint64_t)a / pd__gcd(a, b) * b;
  return l > PD__MAX_MULTIPLE ? 0 : (uint32_t)l;
}

/* The negated multipleOf of the conj into m (m->L their lcm with m->k);
 * *at_not the first one's node. */
static pd_status pd__not_multiples(pd_sc *sc, const pd_sc_conj *c, pd__mods *m,
                                   uint32_t *at_not) {
  *at_not = PD_JSON_NONE;
  m->L = m->k ? m->k : 1;
  for (size_t i = 0; i < c->n; i++) {
    uint32_t d = pd_sc_member(sc, c, i), v = pd_sc_derived_kw(sc, d, PD_SC_NOT_MULTIPLE);
    if (v == PD_JSON_NONE) continue;
    uint32_t k = 0; /* digits of 1..10000 (schema_not.c) */
    for (uint32_t j = 0; j < pd_json_at(&sc->doc, v)->n; j++)
      k = k * 10 + (uint32_t)(pd_json_str(&sc->doc, v)[j] - '0');
    if (*at_not == PD_JSON_NONE) *at_not = pd_sc_neg_origin(sc, d); /* the multipleOf negated */
    bool dup = false;
    for (uint32_t j = 0; j < m->n_neg && !dup; j++) dup = m->neg[j] == k;
    if (dup) continue;
    if (m->n_neg == sizeof m->neg / sizeof *m->neg)
      return pd_sc_unsupported(sc, pd_sc_neg_origin(sc, d), "not",
                               "more than 8 negated multipleOf");
    m->neg[m->n_neg++] = k;
    if (!(m->L = pd__lcm(m->L, k)))
      return pd_sc_unsupported(sc, pd_sc_neg_origin(sc, d), "not",
                               "negated multipleOf over 10000 combined");
  }
  return PD_OK;
}

/* The multiples of K (> 1) in [lo, hi] (inclusive integer bounds, both
 * finite) as literals, when there are at most PD__MAX_LISTED of them; *ok
 * false otherwise. */
#define PD__MAX_LISTED 1024u

static bool pd__int_of(const pd__bound *b, int64_t *x) {
  if (b->inf || b->v.fp[0] || strlen(b->v.ip) > 17) return false;
  *x = atoll(b->v.ip);
  if (b->v.neg) *x = -*x;
  return true;
}

static uint32_t pd__listed(pd_sc *sc, uint32_t K, const pd__bound *lo, const pd__bound *hi,
                           bool integer, bool *ok) {
  pd_ir *ir = &sc->ir;
  int64_t a, b;
  *ok = pd__int_of(lo, &a) && pd__int_of(hi, &b);
  if (!*ok) return PD_IR_NONE;
  int64_t first = a >= 0 ? (a + K - 1) / K * K : -(-a / K * (int64_t)K);
  *ok = b < first || (uint64_t)(b - first) / K < PD__MAX_LISTED;
  if (!*ok) return PD_IR_NONE;
  uint32_t acc = pd_ir_nothing(ir), zeros = pd_ir_repeat(ir, pd__digit(ir, 0, 0), 1, PD_IR_INF);
  bool fraction = !(integer && sc->int_no_frac); /* "16.0" is 16, but not a draft-04 integer */
  for (int64_t v = first; v <= b; v += K) {
    char text[24];
    int n = snprintf(text, sizeof text, "%lld", (long long)(v < 0 ? -v : v));
    uint32_t parts[3] = {v < 0    ? pd_ir_bytes(ir, "-", 1)
                         : v == 0 ? pd__opt_minus(ir)
                                  : pd_ir_empty(ir),
                         pd_ir_bytes(ir, text, (size_t)n),
                         fraction ? pd_ir_repeat(ir, pd__dot(ir, zeros), 0, 1) : pd_ir_empty(ir)};
    acc = pd_ir_alt2(ir, acc, pd_ir_seq(ir, parts, 3));
  }
  return acc;
}

/* "-"? body, with ".0+" after it unless integers take no fraction. */
static uint32_t pd__integers(pd_sc *sc, uint32_t body, bool integer) {
  pd_ir *ir = &sc->ir;
  uint32_t zeros = pd_ir_repeat(ir, pd__digit(ir, 0, 0), 1, PD_IR_INF);
  uint32_t parts[3] = {pd__opt_minus(ir), body,
                       integer && sc->int_no_frac ? pd_ir_empty(ir)
                                                  : pd_ir_repeat(ir, pd__dot(ir, zeros), 0, 1)};
  return pd_ir_seq(ir, parts, 3);
}

/* Numbers whose remainders m allows, and (without a positive multipleOf, on
 * numbers) every number with a nonzero fraction digit, which no integer
 * divides. */
static pd_status pd__mods_number(pd_sc *sc, const pd__mods *m, bool integer, uint32_t *node,
                                 bool *done) {
  uint32_t ints = pd__integers(sc, pd__residues(sc, m), integer);
  *node = integer || m->k ? ints : pd_ir_alt2(&sc->ir, ints, pd__frac_number(sc));
  *done = true;
  return pd_sc_ir_status(sc);
}

static pd_status pd__multiple(pd_sc *sc, const pd_sc_conj *c, bool integer, const pd__bound *lo,
                              const pd__bound *hi, uint32_t range, uint32_t *node, bool *done) {
  bool bounded = range != PD_IR_NONE;
  uint32_t at = PD_JSON_NONE, K = 0; /* K: lcm of the integer values (0: none) */
  size_t fl_min = 0;                 /* digits of the largest 10^-d (0: none) */
  *done = false;
  for (size_t i = 0; i < c->n; i++) {
    uint32_t v = pd_sc_kw(sc, c, i, "multipleOf"), k;
    if (v == PD_JSON_NONE) continue;
    if (pd_json_at(&sc->doc, v)->kind != PD_JSON_NUMBER)
      return pd_sc_fail(sc, PD_ERR_SEMANTIC, v, "'multipleOf' must be a number");
    pd__dec m;
    bool ok;
    pd_status st = pd__read_bound(sc, v, "multipleOf", &m, &ok);
    if (st || !ok) return st;
    if (m.neg || pd__is_zero(&m))
      return pd_sc_fail(sc, PD_ERR_SEMANTIC, v, "'multipleOf' must be > 0");
    if (at == PD_JSON_NONE) at = v;
    size_t fl = strlen(m.fp);
    if (!m.fp[0] && strlen(m.ip) <= 5 && (k = (uint32_t)atoi(m.ip)) <= PD__MAX_MULTIPLE) {
      if (!(K = K ? pd__lcm(K, k) : k))
        return pd_sc_unsupported(sc, v, "multipleOf", "several multipleOf over 10000 combined");
    } else if (!strcmp(m.ip, "0") && fl > 0 && m.fp[fl - 1] == '1' && strspn(m.fp, "0") == fl - 1) {
      if (fl_min == 0 || fl < fl_min) fl_min = fl;
    } else {
      return pd_sc_unsupported(sc, v, "multipleOf", "only integers and powers of 1/10");
    }
  }
  pd__mods mods = {.k = K};
  uint32_t at_not;
  pd_status st = pd__not_multiples(sc, c, &mods, &at_not);
  if (st) return st;
  if (at_not != PD_JSON_NONE) {
    if (bounded || fl_min)
      return pd_sc_unsupported(sc, at_not, "not", "a negated multipleOf with bounds or fractions");
    return pd__mods_number(sc, &mods, integer, node, done);
  }
  if (at == PD_JSON_NONE) return PD_OK;
  pd_ir *ir = &sc->ir;
  if (K > 1 && bounded) { /* few multiples in range: listed; else refused */
    bool ok;
    pd__bound a = *lo, b = *hi;
    pd__int_bound(&a, true);
    pd__int_bound(&b, false);
    uint32_t listed = pd__listed(sc, K, &a, &b, integer, &ok);
    if (!ok) return pd_sc_unsupported(sc, at, "multipleOf", "multipleOf with bounds");
    *node = listed;
    *done = true;
    return pd_sc_ir_status(sc);
  }
  uint32_t mult;
  if (K) { /* K = 1 has no remainder to follow: digits, without a rule per remainder */
    mods.L = K;
    mult = pd__integers(sc, K == 1 ? pd__natural(ir) : pd__residues(sc, &mods), integer);
  } else if (integer) {
    return PD_OK; /* every integer is a multiple of 10^-d */
  } else {
    mult = pd__tenths(sc, fl_min);
  }
  /* with bounds: the range and the multiples, one product automaton */
  *node = bounded ? pd_ir_and(ir, range, mult) : mult;
  *done = true;
  return pd_sc_ir_status(sc);
}

/* Numbers with at most d fraction digits before trailing zeros: the
 * multiples of 10^-d, written without an exponent. */
static uint32_t pd__tenths(pd_sc *sc, size_t d) {
  pd_ir *ir = &sc->ir;
  uint32_t frac = pd_ir_seq2(ir, pd__digits(ir, 1, (uint32_t)d),
                             pd_ir_repeat(ir, pd__digit(ir, 0, 0), 0, PD_IR_INF));
  uint32_t parts[3] = {pd__opt_minus(ir), pd__natural(ir),
                       pd_ir_repeat(ir, pd__dot(ir, frac), 0, 1)};
  return pd_ir_seq(ir, parts, 3);
}

/* ------------------------------------------------------------ the number type */

/* The exponent's letter: [eE] */
static uint32_t pd__e(pd_ir *ir) {
  static const uint32_t es[4] = {'e', 'e', 'E', 'E'};
  return pd_ir_class(ir, es, 2, false);
}

/* The exponent part of a number: [eE] [+-]? digit+ */
static uint32_t pd__exponent(pd_ir *ir) {
  uint32_t pm[4] = {'+', '+', '-', '-'};
  return pd_ir_seq(ir,
                   (uint32_t[]){pd__e(ir),
                                pd_ir_repeat(ir, pd_ir_class(ir, pm, 2, false), 0, 1),
                                pd__digits(ir, 1, PD_IR_INF)},
                   3);
}

/* An exponent that is not negative: [eE] ("+"? digit+ | "-" "0"+) */
static uint32_t pd__exponent_up(pd_ir *ir) {
  uint32_t up = pd_ir_seq2(ir, pd_ir_repeat(ir, pd_ir_bytes(ir, "+", 1), 0, 1),
                           pd__digits(ir, 1, PD_IR_INF));
  uint32_t minus_zero = pd_ir_seq2(ir, pd_ir_bytes(ir, "-", 1),
                                   pd_ir_repeat(ir, pd__digit(ir, 0, 0), 1, PD_IR_INF));
  return pd_ir_seq2(ir, pd__e(ir), pd_ir_alt2(ir, up, minus_zero));
}

/* number = "-"? int frac? exp? (RFC 8259) */
static uint32_t pd__any_number(pd_sc *sc, bool integer) {
  pd_ir *ir = &sc->ir;
  uint32_t in = pd__natural(ir);
  uint32_t sign = pd__opt_minus(ir);
  if (integer) {
    uint32_t frac = pd__any_frac(&(pd__numctx){sc, true, PD_JSON_NONE, true});
    uint32_t k[4] = {sign, in, frac, pd_ir_empty(ir)};
    if (sc->int_no_frac) return pd_ir_seq(ir, k, 3); /* draft-04: digits alone */
    /* an integral mantissa times a power of ten that is not negative (1e+20,
     * as Python writes large floats), or zero times any */
    k[3] = pd_ir_repeat(ir, pd__exponent_up(ir), 0, 1);
    uint32_t z[4] = {sign, pd_ir_bytes(ir, "0", 1), frac, pd__exponent(ir)};
    return pd_ir_alt2(ir, pd_ir_seq(ir, k, 4), pd_ir_seq(ir, z, 4));
  }
  uint32_t exp = pd__exponent(ir);
  uint32_t k[4] = {sign, in, pd__any_frac(&(pd__numctx){sc, false, PD_JSON_NONE, false}),
                   pd_ir_repeat(ir, exp, 0, 1)};
  return pd_ir_seq(ir, k, 4);
}

/* Numbers with an exponent under bounds that are zero or absent: the sign
 * and whether the mantissa has a nonzero digit decide on which side of zero
 * the value is. (Under any other bound it is not a regular language: in
 * "0.0001e5" the zeros must match the exponent.) PD_IR_NONE when a bound is
 * elsewhere. */
static uint32_t pd__exp_forms(pd_sc *sc, const pd__bound *lo, const pd__bound *hi) {
  pd_ir *ir = &sc->ir;
  if ((!lo->inf && !pd__is_zero(&lo->v)) || (!hi->inf && !pd__is_zero(&hi->v))) return PD_IR_NONE;
  uint32_t zero_frac =
      pd_ir_repeat(ir, pd__dot(ir, pd_ir_repeat(ir, pd__digit(ir, 0, 0), 1, PD_IR_INF)), 0, 1);
  uint32_t zero = pd_ir_seq2(ir, pd_ir_bytes(ir, "0", 1), zero_frac);
  /* a nonzero mantissa: [1-9] digit* frac? | "0." "0"* [1-9] digit* */
  uint32_t any_frac = pd_ir_repeat(ir, pd__dot(ir, pd__digits(ir, 1, PD_IR_INF)), 0, 1);
  uint32_t big =
      pd_ir_seq(ir, (uint32_t[]){pd__digit(ir, 1, 9), pd__digits(ir, 0, PD_IR_INF), any_frac}, 3);
  uint32_t small_frac = pd_ir_seq(ir,
                                  (uint32_t[]){pd_ir_repeat(ir, pd__digit(ir, 0, 0), 0, PD_IR_INF),
                                               pd__digit(ir, 1, 9), pd__digits(ir, 0, PD_IR_INF)},
                                  3);
  uint32_t nonzero =
      pd_ir_alt2(ir, big, pd_ir_seq2(ir, pd_ir_bytes(ir, "0", 1), pd__dot(ir, small_frac)));
  uint32_t minus = pd_ir_bytes(ir, "-", 1);
  bool up = lo->inf || !lo->excl, down = hi->inf || !hi->excl; /* zero's side allowed */
  uint32_t acc = pd_ir_nothing(ir);
  if (up && down) acc = pd_ir_seq2(ir, pd_ir_repeat(ir, minus, 0, 1), zero);
  if (hi->inf) acc = pd_ir_alt2(ir, acc, nonzero);
  if (lo->inf) acc = pd_ir_alt2(ir, acc, pd_ir_seq2(ir, minus, nonzero));
  return pd_ir_seq2(ir, acc, pd__exponent(ir));
}
/* Non-integral numbers: a fraction with a nonzero digit, and then, if any,
 * an exponent that is not positive (1.5e-07: the digit only moves right);
 * or an integer that does not end in 0, times a negative power of ten (3e-07,
 * as Python writes small floats).
 *   "-"? int "." digit* [1-9] digit* ([eE] "-" digit+)?
 *   "-"? ([1-9] | [1-9] digit* [1-9]) ("." "0"*)? [eE] "-" "0"* [1-9] digit*
 * Other non-integral spellings ("15e-1", "1.55e1") are a documented false
 * negative: whether they are integral compares digits with the exponent. */
static uint32_t pd__frac_number(pd_sc *sc) {
  pd_ir *ir = &sc->ir;
  uint32_t sign = pd__opt_minus(ir);
  uint32_t e = pd__e(ir), minus = pd_ir_bytes(ir, "-", 1);
  uint32_t nonzero = pd_ir_seq(
      ir,
      (uint32_t[]){pd__digits(ir, 0, PD_IR_INF), pd__digit(ir, 1, 9), pd__digits(ir, 0, PD_IR_INF)},
      3);
  uint32_t down = pd_ir_seq(ir, (uint32_t[]){e, minus, pd__digits(ir, 1, PD_IR_INF)}, 3);
  uint32_t a[4] = {sign, pd__natural(ir), pd__dot(ir, nonzero), pd_ir_repeat(ir, down, 0, 1)};
  uint32_t inner[3] = {pd__digit(ir, 1, 9), pd__digits(ir, 0, PD_IR_INF), pd__digit(ir, 1, 9)};
  uint32_t odd_end = /* an integer not ending in 0 */
      pd_ir_alt2(ir, pd__digit(ir, 1, 9), pd_ir_seq(ir, inner, 3));
  uint32_t zeros = pd_ir_repeat(ir, pd__digit(ir, 0, 0), 0, PD_IR_INF);
  uint32_t b[6] = {sign, odd_end, pd_ir_repeat(ir, pd__dot(ir, zeros), 0, 1), e, minus, nonzero};
  return pd_ir_alt2(ir, pd_ir_seq(ir, a, 4), pd_ir_seq(ir, b, 6));
}

pd_status pd_sc_number(pd_sc *sc, const pd_sc_conj *c, uint32_t *node) {
  bool integer = !(c->types & PD_SC_FRAC), done;
  pd__bound lo, hi;
  uint32_t at;
  pd_status st = pd__bounds(sc, c, &lo, &hi, &at);
  if (st) return st;
  bool bounded = !lo.inf || !hi.inf;
  if (!(c->types & PD_SC_INT)) {
    uint32_t where = bounded ? at : PD_JSON_NONE;
    for (size_t i = 0; i < c->n && where == PD_JSON_NONE; i++)
      where = pd_sc_kw(sc, c, i, "multipleOf");
    if (where == PD_JSON_NONE) {
      *node = pd__frac_number(sc);
      return pd_sc_ir_status(sc);
    }
    st =
        pd_sc_unsupported(sc, where, "not", "non-integral numbers only, with bounds or multipleOf");
    if (st) return st;
    integer = false; /* lenient: integers too, as if the negation were absent */
  }
  uint32_t range = PD_IR_NONE;
  if (bounded) {
    pd__bound a = lo, b = hi;
    if (integer) {
      pd__int_bound(&a, true);
      pd__int_bound(&b, false);
    }
    pd__numctx nc = {sc, integer, at, integer};
    if ((st = pd__range(&nc, &a, &b, &range))) return st;
  }
  if ((st = pd__multiple(sc, c, integer, &lo, &hi, range, node, &done)) || done) return st;
  uint32_t exp = bounded && !integer ? pd__exp_forms(sc, &lo, &hi) : PD_IR_NONE;
  if (exp != PD_IR_NONE) range = pd_ir_alt2(&sc->ir, range, exp);
  *node = bounded ? range : pd__any_number(sc, integer);
  return pd_sc_ir_status(sc);
}

/* ------------------------------------------------------------ literals */

/* The value of x in normalized scientific notation, the way serializers
 * write small and large values (Python's 1e-06, JavaScript's 1e-7): one
 * nonzero digit before the point, the rest of the digits and any zeros after
 * it, and the one exponent that makes the value, with any sign it allows and
 * leading zeros ("1.5e2", "1.50E+002"); zero takes any exponent. */
static uint32_t pd__sci_literal(pd_ir *ir, const pd_json_dec *x) {
  uint32_t minus = pd_ir_bytes(ir, "-", 1), plus = pd_ir_repeat(ir, pd_ir_bytes(ir, "+", 1), 0, 1);
  uint32_t zeros = pd_ir_repeat(ir, pd__digit(ir, 0, 0), 0, PD_IR_INF);
  uint32_t some_zeros = pd_ir_repeat(ir, pd__digit(ir, 0, 0), 1, PD_IR_INF);
  uint32_t point_zeros = pd_ir_repeat(ir, pd__dot(ir, some_zeros), 0, 1);
  if (x->n == 0) {
    uint32_t k[4] = {pd_ir_repeat(ir, minus, 0, 1), pd_ir_bytes(ir, "0", 1), point_zeros,
                     pd__exponent(ir)};
    return pd_ir_seq(ir, k, 4);
  }
  uint32_t frac = x->n == 1 ? point_zeros
                            : pd__dot(ir, pd_ir_seq2(ir, pd_ir_bytes(ir, x->digits + 1, x->n - 1),
                                                     zeros));
  int64_t p = x->exp - 1; /* value = d1.d2...dn x 10^p */
  char dec[24];
  snprintf(dec, sizeof dec, "%llu", (unsigned long long)(p < 0 ? -(uint64_t)p : (uint64_t)p));
  uint32_t sign = p > 0 ? plus : p < 0 ? minus : pd_ir_alt2(ir, plus, minus);
  uint32_t k[7] = {x->neg ? minus : pd_ir_empty(ir), pd_ir_bytes(ir, x->digits, 1), frac,
                   pd__e(ir), sign,
                   p ? zeros : some_zeros, /* 1e0, 1e-00 */
                   pd_ir_bytes(ir, dec, strlen(dec))};
  return pd_ir_seq(ir, k, p ? 7 : 6);
}

/* The value of number v in every plain writing ("-"? digits, trailing
 * fraction zeros allowed, and "-0" for 0) and in normalized scientific
 * notation; digits_only: an integral value as its digits alone. */
uint32_t pd_sc_number_literal(pd_sc *sc, uint32_t v, bool digits_only) {
  pd_ir *ir = &sc->ir;
  size_t n = pd_json_at(&sc->doc, v)->n;
  char *buf = pd__malloc(ir->alloc, n + 1);
  pd__dec *d = pd__malloc(ir->alloc, sizeof *d);
  uint32_t node = PD_IR_NONE;
  if (!buf || !d) {
    ir->oom = true;
    goto out;
  }
  pd_json_dec x;
  pd_json_number(&sc->doc, v, buf, &x);
  if (!pd__dec_from(&x, d)) { /* out of the plain range: the text as written */
    node = pd_ir_alt2(ir, pd_ir_bytes(ir, pd_json_str(&sc->doc, v), n), pd__sci_literal(ir, &x));
    goto out;
  }
  uint32_t sign = d->neg           ? pd_ir_bytes(ir, "-", 1)
                  : pd__is_zero(d) ? pd__opt_minus(ir)
                                   : pd_ir_empty(ir);
  uint32_t zeros = pd_ir_repeat(ir, pd__digit(ir, 0, 0), d->fp[0] ? 0 : 1, PD_IR_INF);
  uint32_t frac = pd_ir_seq2(ir, pd_ir_bytes(ir, d->fp, strlen(d->fp)), zeros);
  frac = pd__dot(ir, frac);
  if (!d->fp[0]) frac = pd_ir_repeat(ir, frac, 0, 1);
  uint32_t k[3] = {sign, pd_ir_bytes(ir, d->ip, strlen(d->ip)), frac};
  node = digits_only && !d->fp[0] ? pd_ir_seq(ir, k, 2)
                                  : pd_ir_alt2(ir, pd_ir_seq(ir, k, 3), pd__sci_literal(ir, &x));
out:
  pd__free(ir->alloc, buf);
  pd__free(ir->alloc, d);
  return node;
}
