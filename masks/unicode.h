/* unicode.h - what the encoder needs from Unicode: UTF-8 decoding and
 * encoding, the character classes of the pre-tokenizer patterns, and GPT-2's
 * byte <-> character map of byte-level BPE. */
#ifndef PD_MASKS_UNICODE_H
#define PD_MASKS_UNICODE_H
#include <stddef.h>
#include <stdint.h>

typedef enum pd_uclass {
  PD_UC_OTHER = 0,
  PD_UC_LU, PD_UC_LL, PD_UC_LT, PD_UC_LM, PD_UC_LO, /* letters, \p{L} */
  PD_UC_M,     /* marks, \p{M} */
  PD_UC_N,     /* numbers, \p{N} */
  PD_UC_SPACE  /* White_Space, \s */
} pd_uclass;

typedef struct pd_unicode_range {
  uint32_t lo, hi;
  uint8_t cls;
} pd_unicode_range;

extern const pd_unicode_range pd_unicode_ranges[]; /* unicode_tables.c (generated) */
extern const size_t pd_unicode_n_ranges;

/* A byte that does not start a valid UTF-8 sequence decodes, alone, to this. */
#define PD_UTF8_INVALID 0x110000u

/* Decodes the character at s[0..n) (n >= 1) into *cp; returns its length (1..4).
 * Overlong forms, surrogates and truncated sequences give PD_UTF8_INVALID, length 1. */
size_t pd_utf8_decode(const uint8_t *s, size_t n, uint32_t *cp);
/* Writes cp (<= 0x10FFFF) as UTF-8; returns the length. */
size_t pd_utf8_encode(uint32_t cp, uint8_t out[4]);
pd_uclass pd_unicode_class(uint32_t cp);

/* GPT-2's map: byte b is written as character pd_byte_char(b) in byte-level
 * vocabularies; pd_char_byte inverts it (-1 for a character outside the map). */
uint32_t pd_byte_char(uint8_t b);
int pd_char_byte(uint32_t cp);

#endif
