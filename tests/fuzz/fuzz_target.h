/* An in-memory gdb_target (src/gdb/gdb_target.h) for the gdb fuzz targets, header only:
 * what a replay answers, made up but consistent, so that every command the server parses
 * reaches the code that acts on it. A flags byte of the input shapes it (FT_*). Every
 * descriptor open_file hands the server is remembered, so that the harness can check
 * that the server closed them all when the session ended. */
#ifndef DEJA_FUZZ_TARGET_H
#define DEJA_FUZZ_TARGET_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "gdb/gdb_agent.h"
#include "gdb/gdb_regs.h"
#include "gdb/gdb_target.h"

#define FT_THREADS 1u     /* two processes, three threads (else one thread) */
#define FT_XSAVE 2u       /* the threads have a whole xsave area (else none) */
#define FT_WRITABLE 4u    /* set_regs, write_mem and set_siginfo succeed */
#define FT_CONDS 8u       /* break_conds offered (ConditionalBreakpoints) */
#define FT_RESTART 16u    /* restart offered (vRun) */
#define FT_DETACH 32u     /* detach offered */
#define FT_NO_FILES 64u   /* no open_file: vFile gets the empty reply */
#define FT_CHECKSUMS 128u /* the harness fixes the packets' checksums (fuzz_gdb_server) */

#define FT_MEM_BASE 0x1000u
#define FT_MEM_SIZE 256u
#define FT_PID1 100
#define FT_PID2 200
#define FT_MAX_FDS 256

struct ft {
  unsigned flags;
  uint8_t mem[FT_MEM_SIZE];
  uint8_t siginfo[128];
  struct gdb_stop_filter filter;
  unsigned resumes;
  int fds[FT_MAX_FDS]; /* every descriptor open_file gave out */
  int nfds;
  struct gdb_xsave_layout layout;
};

static int ft_threads(void *ctx, pid_t *pids, pid_t *tids, int max) {
  struct ft *f = ctx;
  static const pid_t p[] = {FT_PID1, FT_PID1, FT_PID2}, t[] = {FT_PID1, FT_PID1 + 1, FT_PID2};
  int n = f->flags & FT_THREADS ? 3 : 1;
  n = n < max ? n : max;
  for (int i = 0; i < n; i++) {
    pids[i] = p[i];
    tids[i] = t[i];
  }
  return n;
}

static int ft_get_regs(void *ctx, pid_t tid, struct gdb_thread_regs *out) {
  struct ft *f = ctx;
  memset(out, 0, sizeof *out);
  for (size_t i = 0; i < sizeof out->gpr; i++)
    ((uint8_t *)&out->gpr)[i] = (uint8_t)(i * 7 + (unsigned)tid);
  out->gpr.rip = FT_MEM_BASE + 16;
  if (f->flags & FT_XSAVE) {
    for (size_t i = 0; i < sizeof out->xsave; i++)
      out->xsave[i] = (uint8_t)(i * 13 + 5);
    uint64_t bv = ~0ull; /* every component present */
    memcpy(out->xsave + 512, &bv, sizeof bv);
    out->xsave_len = sizeof out->xsave;
  }
  return tid > 0 ? 0 : -1;
}

static long ft_read_mem(void *ctx, pid_t tid, uint64_t addr, void *buf, size_t len) {
  struct ft *f = ctx;
  (void)tid;
  if (addr < FT_MEM_BASE || addr >= FT_MEM_BASE + FT_MEM_SIZE)
    return -1;
  size_t n = FT_MEM_BASE + FT_MEM_SIZE - addr;
  n = n < len ? n : len;
  memcpy(buf, f->mem + (addr - FT_MEM_BASE), n);
  return (long)n;
}

static int ft_write_mem(void *ctx, pid_t tid, uint64_t addr, const void *buf, size_t len) {
  struct ft *f = ctx;
  (void)tid;
  if (!(f->flags & FT_WRITABLE) || addr < FT_MEM_BASE || len > FT_MEM_SIZE ||
      addr - FT_MEM_BASE > FT_MEM_SIZE - len)
    return -1;
  memcpy(f->mem + (addr - FT_MEM_BASE), buf, len);
  return 0;
}

static int ft_set_break(void *ctx, pid_t tid, int type, uint64_t addr, int len, bool insert) {
  (void)ctx;
  (void)tid;
  (void)insert;
  if (type < 0 || type > 4)
    fuzz_fail("set_break got a breakpoint type the protocol does not have");
  return (type == 1 && (addr & 1)) || len > 64 ? -1 : 0;
}

