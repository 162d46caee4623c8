/* Symbols, types and lines of a replayed process, from its ELF files and their DWARF
 * (elfutils libdwfl over the process's /proc/PID/maps): the variable or function a query
 * names, and where a pc is (function, file, line). */
#ifndef DEJA_QUERY_SYMS_H
#define DEJA_QUERY_SYMS_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define QUERY_MAX_PARAMS 16
/* What query_syms_variable and query_syms_function return when NAME is in none of the
 * files mapped now: a library the program loads later may have it. */
#define QUERY_NOT_LOADED 4

struct query_syms;
struct Dwfl_Module;

/* A global or static variable: its address in the process, size and type. */
struct query_var {
  uint64_t addr;
  size_t size;
  Dwarf_Die type; /* valid while its query_syms is open */
};

struct query_param {
  char name[64];
  bool typed;
  Dwarf_Die type;
};

/* A function: its first instruction and, with debug information, its parameters and the
 * type it returns. */
struct query_func {
  uint64_t addr;
  bool dwarf; /* false: only an ELF symbol (arguments are the ABI's registers) */
  int nparams;
  struct query_param params[QUERY_MAX_PARAMS];
  bool returns; /* dwarf: it returns a value, of type ret */
  Dwarf_Die ret;
};

/* Where a pc is. */
struct query_where {
  char function[128];
  char file[256];
  int line;
};

/* Opens the symbols of the process whose (replay) pid is PID. NULL (ERR) when libdwfl
 * cannot read its maps. */
struct query_syms *query_syms_open(pid_t pid, char *err, size_t errlen);
void query_syms_close(struct query_syms *q);
/* NAME as a variable. 0, or 2 with ERR saying what is missing and what to pass instead
 * (QUERY_NOT_LOADED: not found). */
int query_syms_variable(struct query_syms *q, const char *name, struct query_var *v, char *err,
                        size_t errlen);
/* NAME as a function. 0, or 2 or QUERY_NOT_LOADED (ERR as above). */
int query_syms_function(struct query_syms *q, const char *name, struct query_func *f, char *err,
                        size_t errlen);
/* Where PC is (empty strings and line 0 for what is not known). */
void query_syms_where(struct query_syms *q, uint64_t pc, struct query_where *w);
/* A digest of the executable mappings of the process whose (replay) pid is PID: when it
 * changes, a library was loaded or unloaded. */
uint64_t query_syms_code_maps(pid_t pid);
/* The program's main executable module's name (for messages). */
const char *query_syms_main_name(struct query_syms *q);
/* The qualified source name of the function whose code holds PC in MOD's DWARF into OUT
 * (`ns::Counter::bump' where its symbol is mangled; OUT left as it is without). */
void query_syms_source_name(struct Dwfl_Module *mod, uint64_t pc, char *out, size_t len);
/* The Dwfl itself (for unwinding: query_backtrace.c). */
struct Dwfl *query_syms_dwfl(struct query_syms *q);

#endif
