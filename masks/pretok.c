/* pretok.c - the split patterns of the known byte-level BPE tokenizers, by hand.
 *
 * Each function returns the length of the regex match at the start of its input,
 * trying the alternatives in order as a backtracking regex engine does. Every
 * character is a letter (L), number (N), white space (S) or other, and each
 * pattern has an alternative for each, so a match always exists and the words
 * tile the text. Bytes that are not UTF-8 count as "other" characters. */
#include "pretok.h"

#include <stdbool.h>
#include <string.h>

#include "unicode.h"

static const char pd__re_gpt2[] =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";
static const char pd__re_llama3[] =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| "
    "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
static const char pd__re_qwen2[] =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| "
    "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
static const char pd__re_gpt4o[] =
    "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+"
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+"
    "[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\\p{N}{1,3}| "
    "?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

static const char *const pd__regexes[] = {[PD_PRETOK_GPT2] = pd__re_gpt2,
                                          [PD_PRETOK_LLAMA3] = pd__re_llama3,
                                          [PD_PRETOK_QWEN2] = pd__re_qwen2,
                                          [PD_PRETOK_GPT4O] = pd__re_gpt4o};

int pd_pretok_identify(const char *re, size_t len) {
  for (int p = PD_PRETOK_GPT2; p <= PD_PRETOK_GPT4O; p++)
    if (strlen(pd__regexes[p]) == len && !memcmp(pd__regexes[p], re, len)) return p;
  return -1;
}

const char *pd_pretok_regex(pd_pretok p) {
  return p >= PD_PRETOK_GPT2 && p <= PD_PRETOK_GPT4O ? pd__regexes[p] : NULL;
}

/* The text being split and one decoded character of it. */
typedef struct pd__text {
  const uint8_t *s;
  size_t n;
} pd__text;

/* Class of the character at i and its length (0 at the end). */
static size_t pd__at(pd__text t, size_t i, uint32_t *cp, pd_uclass *c) {
  if (i >= t.n) {
    *cp = 0;
    *c = PD_UC_OTHER;
    return 0;
  }
  size_t k = pd_utf8_decode(t.s + i, t.n - i, cp);
  *c = *cp == PD_UTF8_INVALID ? PD_UC_OTHER : pd_unicode_class(*cp);
  return k;
}

static bool pd__is_l(pd_uclass c) { return c >= PD_UC_LU && c <= PD_UC_LO; }
static bool pd__is_n(pd_uclass c) { return c == PD_UC_N; }
static bool pd__is_s(pd_uclass c) { return c == PD_UC_SPACE; }
static bool pd__is_other(pd_uclass c) { return !pd__is_l(c) && !pd__is_n(c) && !pd__is_s(c); }
/* [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}] and [\p{Ll}\p{Lm}\p{Lo}\p{M}] of o200k */
static bool pd__is_upper(pd_uclass c) {
  return c == PD_UC_LU || c == PD_UC_LT || c == PD_UC_LM || c == PD_UC_LO || c == PD_UC_M;
}
static bool pd__is_lower(pd_uclass c) {
  return c == PD_UC_LL || c == PD_UC_LM || c == PD_UC_LO || c == PD_UC_M;
}
/* [^\r\n\p{L}\p{N}] */
static bool pd__is_prefix(uint32_t cp, pd_uclass c) {
  return cp != '\r' && cp != '\n' && !pd__is_l(c) && !pd__is_n(c);
}

/* End of the longest run of characters of a class from i. */
static size_t pd__run(pd__text t, size_t i, bool (*in)(pd_uclass)) {
  uint32_t cp;
  pd_uclass c;
  for (size_t k; (k = pd__at(t, i, &cp, &c)) && in(c);) i += k;
  return i;
}

/* Up to max characters of a class from i. */
static size_t pd__run_max(pd__text t, size_t i, bool (*in)(pd_uclass), int max) {
  uint32_t cp;
  pd_uclass c;
  for (size_t k; max-- > 0 && (k = pd__at(t, i, &cp, &c)) && in(c);) i += k;
  return i;
}

/* '(s|t|re|ve|m|ll|d) at i, any case when fold: its length, or 0. */
static size_t pd__contraction(pd__text t, size_t i, bool fold) {
  if (i + 1 >= t.n || t.s[i] != '\'') return 0;
  char a = (char)t.s[i + 1], b = i + 2 < t.n ? (char)t.s[i + 2] : 0;
  if (fold) {
    a = a >= 'A' && a <= 'Z' ? (char)(a + 32) : a;
    b = b >= 'A' && b <= 'Z' ? (char)(b + 32) : b;
  }
  if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
  if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return 3;
  return 0;
}

/* [\s*[\r\n]+ when lines] | \s+(?!\S) | \s+ at 0, where the first character is
 * white space. */
