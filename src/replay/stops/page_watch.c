/* Data watchpoints by page protection (see page_watch.h). */
#include "replay/stops/page_watch.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>

#include "arch/x86_access.h"
#include "arch/x86_writes.h"
#include "common/log.h"
#include "task/proc_maps.h"
#include "task/proc_status.h"

#define PAGE 4096ull
#define DR6_OFFSET (offsetof(struct user, u_debugreg) + 6 * sizeof(long))

/* mprotect of one page in X's process, as a call injected into X (at a system call's
 * entry stop when AT_ENTRY). */
static bool set_prot(struct rptask *x, bool at_entry, uint64_t page, int prot) {
  uint64_t args[6] = {page, PAGE, (uint64_t)prot, 0, 0, 0};
  bool ok = false;
  int64_t rc = task_inject_syscall(&x->t, at_entry, x->gadget, SYS_mprotect, args, &ok);
  return ok && rc == 0;
}

static void unprotect(struct page_watch *w, struct rptask *x, bool at_entry) {
  for (int i = 0; i < w->npages; i++)
    set_prot(x, at_entry, w->pages[i].page, w->pages[i].orig);
  w->npages = 0;
}

/* The page list for the slots set: the program's protection of each page less what the
 * slots on it watch. */
static void plan(struct page_watch *w, struct rptask *x) {
  w->npages = 0;
  for (int i = 0; i < PAGE_WATCH_SLOTS; i++) {
    const struct page_watch_slot *s = &w->slot[i];
    if (!s->on)
      continue;
    for (uint64_t p = s->addr & ~(PAGE - 1); p < s->addr + (uint64_t)s->len; p += PAGE) {
      int k = 0;
      while (k < w->npages && w->pages[k].page != p)
        k++;
      if (k == w->npages) {
        struct proc_mapping m;
        if (k == PAGE_WATCH_PAGES || proc_mapping_find(x->t.tid, p, &m) < 0)
          continue; /* not mapped now: protected once it is, at a later run */
        w->pages[w->npages++] = (struct page_watch_page){p, m.prot, m.prot};
      }
      w->pages[k].prot &= s->writes_only ? ~PROT_WRITE : 0;
    }
  }
  /* a page whose protection stays is left alone */
  int n = 0;
  for (int k = 0; k < w->npages; k++)
    if (w->pages[k].prot != w->pages[k].orig)
      w->pages[n++] = w->pages[k];
  w->npages = n;
}

/* Sets the planned protections; a page that cannot be protected is dropped (said once). */
static void protect(struct page_watch *w, struct rptask *x) {
  int n = 0;
  for (int k = 0; k < w->npages; k++) {
    if (x->gadget && set_prot(x, false, w->pages[k].page, w->pages[k].prot)) {
      w->pages[n++] = w->pages[k];
    } else if (!w->said) {
      w->said = true;
      deja_msg("warning: cannot protect the page at 0x%" PRIx64 " of task %d to watch it: "
               "its watchpoints do not trigger",
               w->pages[k].page, x->rec_tid);
    }
  }
  w->npages = n;
  w->owner = x->pid;
}

/* What delivering SIG does to task TID: 1 it runs a handler, 0 nothing (ignored, by
 * default or by SIG_IGN), -1 its default action (ends or stops it). From SigCgt and
 * SigIgn in /proc/TID/status. */
static int disposition(pid_t tid, int sig) {
  struct proc_status s;
  uint64_t cgt = 0, ign = 0; /* an unreadable file: neither */
  if (proc_status_read(tid, &s) == 0) {
    proc_status_get_mask(&s, "SigCgt", &cgt);
    proc_status_get_mask(&s, "SigIgn", &ign);
    proc_status_free(&s);
  }
  uint64_t bit = sig >= 1 && sig <= 64 ? 1ull << (sig - 1) : 0;
  if (cgt & bit)
    return 1;
  bool ignored_by_default = sig == SIGCHLD || sig == SIGURG || sig == SIGWINCH || sig == SIGCONT;
  return ign & bit || ignored_by_default ? 0 : -1;
}

/* Delivers the signal X is resumed with into its handler by a single step, the pages
 * still unprotected (the kernel writes the handler's frame, maybe onto a watched page):
 * X then stands at the handler's first instruction. False when it stopped otherwise
 * (that stop is lost: the run goes on from it unwatched). */
