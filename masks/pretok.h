/* pretok.h - pre-tokenizers: cut a normalized text into the words BPE merges
 * within. The split patterns of the known tokenizers are implemented by hand
 * (each function's comment gives its regex); pd_pretok_identify maps a
 * tokenizer.json Split regex to one of them. */
#ifndef PD_MASKS_PRETOK_H
#define PD_MASKS_PRETOK_H
#include <stddef.h>
#include <stdint.h>

typedef enum pd_pretok {
  PD_PRETOK_NONE = 0, /* the whole segment is one word */
  PD_PRETOK_GPT2,     /* GPT-2 (ByteLevel use_regex) */
  PD_PRETOK_LLAMA3,   /* Llama-3: numbers in runs of up to 3 */
  PD_PRETOK_QWEN2,    /* Qwen2/3: as Llama-3 with single-digit numbers */
  PD_PRETOK_GPT4O     /* o200k: case-aware words, contractions attached */
} pd_pretok;

/* The pattern whose regex source is exactly re (len bytes); -1 when unknown. */
int pd_pretok_identify(const char *re, size_t len);
/* The regex source of a pattern (for tools that write tokenizer.json). */
const char *pd_pretok_regex(pd_pretok p);
/* Length in bytes of the word starting at s[0] (n >= 1); always >= 1. */
size_t pd_pretok_next(pd_pretok p, const uint8_t *s, size_t n);

#endif
