/* fixture.c - the GBNF tests' vocabulary. */
#include "fixture.h"

#include <stdio.h>
#include <string.h>

pd_status pdt_gbnf_vocab(const pd_allocator *alloc, pd_vocab **out) {
  static char special[PDT_N_SPECIAL][16];
  static uint8_t bytes[256];
  const uint8_t *tokens[PDT_VOCAB_SIZE];
  size_t lens[PDT_VOCAB_SIZE];
  uint32_t flags[PDT_VOCAB_SIZE];
  for (uint32_t i = 0; i < PDT_N_SPECIAL; i++) {
    const char *name = i == 20 ? "<|eot_id|>" : i == 21 ? "<think>" : i == 22 ? "</think>" : NULL;
    if (name) snprintf(special[i], sizeof special[i], "%s", name);
    else snprintf(special[i], sizeof special[i], "<|s%u|>", i);
    tokens[i] = (const uint8_t *)special[i];
    lens[i] = strlen(special[i]);
    flags[i] = PD_TOKEN_SPECIAL;
  }
  for (uint32_t b = 0; b < 256; b++) {
    bytes[b] = (uint8_t)b;
    tokens[PDT_N_SPECIAL + b] = &bytes[b];
    lens[PDT_N_SPECIAL + b] = 1;
    flags[PDT_N_SPECIAL + b] = PD_TOKEN_NORMAL;
  }
  pd_vocab_options opts = {.allocator = alloc};
  return pd_vocab_from_list(tokens, lens, flags, PDT_VOCAB_SIZE, &opts, out, NULL);
}
