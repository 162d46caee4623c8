/* Typed values as JSON text (query_values.h). */
#include "query/query_values.h"

#include <dwarf.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

void query_hex_json(const uint8_t *bytes, size_t len, char *out, size_t outlen) {
  size_t n = 0;
  if (outlen < 3) {
    if (outlen)
      out[0] = 0;
    return;
  }
  out[n++] = '"';
  for (size_t i = 0; i < len && n + 3 < outlen; i++)
    n += (size_t)snprintf(out + n, outlen - n, "%02x", bytes[i]);
  out[n++] = '"';
  out[n] = 0;
}

void query_json_string(const char *text, size_t len, char *out, size_t outlen) {
  size_t n = 0;
  if (outlen < 3) {
    if (outlen)
      out[0] = 0;
    return;
  }
  out[n++] = '"';
  for (size_t i = 0; i < len && n + 8 < outlen; i++) {
    unsigned char c = (unsigned char)text[i];
    if (c == '"' || c == '\\')
      n += (size_t)snprintf(out + n, outlen - n, "\\%c", c);
    else if (c == '\n')
      n += (size_t)snprintf(out + n, outlen - n, "\\n");
    else if (c < 0x20 || c >= 0x7f)
      n += (size_t)snprintf(out + n, outlen - n, "\\u%04x", c);
    else
      out[n++] = (char)c;
  }
  out[n++] = '"';
  out[n] = 0;
}

/* TYPE without typedefs and qualifiers. */
static bool peeled(Dwarf_Die *type, Dwarf_Die *out) { return dwarf_peel_type(type, out) == 0; }

size_t query_type_size(Dwarf_Die *type) {
  Dwarf_Word size;
  return type && dwarf_aggregate_size(type, &size) == 0 ? (size_t)size : 0;
}

static bool encoding(Dwarf_Die *base, Dwarf_Word *enc) {
  Dwarf_Attribute at;
  return dwarf_attr(base, DW_AT_encoding, &at) && dwarf_formudata(&at, enc) == 0;
}

int query_type_is_float(Dwarf_Die *type) {
  Dwarf_Die t;
  Dwarf_Word enc;
  return type && peeled(type, &t) && dwarf_tag(&t) == DW_TAG_base_type && encoding(&t, &enc) &&
         enc == DW_ATE_float;
}

static uint64_t unsigned_of(const uint8_t *b, size_t len) {
  uint64_t v = 0;
  memcpy(&v, b, len < 8 ? len : 8);
  return v;
}

static int64_t signed_of(const uint8_t *b, size_t len) {
  uint64_t v = unsigned_of(b, len);
  if (len < 8 && (v >> (len * 8 - 1) & 1))
    v |= ~0ull << (len * 8);
  return (int64_t)v;
}

/* An enumerator of enumeration type T with value V, quoted into OUT; false when none. */
static bool enumerator(Dwarf_Die *t, int64_t v, char *out, size_t outlen) {
  Dwarf_Die c;
  if (dwarf_child(t, &c) != 0)
    return false;
  do {
    Dwarf_Attribute at;
    Dwarf_Sword sv;
    const char *name = dwarf_diename(&c);
    if (dwarf_tag(&c) == DW_TAG_enumerator && name && dwarf_attr(&c, DW_AT_const_value, &at) &&
        dwarf_formsdata(&at, &sv) == 0 && sv == v) {
      query_json_string(name, strlen(name), out, outlen);
      return true;
    }
  } while (dwarf_siblingof(&c, &c) == 0);
  return false;
}

static bool base_value(Dwarf_Die *t, const uint8_t *b, size_t len, char *out, size_t outlen) {
  Dwarf_Word enc;
  if (!encoding(t, &enc) || len > 8)
    return false;
  switch (enc) {
  case DW_ATE_signed:
  case DW_ATE_signed_char: snprintf(out, outlen, "%" PRId64, signed_of(b, len)); return true;
  case DW_ATE_unsigned:
  case DW_ATE_unsigned_char: snprintf(out, outlen, "%" PRIu64, unsigned_of(b, len)); return true;
  case DW_ATE_boolean:
    snprintf(out, outlen, "%s", unsigned_of(b, len) ? "true" : "false");
    return true;
  case DW_ATE_float: {
    double d;
    float f;
    if (len == 8)
      memcpy(&d, b, 8);
    else if (len == 4)
      memcpy(&f, b, 4), d = f;
    else
      return false;
    if (d != d || d - d != 0) /* nan, inf: no JSON number */
      snprintf(out, outlen, "\"%g\"", d);
    else
      snprintf(out, outlen, "%.17g", d);
    return true;
  }
  default: return false;
  }
}

/* D's unsigned attribute NAME, false without. */
static bool udata(Dwarf_Die *d, unsigned name, Dwarf_Word *v) {
  Dwarf_Attribute at;
  return dwarf_attr_integrate(d, name, &at) && dwarf_formudata(&at, v) == 0;
}

/* D's type, false without. */
static bool type_of(Dwarf_Die *d, Dwarf_Die *type) {
  Dwarf_Attribute at;
  return dwarf_attr_integrate(d, DW_AT_type, &at) && dwarf_formref_die(&at, type);
}

/* Member M's byte offset in its struct (a union's members have none: 0); false for a bit
 * field or a location that is an expression. */
