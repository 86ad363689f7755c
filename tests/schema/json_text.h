/* json_text.h - writing a pd_json_doc node back as compact JSON text (tests).
 *
 * The serialization used for every JSON-Schema-Test-Suite instance: no
 * whitespace, object members in source order, numbers verbatim as the test
 * file writes them (so 1.0 stays "1.0"), strings as raw UTF-8 with only '"',
 * '\' and control characters escaped (\b \f \n \r \t, else \u00XX). */
#ifndef PDT_JSON_TEXT_H
#define PDT_JSON_TEXT_H
#include <stddef.h>

#include "pda/json.h"

/* Returns malloc'ed NUL-terminated text (caller frees), *len its length. */
char *pdt_json_text(const pd_json_doc *d, uint32_t node, size_t *len);

#endif