static bool ft_cond_reg(void *ctx, int regno, uint64_t *val) {
  struct ft *f = ctx;
  struct gdb_thread_regs r;
  uint8_t buf[GDB_REG_MAX_SIZE];
  ft_get_regs(f, FT_PID1, &r);
  if (!gdb_reg_read(&f->layout, &r, regno, buf))
    return false;
  size_t size = gdb_reg_size(&f->layout, regno);
  *val = 0;
  memcpy(val, buf, size < sizeof *val ? size : sizeof *val);
  return true;
}

static bool ft_cond_mem(void *ctx, uint64_t addr, void *buf, size_t len) {
  return ft_read_mem(ctx, FT_PID1, addr, buf, len) == (long)len;
}

/* Runs the conditions as a replay would at the breakpoint's next arrival. */
static int ft_break_conds(void *ctx, pid_t tid, uint64_t addr, const struct gdb_agent_expr *conds,
                          int n) {
  (void)tid;
  (void)addr;
  if (n < 0 || n > GDB_AGENT_MAX_CONDS)
    fuzz_fail("break_conds got a count of conditions out of range");
  struct gdb_agent_env env = {ft_cond_reg, ft_cond_mem, ctx};
  for (int i = 0; i < n; i++) {
    uint64_t v;
    char err[256];
    (void)gdb_agent_eval(&conds[i], &env, &v, err, sizeof err);
  }
  return 0;
}

/* Each resume stops another way (every kind in turn), some with a note for the console. */
static int ft_resume(void *ctx, enum gdb_resume_action action, pid_t tid, bool reverse,
                     struct gdb_stop *stop, bool (*interrupted)(void *arg), void *arg) {
  struct ft *f = ctx;
  (void)action;
  (void)tid;
  unsigned n = f->resumes++;
  if (n % 5 == 4 && interrupted(arg))
    return -1;
  memset(stop, 0, sizeof *stop);
  stop->kind = (enum gdb_stop_kind)(n % (GDB_STOP_VFORK_DONE + 1));
  stop->pid = FT_PID1;
  stop->tid = n % 3 ? FT_PID1 : FT_PID1 + 1;
  stop->signo = (int)(n % 70);
  stop->exit_code = (int)n;
  stop->watch_type = (enum gdb_watch_type)(2 + n % 3);
  stop->watch_addr = FT_MEM_BASE + n;
  stop->history_begin = reverse;
  snprintf(stop->exec_path, sizeof stop->exec_path, "/fuzz/exe-%u", n);
  stop->syscall_no = (int)(n * 37 % 600);
  stop->child_pid = FT_PID2;
  stop->child_tid = FT_PID2;
  if (n % 4 == 3) {
    memset(stop->note, 'n', sizeof stop->note - 1);
    stop->note[sizeof stop->note - 1] = '\0';
  }
  return 0;
}

static int ft_exec_file(void *ctx, pid_t pid, char *buf, size_t len) {
  (void)ctx;
  if (pid != FT_PID1 && pid != FT_PID2)
    return -1;
  snprintf(buf, len, "/fuzz/exe-%d", (int)pid);
  return 0;
}

static long ft_auxv(void *ctx, pid_t pid, void *buf, size_t len) {
  (void)ctx;
  (void)pid;
  uint8_t *b = buf;
  size_t n = len < 600 ? len : 600;
  for (size_t i = 0; i < n; i++)
    b[i] = "#$}*a"[i % 5]; /* the bytes a reply must escape */
  return (long)n;
}

/* `monitor long`: as much text as fits; `monitor fail`: an error with a message;
 * anything else unknown. */
static int ft_monitor(void *ctx, const char *cmd, char *out, size_t len) {
  (void)ctx;
  if (strcmp(cmd, "long") == 0) {
    memset(out, 'm', len - 1);
    out[len - 1] = '\0';
    return 0;
  }
  if (strcmp(cmd, "fail") == 0) {
    snprintf(out, len, "cannot: %s\n", cmd);
    return -1;
  }
  return cmd[0] == 'w' ? (snprintf(out, len, "Current event: 42\n"), 0) : -1;
}

static void ft_current_stop(void *ctx, struct gdb_stop *stop) {
  (void)ctx;
  *stop = (struct gdb_stop){.kind = GDB_STOP_SIGNAL, .pid = FT_PID1, .tid = FT_PID1, .signo = 5};
}

static int ft_restart(void *ctx, const char *arg, struct gdb_stop *stop) {
  (void)ctx;
  if (strlen(arg) >= 256)
    fuzz_fail("restart got an argument longer than the server's buffer");
  ft_current_stop(ctx, stop);
  return arg[0] == 'x' ? -1 : 0;
}

