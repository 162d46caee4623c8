/* Unit tests for the gdb remote protocol's packet layer (src/gdb/gdb_packet.c) and the
 * signal numbering (src/gdb/gdb_signal.c). The "gdb" side is the other end of a
 * socketpair, driven by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gdb/gdb_packet.h"
#include "gdb/gdb_signal.h"

struct pair {
  int server, gdb;
  struct gdb_conn conn;
};

static int setup(void **state) {
  struct pair *p = calloc(1, sizeof(*p));
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) {
    free(p);
    return -1;
  }
  p->server = fds[0];
  p->gdb = fds[1];
  gdb_conn_init(&p->conn, p->server);
  *state = p;
  return 0;
}

static int teardown(void **state) {
  struct pair *p = *state;
  close(p->server);
  if (p->gdb >= 0)
    close(p->gdb);
  free(p);
  return 0;
}

static void put(int fd, const char *s) { assert_int_equal(write(fd, s, strlen(s)), strlen(s)); }

/* Writes PAYLOAD framed with a correct checksum. */
static void put_packet(int fd, const char *payload) {
  char frame[512];
  snprintf(frame, sizeof(frame), "$%s#%02x", payload, gdb_checksum(payload, strlen(payload)));
  put(fd, frame);
}

static void expect_bytes(int fd, const char *want) {
  char got[512];
  size_t n = strlen(want), have = 0;
  while (have < n) {
    ssize_t r = read(fd, got + have, n - have);
    assert_true(r > 0);
    have += (size_t)r;
  }
  got[n] = '\0';
  assert_string_equal(got, want);
}

static void test_checksum(void **state) {
  (void)state;
  assert_int_equal(gdb_checksum("OK", 2), 0x9a);
  assert_int_equal(gdb_checksum("", 0), 0);
  assert_int_equal(gdb_checksum("qSupported", 10), 0x37);
}

static void test_send_framing_no_ack(void **state) {
  struct pair *p = *state;
  p->conn.no_ack = true;
  assert_int_equal(gdb_send_packet(&p->conn, "OK", 2), 0);
  expect_bytes(p->gdb, "$OK#9a");
  assert_int_equal(gdb_send_packet(&p->conn, "", 0), 0);
  expect_bytes(p->gdb, "$#00");
}

static void test_send_retransmits_on_nak(void **state) {
  struct pair *p = *state;
  put(p->gdb, "-+"); /* gdb rejects the first copy, accepts the second */
  assert_int_equal(gdb_send_packet(&p->conn, "OK", 2), 0);
  expect_bytes(p->gdb, "$OK#9a$OK#9a");
}

static void test_send_notes_interrupt_while_waiting_for_ack(void **state) {
  struct pair *p = *state;
  put(p->gdb, "\x03+");
  assert_int_equal(gdb_send_packet(&p->conn, "OK", 2), 0);
  assert_true(gdb_conn_poll_interrupt(&p->conn));
  assert_false(gdb_conn_poll_interrupt(&p->conn));
}

static void test_recv_acks_good_packet(void **state) {
  struct pair *p = *state;
  put_packet(p->gdb, "m1000,4");
  char buf[64];
  size_t len;
  assert_int_equal(gdb_recv_packet(&p->conn, buf, sizeof(buf), &len), GDB_RECV_PACKET);
  assert_string_equal(buf, "m1000,4");
  assert_int_equal(len, 7);
  expect_bytes(p->gdb, "+");
}

static void test_recv_bad_checksum_asks_for_retransmit(void **state) {
  struct pair *p = *state;
  put(p->gdb, "$g#00");
  put(p->gdb, "$g#zz");
  put_packet(p->gdb, "g");
  char buf[64];
  size_t len;
  assert_int_equal(gdb_recv_packet(&p->conn, buf, sizeof(buf), &len), GDB_RECV_PACKET);
  assert_string_equal(buf, "g");
  expect_bytes(p->gdb, "--+");
}

