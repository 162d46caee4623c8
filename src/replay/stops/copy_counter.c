/* Executions counted inside a throwaway copy by its own SIGTRAP handler (see
 * copy_counter.h). */
#include "replay/stops/copy_counter.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/ucontext.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "preload/syscallbuf_abi.h"
#include "task/task.h"

#define PAGE 4096ull
#ifndef SA_RESTORER
#define SA_RESTORER 0x04000000 /* the kernel's: glibc sets it itself and does not export it */
#endif

/* The page in the copy: the handler's code first (as in deja's text, so its rip-relative
 * reference to the data stays right), then what the injected calls read, then the data
 * the handler keeps. */
#define OFF_ACTION 1024
#define OFF_UNBLOCK 1088
#define OFF_FILTER 1152
#define OFF_DATA 2048
/* The state point's registers met within this many passes: the stretch is left to run
 * for real (its natural search stops there too, as cheaply); met later, the count goes on
 * (a match proves nothing: registers may repeat while memory changes) */
#define COPY_COUNTER_EARLY 1000

/* The handler's data (offsets fixed: the assembly below uses them). */
struct copy_data {
  uint64_t result;     /* 0: running; 1: an address executed; 2: the passes counted out; 3: other */
  uint64_t pass_pc;    /* 8 */
  uint64_t passes;     /* 16 */
  uint64_t max_passes; /* 24 */
  uint32_t naddrs;     /* 32 */
  uint8_t orig;        /* 36: pass_pc's own byte */
  uint8_t stepping;    /* 37: the trap flag is set for pass_pc's instruction */
  uint8_t pad[2];
  uint64_t addrs[COPY_COUNTER_MAX_ADDRS]; /* 40 */
  /* 104: the state point's general registers in ucontext order (REG_R8 to REG_RSP) */
  uint64_t want[16];
  uint64_t early; /* 232: a match before this many passes ends the run */
};
_Static_assert(
    offsetof(struct copy_data, pass_pc) == 8 && offsetof(struct copy_data, passes) == 16 &&
        offsetof(struct copy_data, max_passes) == 24 && offsetof(struct copy_data, naddrs) == 32 &&
        offsetof(struct copy_data, orig) == 36 && offsetof(struct copy_data, stepping) == 37 &&
        offsetof(struct copy_data, addrs) == 40 && offsetof(struct copy_data, want) == 104 &&
        offsetof(struct copy_data, early) == 232 && COPY_COUNTER_MAX_ADDRS == 8,
    "the handler's offsets");
_Static_assert(offsetof(ucontext_t, uc_mcontext.gregs[REG_R8]) == 40 && REG_R8 == 0 &&
                   REG_RSP == 15 && offsetof(ucontext_t, uc_mcontext.gregs[REG_RIP]) == 168 &&
                   offsetof(ucontext_t, uc_mcontext.gregs[REG_EFL]) == 176,
               "the handler's ucontext offsets");
_Static_assert(OFF_DATA == 2048 && SBUF_EXEC_ADDR == 0x70000080, "the handler's addresses");

/* The handler (rdi: the signal, rsi: siginfo, rdx: ucontext) and the restorer, copied into
 * the copy's page. An int3 at pass_pc: with the state point's registers within the first
 * `early' passes, result 4 (the state point is likely there: the natural search finds it
 * as soon, at a cost as small); else one more pass
 * (the passes counted out: result 2), its byte put back, the trap flag set, the stop
 * noted; the trap after that one instruction: the int3 back, the trap flag cleared. An
 * int3 at one of the addresses: result 1. Anything else: 3. A result is final: the handler spins until killed. The
 * restorer's rt_sigreturn is made from the `syscall` at SBUF_EXEC_ADDR, the one place
 * replay's seccomp filter lets a call through without a tracer. */
