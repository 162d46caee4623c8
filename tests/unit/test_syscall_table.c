/* Tests for the system call table and the written-region computation. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>

#include "syscalls/syscall_table.h"

#define MAX_REGIONS 16

/* Fake tracee memory: addresses are real pointers into one local buffer, and reads
 * outside it fail like reads of unmapped tracee memory would. */
struct fake_mem {
  unsigned char *base;
  size_t len;
  int reads;
};

static int fake_read(void *ctx, uint64_t addr, void *buf, size_t len) {
  struct fake_mem *m = ctx;
  uint64_t lo = (uint64_t)(uintptr_t)m->base;
  m->reads++;
  if (addr < lo || addr + len > lo + m->len)
    return -1;
  memcpy(buf, (void *)(uintptr_t)addr, len);
  return 0;
}

/* A pointer as a system call argument (a macro: a function taking the address of an
 * uninitialised buffer trips -Wmaybe-uninitialized). */
#define PTR(p) ((uint64_t)(uintptr_t)(p))

static int regions(long nr, const uint64_t args[6], int64_t result, struct fake_mem *mem,
                   struct mem_region *out) {
  const struct syscall_desc *d = syscall_table_lookup(nr);
  assert_non_null(d);
  return syscall_written_regions(d, args, result, mem ? fake_read : NULL, mem, out, MAX_REGIONS);
}

static void assert_region(const struct mem_region *r, const void *addr, uint64_t len) {
  assert_int_equal(r->addr, PTR(addr));
  assert_int_equal(r->len, len);
}

static void test_lookup_by_number_and_name(void **state) {
  (void)state;
  const struct syscall_desc *d = syscall_table_lookup(SYS_read);
  assert_non_null(d);
  assert_string_equal(d->name, "read");
  assert_int_equal(d->nr, SYS_read);
  assert_int_equal(d->replay, SC_EMULATE);
  assert_int_equal(d->nargs, 3);

  assert_int_equal(d->hook, SCH_NONE);
  assert_int_equal(syscall_table_lookup(SYS_mmap)->replay, SC_EXECUTE_IF_OK);
  assert_int_equal(syscall_table_lookup(SYS_mmap)->hook, SCH_mmap);
  assert_int_equal(syscall_table_lookup(SYS_clone3)->hook, SCH_clone);
  assert_int_equal(syscall_table_lookup(SYS_exit_group)->replay, SC_EXECUTE);
  assert_int_equal(syscall_table_lookup(SYS_exit_group)->hook, SCH_exit);
  assert_int_equal(syscall_table_lookup(SYS_rt_sigaction)->replay, SC_EXECUTE);
  assert_int_equal(syscall_table_lookup(SYS_execve)->replay, SC_EMULATE);
  assert_int_equal(syscall_table_lookup(SYS_prctl)->replay, SC_EMULATE);
  assert_int_equal(syscall_table_lookup(400)->replay, SC_EMULATE); /* unassigned */
  assert_string_equal(syscall_table_lookup(400)->name, "syscall_400");
  assert_int_equal(syscall_table_lookup(SYS_set_robust_list)->replay, SC_EXECUTE);
  assert_int_equal(syscall_table_lookup(SYS_ptrace)->replay, SC_EMULATE);
  assert_int_equal(syscall_table_lookup(SYS_io_uring_setup)->hook, SCH_refuse);
  assert_int_equal(syscall_table_lookup(SYS_ioctl)->replay, SC_EMULATE);

  assert_int_equal(syscall_number("read"), SYS_read);
  assert_int_equal(syscall_number("openat"), SYS_openat);
  assert_int_equal(syscall_number("clone3"), SYS_clone3);
  assert_int_equal(syscall_number("rseq"), SYS_rseq);
  assert_int_equal(syscall_number("no_such_call"), -1);
  assert_string_equal(syscall_name(SYS_newfstatat), "newfstatat");
  assert_string_equal(syscall_name(SYS_epoll_pwait2), "epoll_pwait2");
}

static void test_every_number_has_an_entry(void **state) {
  (void)state;
  for (long nr = 0; nr <= SYS_set_mempolicy_home_node; nr++) {
    const struct syscall_desc *d = syscall_table_lookup(nr);
    assert_non_null(d);
    assert_non_null(d->name);
    assert_int_equal(d->nr, nr);
    assert_true(d->nargs <= 6);
    assert_int_equal(syscall_number(d->name), nr);
    for (int i = 0; i < SYSCALL_MAX_OUT; i++)
      assert_true(d->out[i].ptr_arg < 6 && d->out[i].size_arg < 6);
  }
}

static void test_unknown_numbers(void **state) {
  (void)state;
  assert_null(syscall_table_lookup(-1));
  assert_null(syscall_table_lookup(100000));
  assert_string_equal(syscall_name(100000), "syscall_100000");
  assert_int_equal(syscall_number("syscall_100000"), 100000);
}

