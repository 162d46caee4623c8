/* deja dump [TRACE]: one line per recorded event. */
#include <inttypes.h>
#include <stdlib.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "cli/commands.h"
#include "cli/event_iter.h"
#include "cli/trace_dir.h"
#include "common/log.h"
#include "replay/events/replay_syscallbuf.h"
#include "syscalls/syscall_compat32.h"
#include "syscalls/syscall_table.h"
#include "task/tsc_patch.h"

static void print_strings(const struct event *ev) {
  const char *s = ev->strings;
  for (uint32_t i = 0; i < ev->argc; i++) {
    printf("%s", i ? " " : "");
    print_escaped(stdout, s);
    s += strlen(s) + 1;
  }
}

/* A 32-bit call: its i386 name and arguments (ebx, ecx, edx, esi, edi, ebp). */
static void dump_compat32(const struct event *ev) {
  const char *name = syscall_compat32_name((long)ev->regs.orig_rax);
  printf(" %s(0x%x, 0x%x, 0x%x, 0x%x, 0x%x, 0x%x) = %" PRId64 " (int $0x80)", name ? name : "?",
         (uint32_t)ev->regs.rbx, (uint32_t)ev->regs.rcx, (uint32_t)ev->regs.rdx,
         (uint32_t)ev->regs.rsi, (uint32_t)ev->regs.rdi, (uint32_t)ev->regs.rbp, ev->result);
}

/* The index of an exec event's region holding its cpuid page (the patched sites follow
 * it). */
static uint32_t cpuid_page_region(const struct event *ev) {
  for (uint32_t i = 0; i < ev->nmem; i++)
    if (ev->mem[i].addr == ev->cpuid_stub)
      return i;
  return ev->nmem - 1;
}

static int dump_one(uint64_t evno, const struct event *ev, void *ctx) {
  (void)ctx;
  printf("%" PRIu64 " tid=%d %s", evno, ev->tid, event_kind_name(ev->kind));
  switch (ev->kind) {
  case EV_SYSCALL: {
    long nr = (long)ev->regs.orig_rax;
    if (event_compat32(ev))
      dump_compat32(ev);
    else
      printf(" %s(0x%llx, 0x%llx, 0x%llx, 0x%llx, 0x%llx, 0x%llx) = %" PRId64, syscall_name(nr),
             ev->regs.rdi, ev->regs.rsi, ev->regs.rdx, ev->regs.r10, ev->regs.r8, ev->regs.r9,
             ev->result);
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < ev->nmem; i++)
      bytes += ev->mem[i].len;
    if (ev->nmem)
      printf(" wrote %u region%s (%" PRIu64 " bytes)", ev->nmem, ev->nmem == 1 ? "" : "s", bytes);
    if (ev->out_to)
      printf(" output to %s (%u bytes)", ev->out_to == 1 ? "stdout" : "stderr", ev->out_len);
    if (ev->file[0])
      printf(" file %s", ev->file);
    if (ev->flags & EVF_FILE_CHANGE)
      printf(" (changed: %u bytes at %" PRIu64 ", size %" PRIu64 ")", ev->fdata_len, ev->file_off,
             ev->file_size);
    if (ev->flags & EVF_FILE_REMAP)
      printf(" (grown mapping of file offset %" PRIu64 ")", ev->file_off);
    if ((ev->flags & EVF_FILE_AS_ANON) && ev->file[0])
      printf(" (replayed as anonymous memory)");
    break;
  }
  case EV_INSN:
    printf(" at 0x%llx rax=0x%llx rdx=0x%llx", ev->regs.rip, ev->regs_after.rax,
           ev->regs_after.rdx);
    break;
  case EV_SIGNAL: printf(" %s at 0x%llx", strsignal(ev->signo), ev->regs.rip); break;
  case EV_EXIT:
    if (WIFEXITED(ev->status))
      printf(" status %d", WEXITSTATUS(ev->status));
    else
      printf(" killed by %s", strsignal(WTERMSIG(ev->status)));
    break;
  case EV_EXEC:
    printf(" %s entry 0x%llx", ev->file, ev->regs.rip);
    if (ev->cpuid_stub) /* the page and then one region per patched site */
      printf(", cpuid page at 0x%" PRIx64 " for %u sites", ev->cpuid_stub,
             ev->nmem ? (unsigned)(ev->nmem - cpuid_page_region(ev) - 1) : 0);
    printf(": ");
    print_strings(ev);
    break;
  case EV_ABORT: printf(" %s", ev->message); break;
  case EV_ENTER: printf(" %s (blocked)", syscall_name((long)ev->regs.orig_rax)); break;
  case EV_STATE:
    printf(" at 0x%llx, %u changed page%s", ev->regs.rip, ev->nmem, ev->nmem == 1 ? "" : "s");
    break;
  case EV_SBUF: syscallbuf_describe(ev, stdout); break;
  }
  putchar('\n');
  return 0;
}

/* One line (on stderr: stdout holds the events) when the recording patched rdtsc. */
static void say_tsc_mode(const char *arg) {
  char err[512];
  char *dir = trace_dir_resolve(arg, err, sizeof err);
  if (dir && tsc_patch_recorded(dir))
    deja_msg("rdtsc and rdtscp were patched into traps in this recording (the machine "
             "did not trap them); replay patches them the same way");
  free(dir);
}

int cmd_dump(int argc, char **argv) {
  if (argc > 2) {
    deja_msg("dump: too many arguments; usage: deja dump [TRACE]");
    return 1;
  }
  if (argc > 1 && unknown_option("dump", argv[1]))
    return 1;
  say_tsc_mode(argc > 1 ? argv[1] : NULL);
  return event_iter(argc > 1 ? argv[1] : NULL, dump_one, NULL);
}