__asm__(".pushsection .text.deja_copy_trap,\"ax\",@progbits\n"
        ".globl deja_copy_trap_handler\n"
        ".hidden deja_copy_trap_handler\n"
        "deja_copy_trap_handler:\n"
        "  lea deja_copy_trap_handler+2048(%rip), %r8\n"
        "  mov 168(%rdx), %rax\n"
        "  cmpb $0, 37(%r8)\n"
        "  je 1f\n"
        "  movb $0, 37(%r8)\n"
        "  andq $-257, 176(%rdx)\n"
        "  mov 8(%r8), %rcx\n"
        "  movb $0xcc, (%rcx)\n"
        "  ret\n"
        "1:\n"
        "  lea -1(%rax), %rcx\n"
        "  mov 32(%r8), %r9d\n"
        "  xor %r10d, %r10d\n"
        "2:\n"
        "  cmp %r9d, %r10d\n"
        "  jae 3f\n"
        "  cmp 40(%r8,%r10,8), %rcx\n"
        "  je 5f\n"
        "  inc %r10d\n"
        "  jmp 2b\n"
        "3:\n"
        "  cmp 8(%r8), %rcx\n"
        "  jne 7f\n"
        "  xor %r10d, %r10d\n"
        "4:\n"
        "  mov 40(%rdx,%r10,8), %r9\n"
        "  cmp 104(%r8,%r10,8), %r9\n"
        "  jne 9f\n"
        "  inc %r10d\n"
        "  cmp $16, %r10d\n"
        "  jb 4b\n"
        "  mov 16(%r8), %r9\n"
        "  cmp 232(%r8), %r9\n"
        "  jae 9f\n"
        "  movq $4, (%r8)\n"
        "  jmp 8f\n"
        "9:\n"
        "  incq 16(%r8)\n"
        "  mov 16(%r8), %r9\n"
        "  cmp 24(%r8), %r9\n"
        "  jae 6f\n"
        "  movzbl 36(%r8), %r9d\n"
        "  movb %r9b, (%rcx)\n"
        "  mov %rcx, 168(%rdx)\n"
        "  orq $256, 176(%rdx)\n"
        "  movb $1, 37(%r8)\n"
        "  ret\n"
        "5:\n"
        "  movq $1, (%r8)\n"
        "  jmp 8f\n"
        "6:\n"
        "  movq $2, (%r8)\n"
        "  jmp 8f\n"
        "7:\n"
        "  movq $3, (%r8)\n"
        "8:\n"
        "  pause\n"
        "  jmp 8b\n"
        ".globl deja_copy_trap_restorer\n"
        ".hidden deja_copy_trap_restorer\n"
        "deja_copy_trap_restorer:\n"
        "  mov $15, %eax\n" /* rt_sigreturn */
        "  mov $0x70000080, %ecx\n"
        "  jmp *%rcx\n"
        ".globl deja_copy_trap_end\n"
        ".hidden deja_copy_trap_end\n"
        "deja_copy_trap_end:\n"
        ".popsection\n");
extern const uint8_t deja_copy_trap_handler[], deja_copy_trap_restorer[], deja_copy_trap_end[];

/* A call injected into the copy; false when it failed. */
static bool call(struct task *t, uint64_t gadget, long nr, uint64_t a0, uint64_t a1, uint64_t a2,
                 uint64_t a3, uint64_t a4, int64_t *rc) {
  uint64_t args[6] = {a0, a1, a2, a3, a4, 0};
  bool ok = false;
  int64_t r = task_inject_syscall(t, false, gadget, nr, args, &ok);
  if (rc)
    *rc = r;
  return ok && (r >= 0 || r < -4095);
}

/* A `syscall` at SBUF_EXEC_ADDR for the restorer: the library's page has it; without the
 * library the copy gets a page of its own there. */
static bool sigreturn_gadget(struct task *t, uint64_t gadget) {
  uint8_t code[2];
  if (task_read_mem(t, SBUF_EXEC_ADDR, code, sizeof code) == 0)
    return code[0] == 0x0f && code[1] == 0x05;
  int64_t at;
  static const uint8_t syscall_insn[2] = {0x0f, 0x05};
  return call(t, gadget, SYS_mmap, SBUF_PAGE_ADDR, PAGE, PROT_READ | PROT_EXEC,
              MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, (uint64_t)-1, &at) &&
         (uint64_t)at == SBUF_PAGE_ADDR &&
         task_write_mem(t, SBUF_EXEC_ADDR, syscall_insn, sizeof syscall_insn) == 0;
}

/* Sets the copy up to run counted: the page, the handler, int3s, the filter. The page's
 * address, or 0. */