static void test_read_writes_result_bytes(void **state) {
  (void)state;
  char buf[64];
  uint64_t args[6] = {3, PTR(buf), sizeof buf};
  struct mem_region out[MAX_REGIONS];
  assert_int_equal(regions(SYS_read, args, 10, NULL, out), 1);
  assert_region(&out[0], buf, 10);
  assert_int_equal(regions(SYS_read, args, 0, NULL, out), 0);
}

static void test_failing_calls_write_nothing(void **state) {
  (void)state;
  char buf[256];
  struct mem_region out[MAX_REGIONS];
  uint64_t read_args[6] = {3, PTR(buf), sizeof buf};
  assert_int_equal(regions(SYS_read, read_args, -EBADF, NULL, out), 0);
  uint64_t fstat_args[6] = {3, PTR(buf)};
  assert_int_equal(regions(SYS_fstat, fstat_args, -EBADF, NULL, out), 0);
  uint64_t sleep_args[6] = {PTR(buf), PTR(buf + 16)};
  assert_int_equal(regions(SYS_nanosleep, sleep_args, -EINVAL, NULL, out), 0);
  assert_int_equal(regions(SYS_nanosleep, sleep_args, 0, NULL, out), 0);
}

static void test_readv_spreads_result_over_iovecs(void **state) {
  (void)state;
  unsigned char mem[512];
  char *a = (char *)mem + 256, *b = (char *)mem + 300, *c = (char *)mem + 400;
  struct iovec iov[3] = {{a, 8}, {b, 20}, {c, 50}};
  memcpy(mem, iov, sizeof iov);
  struct fake_mem fm = {mem, sizeof mem, 0};
  uint64_t args[6] = {3, PTR(mem), 3};
  struct mem_region out[MAX_REGIONS];

  assert_int_equal(regions(SYS_readv, args, 15, &fm, out), 2);
  assert_region(&out[0], a, 8);
  assert_region(&out[1], b, 7);
  assert_int_equal(regions(SYS_readv, args, 78, &fm, out), 3);
  assert_region(&out[2], c, 50);
  /* An iovec array the reader cannot reach is an error, not silence. */
  uint64_t bad[6] = {3, PTR(mem) + 1000, 3};
  assert_int_equal(regions(SYS_readv, bad, 10, &fm, out), -2);
  /* Too many regions for the caller's array. */
  const struct syscall_desc *d = syscall_table_lookup(SYS_readv);
  assert_int_equal(syscall_written_regions(d, args, 78, fake_read, &fm, out, 2), -1);
}

static void test_recvmsg_regions(void **state) {
  (void)state;
  unsigned char mem[1024];
  unsigned char *name = mem + 200, *data = mem + 400, *control = mem + 800;
  struct iovec iov[2] = {{data, 16}, {data + 100, 100}};
  memcpy(mem + 100, iov, sizeof iov);
  struct msghdr m = {.msg_name = name,
                     .msg_namelen = 16,
                     .msg_iov = (void *)(mem + 100),
                     .msg_iovlen = 2,
                     .msg_control = control,
                     .msg_controllen = 24};
  memcpy(mem, &m, sizeof m);
  struct fake_mem fm = {mem, sizeof mem, 0};
  uint64_t args[6] = {3, PTR(mem), 0};
  struct mem_region out[MAX_REGIONS];

  assert_int_equal(regions(SYS_recvmsg, args, 20, &fm, out), 5);
  assert_region(&out[0], mem, sizeof(struct msghdr));
  assert_region(&out[1], name, 16);
  assert_region(&out[2], data, 16);
  assert_region(&out[3], data + 100, 4);
  assert_region(&out[4], control, 24);
  assert_int_equal(regions(SYS_recvmsg, args, -EAGAIN, &fm, out), 0);
}

static void test_fstat_and_statx(void **state) {
  (void)state;
  struct stat st;
  struct mem_region out[MAX_REGIONS];
  uint64_t args[6] = {3, PTR(&st)};
  assert_int_equal(regions(SYS_fstat, args, 0, NULL, out), 1);
  assert_region(&out[0], &st, 144);
  uint64_t at_args[6] = {3, PTR("x"), PTR(&st), 0};
  assert_int_equal(regions(SYS_newfstatat, at_args, 0, NULL, out), 1);
  assert_region(&out[0], &st, 144);
  char sx[256];
  uint64_t statx_args[6] = {3, PTR(""), 0, 0, PTR(sx)};
  assert_int_equal(regions(SYS_statx, statx_args, 0, NULL, out), 1);
  assert_region(&out[0], sx, 256);
}

