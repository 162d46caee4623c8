/* A gdb_target backed by a live, ptrace-stopped child process, for checking the gdb remote
 * protocol server against real gdb (tests/scripts/gdb_fake_target_test.sh).
 *
 * The child loads known values into xmm0/ymm0/zmm0 (as far as the CPU has them), stops
 * itself with SIGSTOP in stop_here(), then calls target_function() three times and exits
 * with status 7. The parent serves it on 127.0.0.1 (port printed as "port N" on stdout)
 * until gdb detaches or disconnects. Breakpoints (Z0) are int3 bytes written with ptrace;
 * reverse execution is not supported. */
#include <cpuid.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gdb/gdb_listen.h"
#include "gdb/gdb_target.h"

/* ---- the child ---- */

static const uint64_t vector_pattern[8] = {
    0x1111111111111111ull, 0x2222222222222222ull, 0x3333333333333333ull, 0x4444444444444444ull,
    0x5555555555555555ull, 0x6666666666666666ull, 0x7777777777777777ull, 0x8888888888888888ull};

volatile int target_calls;

__attribute__((noinline)) void target_function(int i) { target_calls += i; }

/* Loads the widest vector register the CPU has and stops with SIGSTOP, with nothing in
 * between that could clobber it. */
__attribute__((noinline)) void stop_here(void) {
  unsigned a, b, c, d;
  bool avx = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_AVX) && (c & bit_OSXSAVE);
  bool avx512 = avx && __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_AVX512F);
  long pid = syscall(SYS_getpid), ret;
  if (avx512)
    __asm__ volatile("vmovdqu64 (%1), %%zmm0\n\tsyscall"
                     : "=a"(ret)
                     : "r"(vector_pattern), "a"((long)SYS_kill), "D"(pid), "S"((long)SIGSTOP)
                     : "rcx", "r11", "memory", "xmm0");
  else if (avx)
    __asm__ volatile("vmovdqu (%1), %%ymm0\n\tsyscall"
                     : "=a"(ret)
                     : "r"(vector_pattern), "a"((long)SYS_kill), "D"(pid), "S"((long)SIGSTOP)
                     : "rcx", "r11", "memory", "xmm0");
  else
    __asm__ volatile("movdqu (%1), %%xmm0\n\tsyscall"
                     : "=a"(ret)
                     : "r"(vector_pattern), "a"((long)SYS_kill), "D"(pid), "S"((long)SIGSTOP)
                     : "rcx", "r11", "memory", "xmm0");
}

static void child_main(void) {
  if (ptrace(PTRACE_TRACEME, 0, 0, 0) != 0)
    _exit(100);
  stop_here();
  for (int i = 1; i <= 3; i++)
    target_function(i);
  _exit(7);
}

/* ---- the target ---- */

struct breakpoint {
  uint64_t addr;
  uint8_t orig;
};

struct fake {
  pid_t pid;
  bool exited;
  int pending_signal; /* delivered on the next resume */
  struct gdb_stop stop;
  struct breakpoint bps[64];
  int nbps;
};

static int fake_threads(void *ctx, pid_t *pids, pid_t *tids, int max) {
  struct fake *f = ctx;
  if (f->exited || max < 1)
    return 0;
  pids[0] = tids[0] = f->pid;
  return 1;
}

static int fake_get_regs(void *ctx, pid_t tid, struct gdb_thread_regs *out) {
  (void)ctx;
  if (ptrace(PTRACE_GETREGS, tid, 0, &out->gpr) != 0)
    return -1;
  struct iovec iov = {.iov_base = out->xsave, .iov_len = sizeof(out->xsave)};
  out->xsave_len = ptrace(PTRACE_GETREGSET, tid, NT_X86_XSTATE, &iov) == 0 ? iov.iov_len : 0;
  return 0;
}

