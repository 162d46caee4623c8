/* The memory of a restored state point. The recorder saves the pages whose hash changed
 * since the process's previous state point; replay writes them over the memory it has at
 * the end of the event before (the stretch in between is skipped). A page the program
 * changed after the previous state point in code replay runs for real, and changed back
 * in the skipped stretch, has its old hash again: the recorder saves nothing for it, yet
 * replay holds the intermediate content. So replay keeps the same hashes as the
 * recorder, each with the state point event that holds the content (its position in the
 * events stream), scans the process after writing the pages, and puts such pages back
 * from that older event. The memory's digest recorded with the state point then checks
 * the whole of it. */
#include "replay/events/replay_state_pages.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/kernel_abi.h"
#include "common/log.h"
#include "task/page_hashes.h"
#include "trace/trace_cursor.h"

struct proc_pages {
  pid_t rec_pid;
  struct page_hashes *h; /* page -> hash, tag: index in `sources` */
};

struct state_pages {
  struct proc_pages *procs;
  int nprocs, cap;
  struct trace_pos *sources; /* the records of the state points restored so far */
  size_t nsources, cap_sources;
  struct trace_reader *rd; /* reads older state points again */
  struct event old;
};

void state_pages_free(struct state_pages *sp) {
  if (!sp)
    return;
  for (int i = 0; i < sp->nprocs; i++)
    page_hashes_free(sp->procs[i].h);
  free(sp->procs);
  free(sp->sources);
  trace_reader_close(sp->rd);
  event_free(&sp->old);
  free(sp);
}

struct state_pages *state_pages_copy(const struct state_pages *sp) {
  if (!sp)
    return NULL;
  struct state_pages *c = xcalloc(1, sizeof *c);
  event_init(&c->old);
  c->procs = xcalloc((size_t)(sp->nprocs ? sp->nprocs : 1), sizeof *c->procs);
  c->nprocs = c->cap = sp->nprocs;
  for (int i = 0; i < sp->nprocs; i++)
    c->procs[i] = (struct proc_pages){sp->procs[i].rec_pid, page_hashes_copy(sp->procs[i].h)};
  c->sources = xcalloc(sp->nsources ? sp->nsources : 1, sizeof *c->sources);
  memcpy(c->sources, sp->sources, sp->nsources * sizeof *c->sources);
  c->nsources = c->cap_sources = sp->nsources;
  return c; /* its reader of earlier state points is opened on first use */
}

void state_pages_forget_process(struct state_pages *sp, pid_t rec_pid) {
  for (int i = 0; sp && i < sp->nprocs; i++)
    if (sp->procs[i].rec_pid == rec_pid) {
      page_hashes_free(sp->procs[i].h);
      sp->procs[i] = sp->procs[--sp->nprocs];
      return;
    }
}

static struct page_hashes *proc_table(struct replay_engine *e, pid_t rec_pid) {
  if (!e->state_pages) {
    e->state_pages = xcalloc(1, sizeof *e->state_pages);
    event_init(&e->state_pages->old);
  }
  struct state_pages *sp = e->state_pages;
  for (int i = 0; i < sp->nprocs; i++)
    if (sp->procs[i].rec_pid == rec_pid)
      return sp->procs[i].h;
  if (sp->nprocs == sp->cap) {
    sp->cap = sp->cap ? sp->cap * 2 : 8;
    sp->procs = xrealloc(sp->procs, (size_t)sp->cap * sizeof *sp->procs);
  }
  sp->procs[sp->nprocs] = (struct proc_pages){rec_pid, page_hashes_new()};
  return sp->procs[sp->nprocs++].h;
}

/* Notes the current state point's pages as the latest content of their addresses. */
static struct page_hashes *note_pages(struct replay_engine *e, struct rptask *x) {
  struct page_hashes *h = proc_table(e, x->rec_pid);
  struct state_pages *sp = e->state_pages;
  if (sp->nsources == sp->cap_sources) {
    sp->cap_sources = sp->cap_sources ? sp->cap_sources * 2 : 64;
    sp->sources = xrealloc(sp->sources, sp->cap_sources * sizeof *sp->sources);
  }
  uint64_t tag = sp->nsources;
  sp->sources[sp->nsources++] = trace_cursor_record_pos(e->cur);
  for (uint32_t i = 0; i < e->ev->nmem; i++) {
    const struct event_mem *m = &e->ev->mem[i];
    if (m->len == PAGE_BYTES)
      page_hashes_set(h, m->addr, page_hash(m->data), tag);
  }
  return h;
}

struct revert {
  uint64_t addr, tag, hash;
};

struct scan {
  struct page_hashes *h;
  struct revert *rv;
  size_t nrv, cap;
  uint64_t digest;
  int pagemap; /* the process's /proc/PID/pagemap (-1 until needed) */
  pid_t tid;
  size_t unknown; /* pages with content the recording never had there */
  uint64_t first_unknown;
};

#define PM_FILE (1ull << 61) /* a page of a file (or of shared memory), not a private copy */

/* A page the recording never saved that still holds its file's bytes (not written since
 * it was mapped): whether the kernel mapped it at all depends on the page cache (a read
 * fault maps the cached pages around it too), which differs between recording and replay,
 * and its content is the file's in both. The recorder's digest does not have it. */
