/* Unit tests for the gdb remote protocol server (src/gdb/gdb_server.c, gdb_regs.c): the
 * server runs in a thread on one end of a socketpair against a fake gdb_target; the test
 * plays gdb on the other end. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gdb/gdb_packet.h"
#include "gdb/gdb_regs.h"
#include "gdb/gdb_listen.h"
#include "gdb/gdb_target.h"

/* ---- the fake target ---- */

#define MEM_BASE 0x1000
#define TID1 0x64
#define TID2 0x65

struct fake {
  uint8_t mem[16];
  pid_t last_regs_tid;
  int resumes;
  enum gdb_resume_action last_action;
  pid_t last_tid;
  bool last_reverse;
  struct gdb_stop next_stop;
  bool wait_for_interrupt; /* resume spins until gdb interrupts */
  int breaks_set;
  struct gdb_stop_filter filter; /* as set_filter last gave it */
  int filters_set;
  bool writable; /* set_regs and write_mem succeed */
  struct gdb_thread_regs written_regs;
  uint8_t siginfo[128];
  int siginfo_writes;
};

static int fake_threads(void *ctx, pid_t *pids, pid_t *tids, int max) {
  (void)ctx;
  if (max < 2)
    return 0;
  pids[0] = pids[1] = TID1;
  tids[0] = TID1;
  tids[1] = TID2;
  return 2;
}

static int fake_get_regs(void *ctx, pid_t tid, struct gdb_thread_regs *out) {
  struct fake *f = ctx;
  f->last_regs_tid = tid;
  memset(out, 0, sizeof(*out));
  out->gpr.rip = 0x401000 + (tid == TID2);
  out->gpr.rax = 0x1122334455667788ull;
  out->gpr.fs_base = 0x7f0000001000ull;
  out->xsave_len = 0; /* no FP state: those registers are unavailable */
  return 0;
}

static long fake_read_mem(void *ctx, pid_t tid, uint64_t addr, void *buf, size_t len) {
  struct fake *f = ctx;
  (void)tid;
  if (addr < MEM_BASE || addr >= MEM_BASE + sizeof(f->mem))
    return -1;
  size_t n = MEM_BASE + sizeof(f->mem) - addr;
  if (n > len)
    n = len;
  memcpy(buf, f->mem + (addr - MEM_BASE), n);
  return (long)n;
}

static int fake_set_break(void *ctx, pid_t tid, int type, uint64_t addr, int len, bool insert) {
  struct fake *f = ctx;
  (void)tid;
  (void)addr;
  (void)len;
  if (type != 0 && type != 2)
    return -1;
  f->breaks_set += insert ? 1 : -1;
  return 0;
}

static int fake_resume(void *ctx, enum gdb_resume_action action, pid_t tid, bool reverse,
                       struct gdb_stop *stop, bool (*interrupted)(void *), void *arg) {
  struct fake *f = ctx;
  f->resumes++;
  f->last_action = action;
  f->last_tid = tid;
  f->last_reverse = reverse;
  if (f->wait_for_interrupt) {
    while (!interrupted(arg))
      usleep(1000);
    *stop = (struct gdb_stop){.kind = GDB_STOP_SIGNAL, .pid = TID1, .tid = TID1, .signo = SIGINT};
    return 0;
  }
  *stop = f->next_stop;
  return 0;
}

static int fake_exec_file(void *ctx, pid_t pid, char *buf, size_t len) {
  (void)ctx;
  if (pid != TID1)
    return -1;
  snprintf(buf, len, "/bin/true");
  return 0;
}

static long fake_auxv(void *ctx, pid_t pid, void *buf, size_t len) {
  (void)ctx;
  (void)pid;
  static const char auxv[] = "a#b$c}d*e";
  if (len < sizeof(auxv) - 1)
    return -1;
  memcpy(buf, auxv, sizeof(auxv) - 1);
  return sizeof(auxv) - 1;
}

static int fake_monitor(void *ctx, const char *cmd, char *out, size_t len) {
  (void)ctx;
  if (strcmp(cmd, "when") != 0)
    return -1;
  snprintf(out, len, "Current event: 42\n");
  return 0;
}

static void fake_set_filter(void *ctx, const struct gdb_stop_filter *filter) {
  struct fake *f = ctx;
  f->filter = *filter;
  f->filters_set++;
}

static int fake_set_regs(void *ctx, pid_t tid, const struct gdb_thread_regs *regs) {
  struct fake *f = ctx;
  (void)tid;
  if (!f->writable)
    return -1;
  f->written_regs = *regs;
  return 0;
}

static int fake_write_mem(void *ctx, pid_t tid, uint64_t addr, const void *buf, size_t len) {
  struct fake *f = ctx;
  (void)tid;
  if (!f->writable || addr < MEM_BASE || addr + len > MEM_BASE + sizeof(f->mem))
    return -1;
  memcpy(f->mem + (addr - MEM_BASE), buf, len);
  return 0;
}

static long fake_siginfo(void *ctx, pid_t tid, void *buf, size_t len) {
  struct fake *f = ctx;
  (void)tid;
  size_t n = len < sizeof(f->siginfo) ? len : sizeof(f->siginfo);
  memcpy(buf, f->siginfo, n);
  return (long)n;
}

static int fake_set_siginfo(void *ctx, pid_t tid, const void *buf, size_t len) {
  struct fake *f = ctx;
  (void)tid;
  if (len > sizeof(f->siginfo))
    return -1;
  memcpy(f->siginfo, buf, len);
  f->siginfo_writes++;
  return 0;
}

