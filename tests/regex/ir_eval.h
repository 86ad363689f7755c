/* ir_eval.h - interprets an IR expression on a short string (test helper). */
#ifndef PDT_IR_EVAL_H
#define PDT_IR_EVAL_H
#include <stddef.h>
#include <stdint.h>

#include "pda/ir.h"

/* 1 when the whole of s[0..len) matches node, 0 when not, -1 when len > 62. */
int pdt_ir_matches(const pd_ir *ir, uint32_t node, const void *s, size_t len);

#endif
