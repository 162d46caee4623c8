/* The gdb remote protocol server: reads gdb's packets, answers them from a gdb_target and
 * resumes it (see gdb_target.h). All-stop mode; thread ids carry the process id
 * (pPID.TID) when gdb offers multiprocess. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "gdb/gdb_packet.h"
#include "gdb/gdb_regs.h"
#include "gdb/gdb_rrcmd.h"
#include "gdb/gdb_signal.h"
#include "gdb/gdb_stop_reply.h"
#include "gdb/gdb_strbuf.h"
#include "gdb/gdb_target.h"
#include "gdb/gdb_vfile.h"

#define MAX_THREADS 1024
#define MONITOR_OUT_MAX 16384
#define AUXV_MAX 8192
/* Room a reply leaves for its data once framing and a prefix are taken off. */
#define REPLY_DATA_MAX (GDB_PACKET_MAX - 32)

enum after_reply { SEND_REPLY, SEND_NOTHING, SEND_AND_END, END_SESSION };

struct server {
  struct gdb_conn conn;
  const struct gdb_target *t;
  struct gdb_xsave_layout layout;
  char in[GDB_PACKET_MAX + 1];
  struct gdb_strbuf out;
  pid_t g_thread, c_thread; /* from Hg / Hc: 0 any, -1 all, else a tid */
  /* the last Hg's thread even when refused (a forked child gdb lets go of, whose
   * breakpoints it removes): whose breakpoints Z/z packets mean */
  pid_t g_asked;
  struct gdb_stop stop; /* the last stop reported */
  bool have_stop;
  bool swbreak_ok, hwbreak_ok; /* gdb understands these stop reasons */
  bool multiprocess;           /* thread ids as pPID.TID */
  struct gdb_stop_filter filter;
  bool filter_changed;
  struct gdb_vfile vfile;
  pid_t pids[MAX_THREADS], tids[MAX_THREADS];
  int nthreads;
  struct gdb_thread_regs regs;
};

static void refresh_threads(struct server *s) {
  s->nthreads = 0;
  if (s->t->threads) {
    int n = s->t->threads(s->t->ctx, s->pids, s->tids, MAX_THREADS);
    s->nthreads = n < 0 ? 0 : n > MAX_THREADS ? MAX_THREADS : n;
  }
}

static bool thread_alive(struct server *s, pid_t tid) {
  refresh_threads(s);
  for (int i = 0; i < s->nthreads; i++)
    if (s->tids[i] == tid)
      return true;
  return false;
}

/* The stop the target is at (asking it when we have not resumed it yet). */
static const struct gdb_stop *current_stop(struct server *s) {
  if (!s->have_stop) {
    memset(&s->stop, 0, sizeof(s->stop));
    if (s->t->current_stop) {
      s->t->current_stop(s->t->ctx, &s->stop);
    } else {
      refresh_threads(s);
      s->stop.kind = GDB_STOP_SIGNAL;
      s->stop.signo = 5; /* SIGTRAP */
      if (s->nthreads > 0) {
        s->stop.pid = s->pids[0];
        s->stop.tid = s->tids[0];
      }
    }
    s->have_stop = true;
  }
  return &s->stop;
}

static pid_t current_tid(struct server *s) {
  const struct gdb_stop *st = current_stop(s);
  if (st->tid > 0)
    return st->tid;
  refresh_threads(s);
  return s->nthreads > 0 ? s->tids[0] : 0;
}

static pid_t pid_of(struct server *s, pid_t tid) {
  refresh_threads(s);
  for (int i = 0; i < s->nthreads; i++)
    if (s->tids[i] == tid)
      return s->pids[i];
  const struct gdb_stop *st = current_stop(s);
  return st->pid > 0 ? st->pid : tid;
}

static pid_t general_tid(struct server *s) {
  return s->g_thread > 0 ? s->g_thread : current_tid(s);
}
static pid_t continue_tid(struct server *s) {
  return s->c_thread > 0 ? s->c_thread : current_tid(s);
}

/* ---- stop replies (gdb_stop_reply.c) ---- */

static void add_thread_id(struct server *s, struct gdb_strbuf *o, pid_t pid, pid_t tid) {
  gdb_add_thread_id(o, s->multiprocess, pid, tid);
}

static void format_stop(struct server *s, const struct gdb_stop *st, struct gdb_strbuf *o) {
  struct gdb_reply_options r = {s->multiprocess, s->swbreak_ok, s->hwbreak_ok, &s->filter};
  gdb_format_stop(st, &r, o);
}

/* ---- helpers for parsing ---- */