static long fake_read_mem(void *ctx, pid_t tid, uint64_t addr, void *buf, size_t len) {
  struct fake *f = ctx;
  char path[64];
  snprintf(path, sizeof(path), "/proc/%d/mem", (int)tid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  size_t done = 0;
  while (done < len) {
    ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)(addr + done));
    if (n <= 0)
      break;
    done += (size_t)n;
  }
  close(fd);
  /* gdb must see the program's own bytes, not our int3s. */
  for (int i = 0; i < f->nbps; i++)
    if (f->bps[i].addr >= addr && f->bps[i].addr < addr + done)
      ((uint8_t *)buf)[f->bps[i].addr - addr] = f->bps[i].orig;
  return done ? (long)done : -1;
}

static int poke_byte(pid_t pid, uint64_t addr, uint8_t byte, uint8_t *old) {
  errno = 0;
  long word = ptrace(PTRACE_PEEKDATA, pid, (void *)addr, 0);
  if (errno)
    return -1;
  if (old)
    *old = (uint8_t)word;
  word = (word & ~0xffL) | byte;
  return ptrace(PTRACE_POKEDATA, pid, (void *)addr, (void *)word) == 0 ? 0 : -1;
}

static int fake_set_break(void *ctx, pid_t tid, int type, uint64_t addr, int len, bool insert) {
  struct fake *f = ctx;
  (void)tid;
  (void)len;
  if (type != 0)
    return -1;
  for (int i = 0; i < f->nbps; i++) {
    if (f->bps[i].addr != addr)
      continue;
    if (insert)
      return 0;
    poke_byte(f->pid, addr, f->bps[i].orig, NULL);
    f->bps[i] = f->bps[--f->nbps];
    return 0;
  }
  if (!insert)
    return 0;
  if (f->nbps == 64)
    return -1;
  uint8_t orig;
  if (poke_byte(f->pid, addr, 0xcc, &orig) != 0)
    return -1;
  f->bps[f->nbps++] = (struct breakpoint){addr, orig};
  return 0;
}

static struct breakpoint *breakpoint_at(struct fake *f, uint64_t addr) {
  for (int i = 0; i < f->nbps; i++)
    if (f->bps[i].addr == addr)
      return &f->bps[i];
  return NULL;
}