static void test_getsockname_uses_length_after_call(void **state) {
  (void)state;
  unsigned char mem[256];
  socklen_t len = 16;
  memcpy(mem + 200, &len, sizeof len);
  struct fake_mem fm = {mem, sizeof mem, 0};
  uint64_t args[6] = {3, PTR(mem), PTR(mem + 200)};
  struct mem_region out[MAX_REGIONS];
  assert_int_equal(regions(SYS_getsockname, args, 0, &fm, out), 2);
  assert_region(&out[0], mem, 16);
  assert_region(&out[1], mem + 200, sizeof(socklen_t));
  /* No address buffer: the length word is not touched either. */
  uint64_t no_addr[6] = {3, 0, PTR(mem + 200)};
  assert_int_equal(regions(SYS_accept, no_addr, 5, &fm, out), 0);
}

static void test_poll_writes_whole_array(void **state) {
  (void)state;
  struct pollfd fds[3];
  uint64_t args[6] = {PTR(fds), 3, 100};
  struct mem_region out[MAX_REGIONS];
  assert_int_equal(regions(SYS_poll, args, 1, NULL, out), 1);
  assert_region(&out[0], fds, sizeof fds);
  assert_int_equal(regions(SYS_poll, args, 0, NULL, out), 1);
  assert_int_equal(regions(SYS_poll, args, -EINVAL, NULL, out), 0);
}

static void test_nanosleep_interrupted_writes_remaining(void **state) {
  (void)state;
  struct timespec req, rem;
  uint64_t args[6] = {PTR(&req), PTR(&rem)};
  struct mem_region out[MAX_REGIONS];
  assert_int_equal(regions(SYS_nanosleep, args, -EINTR, NULL, out), 1);
  assert_region(&out[0], &rem, sizeof rem);
  assert_int_equal(regions(SYS_nanosleep, args, -516 /* ERESTART_RESTARTBLOCK */, NULL, out), 1);
  uint64_t no_rem[6] = {PTR(&req), 0};
  assert_int_equal(regions(SYS_nanosleep, no_rem, -EINTR, NULL, out), 0);
  uint64_t clock_args[6] = {CLOCK_MONOTONIC, 0, PTR(&req), PTR(&rem)};
  assert_int_equal(regions(SYS_clock_nanosleep, clock_args, -EINTR, NULL, out), 1);
  assert_region(&out[0], &rem, sizeof rem);
}

static void test_ioctl_and_fixed_pairs(void **state) {
  (void)state;
  char buf[128];
  struct mem_region out[MAX_REGIONS];
  uint64_t tcgets[6] = {0, 0x5401 /* TCGETS */, PTR(buf)};
  assert_int_equal(regions(SYS_ioctl, tcgets, 0, NULL, out), 1);
  assert_region(&out[0], buf, 36);
  uint64_t winsz[6] = {0, 0x5413 /* TIOCGWINSZ */, PTR(buf)};
  assert_int_equal(regions(SYS_ioctl, winsz, 0, NULL, out), 1);
  assert_region(&out[0], buf, 8);
  uint64_t fionbio[6] = {0, 0x5421 /* FIONBIO */, PTR(buf)};
  assert_int_equal(regions(SYS_ioctl, fionbio, 0, NULL, out), 0);
  uint64_t ior[6] = {0, 0x80045430 /* TIOCGPTN: _IOR('T', 0x30, int) */, PTR(buf)};
  assert_int_equal(regions(SYS_ioctl, ior, 0, NULL, out), 1);
  assert_region(&out[0], buf, 4);

  uint64_t pipe_args[6] = {PTR(buf), 0};
  assert_int_equal(regions(SYS_pipe2, pipe_args, 0, NULL, out), 1);
  assert_region(&out[0], buf, 8);
  uint64_t ids[6] = {PTR(buf), PTR(buf + 4), PTR(buf + 8)};
  assert_int_equal(regions(SYS_getresuid, ids, 0, NULL, out), 3);
  uint64_t groups_probe[6] = {0, 0};
  assert_int_equal(regions(SYS_getgroups, groups_probe, 5, NULL, out), 0);
  uint64_t groups[6] = {32, PTR(buf)};
  assert_int_equal(regions(SYS_getgroups, groups, 5, NULL, out), 1);
  assert_region(&out[0], buf, 20);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lookup_by_number_and_name),
      cmocka_unit_test(test_every_number_has_an_entry),
      cmocka_unit_test(test_unknown_numbers),
      cmocka_unit_test(test_read_writes_result_bytes),
      cmocka_unit_test(test_failing_calls_write_nothing),
      cmocka_unit_test(test_readv_spreads_result_over_iovecs),
      cmocka_unit_test(test_recvmsg_regions),
      cmocka_unit_test(test_fstat_and_statx),
      cmocka_unit_test(test_getsockname_uses_length_after_call),
      cmocka_unit_test(test_poll_writes_whole_array),
      cmocka_unit_test(test_nanosleep_interrupted_writes_remaining),
      cmocka_unit_test(test_ioctl_and_fixed_pairs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
