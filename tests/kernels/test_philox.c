/* test_philox.c - Philox4x32-10 against Random123's published known answers, an
 * independent implementation written another way, and cuRAND's stream semantics. */
#include <string.h>

#include "support.h"

#include "kernels/philox.h"

/* Random123 kat_vectors: counter[4], key[2] -> output[4]. */
static const uint32_t pdt_kat[3][10] = {
    {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
    {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d,
     0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
    {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09,
     0x94fdcceb, 0x5001e420, 0x24126ea1},
};

/* A second Philox written from the paper's definition in another shape: the key of round
 * i is computed as key + i * W directly, the 32x32 product through four 16-bit halves. */
static void pdt_mulhilo(uint32_t a, uint32_t b, uint32_t *hi, uint32_t *lo) {
  uint32_t a0 = a & 0xFFFF, a1 = a >> 16, b0 = b & 0xFFFF, b1 = b >> 16;
  uint32_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  uint32_t mid = (p00 >> 16) + (p01 & 0xFFFF) + (p10 & 0xFFFF);
  *lo = (mid << 16) | (p00 & 0xFFFF);
  *hi = p11 + (p01 >> 16) + (p10 >> 16) + (mid >> 16);
}

static void pdt_philox_ref(const uint32_t in[4], const uint32_t key[2], uint32_t out[4]) {
  uint32_t x[4] = {in[0], in[1], in[2], in[3]};
  for (uint32_t i = 0; i < 10; i++) {
    uint32_t k0 = key[0] + i * 0x9E3779B9u, k1 = key[1] + i * 0xBB67AE85u, h0, l0, h1, l1;
    pdt_mulhilo(0xD2511F53u, x[0], &h0, &l0);
    pdt_mulhilo(0xCD9E8D57u, x[2], &h1, &l1);
    uint32_t y[4] = {h1 ^ x[1] ^ k0, l1, h0 ^ x[3] ^ k1, l0};
    for (int j = 0; j < 4; j++) x[j] = y[j];
  }
  for (int j = 0; j < 4; j++) out[j] = x[j];
}

static void test_known_answers(void **state) {
  (void)state;
  for (int v = 0; v < 3; v++) {
    uint32_t out[4], ref[4];
    pd_philox_block(pdt_kat[v], pdt_kat[v][4], pdt_kat[v][5], out);
    pdt_philox_ref(pdt_kat[v], pdt_kat[v] + 4, ref);
    for (int j = 0; j < 4; j++) {
      assert_int_equal(out[j], pdt_kat[v][6 + j]);
      assert_int_equal(ref[j], pdt_kat[v][6 + j]);
    }
  }
  /* curand_init(0, 0, 0): counter 0, key 0, the first vector. */
  uint32_t out[4];
  pd_philox4x32_10(0, 0, 0, out);
  for (int j = 0; j < 4; j++) assert_int_equal(out[j], pdt_kat[0][6 + j]);
}

/* cuRAND's generator state, emulated from its documented behaviour: curand_init sets
 * the counter to 0 and the key to the seed, skips subsequence * 2^66 values (adds to
 * counter words 2..3) then offset values (offset / 4 blocks and offset % 4 values);
 * curand() returns the next value of the current block, moving to the next block (a
 * 128-bit increment) after the fourth. */
typedef struct pdt_curand {
  uint32_t ctr[4], key[2], out[4];
  unsigned idx;
} pdt_curand;

static void pdt_add128(uint32_t c[4], uint64_t lo, uint64_t hi) {
  uint64_t carry = 0;
  uint64_t add[4] = {lo & 0xFFFFFFFF, lo >> 32, hi & 0xFFFFFFFF, hi >> 32};
  for (int i = 0; i < 4; i++) {
    uint64_t s = (uint64_t)c[i] + add[i] + carry;
    c[i] = (uint32_t)s;
    carry = s >> 32;
  }
}

static void pdt_curand_init(uint64_t seed, uint64_t sub, uint64_t offset, pdt_curand *s) {
  memset(s, 0, sizeof *s);
  s->key[0] = (uint32_t)seed;
  s->key[1] = (uint32_t)(seed >> 32);
  pdt_add128(s->ctr, 0, sub);
  pdt_add128(s->ctr, offset / 4, 0);
  s->idx = (unsigned)(offset % 4);
  pdt_philox_ref(s->ctr, s->key, s->out);
}

static uint32_t pdt_curand_next(pdt_curand *s) {
  uint32_t v = s->out[s->idx++];
  if (s->idx == 4) {
    pdt_add128(s->ctr, 1, 0);
    pdt_philox_ref(s->ctr, s->key, s->out);
    s->idx = 0;
  }
  return v;
}

static void test_stream_semantics(void **state) {
  (void)state;
  const uint64_t seeds[] = {0, 1, 0x123456789abcdefull, UINT64_MAX};
  const uint64_t subs[] = {0, 1, 7, 0xffffffffull, 0x100000000ull, UINT64_MAX};
  const uint64_t offs[] = {0, 1, 2, 3, 4, 5, 1023, 0xfffffffcull, 0xffffffffull,
                           0x3fffffffffffffffull, UINT64_MAX - 3, UINT64_MAX};
  for (size_t a = 0; a < 4; a++)
    for (size_t b = 0; b < 6; b++)
      for (size_t c = 0; c < 12; c++) {
        pdt_curand s;
        pdt_curand_init(seeds[a], subs[b], offs[c], &s);
        uint32_t out[4];
        pd_philox4x32_10(seeds[a], subs[b], offs[c], out);
        for (int j = 0; j < 4; j++) assert_int_equal(out[j], pdt_curand_next(&s));
      }
}

/* Consecutive calls at offset, offset + 4, ... tile the stream curand() walks. */
static void test_stream_tiles(void **state) {
  (void)state;
  for (uint64_t start = 0; start < 8; start++) {
    pdt_curand s;
    pdt_curand_init(42, 3, start, &s);
    for (uint64_t o = start; o < start + 64; o += 4) {
      uint32_t out[4];
      pd_philox4x32_10(42, 3, o, out);
      for (int j = 0; j < 4; j++) assert_int_equal(out[j], pdt_curand_next(&s));
    }
  }
}

static void test_uniform(void **state) {
  (void)state;
  assert_true(pd_philox_uniform(0) > 0.0f);
  assert_true(pd_philox_uniform(UINT32_MAX) < 1.0f);
  assert_true(pd_philox_uniform(0) == 0.5f / 8388608.0f);
  assert_true(pd_philox_uniform(0x80000000u) == 0.5f + 0.5f / 8388608.0f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_known_answers),
      cmocka_unit_test(test_stream_semantics),
      cmocka_unit_test(test_stream_tiles),
      cmocka_unit_test(test_uniform),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
