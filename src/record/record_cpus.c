/* What the recorded program sees of the CPUs, and chaos mode's mmap addresses.
 *
 * deja runs the program on one CPU. It tells the program about COUNT CPUs (1, or 1-8 at
 * random under --chaos), one of them the CPU it really runs on, the same way everywhere it
 * looks: sched_getaffinity's mask, /sys/devices/system/cpu/{online,possible,present}
 * (sysconf(_SC_NPROCESSORS_ONLN/CONF) read these) and /proc/cpuinfo. Opening one of those
 * files opens a copy made at the start instead (a sealed memfd of deja's, through
 * /proc/DEJA/fd/N; not for a program that changed its uid, which could not open it); the
 * path is written below the program's stack red zone for the call and the bytes there
 * restored afterwards. sched_setaffinity does nothing and succeeds,
 * as with rr: the program cannot move off deja's CPU. The results are recorded like any
 * other, so replay shows the same CPUs.
 *
 * Under --chaos an mmap without an address gets a random one as its hint. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/log.h"
#include "record/recorder_internal.h"
#include "task/proc_status.h"

enum { RW_NONE, RW_PATH, RW_MMAP, RW_SETAFFINITY, RW_GETAFFINITY };
enum { FILE_LIST, FILE_CPUINFO };

static const struct {
  const char *path;
  int file;
} cpu_files[] = {
    {"/sys/devices/system/cpu/online", FILE_LIST},
    {"/sys/devices/system/cpu/possible", FILE_LIST},
    {"/sys/devices/system/cpu/present", FILE_LIST},
    {"/proc/cpuinfo", FILE_CPUINFO},
};

/* "0-3,6\n" for the set. */
static void cpu_list(const cpu_set_t *set, struct tbuf *out) {
  char item[64];
  bool first = true;
  for (int c = 0; c < CPU_SETSIZE; c++) {
    if (!CPU_ISSET(c, set))
      continue;
    int end = c;
    while (end + 1 < CPU_SETSIZE && CPU_ISSET(end + 1, set))
      end++;
    int n = end == c ? snprintf(item, sizeof item, "%s%d", first ? "" : ",", c)
                     : snprintf(item, sizeof item, "%s%d-%d", first ? "" : ",", c, end);
    tbuf_put_bytes(out, item, (size_t)n);
    first = false;
    c = end;
  }
  tbuf_put_bytes(out, "\n", 1);
}

/* The real /proc/cpuinfo block of the pinned CPU (or the first), into BLOCK. */
static void cpuinfo_block(int pinned, struct tbuf *block) {
  FILE *f = fopen("/proc/cpuinfo", "re");
  if (!f)
    return;
  char line[4096];
  bool keep = false, found = false;
  while (fgets(line, sizeof line, f)) {
    int n;
    if (sscanf(line, "processor : %d", &n) == 1) {
      if (found)
        break;
      found = n == pinned;
      keep = found || block->len == 0;
      if (keep)
        tbuf_reset(block);
    }
    if (keep && line[0] != '\n') {
      size_t l = strlen(line);
      tbuf_put_bytes(block, line, l);
    }
  }
  fclose(f);
}

/* That block once for each CPU of the set, with its numbers changed. */
static void cpuinfo(const cpu_set_t *set, int count, int pinned, struct tbuf *out) {
  struct tbuf block;
  tbuf_init(&block);
  cpuinfo_block(pinned, &block);
  for (int c = 0; c < CPU_SETSIZE && block.len; c++) {
    if (!CPU_ISSET(c, set))
      continue;
    const char *p = (const char *)block.data, *end = p + block.len;
    while (p < end) {
      const char *nl = memchr(p, '\n', (size_t)(end - p));
      size_t l = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
      const char *colon = memchr(p, ':', l);
      char key[64] = "";
      if (colon) {
        size_t k = (size_t)(colon - p);
        while (k && (p[k - 1] == ' ' || p[k - 1] == '\t'))
          k--;
        snprintf(key, sizeof key, "%.*s", (int)k, p);
      }
      int value = -1;
      if (!strcmp(key, "processor") || !strcmp(key, "core id") || !strcmp(key, "apicid") ||
          !strcmp(key, "initial apicid"))
        value = c;
      else if (!strcmp(key, "siblings") || !strcmp(key, "cpu cores"))
        value = count;
      if (value >= 0) {
        char v[32];
        int vl = snprintf(v, sizeof v, ": %d\n", value);
        size_t kept = (size_t)(colon - p);
        tbuf_put_bytes(out, p, kept);
        tbuf_put_bytes(out, v, (size_t)vl);
      } else {
        tbuf_put_bytes(out, p, l);
      }
      p += l;
    }
    tbuf_put_bytes(out, "\n", 1);
  }
  tbuf_free(&block);
}

static int sealed_memfd(const char *name, const struct tbuf *content) {
  int fd = (int)syscall(SYS_memfd_create, name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0)
    return -1;
  if (write(fd, content->data, content->len) != (ssize_t)content->len ||
      fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) < 0) {
    close(fd);
    return -1;
  }
  return fd;
}

