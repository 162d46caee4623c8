/* Reading framed, compressed, checksummed record streams (trace_stream.h, which describes
 * the layout): the header and seal checked, each chunk verified and decompressed, records
 * split across chunks put together, positions told and sought. */
#include "trace/trace_stream.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "common/log.h"
#include "trace/trace_buf.h"
#include "trace/trace_stream_format.h"

struct trace_reader {
  int fd;
  char *path;
  char *writer_version;
  uint64_t file_size;  /* at open time */
  uint64_t offset;     /* file offset of the next chunk */
  uint64_t chunk_at;   /* file offset of the loaded chunk */
  uint32_t chunk_nrec; /* records in the loaded chunk */
  struct tbuf compressed;
  struct tbuf raw;       /* the current chunk's records */
  size_t raw_pos;        /* next record in raw */
  uint32_t records_left; /* in the current chunk */
  struct tbuf assembled; /* a record split across chunks, put together */
  bool assembling;       /* its last fragment is still to come */
  ZSTD_DCtx *dctx;
  enum { READING, ENDED, FAILED } state;
  bool complete;
  char err[ERR_LEN];
};

/* Reads up to N bytes; returns how many were read (less at end of file) or -1. */
static ssize_t read_full(int fd, void *buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = read(fd, (uint8_t *)buf + got, n - got);
    if (r < 0) {
      if (errno == EINTR)
        continue;
      return -1;
    }
    if (r == 0)
      break;
    got += (size_t)r;
  }
  return (ssize_t)got;
}

static int reader_fail(struct trace_reader *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int reader_fail(struct trace_reader *r, const char *fmt, ...) {
  int n = snprintf(r->err, sizeof r->err, "%s: ", r->path);
  if (n < 0 || (size_t)n >= sizeof r->err)
    n = 0;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->err + n, sizeof r->err - (size_t)n, fmt, ap);
  va_end(ap);
  r->state = FAILED;
  return -1;
}

static void reader_free(struct trace_reader *r) {
  if (r->fd >= 0)
    close(r->fd);
  tbuf_free(&r->compressed);
  tbuf_free(&r->raw);
  tbuf_free(&r->assembled);
  ZSTD_freeDCtx(r->dctx);
  free(r->writer_version);
  free(r->path);
  free(r);
}

/* Copies the writer's version string, replacing anything unprintable. */
static char *printable_copy(const uint8_t *p, size_t n) {
  char *s = xmalloc(n + 1);
  for (size_t i = 0; i < n; i++)
    s[i] = (p[i] >= 0x20 && p[i] < 0x7f) ? (char)p[i] : '?';
  s[n] = '\0';
  return s;
}

/* Checks the seal after the header: a closed file's length must be the one its writer
 * wrote (a file cut at a chunk boundary would otherwise read like a killed writer's). */
static int read_seal(struct trace_reader *r) {
  uint8_t seal[SEAL_LEN];
  ssize_t got = read_full(r->fd, seal, sizeof seal);
  if (got < 0)
    return reader_fail(r, "cannot read trace header: %s", strerror(errno));
  if ((size_t)got < sizeof seal)
    return reader_fail(r,
                       "truncated at byte %llu (file header incomplete): the trace was cut "
                       "short",
                       (unsigned long long)(r->offset + (uint64_t)got));
  uint64_t length = get_u64(seal), hash = get_u64(seal + 8);
  r->offset += sizeof seal;
  if (length == 0 && hash == 0)
    return 0; /* not sealed: the writer did not close it (killed) */
  if (XXH64(seal, 8, SEAL_HASH_SEED) != hash)
    return reader_fail(r, "file header is corrupt (bad seal)");
  if (length > r->file_size)
    return reader_fail(r,
                       "truncated: %llu bytes where the recording wrote %llu; the trace was "
                       "cut short (copied or saved incompletely?)",
                       (unsigned long long)r->file_size, (unsigned long long)length);
  if (length < r->file_size)
    return reader_fail(r,
                       "%llu bytes where the recording wrote %llu: data was appended after "
                       "the end; the trace is corrupt",
                       (unsigned long long)r->file_size, (unsigned long long)length);
  return 0;
}

