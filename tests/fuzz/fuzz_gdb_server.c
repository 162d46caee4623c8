/* Fuzz target: the gdb remote protocol server (src/gdb/gdb_server.c, and below it
 * gdb_packet.c, gdb_regs.c, gdb_agent.c, gdb_vfile.c) serving a whole session against an
 * in-memory target (fuzz_target.h). The first input byte shapes the target (FT_* flags);
 * the rest is what a client sends, byte for byte as gdb does ('+' acks included; the seed
 * corpus is real gdb sessions). With FT_CHECKSUMS the harness first makes the checksum
 * of every "$...#xx" right, so that mutated packets reach the commands; without it the
 * bytes are sent as they are. The session must end (EOF, k, D) and leave no descriptor
 * of the target's open. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_target.h"
#include "fuzz_util.h"
#include "gdb/gdb_packet.h"
#include "gdb/gdb_target.h"

static char hex_digit(unsigned v) { return "0123456789abcdef"[v & 15]; }

/* Rewrites the two digits after each packet's '#' as the server will sum the packet. */
static void fix_checksums(uint8_t *s, size_t size) {
  size_t start = 0;
  bool in_packet = false;
  for (size_t i = 0; i < size; i++) {
    if (s[i] == '$') {
      in_packet = true;
      start = i + 1;
    } else if (s[i] == '#' && in_packet) {
      uint8_t sum = gdb_checksum((const char *)s + start, i - start);
      if (i + 1 < size)
        s[i + 1] = (uint8_t)hex_digit(sum >> 4);
      if (i + 2 < size)
        s[i + 2] = (uint8_t)hex_digit(sum);
      in_packet = false;
      i += 2;
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  fuzz_quiet();
  unsigned flags = data[0];
  uint8_t *stream = malloc(size);
  memcpy(stream, data + 1, size - 1);
  if (flags & FT_CHECKSUMS)
    fix_checksums(stream, size - 1);
  static struct ft f;
  struct gdb_target t;
  ft_init(&f, &t, flags);
  struct fuzz_peer peer;
  int fd = fuzz_peer_start(&peer, stream, size - 1);
  if (fd >= 0) {
    (void)gdb_serve(fd, &t);
    fuzz_peer_finish(&peer);
  }
  ft_check_closed(&f);
  free(stream);
  return 0;
}
