/* unicode.c - UTF-8, character classes, and the byte-level character map. */
#include "unicode.h"

size_t pd_utf8_decode(const uint8_t *s, size_t n, uint32_t *cp) {
  uint8_t b = s[0];
  if (b < 0x80) {
    *cp = b;
    return 1;
  }
  size_t len = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 0;
  *cp = PD_UTF8_INVALID;
  if (!len || b > 0xF4 || len > n) return 1;
  uint32_t c = b & (0x7F >> len);
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xC0) != 0x80) return 1;
    c = c << 6 | (s[i] & 0x3F);
  }
  static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (c < min[len] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return 1;
  *cp = c;
  return len;
}

size_t pd_utf8_encode(uint32_t cp, uint8_t out[4]) {
  if (cp < 0x80) {
    out[0] = (uint8_t)cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = (uint8_t)(0xC0 | cp >> 6);
    out[1] = (uint8_t)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = (uint8_t)(0xE0 | cp >> 12);
    out[1] = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
    out[2] = (uint8_t)(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = (uint8_t)(0xF0 | cp >> 18);
  out[1] = (uint8_t)(0x80 | (cp >> 12 & 0x3F));
  out[2] = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
  out[3] = (uint8_t)(0x80 | (cp & 0x3F));
  return 4;
}

/* ASCII, the common case, directly; the rest by binary search of the generated ranges. */
pd_uclass pd_unicode_class(uint32_t cp) {
  if (cp < 128) {
    if (cp >= 'a' && cp <= 'z') return PD_UC_LL;
    if (cp >= 'A' && cp <= 'Z') return PD_UC_LU;
    if (cp >= '0' && cp <= '9') return PD_UC_N;
    if (cp == ' ' || (cp >= 9 && cp <= 13)) return PD_UC_SPACE;
    return PD_UC_OTHER;
  }
  return (pd_uclass)pd_unicode_range_cls(pd_unicode_ranges, pd_unicode_n_ranges, cp, PD_UC_OTHER);
}

uint8_t pd_unicode_range_cls(const pd_unicode_range *t, size_t n, uint32_t cp, uint8_t none) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (cp < t[mid].lo)
      hi = mid;
    else if (cp > t[mid].hi)
      lo = mid + 1;
    else
      return t[mid].cls;
  }
  return none;
}

/* GPT-2's bytes_to_unicode: the printable bytes 0x21..0x7E, 0xA1..0xAC and
 * 0xAE..0xFF stand for themselves; the other 68 bytes, in increasing order,
 * become U+0100 + k for the k-th of them:
 *   0x00..0x20 -> k = b,  0x7F..0xA0 -> k = 33 + (b - 0x7F),  0xAD -> k = 67. */
static int pd__byte_printable(unsigned b) {
  return (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
}

uint32_t pd_byte_char(uint8_t b) {
  if (pd__byte_printable(b)) return b;
  if (b <= 0x20) return 0x100u + b;
  if (b <= 0xA0) return 0x100u + 33 + (b - 0x7Fu);
  return 0x100u + 67;
}

int pd_char_byte(uint32_t cp) {
  if (cp < 0x100) return pd__byte_printable(cp) ? (int)cp : -1;
  uint32_t k = cp - 0x100;
  if (k <= 0x20) return (int)k;
  if (k < 67) return (int)(0x7F + (k - 33));
  return k == 67 ? 0xAD : -1;
}