/* A thread id as gdb writes it: "-1", "0", hex, or "pPID.TID". */
static bool parse_thread_id(const char **p, pid_t *out) {
  const char *q = *p;
  uint64_t v;
  if (*q == 'p') { /* multiprocess form; keep the thread part */
    q++;
    if (q[0] == '-' && q[1] == '1')
      q += 2;
    else if (!gdb_parse_hex(&q, &v))
      return false;
    if (*q != '.') {
      *out = -1;
      *p = q;
      return true;
    }
    q++;
  }
  if (q[0] == '-' && q[1] == '1') {
    *out = -1;
    *p = q + 2;
    return true;
  }
  if (!gdb_parse_hex(&q, &v) || v > 0x7fffffff)
    return false;
  *out = (pid_t)v;
  *p = q;
  return true;
}

/* "ADDR,LEN" at P. */
static bool parse_addr_len(const char *p, uint64_t *addr, uint64_t *len, const char **end) {
  if (!gdb_parse_hex(&p, addr) || *p++ != ',' || !gdb_parse_hex(&p, len))
    return false;
  if (end)
    *end = p;
  return true;
}

/* ---- commands ---- */

static void reply_error(struct server *s) { gdb_strbuf_adds(&s->out, "E01"); }

static void push_filter(struct server *s) {
  if (s->filter_changed && s->t->set_filter)
    s->t->set_filter(s->t->ctx, &s->filter);
  s->filter_changed = false;
}

static void cmd_supported(struct server *s, const char *features) {
  s->swbreak_ok = strstr(features, "swbreak+") != NULL;
  s->hwbreak_ok = strstr(features, "hwbreak+") != NULL;
  s->multiprocess = strstr(features, "multiprocess+") != NULL;
  s->filter.exec_events = strstr(features, "exec-events+") != NULL;
  /* fork events name the child as pPID.TID: they need multiprocess */
  s->filter.fork_events = s->multiprocess && strstr(features, "fork-events+") != NULL;
  s->filter.vfork_events = s->multiprocess && strstr(features, "vfork-events+") != NULL;
  s->filter_changed = true;
  gdb_strbuf_addf(
      &s->out,
      "PacketSize=%x;qXfer:features:read+;qXfer:auxv:read+;"
      "qXfer:exec-file:read+;qXfer:threads:read+;qXfer:siginfo:read+;"
      "qXfer:siginfo:write+;swbreak+;hwbreak+;vContSupported+;ReverseStep+;"
      "ReverseContinue+;QStartNoAckMode+;QPassSignals+;QProgramSignals+;"
      "QCatchSyscalls+%s%s%s%s%s",
      GDB_PACKET_MAX, s->t->break_conds ? ";ConditionalBreakpoints+" : "",
      s->multiprocess ? ";multiprocess+" : "", s->filter.exec_events ? ";exec-events+" : "",
      s->filter.fork_events ? ";fork-events+" : "", s->filter.vfork_events ? ";vfork-events+" : "");
}

/* QPassSignals:SIG;SIG... (gdb's numbers, hex): delivered without a stop. */
static void cmd_pass_signals(struct server *s, const char *p) {
  bool pass[GDB_NSIG] = {false};
  while (*p) {
    uint64_t g;
    if (!gdb_parse_hex(&p, &g) || (*p && *p != ';'))
      return reply_error(s);
    int signo = g < 0x100 ? gdb_signal_to_linux((int)g) : 0;
    if (signo > 0 && signo < GDB_NSIG)
      pass[signo] = true;
    if (*p == ';')
      p++;
  }
  memcpy(s->filter.pass, pass, sizeof pass);
  s->filter_changed = true;
  gdb_strbuf_adds(&s->out, "OK");
}

/* QCatchSyscalls:0, QCatchSyscalls:1, or QCatchSyscalls:1;NR;NR... (hex). */
static void cmd_catch_syscalls(struct server *s, const char *p) {
  bool on = *p == '1';
  if ((*p != '0' && *p != '1') || (p[1] && p[1] != ';'))
    return reply_error(s);
  p++;
  struct gdb_stop_filter *f = &s->filter;
  memset(f->syscalls, 0, sizeof f->syscalls);
  f->catch_syscalls = on;
  f->any_syscall = on && !*p;
  while (*p == ';') {
    p++;
    uint64_t nr;
    if (!gdb_parse_hex(&p, &nr) || (*p && *p != ';'))
      return reply_error(s);
    if (nr < GDB_NSYSCALLS)
      f->syscalls[nr] = true;
  }
  s->filter_changed = true;
  gdb_strbuf_adds(&s->out, "OK");
}

static bool load_regs(struct server *s, pid_t tid) {
  memset(&s->regs, 0, sizeof(s->regs));
  return s->t->get_regs && s->t->get_regs(s->t->ctx, tid, &s->regs) == 0;
}

