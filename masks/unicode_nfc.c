/* unicode_nfc.c - Normalization Form C: canonical decomposition, canonical
 * ordering of combining marks, then canonical composition (UAX #15), with the
 * generated tables (unicode_ccc.c, unicode_decomp.c, unicode_comp.c) and
 * Hangul syllables computed:
 *   S = 0xAC00 + (L - 0x1100) * 588 + (V - 0x1161) * 28 + (T - 0x11A7). */
#include "unicode.h"

#define PD__S_BASE 0xAC00u
#define PD__L_BASE 0x1100u
#define PD__V_BASE 0x1161u
#define PD__T_BASE 0x11A7u
#define PD__S_COUNT 11172u
#define PD__N_COUNT 588u
#define PD__T_COUNT 28u
#define PD__RAW 0x110000u /* PD__RAW | b stands for a byte that is not UTF-8 */

static uint8_t pd__ccc(uint32_t cp) {
  return pd_unicode_range_cls(pd_unicode_ccc, pd_unicode_n_ccc, cp, 0);
}

static const pd_unicode_decomp *pd__decomp(uint32_t cp) {
  size_t lo = 0, hi = pd_unicode_n_decomps;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (cp < pd_unicode_decomps[mid].cp)
      hi = mid;
    else if (cp > pd_unicode_decomps[mid].cp)
      lo = mid + 1;
    else
      return &pd_unicode_decomps[mid];
  }
  return NULL;
}

/* The primary composite of a + b, or 0. */
static uint32_t pd__compose(uint32_t a, uint32_t b) {
  if (a >= PD__L_BASE && a < PD__L_BASE + 19 && b >= PD__V_BASE && b < PD__V_BASE + 21)
    return PD__S_BASE + ((a - PD__L_BASE) * 21 + (b - PD__V_BASE)) * PD__T_COUNT;
  if (a >= PD__S_BASE && a < PD__S_BASE + PD__S_COUNT && (a - PD__S_BASE) % PD__T_COUNT == 0 &&
      b > PD__T_BASE && b < PD__T_BASE + PD__T_COUNT)
    return a + (b - PD__T_BASE);
  size_t lo = 0, hi = pd_unicode_n_comps;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const pd_unicode_comp *c = &pd_unicode_comps[mid];
    if (a < c->first || (a == c->first && b < c->second))
      hi = mid;
    else if (a > c->first || b > c->second)
      lo = mid + 1;
    else
      return c->composite;
  }
  return 0;
}

/* Appends the full canonical decomposition of cp. */
static bool pd__decompose(const pd_allocator *a, uint32_t cp, pd_codepoints *cps) {
  if (cp >= PD__S_BASE && cp < PD__S_BASE + PD__S_COUNT) {
    uint32_t s = cp - PD__S_BASE, t = s % PD__T_COUNT;
    if (!pd_array_push(a, cps, PD__L_BASE + s / PD__N_COUNT)) return false;
    if (!pd_array_push(a, cps, PD__V_BASE + s % PD__N_COUNT / PD__T_COUNT)) return false;
    return !t || pd_array_push(a, cps, PD__T_BASE + t);
  }
  const pd_unicode_decomp *d = cp < PD__RAW ? pd__decomp(cp) : NULL;
  if (!d) return pd_array_push(a, cps, cp);
  for (uint8_t i = 0; i < d->len; i++)
    if (!pd_array_push(a, cps, pd_unicode_decomp_pool[d->off + i])) return false;
  return true;
}

/* Stable sort of each run of non-starters by combining class (runs are short). */
static void pd__reorder(uint32_t *c, size_t n) {
  for (size_t i = 1; i < n; i++) {
    uint32_t x = c[i];
    uint8_t cx = pd__ccc(x);
    if (!cx) continue;
    size_t j = i;
    for (; j > 0 && pd__ccc(c[j - 1]) > cx; j--) c[j] = c[j - 1];
    c[j] = x;
  }
}

/* Canonical composition in place; returns the new length. */
static size_t pd__compose_all(uint32_t *c, size_t n) {
  if (!n) return 0;
  size_t starter = 0, out = 1;
  int last = pd__ccc(c[0]) ? 256 : 0;
  for (size_t i = 1; i < n; i++) {
    uint32_t ch = c[i];
    int cls = pd__ccc(ch);
    uint32_t comp = c[starter] < PD__RAW && ch < PD__RAW ? pd__compose(c[starter], ch) : 0;
    if (comp && (last < cls || last == 0)) {
      c[starter] = comp;
      continue;
    }
    if (cls == 0) starter = out;
    last = cls;
    c[out++] = ch;
  }
  return out;
}

bool pd_unicode_nfc(const pd_allocator *a, const uint8_t *s, size_t n, pd_bytes *out,
                    pd_codepoints *cps) {
  pd_array_clear(cps);
  for (size_t i = 0; i < n;) {
    uint32_t cp;
    size_t k = pd_utf8_decode(s + i, n - i, &cp);
    if (!pd__decompose(a, cp == PD_UTF8_INVALID ? PD__RAW | s[i] : cp, cps)) return false;
    i += k;
  }
  pd__reorder(cps->data, cps->len);
  cps->len = pd__compose_all(cps->data, cps->len);
  pd_array_clear(out);
  if (!pd_array_reserve(a, out, 4 * cps->len + 1)) return false;
  for (size_t i = 0; i < cps->len; i++) {
    uint32_t cp = cps->data[i];
    if (cp >= PD__RAW)
      out->data[out->len++] = (uint8_t)cp;
    else
      out->len += pd_utf8_encode(cp, out->data + out->len);
  }
  return true;
}