/* Every file reads "contents of PATH"; "/missing" does not exist. */
static int fake_open_file(void *ctx, pid_t pid, const char *path) {
  (void)ctx;
  (void)pid;
  if (!strcmp(path, "/missing"))
    return -ENOENT;
  FILE *f = tmpfile();
  if (!f)
    return -errno;
  fprintf(f, "contents of %s", path);
  fflush(f);
  int fd = dup(fileno(f));
  fclose(f);
  return fd;
}

static long fake_readlink(void *ctx, pid_t pid, const char *path, char *buf, size_t len) {
  (void)ctx;
  (void)pid;
  if (strcmp(path, "/proc/100/exe"))
    return -ENOENT;
  snprintf(buf, len, "/bin/true");
  return 9;
}

static void fake_current_stop(void *ctx, struct gdb_stop *stop) {
  (void)ctx;
  *stop = (struct gdb_stop){.kind = GDB_STOP_SIGNAL, .pid = TID1, .tid = TID1, .signo = SIGTRAP};
}

/* ---- the test's gdb side ---- */

struct session {
  struct fake fake;
  struct gdb_target target;
  int gdb_fd, server_fd;
  pthread_t thread;
  int serve_rc;
  bool no_ack;
  char reply[65536];
};

static void *serve_thread(void *arg) {
  struct session *s = arg;
  s->serve_rc = gdb_serve(s->server_fd, &s->target);
  close(s->server_fd);
  return NULL;
}

static int setup(void **state) {
  struct session *s = calloc(1, sizeof(*s));
  for (int i = 0; i < 16; i++)
    s->fake.mem[i] = (uint8_t)(0xa0 + i);
  s->target = (struct gdb_target){
      .ctx = &s->fake,
      .threads = fake_threads,
      .get_regs = fake_get_regs,
      .read_mem = fake_read_mem,
      .set_break = fake_set_break,
      .resume = fake_resume,
      .exec_file = fake_exec_file,
      .auxv = fake_auxv,
      .monitor = fake_monitor,
      .current_stop = fake_current_stop,
      .set_filter = fake_set_filter,
      .set_regs = fake_set_regs,
      .write_mem = fake_write_mem,
      .siginfo = fake_siginfo,
      .set_siginfo = fake_set_siginfo,
      .open_file = fake_open_file,
      .readlink = fake_readlink,
  };
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0)
    return -1;
  s->gdb_fd = fds[0];
  s->server_fd = fds[1];
  if (pthread_create(&s->thread, NULL, serve_thread, s) != 0)
    return -1;
  *state = s;
  return 0;
}

static int teardown(void **state) {
  struct session *s = *state;
  if (s->gdb_fd >= 0)
    close(s->gdb_fd);
  pthread_join(s->thread, NULL);
  free(s);
  return 0;
}

static void put(int fd, const void *data, size_t len) {
  assert_int_equal(write(fd, data, len), (ssize_t)len);
}

static int get_byte(int fd) {
  unsigned char c;
  return read(fd, &c, 1) == 1 ? c : -1;
}

static void send_raw_packet(struct session *s, const char *payload) {
  char trailer[4];
  snprintf(trailer, sizeof(trailer), "#%02x", gdb_checksum(payload, strlen(payload)));
  put(s->gdb_fd, "$", 1);
  put(s->gdb_fd, payload, strlen(payload));
  put(s->gdb_fd, trailer, 3);
}

/* Reads the server's next packet into s->reply (acking it) and returns it. */
static const char *recv_reply(struct session *s) {
  int c;
  while ((c = get_byte(s->gdb_fd)) != '$')
    assert_true(c == '+' || c == '-');
  size_t n = 0;
  while ((c = get_byte(s->gdb_fd)) != '#') {
    assert_true(c >= 0);
    assert_true(n < sizeof(s->reply) - 1);
    s->reply[n++] = (char)c;
  }
  s->reply[n] = '\0';
  char sum[3] = {(char)get_byte(s->gdb_fd), (char)get_byte(s->gdb_fd), 0};
  assert_int_equal(strtol(sum, NULL, 16), gdb_checksum(s->reply, n));
  if (!s->no_ack)
    put(s->gdb_fd, "+", 1);
  return s->reply;
}

static const char *exchange(struct session *s, const char *payload) {
  send_raw_packet(s, payload);
  if (!s->no_ack)
    assert_int_equal(get_byte(s->gdb_fd), '+');
  return recv_reply(s);
}

static size_t host_g_packet_len(void) {
  struct gdb_xsave_layout l;
  gdb_xsave_layout_host(&l);
  size_t n = 0;
  for (int i = 0; i < gdb_reg_count(&l); i++)
    n += 2 * gdb_reg_size(&l, i);
  return n;
}

/* ---- tests ---- */

static void test_qsupported(void **state) {
  struct session *s = *state;
  const char *r = exchange(s, "qSupported:multiprocess+;swbreak+;hwbreak+;xmlRegisters=i386");
  const char *want[] = {"PacketSize=4000",
                        "qXfer:features:read+",
                        "qXfer:auxv:read+",
                        "qXfer:exec-file:read+",
                        "qXfer:threads:read+",
                        "swbreak+",
                        "hwbreak+",
                        "vContSupported+",
                        "ReverseStep+",
                        "ReverseContinue+",
                        "QStartNoAckMode+",
                        "QPassSignals+",
                        "QCatchSyscalls+",
                        "qXfer:siginfo:read+",
                        "multiprocess+"};
  for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
    assert_non_null(strstr(r, want[i]));
  assert_null(strstr(r, "fork-events+")); /* gdb did not offer them */
}