/* Reads and checks the file header; on failure fills r->err and returns -1. */
static int read_file_header(struct trace_reader *r, uint32_t expected_kind) {
  uint8_t fixed[FILE_MAGIC_LEN + 12];
  ssize_t got = read_full(r->fd, fixed, sizeof fixed);
  if (got < 0)
    return reader_fail(r, "cannot read trace header: %s", strerror(errno));
  size_t magic_got = (size_t)got < FILE_MAGIC_LEN ? (size_t)got : FILE_MAGIC_LEN;
  if (memcmp(fixed, FILE_MAGIC, magic_got) != 0)
    return reader_fail(r, "not a deja trace file (bad magic at byte 0)");
  if ((size_t)got < sizeof fixed)
    return reader_fail(r,
                       "truncated at byte %zd (file header incomplete): the trace was cut "
                       "short",
                       got);
  uint32_t version = get_u32(fixed + FILE_MAGIC_LEN);
  uint32_t kind = get_u32(fixed + FILE_MAGIC_LEN + 4);
  uint32_t vlen = get_u32(fixed + FILE_MAGIC_LEN + 8);

  /* The rest of the header, read as version 1 lays it out. */
  uint8_t rest[WRITER_VERSION_MAX + 8];
  bool layout_ok = vlen <= WRITER_VERSION_MAX;
  ssize_t rest_got = 0;
  if (layout_ok) {
    rest_got = read_full(r->fd, rest, vlen + 8);
    if (rest_got < 0)
      return reader_fail(r, "cannot read trace header: %s", strerror(errno));
  }
  bool checksum_ok = false;
  if (layout_ok && (size_t)rest_got == vlen + 8) {
    checksum_ok = checksum_two(fixed, sizeof fixed, rest, vlen) == get_u64(rest + vlen);
  }

  if (version != TRACE_FORMAT_VERSION) {
    const char *what = version > TRACE_FORMAT_VERSION
                           ? "a newer format: read it with a newer deja (the one that wrote it)"
                           : "an older format: read it with the deja that wrote it";
    if (checksum_ok) {
      char *v = printable_copy(rest, vlen);
      reader_fail(r,
                  "trace format version %u (written by deja %s), %s; this deja (%s) reads "
                  "version %u",
                  version, v, what, DEJA_VERSION, TRACE_FORMAT_VERSION);
      free(v);
      return -1;
    }
    return reader_fail(r,
                       "trace format version %u, %s, or a corrupt header (its checksum does "
                       "not match); this deja (%s) reads version %u",
                       version, what, DEJA_VERSION, TRACE_FORMAT_VERSION);
  }
  if (!layout_ok)
    return reader_fail(r, "file header is corrupt (writer version length %u)", vlen);
  if ((size_t)rest_got < vlen + 8)
    return reader_fail(r,
                       "truncated at byte %zu (file header incomplete): the trace was cut "
                       "short",
                       sizeof fixed + (size_t)rest_got);
  if (!checksum_ok)
    return reader_fail(r, "file header is corrupt (checksum mismatch)");
  if (kind != expected_kind)
    return reader_fail(r,
                       "holds a stream of kind %u where kind %u was expected: is this the "
                       "right file of the trace directory?",
                       kind, expected_kind);
  r->writer_version = printable_copy(rest, vlen);
  r->offset = sizeof fixed + vlen + 8;
  return read_seal(r);
}

struct trace_reader *trace_reader_open(const char *path, uint32_t expected_kind, char *err,
                                       size_t errlen) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    seterr(err, errlen, "%s: cannot open trace file: %s", path, strerror(e));
    errno = e;
    return NULL;
  }
  struct stat st;
  if (fstat(fd, &st) < 0) {
    int e = errno;
    seterr(err, errlen, "%s: cannot stat trace file: %s", path, strerror(e));
    close(fd);
    errno = e;
    return NULL;
  }
  if (!S_ISREG(st.st_mode)) {
    seterr(err, errlen, "%s: not a regular file, so not a trace file", path);
    close(fd);
    errno = EINVAL;
    return NULL;
  }
  struct trace_reader *r = xmalloc(sizeof *r);
  memset(r, 0, sizeof *r);
  r->fd = fd;
  r->path = xstrdup(path);
  r->file_size = (uint64_t)st.st_size;
  tbuf_init(&r->compressed);
  tbuf_init(&r->raw);
  tbuf_init(&r->assembled);
  r->dctx = ZSTD_createDCtx();
  if (!r->dctx) {
    deja_msg("out of memory (creating a zstd decompression context)");
    abort();
  }
  r->state = READING;
  if (read_file_header(r, expected_kind) < 0) {
    seterr(err, errlen, "%s", r->err);
    reader_free(r);
    errno = EINVAL;
    return NULL;
  }
  return r;
}

