/* Symbols, types and lines of a replayed process through elfutils libdwfl (query_syms.h). */
#include "query/query_syms.h"

#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

struct query_syms {
  Dwfl *dwfl;
  pid_t pid;
  char exe[PATH_MAX];
};

static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
};

static int report(struct query_syms *q) {
  dwfl_report_begin(q->dwfl);
  int rc = dwfl_linux_proc_report(q->dwfl, q->pid);
  dwfl_report_end(q->dwfl, NULL, NULL);
  return rc;
}

struct query_syms *query_syms_open(pid_t pid, char *err, size_t errlen) {
  struct query_syms *q = calloc(1, sizeof *q);
  if (!q || !(q->dwfl = dwfl_begin(&callbacks))) {
    snprintf(err, errlen, "cannot start libdwfl: %s", dwfl_errmsg(-1));
    free(q);
    return NULL;
  }
  q->pid = pid;
  char link[64];
  snprintf(link, sizeof link, "/proc/%d/exe", (int)pid);
  ssize_t n = readlink(link, q->exe, sizeof q->exe - 1);
  q->exe[n > 0 ? n : 0] = 0;
  if (report(q) != 0) {
    snprintf(err, errlen, "cannot read the mappings of the replayed process %d: %s", (int)pid,
             dwfl_errmsg(-1));
    query_syms_close(q);
    return NULL;
  }
  return q;
}

void query_syms_close(struct query_syms *q) {
  if (!q)
    return;
  dwfl_end(q->dwfl);
  free(q);
}

struct Dwfl *query_syms_dwfl(struct query_syms *q) {
  return q->dwfl;
}

uint64_t query_syms_code_maps(pid_t pid) {
  char path[64], line[512];
  snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
  FILE *f = fopen(path, "re");
  if (!f)
    return 0;
  XXH64_state_t *h = XXH64_createState();
  XXH64_reset(h, 0);
  while (fgets(line, sizeof line, f)) {
    char *perms = strchr(line, ' ');
    if (perms && perms[3] == 'x') /* "r-xp": code */
      XXH64_update(h, line, strlen(line));
  }
  fclose(f);
  uint64_t digest = XXH64_digest(h);
  XXH64_freeState(h);
  return digest;
}

const char *query_syms_main_name(struct query_syms *q) {
  const char *slash = strrchr(q->exe, '/');
  return slash ? slash + 1 : q->exe[0] ? q->exe : "the program";
}

/* The modules, the main executable first, without the dynamic linker's: its own copies
 * of memset, malloc and the like, there from the first event on, are not the ones the
 * program calls once its libraries are loaded. */
#define MAX_MODULES 256
struct modules {
  Dwfl_Module *m[MAX_MODULES];
  int n;
  const char *exe;
};

static int add_module(Dwfl_Module *mod, void **user, const char *name, Dwarf_Addr start,
                      void *arg) {
  (void)user;
  (void)start;
  struct modules *ms = arg;
  if (ms->n == MAX_MODULES)
    return DWARF_CB_ABORT;
  const char *base = name ? strrchr(name, '/') : NULL;
  if (base && !strncmp(base + 1, "ld-", 3) && strstr(base, ".so"))
    return DWARF_CB_OK;
  bool main = name && !strcmp(name, ms->exe);
  if (main && ms->n) {
    ms->m[ms->n++] = ms->m[0];
    ms->m[0] = mod;
  } else {
    ms->m[ms->n++] = mod;
  }
  return DWARF_CB_OK;
}

static void modules_of(struct query_syms *q, struct modules *ms) {
  ms->n = 0;
  ms->exe = q->exe;
  dwfl_getmodules(query_syms_dwfl(q), add_module, ms, 0);
}

/* Whether TAG is a scope whose name qualifies the names inside (C++). */
static bool naming_scope(int tag) {
  return tag == DW_TAG_namespace || tag == DW_TAG_class_type || tag == DW_TAG_structure_type ||
         tag == DW_TAG_union_type;
}

/* D's name with its namespaces and classes (`ns::Counter::bump'), through its declaration
 * when D is an out-of-line definition or a concrete instance of an inlined function. */
