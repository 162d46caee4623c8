/* Fuzz target: gdb's host I/O requests (src/gdb/gdb_vfile.c: vFile:setfs, open, pread,
 * fstat, close, readlink, ...) against the in-memory target of fuzz_target.h. The first
 * input byte shapes the target (FT_* flags); the rest is a series of requests, one a line,
 * each what follows "vFile:" in a packet. The requests share one table of open files, as
 * in a session; when they are done every descriptor the target gave must be closed. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_target.h"
#include "fuzz_util.h"
#include "gdb/gdb_packet.h"
#include "gdb/gdb_strbuf.h"
#include "gdb/gdb_vfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  static struct ft f;
  struct gdb_target t;
  ft_init(&f, &t, data[0]);
  struct gdb_vfile v;
  gdb_vfile_init(&v);
  struct gdb_strbuf out;
  gdb_strbuf_init(&out);
  const uint8_t *p = data + 1, *end = data + size;
  while (p < end) {
    const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
    size_t len = (size_t)((nl ? nl : end) - p);
    if (len <= GDB_PACKET_MAX) {   /* the server never hands over a longer packet */
      char *req = malloc(len + 1); /* NUL-terminated, as in the server's buffer */
      memcpy(req, p, len);
      req[len] = '\0';
      gdb_strbuf_clear(&out);
      gdb_vfile_packet(&v, &t, req, len, &out);
      if (out.len && out.data[0] != 'F')
        fuzz_fail("a vFile reply that is not F...");
      if (out.len > GDB_PACKET_MAX)
        fuzz_fail("a vFile reply longer than a packet");
      free(req);
    }
    p += len + 1;
  }
  gdb_vfile_close_all(&v);
  gdb_strbuf_free(&out);
  ft_check_closed(&f);
  return 0;
}
