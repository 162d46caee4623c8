#include "trace/trace_event.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"

void event_init(struct event *ev) { memset(ev, 0, sizeof *ev); }

void event_free(struct event *ev) {
  free(ev->mem);
  ev->mem = NULL;
  ev->nmem = ev->mem_cap = 0;
}

void event_add_mem(struct event *ev, uint64_t addr, const uint8_t *data, uint32_t len) {
  if (ev->nmem == ev->mem_cap) {
    ev->mem_cap = ev->mem_cap ? ev->mem_cap * 2 : 8;
    ev->mem = xrealloc(ev->mem, ev->mem_cap * sizeof *ev->mem);
  }
  ev->mem[ev->nmem++] = (struct event_mem){addr, len, data};
}

const char *event_kind_name(uint32_t kind) {
  static const char *names[] = {"?",    "exec",  "syscall", "insn",  "signal",
                                "exit", "abort", "enter",   "state", "sbuf"};
  return kind < EV_KIND_MAX ? names[kind] : "?";
}

static void put_regs(struct tbuf *b, const struct user_regs_struct *r) {
  tbuf_put_bytes(b, r, sizeof *r);
}

static void put_cstr(struct tbuf *b, const char *s) {
  s = s ? s : "";
  tbuf_put_blob(b, s, (uint32_t)strlen(s) + 1);
}

static void put_mem(struct tbuf *b, const struct event *ev) {
  tbuf_put_u32(b, ev->nmem);
  for (uint32_t i = 0; i < ev->nmem; i++) {
    tbuf_put_u64(b, ev->mem[i].addr);
    tbuf_put_blob(b, ev->mem[i].data, ev->mem[i].len);
  }
}

/* Returns false when the record is malformed. */
static bool get_mem(struct tcur *c, struct event *ev) {
  uint32_t n = tcur_u32(c);
  if (n > tcur_left(c) / 12)
    return false;
  for (uint32_t i = 0; i < n && c->ok; i++) {
    uint64_t addr = tcur_u64(c);
    uint32_t l;
    const uint8_t *d = tcur_blob(c, &l);
    if (d)
      event_add_mem(ev, addr, d, l);
  }
  return c->ok;
}

/* A state event's pages: (u64 address, blob) each, then STATE_PAGES_END. */
#define STATE_PAGES_END UINT64_MAX

/* The kind byte's flag: the record's head ends in its time (u64 ns). */
#define KIND_TIMED 0x80u

static void put_head(const struct event *ev, struct tbuf *b) {
  tbuf_reset(b);
  tbuf_put_u8(b, (uint8_t)(ev->kind | (ev->time_ns > 0 ? KIND_TIMED : 0)));
  tbuf_put_u32(b, (uint32_t)ev->tid);
  put_regs(b, &ev->regs);
  if (ev->time_ns > 0)
    tbuf_put_u64(b, (uint64_t)ev->time_ns);
}

void event_encode_state_head(const struct event *ev, struct tbuf *b) {
  put_head(ev, b);
  tbuf_put_blob(b, ev->xsave, ev->xsave_len);
}

void event_encode_state_page(struct tbuf *b, uint64_t addr, uint32_t len) {
  tbuf_reset(b);
  tbuf_put_u64(b, addr);
  tbuf_put_u32(b, len);
}

void event_encode_state_end(struct tbuf *b, uint64_t digest) {
  tbuf_reset(b);
  tbuf_put_u64(b, STATE_PAGES_END);
  tbuf_put_u64(b, digest);
}

/* An sbuf event up to its records' bytes (their length included). */
static void put_sbuf_fields(const struct event *ev, struct tbuf *b) {
  tbuf_put_u32(b, ev->flags);
  tbuf_put_u64(b, ev->sbuf);
  tbuf_put_u32(b, ev->sbuf_off);
  tbuf_put_u32(b, ev->sbuf_len);
}

void event_encode_sbuf_head(const struct event *ev, struct tbuf *b) {
  put_head(ev, b);
  put_sbuf_fields(ev, b);
}