static bool qualified_name(Dwarf_Die *d, char *out, size_t len) {
  Dwarf_Die decl = *d, *scopes = NULL;
  Dwarf_Attribute at;
  for (int hops = 0; hops < 4; hops++) /* a concrete instance, its abstract one, its declaration */
    if (!(dwarf_attr(&decl, DW_AT_abstract_origin, &at) ||
          dwarf_attr(&decl, DW_AT_specification, &at)) ||
        !dwarf_formref_die(&at, &decl))
      break;
  const char *own = dwarf_diename(&decl);
  int n = own ? dwarf_getscopes_die(&decl, &scopes) : -1;
  size_t used = 0;
  for (int i = n - 1; i >= 1; i--) {
    const char *scope = dwarf_diename(&scopes[i]);
    if (scope && naming_scope(dwarf_tag(&scopes[i])) && used < len)
      used += (size_t)snprintf(out + used, len - used, "%s::", scope);
  }
  if (n >= 0 && used < len)
    snprintf(out + used, len - used, "%s", own);
  free(scopes);
  return n >= 0;
}

/* Whether D is named NAME: its own name, or with `::' its qualified one. */
static bool named(Dwarf_Die *d, const char *name) {
  const char *n = dwarf_diename(d);
  const char *last = strrchr(name, ':');
  if (!n || strcmp(n, last ? last + 1 : name))
    return false;
  char full[512];
  return !last || (qualified_name(d, full, sizeof full) && !strcmp(full, name));
}

/* D's type (typedefs and qualifiers kept), false when it has none. */
static bool type_of(Dwarf_Die *d, Dwarf_Die *type) {
  Dwarf_Attribute at;
  return dwarf_attr_integrate(d, DW_AT_type, &at) && dwarf_formref_die(&at, type);
}

/* The static address of variable D (a DW_OP_addr location), false when it has none. */
static bool static_addr(Dwarf_Die *d, Dwarf_Addr *addr) {
  Dwarf_Attribute at;
  Dwarf_Op *ops;
  size_t nops;
  if (!dwarf_attr(d, DW_AT_location, &at) || dwarf_getlocation(&at, &ops, &nops) != 0 ||
      nops != 1 || ops[0].atom != DW_OP_addr)
    return false;
  *addr = ops[0].number;
  return true;
}

/* A variable NAME with a static address among PARENT's children (DEPTH: and inside
 * functions and blocks, that many levels down). */
static bool find_var(Dwarf_Die *parent, const char *name, int depth, Dwarf_Die *out) {
  Dwarf_Die c;
  if (dwarf_child(parent, &c) != 0)
    return false;
  do {
    int tag = dwarf_tag(&c);
    Dwarf_Addr a;
    if (tag == DW_TAG_variable && named(&c, name) && static_addr(&c, &a)) {
      *out = c;
      return true;
    }
    if (((depth > 0 && (tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block)) ||
         tag == DW_TAG_namespace) &&
        find_var(&c, name, depth - (tag != DW_TAG_namespace), out))
      return true;
  } while (dwarf_siblingof(&c, &c) == 0);
  return false;
}

/* NAME in the DWARF of module MOD, looking DEPTH levels down: true with *OUT and BIAS. */
static bool var_in_module(Dwfl_Module *mod, const char *name, int depth, Dwarf_Die *out,
                          Dwarf_Addr *bias) {
  Dwarf_Die *cu = NULL;
  while ((cu = dwfl_module_nextcu(mod, cu, bias)))
    if (find_var(cu, name, depth, out))
      return true;
  return false;
}

/* Whether symbol name S is NAME, maybe with a version (`pthread_mutex_lock@@GLIBC_2.2.5'). */
static bool symbol_is(const char *s, const char *name) {
  size_t n = strlen(name);
  return s && !strncmp(s, name, n) && (s[n] == 0 || s[n] == '@');
}

/* An ELF symbol NAME of TYPE (STT_OBJECT, STT_FUNC, STT_GNU_IFUNC) defined in MOD: its
 * address and size. */
static bool module_symbol(Dwfl_Module *mod, const char *name, int type, uint64_t *addr,
                          uint64_t *size) {
  int n = dwfl_module_getsymtab(mod);
  for (int k = 1; k < n; k++) {
    GElf_Sym sym;
    GElf_Addr a;
    const char *s = dwfl_module_getsym_info(mod, k, &sym, &a, NULL, NULL, NULL);
    if (symbol_is(s, name) && GELF_ST_TYPE(sym.st_info) == type && sym.st_shndx != SHN_UNDEF) {
      *addr = a;
      *size = sym.st_size;
      return true;
    }
  }
  return false;
}

