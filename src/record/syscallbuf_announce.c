/* A traced system call's entry as the system call buffer sees it (syscallbuf_record.h):
 * the task's buffered calls go into the trace first, and the library's announcing call
 * (a thread's buffer) is answered here, without the kernel. */
#include <errno.h>
#include <stddef.h>
#include <sys/ptrace.h>

#include "preload/syscallbuf_abi.h"
#include "record/recorder_internal.h"
#include "record/syscallbuf_record.h"

/* Tells the library of X which files are deja's stdout and stderr (it marks writes to
 * them), in the header of its buffer at BUF. */
static void tell_outputs(struct recorder *r, struct rtask *x, uint64_t buf) {
  uint64_t out[4] = {0, 0, 0, 0};
  for (int i = 1; i <= 2; i++)
    if (r->out_ok[i]) {
      out[i - 1] = (uint64_t)r->out_st[i].st_dev;
      out[i + 1] = (uint64_t)r->out_st[i].st_ino;
    }
  task_write_mem(&x->t, buf + offsetof(struct sbuf_hdr, out_dev), out, sizeof out);
}

/* The library announces a thread's buffer (registers REGS): taken when the buffer is on,
 * and the call skipped with its result set. */
static int answer_announcement(struct recorder *r, struct rtask *x, struct user_regs_struct regs) {
  /* Refused in a process with a seccomp filter of its own (inherited across exec), and in a
   * thread ptraced by another recorded task: their calls are all made traced. */
  bool ok = syscallbuf_record_on() && !x->proc->seccomp && regs.rdi && regs.rsi == SBUF_SIZE &&
            !record_ptrace_traced(x);
  if (ok) {
    x->proc->sem_routed = true; /* its library routes its sem_open semaphores to deja */
    syscallbuf_record_adopt(x, regs.rdi, (int)regs.rdx);
    tell_outputs(r, x, regs.rdi);
  }
  struct event ev;
  event_init(&ev);
  ev.kind = EV_SBUF;
  ev.tid = x->t.tid;
  ev.regs = regs;
  bool chaos = ok && r->o->chaos;
  /* Processes recorded at once print in the order of their traced writes' events. */
  bool out_traced = ok && r->out_multi;
  ev.flags = EVF_SBUF_INIT | (ok ? 0 : EVF_SBUF_REFUSED) | (chaos ? EVF_SBUF_CHAOS : 0) |
             (out_traced ? EVF_SBUF_OUT_TRACED : 0);
  ev.sbuf = regs.rdi;
  if (recorder_emit(r, x, &ev) < 0)
    return 70;
  /* Skipped; its result is set now (the kernel leaves rax alone for call -1). */
  regs.orig_rax = (uint64_t)-1;
  regs.rax = !ok ? (uint64_t)-ENOSYS
                 : (uint64_t)((chaos ? SBUF_ANNOUNCE_CHAOS : 0) |
                              (out_traced ? SBUF_ANNOUNCE_OUT_TRACED : 0));
  if (task_set_regs(&x->t, &regs) < 0)
    return recorder_abort(r, "cannot answer the system call buffer's announcement");
  return 1;
}

int syscallbuf_record_entry(struct recorder *r, struct rtask *x) {
  /* A process with its own filter runs with entry stops: the seccomp stop of the same
   * call follows its entry stop, and is passed over. */
  struct __ptrace_syscall_info info;
  if (syscallbuf_record_on() && x->proc->seccomp &&
      ptrace(PTRACE_GET_SYSCALL_INFO, x->t.tid, (void *)sizeof info, &info) > 0 &&
      info.op == PTRACE_SYSCALL_INFO_SECCOMP)
    return 1;
  /* A buffered call restarted as this traced one: replay diverts it here. */
  bool divert = x->sbuf_restarted;
  x->sbuf_restarted = false;
  if (syscallbuf_record_flush(r, x, divert) < 0)
    return 70;
  if (task_get_regs(&x->t) < 0) /* killed meanwhile (a PID namespace's end): its exit follows */
    return errno == ESRCH ? 1 : recorder_abort(r, "cannot read registers at a system call");
  if (x->t.regs.orig_rax != SBUF_ANNOUNCE_NR) {
    syscallbuf_record_fds_entry(r, x);
    return 0;
  }
  return answer_announcement(r, x, x->t.regs);
}
