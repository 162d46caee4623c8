/* The gdb remote protocol's packet layer (see gdb_packet.h). */
#include "gdb/gdb_packet.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* How often we resend one packet that gdb keeps rejecting before giving up. */
#define GDB_MAX_RETRANSMITS 16

void gdb_conn_init(struct gdb_conn *c, int fd) {
  memset(c, 0, sizeof(*c));
  c->fd = fd;
}

/* Reads more bytes into the input buffer. Returns >0, 0 at EOF, -1 on error. */
static ssize_t fill(struct gdb_conn *c) {
  if (c->in_start == c->in_end) {
    c->in_start = c->in_end = 0;
  } else if (c->in_end == sizeof(c->in)) {
    memmove(c->in, c->in + c->in_start, c->in_end - c->in_start);
    c->in_end -= c->in_start;
    c->in_start = 0;
  }
  for (;;) {
    ssize_t n = read(c->fd, c->in + c->in_end, sizeof(c->in) - c->in_end);
    if (n < 0 && errno == EINTR)
      continue;
    if (n == 0)
      c->eof = true;
    if (n > 0)
      c->in_end += (size_t)n;
    return n;
  }
}

/* The next input byte, or -1 at EOF, -2 on error. */
static int next_byte(struct gdb_conn *c) {
  if (c->in_start == c->in_end) {
    ssize_t n = fill(c);
    if (n == 0)
      return -1;
    if (n < 0)
      return -2;
  }
  return c->in[c->in_start++];
}

