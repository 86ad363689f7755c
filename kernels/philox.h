/* philox.h - Philox4x32-10 (Salmon et al. 2011) as cuRAND runs it, and the fixed ways
 * the kernels turn its 32-bit values into numbers. Shared by the C twins and the CUDA
 * kernels, so both sides derive every decision from the same formulas. */
#ifndef PD_KERNELS_PHILOX_H
#define PD_KERNELS_PHILOX_H
#include <stdint.h>

#ifdef __CUDACC__
#define PD_HD __host__ __device__ __forceinline__
#else
#define PD_HD static inline
#endif

/* One block: the 10-round bijection of counter ctr[0..3] under key (k0, k1). */
void pd_philox_block(const uint32_t ctr[4], uint32_t k0, uint32_t k1, uint32_t out[4]);

/* u = ((v >> 9) + 0.5) * 2^-23: exact in fp32, strictly inside (0, 1), 2^23 values. */
PD_HD float pd_philox_uniform(uint32_t v) {
  return ((float)(v >> 9) + 0.5f) * (1.0f / 8388608.0f);
}

/* Stream layout of the verifier (see pd_verify_args): per row, value 0 decides the
 * draft, value PD_RACE_BASE + j is token j's exponential. */
#define PD_RACE_BASE 4u
/* -log(E) <= -log(-log(1 - 2^-24)) = 16.64 for every E a uniform above yields, so a
 * token whose log-weight plus this bound is below the best race key cannot win. */
#define PD_RACE_BOUND 17.0f

#endif
