/* container_run: runs a command under the part of Docker's default seccomp profile (and
 * Kubernetes' RuntimeDefault) that matters to a recorder, as a default container does:
 * no new privileges; personality() only for the values the profile allows (ASLR cannot
 * be turned off); perf_event_open, bpf, unshare, setns, mount, umount2, syslog and the
 * other CAP_SYS_ADMIN calls fail with EPERM; namespace flags to clone fail with EPERM;
 * clone3 fails with ENOSYS (glibc falls back to clone).
 *
 *   container_run [--no-perf-only] COMMAND [ARG...]
 *
 * --no-perf-only refuses perf_event_open alone (a host that only forbids perf events). */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_INSNS 128
#define ARG0_LO offsetof(struct seccomp_data, args[0])
#define ARG0_HI (offsetof(struct seccomp_data, args[0]) + 4)
/* CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET */
#define CLONE_NAMESPACE_FLAGS 0x7e020000u

struct filter {
  struct sock_filter insn[MAX_INSNS];
  unsigned n;
};

static void put(struct filter *f, struct sock_filter i) {
  if (f->n < MAX_INSNS)
    f->insn[f->n++] = i;
}

static void load(struct filter *f, unsigned off) {
  put(f, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, off));
}

static void ret(struct filter *f, unsigned action) {
  put(f, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, action));
}

/* if (acc == K) ret ACTION; with the syscall number reloaded afterwards by the caller */
static void ret_if(struct filter *f, unsigned k, unsigned action) {
  put(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, 0, 1));
  ret(f, action);
}

/* personality(P) is allowed only for the profile's values; any other fails with EPERM. */
static void personality_rule(struct filter *f) {
  static const unsigned allowed[] = {0, 8, 0x20000, 0x20008, 0xffffffff};
  unsigned n = sizeof allowed / sizeof allowed[0];
  put(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_personality, 0, n + 5));
  load(f, ARG0_HI);
  put(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, n + 1));
  load(f, ARG0_LO);
  for (unsigned i = 0; i < n; i++)
    put(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, allowed[i], n - i, 0));
  ret(f, SECCOMP_RET_ERRNO | EPERM);
  ret(f, SECCOMP_RET_ALLOW);
}

/* clone(FLAGS, ...) with a namespace flag fails with EPERM. */
static void clone_rule(struct filter *f) {
  put(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 4));
  load(f, ARG0_LO);
  put(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_NAMESPACE_FLAGS, 0, 1));
  ret(f, SECCOMP_RET_ERRNO | EPERM);
  ret(f, SECCOMP_RET_ALLOW);
}

static void build(struct filter *f, int perf_only) {
  static const unsigned admin_calls[] = {
      __NR_bpf,
      __NR_unshare,
      __NR_setns,
      __NR_mount,
      __NR_umount2,
      __NR_syslog,
      __NR_pivot_root,
      __NR_swapon,
      __NR_swapoff,
      __NR_reboot,
      __NR_kexec_load,
      __NR_init_module,
      __NR_finit_module,
      __NR_delete_module,
      __NR_acct,
      __NR_iopl,
      __NR_ioperm,
      __NR_quotactl,
      __NR_open_by_handle_at,
      __NR_lookup_dcookie,
      __NR_keyctl,
      __NR_add_key,
      __NR_request_key,
      __NR_fsopen,
      __NR_fsmount,
      __NR_move_mount,
      __NR_open_tree,
      __NR_fspick,
  };
  load(f, offsetof(struct seccomp_data, arch));
  put(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0));
  ret(f, SECCOMP_RET_ERRNO | ENOSYS);
  load(f, offsetof(struct seccomp_data, nr));
  ret_if(f, __NR_perf_event_open, SECCOMP_RET_ERRNO | EPERM);
  if (perf_only) {
    ret(f, SECCOMP_RET_ALLOW);
    return;
  }
  ret_if(f, __NR_clone3, SECCOMP_RET_ERRNO | ENOSYS);
  for (unsigned i = 0; i < sizeof admin_calls / sizeof admin_calls[0]; i++)
    ret_if(f, admin_calls[i], SECCOMP_RET_ERRNO | EPERM);
  personality_rule(f);
  clone_rule(f);
  ret(f, SECCOMP_RET_ALLOW);
}

int main(int argc, char **argv) {
  int first = 1, perf_only = 0;
  if (argc > 1 && strcmp(argv[1], "--no-perf-only") == 0) {
    perf_only = 1;
    first = 2;
  }
  if (first >= argc) {
    fprintf(stderr, "usage: container_run [--no-perf-only] COMMAND [ARG...]\n");
    return 2;
  }
  struct filter f = {.n = 0};
  build(&f, perf_only);
  struct sock_fprog prog = {.len = (unsigned short)f.n, .filter = f.insn};
  if (f.n >= MAX_INSNS || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
      prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0) {
    fprintf(stderr, "container_run: cannot install the filter: %s\n", strerror(errno));
    return 125;
  }
  execvp(argv[first], argv + first);
  fprintf(stderr, "container_run: cannot run %s: %s\n", argv[first], strerror(errno));
  return 127;
}