static bool deliver(struct rptask *x) {
  int sig = x->sig;
  x->sig = 0;
  struct stop st;
  if (task_resume(&x->t, PTRACE_SINGLESTEP, sig) < 0 || task_wait(&x->t, &st) < 0)
    return false;
  /* a real signal pending behind it: discarded, as replay delivers recorded ones only */
  while (st.kind == STOP_SIGNAL && st.sig != SIGTRAP)
    if (task_resume(&x->t, PTRACE_SINGLESTEP, 0) < 0 || task_wait(&x->t, &st) < 0)
      return false;
  ptrace(PTRACE_POKEUSER, x->t.tid, (void *)DR6_OFFSET, 0);
  return st.kind == STOP_SIGNAL;
}

void page_watch_arm(struct page_watch *w, struct rptask *x, int req) {
  w->req = req;
  if (w->npages && w->owner == x->pid) {
    store_hooks_end(&w->sh, x, false);
    unprotect(w, x, false); /* left at another task's signal stop */
  }
  w->npages = 0;
  bool any = false;
  for (int i = 0; i < PAGE_WATCH_SLOTS; i++)
    any |= w->slot[i].on;
  if (!any)
    return; /* nothing watched: the run is left as it is */
  /* A signal sent stops the task before it runs any code: that stop must stay as it is.
   * One delivered to a handler goes in first; an ignored one is not delivered (the
   * injected calls would take its delivery stop away). A single step with one runs one
   * instruction (not watched). */
  if (x->queued_sig || (x->sig && req == PTRACE_SINGLESTEP))
    return;
  int acts = x->sig ? disposition(x->t.tid, x->sig) : 0;
  if (acts < 0 || (acts > 0 && !deliver(x)))
    return;   /* it dies or stops (or the delivery stopped elsewhere) */
  x->sig = 0; /* ignored: delivering it would change nothing */
  plan(w, x);
  if (w->npages)
    protect(w, x);
}

static bool on_page(const struct page_watch *w, uint64_t addr) {
  for (int k = 0; k < w->npages; k++)
    if (w->pages[k].page == (addr & ~(PAGE - 1)))
      return true;
  return false;
}

/* Makes X's plain mov M (touching no watched byte) as it would have: one stop for a store
 * next to watched bytes, which stepping it unprotected takes several. */
static bool made_mov(struct page_watch *w, struct rptask *x, const struct x86_mov *m) {
  struct user_regs_struct r = x->t.regs;
  uint64_t v = 0;
  uint64_t to = store_hooks_writable(&w->sh, x, m->addr, m->size);
  if (m->store ? task_write_mem(&x->t, to, &m->value, m->size) < 0
               : task_read_mem(&x->t, m->addr, &v, m->size) < 0)
    return false;
  if (!m->store)
    x86_mov_load(&r, m, v);
  r.rip += m->len;
  return task_set_regs(&x->t, &r) == 0;
}

/* Makes X's push or call P (touching no watched byte) as it would have, likewise. */
static bool made_push(struct page_watch *w, struct rptask *x, const struct x86_push *p) {
  struct user_regs_struct r = x->t.regs;
  r.rsp -= 8;
  r.rip = p->next;
  uint64_t to = store_hooks_writable(&w->sh, x, r.rsp, sizeof p->value);
  return task_write_mem(&x->t, to, &p->value, sizeof p->value) == 0 &&
         task_set_regs(&x->t, &r) == 0;
}

/* X runs on as it was resumed, the store hooks in. */
static int run_on(struct page_watch *w, struct rptask *x) {
  store_hooks_resume(&w->sh, x);
  return task_resume(&x->t, w->req, 0) < 0 ? -1 : 1;
}

/* The watched bytes on PAGE for the store hooks: [*LO, *HI), empty when a watch there
 * is not of writes only (the alias takes stores only). */
static void watched_on(const struct page_watch *w, uint64_t page, uint64_t *lo, uint64_t *hi) {
  *lo = UINT64_MAX;
  *hi = 0;
  for (int i = 0; i < PAGE_WATCH_SLOTS; i++) {
    const struct page_watch_slot *s = &w->slot[i];
    if (!s->on || s->addr >= page + PAGE || s->addr + (uint64_t)s->len <= page)
      continue;
    if (!s->writes_only) {
      *lo = *hi = 0;
      return;
    }
    *lo = s->addr < *lo ? s->addr : *lo;
    *hi = s->addr + (uint64_t)s->len > *hi ? s->addr + (uint64_t)s->len : *hi;
  }
}

