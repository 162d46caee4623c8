/* The program's own seccomp filter applies while recorded and replayed: getppid fails
   with the filter's errno (SECCOMP_RET_ERRNO), uname raises SIGSYS (SECCOMP_RET_TRAP)
   whose handler sees the call number, and a forked child that calls getpgrp (filtered
   with SECCOMP_RET_KILL_PROCESS) dies of SIGSYS. prctl(PR_SET_SECCOMP) installs a second
   filter. madvise, which replay would run, fails with EPERM and leaves the page. Prints a random number so recordings differ. */
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <errno.h>
#include <signal.h>
#include <sys/mman.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static volatile int sigsys_nr = -1;
static void on_sigsys(int sig, siginfo_t *si, void *uc) {
  (void)sig;
  (void)uc;
  sigsys_nr = si->si_syscall;
}

#define ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
#define ON_NR(nr, action)                                                                          \
  BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), BPF_STMT(BPF_RET | BPF_K, (action))

int main(void) {
  struct sigaction sa = {.sa_sigaction = on_sigsys, .sa_flags = SA_SIGINFO};
  sigemptyset(&sa.sa_mask);
  CHECK(sigaction(SIGSYS, &sa, NULL) == 0);
  struct sock_filter f[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      ON_NR(SYS_getppid, SECCOMP_RET_ERRNO | 42),
      ON_NR(SYS_uname, SECCOMP_RET_TRAP),
      ON_NR(SYS_getpgrp, SECCOMP_RET_KILL_PROCESS),
      ON_NR(SYS_madvise, SECCOMP_RET_ERRNO | EPERM),
      ALLOW,
  };
  struct sock_fprog prog = {sizeof f / sizeof f[0], f};
  CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0);
  CHECK(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) == 0);
  struct sock_filter g[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      ON_NR(SYS_getsid, SECCOMP_RET_ERRNO | 7),
      ALLOW,
  };
  struct sock_fprog prog2 = {sizeof g / sizeof g[0], g};
  CHECK(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog2, 0, 0) == 0);

  char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(page != MAP_FAILED);
  strcpy(page, "kept");

  SHOW_CALL("getppid (RET_ERRNO 42)", getppid());
  SHOW_CALL("madvise(DONTNEED) (RET_ERRNO EPERM)", madvise(page, 4096, MADV_DONTNEED));
  printf("page still holds: %s\n", page);
  SHOW_CALL("getsid (second filter, RET_ERRNO 7)", getsid(0));
  struct utsname u;
  long r = syscall(SYS_uname, &u);
  printf("uname (RET_TRAP): returned %ld, SIGSYS for call %d (uname is %d)\n", r, sigsys_nr,
         SYS_uname);
  fflush(stdout);
  pid_t c = fork();
  CHECK(c >= 0);
  if (c == 0) {
    syscall(SYS_getpgrp);
    _exit(0); /* not reached */
  }
  int status;
  CHECK(waitpid(c, &status, 0) == c);
  printf("child: %s %d\n", WIFSIGNALED(status) ? "killed by signal" : "exited",
         WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
  unsigned v;
  CHECK(getrandom(&v, sizeof v, 0) == sizeof v);
  printf("random %08x\n", v);
  return 0;
}
