/* bpe_train.c - trains byte-level BPE merges on text files and writes a Hugging
 * Face tokenizer.json (+ tokenizer_config.json) that pd_vocab_load_hf loads: the
 * project's own vocabulary for machines without the shared tokenizers.
 *
 *   bpe_train --out DIR [--merges N] FILE...
 *
 * Words are cut with the Llama-3 pattern (masks/pretok.h). Ids 0..255 are the
 * bytes; each round merges the most frequent adjacent pair (ties: lowest left id,
 * then lowest right id) until N merges or no pair occurs twice. One special token,
 * <|endoftext|>, follows and is the stop token. Output is deterministic. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "masks/pretok.h"
#include "masks/unicode.h"

typedef struct bt_word {
  uint32_t *sym; /* token ids */
  size_t n;
  uint64_t count;
} bt_word;

typedef struct bt_tok {
  uint8_t *bytes;
  size_t len;
} bt_tok;

typedef struct bt_pair {
  uint64_t key; /* left << 32 | right; 0 with count 0 = empty */
  uint64_t count;
} bt_pair;

typedef struct bt {
  bt_word *words;
  size_t n_words, cap_words;
  bt_tok *toks;
  size_t n_toks;
  uint32_t (*merges)[2];
  size_t n_merges;
} bt;

static void *bt_alloc(size_t n) {
  void *p = calloc(1, n ? n : 1);
  if (!p) {
    fprintf(stderr, "bpe_train: out of memory\n");
    exit(2);
  }
  return p;
}

static void *bt_grow(void *p, size_t n) {
  p = realloc(p, n);
  if (!p) {
    fprintf(stderr, "bpe_train: out of memory\n");
    exit(2);
  }
  return p;
}

/* Adds one occurrence of a word; equal words share an entry (linear probing on a
 * side table would be faster, but a few thousand distinct words need no more). */
static void bt_add_word(bt *t, const uint8_t *s, size_t n, uint64_t *hash_slots, size_t mask) {
  uint64_t h = 1469598103934665603u;
  for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 1099511628211u;
  for (size_t k = h & mask;; k = (k + 1) & mask) {
    if (!hash_slots[k]) {
      if (t->n_words == t->cap_words) {
        t->cap_words = t->cap_words ? 2 * t->cap_words : 1024;
        t->words = bt_grow(t->words, t->cap_words * sizeof *t->words);
      }
      bt_word *w = &t->words[t->n_words];
      w->sym = bt_alloc(n * sizeof *w->sym);
      for (size_t i = 0; i < n; i++) w->sym[i] = s[i];
      w->n = n;
      w->count = 1;
      hash_slots[k] = ++t->n_words;
      return;
    }
    bt_word *w = &t->words[hash_slots[k] - 1];
    int same = w->n == n;
    for (size_t i = 0; same && i < n; i++) same = w->sym[i] == s[i];
    if (same) {
      w->count++;
      return;
    }
  }
}

static char *bt_read(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0, got;
  char *buf = bt_alloc(cap);
  while ((got = fread(buf + n, 1, cap - n, f)) > 0)
    if ((n += got) == cap) buf = bt_grow(buf, cap *= 2);
  fclose(f);
  *len = n;
  return buf;
}

static int bt_load(bt *t, char **files, int n_files) {
  size_t mask = (1u << 20) - 1;
  uint64_t *slots = bt_alloc((mask + 1) * sizeof *slots);
  for (int i = 0; i < n_files; i++) {
    size_t len;
    char *text = bt_read(files[i], &len);
    if (!text) {
      fprintf(stderr, "bpe_train: cannot read '%s'\n", files[i]);
      return 2;
    }
    for (size_t at = 0; at < len;) {
      size_t k = pd_pretok_next(PD_PRETOK_LLAMA3, (const uint8_t *)text + at, len - at);
      if (t->n_words * 2 > mask) {
        fprintf(stderr, "bpe_train: too many distinct words\n");
        return 2;
      }
      bt_add_word(t, (const uint8_t *)text + at, k, slots, mask);
      at += k;
    }
    free(text);
  }
  free(slots);
  return 0;
}