static bool member_offset(Dwarf_Die *m, size_t *off) {
  Dwarf_Word v = 0, bits;
  if (udata(m, DW_AT_bit_size, &bits))
    return false;
  if (dwarf_hasattr_integrate(m, DW_AT_data_member_location) &&
      !udata(m, DW_AT_data_member_location, &v))
    return false;
  *off = (size_t)v;
  return true;
}

bool query_type_member(Dwarf_Die *type, const char *name, size_t *off, Dwarf_Die *mtype) {
  Dwarf_Die t, m;
  if (!type || !peeled(type, &t) ||
      (dwarf_tag(&t) != DW_TAG_structure_type && dwarf_tag(&t) != DW_TAG_union_type) ||
      dwarf_child(&t, &m) != 0)
    return false;
  do {
    const char *n = dwarf_diename(&m);
    if (dwarf_tag(&m) == DW_TAG_member && n && !strcmp(n, name))
      return member_offset(&m, off) && type_of(&m, mtype);
  } while (dwarf_siblingof(&m, &m) == 0);
  return false;
}

bool query_type_element(Dwarf_Die *type, Dwarf_Die *etype, size_t *esize) {
  Dwarf_Die t;
  if (!type || !peeled(type, &t) || dwarf_tag(&t) != DW_TAG_array_type || !type_of(&t, etype))
    return false;
  *esize = query_type_size(etype);
  return *esize > 0;
}

/* Appends TEXT to OUT (N used of OUTLEN), as far as it fits. */
static void append(char *out, size_t outlen, size_t *n, const char *text) {
  int k = snprintf(out + *n, outlen - *n, "%s", text);
  if (k > 0)
    *n = *n + (size_t)k < outlen ? *n + (size_t)k : outlen - 1;
}

/* Struct or union T's members as a JSON object (bit fields left out). */
static void struct_json(Dwarf_Die *t, const uint8_t *b, size_t len, char *out, size_t outlen) {
  size_t n = 0;
  int shown = 0;
  Dwarf_Die m, mt;
  append(out, outlen, &n, "{");
  if (dwarf_child(t, &m) == 0)
    do {
      size_t off, size;
      const char *name = dwarf_diename(&m);
      if (dwarf_tag(&m) != DW_TAG_member || !name || !member_offset(&m, &off) ||
          !type_of(&m, &mt) || !(size = query_type_size(&mt)) || off + size > len)
        continue;
      char key[80], value[QUERY_VALUE_MAX];
      query_json_string(name, strlen(name), key, sizeof key);
      query_value_json(&mt, b + off, size, value, sizeof value);
      append(out, outlen, &n, shown++ ? "," : "");
      append(out, outlen, &n, key);
      append(out, outlen, &n, ":");
      append(out, outlen, &n, value);
    } while (dwarf_siblingof(&m, &m) == 0);
  append(out, outlen, &n, "}");
}

/* Whether ELEM is a character type of one byte. */
static bool char_type(Dwarf_Die *elem) {
  Dwarf_Die t;
  Dwarf_Word enc;
  return peeled(elem, &t) && dwarf_tag(&t) == DW_TAG_base_type && encoding(&t, &enc) &&
         (enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char) && query_type_size(&t) == 1;
}

/* Array T's elements as a JSON array (all dimensions in one), a char array as a string
 * up to its first zero byte. */
static void array_json(Dwarf_Die *t, const uint8_t *b, size_t len, char *out, size_t outlen) {
  Dwarf_Die elem;
  size_t esize, n = 0;
  if (!query_type_element(t, &elem, &esize)) {
    query_hex_json(b, len, out, outlen);
    return;
  }
  if (char_type(&elem)) {
    query_json_string((const char *)b, strnlen((const char *)b, len), out, outlen);
    return;
  }
  append(out, outlen, &n, "[");
  for (size_t at = 0; at + esize <= len; at += esize) {
    char value[QUERY_VALUE_MAX];
    query_value_json(&elem, b + at, esize, value, sizeof value);
    append(out, outlen, &n, at ? "," : "");
    append(out, outlen, &n, value);
  }
  append(out, outlen, &n, "]");
}

void query_value_json(Dwarf_Die *type, const uint8_t *bytes, size_t len, char *out, size_t outlen) {
  Dwarf_Die t;
  if (type && peeled(type, &t)) {
    int tag = dwarf_tag(&t);
    if (tag == DW_TAG_structure_type || tag == DW_TAG_union_type) {
      struct_json(&t, bytes, len, out, outlen);
      return;
    }
    if (tag == DW_TAG_array_type) {
      array_json(&t, bytes, len, out, outlen);
      return;
    }
    if (tag == DW_TAG_base_type && base_value(&t, bytes, len, out, outlen))
      return;
    if (tag == DW_TAG_pointer_type && len == 8) {
      snprintf(out, outlen, "\"0x%" PRIx64 "\"", unsigned_of(bytes, len));
      return;
    }
    if (tag == DW_TAG_enumeration_type && len <= 8) {
      if (!enumerator(&t, signed_of(bytes, len), out, outlen))
        snprintf(out, outlen, "%" PRId64, signed_of(bytes, len));
      return;
    }
  }
  query_hex_json(bytes, len, out, outlen);
}