static size_t pd__space(pd__text t, bool lines) {
  size_t i = 0, last = 0, newline = 0;
  uint32_t cp;
  pd_uclass c;
  for (size_t k; (k = pd__at(t, i, &cp, &c)) && pd__is_s(c); i += k) {
    last = i;
    if (cp == '\r' || cp == '\n') newline = i + 1;
  }
  if (newline && lines) return newline;
  if (i == t.n || last == 0) return i;
  return last;
}

/* ' ?[^\s\p{L}\p{N}]+' then any of extra: the punctuation word at 0, or 0. */
static size_t pd__punct(pd__text t, const char *extra) {
  uint32_t cp;
  pd_uclass c;
  size_t i = t.s[0] == ' ' ? 1 : 0;
  pd__at(t, i, &cp, &c);
  if (!pd__is_other(c) || i >= t.n) {
    if (i == 0) return 0;
    i = 0;
    pd__at(t, 0, &cp, &c);
    if (!pd__is_other(c)) return 0;
  }
  i = pd__run(t, i, pd__is_other);
  while (i < t.n && t.s[i] && strchr(extra, t.s[i])) i++;
  return i;
}

/* Llama-3 and Qwen2 (see the regexes above); digits = 3 or 1. */
static size_t pd__llama3(pd__text t, int digits) {
  uint32_t cp, cp1;
  pd_uclass c, c1;
  size_t k = pd__at(t, 0, &cp, &c), m;
  if ((m = pd__contraction(t, 0, true))) return m;
  if (pd__is_l(c)) return pd__run(t, 0, pd__is_l);
  pd__at(t, k, &cp1, &c1);
  if (pd__is_prefix(cp, c) && pd__is_l(c1)) return pd__run(t, k, pd__is_l);
  if (pd__is_n(c)) return pd__run_max(t, 0, pd__is_n, digits);
  if ((m = pd__punct(t, "\r\n"))) return m;
  if (pd__is_s(c)) return pd__space(t, true);
  return k;
}

/* GPT-2: case-sensitive contractions, then ' ?' before letters, numbers or others. */
static size_t pd__gpt2(pd__text t) {
  uint32_t cp;
  pd_uclass c, c1;
  size_t k = pd__at(t, 0, &cp, &c), m;
  if ((m = pd__contraction(t, 0, false))) return m;
  size_t i = cp == ' ' && k < t.n ? 1 : 0;
  pd__at(t, i, &cp, &c1);
  if (i && pd__is_s(c1)) i = 0, c1 = c;
  if (pd__is_l(c1)) return pd__run(t, i, pd__is_l);
  if (pd__is_n(c1)) return pd__run(t, i, pd__is_n);
  if (pd__is_other(c1)) return pd__run(t, i, pd__is_other);
  if (pd__is_s(c)) return pd__space(t, false);
  return k;
}

/* o200k's first two alternatives: prefix? upper* lower+ 's? and prefix? upper+ lower* 's?.
 * The first backtracks upper* one character at a time until lower+ can match. */
static size_t pd__gpt4o_word(pd__text t, bool second) {
  uint32_t cp;
  pd_uclass c;
  size_t k = pd__at(t, 0, &cp, &c);
  for (int p = pd__is_prefix(cp, c) ? 1 : 0; p >= 0; p--) {
    size_t s0 = p ? k : 0, u = pd__run(t, s0, pd__is_upper);
    if (second) {
      if (u > s0) {
        size_t w = pd__run(t, u, pd__is_lower);
        return w + pd__contraction(t, w, true);
      }
      continue;
    }
    for (size_t e = u;;) {
      size_t w = pd__run(t, e, pd__is_lower);
      if (w > e) return w + pd__contraction(t, w, true);
      if (e == s0) break;
      do e--;
      while (e > s0 && (t.s[e] & 0xC0) == 0x80);
    }
  }
  return 0;
}

static size_t pd__gpt4o(pd__text t) {
  uint32_t cp;
  pd_uclass c;
  size_t k = pd__at(t, 0, &cp, &c), m;
  if ((m = pd__gpt4o_word(t, false))) return m;
  if ((m = pd__gpt4o_word(t, true))) return m;
  if (pd__is_n(c)) return pd__run_max(t, 0, pd__is_n, 3);
  if ((m = pd__punct(t, "\r\n/"))) return m;
  if (pd__is_s(c)) return pd__space(t, true);
  return k;
}

size_t pd_pretok_next(pd_pretok p, const uint8_t *s, size_t n) {
  pd__text t = {s, n};
  switch (p) {
    case PD_PRETOK_GPT2:
      return pd__gpt2(t);
    case PD_PRETOK_LLAMA3:
      return pd__llama3(t, 3);
    case PD_PRETOK_QWEN2:
      return pd__llama3(t, 1);
    case PD_PRETOK_GPT4O:
      return pd__gpt4o(t);
    case PD_PRETOK_NONE:
      break;
  }
  return n;
}