/* A store beside watched bytes: counted by the store hooks, hooked once hot. */
static void note_store(struct page_watch *w, struct rptask *x, uint64_t addr) {
  uint64_t page = addr & ~(PAGE - 1), lo, hi;
  for (int k = 0; k < w->npages; k++)
    if (w->pages[k].page == page) {
      watched_on(w, page, &lo, &hi);
      store_hooks_fault(&w->sh, x, x->t.regs.rip, page, w->pages[k].orig, w->pages[k].prot, lo, hi);
    }
}

/* X faulted at ADDR on a watched page (its registers read): the instruction is stepped
 * unprotected. */
static int fault(struct page_watch *w, struct rptask *x, struct stop *st, uint64_t addr,
                 unsigned *hits) {
  uint8_t code[X86_MAX_INSN_LEN];
  size_t len = task_read_code(&x->t, x->t.regs.rip, code, sizeof code);
  bool passed_over = w->rf_tid == x->t.tid && w->rf_pc == x->t.regs.rip;
  w->rf_tid = 0;
  for (int i = 0;
       i < PAGE_WATCH_SLOTS && w->exec_at_fault && w->req != PTRACE_SINGLESTEP && !passed_over;
       i++) {
    if (!w->exec_on[i] || w->exec[i] != x->t.regs.rip)
      continue;
    /* the execution breakpoint's trap, before the instruction */
    siginfo_t si;
    memset(&si, 0, sizeof si);
    si.si_signo = SIGTRAP;
    si.si_code = TRAP_HWBKPT;
    unprotect(w, x, false);
    ptrace(PTRACE_SETSIGINFO, x->t.tid, 0, &si);
    st->sig = SIGTRAP;
    w->rf_tid = x->t.tid;
    w->rf_pc = x->t.regs.rip;
    *hits = 1u << i;
    return 0;
  }
  if (len >= 2 && code[0] == 0x0f && code[1] == 0x05) {
    /* a system call on a page without access: never single-stepped (it would run
     * untraced); the call's entry stop comes next, where the pages are unprotected */
    unprotect(w, x, false);
    return run_on(w, x);
  }
  for (int i = 0; i < PAGE_WATCH_SLOTS; i++) {
    const struct page_watch_slot *s = &w->slot[i];
    if (!s->on)
      continue;
    enum x86_touch how = s->writes_only  ? X86_TOUCH_WRITE
                         : s->reads_only ? X86_TOUCH_READ
                                         : X86_TOUCH_ANY;
    int t = x86_insn_touches(code, len, &x->t.regs, s->addr, (uint64_t)s->len, how);
    if (t < 0) /* not decoded: the faulting address tells */
      t = addr >= s->addr && addr < s->addr + (uint64_t)s->len;
    if (t)
      *hits |= 1u << i;
  }
  if (!*hits && w->req != PTRACE_SINGLESTEP)
    note_store(w, x, addr);
  struct x86_mov m;
  if (!*hits && w->req != PTRACE_SINGLESTEP && x86_plain_mov(code, len, &x->t.regs, &m) &&
      made_mov(w, x, &m))
    return run_on(w, x);
  struct x86_push p;
  if (!*hits && w->req != PTRACE_SINGLESTEP && x86_plain_push(code, len, &x->t.regs, &p) &&
      made_push(w, x, &p))
    return run_on(w, x);
  struct page_watch_page pages[PAGE_WATCH_PAGES];
  int npages = w->npages;
  memcpy(pages, w->pages, sizeof pages);
  unprotect(w, x, false); /* (resuming the injected call discards the SIGSEGV) */
  struct stop step;
  if (task_resume(&x->t, PTRACE_SINGLESTEP, 0) < 0 || task_wait(&x->t, &step) < 0)
    return -1;
  w->steps++;
  *st = step;
  if (step.kind != STOP_SIGNAL || step.sig != SIGTRAP) {
    *hits = 0; /* something else came first: the replay's, the instruction not run */
    return 0;
  }
  if (w->req != PTRACE_SINGLESTEP)
    ptrace(PTRACE_POKEUSER, x->t.tid, (void *)DR6_OFFSET, 0); /* the step was not asked */
  if (*hits || w->req == PTRACE_SINGLESTEP) {
    if (*hits && w->req != PTRACE_SINGLESTEP) {
      /* as the debug register's trap reports itself */
      siginfo_t si;
      memset(&si, 0, sizeof si);
      if (ptrace(PTRACE_GETSIGINFO, x->t.tid, 0, &si) == 0) {
        si.si_code = TRAP_HWBKPT;
        ptrace(PTRACE_SETSIGINFO, x->t.tid, 0, &si);
      }
    }
    return 0;
  }
  w->npages = npages;
  memcpy(w->pages, pages, sizeof pages);
  protect(w, x);
  return run_on(w, x);
}