static bool unwritten_file_page(struct scan *s, uint64_t addr) {
  if (s->pagemap < 0) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/pagemap", s->tid);
    s->pagemap = open(path, O_RDONLY | O_CLOEXEC);
  }
  uint64_t flags = 0;
  return s->pagemap >= 0 &&
         pread(s->pagemap, &flags, sizeof flags, (off_t)(addr / PAGE_BYTES * sizeof flags)) ==
             (ssize_t)sizeof flags &&
         (flags & PM_FILE);
}

static int scan_page(void *ctx, uint64_t addr, const uint8_t *page, uint64_t hash) {
  (void)page;
  struct scan *s = ctx;
  uint64_t want, tag;
  if (!page_hashes_get(s->h, addr, &want, &tag)) {
    if (page_hash_is_zero(hash) || unwritten_file_page(s, addr))
      return 0;
    if (!s->unknown++)
      s->first_unknown = addr;
    page_digest_add(&s->digest, addr, hash);
    return 0;
  }
  page_digest_add(&s->digest, addr, want);
  if (want == hash)
    return 0;
  if (s->nrv == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 16;
    s->rv = xrealloc(s->rv, s->cap * sizeof *s->rv);
  }
  s->rv[s->nrv++] = (struct revert){addr, tag, want};
  return 0;
}

static int by_tag(const void *a, const void *b) {
  const struct revert *p = a, *q = b;
  if (p->tag != q->tag)
    return p->tag < q->tag ? -1 : 1;
  return p->addr < q->addr ? -1 : p->addr > q->addr;
}

/* Puts back the pages of S's reverts from the state points that hold their content. */
static int put_back(struct replay_engine *e, struct rptask *x, struct scan *s) {
  struct state_pages *sp = e->state_pages;
  if (s->nrv == 0)
    return 0;
  qsort(s->rv, s->nrv, sizeof *s->rv, by_tag);
  for (size_t i = 0; i < s->nrv;) {
    uint64_t tag = s->rv[i].tag;
    if (trace_read_event_at(trace_cursor_path(e->cur), &sp->rd, sp->sources[tag], &sp->old) < 0 ||
        sp->old.kind != EV_STATE)
      return diverge(e, "cannot read an earlier state point again to restore this one");
    uint32_t k = 0; /* the event's pages are in address order, as the reverts of a tag */
    for (; i < s->nrv && s->rv[i].tag == tag; i++) {
      while (k < sp->old.nmem && sp->old.mem[k].addr < s->rv[i].addr)
        k++;
      const struct event_mem *m = k < sp->old.nmem ? &sp->old.mem[k] : NULL;
      if (!m || m->addr != s->rv[i].addr || m->len != PAGE_BYTES ||
          page_hash(m->data) != s->rv[i].hash)
        return diverge(e, "the content of page 0x%" PRIx64 " at an earlier state point is missing",
                       s->rv[i].addr);
      if (task_write_mem(&x->t, m->addr, m->data, m->len) < 0)
        return diverge(e, "cannot restore the page at 0x%" PRIx64 ": %s", m->addr, strerror(errno));
    }
  }
  return 0;
}

/* Writes M into X's memory unless it holds that already: a page left alone keeps its
 * frame, shared with the checkpoints' copies (which tells a reverse-continue that nothing
 * wrote it, timeline_quiet.c, and costs the copies no memory). */
static int restore_page(struct rptask *x, const struct event_mem *m) {
  uint8_t now[PAGE_BYTES];
  if (m->len <= sizeof now && task_read_mem(&x->t, m->addr, now, m->len) == 0 &&
      !memcmp(now, m->data, m->len))
    return 0;
  return task_write_mem(&x->t, m->addr, m->data, m->len);
}

int state_pages_restore(struct replay_engine *e, struct rptask *x) {
  for (uint32_t i = 0; i < e->ev->nmem; i++) {
    const struct event_mem *m = &e->ev->mem[i];
    if (restore_page(x, m) < 0)
      return diverge(e, "cannot restore the page at 0x%" PRIx64 ": %s", m->addr, strerror(errno));
  }
  struct scan s = {.h = note_pages(e, x), .pagemap = -1, .tid = x->t.tid};
  int scanned = page_scan(x->t.tid, x->t.mem_fd, scan_page, &s);
  if (s.pagemap >= 0)
    close(s.pagemap);
  if (scanned < 0) {
    free(s.rv);
    return diverge(e, "cannot read the memory of task %d: %s", x->rec_tid, strerror(errno));
  }
  int rc = put_back(e, x, &s);
  if (getenv("DEJA_DEBUG") && (s.nrv || s.unknown))
    deja_msg("event %" PRIu64 ": %zu pages put back from earlier state points, %zu unknown",
             e->pos.event, s.nrv, s.unknown);
  free(s.rv);
  char first[48] = "";
  if (s.unknown)
    snprintf(first, sizeof first, ", the first at 0x%" PRIx64, s.first_unknown);
  if (rc == 0 && e->ev->has_digest && s.digest != e->ev->digest)
    rc = diverge(e,
                 "the memory of process %d after restoring the state point is not the recorded "
                 "one (%zu pages hold content the recording did not have there%s)",
                 x->rec_pid, s.unknown, first);
  return rc;
}