static void test_recv_skips_garbage_and_restarts_on_dollar(void **state) {
  struct pair *p = *state;
  put(p->gdb, "++-garbage\r\n$half");
  put_packet(p->gdb, "?");
  char buf[64];
  size_t len;
  assert_int_equal(gdb_recv_packet(&p->conn, buf, sizeof(buf), &len), GDB_RECV_PACKET);
  assert_string_equal(buf, "?");
}

static void test_recv_interrupt_byte(void **state) {
  struct pair *p = *state;
  put(p->gdb, "\x03");
  put_packet(p->gdb, "?");
  char buf[64];
  size_t len;
  assert_int_equal(gdb_recv_packet(&p->conn, buf, sizeof(buf), &len), GDB_RECV_INTERRUPT);
  assert_int_equal(gdb_recv_packet(&p->conn, buf, sizeof(buf), &len), GDB_RECV_PACKET);
  assert_string_equal(buf, "?");
}

static void test_recv_overlong_packet(void **state) {
  struct pair *p = *state;
  size_t n = 3 * GDB_PACKET_MAX;
  char *big = malloc(n + 8);
  memset(big, 'a', n);
  big[n] = '\0';
  char trailer[8];
  snprintf(trailer, sizeof(trailer), "#%02x", gdb_checksum(big, n));
  put(p->gdb, "$");
  put(p->gdb, big);
  put(p->gdb, trailer);
  put_packet(p->gdb, "g");
  char buf[GDB_PACKET_MAX + 1];
  size_t len;
  assert_int_equal(gdb_recv_packet(&p->conn, buf, sizeof(buf), &len), GDB_RECV_TOO_LONG);
  assert_int_equal(gdb_recv_packet(&p->conn, buf, sizeof(buf), &len), GDB_RECV_PACKET);
  assert_string_equal(buf, "g");
  free(big);
}

static void test_recv_eof(void **state) {
  struct pair *p = *state;
  put(p->gdb, "$incompl");
  close(p->gdb);
  p->gdb = -1;
  char buf[64];
  size_t len;
  assert_int_equal(gdb_recv_packet(&p->conn, buf, sizeof(buf), &len), GDB_RECV_EOF);
  assert_true(gdb_conn_poll_interrupt(&p->conn)); /* a hang-up stops the target too */
}

static void test_poll_interrupt(void **state) {
  struct pair *p = *state;
  assert_false(gdb_conn_poll_interrupt(&p->conn));
  put(p->gdb, "\x03");
  assert_true(gdb_conn_poll_interrupt(&p->conn));
  assert_false(gdb_conn_poll_interrupt(&p->conn));
  /* A packet that follows is left for gdb_recv_packet. */
  put_packet(p->gdb, "?");
  assert_false(gdb_conn_poll_interrupt(&p->conn));
  char buf[64];
  size_t len;
  assert_int_equal(gdb_recv_packet(&p->conn, buf, sizeof(buf), &len), GDB_RECV_PACKET);
}

static void test_escape_round_trip(void **state) {
  (void)state;
  uint8_t in[256], back[256];
  char out[512];
  for (int i = 0; i < 256; i++)
    in[i] = (uint8_t)i;
  size_t outlen;
  assert_int_equal(gdb_escape_binary(in, 256, out, sizeof(out), &outlen), 256);
  assert_int_equal(outlen, 256 + 4);
  for (size_t i = 0; i < outlen; i++) {
    assert_true(out[i] != '#' && out[i] != '$' && out[i] != '*');
    if (out[i] == '}')
      i++;
  }
  assert_int_equal(gdb_unescape_binary(out, outlen, back), 256);
  assert_memory_equal(in, back, 256);
  assert_int_equal(gdb_unescape_binary("ab}", 3, back), -1);
}

static void test_escape_never_splits_a_pair(void **state) {
  (void)state;
  char out[8];
  size_t outlen;
  /* "abc#": the escape of '#' needs 2 bytes, only 1 is left. */
  assert_int_equal(gdb_escape_binary("abc#", 4, out, 4, &outlen), 3);
  assert_int_equal(outlen, 3);
  assert_int_equal(gdb_escape_binary("}", 1, out, 2, &outlen), 1);
  assert_memory_equal(out, "}]", 2);
}