static void add_register(struct server *s, int regno) {
  uint8_t val[GDB_REG_MAX_SIZE];
  size_t size = gdb_reg_size(&s->layout, regno);
  if (gdb_reg_read(&s->layout, &s->regs, regno, val)) {
    gdb_strbuf_add_hex(&s->out, val, size);
  } else {
    for (size_t i = 0; i < 2 * size; i++)
      gdb_strbuf_add(&s->out, "x", 1);
  }
}

static void cmd_read_registers(struct server *s) {
  if (!load_regs(s, general_tid(s)))
    return reply_error(s);
  for (int i = 0; i < gdb_reg_count(&s->layout); i++)
    add_register(s, i);
}

static void cmd_read_register(struct server *s, const char *args) {
  uint64_t regno;
  if (!gdb_parse_hex(&args, &regno) || *args || regno >= (uint64_t)gdb_reg_count(&s->layout) ||
      !load_regs(s, general_tid(s)))
    return reply_error(s);
  add_register(s, (int)regno);
}

/* P REGNO=VALUE. Writing what the register holds already always succeeds (gdb puts
 * registers back after an inferior call); other writes are up to the target. */
static void cmd_write_register(struct server *s, const char *args) {
  uint64_t regno;
  uint8_t val[GDB_REG_MAX_SIZE], cur[GDB_REG_MAX_SIZE];
  if (!gdb_parse_hex(&args, &regno) || *args++ != '=' ||
      regno >= (uint64_t)gdb_reg_count(&s->layout))
    return reply_error(s);
  size_t size = gdb_reg_size(&s->layout, (int)regno);
  if (strlen(args) != 2 * size || gdb_hex_decode(args, val, size) != size)
    return reply_error(s);
  pid_t tid = general_tid(s);
  if (!load_regs(s, tid))
    return reply_error(s);
  if (gdb_reg_read(&s->layout, &s->regs, (int)regno, cur) && !memcmp(cur, val, size)) {
    gdb_strbuf_adds(&s->out, "OK");
    return;
  }
  /* gdb's `run` writes orig_rax = -1 so that no system call is restarted: the replay
   * decides that itself */
  if (regno == GDB_REG_ORIG_RAX && strspn(args, "fF") == 2 * size) {
    gdb_strbuf_adds(&s->out, "OK");
    return;
  }
  if (!gdb_reg_write(&s->layout, &s->regs, (int)regno, val) || !s->t->set_regs ||
      s->t->set_regs(s->t->ctx, tid, &s->regs) != 0)
    return reply_error(s);
  gdb_strbuf_adds(&s->out, "OK");
}

/* G: every register, as g sends them; "xx" bytes leave a register alone. */
static void cmd_write_registers(struct server *s, const char *args) {
  pid_t tid = general_tid(s);
  if (!load_regs(s, tid))
    return reply_error(s);
  bool changed = false;
  for (int i = 0; i < gdb_reg_count(&s->layout) && *args; i++) {
    size_t size = gdb_reg_size(&s->layout, i);
    uint8_t val[GDB_REG_MAX_SIZE], cur[GDB_REG_MAX_SIZE];
    if (strlen(args) < 2 * size)
      return reply_error(s);
    bool unknown = args[0] == 'x';
    if (!unknown && gdb_hex_decode(args, val, size) != size)
      return reply_error(s);
    args += 2 * size;
    if (unknown || (gdb_reg_read(&s->layout, &s->regs, i, cur) && !memcmp(cur, val, size)))
      continue;
    if (!gdb_reg_write(&s->layout, &s->regs, i, val))
      return reply_error(s);
    changed = true;
  }
  if (changed && (!s->t->set_regs || s->t->set_regs(s->t->ctx, tid, &s->regs) != 0))
    return reply_error(s);
  gdb_strbuf_adds(&s->out, "OK");
}

/* M ADDR,LEN:HEX and X ADDR,LEN:BINARY. */
static void cmd_write_memory(struct server *s, const char *pkt, size_t pkt_len) {
  uint64_t addr, len;
  const char *p;
  if (!parse_addr_len(pkt + 1, &addr, &len, &p) || *p++ != ':' || len > GDB_PACKET_MAX)
    return reply_error(s);
  size_t data_len = pkt_len - (size_t)(p - pkt);
  /* X's data unescapes to up to its own length, whatever LEN says */
  uint8_t *buf = xmalloc(len > data_len ? len : data_len);
  bool ok;
  if (pkt[0] == 'X')
    ok = gdb_unescape_binary(p, data_len, buf) == (long)len;
  else
    ok = data_len == 2 * len && gdb_hex_decode(p, buf, len) == len;
  if (ok && len)
    ok = s->t->write_mem && s->t->write_mem(s->t->ctx, general_tid(s), addr, buf, len) == 0;
  free(buf);
  if (!ok)
    return reply_error(s);
  gdb_strbuf_adds(&s->out, "OK");
}