/* Waits for the child, polling gdb for Ctrl-C. */
static int wait_child(struct fake *f, bool (*interrupted)(void *), void *arg, int *status) {
  bool stop_sent = false;
  for (;;) {
    pid_t r = waitpid(f->pid, status, WNOHANG);
    if (r == f->pid)
      return stop_sent ? 1 : 0;
    if (r < 0)
      return -1;
    if (!stop_sent && interrupted(arg)) {
      kill(f->pid, SIGSTOP);
      stop_sent = true;
    }
    struct timespec ts = {0, 5 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
}

static int fake_resume(void *ctx, enum gdb_resume_action action, pid_t tid, bool reverse,
                       struct gdb_stop *stop, bool (*interrupted)(void *), void *arg) {
  struct fake *f = ctx;
  (void)tid;
  if (reverse || f->exited)
    return -1;
  struct user_regs_struct regs;
  if (ptrace(PTRACE_GETREGS, f->pid, 0, &regs) != 0)
    return -1;
  int sig = f->pending_signal, status;
  f->pending_signal = 0;
  /* Step off a breakpoint at pc with the original byte in place. */
  struct breakpoint *bp = breakpoint_at(f, regs.rip);
  if (bp) {
    poke_byte(f->pid, bp->addr, bp->orig, NULL);
    ptrace(PTRACE_SINGLESTEP, f->pid, 0, (void *)(long)sig);
    sig = 0;
    if (waitpid(f->pid, &status, 0) != f->pid)
      return -1;
    poke_byte(f->pid, bp->addr, 0xcc, NULL);
    if (action == GDB_STEP || !WIFSTOPPED(status))
      goto report;
  }
  ptrace(action == GDB_STEP ? PTRACE_SINGLESTEP : PTRACE_CONT, f->pid, 0, (void *)(long)sig);
  int r = wait_child(f, interrupted, arg, &status);
  if (r < 0)
    return -1;
  if (r == 1 && WIFSTOPPED(status) && WSTOPSIG(status) == SIGSTOP) {
    *stop = (struct gdb_stop){.kind = GDB_STOP_SIGNAL, .pid = f->pid, .tid = f->pid,
                              .signo = SIGINT};
    f->stop = *stop;
    return 0;
  }
report:
  memset(stop, 0, sizeof(*stop));
  stop->pid = stop->tid = f->pid;
  if (WIFEXITED(status)) {
    stop->kind = GDB_STOP_EXITED;
    stop->exit_code = WEXITSTATUS(status);
    f->exited = true;
  } else if (WIFSIGNALED(status)) {
    stop->kind = GDB_STOP_KILLED;
    stop->signo = WTERMSIG(status);
    f->exited = true;
  } else {
    stop->kind = GDB_STOP_SIGNAL;
    stop->signo = WSTOPSIG(status);
    ptrace(PTRACE_GETREGS, f->pid, 0, &regs);
    if (stop->signo == SIGTRAP && action == GDB_CONTINUE && breakpoint_at(f, regs.rip - 1)) {
      regs.rip--;
      ptrace(PTRACE_SETREGS, f->pid, 0, &regs);
      stop->kind = GDB_STOP_SWBREAK;
    } else if (stop->signo != SIGTRAP) {
      f->pending_signal = stop->signo;
    }
  }
  f->stop = *stop;
  return 0;
}

static int fake_exec_file(void *ctx, pid_t pid, char *buf, size_t len) {
  (void)ctx;
  char path[64];
  snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
  ssize_t n = readlink(path, buf, len - 1);
  if (n < 0)
    return -1;
  buf[n] = '\0';
  return 0;
}

static long fake_auxv(void *ctx, pid_t pid, void *buf, size_t len) {
  (void)ctx;
  char path[64];
  snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  ssize_t n = read(fd, buf, len);
  close(fd);
  return n;
}

static int fake_monitor(void *ctx, const char *cmd, char *out, size_t len) {
  struct fake *f = ctx;
  if (strcmp(cmd, "hello") != 0)
    return -1;
  snprintf(out, len, "hello from the fake target, pid %d\n", (int)f->pid);
  return 0;
}

static void fake_current_stop(void *ctx, struct gdb_stop *stop) {
  struct fake *f = ctx;
  *stop = f->stop;
}

int main(void) {
  pid_t pid = fork();
  if (pid < 0) {
    perror("fake_target: fork");
    return 1;
  }
  if (pid == 0)
    child_main();
  int status;
  if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status) || WSTOPSIG(status) != SIGSTOP) {
    fprintf(stderr, "fake_target: the child did not stop as expected (status %#x)\n", status);
    kill(pid, SIGKILL);
    return 1;
  }
  ptrace(PTRACE_SETOPTIONS, pid, 0, (void *)(long)PTRACE_O_EXITKILL);

  struct fake f = {.pid = pid};
  /* The initial stop looks like an attach: SIGTRAP, so gdb just shows where it is. */
  f.stop = (struct gdb_stop){.kind = GDB_STOP_SIGNAL, .pid = pid, .tid = pid, .signo = SIGTRAP};
  struct gdb_target t = {
      .ctx = &f,
      .threads = fake_threads,
      .get_regs = fake_get_regs,
      .read_mem = fake_read_mem,
      .set_break = fake_set_break,
      .resume = fake_resume,
      .exec_file = fake_exec_file,
      .auxv = fake_auxv,
      .monitor = fake_monitor,
      .current_stop = fake_current_stop,
  };
  int port = 0;
  int lfd = gdb_listen(&port);
  if (lfd < 0) {
    kill(pid, SIGKILL);
    return 1;
  }
  printf("port %d\n", port);
  fflush(stdout);
  int fd = accept(lfd, NULL, NULL);
  close(lfd);
  if (fd < 0) {
    perror("fake_target: accept");
    kill(pid, SIGKILL);
    return 1;
  }
  int rc = gdb_serve(fd, &t);
  close(fd);
  if (!f.exited) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
  }
  return rc == 0 ? 0 : 1;
}