/* Checks that the raw payload holds exactly NREC well-formed records; only the last may
 * continue in the next chunk. */
static bool records_fit(const uint8_t *raw, size_t raw_len, uint32_t nrec) {
  size_t pos = 0;
  for (uint32_t i = 0; i < nrec; i++) {
    if (raw_len - pos < 4)
      return false;
    uint32_t hdr = get_u32(raw + pos), len = hdr & FRAG_LEN_MASK;
    if ((hdr & FRAG_CONTINUES) && ((hdr & FRAG_CANCELLED) || i + 1 < nrec))
      return false;
    pos += 4;
    if (raw_len - pos < len)
      return false;
    pos += len;
  }
  return pos == raw_len;
}

/* Checks nothing follows the end marker. */
static int check_after_end(struct trace_reader *r) {
  uint8_t extra;
  ssize_t got = read_full(r->fd, &extra, 1);
  if (got < 0)
    return reader_fail(r, "read failed at byte %llu: %s", (unsigned long long)r->offset,
                       strerror(errno));
  if (got > 0)
    return reader_fail(r,
                       "unexpected data at byte %llu after the end marker: the trace is "
                       "corrupt",
                       (unsigned long long)r->offset);
  return 0;
}

/* Reads, verifies and decompresses the next chunk. Returns 1 with records loaded, 0 at
 * the end of the stream, -1 on error. */
static int load_chunk(struct trace_reader *r) {
  unsigned long long at = (unsigned long long)r->offset;
  uint8_t hdr[CHUNK_HEADER_LEN];
  ssize_t got = read_full(r->fd, hdr, sizeof hdr);
  if (got < 0)
    return reader_fail(r, "read failed at byte %llu: %s", at, strerror(errno));
  if (got == 0) { /* clean end without the marker: the writer was killed */
    r->complete = false;
    r->state = ENDED;
    return 0;
  }
  if ((size_t)got < sizeof hdr)
    return reader_fail(r,
                       "truncated at byte %llu (chunk header incomplete): the trace was cut "
                       "short",
                       at);
  if (get_u32(hdr) != CHUNK_MAGIC)
    return reader_fail(r, "chunk at byte %llu is corrupt (bad chunk magic)", at);
  uint32_t csize = get_u32(hdr + 4);
  uint32_t rsize = get_u32(hdr + 8);
  uint32_t nrec = get_u32(hdr + 12);
  uint64_t sum = get_u64(hdr + 16);
  /* A zstd frame never exceeds ZSTD_compressBound(raw size): this also tells a damaged
   * size field from a file that was cut short. */
  if (rsize > CHUNK_MAX_RAW || csize > ZSTD_compressBound(rsize) || nrec > rsize / 4 ||
      (csize == 0) != (rsize == 0))
    return reader_fail(r,
                       "chunk at byte %llu is corrupt (impossible sizes: %u compressed, %u "
                       "raw, %u records)",
                       at, csize, rsize, nrec);
  if (r->offset + sizeof hdr + csize > r->file_size)
    return reader_fail(r,
                       "truncated at byte %llu (chunk data incomplete): the trace was cut "
                       "short",
                       at);
  tbuf_reset(&r->compressed);
  uint8_t *cdata = tbuf_grow(&r->compressed, csize);
  got = read_full(r->fd, cdata, csize);
  if (got < 0)
    return reader_fail(r, "read failed at byte %llu: %s", at, strerror(errno));
  if ((size_t)got < csize)
    return reader_fail(r,
                       "truncated at byte %llu (chunk data incomplete): the trace was cut "
                       "short",
                       at);
  if (checksum_two(hdr, 16, cdata, csize) != sum)
    return reader_fail(r, "chunk at byte %llu is corrupt (checksum mismatch)", at);
  r->offset += sizeof hdr + csize;

  if (rsize == 0) {
    if (nrec != 0)
      return reader_fail(r, "chunk at byte %llu is corrupt (records in an empty chunk)", at);
    if (r->assembling)
      return reader_fail(r, "end marker at byte %llu cuts a record short: the trace is corrupt",
                         at);
    if (check_after_end(r) < 0)
      return -1;
    r->complete = true;
    r->state = ENDED;
    return 0;
  }

  tbuf_reset(&r->raw);
  uint8_t *raw = tbuf_grow(&r->raw, rsize);
  size_t n = ZSTD_decompressDCtx(r->dctx, raw, rsize, cdata, csize);
  if (ZSTD_isError(n))
    return reader_fail(r, "chunk at byte %llu is corrupt (zstd: %s)", at, ZSTD_getErrorName(n));
  if (n != rsize)
    return reader_fail(r,
                       "chunk at byte %llu is corrupt (decompressed to %zu bytes, header "
                       "says %u)",
                       at, n, rsize);
  if (!records_fit(raw, rsize, nrec))
    return reader_fail(r,
                       "chunk at byte %llu is corrupt (record lengths do not add up to %u "
                       "records in %u bytes)",
                       at, nrec, rsize);
  r->raw_pos = 0;
  r->records_left = nrec;
  r->chunk_at = at;
  r->chunk_nrec = nrec;
  return 1;
}