static void test_stop_query_and_threads(void **state) {
  struct session *s = *state;
  assert_string_equal(exchange(s, "?"), "T05thread:64;");
  assert_string_equal(exchange(s, "qfThreadInfo"), "m64,65");
  assert_string_equal(exchange(s, "qsThreadInfo"), "l");
  assert_string_equal(exchange(s, "qC"), "QC64");
  assert_string_equal(exchange(s, "T65"), "OK");
  assert_string_equal(exchange(s, "T99"), "E01");
  assert_string_equal(exchange(s, "Hg99"), "E01");
  assert_string_equal(exchange(s, "Hg0"), "OK");
  assert_string_equal(exchange(s, "Hc-1"), "OK");
  assert_string_equal(exchange(s, "qAttached"), "1");
  assert_string_equal(exchange(s, "qTStatus"), "");
  assert_string_equal(exchange(s, "qSymbol::"), "OK");
  assert_string_equal(exchange(s, "vMustReplyEmpty"), "");
  assert_string_equal(exchange(s, "qSomethingNew"), "");
}

static void test_registers(void **state) {
  struct session *s = *state;
  const char *r = exchange(s, "g");
  assert_int_equal(strlen(r), host_g_packet_len());
  assert_memory_equal(r, "8877665544332211", 16);               /* rax */
  assert_memory_equal(r + 16 * 16, "0010400000000000", 16);     /* rip */
  assert_memory_equal(r + 16 * 16 + 16 + 8 + 6 * 8, "xxxx", 4); /* st0: no FP state */
  assert_int_equal(s->fake.last_regs_tid, TID1);
  assert_string_equal(exchange(s, "p10"), "0010400000000000");
  assert_string_equal(exchange(s, "p3a"), "00100000007f0000");                 /* fs_base */
  assert_string_equal(exchange(s, "p28"), "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"); /* xmm0 */
  assert_string_equal(exchange(s, "Hg65"), "OK");
  assert_string_equal(exchange(s, "p10"), "0110400000000000");
  assert_int_equal(s->fake.last_regs_tid, TID2);
  assert_string_equal(exchange(s, "p1000"), "E01");
  assert_string_equal(exchange(s, "p"), "E01");
  assert_string_equal(exchange(s, "pzz"), "E01");
}

static void test_register_values_from_xsave(void **state) {
  (void)state;
  struct gdb_xsave_layout l;
  gdb_xsave_layout_standard(&l, true, true);
  assert_int_equal(gdb_reg_count(&l), GDB_REG_COUNT_AVX512);
  static struct gdb_thread_regs r;
  memset(&r, 0, sizeof(r));
  r.xsave_len = 2688;
  uint64_t bv = 0xe7; /* x87, SSE, AVX, opmask, ZMM_Hi256, Hi16_ZMM */
  memcpy(r.xsave + 512, &bv, 8);
  r.xsave[0] = 0x7f; /* fctrl 0x37f */
  r.xsave[1] = 0x03;
  r.xsave[160] = 0xaa;       /* xmm0 byte 0 */
  r.xsave[576 + 16] = 0xbb;  /* ymm1h byte 0 */
  r.xsave[1088 + 8] = 0xcc;  /* k1 */
  r.xsave[1152 + 32] = 0xdd; /* zmm1h */
  r.xsave[1664 + 64] = 0xee; /* xmm17 */
  r.xsave[1664 + 16] = 0x11; /* ymm16h */
  r.xsave[1664 + 32] = 0x22; /* zmm16h */
  uint8_t v[GDB_REG_MAX_SIZE];
  assert_true(gdb_reg_read(&l, &r, GDB_REG_FCTRL, v));
  assert_int_equal(v[0] | v[1] << 8, 0x37f);
  assert_true(gdb_reg_read(&l, &r, GDB_REG_FCTRL + 2, v)); /* ftag: all empty */
  assert_int_equal(v[0] | v[1] << 8, 0xffff);
  assert_true(gdb_reg_read(&l, &r, GDB_REG_XMM0, v));
  assert_int_equal(v[0], 0xaa);
  assert_true(gdb_reg_read(&l, &r, GDB_REG_YMM0H + 1, v));
  assert_int_equal(v[0], 0xbb);
  assert_true(gdb_reg_read(&l, &r, GDB_REG_K0 + 1, v));
  assert_int_equal(v[0], 0xcc);
  assert_true(gdb_reg_read(&l, &r, GDB_REG_ZMM0H + 1, v));
  assert_int_equal(v[0], 0xdd);
  assert_true(gdb_reg_read(&l, &r, GDB_REG_XMM16 + 1, v));
  assert_int_equal(v[0], 0xee);
  assert_true(gdb_reg_read(&l, &r, GDB_REG_YMM16H, v));
  assert_int_equal(v[0], 0x11);
  assert_true(gdb_reg_read(&l, &r, GDB_REG_ZMM0H + 16, v));
  assert_int_equal(v[0], 0x22);
  /* A component in its initial state reads as zeros whatever the buffer holds. */
  bv = 0x3;
  memcpy(r.xsave + 512, &bv, 8);
  assert_true(gdb_reg_read(&l, &r, GDB_REG_YMM0H + 1, v));
  assert_int_equal(v[0], 0);
  /* Beyond the state the target gave: unavailable. */
  bv = 0xe7;
  memcpy(r.xsave + 512, &bv, 8);
  r.xsave_len = 1088;
  assert_false(gdb_reg_read(&l, &r, GDB_REG_K0, v));
  assert_int_equal(gdb_reg_size(&l, GDB_REG_ST0), 10);
  assert_int_equal(gdb_reg_size(&l, GDB_REG_ZMM0H), 32);
  assert_int_equal(gdb_reg_size(&l, GDB_REG_COUNT_AVX512), 0);
}

