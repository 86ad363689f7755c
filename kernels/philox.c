/* philox.c - Philox4x32-10, the stream of cuRAND's curand_init / curand(). */
#include "philox.h"

#include "pushdown.h"

/* Round multipliers and Weyl key increments of Philox4x32 (Salmon et al., table 2). */
#define PD__M0 0xD2511F53u
#define PD__M1 0xCD9E8D57u
#define PD__W0 0x9E3779B9u
#define PD__W1 0xBB67AE85u

void pd_philox_block(const uint32_t ctr[4], uint32_t k0, uint32_t k1, uint32_t out[4]) {
  uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
  for (int round = 0; round < 10; round++) {
    uint64_t p0 = (uint64_t)PD__M0 * c0, p1 = (uint64_t)PD__M1 * c2;
    uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0;
    uint32_t hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
    k0 += PD__W0;
    k1 += PD__W1;
  }
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
}

/* ctr = subsequence * 2^64 + block as a 128-bit little-endian counter (words 0..3);
 * cuRAND's skipahead_sequence adds to words 2..3, skipahead to words 0..1. */
static void pd__philox_counter(uint64_t subsequence, uint64_t block, uint32_t ctr[4]) {
  ctr[0] = (uint32_t)block;
  ctr[1] = (uint32_t)(block >> 32);
  ctr[2] = (uint32_t)subsequence;
  ctr[3] = (uint32_t)(subsequence >> 32);
}

void pd_philox4x32_10(uint64_t seed, uint64_t subsequence, uint64_t offset, uint32_t out[4]) {
  uint32_t ctr[4], blk[4];
  uint64_t block = offset >> 2; /* 4 values per block: offset / 4 < 2^62, no carry out */
  unsigned first = (unsigned)(offset & 3);
  pd__philox_counter(subsequence, block, ctr);
  pd_philox_block(ctr, (uint32_t)seed, (uint32_t)(seed >> 32), blk);
  for (unsigned i = 0; i < 4; i++) {
    if (first + i == 4) { /* the stream crosses into the next block */
      pd__philox_counter(subsequence, block + 1, ctr);
      pd_philox_block(ctr, (uint32_t)seed, (uint32_t)(seed >> 32), blk);
    }
    out[i] = blk[(first + i) & 3];
  }
}