static void cmd_read_memory(struct server *s, const char *args) {
  uint64_t addr, len;
  const char *end;
  if (!parse_addr_len(args, &addr, &len, &end) || *end || !s->t->read_mem)
    return reply_error(s);
  if (len == 0)
    return; /* an empty read succeeds with no data */
  if (len > REPLY_DATA_MAX / 2)
    len = REPLY_DATA_MAX / 2;
  uint8_t *buf = xmalloc(len);
  long n = s->t->read_mem(s->t->ctx, general_tid(s), addr, buf, len);
  if (n <= 0)
    reply_error(s);
  else
    gdb_strbuf_add_hex(&s->out, buf, (size_t)n > len ? len : (size_t)n);
  free(buf);
}

static void cmd_breakpoint(struct server *s, const char *pkt) {
  bool insert = pkt[0] == 'Z';
  const char *p = pkt + 1;
  uint64_t type, addr, kind;
  if (!gdb_parse_hex(&p, &type) || type > 4 || *p++ != ',' ||
      !parse_addr_len(p, &addr, &kind, &p) || (*p && *p != ';'))
    return reply_error(s);
  struct gdb_agent_expr conds[GDB_AGENT_MAX_CONDS];
  int nconds = insert && type <= 1 && s->t->break_conds ? gdb_agent_parse_conds(p, conds) : 0;
  if (nconds < 0)
    return reply_error(s);
  pid_t tid = s->g_asked > 0 ? s->g_asked : general_tid(s);
  int rc =
      s->t->set_break ? s->t->set_break(s->t->ctx, tid, (int)type, addr, (int)kind, insert) : -1;
  if (rc == 0 && insert && type <= 1 && s->t->break_conds)
    rc = s->t->break_conds(s->t->ctx, tid, addr, conds, nconds);
  gdb_agent_free(conds, nconds > 0 ? nconds : 0);
  if (rc != 0) {
    if (type <= 1)
      return; /* "" : not supported, gdb falls back or reports it */
    return reply_error(s);
  }
  gdb_strbuf_adds(&s->out, "OK");
}

static void cmd_set_thread(struct server *s, const char *args) {
  pid_t tid;
  char which = args[0];
  const char *p = args + 1;
  if ((which != 'g' && which != 'c') || !parse_thread_id(&p, &tid) || *p)
    return reply_error(s);
  if (which == 'g')
    s->g_asked = tid;
  if (tid > 0 && !thread_alive(s, tid))
    return reply_error(s);
  if (which == 'g')
    s->g_thread = tid;
  else
    s->c_thread = tid;
  gdb_strbuf_adds(&s->out, "OK");
}

static void cmd_thread_alive(struct server *s, const char *args) {
  pid_t tid;
  if (!parse_thread_id(&args, &tid) || *args || tid <= 0 || !thread_alive(s, tid))
    return reply_error(s);
  gdb_strbuf_adds(&s->out, "OK");
}

static void cmd_thread_info_first(struct server *s) {
  refresh_threads(s);
  if (s->nthreads == 0) {
    gdb_strbuf_adds(&s->out, "l");
    return;
  }
  gdb_strbuf_adds(&s->out, "m");
  for (int i = 0; i < s->nthreads; i++) {
    if (i)
      gdb_strbuf_adds(&s->out, ",");
    add_thread_id(s, &s->out, s->pids[i], s->tids[i]);
  }
}

/* qThreadStopInfoTID (LLDB asks for each thread after a stop): the stop for the thread
 * that stopped, a plain stop (signal 0) for the others. */
static void cmd_thread_stop_info(struct server *s, const char *arg) {
  char *end;
  long tid = strtol(arg, &end, 16);
  if (end == arg || *end || tid <= 0 || tid > INT32_MAX || !thread_alive(s, (pid_t)tid))
    return reply_error(s);
  const struct gdb_stop *st = current_stop(s);
  if (st->tid == tid)
    return format_stop(s, st, &s->out);
  gdb_strbuf_adds(&s->out, "T00thread:");
  add_thread_id(s, &s->out, pid_of(s, (pid_t)tid), (pid_t)tid);
  gdb_strbuf_adds(&s->out, ";");
}

/* Resumes the target and replies with the stop it reaches. */
static bool interrupted_by_gdb(void *arg) {
  struct server *s = arg;
  return gdb_conn_poll_interrupt(&s->conn);
}

static int send_console(struct server *s, const char *text);