void event_encode_syscall_head(const struct event *ev, uint32_t nmem, struct tbuf *b) {
  put_head(ev, b);
  tbuf_put_u64(b, (uint64_t)ev->result);
  tbuf_put_u32(b, nmem);
}

void event_encode_mem_header(struct tbuf *b, uint64_t addr, uint32_t len) {
  tbuf_reset(b);
  tbuf_put_u64(b, addr);
  tbuf_put_u32(b, len);
}

/* Everything of a syscall event after its memory regions. */
static void put_syscall_tail(const struct event *ev, struct tbuf *b) {
  tbuf_put_u8(b, (uint8_t)ev->out_to);
  if (ev->out_to)
    tbuf_put_blob(b, ev->out_data, ev->out_len);
  put_cstr(b, ev->file);
  tbuf_put_u32(b, ev->flags);
  if (ev->flags & (EVF_FILE_CHANGE | EVF_FILE_REMAP)) {
    tbuf_put_u64(b, ev->file_size);
    tbuf_put_u64(b, ev->file_off);
    tbuf_put_blob(b, ev->fdata, ev->fdata_len);
  }
  if (ev->flags & EVF_REMOTE) {
    tbuf_put_u32(b, (uint32_t)ev->remote_tid);
    tbuf_put_u32(b, ev->remote_from);
    tbuf_put_u8(b, ev->remote_regs);
    if (ev->remote_regs)
      tbuf_put_bytes(b, &ev->regs_after, sizeof ev->regs_after);
  }
}

void event_encode_syscall_tail(const struct event *ev, struct tbuf *b) {
  tbuf_reset(b);
  put_syscall_tail(ev, b);
}

void event_encode(const struct event *ev, struct tbuf *b) {
  put_head(ev, b);
  switch (ev->kind) {
  case EV_SYSCALL:
    tbuf_put_u64(b, (uint64_t)ev->result);
    put_mem(b, ev);
    put_syscall_tail(ev, b);
    break;
  case EV_INSN:
    put_regs(b, &ev->regs_after);
    tbuf_put_u32(b, ev->insn_len);
    break;
  case EV_SIGNAL:
    tbuf_put_u32(b, (uint32_t)ev->signo);
    tbuf_put_bytes(b, ev->siginfo, 128);
    break;
  case EV_EXIT: tbuf_put_u32(b, (uint32_t)ev->status); break;
  case EV_EXEC:
    put_cstr(b, ev->file);
    tbuf_put_u64(b, ev->stack_addr);
    tbuf_put_blob(b, ev->stack, ev->stack_len);
    tbuf_put_u32(b, ev->argc);
    tbuf_put_u32(b, ev->envc);
    tbuf_put_blob(b, ev->strings, ev->strings_len);
    put_cstr(b, ev->interp);
    tbuf_put_blob(b, ev->interp_maps, ev->interp_count * 32);
    put_mem(b, ev);
    tbuf_put_u64(b, ev->stack_rlim_cur);
    tbuf_put_u64(b, ev->stack_rlim_max);
    if (ev->has_brk) {
      tbuf_put_u64(b, ev->brk_start);
      tbuf_put_blob(b, ev->refusals, ev->refusals_len);
      if (ev->cpuid_stub) {
        tbuf_put_u64(b, ev->cpuid_stub);
        tbuf_put_u32(b, ev->cpuid_stub_len);
      }
    }
    break;
  case EV_ABORT: put_cstr(b, ev->message); break;
  case EV_ENTER: break;
  case EV_STATE:
    tbuf_put_blob(b, ev->xsave, ev->xsave_len);
    for (uint32_t i = 0; i < ev->nmem; i++) {
      tbuf_put_u64(b, ev->mem[i].addr);
      tbuf_put_blob(b, ev->mem[i].data, ev->mem[i].len);
    }
    tbuf_put_u64(b, STATE_PAGES_END);
    if (ev->has_digest)
      tbuf_put_u64(b, ev->digest);
    break;
  case EV_SBUF:
    put_sbuf_fields(ev, b);
    tbuf_put_bytes(b, ev->sbuf_data, ev->sbuf_len);
    break;
  }
}

