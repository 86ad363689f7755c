/* verify.h - what the CPU and CUDA verifiers share inside the kernels module. */
#ifndef PD_KERNELS_VERIFY_H
#define PD_KERNELS_VERIFY_H
#include "pushdown.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Checks the scalar arguments and NULL pointers of a, reading no buffer (the CUDA
 * buffers live on the device). */
pd_status pd_kernels_check_verify(const pd_verify_args *a, pd_error *err);

#ifdef __cplusplus
}
#endif
#endif