static void resume(struct server *s, enum gdb_resume_action action, pid_t tid, bool reverse) {
  if (!s->t->resume)
    return reply_error(s);
  if (action == GDB_STEP && tid <= 0)
    tid = continue_tid(s);
  struct gdb_stop st;
  memset(&st, 0, sizeof(st));
  push_filter(s);
  s->conn.interrupt_pending = false;
  if (s->t->resume(s->t->ctx, action, tid, reverse, &st, interrupted_by_gdb, s) != 0)
    return reply_error(s);
  if (st.note[0])
    send_console(s, st.note); /* what could not be done shows before the stop */
  s->stop = st;
  s->have_stop = true;
  s->g_thread = s->g_asked = 0; /* gdb takes the stop's thread as the general thread now */
  format_stop(s, &s->stop, &s->out);
}

/* The process P names as a whole (pPID.-1), or 0. */
static pid_t whole_process(const char *p) {
  uint64_t pid;
  if (*p++ != 'p' || !gdb_parse_hex(&p, &pid) || pid > 0x7fffffff)
    return 0;
  return strncmp(p, ".-1", 3) == 0 ? (pid_t)pid : 0;
}

static void cmd_vcont(struct server *s, const char *args) {
  /* args: ";action[:thread]" repeated. gdb puts thread-specific actions first. */
  enum gdb_resume_action action = GDB_CONTINUE;
  pid_t tid = 0;
  bool have_step = false, have_default = false, have_any = false;
  pid_t first_continue_tid = 0;
  const char *p = args;
  while (*p == ';') {
    p++;
    char a = *p++;
    uint64_t sig;
    if (a == 'C' || a == 'S') {
      if (!gdb_parse_hex(&p, &sig)) /* the replay decides signals: the number is ignored */
        return reply_error(s);
    } else if (a != 'c' && a != 's') {
      return reply_error(s);
    }
    pid_t t = -1;
    if (*p == ':') {
      p++;
      pid_t process = whole_process(p);
      if (!parse_thread_id(&p, &t))
        return reply_error(s);
      /* pPID.-1: the process gdb resumes (one of several it holds) by its first thread */
      if (t == -1 && process > 0 && thread_alive(s, process))
        t = process;
    }
    if (*p && *p != ';')
      return reply_error(s);
    bool step = a == 's' || a == 'S';
    if (step && !have_step) {
      have_step = true;
      tid = t;
    } else if (!step) {
      if (t <= 0)
        have_default = true;
      else if (!first_continue_tid)
        first_continue_tid = t;
    }
    have_any = true;
  }
  if (!have_any || *p)
    return reply_error(s);
  if (have_step)
    action = GDB_STEP;
  else
    tid = have_default ? -1 : first_continue_tid;
  resume(s, action, tid, false);
}

/* Serves the slice OFFSET,LENGTH of DOC as a qXfer reply (m: more follows, l: last). */
static void xfer_reply(struct server *s, const void *doc, size_t doc_len, uint64_t offset,
                       uint64_t length) {
  if (offset >= doc_len) {
    gdb_strbuf_adds(&s->out, "l");
    return;
  }
  size_t want = doc_len - offset;
  if (length < want)
    want = length;
  size_t room = REPLY_DATA_MAX < length ? REPLY_DATA_MAX : length;
  char *esc = xmalloc(room + 2);
  size_t esc_len;
  size_t used = gdb_escape_binary((const uint8_t *)doc + offset, want, esc, room, &esc_len);
  gdb_strbuf_adds(&s->out, offset + used < doc_len ? "m" : "l");
  gdb_strbuf_add(&s->out, esc, esc_len);
  free(esc);
}

static void xfer_threads(struct server *s, struct gdb_strbuf *doc) {
  refresh_threads(s);
  gdb_strbuf_adds(doc, "<?xml version=\"1.0\"?>\n<threads>\n");
  for (int i = 0; i < s->nthreads; i++) {
    gdb_strbuf_adds(doc, "<thread id=\"");
    add_thread_id(s, doc, s->pids[i], s->tids[i]);
    char name[64];
    if (s->t->thread_name && s->t->thread_name(s->t->ctx, s->tids[i], name, sizeof name) == 0) {
      gdb_strbuf_adds(doc, "\" name=\"");
      gdb_xml_escape(doc, name);
    }
    gdb_strbuf_adds(doc, "\"/>\n");
  }
  gdb_strbuf_adds(doc, "</threads>\n");
}

/* qGetTLSAddr:THREAD,OFFSET,LM - where a thread-local variable is. */
static void cmd_tls_address(struct server *s, const char *p) {
  pid_t tid;
  char *end;
  if (!parse_thread_id(&p, &tid) || *p++ != ',')
    return reply_error(s);
  uint64_t offset = strtoull(p, &end, 16), lm = 0, addr;
  if (*end == ',')
    lm = strtoull(end + 1, &end, 16);
  char err[256] = "";
  if (*end || tid <= 0)
    return reply_error(s);
  if (s->t->tls_address(s->t->ctx, tid, lm, offset, &addr, err, sizeof err) == 0)
    gdb_strbuf_addf(&s->out, "%llx", (unsigned long long)addr);
  else
    gdb_strbuf_adds(&s->out, "E01"); /* gdb says the address cannot be found */
  if (err[0])
    deja_msg("thread-local storage of thread %d: %s", (int)tid, err);
}

