/* trace_edit: rewrites a trace's event stream through the trace library, for tests that
 * need a trace that is valid (every checksum right) but wrong, and prints a trace's
 * recorded output for the fake replayer that tests the tests.
 *
 *   trace_edit TRACE EVENT result VALUE        set a system call event's result
 *   trace_edit TRACE EVENT output OFFSET       change one byte of an event's recorded output
 *   trace_edit TRACE EVENT call-result N VALUE set the result of buffered call N (from 1) of
 *                                              an sbuf event
 *   trace_edit TRACE EVENT reg NAME VALUE      set a register (rip, rsp, rax, ...) of an
 *                                              event's recorded registers
 *   trace_edit TRACE EVENT file PATH           make an exec or mmap event name a copy of
 *                                              PATH, preserved in TRACE/files/ (named by its
 *                                              content hash, so the trace stays valid)
 *   trace_edit TRACE format-version N          make the events file say it is of format
 *                                              version N (its header checksum right), as
 *                                              a deja of another version would write it
 *   trace_edit TRACE print-output [-q]         write each event's recorded output to
 *                                              stdout/stderr (nothing with -q)
 *   trace_edit TRACE run [-q]                  run the recorded program for real (its first
 *                                              exec's argv and environment; output to
 *                                              /dev/null with -q), as a fake replay that
 *                                              applies none of the recorded results
 *
 * EVENT is an event number as `deja dump` prints it. The edited stream replaces
 * TRACE/events. Exit status 0, or 1 with a message naming what is wrong. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "trace/file_content.h"
#include "trace/trace_buf.h"
#include "trace/trace_event.h"
#include "cli/trace_dir.h"
#include "trace/trace_stream.h"
#include "preload/syscallbuf_abi.h"
#include "replay/events/replay_syscallbuf.h"

static const char *prog = "trace_edit";

static int usage(void) {
  fprintf(stderr,
          "usage: %s TRACE EVENT result VALUE | TRACE EVENT output OFFSET |\n"
          "       %s TRACE EVENT reg NAME VALUE | TRACE EVENT file PATH |\n"
          "       TRACE EVENT call-result N VALUE |\n"
          "       TRACE print-output [-q] | TRACE run [-q] | TRACE format-version N\n",
          prog, prog);
  return 2;
}

static int parse_u64(const char *s, uint64_t *v) {
  char *end;
  errno = 0;
  *v = strtoull(s, &end, 0);
  return errno || !*s || *end ? -1 : 0;
}

/* The address of register NAME in REGS, or NULL. */
static unsigned long long *reg_field(struct user_regs_struct *regs, const char *name) {
  static const struct {
    const char *name;
    size_t offset;
  } names[] = {
      {"rip", offsetof(struct user_regs_struct, rip)},
      {"rsp", offsetof(struct user_regs_struct, rsp)},
      {"rbp", offsetof(struct user_regs_struct, rbp)},
      {"rax", offsetof(struct user_regs_struct, rax)},
      {"rbx", offsetof(struct user_regs_struct, rbx)},
      {"rcx", offsetof(struct user_regs_struct, rcx)},
      {"rdx", offsetof(struct user_regs_struct, rdx)},
      {"rsi", offsetof(struct user_regs_struct, rsi)},
      {"rdi", offsetof(struct user_regs_struct, rdi)},
      {"r8", offsetof(struct user_regs_struct, r8)},
      {"r9", offsetof(struct user_regs_struct, r9)},
      {"r10", offsetof(struct user_regs_struct, r10)},
      {"r11", offsetof(struct user_regs_struct, r11)},
      {"r12", offsetof(struct user_regs_struct, r12)},
      {"r13", offsetof(struct user_regs_struct, r13)},
      {"r14", offsetof(struct user_regs_struct, r14)},
      {"r15", offsetof(struct user_regs_struct, r15)},
      {"eflags", offsetof(struct user_regs_struct, eflags)},
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcmp(name, names[i].name) == 0)
      return (unsigned long long *)((char *)regs + names[i].offset);
  return NULL;
}

struct edit {
  const char *trace;
  uint64_t evno;
  const char *what;
  const char *name;
  uint64_t value;
  uint8_t *out; /* the edited copy of the output */
};