/* The same in any of MS's modules, the first that has it. */
static bool elf_symbol(struct modules *ms, const char *name, int type, uint64_t *addr,
                       uint64_t *size) {
  for (int i = 0; i < ms->n; i++)
    if (module_symbol(ms->m[i], name, type, addr, size))
      return true;
  return false;
}

int query_syms_variable(struct query_syms *q, const char *name, struct query_var *v, char *err,
                        size_t errlen) {
  struct modules ms;
  modules_of(q, &ms);
  for (int depth = 0; depth <= 8; depth += 8)
    for (int i = 0; i < ms.n; i++) {
      Dwarf_Die d;
      Dwarf_Addr bias, a;
      Dwarf_Word size;
      if (!var_in_module(ms.m[i], name, depth, &d, &bias) || !static_addr(&d, &a))
        continue;
      if (!type_of(&d, &v->type) || dwarf_aggregate_size(&v->type, &size) != 0 || !size) {
        snprintf(err, errlen,
                 "the debug information gives `%s' no type with a size deja can read: pass "
                 "its address and length as ADDR:LEN (e.g. 0x%llx:8)",
                 name, (unsigned long long)(a + bias));
        return 2;
      }
      v->addr = a + bias;
      v->size = size;
      return 0;
    }
  uint64_t addr, size;
  if (elf_symbol(&ms, name, STT_OBJECT, &addr, &size)) {
    snprintf(err, errlen,
             "`%s' has no debug information (DWARF) in %s, only an ELF symbol at 0x%llx of %llu "
             "bytes: deja cannot type it; pass ADDR:LEN instead (0x%llx:%llu), or record a "
             "program built with -g",
             name, query_syms_main_name(q), (unsigned long long)addr, (unsigned long long)size,
             (unsigned long long)addr, (unsigned long long)(size ? size : 8));
    return 2;
  }
  snprintf(err, errlen,
           "no global or static variable `%s' in %s or the libraries it loaded, in their "
           "debug information or symbols: check the name (a global or static variable, not "
           "an expression), or pass ADDR:LEN",
           name, query_syms_main_name(q));
  return QUERY_NOT_LOADED;
}

/* Function D's parameters and return type into F. */
static void describe_function(Dwarf_Die *d, struct query_func *f) {
  f->dwarf = true;
  f->returns = type_of(d, &f->ret);
  f->nparams = 0;
  Dwarf_Die c;
  if (dwarf_child(d, &c) != 0)
    return;
  do {
    if (dwarf_tag(&c) != DW_TAG_formal_parameter || f->nparams == QUERY_MAX_PARAMS)
      continue;
    struct query_param *p = &f->params[f->nparams++];
    const char *n = dwarf_diename(&c);
    snprintf(p->name, sizeof p->name, "%s", n ? n : "?");
    if (!n)
      snprintf(p->name, sizeof p->name, "arg%d", f->nparams);
    p->typed = type_of(&c, &p->type);
  } while (dwarf_siblingof(&c, &c) == 0);
}

/* Function NAME with code among PARENT's children (and in namespaces inside). */
static bool find_function(Dwarf_Die *parent, const char *name, Dwarf_Addr bias,
                          struct query_func *f) {
  Dwarf_Die c;
  if (dwarf_child(parent, &c) != 0)
    return false;
  do {
    Dwarf_Addr lo;
    int tag = dwarf_tag(&c);
    if (tag == DW_TAG_subprogram && named(&c, name) && dwarf_lowpc(&c, &lo) == 0) {
      f->addr = lo + bias;
      describe_function(&c, f);
      return true;
    }
    if (tag == DW_TAG_namespace && find_function(&c, name, bias, f))
      return true;
  } while (dwarf_siblingof(&c, &c) == 0);
  return false;
}

/* Function NAME (with code) in module MOD's DWARF. */
static bool function_in_module(Dwfl_Module *mod, const char *name, struct query_func *f) {
  Dwarf_Addr bias;
  Dwarf_Die *cu = NULL;
  while ((cu = dwfl_module_nextcu(mod, cu, &bias)))
    if (find_function(cu, name, bias, f))
      return true;
  return false;
}

