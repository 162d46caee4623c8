/* Values as JSON text: bytes read from a replayed process, typed by their DWARF type
 * (integers, characters, booleans, floating point, pointers, enumerators, structs and
 * unions as objects, arrays as arrays, char arrays as strings) or as hex. */
#ifndef DEJA_QUERY_VALUES_H
#define DEJA_QUERY_VALUES_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define QUERY_VALUE_MAX 512

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
/* Member NAME of struct or union TYPE: its byte offset and type; false when TYPE has no
 * such member (or it is a bit field). */
bool query_type_member(Dwarf_Die *type, const char *name, size_t *off, Dwarf_Die *mtype);
/* The element type of array TYPE and its size; false when TYPE is no array. */
bool query_type_element(Dwarf_Die *type, Dwarf_Die *etype, size_t *esize);

#endif
