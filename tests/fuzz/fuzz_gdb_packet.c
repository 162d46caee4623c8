/* Fuzz target: the gdb remote protocol's packet layer (src/gdb/gdb_packet.c) reading
 * what a client sends: framing, checksums, acks, 0x03, over-long packets, and the
 * binary, hex and number decoders applied to every packet that arrives. The first input
 * byte chooses how the connection is used: 1 no acks, 2 a reply after each packet (it
 * waits for gdb's ack), 4 polling for an interrupt between packets, 8 a small receive
 * buffer; the rest is the byte stream, fed through a socketpair. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "gdb/gdb_packet.h"

#define MAX_PACKETS 10000

static volatile uint64_t sink;

/* What the server's commands do with a payload: unescape it (X, vFile), decode hex
 * (M, qRcmd, vFile paths), parse numbers (everywhere). */
static void decode_payload(const char *buf, size_t len) {
  uint8_t *bin = malloc(len ? len : 1); /* gdb_unescape_binary needs room for LEN bytes */
  long n = gdb_unescape_binary(buf, len, bin);
  if (n > (long)len)
    fuzz_fail("unescaping made more bytes than it read");
  if (n >= 0) { /* escaping the bytes again must give them back */
    char *esc = malloc(2 * (size_t)n + 1);
    size_t esc_len;
    if (gdb_escape_binary(bin, (size_t)n, esc, 2 * (size_t)n, &esc_len) != (size_t)n)
      fuzz_fail("escaping stopped short with room for every byte");
    uint8_t *back = malloc(esc_len ? esc_len : 1);
    if (gdb_unescape_binary(esc, esc_len, back) != n || memcmp(back, bin, (size_t)n) != 0)
      fuzz_fail("escaped bytes do not unescape to themselves");
    if (gdb_checksum(esc, esc_len) == 0)
      sink++;
    free(back);
    free(esc);
  }
  size_t hex = gdb_hex_decode(buf, bin, len / 2);
  if (hex > len / 2)
    fuzz_fail("hex decoding wrote past its maximum");
  char *enc = malloc(2 * hex + 1);
  gdb_hex_encode(bin, hex, enc);
  if (strncasecmp(enc, buf, 2 * hex) != 0)
    fuzz_fail("hex does not encode back to itself");
  free(enc);
  free(bin);
  for (const char *p = buf; *p; p++) { /* numbers wherever they start */
    const char *q = p;
    uint64_t v;
    if (gdb_parse_hex(&q, &v)) {
      if (q <= p)
        fuzz_fail("gdb_parse_hex took a number without moving");
      sink += v;
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  unsigned flags = data[0];
  struct fuzz_peer peer;
  int fd = fuzz_peer_start(&peer, data + 1, size - 1);
  if (fd < 0)
    return 0;
  struct gdb_conn conn;
  gdb_conn_init(&conn, fd);
  conn.no_ack = flags & 1;
  static char buf[GDB_PACKET_MAX + 1];
  size_t max = flags & 8 ? 17 : sizeof buf;
  for (int i = 0; i < MAX_PACKETS; i++) {
    size_t len = 0;
    enum gdb_recv_status st = gdb_recv_packet(&conn, buf, max, &len);
    if (st == GDB_RECV_EOF || st == GDB_RECV_ERROR)
      break;
    if (st == GDB_RECV_INTERRUPT)
      continue;
    if (len >= max || buf[len] != 0)
      fuzz_fail("a packet longer than the buffer, or not NUL-terminated");
    decode_payload(buf, len);
    if ((flags & 2) && gdb_send_packet(&conn, buf, len) != 0)
      break;
    if ((flags & 4) && gdb_conn_poll_interrupt(&conn))
      sink++;
  }
  fuzz_peer_finish(&peer);
  return 0;
}