/* Copies PATH into TRACE/files/ as a preserved file; writes its name into NAME. */
static int preserve_copy(const char *trace, const char *path, char *name, size_t namelen) {
  char tmp[4096], hex[FILE_HASH_HEX_LEN + 1];
  snprintf(tmp, sizeof tmp, "%s/files/.edit-copy", trace);
  int in = open(path, O_RDONLY | O_CLOEXEC);
  unlink(tmp);
  int out = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
  struct stat st;
  int rc =
      in < 0 || out < 0 || fstat(in, &st) < 0 ||
              file_content_copy(in, out, 0, (uint64_t)st.st_size, (uint64_t)st.st_size, hex) < 0
          ? -1
          : 0;
  if (in >= 0)
    close(in);
  if (out >= 0)
    close(out);
  snprintf(name, namelen, "edited-%s", rc == 0 ? hex : "");
  char dst[4200];
  snprintf(dst, sizeof dst, "%s/files/%s", trace, name);
  if (rc < 0 || rename(tmp, dst) < 0) {
    fprintf(stderr, "%s: cannot copy %s into %s: %s\n", prog, path, dst, strerror(errno));
    unlink(tmp);
    return -1;
  }
  return 0;
}

/* Finds the byte LEFT bytes into buffered writes' output: its offset in the records. */
struct find_byte {
  uint64_t left;
  uint32_t at;
};

static void find_one(void *ctx, unsigned stream, uint32_t off, uint32_t n) {
  (void)stream;
  struct find_byte *fb = ctx;
  if (fb->at == UINT32_MAX && fb->left < n)
    fb->at = off + (uint32_t)fb->left;
  else if (fb->at == UINT32_MAX)
    fb->left -= n;
}

struct print_ctx {
  const uint8_t *data;
};

static void print_one(void *ctx, unsigned stream, uint32_t off, uint32_t n) {
  struct print_ctx *c = ctx;
  FILE *f = stream == OUT_TO_STDERR ? stderr : stdout;
  fwrite(c->data + off, 1, n, f);
  fflush(f);
}

/* Applies the edit to EV; 0, or -1 after a message. */
static int apply(struct edit *e, struct event *ev) {
  if (strcmp(e->what, "file") == 0) {
    static char name[128];
    if (!(ev->kind == EV_EXEC || (ev->kind == EV_SYSCALL && ev->file[0]))) {
      fprintf(stderr, "%s: event %" PRIu64 " names no preserved file\n", prog, e->evno);
      return -1;
    }
    if (preserve_copy(e->trace, e->name, name, sizeof name) < 0)
      return -1;
    ev->file = name;
    return 0;
  }
  if (strcmp(e->what, "result") == 0) {
    if (ev->kind != EV_SYSCALL) {
      fprintf(stderr, "%s: event %" PRIu64 " is a %s event, not a system call\n", prog, e->evno,
              event_kind_name(ev->kind));
      return -1;
    }
    ev->result = (int64_t)e->value;
    return 0;
  }
  if (strcmp(e->what, "call-result") == 0) {
    uint64_t n = strtoull(e->name, NULL, 0);
    uint32_t len = ev->kind == EV_SBUF ? syscallbuf_records_len(ev) : 0;
    e->out = malloc(ev->sbuf_len ? ev->sbuf_len : 1);
    memcpy(e->out, ev->sbuf_data, ev->sbuf_len);
    for (uint32_t at = 0, i = 1; at + sizeof(struct sbuf_rec) <= len; i++) {
      struct sbuf_rec rec;
      memcpy(&rec, e->out + at, sizeof rec);
      if (rec.size < sizeof rec || rec.size > len - at)
        break;
      if (i == n) {
        rec.ret = (int64_t)e->value;
        memcpy(e->out + at, &rec, sizeof rec);
        ev->sbuf_data = e->out;
        return 0;
      }
      at += rec.size;
    }
    fprintf(stderr, "%s: event %" PRIu64 " has no buffered call %" PRIu64 "\n", prog, e->evno, n);
    return -1;
  }
  if (strcmp(e->what, "output") == 0 && ev->kind == EV_SBUF) {
    /* the OFFSET-th byte of the buffered writes' output, in order */
    struct find_byte fb = {e->value, UINT32_MAX};
    uint64_t total = syscallbuf_output(ev->sbuf_data, syscallbuf_records_len(ev), 0, find_one, &fb);
    if (fb.at == UINT32_MAX) {
      fprintf(stderr,
              "%s: event %" PRIu64 " has %" PRIu64 " bytes of output, no byte %" PRIu64 "\n", prog,
              e->evno, total, e->value);
      return -1;
    }
    e->out = malloc(ev->sbuf_len);
    memcpy(e->out, ev->sbuf_data, ev->sbuf_len);
    e->out[fb.at] = e->out[fb.at] == 'X' ? 'Y' : 'X';
    ev->sbuf_data = e->out;
    return 0;
  }
  if (strcmp(e->what, "output") == 0) {
    if (!ev->out_to || e->value >= ev->out_len) {
      fprintf(stderr, "%s: event %" PRIu64 " has %u bytes of output, no byte %" PRIu64 "\n", prog,
              e->evno, ev->out_to ? ev->out_len : 0, e->value);
      return -1;
    }
    e->out = malloc(ev->out_len);
    memcpy(e->out, ev->out_data, ev->out_len);
    /* another printable byte, so the change shows in a terminal */
    e->out[e->value] = e->out[e->value] == 'X' ? 'Y' : 'X';
    ev->out_data = e->out;
    return 0;
  }
  unsigned long long *reg = reg_field(&ev->regs, e->name);
  if (!reg) {
    fprintf(stderr, "%s: no register named %s\n", prog, e->name);
    return -1;
  }
  *reg = e->value;
  return 0;
}

