/* The record side of the in-process system call buffer. Each thread using the preload
 * library announces its buffer with a traced call; the library then records calls there
 * without stopping. Before any event of a task is written (and at each of its traced
 * calls) its new records are flushed into the trace as one EV_SBUF event, so the trace
 * keeps the order in which tasks ran. */
#include "record/syscallbuf_record.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/filter.h>
#include <linux/futex.h>
#include <linux/perf_event.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <unistd.h>

#include "common/kernel_abi.h"
#include "common/log.h"
#include "preload/syscallbuf_abi.h"
#include "record/recorder_internal.h"

#define PRELOAD_REL "../lib/deja/libdeja-preload.so"

/* A task's buffer: where, and how much of it is already in the trace; deja's copy of
 * its context-switch event (-1: none; a forked child's calls go without one). */
struct sbuf_task {
  pid_t tid;
  uint64_t buf;
  uint32_t flushed;
  int desched;
  int task_fd;     /* the event's number in the task, or -1 */
  int stat_fd;     /* deja's descriptor of its /proc/TID/stat, or -1 (opened when first read) */
  bool wait_armed; /* in a traced futex wait, with the event enabled by deja */
};

static struct {
  bool on;
  struct sbuf_task *tasks;
  int n, cap;
  struct tbuf data;
  char *lib;
  uint32_t fd_gen; /* the last descriptor table generation given to a process */
} S;

bool syscallbuf_record_on(void) { return S.on; }

/* The library's path: ../lib/deja/ from the deja executable. */
static char *find_library(void) {
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0)
    return NULL;
  exe[n] = 0;
  char *slash = strrchr(exe, '/');
  if (!slash)
    return NULL;
  *slash = 0;
  char *path = xasprintf("%s/%s", exe, PRELOAD_REL);
  char *real = realpath(path, NULL);
  free(path);
  return real;
}

char **syscallbuf_record_start(bool want, char **env) {
  syscallbuf_record_end();
  if (!want)
    return NULL;
  S.lib = find_library();
  if (!S.lib) {
    deja_msg("warning: the system call buffer library (%s from deja's directory) is missing; "
             "recording with every system call traced (slower); reinstall deja",
             PRELOAD_REL);
    return NULL;
  }
  S.on = true;
  tbuf_init(&S.data);
  size_t n = 0;
  while (env[n])
    n++;
  char **out = xcalloc(n + 2, sizeof *out);
  char *pre = NULL;
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (!strncmp(env[i], "LD_PRELOAD=", 11) && !pre)
      pre = env[i] + 11;
    else
      out[k++] = env[i];
  }
  /* Kept for the life of the process (the recording's environment points at it). */
  static char *setting;
  free(setting);
  setting =
      pre && *pre ? xasprintf("LD_PRELOAD=%s:%s", S.lib, pre) : xasprintf("LD_PRELOAD=%s", S.lib);
  out[k++] = setting;
  out[k] = NULL;
  return out;
}

/* deja's descriptors of task S. */
static void close_fds(struct sbuf_task *s) {
  if (s->desched >= 0)
    close(s->desched);
  if (s->stat_fd >= 0)
    close(s->stat_fd);
}

void syscallbuf_record_end(void) {
  for (int i = 0; i < S.n; i++)
    close_fds(&S.tasks[i]);
  free(S.tasks);
  free(S.lib);
  if (S.on)
    tbuf_free(&S.data);
  memset(&S, 0, sizeof S);
}

void syscallbuf_install_filter(void) {
  /* Calls from the page's untraced entry run without a stop; all others are traced. */
  struct sock_filter f[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, instruction_pointer)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)SBUF_UNTRACED_IP, 0, 3),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, instruction_pointer) + 4),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)(SBUF_UNTRACED_IP >> 32), 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE),
  };
  struct sock_fprog prog = {.len = sizeof f / sizeof f[0], .filter = f};
  /* With CAP_SYS_ADMIN (root) the filter needs no no_new_privs, so set-user-ID programs
   * keep working; without it, it does. */
  if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0 &&
      (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
       prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)) {
    fprintf(stderr,
            "deja: cannot install the system call filter (%s); record with -n "
            "(--no-syscall-buffer)\n",
            strerror(errno));
    _exit(70);
  }
}

static struct sbuf_task *find(pid_t tid);

uint64_t syscallbuf_task_buffer(pid_t tid) {
  struct sbuf_task *s = find(tid);
  return s ? s->buf : 0;
}

int syscallbuf_resume_request(const struct rtask *x) {
  return S.on && !x->proc->seccomp ? PTRACE_CONT : PTRACE_SYSCALL;
}

