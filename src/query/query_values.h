/* Values as JSON text: bytes read from a replayed process, typed by their DWARF type
 * (integers, characters, booleans, floating point, pointers and enumerators) or as hex. */
#ifndef DEJA_QUERY_VALUES_H
#define DEJA_QUERY_VALUES_H

#include <elfutils/libdw.h>
#include <stddef.h>
#include <stdint.h>

#define QUERY_VALUE_MAX 160

/* BYTES (LEN of them) as a JSON value into OUT: typed by TYPE (NULL: a hex string). */
void query_value_json(Dwarf_Die *type, const uint8_t *bytes, size_t len, char *out, size_t outlen);
/* A JSON string of BYTES in hex ("2a000000"). */
void query_hex_json(const uint8_t *bytes, size_t len, char *out, size_t outlen);
/* TEXT as a JSON string (quoted, escaped) into OUT. */
void query_json_string(const char *text, size_t len, char *out, size_t outlen);
/* Whether TYPE is passed in an SSE register (float, double). */
int query_type_is_float(Dwarf_Die *type);
/* TYPE's size in bytes (0: not known). */
size_t query_type_size(Dwarf_Die *type);

#endif