static void ft_set_filter(void *ctx, const struct gdb_stop_filter *filter) {
  struct ft *f = ctx;
  f->filter = *filter;
}

static int ft_set_regs(void *ctx, pid_t tid, const struct gdb_thread_regs *regs) {
  struct ft *f = ctx;
  (void)tid;
  (void)regs;
  return f->flags & FT_WRITABLE ? 0 : -1;
}

static long ft_siginfo(void *ctx, pid_t tid, void *buf, size_t len) {
  struct ft *f = ctx;
  (void)tid;
  size_t n = len < sizeof f->siginfo ? len : sizeof f->siginfo;
  memcpy(buf, f->siginfo, n);
  return (long)n;
}

static int ft_set_siginfo(void *ctx, pid_t tid, const void *buf, size_t len) {
  struct ft *f = ctx;
  (void)tid;
  if (!(f->flags & FT_WRITABLE) || len > sizeof f->siginfo)
    return -1;
  memcpy(f->siginfo, buf, len);
  return 0;
}

/* "/missing" does not exist, "/dir" is a directory; any other file reads "contents of
 * PATH" and is a memory file (its descriptor is the server's to close). */
static int ft_open_file(void *ctx, pid_t pid, const char *path) {
  struct ft *f = ctx;
  (void)pid;
  if (strcmp(path, "/missing") == 0)
    return -ENOENT;
  int fd = strcmp(path, "/dir") == 0 ? open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                                     : memfd_create("deja-fuzz-file", MFD_CLOEXEC);
  if (fd < 0)
    return -errno;
  if (f->nfds == FT_MAX_FDS) { /* forget the ones closed since */
    int kept = 0;
    for (int i = 0; i < f->nfds; i++)
      if (fcntl(f->fds[i], F_GETFD) >= 0)
        f->fds[kept++] = f->fds[i];
    f->nfds = kept;
  }
  if (f->nfds == FT_MAX_FDS) {
    close(fd);
    return -EMFILE;
  }
  f->fds[f->nfds++] = fd;
  dprintf(fd, "contents of %s", path);
  return fd;
}

/* "/long" links to a target longer than any buffer (readlink returns its whole length);
 * "/missing" does not exist; anything else links to "/target" + PATH. */
static long ft_readlink(void *ctx, pid_t pid, const char *path, char *buf, size_t len) {
  (void)ctx;
  (void)pid;
  if (strcmp(path, "/missing") == 0)
    return -ENOENT;
  if (strcmp(path, "/long") == 0) {
    memset(buf, 'l', len);
    return (long)len + 1000;
  }
  int n = snprintf(buf, len, "/target%s", path);
  return n;
}

static int ft_detach(void *ctx, pid_t pid) {
  (void)ctx;
  return pid == FT_PID2 ? 1 : 0;
}

static void ft_init(struct ft *f, struct gdb_target *t, unsigned flags) {
  memset(f, 0, sizeof *f);
  f->flags = flags;
  for (size_t i = 0; i < FT_MEM_SIZE; i++)
    f->mem[i] = (uint8_t)(0xa0 + i);
  memset(f->siginfo, 0x5a, sizeof f->siginfo);
  gdb_xsave_layout_host(&f->layout);
  *t = (struct gdb_target){
      .ctx = f,
      .threads = ft_threads,
      .get_regs = ft_get_regs,
      .read_mem = ft_read_mem,
      .set_break = ft_set_break,
      .break_conds = flags & FT_CONDS ? ft_break_conds : NULL,
      .resume = ft_resume,
      .exec_file = ft_exec_file,
      .auxv = ft_auxv,
      .monitor = ft_monitor,
      .current_stop = ft_current_stop,
      .restart = flags & FT_RESTART ? ft_restart : NULL,
      .set_filter = ft_set_filter,
      .set_regs = ft_set_regs,
      .write_mem = ft_write_mem,
      .siginfo = ft_siginfo,
      .set_siginfo = ft_set_siginfo,
      .open_file = flags & FT_NO_FILES ? NULL : ft_open_file,
      .readlink = ft_readlink,
      .detach = flags & FT_DETACH ? ft_detach : NULL,
  };
}

/* Every descriptor the server was given must be closed by now. */
static void ft_check_closed(struct ft *f) {
  for (int i = 0; i < f->nfds; i++)
    if (fcntl(f->fds[i], F_GETFD) >= 0)
      fuzz_fail("the server left a descriptor open_file gave it open");
}

#endif
