/* 32-bit system calls from 64-bit code (see syscall_compat32.h). Only calls whose
 * arguments are plain numbers or pointers to the same bytes as their 64-bit twins: the
 * recorder records the twin, replay emulates it (its result and the memory it wrote). Calls
 * that change the address space or the task (mmap, brk, execve, clone) are not here:
 * replay would have to make them for real as 32-bit calls; exit and exit_group are (replay
 * makes the 32-bit call itself again, as it would the 64-bit one). */
#include "syscalls/syscall_compat32.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>

struct compat_call {
  int nr32, nr64;
  const char *name;
};

/* i386 numbers (arch/x86/entry/syscalls/syscall_32.tbl) and their x86-64 twins. */
static const struct compat_call compat_calls[] = {
    {1, SYS_exit, "exit"},
    {3, SYS_read, "read"},
    {4, SYS_write, "write"},
    {6, SYS_close, "close"},
    {20, SYS_getpid, "getpid"},
    {29, SYS_pause, "pause"},
    {41, SYS_dup, "dup"},
    {42, SYS_pipe, "pipe"},
    {63, SYS_dup2, "dup2"},
    {64, SYS_getppid, "getppid"},
    {122, SYS_uname, "uname"},
    {158, SYS_sched_yield, "sched_yield"},
    {199, SYS_getuid, "getuid32"},
    {200, SYS_getgid, "getgid32"},
    {201, SYS_geteuid, "geteuid32"},
    {202, SYS_getegid, "getegid32"},
    {224, SYS_gettid, "gettid"},
    {252, SYS_exit_group, "exit_group"},
    {330, SYS_dup3, "dup3"},
    {331, SYS_pipe2, "pipe2"},
    {355, SYS_getrandom, "getrandom"},
    {403, SYS_clock_gettime, "clock_gettime64"},
};
#define NCALLS (sizeof compat_calls / sizeof compat_calls[0])

static const struct compat_call *find(long nr32) {
  for (size_t i = 0; i < NCALLS; i++)
    if (compat_calls[i].nr32 == nr32)
      return &compat_calls[i];
  return NULL;
}

const char *syscall_compat32_name(long nr32) {
  const struct compat_call *c = find(nr32);
  return c ? c->name : NULL;
}

bool syscall_compat32_view(const struct user_regs_struct *in, struct user_regs_struct *out) {
  const struct compat_call *c = find((long)in->orig_rax);
  if (!c)
    return false;
  *out = *in;
  out->orig_rax = (unsigned long long)c->nr64;
  /* The kernel reads the low 32 bits of each register, zero-extended. */
  out->rdi = (uint32_t)in->rbx;
  out->rsi = (uint32_t)in->rcx;
  out->rdx = (uint32_t)in->rdx;
  out->r10 = (uint32_t)in->rsi;
  out->r8 = (uint32_t)in->rdi;
  out->r9 = (uint32_t)in->rbp;
  return true;
}

const char *syscall_compat32_list(void) {
  return "exit, read, write, close, getpid, pause, dup, pipe, dup2, getppid, uname, sched_yield, "
         "getuid32, getgid32, geteuid32, getegid32, gettid, exit_group, dup3, pipe2, getrandom, "
         "clock_gettime64";
}
