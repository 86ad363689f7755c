/* schema.h - the JSON Schema front end, below the public API (for tests and
 * tools that want the IR rather than a compiled grammar). */
#ifndef PD_PDA_SCHEMA_H
#define PD_PDA_SCHEMA_H
#include "pda/ir.h"
#include "pushdown.h"

/* Compiles schema text json[0..len) into ir (empty, initialized by the caller
 * with its allocator; the root rule is set on success). *relaxed receives what a lenient
 * compile dropped, one "keyword at /pointer" per line (NUL-terminated, allocated
 * with ir->alloc, owned by the caller; "" when nothing). json NULL = any JSON
 * value (object_only: any object). */
pd_status pd_schema_to_ir(const char *json, size_t len, bool object_only,
                          const pd_grammar_options *opts, pd_ir *ir, char **relaxed, pd_error *err);

#endif
