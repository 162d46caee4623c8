/* Backtraces by libdwfl's unwinder over a replayed thread (query_backtrace.h). */
#include "query/query_backtrace.h"

#include <elfutils/libdwfl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "query/query_syms.h"
#include "query/query_values.h"

#define MAX_FRAMES 32

struct unwind {
  struct rptask *x;
  struct user_regs_struct regs; /* where unwinding starts */
  char *out;
  size_t len, n;
  int frames;
  uint64_t first_pc; /* of the first frame shown */
  int shown;
};

/* Whether MOD is deja's preload library, or no file (the system call buffer's page). */
static bool deja_frame(Dwfl_Module *mod) {
  const char *name = mod ? dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL) : NULL;
  const char *base = name ? strrchr(name, '/') : NULL;
  return !mod || (base && !strncmp(base + 1, "libdeja-preload", 15));
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_arg) {
  (void)dwfl;
  struct unwind *u = arg;
  if (*thread_arg)
    return 0;
  *thread_arg = u;
  return u->x->t.tid;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg) {
  (void)dwfl;
  struct unwind *u = arg;
  return task_read_mem(&u->x->t, addr, result, sizeof *result) == 0;
}

/* The DWARF register numbers of x86-64: rax rdx rcx rbx rsi rdi rbp rsp r8-r15 rip. */
static bool initial_registers(Dwfl_Thread *thread, void *arg) {
  const struct user_regs_struct *r = &((struct unwind *)arg)->regs;
  Dwarf_Word regs[17] = {r->rax, r->rdx, r->rcx, r->rbx, r->rsi, r->rdi, r->rbp, r->rsp, r->r8,
                         r->r9,  r->r10, r->r11, r->r12, r->r13, r->r14, r->r15, r->rip};
  return dwfl_thread_state_registers(thread, 0, 17, regs);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
    .next_thread = next_thread,
    .memory_read = memory_read,
    .set_initial_registers = initial_registers,
};

static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
};

static int frame(Dwfl_Frame *state, void *arg) {
  struct unwind *u = arg;
  Dwarf_Addr pc;
  bool activation;
  if (!dwfl_frame_pc(state, &pc, &activation) || u->frames++ >= MAX_FRAMES)
    return DWARF_CB_ABORT;
  Dwarf_Addr at = activation ? pc : pc - 1; /* a return address: inside the call */
  Dwfl_Module *mod = dwfl_addrmodule(dwfl_thread_dwfl(dwfl_frame_thread(state)), at);
  if (!u->first_pc && deja_frame(mod))
    return DWARF_CB_OK;
  if (!u->first_pc)
    u->first_pc = at;
  const char *sym = mod ? dwfl_module_addrname(mod, at) : NULL;
  char fn[256];
  snprintf(fn, sizeof fn, "%s", sym ? sym : "?");
  if (sym && !strncmp(sym, "_Z", 2)) /* C++: as written */
    query_syms_source_name(mod, at, fn, sizeof fn);
  Dwfl_Line *line = mod ? dwfl_module_getsrc(mod, at) : NULL;
  int lineno = 0;
  const char *file = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
  const char *base = file ? strrchr(file, '/') : NULL;
  char text[400], json[900];
  if (file)
    snprintf(text, sizeof text, "%s (%s:%d)", fn, base ? base + 1 : file, lineno);
  else
    snprintf(text, sizeof text, "%s (0x%" PRIx64 ")", fn, (uint64_t)pc);
  query_json_string(text, strlen(text), json, sizeof json);
  if (u->n < u->len)
    u->n += (size_t)snprintf(u->out + u->n, u->len - u->n, "%s%s", u->shown++ ? "," : "", json);
  return DWARF_CB_OK;
}

uint64_t query_backtrace_json(struct rptask *x, bool called, char *out, size_t len) {
  struct unwind u = {.x = x, .regs = x->t.regs, .out = out, .len = len};
  uint64_t ret;
  if (called && task_read_mem(&x->t, u.regs.rsp, &ret, sizeof ret) == 0) {
    u.regs.rip = ret; /* the `call' into it, undone */
    u.regs.rsp += 8;
  }
  u.n = (size_t)snprintf(out, len, "[");
  Dwfl *dwfl = dwfl_begin(&callbacks);
  if (dwfl) {
    dwfl_report_begin(dwfl);
    int rc = dwfl_linux_proc_report(dwfl, x->pid);
    dwfl_report_end(dwfl, NULL, NULL);
    if (rc == 0 && dwfl_attach_state(dwfl, NULL, x->pid, &thread_callbacks, &u))
      dwfl_getthread_frames(dwfl, x->t.tid, frame, &u);
    dwfl_end(dwfl);
  }
  if (u.n + 2 <= len)
    snprintf(out + u.n, len - u.n, "]");
  else if (len > 2)
    snprintf(out + len - 2, 2, "]");
  return u.first_pc;
}