static void test_target_xml(void **state) {
  (void)state;
  struct gdb_xsave_layout l;
  gdb_xsave_layout_standard(&l, true, false);
  char *xml = gdb_target_xml(&l);
  assert_non_null(strstr(xml, "<architecture>i386:x86-64</architecture>"));
  assert_non_null(strstr(xml, "<osabi>GNU/Linux</osabi>"));
  assert_non_null(strstr(xml, "org.gnu.gdb.i386.core"));
  assert_non_null(strstr(xml, "org.gnu.gdb.i386.linux"));
  assert_non_null(
      strstr(xml, "<reg name=\"orig_rax\" bitsize=\"64\" type=\"int\" regnum=\"57\"/>"));
  assert_non_null(
      strstr(xml, "<reg name=\"ymm15h\" bitsize=\"128\" type=\"uint128\" regnum=\"75\"/>"));
  assert_null(strstr(xml, "avx512"));
  free(xml);
  gdb_xsave_layout_standard(&l, true, true);
  xml = gdb_target_xml(&l);
  assert_non_null(
      strstr(xml, "<reg name=\"zmm31h\" bitsize=\"256\" type=\"v2ui128\" regnum=\"147\"/>"));
  free(xml);
}

static void test_writes_refused(void **state) {
  struct session *s = *state;
  assert_string_equal(exchange(s, "G00"), "E01");
  assert_string_equal(exchange(s, "P10=0000000000000000"), "E01");
  assert_string_equal(exchange(s, "M1000,1:00"), "E01");
  assert_string_equal(exchange(s, "X1000,1:a"), "E01");
}

static void test_memory(void **state) {
  struct session *s = *state;
  assert_string_equal(exchange(s, "m1000,4"), "a0a1a2a3");
  assert_string_equal(exchange(s, "m100c,8"), "acadaeaf"); /* partial read */
  assert_string_equal(exchange(s, "m5000,4"), "E01");
  assert_string_equal(exchange(s, "m1000,0"), "");
  assert_string_equal(exchange(s, "m"), "E01");
  assert_string_equal(exchange(s, "mzz,4"), "E01");
  assert_string_equal(exchange(s, "m1000"), "E01");
  assert_string_equal(exchange(s, "m1000,4junk"), "E01");
}

static void test_breakpoints(void **state) {
  struct session *s = *state;
  assert_string_equal(exchange(s, "Z0,401000,1"), "OK");
  assert_int_equal(s->fake.breaks_set, 1);
  assert_string_equal(exchange(s, "z0,401000,1"), "OK");
  assert_int_equal(s->fake.breaks_set, 0);
  assert_string_equal(exchange(s, "Z2,2000,8"), "OK");
  assert_string_equal(exchange(s, "Z1,401000,1"), ""); /* unsupported here */
  assert_string_equal(exchange(s, "Z3,2000,8"), "E01");
  assert_string_equal(exchange(s, "Z9,2000,8"), "E01");
  assert_string_equal(exchange(s, "Z0,zz"), "E01");
  assert_string_equal(exchange(s, "Z0,401000,1;X2,abcd"), "OK"); /* conditions ignored */
}

static void test_vcont(void **state) {
  struct session *s = *state;
  exchange(s, "qSupported:swbreak+;hwbreak+");
  assert_string_equal(exchange(s, "vCont?"), "vCont;c;C;s;S");
  s->fake.next_stop =
      (struct gdb_stop){.kind = GDB_STOP_SWBREAK, .pid = TID1, .tid = TID2, .signo = SIGTRAP};
  assert_string_equal(exchange(s, "vCont;s:65;c"), "T05thread:65;swbreak:;");
  assert_int_equal(s->fake.last_action, GDB_STEP);
  assert_int_equal(s->fake.last_tid, TID2);
  assert_false(s->fake.last_reverse);
  assert_string_equal(exchange(s, "qC"), "QC65");

  s->fake.next_stop.kind = GDB_STOP_HWBREAK;
  assert_string_equal(exchange(s, "vCont;c"), "T05thread:65;hwbreak:;");
  assert_int_equal(s->fake.last_action, GDB_CONTINUE);
  assert_int_equal(s->fake.last_tid, -1);

  s->fake.next_stop =
      (struct gdb_stop){.kind = GDB_STOP_SIGNAL, .pid = TID1, .tid = TID1, .signo = SIGUSR1};
  assert_string_equal(exchange(s, "vCont;C0b:64"), "T1ethread:64;");
  assert_int_equal(s->fake.last_tid, TID1);
  assert_string_equal(exchange(s, "vCont;S05:p64.64;c:p64.-1"), "T1ethread:64;");
  assert_int_equal(s->fake.last_action, GDB_STEP);
  assert_int_equal(s->fake.last_tid, TID1);

  int before = s->fake.resumes;
  assert_string_equal(exchange(s, "vCont;"), "E01");
  assert_string_equal(exchange(s, "vCont;x"), "E01");
  assert_string_equal(exchange(s, "vCont;r1000,2000:64"), "E01");
  assert_string_equal(exchange(s, "vCont;c:zz"), "E01");
  assert_string_equal(exchange(s, "vCont;Cxx"), "E01");
  assert_int_equal(s->fake.resumes, before);
}