/* `NAME is an IFUNC' into ERR. */
static int ifunc_error(const char *name, char *err, size_t errlen) {
  snprintf(err, errlen,
           "`%s' is an indirect function (GNU IFUNC): the library picks one of several "
           "implementations when it loads (for this CPU), and deja cannot tell which; query "
           "the implementation by its name (such as __%s_avx2 or __%s_sse2, in the "
           "library's full symbol table) or its address as 0xADDR",
           name, name, name);
  return 2;
}

/* The DWARF of the function whose code starts at ADDR in MOD (an ELF symbol that names
 * it by an alias, as `malloc' names __libc_malloc) into F; false without. */
static bool function_at(Dwfl_Module *mod, uint64_t addr, struct query_func *f) {
  Dwarf_Addr bias;
  Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, &bias);
  Dwarf_Die *scopes = NULL;
  int n = cu ? dwarf_getscopes(cu, addr - bias, &scopes) : 0;
  bool found = false;
  for (int i = 0; i < n && !found; i++) {
    Dwarf_Addr lo;
    found = dwarf_tag(&scopes[i]) == DW_TAG_subprogram && dwarf_lowpc(&scopes[i], &lo) == 0 &&
            lo + bias == addr;
    if (found)
      describe_function(&scopes[i], f);
  }
  free(scopes);
  return found;
}

/* Function NAME in module MOD, as the dynamic linker would bind it: 1 found, 0 not, or
 * an exit status (ERR). */
static int function_of_module(Dwfl_Module *mod, const char *name, struct query_func *f, char *err,
                              size_t errlen) {
  uint64_t size;
  if (module_symbol(mod, name, STT_GNU_IFUNC, &f->addr, &size))
    return -ifunc_error(name, err, errlen);
  if (function_in_module(mod, name, f))
    return 1;
  if (!module_symbol(mod, name, STT_FUNC, &f->addr, &size))
    return 0;
  if (!function_at(mod, f->addr, f))
    f->nparams = -1; /* the ABI's registers */
  return 1;
}

int query_syms_function(struct query_syms *q, const char *name, struct query_func *f, char *err,
                        size_t errlen) {
  struct modules ms;
  modules_of(q, &ms);
  memset(f, 0, sizeof *f);
  for (int i = 0; i < ms.n; i++) {
    int rc = function_of_module(ms.m[i], name, f, err, errlen);
    if (rc)
      return rc > 0 ? 0 : -rc;
  }
  snprintf(err, errlen,
           "no function `%s' in %s or the libraries it loaded (the dynamic linker's own "
           "functions are not searched): check the name, or pass the function's address as "
           "0xADDR",
           name, query_syms_main_name(q));
  return QUERY_NOT_LOADED;
}

void query_syms_source_name(struct Dwfl_Module *mod, uint64_t pc, char *out, size_t len) {
  Dwarf_Addr bias;
  Dwarf_Die *cu = dwfl_module_addrdie(mod, pc, &bias), *scopes = NULL;
  int n = cu ? dwarf_getscopes(cu, pc - bias, &scopes) : 0;
  for (int i = 0; i < n; i++)
    if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
      qualified_name(&scopes[i], out, len);
      break;
    }
  free(scopes);
}

void query_syms_where(struct query_syms *q, uint64_t pc, struct query_where *w) {
  memset(w, 0, sizeof *w);
  Dwfl_Module *mod = dwfl_addrmodule(query_syms_dwfl(q), pc);
  if (!mod) {
    report(q); /* a library loaded since */
    mod = dwfl_addrmodule(q->dwfl, pc);
  }
  if (!mod)
    return;
  const char *fn = dwfl_module_addrname(mod, pc);
  snprintf(w->function, sizeof w->function, "%s", fn ? fn : "");
  if (fn && !strncmp(fn, "_Z", 2)) /* C++: the name as written, not mangled */
    query_syms_source_name(mod, pc, w->function, sizeof w->function);
  Dwfl_Line *line = dwfl_module_getsrc(mod, pc);
  const char *file = line ? dwfl_lineinfo(line, NULL, &w->line, NULL, NULL, NULL) : NULL;
  snprintf(w->file, sizeof w->file, "%s", file ? file : "");
}