/* The end of X's run at ST: the pages get the program's protection back, the store
 * hooks' pages their mappings (not where a call would take away a signal to deliver:
 * then at the process's next run). */
static void end_run(struct page_watch *w, struct rptask *x, const struct stop *st) {
  /* A signal the replay may deliver from this stop: an injected call would take the
   * stop away. So with a group stop that came before a pending signal's (an interrupt
   * right after a breakpoint's int3, its SIGTRAP not delivered yet): the injected call
   * would swallow that signal. */
  if ((st->kind == STOP_SIGNAL && st->sig != SIGTRAP) ||
      (st->kind == STOP_GROUP && task_signal_pending(x->t.tid)))
    return;
  /* The injected calls leave their own siginfo (a system call stop's), which ptrace
   * then reports for the stop: the trap's is what the hooks read. */
  siginfo_t si;
  bool have_si = st->kind == STOP_SIGNAL && ptrace(PTRACE_GETSIGINFO, x->t.tid, 0, &si) == 0;
  store_hooks_end(&w->sh, x, st->kind == STOP_SYSCALL_ENTRY);
  unprotect(w, x, st->kind == STOP_SYSCALL_ENTRY);
  if (have_si)
    ptrace(PTRACE_SETSIGINFO, x->t.tid, 0, &si);
}

void page_watch_settle(struct page_watch *w, struct rptask *x) {
  if (w->owner != x->pid)
    return;
  store_hooks_end(&w->sh, x, rptask_in_call(x));
  unprotect(w, x, rptask_in_call(x));
}

int page_watch_stop(struct page_watch *w, struct rptask *x, struct stop *st, unsigned *hits) {
  *hits = 0;
  bool gone = st->kind == STOP_EXITED ||
              (st->kind == STOP_EVENT &&
               (st->event == PTRACE_EVENT_EXIT || st->event == PTRACE_EVENT_EXEC));
  /* A fault on a watched page outside the hooks' code leaves them in while it is passed
   * over (most are); at any other stop, or one the fault becomes, the jmps go out and a
   * stop inside their code is translated. */
  siginfo_t si;
  memset(&si, 0, sizeof si);
  bool on_watched = !gone && w->npages && w->owner == x->pid && st->kind == STOP_SIGNAL &&
                    st->sig == SIGSEGV && ptrace(PTRACE_GETSIGINFO, x->t.tid, 0, &si) == 0 &&
                    si.si_code == SEGV_ACCERR && on_page(w, (uint64_t)(uintptr_t)si.si_addr);
  if (on_watched && task_get_regs(&x->t) < 0)
    return -1; /* (the one read of the registers at a fault: fault() uses them) */
  bool hooks_in = on_watched && !store_hooks_in_code(&w->sh, x, x->t.regs.rip);
  if (!gone && !hooks_in)
    store_hooks_stopped(&w->sh, x); /* (translated registers set in x->t.regs too) */
  if (!w->npages || w->owner != x->pid)
    return 0;
  if (gone) {
    w->npages = 0; /* its address space is gone (or going) */
    w->sh.owner = 0;
    return 0;
  }
  if (on_watched) {
    int rc = fault(w, x, st, (uint64_t)(uintptr_t)si.si_addr, hits);
    if (hooks_in && rc != 1)
      store_hooks_stopped(&w->sh, x);
    if (rc == 0)
      end_run(w, x, st);
    return rc;
  }
  end_run(w, x, st);
  return 0;
}