static void test_stop_replies(void **state) {
  struct session *s = *state;
  s->fake.next_stop = (struct gdb_stop){.kind = GDB_STOP_WATCH,
                                        .tid = TID1,
                                        .signo = SIGTRAP,
                                        .watch_type = GDB_WATCH_WRITE,
                                        .watch_addr = 0x2000};
  assert_string_equal(exchange(s, "c"), "T05thread:64;watch:2000;");
  s->fake.next_stop.watch_type = GDB_WATCH_READ;
  assert_string_equal(exchange(s, "c"), "T05thread:64;rwatch:2000;");
  s->fake.next_stop.watch_type = GDB_WATCH_ACCESS;
  assert_string_equal(exchange(s, "c"), "T05thread:64;awatch:2000;");
  /* Without swbreak+ from gdb the reason is left out. */
  s->fake.next_stop = (struct gdb_stop){.kind = GDB_STOP_SWBREAK, .tid = TID1, .signo = SIGTRAP};
  assert_string_equal(exchange(s, "s"), "T05thread:64;");
  assert_int_equal(s->fake.last_action, GDB_STEP);
  /* Exec stops carry the path only when gdb asked for exec events. */
  s->fake.next_stop =
      (struct gdb_stop){.kind = GDB_STOP_EXEC, .tid = TID1, .signo = SIGTRAP, .exec_path = "/bin"};
  assert_string_equal(exchange(s, "c"), "T05thread:64;");
  assert_non_null(strstr(exchange(s, "qSupported:exec-events+"), "exec-events+"));
  assert_string_equal(exchange(s, "c"), "T05thread:64;exec:2f62696e;");
  s->fake.next_stop =
      (struct gdb_stop){.kind = GDB_STOP_HISTORY_END, .tid = TID1, .history_begin = true};
  assert_string_equal(exchange(s, "bc"), "T05thread:64;replaylog:begin;");
  assert_true(s->fake.last_reverse);
  assert_int_equal(s->fake.last_action, GDB_CONTINUE);
  s->fake.next_stop.history_begin = false;
  assert_string_equal(exchange(s, "bs"), "T05thread:64;replaylog:end;");
  assert_true(s->fake.last_reverse);
  assert_int_equal(s->fake.last_action, GDB_STEP);
  assert_int_equal(s->fake.last_tid, TID1);
  s->fake.next_stop = (struct gdb_stop){.kind = GDB_STOP_SIGNAL, .tid = TID1, .signo = 34};
  assert_string_equal(exchange(s, "c"), "T2ethread:64;"); /* SIGRTMIN+2: gdb's 46 */
  s->fake.next_stop = (struct gdb_stop){.kind = GDB_STOP_KILLED, .tid = TID1, .signo = SIGSEGV};
  assert_string_equal(exchange(s, "c"), "X0b");
  s->fake.next_stop = (struct gdb_stop){.kind = GDB_STOP_EXITED, .tid = TID1, .exit_code = 7};
  assert_string_equal(exchange(s, "c"), "W07");
}

static void test_interrupt_during_resume(void **state) {
  struct session *s = *state;
  s->fake.wait_for_interrupt = true;
  send_raw_packet(s, "vCont;c");
  assert_int_equal(get_byte(s->gdb_fd), '+');
  usleep(20000);
  put(s->gdb_fd, "\x03", 1);
  assert_string_equal(recv_reply(s), "T02thread:64;");
  /* An interrupt while stopped is ignored. */
  put(s->gdb_fd, "\x03", 1);
  s->fake.wait_for_interrupt = false;
  assert_string_equal(exchange(s, "?"), "T02thread:64;");
}

/* Reads a whole qXfer object in chunks of CHUNK bytes. */
static char *xfer_all(struct session *s, const char *prefix, size_t chunk, size_t *len) {
  char *doc = NULL;
  size_t n = 0;
  for (;;) {
    char req[256];
    snprintf(req, sizeof(req), "%s%zx,%zx", prefix, n, chunk);
    const char *r = exchange(s, req);
    assert_true(r[0] == 'm' || r[0] == 'l');
    size_t rlen = strlen(r + 1);
    char *grown = realloc(doc, n + rlen + 1);
    assert_non_null(grown);
    doc = grown;
    long got = gdb_unescape_binary(r + 1, rlen, doc + n);
    assert_true(got >= 0 && (size_t)got <= chunk);
    n += (size_t)got;
    doc[n] = '\0';
    if (r[0] == 'l')
      break;
  }
  *len = n;
  return doc;
}

