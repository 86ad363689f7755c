/* json_span.h - the text of one member of a top-level JSON object, as written.
 * The CLI hands schemas to the library verbatim: re-serializing them with
 * Jansson prints the number 0.1 as 0.10000000000000001, which moves a
 * "minimum" and turns valid instances away. */
#ifndef PD_CLI_JSON_SPAN_H
#define PD_CLI_JSON_SPAN_H
#include <stdbool.h>
#include <stddef.h>

/* Finds member key of the object text[0..len) (a key written without
 * escapes); *at, *n = its value's text. False when absent or malformed. */
bool pd_cli_json_member(const char *text, size_t len, const char *key, const char **at,
                        size_t *n);
#endif