static int print_output(struct trace_reader *rd, const char *path, bool quiet) {
  struct event ev;
  event_init(&ev);
  char err[512];
  int rc = 0;
  for (uint64_t evno = 1;; evno++) {
    const void *rec;
    size_t len;
    int n = trace_reader_next(rd, &rec, &len);
    if (n <= 0) {
      if (n < 0) {
        fprintf(stderr, "%s: %s\n", prog, trace_reader_error(rd));
        rc = 1;
      }
      break;
    }
    if (event_decode(&ev, rec, len, err, sizeof err) < 0) {
      fprintf(stderr, "%s: %s: event %" PRIu64 " is corrupt: %s\n", prog, path, evno, err);
      rc = 1;
      break;
    }
    if (ev.kind == EV_SBUF && !quiet) {
      struct print_ctx c = {ev.sbuf_data};
      syscallbuf_output(ev.sbuf_data, syscallbuf_records_len(&ev), 0, print_one, &c);
    }
    if (ev.out_to && !quiet) {
      FILE *f = ev.out_to == OUT_TO_STDERR ? stderr : stdout;
      fwrite(ev.out_data, 1, ev.out_len, f);
      fflush(f);
    }
  }
  event_free(&ev);
  return rc;
}

/* Runs the program of the trace's first exec event with its recorded argv and envp (not
 * the trace's preserved copy: the program must find its own files). Returns only on
 * failure. */
static int run_program(struct trace_reader *rd, const char *path, bool quiet) {
  struct event ev;
  event_init(&ev);
  char err[512];
  const void *rec;
  size_t len;
  if (trace_reader_next(rd, &rec, &len) <= 0 || event_decode(&ev, rec, len, err, sizeof err) < 0 ||
      ev.kind != EV_EXEC || ev.argc == 0) {
    fprintf(stderr, "%s: %s does not start with an exec event\n", prog, path);
    return 1;
  }
  char **v = calloc(ev.argc + ev.envc + 2, sizeof *v);
  const char *s = ev.strings;
  for (uint32_t i = 0, k = 0; i < ev.argc + ev.envc; i++, k++) {
    if (i == ev.argc)
      k++; /* the NULL ending argv */
    v[k] = strdup(s);
    s += strlen(s) + 1;
  }
  if (quiet && (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)))
    return 1;
  execvpe(v[0], v, v + ev.argc + 1);
  fprintf(stderr, "%s: cannot run %s: %s\n", prog, v[0], strerror(errno));
  return 127;
}

static int rewrite(struct trace_reader *rd, const char *path, struct edit *e) {
  char *tmp_path = malloc(strlen(path) + 8);
  sprintf(tmp_path, "%s.edit", path);
  unlink(tmp_path);
  char err[512];
  struct trace_writer *w =
      trace_writer_open(tmp_path, 1, trace_reader_writer_version(rd), err, sizeof err);
  if (!w) {
    fprintf(stderr, "%s: %s\n", prog, err);
    free(tmp_path);
    return 1;
  }
  struct event ev;
  event_init(&ev);
  struct tbuf b;
  tbuf_init(&b);
  int rc = 0;
  bool found = false;
  for (uint64_t evno = 1;; evno++) {
    const void *rec;
    size_t len;
    int n = trace_reader_next(rd, &rec, &len);
    if (n < 0) {
      fprintf(stderr, "%s: %s\n", prog, trace_reader_error(rd));
      rc = 1;
    }
    if (n <= 0)
      break;
    if (evno == e->evno) {
      found = true;
      if (event_decode(&ev, rec, len, err, sizeof err) < 0) {
        fprintf(stderr, "%s: %s: event %" PRIu64 " is corrupt: %s\n", prog, path, evno, err);
        rc = 1;
        break;
      }
      if (apply(e, &ev) < 0) {
        rc = 1;
        break;
      }
      event_encode(&ev, &b);
      rec = b.data;
      len = b.len;
    }
    if (trace_writer_append(w, rec, len) < 0) {
      fprintf(stderr, "%s: %s\n", prog, trace_writer_error(w));
      rc = 1;
      break;
    }
  }
  if (rc == 0 && !found) {
    fprintf(stderr, "%s: %s has no event %" PRIu64 "\n", prog, path, e->evno);
    rc = 1;
  }
  if (trace_writer_close(w) < 0 && rc == 0) {
    fprintf(stderr, "%s: cannot finish %s\n", prog, tmp_path);
    rc = 1;
  }
  if (rc == 0 && rename(tmp_path, path) < 0) {
    fprintf(stderr, "%s: cannot replace %s: %s\n", prog, path, strerror(errno));
    rc = 1;
  }
  if (rc)
    unlink(tmp_path);
  event_free(&ev);
  tbuf_free(&b);
  free(e->out);
  free(tmp_path);
  return rc;
}