long syscallbuf_ptrace_options(void) { return PTRACE_O_TRACESECCOMP; }

static struct sbuf_task *find(pid_t tid) {
  for (int i = 0; i < S.n; i++)
    if (S.tasks[i].tid == tid)
      return &S.tasks[i];
  return NULL;
}

static struct sbuf_task *set_buffer(pid_t tid, uint64_t buf, uint32_t flushed) {
  struct sbuf_task *s = find(tid);
  if (!s) {
    if (S.n == S.cap) {
      S.cap = S.cap ? S.cap * 2 : 16;
      S.tasks = xrealloc(S.tasks, (size_t)S.cap * sizeof *S.tasks);
    }
    s = &S.tasks[S.n++];
  } else {
    close_fds(s);
  }
  *s = (struct sbuf_task){tid, buf, flushed, -1, -1, -1, false};
  return s;
}

static void drop(pid_t tid) {
  struct sbuf_task *s = find(tid);
  if (!s)
    return;
  close_fds(s);
  *s = S.tasks[--S.n];
}

int syscallbuf_desched_signal(void) { return SIGRTMIN + 1; }

/* Takes a copy of task X's context-switch event FD and has it signal deja (the thread
 * that waits for stops) with the copy's number when X is switched out while the library
 * has it enabled. -1 when that cannot be done: X's blocked calls are then found at the
 * end of a time slice. */
static int take_desched(struct rtask *x, int fd) {
  if (fd < 0)
    return -1;
  int pidfd = (int)syscall(SYS_pidfd_open, x->proc->pid, 0);
  int mine = pidfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
  if (pidfd >= 0)
    close(pidfd);
  struct f_owner_ex owner = {F_OWNER_TID, gettid()};
  if (mine >= 0 && (fcntl(mine, F_SETFD, FD_CLOEXEC) < 0 || fcntl(mine, F_SETOWN_EX, &owner) < 0 ||
                    fcntl(mine, F_SETSIG, syscallbuf_desched_signal()) < 0 ||
                    fcntl(mine, F_SETFL, O_ASYNC | O_NONBLOCK) < 0)) {
    close(mine);
    mine = -1;
  }
  return mine;
}

/* What the recorder notes at a traced mmap, munmap or brk, for the buffered ones among LEN
 * bytes of records: the pages' next content is saved at the next state point whatever
 * its hash (replay makes the calls), and unmapped files no longer count as mapped. */
static void note_address_space(struct rtask *x, const uint8_t *data, uint32_t len) {
  for (uint32_t at = 0; at + sizeof(struct sbuf_rec) <= len;) {
    struct sbuf_rec rec;
    memcpy(&rec, data + at, sizeof rec);
    if (rec.size < sizeof rec || rec.size > len - at)
      return;
    uint64_t a[6];
    if (sbuf_exec_call_nr(rec.nr) && !(rec.flags & SBUF_REC_PROBE_ONLY) &&
        rec.size >= sizeof rec + sizeof a && rec.ret >= 0) {
      memcpy(a, data + at + sizeof rec, sizeof a);
      if (rec.nr == SYS_munmap) {
        page_hashes_forget(x->proc->pages, a[0], a[1]);
        record_anon_files_unmapped(x->proc, a[0], a[1]);
      } else if (rec.nr == SYS_mmap) {
        page_hashes_forget(x->proc->pages, (uint64_t)rec.ret, a[1]);
        if (!(a[3] & MAP_ANONYMOUS))
          record_anon_files_add(x->proc, (uint64_t)rec.ret, a[1]);
      } else if (rec.nr == SYS_brk) {
        page_hashes_clear(x->proc->pages);
      }
    }
    at += rec.size;
  }
}

void syscallbuf_record_finish_exec(struct rtask *x) {
  struct sbuf_task *s = find(x->t.tid);
  for (int i = 0; S.on && s && i < 100000; i++) {
    struct sbuf_hdr h;
    struct sbuf_rec rec;
    uint8_t code[2];
    if (task_read_mem(&x->t, s->buf, &h, sizeof h) < 0 || !h.in_call ||
        h.used > SBUF_CAPACITY - sizeof rec ||
        task_read_mem(&x->t, s->buf + SBUF_DATA_OFF + h.used, &rec, sizeof rec) < 0 ||
        !sbuf_exec_call_nr(rec.nr) || task_get_regs(&x->t) < 0 ||
        task_read_mem(&x->t, x->t.regs.rip, code, sizeof code) < 0)
      return;
    /* never into another call (one that could block) */
    if (code[0] == 0x0f && code[1] == 0x05 && !sbuf_exec_call_nr((unsigned)x->t.regs.rax))
      return;
    struct stop st;
    if (task_resume(&x->t, PTRACE_SINGLESTEP, 0) < 0 || task_wait(&x->t, &st) < 0)
      return;
    if (st.kind == STOP_SIGNAL && st.sig != SIGTRAP)
      syscall(SYS_tgkill, x->t.tid, x->t.tid, st.sig); /* pending again, as it was */
    if (st.kind != STOP_SIGNAL || st.sig != SIGTRAP)
      return;
  }
}