static void bt_count(bt_pair *tab, size_t mask, uint64_t key, uint64_t c) {
  for (size_t k = (key * 0x9E3779B97F4A7C15u) >> 40 & mask;; k = (k + 1) & mask)
    if (tab[k].count == 0 || tab[k].key == key) {
      tab[k].key = key;
      tab[k].count += c;
      return;
    }
}

/* The most frequent pair (ties to the lowest key); count 0 when none. */
static bt_pair bt_best(const bt *t) {
  size_t total = 0;
  for (size_t i = 0; i < t->n_words; i++) total += t->words[i].n;
  size_t mask = 1;
  while (mask < 2 * total + 2) mask = mask * 2 + 1;
  bt_pair *tab = bt_alloc((mask + 1) * sizeof *tab), best = {0, 0};
  for (size_t i = 0; i < t->n_words; i++)
    for (size_t j = 0; j + 1 < t->words[i].n; j++)
      bt_count(tab, mask, (uint64_t)t->words[i].sym[j] << 32 | t->words[i].sym[j + 1],
               t->words[i].count);
  for (size_t k = 0; k <= mask; k++)
    if (tab[k].count > best.count ||
        (tab[k].count == best.count && tab[k].count && tab[k].key < best.key))
      best = tab[k];
  free(tab);
  return best;
}

/* The id of the token with these bytes, appending it when new. */
static uint32_t bt_token(bt *t, uint8_t *bytes, size_t len) {
  for (size_t i = 0; i < t->n_toks; i++)
    if (t->toks[i].len == len && !memcmp(t->toks[i].bytes, bytes, len)) {
      free(bytes);
      return (uint32_t)i;
    }
  t->toks = bt_grow(t->toks, (t->n_toks + 1) * sizeof *t->toks);
  t->toks[t->n_toks] = (bt_tok){bytes, len};
  return (uint32_t)t->n_toks++;
}

static void bt_merge(bt *t, uint32_t l, uint32_t r) {
  size_t len = t->toks[l].len + t->toks[r].len;
  uint8_t *b = bt_alloc(len);
  memcpy(b, t->toks[l].bytes, t->toks[l].len);
  memcpy(b + t->toks[l].len, t->toks[r].bytes, t->toks[r].len);
  uint32_t id = bt_token(t, b, len);
  t->merges = bt_grow(t->merges, (t->n_merges + 1) * sizeof *t->merges);
  t->merges[t->n_merges][0] = l;
  t->merges[t->n_merges++][1] = r;
  for (size_t i = 0; i < t->n_words; i++) {
    bt_word *w = &t->words[i];
    size_t o = 0;
    for (size_t j = 0; j < w->n; j++)
      if (j + 1 < w->n && w->sym[j] == l && w->sym[j + 1] == r)
        w->sym[o++] = id, j++;
      else
        w->sym[o++] = w->sym[j];
    w->n = o;
  }
}

/* A token's text as a JSON string: each byte as GPT-2's character for it. */
static void bt_put_token(FILE *f, const bt_tok *k) {
  fputc('"', f);
  for (size_t i = 0; i < k->len; i++) {
    uint8_t u[4];
    size_t n = pd_utf8_encode(pd_byte_char(k->bytes[i]), u);
    if (n == 1 && (u[0] == '"' || u[0] == '\\')) fputc('\\', f);
    fwrite(u, 1, n, f);
  }
  fputc('"', f);
}

static void bt_put_regex(FILE *f, const char *re) {
  fputc('"', f);
  for (; *re; re++) {
    if (*re == '"' || *re == '\\') fputc('\\', f);
    fputc(*re, f);
  }
  fputc('"', f);
}