static int write_all(int fd, const void *data, size_t len) {
  const char *p = data;
  while (len > 0) {
    ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
    if (n < 0 && errno == ENOTSOCK)
      n = write(fd, p, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return -1;
    p += n;
    len -= (size_t)n;
  }
  return 0;
}

uint8_t gdb_checksum(const char *data, size_t len) {
  uint8_t sum = 0;
  for (size_t i = 0; i < len; i++)
    sum = (uint8_t)(sum + (uint8_t)data[i]);
  return sum;
}

int gdb_hex_digit(int ch) {
  if (ch >= '0' && ch <= '9')
    return ch - '0';
  if (ch >= 'a' && ch <= 'f')
    return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F')
    return ch - 'A' + 10;
  return -1;
}

enum gdb_recv_status gdb_recv_packet(struct gdb_conn *c, char *buf, size_t max, size_t *len) {
  for (;;) {
    int ch = next_byte(c);
    if (ch == -1)
      return GDB_RECV_EOF;
    if (ch == -2)
      return GDB_RECV_ERROR;
    if (ch == 0x03)
      return GDB_RECV_INTERRUPT;
    if (ch != '$')
      continue; /* stray acks and garbage between packets */

    size_t n = 0;
    bool too_long = false;
    uint8_t sum = 0;
    for (;;) {
      ch = next_byte(c);
      if (ch < 0)
        return ch == -1 ? GDB_RECV_EOF : GDB_RECV_ERROR;
      if (ch == '#')
        break;
      if (ch == '$') { /* a new start: what came before was garbage */
        n = 0;
        sum = 0;
        too_long = false;
        continue;
      }
      sum = (uint8_t)(sum + ch);
      if (n + 1 < max)
        buf[n++] = (char)ch;
      else
        too_long = true;
    }
    int hi = next_byte(c);
    int lo = hi < 0 ? hi : next_byte(c);
    if (lo < 0)
      return lo == -1 ? GDB_RECV_EOF : GDB_RECV_ERROR;
    bool ok = gdb_hex_digit(hi) >= 0 && gdb_hex_digit(lo) >= 0 &&
              (uint8_t)(gdb_hex_digit(hi) * 16 + gdb_hex_digit(lo)) == sum;
    if (!ok) {
      /* Ask for a retransmission; without acks there is nobody to ask, so drop it. */
      if (!c->no_ack && write_all(c->fd, "-", 1) < 0)
        return GDB_RECV_ERROR;
      continue;
    }
    if (!c->no_ack && write_all(c->fd, "+", 1) < 0)
      return GDB_RECV_ERROR;
    if (max > 0)
      buf[n] = '\0';
    *len = n;
    return too_long ? GDB_RECV_TOO_LONG : GDB_RECV_PACKET;
  }
}

int gdb_send_packet(struct gdb_conn *c, const char *payload, size_t len) {
  char *frame = malloc(len + 4);
  if (!frame)
    return -1;
  frame[0] = '$';
  memcpy(frame + 1, payload, len);
  static const char hex[] = "0123456789abcdef";
  uint8_t sum = gdb_checksum(payload, len);
  frame[len + 1] = '#';
  frame[len + 2] = hex[sum >> 4];
  frame[len + 3] = hex[sum & 15];

  int rc = -1;
  for (int tries = 0; tries < GDB_MAX_RETRANSMITS; tries++) {
    if (write_all(c->fd, frame, len + 4) < 0)
      break;
    if (c->no_ack) {
      rc = 0;
      break;
    }
    int ch;
    do {
      ch = next_byte(c);
      if (ch == 0x03)
        c->interrupt_pending = true;
      if (ch == '$') {
        /* gdb went on to its next packet: take that as the ack and keep the byte. */
        c->in_start--;
        ch = '+';
      }
    } while (ch >= 0 && ch != '+' && ch != '-');
    if (ch < 0)
      break;
    if (ch == '+') {
      rc = 0;
      break;
    }
  }
  free(frame);
  return rc;
}

bool gdb_conn_poll_interrupt(struct gdb_conn *c) {
  for (;;) {
    if (c->interrupt_pending) {
      c->interrupt_pending = false;
      return true;
    }
    if (c->eof)
      return true;
    /* Look at what is buffered before the next packet; leave packets alone. */
    while (c->in_start < c->in_end) {
      uint8_t b = c->in[c->in_start];
      if (b == 0x03) {
        c->in_start++;
        return true;
      }
      if (b != '+' && b != '-')
        return false;
      c->in_start++;
    }
    struct pollfd pfd = {.fd = c->fd, .events = POLLIN};
    if (poll(&pfd, 1, 0) <= 0)
      return false;
    if (fill(c) < 0)
      return false;
  }
}

size_t gdb_escape_binary(const void *in, size_t len, char *out, size_t outmax, size_t *outlen) {
  const uint8_t *p = in;
  size_t i = 0, o = 0;
  for (; i < len; i++) {
    uint8_t b = p[i];
    bool special = b == '#' || b == '$' || b == '}' || b == '*';
    size_t need = special ? 2 : 1;
    if (o + need > outmax)
      break;
    if (special) {
      out[o++] = '}';
      out[o++] = (char)(b ^ 0x20);
    } else {
      out[o++] = (char)b;
    }
  }
  *outlen = o;
  return i;
}

long gdb_unescape_binary(const char *in, size_t len, void *out) {
  uint8_t *o = out;
  size_t n = 0;
  for (size_t i = 0; i < len; i++) {
    if (in[i] == '}') {
      if (++i == len)
        return -1;
      o[n++] = (uint8_t)(in[i] ^ 0x20);
    } else {
      o[n++] = (uint8_t)in[i];
    }
  }
  return (long)n;
}

void gdb_hex_encode(const void *in, size_t len, char *out) {
  static const char hex[] = "0123456789abcdef";
  const uint8_t *p = in;
  for (size_t i = 0; i < len; i++) {
    out[2 * i] = hex[p[i] >> 4];
    out[2 * i + 1] = hex[p[i] & 15];
  }
  out[2 * len] = '\0';
}

size_t gdb_hex_decode(const char *in, void *out, size_t max) {
  uint8_t *o = out;
  size_t n = 0;
  while (n < max) {
    int hi = gdb_hex_digit((unsigned char)in[2 * n]);
    int lo = hi < 0 ? -1 : gdb_hex_digit((unsigned char)in[2 * n + 1]);
    if (lo < 0)
      break;
    o[n++] = (uint8_t)(hi * 16 + lo);
  }
  return n;
}

bool gdb_parse_hex(const char **p, uint64_t *out) {
  const char *s = *p;
  uint64_t v = 0;
  int d;
  if (gdb_hex_digit((unsigned char)*s) < 0)
    return false;
  while ((d = gdb_hex_digit((unsigned char)*s)) >= 0) {
    if (v >> 60)
      return false;
    v = v * 16 + (uint64_t)d;
    s++;
  }
  *p = s;
  *out = v;
  return true;
}