/* Writes X's records not yet in the trace as an EV_SBUF event, and empties the buffer
 * unless the library is inside a call (then it goes on where it is). 0 or -1. */
static int flush(struct recorder *r, struct rtask *x, struct sbuf_task *s, bool divert) {
  struct sbuf_hdr h;
  if (task_read_mem(&x->t, s->buf, &h, sizeof h) < 0)
    return 0; /* the task is gone: its records no longer matter to anything */
  if (h.used > SBUF_CAPACITY || h.used < s->flushed || h.used % 8) {
    char why[256];
    snprintf(why, sizeof why,
             "the system call buffer of task %d at 0x%" PRIx64
             " was overwritten (%u bytes used); the program wrote into deja's memory",
             x->t.tid, s->buf, h.used);
    recorder_abort(r, why);
    return -1;
  }
  uint32_t off = s->flushed, len = h.used - off;
  /* A diverted call's record header follows: what its probes returned. */
  uint32_t read = len + (divert && h.in_call ? sizeof(struct sbuf_rec) : 0);
  if (read > SBUF_CAPACITY - off)
    read = len;
  divert = divert && read > len;
  tbuf_reset(&S.data);
  if (read &&
      task_read_mem(&x->t, s->buf + SBUF_DATA_OFF + off, tbuf_grow(&S.data, read), read) < 0)
    return 0;
  if (h.in_call) {
    s->flushed = h.used;
  } else {
    s->flushed = 0;
    uint32_t zero = 0;
    if (h.used && task_write_mem(&x->t, s->buf + offsetof(struct sbuf_hdr, used), &zero, 4) < 0)
      return 0;
  }
  /* What replay restores at a state point must be what the library saw here. */
  page_hashes_forget(x->proc->pages, s->buf, SBUF_DATA_OFF + (uint64_t)h.used);
  note_address_space(x, S.data.data, len);
  if (!len && !divert)
    return 0;
  struct event ev;
  event_init(&ev);
  ev.kind = EV_SBUF;
  ev.flags = divert ? EVF_SBUF_DIVERT : 0;
  ev.tid = x->t.tid;
  ev.sbuf = s->buf;
  ev.sbuf_off = off;
  ev.sbuf_data = S.data.data;
  ev.sbuf_len = read;
  /* Written as recorder_emit would, without flushing X's buffer again. */
  if (recorder_write_enters(r, x) < 0)
    return -1;
  return recorder_write_event(r, &ev);
}

int syscallbuf_record_flush(struct recorder *r, struct rtask *x, bool divert) {
  struct sbuf_task *s = find(x->t.tid);
  return s ? flush(r, x, s, divert) : 0;
}

void syscallbuf_record_adopt(struct rtask *x, uint64_t buf, int desched_fd) {
  struct sbuf_task *s = set_buffer(x->t.tid, buf, 0);
  s->desched = take_desched(x, desched_fd);
  s->task_fd = desched_fd;
}

bool syscallbuf_is_deja_fd(struct recorder *r, pid_t pid, int fd) {
  for (int i = 0; i < S.n; i++)
    if (S.tasks[i].task_fd == fd && fd >= 0)
      for (int k = 0; k < r->ntasks; k++)
        if (r->tasks[k]->t.tid == S.tasks[i].tid && r->tasks[k]->proc->pid == pid)
          return true;
  return false;
}

int syscallbuf_record_before_emit(struct recorder *r, struct rtask *x, const struct event *ev) {
  if (!x || !S.n)
    return 0;
  struct sbuf_task *s = find(x->t.tid);
  if (!s)
    return 0;
  if (ev && ev->kind == EV_EXEC) {
    /* A new image: its library announces new buffers. */
    for (int i = 0; i < r->ntasks; i++)
      if (r->tasks[i]->proc == x->proc)
        drop(r->tasks[i]->t.tid);
    return 0;
  }
  int rc = x->in_syscall ? 0 : flush(r, x, s, false); /* in a call: flushed at its entry */
  if (ev && ev->kind == EV_EXIT)
    drop(x->t.tid);
  return rc;
}