/* qXfer:siginfo:write::OFFSET:DATA - gdb putting back the siginfo it read before an
 * inferior call. */
static void xfer_write_siginfo(struct server *s, const char *p, size_t len) {
  uint64_t offset;
  const char *start = p;
  if (!gdb_parse_hex(&p, &offset) || *p++ != ':')
    return reply_error(s);
  len -= (size_t)(p - start);
  uint8_t buf[GDB_PACKET_MAX];
  long n = gdb_unescape_binary(p, len, buf);
  if (n < 0 || !s->t->set_siginfo ||
      s->t->set_siginfo(s->t->ctx, general_tid(s), buf, (size_t)n) != 0)
    return reply_error(s);
  gdb_strbuf_addf(&s->out, "%lx", n);
}

static void cmd_xfer(struct server *s, const char *args, size_t pkt_len) {
  /* args: "OBJECT:read:ANNEX:OFFSET,LENGTH" */
  char object[32], annex[128];
  const char *p = args;
  size_t n = strcspn(p, ":");
  if (n >= sizeof(object) || p[n] != ':')
    return reply_error(s);
  memcpy(object, p, n);
  object[n] = '\0';
  p += n + 1;
  if (strcmp(object, "siginfo") == 0 && strncmp(p, "write::", 7) == 0)
    return xfer_write_siginfo(s, p + 7, pkt_len - (size_t)(p + 7 - args));
  if (strncmp(p, "read:", 5) != 0)
    return; /* writes and other operations: not supported */
  p += 5;
  n = strcspn(p, ":");
  if (n >= sizeof(annex) || p[n] != ':')
    return reply_error(s);
  memcpy(annex, p, n);
  annex[n] = '\0';
  p += n + 1;
  uint64_t offset, length;
  const char *end;
  if (!parse_addr_len(p, &offset, &length, &end) || *end)
    return reply_error(s);

  struct gdb_strbuf doc;
  gdb_strbuf_init(&doc);
  if (strcmp(object, "features") == 0) {
    if (strcmp(annex, "target.xml") != 0) {
      gdb_strbuf_adds(&s->out, "E00");
      return;
    }
    char *xml = gdb_target_xml(&s->layout);
    gdb_strbuf_adds(&doc, xml);
    free(xml);
  } else if (strcmp(object, "auxv") == 0) {
    uint8_t buf[AUXV_MAX];
    long len = s->t->auxv ? s->t->auxv(s->t->ctx, pid_of(s, general_tid(s)), buf, sizeof(buf)) : -1;
    if (len < 0)
      return reply_error(s);
    gdb_strbuf_add(&doc, buf, (size_t)len > sizeof(buf) ? sizeof(buf) : (size_t)len);
  } else if (strcmp(object, "exec-file") == 0) {
    const char *a = annex;
    uint64_t pid;
    pid_t which = pid_of(s, general_tid(s));
    if (*a && gdb_parse_hex(&a, &pid))
      which = (pid_t)pid;
    char path[4096];
    if (!s->t->exec_file || s->t->exec_file(s->t->ctx, which, path, sizeof(path)) != 0)
      return reply_error(s);
    path[sizeof(path) - 1] = '\0';
    gdb_strbuf_adds(&doc, path);
  } else if (strcmp(object, "threads") == 0) {
    xfer_threads(s, &doc);
  } else if (strcmp(object, "siginfo") == 0) {
    uint8_t si[128];
    long len = s->t->siginfo ? s->t->siginfo(s->t->ctx, general_tid(s), si, sizeof si) : -1;
    if (len < 0)
      return reply_error(s);
    gdb_strbuf_add(&doc, si, (size_t)len);
  } else {
    return; /* unknown object: not supported */
  }
  xfer_reply(s, doc.data ? doc.data : "", doc.len, offset, length);
  gdb_strbuf_free(&doc);
}

/* Text for gdb's console, as O packets (before the reply they go with). 0 or -1. */
static int send_console(struct server *s, const char *text) {
  size_t len = strlen(text);
  struct gdb_strbuf o;
  gdb_strbuf_init(&o);
  int rc = 0;
  for (size_t off = 0; off < len && rc == 0; off += 512) {
    size_t chunk = len - off < 512 ? len - off : 512;
    gdb_strbuf_clear(&o);
    gdb_strbuf_adds(&o, "O");
    gdb_strbuf_add_hex(&o, text + off, chunk);
    rc = gdb_send_packet(&s->conn, o.data, o.len);
  }
  gdb_strbuf_free(&o);
  return rc;
}