static uint64_t set_up(struct task *t, uint64_t gadget, const uint64_t *addrs, int n,
                       const struct user_regs_struct *state, uint64_t max_passes) {
  uint64_t pass_pc = state->rip;
  size_t code_len = (size_t)((uintptr_t)deja_copy_trap_end - (uintptr_t)deja_copy_trap_handler);
  int64_t page;
  if (code_len > OFF_ACTION || !sigreturn_gadget(t, gadget) ||
      !call(t, gadget, SYS_mmap, 0, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
            MAP_PRIVATE | MAP_ANONYMOUS, (uint64_t)-1, &page))
    return 0;
  uint64_t p = (uint64_t)page;
  /* the handler writes pass_pc's byte: its page writable in the copy */
  if (!call(t, gadget, SYS_mprotect, pass_pc & ~(PAGE - 1), PAGE,
            PROT_READ | PROT_WRITE | PROT_EXEC, 0, 0, NULL))
    return 0;
  struct copy_data d = {.pass_pc = pass_pc, .max_passes = max_passes, .naddrs = (uint32_t)n};
  memcpy(d.addrs, addrs, (size_t)n * sizeof *addrs);
  const unsigned long long want[16] = {state->r8,  state->r9,  state->r10, state->r11,
                                       state->r12, state->r13, state->r14, state->r15,
                                       state->rdi, state->rsi, state->rbp, state->rbx,
                                       state->rdx, state->rax, state->rcx, state->rsp};
  for (int i = 0; i < 16; i++)
    d.want[i] = want[i];
  d.early = COPY_COUNTER_EARLY;
  uint64_t restorer = p + ((uintptr_t)deja_copy_trap_restorer - (uintptr_t)deja_copy_trap_handler);
  uint64_t action[4] = {p, SA_SIGINFO | SA_RESTORER, restorer, ~0ull}; /* all blocked in it */
  uint64_t unblock = 1ull << (SIGTRAP - 1);
  struct sock_filter f[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 3),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_rt_sigreturn, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
  };
  struct {
    uint16_t len, pad[3];
    uint64_t filter;
  } prog = {.len = sizeof f / sizeof f[0], .filter = p + OFF_FILTER + 16};
  uint8_t orig = 0, trap = 0xcc;
  if (task_write_mem(t, p, deja_copy_trap_handler, code_len) < 0 ||
      task_write_mem(t, p + OFF_ACTION, action, sizeof action) < 0 ||
      task_write_mem(t, p + OFF_UNBLOCK, &unblock, sizeof unblock) < 0 ||
      task_write_mem(t, p + OFF_FILTER, &prog, sizeof prog) < 0 ||
      task_write_mem(t, p + OFF_FILTER + 16, f, sizeof f) < 0 ||
      task_read_mem(t, pass_pc, &orig, 1) < 0)
    return 0;
  d.orig = orig;
  if (task_write_mem(t, p + OFF_DATA, &d, sizeof d) < 0 ||
      !call(t, gadget, SYS_rt_sigaction, SIGTRAP, p + OFF_ACTION, 0, 8, 0, NULL) ||
      !call(t, gadget, SYS_rt_sigprocmask, SIG_UNBLOCK, p + OFF_UNBLOCK, 0, 8, 0, NULL) ||
      /* gone with deja, whatever happens to it */
      !call(t, gadget, SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0, NULL) ||
      !call(t, gadget, SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, NULL) ||
      !call(t, gadget, SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, p + OFF_FILTER, 0, 0, NULL))
    return 0;
  for (int i = 0; i < n; i++)
    if (task_write_mem(t, addrs[i], &trap, 1) < 0)
      return 0;
  return task_write_mem(t, pass_pc, &trap, 1) < 0 ? 0 : p;
}

/* Waits for the handler's result (or the copy's death): 1, 0, or -1. */
static int await(struct task *t, uint64_t page) {
  struct timespec start, now, pause = {0, 100000};
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (;;) {
    uint64_t result = 0;
    if (task_read_mem(t, page + OFF_DATA, &result, sizeof result) < 0)
      return -1;
    if (result) /* (4: at the state point, likely: the natural search is as quick) */
      return result == 1 ? 1 : result == 2 ? 0 : -1;
    /* gone (a system call, a fault)? Not reaped here: the caller kills and reaps it, and
     * its pid must stay its own until then */
    siginfo_t si;
    si.si_pid = 0;
    if (waitid(P_PID, (id_t)t->tid, &si, WEXITED | WNOHANG | WNOWAIT | __WALL) != 0 ||
        si.si_pid != 0)
      return -1;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec - start.tv_sec > 10)
      return -1; /* (a stretch loops far longer than the recording's) */
    nanosleep(&pause, NULL);
  }
}

int copy_counter_run(pid_t c, uint64_t gadget, bool seccomp_traced, const uint64_t *addrs, int n,
                     const struct user_regs_struct *state, uint64_t max_passes) {
  if (n > COPY_COUNTER_MAX_ADDRS || !gadget)
    return -1;
  struct task t = {.tid = c, .mem_fd = -1, .seccomp_traced = seccomp_traced};
  if (task_open_mem(&t) < 0)
    return -1;
  uint64_t page = set_up(&t, gadget, addrs, n, state, max_passes);
  int rc = -1;
  if (page && ptrace(PTRACE_DETACH, c, 0, 0) == 0)
    rc = await(&t, page);
  task_close(&t);
  return rc;
}