void syscallbuf_record_clone(struct recorder *r, struct rtask *x) {
  unsigned long child = 0;
  struct sbuf_task *s = find(x->t.tid);
  if (!s || ptrace(PTRACE_GETEVENTMSG, x->t.tid, 0, &child) < 0)
    return;
  for (int i = 0; i < r->ntasks; i++) {
    struct rtask *c = r->tasks[i];
    /* A new thread has its own thread-local state and announces its own buffer. */
    if (c->t.tid == (pid_t)child && c->proc != x->proc) /* with the parent's descriptors */
      set_buffer(c->t.tid, s->buf, s->flushed)->task_fd = s->task_fd;
  }
}

struct rtask *syscallbuf_desched_task(struct recorder *r, int fd) {
  for (int i = 0; i < S.n; i++)
    if (S.tasks[i].desched == fd && fd >= 0)
      for (int k = 0; k < r->ntasks; k++)
        if (r->tasks[k]->t.tid == S.tasks[i].tid)
          return r->tasks[k];
  return NULL;
}

char syscallbuf_task_state(const struct rtask *x) {
  struct sbuf_task *s = find(x->t.tid);
  if (s && s->stat_fd < 0) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", x->t.tid);
    s->stat_fd = open(path, O_RDONLY | O_CLOEXEC);
  }
  char buf[512];
  /* Read from the start, the file is made anew (seq_file). */
  ssize_t n = s && s->stat_fd >= 0 ? pread(s->stat_fd, buf, sizeof buf - 1, 0) : -1;
  if (n <= 0)
    return task_proc_state(x->t.tid);
  buf[n] = 0;
  const char *end = strrchr(buf, ')'); /* past the command name, which may hold anything */
  return end && end[1] == ' ' ? end[2] : 0;
}

/* The number of the buffered call task X is inside (the record the library is writing). */
static bool buffered_call_nr(struct rtask *x, uint64_t *nr) {
  struct sbuf_task *s = find(x->t.tid);
  struct sbuf_hdr h;
  struct sbuf_rec rec;
  if (!s || task_read_mem(&x->t, s->buf, &h, sizeof h) < 0 || !h.in_call ||
      h.used > SBUF_CAPACITY - sizeof rec ||
      task_read_mem(&x->t, s->buf + SBUF_DATA_OFF + h.used, &rec, sizeof rec) < 0)
    return false;
  *nr = rec.nr;
  return true;
}

bool syscallbuf_in_interrupted_call(struct rtask *x) {
  if (x->sbuf_restarted)
    return true; /* on its way to the traced entry it was restarted at */
  if (!S.on || !find(x->t.tid) || task_get_regs(&x->t) < 0)
    return false;
  const struct user_regs_struct *g = &x->t.regs;
  return g->rip == SBUF_UNTRACED_IP && (int64_t)g->orig_rax >= 0 && IS_ERESTART((int64_t)g->rax);
}

bool syscallbuf_record_interrupted(struct rtask *x) {
  if (!S.on || task_get_regs(&x->t) < 0)
    return false;
  struct user_regs_struct g = x->t.regs;
  int64_t rax = (int64_t)g.rax;
  if (g.rip != SBUF_UNTRACED_IP || (int64_t)g.orig_rax < 0 || !IS_ERESTART(rax))
    return false;
  /* What the kernel does when it restarts the call, done now, but at the page's traced
   * `syscall`: the call blocks again as a traced one (others run meanwhile) and is
   * recorded and replayed as such; it returns to the library like the untraced one.
   * A timed wait (-ERESTART_RESTARTBLOCK, or restart_syscall cut short in turn after a
   * signal deja held) is made again from the start: the library buffers only waits
   * whose deadline is absolute, so that is the same wait, and replay diverts the very
   * call the library made. */
  uint64_t nr = g.orig_rax;
  if ((rax == -ERESTART_RESTARTBLOCK || nr == SYS_restart_syscall) && !buffered_call_nr(x, &nr))
    return false;
  g.rax = nr;
  g.rip = SBUF_TRACED_ENTRY_ADDR;
  g.orig_rax = (uint64_t)-1;
  if (task_set_regs(&x->t, &g) < 0)
    return false;
  x->t.regs = g;
  x->sbuf_restarted = true;
  /* The library disables the event only when the call returns: until then each stop of
   * the traced call and its sleep would signal deja for nothing (three a hand-over). */
  struct sbuf_task *s = find(x->t.tid);
  if (s && s->desched >= 0)
    ioctl(s->desched, PERF_EVENT_IOC_DISABLE, 0);
  return true;
}