/* `monitor CMD`: console output as O packets, then OK or E01. */
static int cmd_monitor(struct server *s, const char *hex) {
  char cmd[1024];
  size_t hexlen = strlen(hex);
  if (hexlen % 2 || hexlen / 2 >= sizeof(cmd)) {
    reply_error(s);
    return 0;
  }
  size_t n = gdb_hex_decode(hex, cmd, sizeof(cmd) - 1);
  if (n != hexlen / 2) {
    reply_error(s);
    return 0;
  }
  cmd[n] = '\0';
  char *text = xcalloc(1, MONITOR_OUT_MAX);
  int rc = s->t->monitor ? s->t->monitor(s->t->ctx, cmd, text, MONITOR_OUT_MAX) : -1;
  text[MONITOR_OUT_MAX - 1] = '\0';
  if (rc != 0 && text[0] == '\0')
    snprintf(text, MONITOR_OUT_MAX, "deja: unknown monitor command \"%s\"\n", cmd);
  int rc_send = send_console(s, text);
  free(text);
  if (rc_send != 0)
    return -1;
  gdb_strbuf_adds(&s->out, rc == 0 ? "OK" : "E01");
  return 0;
}

static bool starts_with(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* D or D;PID, vKill;PID: gdb lets go of a process. Letting go of the last process gdb
 * holds ends the session; a forked child gdb does not follow is detached quietly, and a
 * parent whose child gdb follows too (the target's detach says). */
/* vRun;hex(program)[;hex(arg)...] (gdb's `run`): the target starts again; its first
 * argument, if any, says from where. */
static void cmd_run(struct server *s, const char *p) {
  char arg[256] = "";
  const char *a = strchr(p, ';');
  if (a)
    arg[gdb_hex_decode(a + 1, arg, sizeof arg - 1)] = 0; /* stops at the next ';' */
  struct gdb_stop st;
  memset(&st, 0, sizeof(st));
  if (s->t->restart(s->t->ctx, arg, &st) != 0)
    return reply_error(s);
  s->stop = st;
  s->have_stop = true;
  s->g_thread = s->g_asked = 0; /* gdb takes the stop's thread as the general thread now */
  format_stop(s, &s->stop, &s->out);
}

static enum after_reply cmd_detach(struct server *s, const char *p) {
  uint64_t pid = 0;
  gdb_strbuf_adds(&s->out, "OK");
  if (*p == ';' || *p == ':')
    p++;
  if (*p && gdb_parse_hex(&p, &pid) && pid > 0) {
    refresh_threads(s);
    bool ours = false;
    for (int i = 0; i < s->nthreads; i++)
      ours |= s->pids[i] == (pid_t)pid;
    if (!ours || (s->t->detach && s->t->detach(s->t->ctx, (pid_t)pid) > 0))
      return SEND_REPLY;
  }
  return SEND_AND_END;
}

/* Handles one packet of LEN bytes, leaving the reply in s->out. */
static enum after_reply dispatch(struct server *s, const char *pkt, size_t len) {
  const char *args = pkt + 1;
  switch (pkt[0]) {
  case '?': format_stop(s, current_stop(s), &s->out); return SEND_REPLY;
  case '!': gdb_strbuf_adds(&s->out, "OK"); return SEND_REPLY;
  case 'g':
    if (*args)
      reply_error(s);
    else
      cmd_read_registers(s);
    return SEND_REPLY;
  case 'p': cmd_read_register(s, args); return SEND_REPLY;
  case 'G': cmd_write_registers(s, args); return SEND_REPLY;
  case 'P': cmd_write_register(s, args); return SEND_REPLY;
  case 'M':
  case 'X': cmd_write_memory(s, pkt, len); return SEND_REPLY;
  case 'm': cmd_read_memory(s, args); return SEND_REPLY;
  case 'Z':
  case 'z': cmd_breakpoint(s, pkt); return SEND_REPLY;
  case 'H': cmd_set_thread(s, args); return SEND_REPLY;
  case 'T': cmd_thread_alive(s, args); return SEND_REPLY;
  case 'c':
  case 'C':
    resume(s, GDB_CONTINUE, -1, false); /* a resume address or signal is ignored */
    return SEND_REPLY;
  case 's':
  case 'S': resume(s, GDB_STEP, continue_tid(s), false); return SEND_REPLY;
  case 'b':
    if (strcmp(args, "c") == 0)
      resume(s, GDB_CONTINUE, -1, true);
    else if (strcmp(args, "s") == 0)
      resume(s, GDB_STEP, continue_tid(s), true);
    return SEND_REPLY;
  case 'k': return END_SESSION; /* gdb does not wait for a reply */
  case 'D': return cmd_detach(s, args);
  default: break;
  }
  if (strcmp(pkt, "vCont?") == 0)
    gdb_strbuf_adds(&s->out, "vCont;c;C;s;S");
  else if (starts_with(pkt, "vCont;"))
    cmd_vcont(s, pkt + 5);
  else if (starts_with(pkt, "vKill")) {
    /* a target that can restart stays for gdb's `run` (vRun) */
    enum after_reply r = cmd_detach(s, pkt + 5);
    return r == SEND_AND_END && s->t->restart ? SEND_REPLY : r;
  } else if (starts_with(pkt, "vRun;") && s->t->restart)
    cmd_run(s, pkt + 5);
  else if (starts_with(pkt, "vFile:"))
    gdb_vfile_packet(&s->vfile, s->t, pkt + 6, len - 6, &s->out);
  else if (starts_with(pkt, "QPassSignals:"))
    cmd_pass_signals(s, pkt + 13);
  else if (starts_with(pkt, "QProgramSignals:"))
    gdb_strbuf_adds(&s->out, "OK"); /* the replay delivers what was recorded */
  else if (starts_with(pkt, "QCatchSyscalls:"))
    cmd_catch_syscalls(s, pkt + 15);
  else if (starts_with(pkt, "qSupported"))
    cmd_supported(s, pkt);
  else if (strcmp(pkt, "QStartNoAckMode") == 0)
    gdb_strbuf_adds(&s->out, "OK"); /* acks stop after this reply: see gdb_serve */
  else if (strcmp(pkt, "qfThreadInfo") == 0)
    cmd_thread_info_first(s);
  else if (strcmp(pkt, "qsThreadInfo") == 0)
    gdb_strbuf_adds(&s->out, "l");
  else if (starts_with(pkt, "qThreadStopInfo"))
    cmd_thread_stop_info(s, pkt + 15);
  else if (strcmp(pkt, "qC") == 0) {
    gdb_strbuf_adds(&s->out, "QC");
    pid_t tid = current_tid(s);
    add_thread_id(s, &s->out, pid_of(s, tid), tid);
  } else if (starts_with(pkt, "qAttached"))
    gdb_strbuf_adds(&s->out, "1");
  else if (starts_with(pkt, "qGetTLSAddr:") && s->t->tls_address)
    cmd_tls_address(s, pkt + 12);
  else if (starts_with(pkt, "qSymbol:"))
    gdb_strbuf_adds(&s->out, "OK");
  else if (starts_with(pkt, "qXfer:"))
    cmd_xfer(s, pkt + 6, len - 6);
  else if (starts_with(pkt, "qRRCmd:"))
    gdb_rrcmd(s->t, pkt + 7, &s->out);
  else if (starts_with(pkt, "qRcmd,")) {
    if (cmd_monitor(s, pkt + 6) != 0)
      return END_SESSION;
  }
  /* Anything else (qTStatus, vMustReplyEmpty, vFile:..., qOffsets, ...): the empty reply
   * tells gdb it is not supported. */
  return SEND_REPLY;
}

int gdb_serve(int fd, const struct gdb_target *t) {
  struct server *s = xcalloc(1, sizeof(*s));
  gdb_conn_init(&s->conn, fd);
  s->t = t;
  gdb_xsave_layout_host(&s->layout);
  gdb_strbuf_init(&s->out);
  gdb_vfile_init(&s->vfile);
  int rc = 0;
  for (;;) {
    size_t len;
    enum gdb_recv_status st = gdb_recv_packet(&s->conn, s->in, sizeof(s->in), &len);
    if (st == GDB_RECV_EOF)
      break;
    if (st == GDB_RECV_ERROR) {
      deja_msg("gdb connection: read failed: %s", strerror(errno));
      rc = -1;
      break;
    }
    if (st == GDB_RECV_INTERRUPT)
      continue; /* the target is already stopped */
    gdb_strbuf_clear(&s->out);
    enum after_reply after = SEND_REPLY;
    if (st == GDB_RECV_TOO_LONG)
      reply_error(s);
    else
      after = dispatch(s, s->in, len);
    if (after == END_SESSION)
      break;
    if (s->conn.eof)
      break; /* gdb hung up while the target ran */
    if (gdb_send_packet(&s->conn, s->out.data ? s->out.data : "", s->out.len) != 0) {
      if (!s->conn.eof) {
        deja_msg("gdb connection: write failed: %s", strerror(errno));
        rc = -1;
      }
      break;
    }
    if (strcmp(s->in, "QStartNoAckMode") == 0 && st == GDB_RECV_PACKET)
      s->conn.no_ack = true;
    if (after == SEND_AND_END)
      break;
  }
  gdb_vfile_close_all(&s->vfile);
  gdb_strbuf_free(&s->out);
  free(s);
  return rc;
}
