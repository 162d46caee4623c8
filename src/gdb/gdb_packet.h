/* The gdb remote protocol's packet layer: $data#xx framing, +/- acknowledgements, the 0x03
 * interrupt byte, binary escaping and hex helpers. Knows nothing about commands. */
#ifndef DEJA_GDB_PACKET_H
#define DEJA_GDB_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The largest packet we accept and advertise (qSupported PacketSize). */
#define GDB_PACKET_MAX 0x4000

struct gdb_conn {
  int fd;
  bool no_ack;            /* after QStartNoAckMode: no +/- on either side */
  bool interrupt_pending; /* a 0x03 arrived that nobody has consumed yet */
  bool eof;               /* gdb closed the connection */
  uint8_t in[4096];       /* bytes received but not yet parsed */
  size_t in_start, in_end;
};

enum gdb_recv_status {
  GDB_RECV_PACKET,    /* a well-formed packet is in the buffer */
  GDB_RECV_TOO_LONG,  /* a packet longer than the buffer arrived (acked, content dropped) */
  GDB_RECV_INTERRUPT, /* a 0x03 byte outside a packet */
  GDB_RECV_EOF,       /* gdb disconnected */
  GDB_RECV_ERROR,     /* read/write failed (errno set) */
};

void gdb_conn_init(struct gdb_conn *c, int fd);

/* Waits for the next packet and writes its payload (NUL-terminated, still escaped) into
 * BUF of size MAX, length into *LEN. Acks it ('+'), or asks for a retransmission ('-')
 * when the checksum is wrong and keeps waiting. */
enum gdb_recv_status gdb_recv_packet(struct gdb_conn *c, char *buf, size_t max, size_t *len);

/* Frames and sends PAYLOAD (already escaped), then waits for gdb's '+' (retransmitting on
 * '-') unless acks are off. Returns 0, or -1 on I/O failure or disconnect. */
int gdb_send_packet(struct gdb_conn *c, const char *payload, size_t len);

/* Has gdb sent 0x03 (or hung up) since the last check? Never blocks; consumes the byte. */
bool gdb_conn_poll_interrupt(struct gdb_conn *c);

/* Sum of the bytes modulo 256, as the #xx trailer carries it. */
uint8_t gdb_checksum(const char *data, size_t len);

/* Escapes '#', '$', '}' and '*' as '}' followed by the byte xor 0x20. Writes at most OUTMAX
 * bytes; returns how many input bytes were consumed (all of them unless OUT filled up) and
 * the output length in *OUTLEN. */
size_t gdb_escape_binary(const void *in, size_t len, char *out, size_t outmax, size_t *outlen);

/* Undoes gdb_escape_binary: writes into OUT (room for at least LEN bytes) and
 * returns the decoded length, or -1 for a dangling '}'. */
long gdb_unescape_binary(const char *in, size_t len, void *out);

/* Lowercase hex of LEN bytes into OUT (2*LEN chars + NUL). */
void gdb_hex_encode(const void *in, size_t len, char *out);
/* Decodes up to MAX bytes of hex from IN (stops at the first non-hex pair); returns count. */
size_t gdb_hex_decode(const char *in, void *out, size_t max);
/* Parses a hex number at *P, advancing *P past it. Returns false when no digit is there or
 * it overflows 64 bits. */
bool gdb_parse_hex(const char **p, uint64_t *out);
int gdb_hex_digit(int ch);

#endif