/* Whether X's process has the library's page (one of its tasks took a buffer, or was
 * given its parent's): before that, and in a program without the library, the address
 * may hold anything of the program's. */
static bool has_page(struct recorder *r, const struct rtask *x) {
  if (find(x->t.tid))
    return true;
  for (int k = 0; k < r->ntasks; k++)
    if (r->tasks[k]->proc == x->proc && find(r->tasks[k]->t.tid))
      return true;
  return false;
}

static void write_page_word(struct recorder *r, struct rtask *x, unsigned off, uint32_t v) {
  if (S.on && has_page(r, x))
    task_write_mem(&x->t, SBUF_PAGE_ADDR + off, &v, sizeof v);
}

/* Frequent traced calls that never close or replace a descriptor (a new one only takes a
 * number closed before, which the close made known). */
static bool keeps_fds(uint64_t nr) {
  switch (nr) {
  case SYS_futex:
  case SYS_sched_yield:
  case SYS_nanosleep:
  case SYS_clock_nanosleep:
  case SYS_wait4:
  case SYS_waitid:
  case SYS_poll:
  case SYS_ppoll:
  case SYS_epoll_wait:
  case SYS_epoll_pwait:
  case SYS_read:
  case SYS_write:
  case SYS_mmap:
  case SYS_munmap:
  case SYS_mprotect:
  case SYS_brk:
  case SYS_rt_sigprocmask:
  case SYS_getpid: return true;
  }
  return false;
}

static void new_generation(struct recorder *r, struct rtask *x) {
  if (++S.fd_gen == 0)
    ++S.fd_gen;
  write_page_word(r, x, SBUF_FD_GEN_OFF, S.fd_gen);
}

void syscallbuf_record_fds_changed(struct recorder *r, struct rtask *x) {
  if (x->compat32 || !keeps_fds(x->entry.orig_rax)) /* an int $0x80 call: i386's numbers */
    new_generation(r, x);
}

/* The flags of the clone or clone3 of registers G, or 0. */
static uint64_t clone_flags(struct rtask *x, const struct user_regs_struct *g) {
  uint64_t flags = 0;
  if (g->orig_rax == SYS_clone)
    flags = g->rdi;
  else if (g->orig_rax == SYS_clone3 && task_read_mem(&x->t, g->rdi, &flags, sizeof flags) < 0)
    flags = 0;
  return flags;
}

void syscallbuf_record_fds_entry(struct recorder *r, struct rtask *x) {
  const struct user_regs_struct *g = &x->t.regs;
  uint64_t nr = g->orig_rax, flags = clone_flags(x, g);
  /* Calls without an exit stop in this image: a vfork child's exec or exit ends its use
   * of the memory (and the cache) it shared with its parent. */
  if (x->compat32 || nr == SYS_execve || nr == SYS_execveat || nr == SYS_exit ||
      nr == SYS_exit_group)
    new_generation(r, x);
  /* A process that shares its descriptors but not its memory, or the reverse (but for a
   * vfork, whose parent waits), or io_uring (it closes descriptors without a call): the
   * library keeps no memory of them (a child made so inherits the word). */
  bool vm = flags & CLONE_VM, files = flags & CLONE_FILES;
  if (nr == SYS_io_uring_setup || (files && !vm) || (vm && !files && !(flags & CLONE_VFORK)))
    write_page_word(r, x, SBUF_FD_NOCACHE_OFF, 1);
}

void syscallbuf_arm_traced_wait(struct rtask *x) {
  struct sbuf_task *s = S.on ? find(x->t.tid) : NULL;
  const struct user_regs_struct *g = &x->t.regs;
  int cmd = (int)g->rsi & FUTEX_CMD_MASK;
  /* not a buffered call restarted here: that one counts as blocked already */
  if (!s || s->desched < 0 || g->orig_rax != SYS_futex || g->rip == SBUF_TRACED_ENTRY_ADDR + 2 ||
      (cmd != FUTEX_WAIT && cmd != FUTEX_WAIT_BITSET))
    return;
  s->wait_armed = ioctl(s->desched, PERF_EVENT_IOC_ENABLE, 0) == 0;
}

void syscallbuf_disarm_traced_wait(struct rtask *x) {
  struct sbuf_task *s = find(x->t.tid);
  if (s && s->wait_armed) {
    ioctl(s->desched, PERF_EVENT_IOC_DISABLE, 0);
    s->wait_armed = false;
  }
}

bool syscallbuf_in_traced_wait(const struct rtask *x) {
  struct sbuf_task *s = find(x->t.tid);
  return s && s->wait_armed;
}