int trace_reader_next(struct trace_reader *r, const void **rec, size_t *len) {
  *rec = NULL;
  *len = 0;
  if (r->assembled.cap > CHUNK_MAX_RAW) { /* the last record was huge: give its memory back */
    tbuf_free(&r->assembled);
    tbuf_init(&r->assembled);
  }
  for (;;) {
    while (r->records_left == 0) {
      if (r->state == FAILED)
        return -1;
      if (r->state == ENDED) {
        r->assembling = false; /* a record the killed writer did not finish */
        return 0;
      }
      int rc = load_chunk(r);
      if (rc < 0)
        return rc;
    }
    /* records_fit() already checked every length in this chunk. */
    uint32_t hdr = get_u32(r->raw.data + r->raw_pos);
    uint32_t n = hdr & FRAG_LEN_MASK;
    const uint8_t *p = r->raw.data + r->raw_pos + 4;
    r->raw_pos += 4 + (size_t)n;
    r->records_left--;
    if (!r->assembling && !(hdr & (FRAG_CONTINUES | FRAG_CANCELLED))) {
      *rec = p;
      *len = n;
      return 1;
    }
    if (!r->assembling)
      tbuf_reset(&r->assembled);
    tbuf_put_bytes(&r->assembled, p, n);
    r->assembling = (hdr & FRAG_CONTINUES) != 0;
    if (r->assembling || (hdr & FRAG_CANCELLED))
      continue;
    *rec = r->assembled.data;
    *len = r->assembled.len;
    return 1;
  }
}

struct trace_pos trace_reader_tell(const struct trace_reader *r) {
  if (r->records_left)
    return (struct trace_pos){r->chunk_at, r->chunk_nrec - r->records_left};
  return (struct trace_pos){r->offset, 0};
}

int trace_reader_seek(struct trace_reader *r, struct trace_pos pos) {
  if (pos.chunk_offset > r->file_size || lseek(r->fd, (off_t)pos.chunk_offset, SEEK_SET) < 0)
    return reader_fail(r, "cannot go back to byte %llu: %s", (unsigned long long)pos.chunk_offset,
                       strerror(errno ? errno : EINVAL));
  r->offset = pos.chunk_offset;
  r->records_left = 0;
  r->state = READING;
  r->complete = false;
  r->assembling = false;
  if (pos.index == 0)
    return 0;
  /* Skip INDEX entries of the chunk (fragments of a split record count one each). */
  if (load_chunk(r) <= 0 || pos.index > r->records_left)
    return r->state == FAILED ? -1
                              : reader_fail(r, "no record %u in the chunk at byte %llu", pos.index,
                                            (unsigned long long)pos.chunk_offset);
  for (uint32_t i = 0; i < pos.index; i++) {
    r->raw_pos += 4 + (size_t)(get_u32(r->raw.data + r->raw_pos) & FRAG_LEN_MASK);
    r->records_left--;
  }
  return 0;
}

bool trace_reader_complete(const struct trace_reader *r) { return r->complete; }

const char *trace_reader_error(const struct trace_reader *r) { return r->err; }

const char *trace_reader_writer_version(const struct trace_reader *r) { return r->writer_version; }

void trace_reader_close(struct trace_reader *r) {
  if (r)
    reader_free(r);
}
