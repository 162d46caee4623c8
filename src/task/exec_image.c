#include "task/exec_image.h"

#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "common/log.h"
#include "task/vdso_patch.h"

#ifndef ARCH_SET_CPUID
#define ARCH_SET_CPUID 0x1012
#endif

/* Appends the string at ADDR (and its NUL) to the growing buffer. */
static int append_str(struct task *t, uint64_t addr, char **buf, uint32_t *len) {
  char *s = task_read_str(t, addr, 1 << 20);
  if (!s)
    return -1;
  size_t n = strlen(s) + 1;
  *buf = xrealloc(*buf, *len + n);
  memcpy(*buf + *len, s, n);
  *len += (uint32_t)n;
  free(s);
  return 0;
}

int exec_image_prepare(struct task *t, char **strings, uint32_t *len, uint32_t *argc,
                       uint32_t *envc, char *err, size_t errlen) {
  *strings = NULL;
  *len = *argc = *envc = 0;
  uint64_t sp = t->regs.rsp, word, p = sp;
  if (task_read_mem(t, sp, &word, 8) < 0)
    goto bad;
  p = sp + 8;
  for (;; p += 8) { /* argv, then envp: NULL-terminated pointer arrays */
    if (task_read_mem(t, p, &word, 8) < 0)
      goto bad;
    if (!word)
      break;
    if (append_str(t, word, strings, len) < 0)
      goto bad;
    (*argc)++;
  }
  for (p += 8;; p += 8) {
    if (task_read_mem(t, p, &word, 8) < 0)
      goto bad;
    if (!word)
      break;
    if (append_str(t, word, strings, len) < 0)
      goto bad;
    (*envc)++;
  }
  for (p += 8;; p += 16) {
    uint64_t av[2];
    if (task_read_mem(t, p, av, 16) < 0)
      goto bad;
    if (av[0] == AT_NULL)
      break;
    /* The vDSO stays visible, its time functions made real system calls; where that
     * fails it is hidden from the program instead. */
    if (av[0] == AT_SYSINFO_EHDR && vdso_patch(t, av[1]) <= 0) {
      uint64_t ignore = AT_IGNORE;
      if (task_write_mem(t, p, &ignore, 8) < 0)
        goto bad;
    }
  }
  return 0;
bad:
  free(*strings);
  *strings = NULL;
  return seterr(err, errlen, "cannot read the initial stack of task %d at 0x%" PRIx64 ": %s",
                t->tid, p, strerror(errno));
}

int exec_image_enable_cpuid_faulting(struct task *t) {
  if (task_get_regs(t) < 0)
    return -1;
  uint64_t at = t->regs.rip;
  uint8_t saved[2], insn[2] = {0x0f, 0x05}; /* syscall */
  if (task_read_mem(t, at, saved, 2) < 0 || task_write_mem(t, at, insn, 2) < 0)
    return -1;
  uint64_t args[6] = {ARCH_SET_CPUID, 0, 0, 0, 0, 0};
  bool ok;
  int64_t r = task_inject_syscall(t, false, at, SYS_arch_prctl, args, &ok);
  if (task_write_mem(t, at, saved, 2) < 0 || !ok)
    return -1;
  return r == 0 ? 0 : 1;
}