static void test_qxfer(void **state) {
  struct session *s = *state;
  struct gdb_xsave_layout l;
  gdb_xsave_layout_host(&l);
  char *want = gdb_target_xml(&l);
  size_t len;
  char *xml = xfer_all(s, "qXfer:features:read:target.xml:", 100, &len);
  assert_string_equal(xml, want);
  free(xml);
  xml = xfer_all(s, "qXfer:features:read:target.xml:", 0x10000, &len);
  assert_string_equal(xml, want);
  free(xml);
  const char *r = exchange(s, "qXfer:features:read:target.xml:0,10");
  assert_int_equal(r[0], 'm');
  assert_memory_equal(r + 1, want, 10);
  char req[128];
  snprintf(req, sizeof(req), "qXfer:features:read:target.xml:%zx,10", strlen(want));
  assert_string_equal(exchange(s, req), "l");
  free(want);

  assert_string_equal(exchange(s, "qXfer:features:read:other.xml:0,100"), "E00");
  assert_string_equal(exchange(s, "qXfer:auxv:read::0,100"), "la}\x03"
                                                             "b}\x04"
                                                             "c}]d}\x0a"
                                                             "e");
  char *auxv = xfer_all(s, "qXfer:auxv:read::", 3, &len);
  assert_int_equal(len, 9);
  assert_memory_equal(auxv, "a#b$c}d*e", 9);
  free(auxv);
  assert_string_equal(exchange(s, "qXfer:exec-file:read:64:0,100"), "l/bin/true");
  assert_string_equal(exchange(s, "qXfer:exec-file:read::0,100"), "l/bin/true");
  assert_string_equal(exchange(s, "qXfer:exec-file:read:99:0,100"), "E01");
  r = exchange(s, "qXfer:threads:read::0,1000");
  assert_non_null(strstr(r, "<thread id=\"64\"/>"));
  assert_non_null(strstr(r, "<thread id=\"65\"/>"));
  assert_string_equal(exchange(s, "qXfer:unknown:read::0,10"), "");
  assert_string_equal(exchange(s, "qXfer:features:write:target.xml:0:abc"), "");
  assert_string_equal(exchange(s, "qXfer:features:read:target.xml:zz"), "E01");
  assert_string_equal(exchange(s, "qXfer:features:read:target.xml"), "E01");
  assert_string_equal(exchange(s, "qXfer:"), "E01");
}

static void hex_of(const char *text, char *out) { gdb_hex_encode(text, strlen(text), out); }

static void test_monitor(void **state) {
  struct session *s = *state;
  char req[256] = "qRcmd,", hex[128];
  hex_of("when", req + 6);
  const char *r = exchange(s, req);
  hex_of("Current event: 42\n", hex);
  assert_int_equal(r[0], 'O');
  assert_string_equal(r + 1, hex);
  assert_string_equal(recv_reply(s), "OK");

  hex_of("frobnicate", req + 6);
  r = exchange(s, req);
  assert_int_equal(r[0], 'O');
  char text[256] = {0};
  gdb_hex_decode(r + 1, text, sizeof(text) - 1);
  assert_non_null(strstr(text, "frobnicate"));
  assert_string_equal(recv_reply(s), "E01");
  assert_string_equal(exchange(s, "qRcmd,abc"), "E01"); /* odd-length hex */
  assert_string_equal(exchange(s, "qRcmd,zz"), "E01");
}

static void test_bad_checksum_then_retransmit(void **state) {
  struct session *s = *state;
  put(s->gdb_fd, "$qC#00", 6);
  assert_int_equal(get_byte(s->gdb_fd), '-');
  assert_string_equal(exchange(s, "qC"), "QC64");
}

static void test_overlong_packet_gets_error(void **state) {
  struct session *s = *state;
  size_t n = 2 * GDB_PACKET_MAX;
  char *big = malloc(n + 1);
  memset(big, 'm', n);
  big[n] = '\0';
  assert_string_equal(exchange(s, big), "E01");
  free(big);
  assert_string_equal(exchange(s, "qC"), "QC64");
}

static void test_garbage_between_packets(void **state) {
  struct session *s = *state;
  put(s->gdb_fd, "hello\r\n", 7);
  assert_string_equal(exchange(s, "qC"), "QC64");
  assert_string_equal(exchange(s, ""), "");
  assert_string_equal(exchange(s, "H"), "E01");
  assert_string_equal(exchange(s, "Hgzz"), "E01");
  assert_string_equal(exchange(s, "T"), "E01");
  assert_string_equal(exchange(s, "gjunk"), "E01");
}

static void test_no_ack_mode(void **state) {
  struct session *s = *state;
  assert_string_equal(exchange(s, "QStartNoAckMode"), "OK");
  s->no_ack = true;
  assert_string_equal(exchange(s, "qC"), "QC64");
  assert_string_equal(exchange(s, "m1000,2"), "a0a1");
}

static void test_detach_ends_session(void **state) {
  struct session *s = *state;
  assert_string_equal(exchange(s, "D"), "OK");
  pthread_join(s->thread, NULL);
  assert_int_equal(s->serve_rc, 0);
  s->thread = pthread_self(); /* already joined */
}

static void test_vkill_ends_session(void **state) {
  struct session *s = *state;
  assert_string_equal(exchange(s, "vKill;64"), "OK");
  pthread_join(s->thread, NULL);
  assert_int_equal(s->serve_rc, 0);
  s->thread = pthread_self();
}

static void test_disconnect_ends_session(void **state) {
  struct session *s = *state;
  close(s->gdb_fd);
  s->gdb_fd = -1;
  pthread_join(s->thread, NULL);
  assert_int_equal(s->serve_rc, 0);
  s->thread = pthread_self();
}

static int teardown_joined(void **state) {
  struct session *s = *state;
  if (s->gdb_fd >= 0)
    close(s->gdb_fd);
  free(s);
  return 0;
}

static void test_listen_picks_port(void **state) {
  (void)state;
  int port = 0;
  int fd = gdb_listen(&port);
  assert_true(fd >= 0);
  assert_true(port > 0);
  int busy = port;
  assert_int_equal(gdb_listen(&busy), -1); /* already taken */
  close(fd);
  int bad = 70000;
  assert_int_equal(gdb_listen(&bad), -1);
}