/* The header of a stream (trace_stream.h): magic (8 bytes), u32 version, u32 kind, u32
 * length of the writer's version string, the string, u64 XXH64 of all that. */
static int set_format_version(const char *trace, uint64_t version) {
  char path[4096];
  snprintf(path, sizeof path, "%s/" TRACE_EVENTS_FILE, trace);
  int fd = open(path, O_RDWR);
  unsigned char h[20 + 256 + 8];
  ssize_t n = fd >= 0 ? pread(fd, h, sizeof h, 0) : -1;
  uint32_t vlen =
      n >= 20 ? (uint32_t)(h[16] | h[17] << 8 | h[18] << 16 | (uint32_t)h[19] << 24) : 0;
  if (n < 20 || vlen > 256 || (size_t)n < 20 + vlen + 8) {
    fprintf(stderr, "%s: %s: cannot read its header\n", prog, path);
    if (fd >= 0)
      close(fd);
    return 1;
  }
  for (int i = 0; i < 4; i++)
    h[8 + i] = (unsigned char)(version >> (8 * i));
  uint64_t sum = XXH64(h, 20 + vlen, 0);
  for (int i = 0; i < 8; i++)
    h[20 + vlen + i] = (unsigned char)(sum >> (8 * i));
  int rc = pwrite(fd, h, 20 + vlen + 8, 0) == (ssize_t)(20 + vlen + 8) ? 0 : 1;
  close(fd);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 3)
    return usage();
  if (strcmp(argv[2], "format-version") == 0) {
    uint64_t v;
    if (argc != 4 || parse_u64(argv[3], &v) < 0)
      return usage();
    return set_format_version(argv[1], v);
  }
  struct edit e = {0};
  bool print = strcmp(argv[2], "print-output") == 0, run = strcmp(argv[2], "run") == 0;
  if (print || run) {
    if (argc > 4 || (argc == 4 && strcmp(argv[3], "-q") != 0))
      return usage();
  } else {
    if (argc < 5 || parse_u64(argv[2], &e.evno) < 0)
      return usage();
    e.what = argv[3];
    e.trace = argv[1];
    if (strcmp(e.what, "file") == 0 && argc == 5) {
      e.name = argv[4];
    } else if ((strcmp(e.what, "reg") == 0 || strcmp(e.what, "call-result") == 0) && argc == 6) {
      e.name = argv[4];
      if (parse_u64(argv[5], &e.value) < 0)
        return usage();
    } else if ((strcmp(e.what, "result") == 0 || strcmp(e.what, "output") == 0) && argc == 5) {
      /* a negative result (an errno) is accepted as such */
      if (argv[4][0] == '-' ? (e.value = (uint64_t)strtoll(argv[4], NULL, 0), 0)
                            : parse_u64(argv[4], &e.value) < 0)
        return usage();
    } else {
      return usage();
    }
  }
  char *path = malloc(strlen(argv[1]) + sizeof "/" TRACE_EVENTS_FILE);
  sprintf(path, "%s/" TRACE_EVENTS_FILE, argv[1]);
  char err[512];
  struct trace_reader *rd = trace_reader_open(path, 1, err, sizeof err);
  if (!rd) {
    fprintf(stderr, "%s: %s\n", prog, err);
    free(path);
    return 1;
  }
  int rc = print ? print_output(rd, path, argc == 4)
           : run ? run_program(rd, path, argc == 4)
                 : rewrite(rd, path, &e);
  trace_reader_close(rd);
  free(path);
  return rc;
}
