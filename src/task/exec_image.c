#include "task/exec_image.h"

#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/log.h"
#include "task/vdso_patch.h"

#ifndef ARCH_SET_CPUID
#define ARCH_SET_CPUID 0x1012
#endif

/* The new image's initial stack, read at once (argv and envp with their strings, the
 * auxiliary vector: a pread per word and string cost ~80 system calls per exec). */
struct stack_copy {
  struct task *t;
  uint64_t lo;
  uint8_t *data;
  size_t len;
};

static int read_word(struct stack_copy *c, uint64_t addr, void *out, size_t n) {
  if (addr >= c->lo && addr - c->lo <= c->len && c->len - (addr - c->lo) >= n) {
    memcpy(out, c->data + (addr - c->lo), n);
    return 0;
  }
  return task_read_mem(c->t, addr, out, n);
}

/* Appends the string at ADDR (and its NUL) to the growing buffer. */
static int append_str(struct stack_copy *c, uint64_t addr, char **buf, uint32_t *len) {
  char *s = NULL;
  const char *str;
  size_t n;
  const uint8_t *nul = addr >= c->lo && addr - c->lo < c->len
                           ? memchr(c->data + (addr - c->lo), 0, c->len - (addr - c->lo))
                           : NULL;
  if (nul) {
    str = (const char *)c->data + (addr - c->lo);
    n = (size_t)(nul - (const uint8_t *)str) + 1;
  } else {
    s = task_read_str(c->t, addr, 1 << 20);
    if (!s)
      return -1;
    str = s;
    n = strlen(s) + 1;
  }
  *buf = xrealloc(*buf, *len + n);
  memcpy(*buf + *len, str, n);
  *len += (uint32_t)n;
  free(s);
  return 0;
}

int exec_image_prepare(struct task *t, char **strings, uint32_t *len, uint32_t *argc,
                       uint32_t *envc, char *err, size_t errlen) {
  *strings = NULL;
  *len = *argc = *envc = 0;
  uint64_t sp = t->regs.rsp, word, p = sp;
  struct stack_copy c = {.t = t, .lo = sp};
  uint64_t top = proc_mapping_end(t->tid, sp);
  if (top > sp && top - sp <= (64u << 20)) {
    c.data = xmalloc(top - sp);
    c.len = task_read_mem(t, sp, c.data, top - sp) == 0 ? top - sp : 0;
  }
  if (read_word(&c, sp, &word, 8) < 0)
    goto bad;
  p = sp + 8;
  for (;; p += 8) { /* argv, then envp: NULL-terminated pointer arrays */
    if (read_word(&c, p, &word, 8) < 0)
      goto bad;
    if (!word)
      break;
    if (append_str(&c, word, strings, len) < 0)
      goto bad;
    (*argc)++;
  }
  for (p += 8;; p += 8) {
    if (read_word(&c, p, &word, 8) < 0)
      goto bad;
    if (!word)
      break;
    if (append_str(&c, word, strings, len) < 0)
      goto bad;
    (*envc)++;
  }
  for (p += 8;; p += 16) {
    uint64_t av[2];
    if (read_word(&c, p, av, 16) < 0)
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
  free(c.data);
  return 0;
bad:
  free(c.data);
  free(*strings);
  *strings = NULL;
  return seterr(err, errlen, "cannot read the initial stack of task %d at 0x%" PRIx64 ": %s",
                t->tid, p, strerror(errno));
}

bool exec_image_cpuid_native(void) {
  const char *native = getenv("DEJA_CPUID_NATIVE");
  return (native && *native == '1') || !exec_image_cpuid_faulting_possible();
}

bool exec_image_cpuid_faulting_possible(void) {
  static int possible = -1;
  /* Setting the default (cpuid allowed) changes nothing; the kernel refuses it with
   * ENODEV when the CPU cannot fault cpuid. */
  if (possible < 0)
    possible = syscall(SYS_arch_prctl, ARCH_SET_CPUID, 1) == 0;
  return possible;
}

int64_t exec_image_inject(struct task *t, long nr, const uint64_t args[6], bool *ok) {
  *ok = false;
  if (task_get_regs(t) < 0)
    return -errno;
  uint64_t at = t->regs.rip;
  uint8_t saved[2], insn[2] = {0x0f, 0x05}; /* syscall */
  if (task_read_mem(t, at, saved, 2) < 0 || task_write_mem(t, at, insn, 2) < 0)
    return -errno;
  int64_t r = task_inject_syscall(t, false, at, nr, args, ok);
  if (task_write_mem(t, at, saved, 2) < 0)
    *ok = false;
  return r;
}

int exec_image_enable_cpuid_faulting(struct task *t) {
  uint64_t args[6] = {ARCH_SET_CPUID, 0, 0, 0, 0, 0};
  bool ok;
  int64_t r = exec_image_inject(t, SYS_arch_prctl, args, &ok);
  if (!ok)
    return -1;
  return r == 0 ? 0 : 1;
}