static void test_multiprocess_thread_ids(void **state) {
  struct session *s = *state;
  exchange(s, "qSupported:multiprocess+;fork-events+;vfork-events+;exec-events+");
  assert_string_equal(exchange(s, "?"), "T05thread:p64.64;");
  assert_string_equal(exchange(s, "qC"), "QCp64.64");
  assert_string_equal(exchange(s, "qfThreadInfo"), "mp64.64,p64.65");
  assert_string_equal(exchange(s, "Hgp64.65"), "OK");
  assert_string_equal(exchange(s, "g"), exchange(s, "g")); /* reads thread 65 */
  assert_int_equal(s->fake.last_regs_tid, TID2);
  s->fake.next_stop = (struct gdb_stop){.kind = GDB_STOP_EXITED, .pid = TID1, .exit_code = 3};
  assert_string_equal(exchange(s, "c"), "W03;process:64");
  s->fake.next_stop = (struct gdb_stop){.kind = GDB_STOP_KILLED, .pid = TID1, .signo = SIGSEGV};
  assert_string_equal(exchange(s, "c"), "X0b;process:64");
  /* letting go of a forked child gdb does not follow leaves the session running */
  assert_string_equal(exchange(s, "D;66"), "OK");
  assert_string_equal(exchange(s, "vKill;66"), "OK");
  assert_string_equal(exchange(s, "qC"), "QCp64.64");
}

static void test_event_stops(void **state) {
  struct session *s = *state;
  exchange(s, "qSupported:multiprocess+;fork-events+;vfork-events+;exec-events+");
  struct gdb_stop st = {.pid = TID1, .tid = TID1, .signo = SIGTRAP};
  st.kind = GDB_STOP_SYSCALL_ENTRY;
  st.syscall_no = 1;
  s->fake.next_stop = st;
  assert_string_equal(exchange(s, "c"), "T05thread:p64.64;syscall_entry:1;");
  st.kind = GDB_STOP_SYSCALL_RETURN;
  st.syscall_no = 0xe7;
  s->fake.next_stop = st;
  assert_string_equal(exchange(s, "c"), "T05thread:p64.64;syscall_return:e7;");
  st.kind = GDB_STOP_FORK;
  st.child_pid = st.child_tid = 0x66;
  s->fake.next_stop = st;
  assert_string_equal(exchange(s, "c"), "T05thread:p64.64;fork:p66.66;");
  st.kind = GDB_STOP_VFORK;
  s->fake.next_stop = st;
  assert_string_equal(exchange(s, "c"), "T05thread:p64.64;vfork:p66.66;");
  st.kind = GDB_STOP_VFORK_DONE;
  s->fake.next_stop = st;
  assert_string_equal(exchange(s, "c"), "T05thread:p64.64;vforkdone:;");
  st.kind = GDB_STOP_SIGNAL;
  st.signo = SIGUSR1;
  s->fake.next_stop = st;
  assert_string_equal(exchange(s, "c"), "T1ethread:p64.64;");
}

static void test_stop_filter(void **state) {
  struct session *s = *state;
  exchange(s, "qSupported:multiprocess+;fork-events+;exec-events+");
  /* gdb's numbers: 0x0e SIGALRM, 0x14 SIGCHLD, 0x1e SIGUSR1 */
  assert_string_equal(exchange(s, "QPassSignals:e;14;1e"), "OK");
  assert_string_equal(exchange(s, "QCatchSyscalls:1;1;e7"), "OK");
  assert_string_equal(exchange(s, "QProgramSignals:e"), "OK");
  exchange(s, "c");
  struct gdb_stop_filter *f = &s->fake.filter;
  assert_true(f->pass[SIGALRM] && f->pass[SIGCHLD] && f->pass[SIGUSR1]);
  assert_false(f->pass[SIGSEGV] || f->pass[SIGINT]);
  assert_true(f->catch_syscalls && !f->any_syscall && f->syscalls[1] && f->syscalls[0xe7]);
  assert_false(f->syscalls[0]);
  assert_true(f->fork_events && f->exec_events && !f->vfork_events);
  int sets = s->fake.filters_set;
  exchange(s, "c"); /* nothing changed: not sent again */
  assert_int_equal(s->fake.filters_set, sets);
  assert_string_equal(exchange(s, "QCatchSyscalls:1"), "OK");
  assert_string_equal(exchange(s, "QPassSignals:"), "OK");
  exchange(s, "c");
  assert_true(f->catch_syscalls && f->any_syscall && !f->syscalls[1]);
  assert_false(f->pass[SIGALRM]);
  assert_string_equal(exchange(s, "QCatchSyscalls:0"), "OK");
  exchange(s, "c");
  assert_false(f->catch_syscalls);
  assert_string_equal(exchange(s, "QCatchSyscalls:2"), "E01");
  assert_string_equal(exchange(s, "QPassSignals:zz"), "E01");
}

