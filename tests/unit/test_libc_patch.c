/* Unit tests for whether a replayed process patched its libc yet
 * (src/replay/engine/libc_patch.c): the patcher's mprotect rwx then r-x of the same address
 * marks every task of its process done; other calls and other processes do not. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "replay/engine/libc_patch.h"
#include "replay/engine/replay_engine.h"

static struct event call(long nr, uint64_t addr, uint64_t len, uint64_t prot) {
  struct event ev;
  memset(&ev, 0, sizeof ev);
  ev.regs.orig_rax = (uint64_t)nr;
  ev.regs.rdi = addr;
  ev.regs.rsi = len;
  ev.regs.rdx = prot;
  return ev;
}

static void test_sequence(void **state) {
  (void)state;
  struct rptask a = {.rec_pid = 10, .rec_tid = 10}, b = {.rec_pid = 10, .rec_tid = 11},
                other = {.rec_pid = 20, .rec_tid = 20};
  struct rptask *tasks[] = {&a, &b, &other};
  const uint64_t text = 0x7f0000001000;
  struct event ev = call(SYS_mprotect, 0x7f0000900000, 0x1000, PROT_READ | PROT_EXEC);
  libc_patch_note_call(tasks, 3, &a, &ev); /* the trampolines: not yet */
  assert_int_equal(a.libc_patch, LIBC_PATCH_AHEAD);
  ev = call(SYS_mprotect, text, 0x100000, PROT_READ | PROT_WRITE | PROT_EXEC);
  libc_patch_note_call(tasks, 3, &a, &ev);
  assert_int_equal(a.libc_patch, LIBC_PATCH_WRITING);
  assert_int_equal(b.libc_patch, LIBC_PATCH_WRITING);
  ev = call(SYS_mprotect, text + 0x1000, 0x1000, PROT_READ | PROT_EXEC); /* elsewhere */
  libc_patch_note_call(tasks, 3, &b, &ev);
  assert_int_equal(a.libc_patch, LIBC_PATCH_WRITING);
  ev = call(SYS_mmap, text, 0x100000, PROT_READ | PROT_EXEC);
  libc_patch_note_call(tasks, 3, &a, &ev);
  assert_int_equal(a.libc_patch, LIBC_PATCH_WRITING);
  ev = call(SYS_mprotect, text, 0x100000, PROT_READ | PROT_EXEC);
  libc_patch_note_call(tasks, 3, &a, &ev);
  assert_int_equal(a.libc_patch, LIBC_PATCH_DONE);
  assert_int_equal(b.libc_patch, LIBC_PATCH_DONE);
  assert_int_equal(other.libc_patch, LIBC_PATCH_AHEAD);
  ev = call(SYS_mprotect, text, 0x100000, PROT_READ | PROT_WRITE | PROT_EXEC);
  libc_patch_note_call(tasks, 3, &a, &ev); /* done stays done (a JIT's rwx) */
  assert_int_equal(a.libc_patch, LIBC_PATCH_DONE);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_sequence)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
