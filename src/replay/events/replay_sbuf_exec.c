/* Replaying the buffered calls that change the address space (see replay_sbuf_exec.h).
 * The filter lets through the library's SBUF_EXEC_ADDR call and its recording entry (a
 * gdb call's copy makes buffered calls for real there), and calls whose number replay set
 * to -1 (skipped at a PTRACE_SYSCALL entry stop); every other call stops at the filter
 * (PTRACE_EVENT_SECCOMP) when the task runs under PTRACE_CONT. Under PTRACE_SYSEMU or
 * PTRACE_SYSCALL the entry stop comes before the filter, as it did without one. */
#include "replay/events/replay_sbuf_exec.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>

#include "common/kernel_abi.h"
#include "preload/syscallbuf_abi.h"
#include "replay/engine/replay_calls.h"
#include "replay/events/replay_syscallbuf.h"
#include "syscalls/syscall_table.h"
#include "task/proc_status.h"

bool replay_filter_install(void) {
  _Static_assert((SBUF_EXEC_IP >> 32) == 0 && (SBUF_UNTRACED_IP >> 32) == 0, "IPs below 4 GiB");
  struct sock_filter f[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffffu, 5, 0),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, instruction_pointer)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)SBUF_EXEC_IP, 1, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)SBUF_UNTRACED_IP, 0, 3),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, instruction_pointer) + 4),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE),
  };
  struct sock_fprog prog = {.len = sizeof f / sizeof f[0], .filter = f};
  return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0 ||
         (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
          prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0);
}

bool replay_filter_active(pid_t pid) {
  long mode;
  return proc_status_number(pid, "Seccomp", &mode) == 0 && mode == SECCOMP_MODE_FILTER;
}

/* A buffered file mapping (record REC, its data DATA, arguments A): anonymous memory at
 * the recorded address holding the recorded bytes, with the mapping's protection. */
static int restore_file_map(struct replay_engine *e, struct rptask *x, const struct sbuf_rec *rec,
                            const uint8_t *data, uint64_t a[6], uint32_t i, uint64_t evno) {
  int64_t size;
  memcpy(&size, data + SBUF_EXEC_ARGS_BYTES + 48, sizeof size); /* st_size */
  uint64_t n = sbuf_file_map_bytes(a[1], (uint64_t)size);
  if (rec->size < sizeof *rec + SBUF_FILE_MAP_HEAD + n)
    return diverge(e, "buffered file mapping %u of event %" PRIu64 " is cut short", i, evno);
  uint64_t m[6] = {(uint64_t)rec->ret,     a[1],
                   PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
                   (uint64_t)-1,           0};
  uint64_t p[6] = {(uint64_t)rec->ret, a[1], a[2], 0, 0, 0};
  bool ok = false;
  int64_t got = engine_inject_call(x, SYS_mmap, m, &ok);
  if (ok && got == rec->ret)
    ok = task_write_mem(&x->t, (uint64_t)got, data + SBUF_FILE_MAP_HEAD, n) == 0 &&
         engine_inject_call(x, SYS_mprotect, p, &ok) == 0 && ok;
  if (!ok || got != rec->ret)
    return diverge(e,
                   "buffered file mapping %u (event %" PRIu64
                   ", made before restoring a state point of task %d): mmap returned %" PRId64
                   " (0x%" PRIx64 "), recorded 0x%" PRIx64,
                   i, evno, x->rec_tid, got, (uint64_t)got, (uint64_t)rec->ret);
  return 0;
}

int replay_sbuf_exec_restored(struct replay_engine *e, struct rptask *x) {
  uint32_t len = 0, off = 0;
  uint64_t evno = 0, buf = 0;
  const uint8_t *data = replay_syscallbuf_pending(e, x->rec_tid, &len, &evno, &buf, &off);
  /* Records the library wrote already (a debugger's natural search ran part of the
   * stretch before giving up) were made by it. */
  uint32_t used = 0;
  if (data && task_read_mem(&x->t, buf + offsetof(struct sbuf_hdr, used), &used, sizeof used) < 0)
    used = 0;
  uint32_t made = used > off ? used - off : 0;
  for (uint32_t at = 0, i = 1; data && at + sizeof(struct sbuf_rec) <= len; i++) {
    struct sbuf_rec rec;
    uint64_t a[6];
    memcpy(&rec, data + at, sizeof rec);
    if (rec.size < sizeof rec || rec.size > len - at)
      break;
    if (at >= made && sbuf_exec_call_nr(rec.nr) && !(rec.flags & SBUF_REC_PROBE_ONLY) &&
        rec.size >= sizeof rec + sizeof a && (uint64_t)rec.ret <= -4096ull) {
      memcpy(a, data + at + sizeof rec, sizeof a);
      bool file = rec.nr == SYS_mmap && !(a[3] & MAP_ANONYMOUS);
      if (file) {
        int rc = restore_file_map(e, x, &rec, data + at + sizeof rec, a, i, evno);
        if (rc)
          return rc;
        at += rec.size;
        continue;
      }
      if (rec.nr == SYS_mmap && !(a[3] & MAP_FIXED)) {
        a[0] = (uint64_t)rec.ret;
        a[3] |= MAP_FIXED_NOREPLACE;
      }
      if (rec.nr == SYS_brk && x->brk_emulated) {
        int rc = engine_brk_move(e, x, (uint64_t)rec.ret); /* (replay_special.h) */
        if (rc)
          return rc;
        at += rec.size;
        continue;
      }
      bool ok = false;
      int64_t got = engine_inject_call(x, rec.nr, a, &ok);
      if (!ok || got != rec.ret)
        return diverge(e,
                       "buffered system call %u (event %" PRIu64
                       ", made before restoring a state point of task %d): %s returned %" PRId64
                       " (0x%" PRIx64 "), recorded %" PRId64 " (0x%" PRIx64 ")",
                       i, evno, x->rec_tid, syscall_name(rec.nr), got, (uint64_t)got, rec.ret,
                       (uint64_t)rec.ret);
    }
    at += rec.size;
  }
  return 0;
}