static void test_writes_reach_target(void **state) {
  struct session *s = *state;
  /* writing what is there already always succeeds (gdb restoring after a call) */
  assert_string_equal(exchange(s, "P10=0010400000000000"), "OK");
  assert_string_equal(exchange(s, "P10=0020400000000000"), "E01");
  s->fake.writable = true;
  assert_string_equal(exchange(s, "P10=0020400000000000"), "OK");
  assert_int_equal(s->fake.written_regs.gpr.rip, 0x402000);
  assert_int_equal(s->fake.written_regs.gpr.rax, 0x1122334455667788ull);
  assert_string_equal(exchange(s, "P5=0100000000000000"), "OK"); /* rdi */
  assert_int_equal(s->fake.written_regs.gpr.rdi, 1);
  assert_string_equal(exchange(s, "P5=01"), "E01");
  assert_string_equal(exchange(s, "M1002,2:beef"), "OK");
  assert_string_equal(exchange(s, "m1000,4"), "a0a1beef");
  assert_string_equal(exchange(s, "X1000,2:}]}\x03"), "OK"); /* escaped '}' and '#' */
  assert_int_equal(s->fake.mem[0], '}');
  assert_int_equal(s->fake.mem[1], '#');
  /* more data than LEN (found by fuzzing: it was unescaped into a buffer of LEN bytes) */
  assert_string_equal(exchange(s, "X1000,1:abcdefghijklmnopqrstuvwxyz"), "E01");
  assert_int_equal(s->fake.mem[0], '}');
  assert_string_equal(exchange(s, "M1000,2:be"), "E01");
  assert_string_equal(exchange(s, "M5000,1:00"), "E01");
}

static void test_siginfo(void **state) {
  struct session *s = *state;
  for (int i = 0; i < 128; i++)
    s->fake.siginfo[i] = (uint8_t)(i % 32 + 0x40); /* no bytes that need escaping */
  const char *r = exchange(s, "qXfer:siginfo:read::0,1000");
  assert_int_equal(strlen(r), 129);
  assert_int_equal(r[0], 'l');
  assert_int_equal(r[1], 0x40);
  char pkt[64] = "qXfer:siginfo:write::0:";
  strcat(pkt, "ABCD");
  assert_string_equal(exchange(s, pkt), "4");
  assert_int_equal(s->fake.siginfo_writes, 1);
  assert_memory_equal(s->fake.siginfo, "ABCD", 4);
}

/* Hex of a path, as vFile packets carry it. */
static const char *hex_path(const char *path) {
  static char hex[256];
  for (size_t i = 0; path[i]; i++)
    snprintf(hex + 2 * i, 3, "%02x", (unsigned char)path[i]);
  return hex;
}

static void test_vfile(void **state) {
  struct session *s = *state;
  char pkt[512];
  assert_string_equal(exchange(s, "vFile:setfs:64"), "F0");
  snprintf(pkt, sizeof pkt, "vFile:open:%s,0,0", hex_path("/lib/x.so"));
  assert_string_equal(exchange(s, pkt), "F0");
  assert_string_equal(exchange(s, "vFile:pread:0,8,0"), "F8;contents");
  assert_string_equal(exchange(s, "vFile:pread:0,100,c"), "F9;/lib/x.so");
  assert_string_equal(exchange(s, "vFile:pread:0,100,100"), "F0;");
  const char *r = exchange(s, "vFile:fstat:0");
  assert_int_equal(strncmp(r, "F40;", 4), 0);
  assert_string_equal(exchange(s, "vFile:close:0"), "F0");
  assert_string_equal(exchange(s, "vFile:close:0"), "F-1,9"); /* EBADF */
  assert_string_equal(exchange(s, "vFile:pread:0,8,0"), "F-1,9");
  snprintf(pkt, sizeof pkt, "vFile:open:%s,0,0", hex_path("/missing"));
  assert_string_equal(exchange(s, pkt), "F-1,2"); /* ENOENT */
  snprintf(pkt, sizeof pkt, "vFile:open:%s,1,0", hex_path("/lib/x.so"));
  assert_string_equal(exchange(s, pkt), "F-1,1e"); /* EROFS: nothing is written */
  snprintf(pkt, sizeof pkt, "vFile:readlink:%s", hex_path("/proc/100/exe"));
  assert_string_equal(exchange(s, pkt), "F9;/bin/true");
  assert_string_equal(exchange(s, "vFile:unlink:2f78"), "F-1,1e");
  assert_string_equal(exchange(s, "vFile:open:zz,0,0"), "F-1,16"); /* EINVAL */
}

#define SERVER_TEST(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void) {
  signal(SIGPIPE, SIG_IGN);
  const struct CMUnitTest tests[] = {
      SERVER_TEST(test_qsupported),
      SERVER_TEST(test_stop_query_and_threads),
      SERVER_TEST(test_registers),
      cmocka_unit_test(test_register_values_from_xsave),
      cmocka_unit_test(test_target_xml),
      SERVER_TEST(test_writes_refused),
      SERVER_TEST(test_memory),
      SERVER_TEST(test_breakpoints),
      SERVER_TEST(test_vcont),
      SERVER_TEST(test_stop_replies),
      SERVER_TEST(test_interrupt_during_resume),
      SERVER_TEST(test_qxfer),
      SERVER_TEST(test_monitor),
      SERVER_TEST(test_bad_checksum_then_retransmit),
      SERVER_TEST(test_overlong_packet_gets_error),
      SERVER_TEST(test_garbage_between_packets),
      SERVER_TEST(test_no_ack_mode),
      SERVER_TEST(test_multiprocess_thread_ids),
      SERVER_TEST(test_event_stops),
      SERVER_TEST(test_stop_filter),
      SERVER_TEST(test_writes_reach_target),
      SERVER_TEST(test_siginfo),
      SERVER_TEST(test_vfile),
      cmocka_unit_test_setup_teardown(test_detach_ends_session, setup, teardown_joined),
      cmocka_unit_test_setup_teardown(test_vkill_ends_session, setup, teardown_joined),
      cmocka_unit_test_setup_teardown(test_disconnect_ends_session, setup, teardown_joined),
      cmocka_unit_test(test_listen_picks_port),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