static void test_hex_helpers(void **state) {
  (void)state;
  const char *p = "1f,zz";
  uint64_t v;
  assert_true(gdb_parse_hex(&p, &v));
  assert_int_equal(v, 0x1f);
  assert_string_equal(p, ",zz");
  p = "zz";
  assert_false(gdb_parse_hex(&p, &v));
  p = "123456789abcdef01"; /* 17 digits: overflow */
  assert_false(gdb_parse_hex(&p, &v));
  p = "ffffffffffffffff";
  assert_true(gdb_parse_hex(&p, &v));
  assert_true(v == UINT64_MAX);
  uint8_t bytes[4];
  assert_int_equal(gdb_hex_decode("0aFFz1", bytes, 4), 2);
  assert_int_equal(bytes[0], 0x0a);
  assert_int_equal(bytes[1], 0xff);
  char hex[9];
  gdb_hex_encode("\x01\xab", 2, hex);
  assert_string_equal(hex, "01ab");
}

static void test_signal_numbers(void **state) {
  (void)state;
  assert_int_equal(gdb_signal_from_linux(0), 0);
  assert_int_equal(gdb_signal_from_linux(SIGINT), 2);
  assert_int_equal(gdb_signal_from_linux(SIGTRAP), 5);
  assert_int_equal(gdb_signal_from_linux(SIGSEGV), 11);
  assert_int_equal(gdb_signal_from_linux(SIGBUS), 10);
  assert_int_equal(gdb_signal_from_linux(SIGUSR1), 30);
  assert_int_equal(gdb_signal_from_linux(SIGUSR2), 31);
  assert_int_equal(gdb_signal_from_linux(SIGCHLD), 20);
  assert_int_equal(gdb_signal_from_linux(SIGSTOP), 17);
  assert_int_equal(gdb_signal_from_linux(SIGCONT), 19);
  assert_int_equal(gdb_signal_from_linux(SIGTSTP), 18);
  assert_int_equal(gdb_signal_from_linux(SIGURG), 16);
  assert_int_equal(gdb_signal_from_linux(SIGIO), 23);
  assert_int_equal(gdb_signal_from_linux(SIGPWR), 32);
  assert_int_equal(gdb_signal_from_linux(SIGSYS), 12);
  assert_int_equal(gdb_signal_from_linux(32), 77);
  assert_int_equal(gdb_signal_from_linux(34), 46);
  assert_int_equal(gdb_signal_from_linux(63), 75);
  assert_int_equal(gdb_signal_from_linux(64), 78);
  assert_int_equal(gdb_signal_from_linux(200), 143);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_checksum),
      cmocka_unit_test_setup_teardown(test_send_framing_no_ack, setup, teardown),
      cmocka_unit_test_setup_teardown(test_send_retransmits_on_nak, setup, teardown),
      cmocka_unit_test_setup_teardown(test_send_notes_interrupt_while_waiting_for_ack, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_recv_acks_good_packet, setup, teardown),
      cmocka_unit_test_setup_teardown(test_recv_bad_checksum_asks_for_retransmit, setup, teardown),
      cmocka_unit_test_setup_teardown(test_recv_skips_garbage_and_restarts_on_dollar, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_recv_interrupt_byte, setup, teardown),
      cmocka_unit_test_setup_teardown(test_recv_overlong_packet, setup, teardown),
      cmocka_unit_test_setup_teardown(test_recv_eof, setup, teardown),
      cmocka_unit_test_setup_teardown(test_poll_interrupt, setup, teardown),
      cmocka_unit_test(test_escape_round_trip),
      cmocka_unit_test(test_escape_never_splits_a_pair),
      cmocka_unit_test(test_hex_helpers),
      cmocka_unit_test(test_signal_numbers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