/* A string blob must end in its NUL so it can be used in place. */
static const char *get_cstr(struct tcur *c) {
  uint32_t n;
  const uint8_t *p = tcur_blob(c, &n);
  if (!p || n == 0 || p[n - 1] != 0) {
    c->ok = false;
    return "";
  }
  return (const char *)p;
}

/* A preserved file's name is used in paths (files/NAME, replay's shared copies): it must
 * name a file inside that directory. */
static const char *get_file_name(struct tcur *c) {
  const char *name = get_cstr(c);
  if (strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
    c->ok = false;
  return name;
}

/* The fields of a syscall event after its registers. 0, or -1 with a message in ERR. */
static int decode_syscall(struct tcur *c, struct event *ev, char *err, size_t errlen) {
  ev->result = (int64_t)tcur_u64(c);
  if (!get_mem(c, ev))
    return seterr(err, errlen, "syscall event has malformed memory regions");
  ev->out_to = tcur_u8(c);
  ev->out_data = NULL;
  ev->out_len = 0;
  if (ev->out_to > OUT_TO_STDERR)
    return seterr(err, errlen, "bad output stream %u", ev->out_to);
  if (ev->out_to)
    ev->out_data = tcur_blob(c, &ev->out_len);
  ev->file = get_file_name(c);
  ev->flags = tcur_u32(c);
  ev->fdata = NULL;
  ev->fdata_len = 0;
  ev->file_size = ev->file_off = 0;
  if (ev->flags & (EVF_FILE_CHANGE | EVF_FILE_REMAP)) {
    ev->file_size = tcur_u64(c);
    ev->file_off = tcur_u64(c);
    ev->fdata = tcur_blob(c, &ev->fdata_len);
    if (!ev->file[0])
      c->ok = false;
  }
  ev->remote_tid = 0;
  ev->remote_from = ev->nmem;
  ev->remote_regs = false;
  if (ev->flags & EVF_REMOTE) {
    ev->remote_tid = (int32_t)tcur_u32(c);
    ev->remote_from = tcur_u32(c);
    ev->remote_regs = tcur_u8(c) != 0;
    if (ev->remote_regs)
      tcur_bytes(c, &ev->regs_after, sizeof ev->regs_after);
    if (ev->remote_from > ev->nmem)
      c->ok = false;
  }
  return 0;
}

static void decode_signal(struct tcur *c, struct event *ev) {
  ev->signo = (int32_t)tcur_u32(c);
  if (tcur_left(c) < 128) {
    c->ok = false;
  } else {
    ev->siginfo = c->p;
    c->p += 128;
  }
}

/* The fields of an exec event after its registers. 0, or -1 with a message in ERR. */
static int decode_exec(struct tcur *c, struct event *ev, char *err, size_t errlen) {
  ev->file = get_file_name(c);
  ev->stack_addr = tcur_u64(c);
  ev->stack = tcur_blob(c, &ev->stack_len);
  ev->argc = tcur_u32(c);
  ev->envc = tcur_u32(c);
  ev->strings = (const char *)tcur_blob(c, &ev->strings_len);
  ev->interp = get_file_name(c);
  uint32_t maps_len;
  ev->interp_maps = tcur_blob(c, &maps_len);
  ev->interp_count = maps_len / 32;
  if (maps_len % 32)
    c->ok = false;
  if (c->ok && !get_mem(c, ev))
    c->ok = false;
  ev->stack_rlim_cur = tcur_u64(c);
  ev->stack_rlim_max = tcur_u64(c);
  ev->has_brk = c->ok && tcur_left(c) >= sizeof ev->brk_start;
  ev->brk_start = ev->has_brk ? tcur_u64(c) : 0;
  ev->refusals = ev->has_brk && tcur_left(c) ? tcur_blob(c, &ev->refusals_len) : NULL;
  if (!ev->refusals)
    ev->refusals_len = 0;
  ev->cpuid_stub = 0;
  ev->cpuid_stub_len = 0;
  if (ev->has_brk && c->ok && tcur_left(c) >= 12) {
    ev->cpuid_stub = tcur_u64(c);
    ev->cpuid_stub_len = tcur_u32(c);
  }
  if (c->ok) {
    /* The strings blob must hold exactly argc+envc NUL-terminated strings. */
    uint32_t count = 0;
    for (uint32_t i = 0; i < ev->strings_len; i++)
      count += ev->strings[i] == 0;
    if (count != ev->argc + ev->envc || (ev->strings_len && ev->strings[ev->strings_len - 1]))
      return seterr(err, errlen, "exec event: argument strings do not match their counts");
  }
  return 0;
}

/* The fields of a state point after its registers. 0, or -1 with a message in ERR. */
static int decode_state(struct tcur *c, struct event *ev, char *err, size_t errlen) {
  ev->xsave = tcur_blob(c, &ev->xsave_len);
  for (;;) {
    uint64_t addr = tcur_u64(c);
    if (!c->ok || addr == STATE_PAGES_END)
      break;
    uint32_t l;
    const uint8_t *d = tcur_blob(c, &l);
    if (!d)
      return seterr(err, errlen, "state event has malformed memory pages");
    event_add_mem(ev, addr, d, l);
  }
  ev->has_digest = tcur_left(c) >= sizeof ev->digest;
  ev->digest = ev->has_digest ? tcur_u64(c) : 0;
  return 0;
}

/* The fields of EV's kind after its registers. 0, or -1 with a message in ERR. */
static int decode_fields(struct tcur *c, struct event *ev, char *err, size_t errlen) {
  switch (ev->kind) {
  case EV_SYSCALL: return decode_syscall(c, ev, err, errlen);
  case EV_INSN:
    tcur_bytes(c, &ev->regs_after, sizeof ev->regs_after);
    ev->insn_len = tcur_u32(c);
    if (ev->insn_len > 15)
      c->ok = false;
    return 0;
  case EV_SIGNAL: decode_signal(c, ev); return 0;
  case EV_EXIT: ev->status = (int32_t)tcur_u32(c); return 0;
  case EV_EXEC: return decode_exec(c, ev, err, errlen);
  case EV_ABORT: ev->message = get_cstr(c); return 0;
  case EV_ENTER: return 0;
  case EV_STATE: return decode_state(c, ev, err, errlen);
  case EV_SBUF:
    ev->flags = tcur_u32(c);
    ev->sbuf = tcur_u64(c);
    ev->sbuf_off = tcur_u32(c);
    ev->sbuf_data = tcur_blob(c, &ev->sbuf_len);
    return 0;
  default: return seterr(err, errlen, "unknown event kind %u", ev->kind);
  }
}

int event_decode(struct event *ev, const void *rec, size_t len, char *err, size_t errlen) {
  struct tcur c;
  tcur_init(&c, rec, len);
  ev->nmem = 0;
  uint8_t kind = tcur_u8(&c);
  ev->kind = kind & ~KIND_TIMED;
  ev->tid = (int32_t)tcur_u32(&c);
  tcur_bytes(&c, &ev->regs, sizeof ev->regs);
  ev->time_ns = kind & KIND_TIMED ? (int64_t)tcur_u64(&c) : 0;
  ev->file = "";
  int rc = decode_fields(&c, ev, err, errlen);
  if (rc)
    return rc;
  if (!c.ok)
    return seterr(err, errlen, "%s event record is cut short or malformed",
                  event_kind_name(ev->kind));
  if (tcur_left(&c))
    return seterr(err, errlen, "%s event record has %zu stray bytes", event_kind_name(ev->kind),
                  tcur_left(&c));
  return 0;
}

bool signal_is_synchronous(int signo, const void *siginfo) {
  siginfo_t si;
  if (!siginfo)
    return false;
  memcpy(&si, siginfo, sizeof si);
  switch (signo) {
  case SIGSEGV:
  case SIGBUS:
  case SIGFPE:
  case SIGILL:
  case SIGTRAP:
  case SIGSYS: return si.si_code > 0; /* SI_USER (0) and the negative codes come from a sender */
  default: return false;
  }
}