void record_cpus_init(struct recorder *r, const cpu_set_t *slots, int pinned_cpu, int count) {
  struct cpu_view *v = &r->cpus;
  if (pinned_cpu < 0)
    pinned_cpu = 0;
  v->count = count;
  v->set = *slots;
  CPU_SET(pinned_cpu, &v->set);
  for (int c = 0; CPU_COUNT(&v->set) < count; c++)
    CPU_SET(c, &v->set);
  for (int i = 0; i < CPU_VIEW_FILES; i++) {
    struct tbuf content;
    tbuf_init(&content);
    if (cpu_files[i].file == FILE_LIST)
      cpu_list(&v->set, &content);
    else
      cpuinfo(&v->set, count, pinned_cpu, &content);
    v->files[i] = content.len ? sealed_memfd("deja-cpus", &content) : -1;
    tbuf_free(&content);
  }
}

void record_cpus_free(struct recorder *r) {
  for (int i = 0; i < CPU_VIEW_FILES; i++)
    if (r->cpus.files[i] > 0)
      close(r->cpus.files[i]);
}

static void set_arg(struct rtask *x, int arg, uint64_t value) {
  regs_set_arg(&x->t.regs, arg, value);
}

/* Whether task TID may open deja's /proc/DEJA/fd/N: it has deja's file system uid (a
 * program that changed its uid sees the real file instead). */
static bool same_fsuid(pid_t tid) {
  long uids[4]; /* real, effective, saved, file system */
  return proc_status_numbers(tid, "Uid", uids, 4) == 4 && uids[3] == (long)geteuid();
}

/* openat/open of a file that lists CPUs: the path becomes /proc/DEJA/fd/N. */
static void rewrite_path(struct recorder *r, struct rtask *x, int arg) {
  char *path = task_read_str(&x->t, regs_arg(&x->t.regs, arg), 64);
  if (!path)
    return;
  int file = -1;
  for (int i = 0; i < CPU_VIEW_FILES; i++)
    if (!strcmp(path, cpu_files[i].path))
      file = i;
  free(path);
  if (file < 0 || r->cpus.files[file] < 0 || !same_fsuid(x->t.tid))
    return;
  struct syscall_rewrite *w = &x->rw;
  char repl[64];
  int len = snprintf(repl, sizeof repl, "/proc/%d/fd/%d", (int)getpid(), r->cpus.files[file]) + 1;
  w->mem = (x->t.regs.rsp - 128 - sizeof w->saved) & ~15ull; /* below the red zone */
  w->len = (size_t)len;
  if (task_read_mem(&x->t, w->mem, w->saved, w->len) < 0 ||
      task_write_mem(&x->t, w->mem, repl, w->len) < 0)
    return;
  w->kind = RW_PATH;
  w->arg = arg;
  w->value = regs_arg(&x->t.regs, arg);
  set_arg(x, arg, w->mem);
  if (task_set_regs(&x->t, &x->t.regs) < 0) {
    task_write_mem(&x->t, w->mem, w->saved, w->len);
    w->kind = RW_NONE;
  }
}

void record_rewrite_entry(struct recorder *r, struct rtask *x) {
  struct syscall_rewrite *w = &x->rw;
  w->kind = RW_NONE;
  const struct user_regs_struct *e = &x->t.regs;
  switch ((long)e->orig_rax) {
  case SYS_openat: rewrite_path(r, x, 1); break;
  case SYS_open: rewrite_path(r, x, 0); break;
  case SYS_sched_getaffinity: w->kind = RW_GETAFFINITY; break;
  case SYS_sched_setaffinity:
    x->t.regs.orig_rax = (uint64_t)-1; /* nothing runs; it returns 0 */
    if (task_set_regs(&x->t, &x->t.regs) == 0)
      w->kind = RW_SETAFFINITY;
    break;
  case SYS_mmap: {
    int flags = (int)e->r10;
    if (!r->o->chaos || e->rdi ||
        (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE | MAP_32BIT | MAP_GROWSDOWN)))
      break;
    uint64_t addr = chaos_mmap_address(&r->chaos, (e->rsi + 4095) & ~4095ull);
    w->kind = RW_MMAP; /* (with 0 too: chaos mode notes where it went) */
    w->arg = 0;
    w->value = 0;
    set_arg(x, 0, addr); /* a hint: the kernel takes it when the range is free */
    if (task_set_regs(&x->t, &x->t.regs) < 0)
      w->kind = RW_NONE;
    break;
  }
  }
}

void record_rewrite_exit(struct recorder *r, struct rtask *x) {
  struct syscall_rewrite *w = &x->rw;
  int kind = w->kind;
  w->kind = RW_NONE;
  switch (kind) {
  case RW_PATH:
    task_write_mem(&x->t, w->mem, w->saved, w->len);
    /* fall through */
  case RW_MMAP:
    if (kind == RW_MMAP)
      chaos_mmap_placed(&r->chaos, x->t.regs.rax, x->entry.rsi);
    set_arg(x, w->arg, w->value);
    task_set_regs(&x->t, &x->t.regs);
    break;
  case RW_SETAFFINITY:
    x->t.regs.rax = 0;
    x->t.regs.orig_rax = SYS_sched_setaffinity;
    task_set_regs(&x->t, &x->t.regs);
    break;
  case RW_GETAFFINITY: {
    int64_t size = (int64_t)x->t.regs.rax;
    pid_t pid = (pid_t)x->entry.rdi;
    if (size <= 0 || size > (int64_t)sizeof(cpu_set_t))
      break;
    bool ours = pid == 0;
    for (int i = 0; i < r->ntasks && !ours; i++)
      ours = r->tasks[i]->t.tid == pid;
    if (ours)
      task_write_mem(&x->t, x->entry.rdx, &r->cpus.set, (size_t)size);
    break;
  }
  }
}