static int bt_write(const bt *t, const char *dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s/tokenizer.json", dir);
  FILE *f = fopen(path, "wb");
  if (!f) return fprintf(stderr, "bpe_train: cannot write '%s'\n", path), 2;
  fprintf(f,
          "{\"version\": \"1.0\", \"truncation\": null, \"padding\": null,\n"
          " \"added_tokens\": [{\"id\": %zu, \"content\": \"<|endoftext|>\", "
          "\"single_word\": false, \"lstrip\": false, \"rstrip\": false, "
          "\"normalized\": false, \"special\": true}],\n \"normalizer\": null,\n"
          " \"pre_tokenizer\": {\"type\": \"Sequence\", \"pretokenizers\": [{\"type\": "
          "\"Split\", \"pattern\": {\"Regex\": ",
          t->n_toks);
  bt_put_regex(f, pd_pretok_regex(PD_PRETOK_LLAMA3));
  fprintf(f,
          "}, \"behavior\": \"Isolated\", \"invert\": false}, {\"type\": \"ByteLevel\", "
          "\"add_prefix_space\": false, \"trim_offsets\": true, \"use_regex\": false}]},\n"
          " \"post_processor\": null,\n \"decoder\": {\"type\": \"ByteLevel\", "
          "\"add_prefix_space\": true, \"trim_offsets\": true, \"use_regex\": true},\n"
          " \"model\": {\"type\": \"BPE\", \"dropout\": null, \"unk_token\": null, "
          "\"byte_fallback\": false, \"ignore_merges\": false,\n  \"vocab\": {");
  for (size_t i = 0; i < t->n_toks; i++) {
    fputs(i ? ",\n   " : "\n   ", f);
    bt_put_token(f, &t->toks[i]);
    fprintf(f, ": %zu", i);
  }
  fputs("},\n  \"merges\": [", f);
  for (size_t i = 0; i < t->n_merges; i++) {
    fputs(i ? ",\n   [" : "\n   [", f);
    bt_put_token(f, &t->toks[t->merges[i][0]]);
    fputs(", ", f);
    bt_put_token(f, &t->toks[t->merges[i][1]]);
    fputc(']', f);
  }
  fputs("]}}\n", f);
  int bad = fclose(f) != 0;
  snprintf(path, sizeof path, "%s/tokenizer_config.json", dir);
  f = fopen(path, "wb");
  if (!f || bad) return fprintf(stderr, "bpe_train: cannot write '%s'\n", path), 2;
  fputs(
      "{\"eos_token\": \"<|endoftext|>\", \"bos_token\": null, "
      "\"tokenizer_class\": \"PreTrainedTokenizerFast\"}\n",
      f);
  return fclose(f) ? 2 : 0;
}

int main(int argc, char **argv) {
  const char *out = NULL;
  long n_merges = 2800;
  int first = 1;
  for (; first < argc && argv[first][0] == '-' && first + 1 < argc; first += 2)
    if (!strcmp(argv[first], "--out"))
      out = argv[first + 1];
    else if (!strcmp(argv[first], "--merges"))
      n_merges = strtol(argv[first + 1], NULL, 10);
    else
      break;
  if (!out || first >= argc || n_merges < 0) {
    fprintf(stderr, "usage: bpe_train --out DIR [--merges N] FILE...\n");
    return 2;
  }
  bt t = {0};
  for (int b = 0; b < 256; b++) {
    uint8_t *one = bt_alloc(1);
    one[0] = (uint8_t)b;
    bt_token(&t, one, 1);
  }
  int rc = bt_load(&t, argv + first, argc - first);
  for (long m = 0; !rc && m < n_merges; m++) {
    bt_pair p = bt_best(&t);
    if (p.count < 2) break;
    bt_merge(&t, (uint32_t)(p.key >> 32), (uint32_t)p.key);
  }
  if (!rc) rc = bt_write(&t, out);
  if (!rc)
    printf("bpe_train: %zu words, %zu merges, %zu tokens + 1 special\n", t.n_words, t.n_merges,
           t.n_toks);
  for (size_t i = 0; i < t.n_words; i++) free(t.words[i].sym);
  for (size_t i = 0; i < t.n_toks; i++) free(t.toks[i].bytes);
  free(t.words);
  free(t.toks);
  free(t.merges);
  return rc;
}
