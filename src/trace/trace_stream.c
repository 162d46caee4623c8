/* Framed, compressed, checksummed record streams (layout described in trace_stream.h). */
#include "trace/trace_stream.h"

#include "common/log.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#define XXH_STATIC_LINKING_ONLY /* XXH64_state_t on the stack */
#include <xxhash.h>
#include <zstd.h>

#include "trace/trace_buf.h"

#define FILE_MAGIC "DEJATRC1"
#define FILE_MAGIC_LEN 8
#define CHUNK_MAGIC 0x4b4e4843u
#define CHUNK_HEADER_LEN 24u /* 16 described bytes + u64 checksum */
#define CHUNK_FLUSH_RAW (256u * 1024u)
#define CHUNK_MAX_RAW (64u * 1024u * 1024u)  /* what a reader accepts */
#define CHUNK_SPLIT_RAW (8u * 1024u * 1024u) /* where the writer splits a record */
#define SEAL_LEN 16u /* after the file header: u64 final file length, u64 its hash */
#define SEAL_HASH_SEED 0x5ea1u
#define FRAG_CONTINUES 0x80000000u /* in a record header: continued next chunk */
#define FRAG_CANCELLED 0x40000000u /* the last fragment of a record to drop */
#define FRAG_LEN_MASK 0x3fffffffu
#define WRITER_VERSION_MAX 256u
#define ZSTD_LEVEL 1
/* Chunks queued for the background thread: a burst of records (a full 1 MiB system call
 * buffer flushed at once) does not stop the recording while the thread catches up. */
#define BG_JOBS 16
#define BG_MAX_BYTES (8u * 1024u * 1024u)
#define BG_KEEP_CAP (2u * 1024u * 1024u) /* a job's buffer larger than this is freed */
#define ERR_LEN 512

/* ---- shared helpers ---- */

static uint32_t get_u32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const uint8_t *p) {
  return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

static void put_u32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

static void put_u64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

/* XXH64 (seed 0) of A followed by B. */
static uint64_t checksum_two(const void *a, size_t alen, const void *b, size_t blen) {
  XXH64_state_t st;
  XXH64_reset(&st, 0);
  XXH64_update(&st, a, alen);
  if (blen)
    XXH64_update(&st, b, blen);
  return XXH64_digest(&st);
}

/* Fills the 24-byte chunk header; the checksum covers the first 16 bytes + PAYLOAD. */
static void fill_chunk_header(uint8_t *hdr, uint32_t compressed, uint32_t raw, uint32_t nrec,
                              const void *payload) {
  put_u32(hdr, CHUNK_MAGIC);
  put_u32(hdr + 4, compressed);
  put_u32(hdr + 8, raw);
  put_u32(hdr + 12, nrec);
  put_u64(hdr + 16, checksum_two(hdr, 16, payload, compressed));
}

/* ---- writer ---- */

struct trace_writer {
  int fd;
  char *path;
  struct tbuf pending; /* records (u32 length + bytes) not yet written */
  uint32_t pending_records;
  bool in_record;    /* between trace_writer_begin and trace_writer_end */
  size_t frag_start; /* offset in pending of the open record's fragment header */
  bool spilled;      /* fragments of the open record are already in the file */
  struct tbuf chunk; /* header + compressed frame being written */
  ZSTD_CCtx *cctx;
  uint64_t bytes_written;
  size_t seal_at; /* file offset of the seal */
  bool failed;    /* a write failed: the file may end in a partial chunk */
  char err[ERR_LEN];
  /* Background compression (trace_writer_background): full chunks are queued for a thread
   * that compresses and writes them, in order, while the caller goes on (it waits only
   * when the queue is full). The thread alone touches chunk, cctx, fd and bytes_written
   * while jobs are queued. */
  bool bg, bg_inited, bg_started, bg_quit;
  cpu_set_t bg_cpus;
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t cond;
  struct bg_job {
    struct tbuf data; /* the records to write */
    uint32_t nrec;
  } jobs[BG_JOBS];
  unsigned job_head, job_count; /* the oldest queued job (being written), how many */
  size_t job_bytes;             /* raw bytes queued */
  int job_errno;                /* the thread's failure (0: none), message in job_err */
  char job_err[ERR_LEN];
};

/* Writes all of BUF, normally in a single write(); loops only on short writes. */
static int write_all(int fd, const uint8_t *buf, size_t n) {
  while (n > 0) {
    ssize_t done = write(fd, buf, n);
    if (done < 0) {
      if (errno == EINTR)
        continue;
      return -1;
    }
    if (done == 0) {
      errno = EIO;
      return -1;
    }
    buf += done;
    n -= (size_t)done;
  }
  return 0;
}

static int writer_fail(struct trace_writer *w, int err, const char *what) {
  w->failed = true;
  snprintf(w->err, sizeof w->err, "%s: %s: %s", w->path, what, strerror(err));
  errno = err;
  return -1;
}

/* The same for the chunk writer, which may run in the background thread: the message
 * goes to MSG, and the caller sets `failed`. */
static int chunk_fail(const struct trace_writer *w, char *msg, int err, const char *what) {
  snprintf(msg, ERR_LEN, "%s: %s: %s", w->path, what, strerror(err));
  errno = err;
  return -1;
}

struct trace_writer *trace_writer_open(const char *path, uint32_t stream_kind,
                                       const char *writer_version, char *err, size_t errlen) {
  size_t vlen = strlen(writer_version);
  if (vlen > WRITER_VERSION_MAX) {
    seterr(err, errlen, "%s: writer version string is too long (%zu bytes)", path, vlen);
    errno = EINVAL;
    return NULL;
  }
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    int e = errno;
    seterr(err, errlen, "%s: cannot create trace file: %s", path, strerror(e));
    errno = e;
    return NULL;
  }
  struct trace_writer *w = xmalloc(sizeof *w);
  memset(w, 0, sizeof *w);
  w->fd = fd;
  w->path = xstrdup(path);
  tbuf_init(&w->pending);
  tbuf_init(&w->chunk);
  w->cctx = ZSTD_createCCtx();
  if (!w->cctx) {
    deja_msg("out of memory (creating a zstd compression context)");
    abort();
  }

  struct tbuf hdr;
  tbuf_init(&hdr);
  tbuf_put_bytes(&hdr, FILE_MAGIC, FILE_MAGIC_LEN);
  tbuf_put_u32(&hdr, TRACE_FORMAT_VERSION);
  tbuf_put_u32(&hdr, stream_kind);
  tbuf_put_str(&hdr, writer_version);
  tbuf_put_u64(&hdr, XXH64(hdr.data, hdr.len, 0));
  w->seal_at = hdr.len;
  tbuf_put_u64(&hdr, 0); /* the seal: zero until the writer closes the file */
  tbuf_put_u64(&hdr, 0);
  int rc = write_all(fd, hdr.data, hdr.len);
  int e = errno;
  size_t hdr_len = hdr.len;
  tbuf_free(&hdr);
  if (rc < 0) {
    seterr(err, errlen, "%s: cannot write trace header: %s", path, strerror(e));
    unlink(path);
    w->failed = true;
    trace_writer_abandon(w);
    errno = e;
    return NULL;
  }
  w->bytes_written = hdr_len;
  return w;
}

/* Compresses RAW (RAW_LEN bytes, NREC records) into one chunk and writes it. On failure
 * returns -1 with errno set and a message in MSG. */
static int write_chunk(struct trace_writer *w, const uint8_t *raw, size_t raw_len, uint32_t nrec,
                       char *msg) {
  tbuf_reset(&w->chunk);
  tbuf_grow(&w->chunk, CHUNK_HEADER_LEN); /* filled in once the size is known */
  size_t compressed = 0;
  if (raw_len > 0) {
    size_t bound = ZSTD_compressBound(raw_len);
    uint8_t *dst = tbuf_grow(&w->chunk, bound);
    compressed = ZSTD_compressCCtx(w->cctx, dst, bound, raw, raw_len, ZSTD_LEVEL);
    if (ZSTD_isError(compressed)) {
      snprintf(msg, ERR_LEN, "%s: zstd compression failed: %s", w->path,
               ZSTD_getErrorName(compressed));
      errno = EIO;
      return -1;
    }
    w->chunk.len = CHUNK_HEADER_LEN + compressed;
  }
  fill_chunk_header(w->chunk.data, (uint32_t)compressed, (uint32_t)raw_len, nrec,
                    w->chunk.data + CHUNK_HEADER_LEN);
  if (write_all(w->fd, w->chunk.data, w->chunk.len) < 0) {
    /* Cut off what was written of this chunk (the disk may be full): the file then ends
     * after its last complete chunk and replays up to there. */
    int e = errno;
    if (ftruncate(w->fd, (off_t)w->bytes_written) == 0)
      lseek(w->fd, (off_t)w->bytes_written, SEEK_SET);
    return chunk_fail(w, msg, e, "cannot write trace chunk");
  }
  w->bytes_written += w->chunk.len;
  return 0;
}

static void *background_writer(void *arg) {
  struct trace_writer *w = arg;
  pthread_mutex_lock(&w->lock);
  for (;;) {
    while (!w->job_count && !w->bg_quit)
      pthread_cond_wait(&w->cond, &w->lock);
    if (!w->job_count)
      break;
    struct bg_job *job = &w->jobs[w->job_head];
    bool failed = w->job_errno != 0;
    pthread_mutex_unlock(&w->lock);
    char msg[ERR_LEN];
    /* After a failure the file ends at its last complete chunk: later ones are dropped. */
    int rc = failed ? 0 : write_chunk(w, job->data.data, job->data.len, job->nrec, msg);
    int e = errno;
    size_t len = job->data.len;
    if (job->data.cap > BG_KEEP_CAP) /* a state point's pages: not kept for the next job */
      tbuf_free(&job->data);
    pthread_mutex_lock(&w->lock);
    if (rc < 0) {
      w->job_errno = e;
      memcpy(w->job_err, msg, ERR_LEN);
    }
    w->job_bytes -= len;
    w->job_head = (w->job_head + 1) % BG_JOBS;
    w->job_count--;
    pthread_cond_broadcast(&w->cond);
  }
  pthread_mutex_unlock(&w->lock);
  return NULL;
}

/* Waits until the background thread holds fewer than MAX_JOBS chunks, and at most
 * MAX_BYTES raw bytes of them. 0, or -1 when writing one failed (the writer has failed
 * then). Called with the lock held when the thread runs. */
static int background_wait_below(struct trace_writer *w, unsigned max_jobs, size_t max_bytes) {
  while (w->job_count >= max_jobs || (w->job_count && w->job_bytes > max_bytes))
    pthread_cond_wait(&w->cond, &w->lock);
  int e = w->job_errno;
  if (e) {
    w->failed = true;
    memcpy(w->err, w->job_err, ERR_LEN);
  }
  errno = e;
  return e ? -1 : 0;
}

/* Waits until the background thread wrote every chunk it was given. 0, or -1 when
 * writing one failed (the writer has failed then). */
static int background_wait(struct trace_writer *w) {
  if (!w->bg_started)
    return 0;
  pthread_mutex_lock(&w->lock);
  int rc = background_wait_below(w, 1, 0);
  int e = errno;
  pthread_mutex_unlock(&w->lock);
  errno = e;
  return rc;
}

static void background_stop(struct trace_writer *w) {
  if (!w->bg_started)
    return;
  pthread_mutex_lock(&w->lock);
  w->bg_quit = true;
  pthread_cond_broadcast(&w->cond);
  pthread_mutex_unlock(&w->lock);
  pthread_join(w->thread, NULL);
  w->bg_started = false;
}

/* Hands the pending records to the background thread (started the first time). */
static int background_hand_over(struct trace_writer *w) {
  if (w->bg_started) {
    pthread_mutex_lock(&w->lock);
    if (background_wait_below(w, BG_JOBS, BG_MAX_BYTES) < 0) {
      int e = errno;
      pthread_mutex_unlock(&w->lock);
      errno = e;
      return -1;
    }
  }
  struct bg_job *job = &w->jobs[(w->job_head + w->job_count) % BG_JOBS];
  struct tbuf t = job->data;
  job->data = w->pending;
  w->pending = t;
  tbuf_reset(&w->pending);
  job->nrec = w->pending_records;
  w->pending_records = 0;
  w->job_count++;
  w->job_bytes += job->data.len;
  if (w->bg_started) {
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->lock);
    return 0;
  }
  if (pthread_create(&w->thread, NULL, background_writer, w) != 0) {
    w->bg = false; /* written here, and from now on */
    w->job_count = 0;
    w->job_bytes = 0;
    int rc = write_chunk(w, job->data.data, job->data.len, job->nrec, w->err);
    if (rc < 0)
      w->failed = true;
    return rc;
  }
  w->bg_started = true;
  if (CPU_COUNT(&w->bg_cpus))
    pthread_setaffinity_np(w->thread, sizeof w->bg_cpus, &w->bg_cpus);
  return 0;
}

/* Writes the pending records (and fragments) as one chunk: in the background when that is
 * on, waiting for it to be written when WAIT. */
static int flush_pending(struct trace_writer *w, bool wait) {
  if (w->failed) {
    errno = EIO;
    return -1;
  }
  if (w->pending_records == 0)
    return wait ? background_wait(w) : 0;
  if (w->bg) {
    if (background_hand_over(w) < 0)
      return -1;
    return wait ? background_wait(w) : 0;
  }
  int rc = write_chunk(w, w->pending.data, w->pending.len, w->pending_records, w->err);
  if (rc < 0)
    w->failed = true;
  tbuf_reset(&w->pending);
  w->pending_records = 0;
  return rc;
}

void trace_writer_background(struct trace_writer *w, const cpu_set_t *cpus) {
  if (w->bg_inited)
    return;
  w->bg = w->bg_inited = true;
  CPU_ZERO(&w->bg_cpus);
  if (cpus)
    w->bg_cpus = *cpus;
  pthread_mutex_init(&w->lock, NULL);
  pthread_cond_init(&w->cond, NULL);
}

int trace_writer_flush(struct trace_writer *w) {
  if (w->in_record && !w->failed)
    return 0; /* an open record is flushed by trace_writer_put as it fills chunks */
  return flush_pending(w, true);
}

/* A chunk is full: written now, or in the background. */
static int flush_full(struct trace_writer *w) { return flush_pending(w, false); }

static void patch_u32(struct tbuf *b, size_t at, uint32_t v) { put_u32(b->data + at, v); }

int trace_writer_begin(struct trace_writer *w) {
  if (w->failed) {
    errno = EIO;
    return -1;
  }
  if (w->pending.len + 4 > CHUNK_SPLIT_RAW && flush_full(w) < 0)
    return -1;
  w->in_record = true;
  w->spilled = false;
  w->frag_start = w->pending.len;
  tbuf_put_u32(&w->pending, 0); /* the fragment's length, known at its end */
  return 0;
}

int trace_writer_put(struct trace_writer *w, const void *data, size_t len) {
  const uint8_t *p = data;
  while (len > 0) {
    if (w->failed) {
      errno = EIO;
      return -1;
    }
    size_t room = CHUNK_SPLIT_RAW - w->pending.len;
    if (w->pending.len >= CHUNK_SPLIT_RAW) {
      /* The chunk is full: this fragment continues in the next one. */
      size_t frag = w->pending.len - w->frag_start - 4;
      patch_u32(&w->pending, w->frag_start, (uint32_t)frag | FRAG_CONTINUES);
      w->pending_records++;
      if (flush_full(w) < 0)
        return -1;
      w->spilled = true;
      w->frag_start = 0;
      tbuf_put_u32(&w->pending, 0);
      continue;
    }
    size_t n = len < room ? len : room;
    tbuf_put_bytes(&w->pending, p, n);
    p += n;
    len -= n;
  }
  return 0;
}

int trace_writer_end(struct trace_writer *w) {
  if (w->failed) {
    errno = EIO;
    return -1;
  }
  w->in_record = false;
  patch_u32(&w->pending, w->frag_start, (uint32_t)(w->pending.len - w->frag_start - 4));
  w->pending_records++;
  if (w->pending.len >= CHUNK_FLUSH_RAW)
    return flush_full(w);
  return 0;
}

void trace_writer_cancel(struct trace_writer *w) {
  if (!w->in_record)
    return;
  w->in_record = false;
  if (!w->spilled || w->failed) { /* nothing of it is in the file: forget it */
    w->pending.len = w->frag_start;
    return;
  }
  /* Earlier fragments are in the file: end the record with a cancelled fragment. */
  w->pending.len = 0;
  tbuf_put_u32(&w->pending, FRAG_CANCELLED);
  w->pending_records++;
}

int trace_writer_append(struct trace_writer *w, const void *rec, size_t len) {
  if (trace_writer_begin(w) < 0 || trace_writer_put(w, rec, len) < 0)
    return -1;
  return trace_writer_end(w);
}

static void writer_free(struct trace_writer *w) {
  background_stop(w);
  if (w->bg_inited) {
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->cond);
  }
  for (int i = 0; i < BG_JOBS; i++)
    tbuf_free(&w->jobs[i].data);
  tbuf_free(&w->pending);
  tbuf_free(&w->chunk);
  ZSTD_freeCCtx(w->cctx);
  free(w->path);
  free(w);
}

/* Writes the seal: the file's final length, so that a reader tells a file cut short at a
 * chunk boundary (no end marker, like a killed writer's) from a complete one. */
static int write_seal(struct trace_writer *w) {
  uint8_t seal[SEAL_LEN];
  put_u64(seal, w->bytes_written);
  put_u64(seal + 8, XXH64(seal, 8, SEAL_HASH_SEED));
  if (pwrite(w->fd, seal, sizeof seal, (off_t)w->seal_at) != (ssize_t)sizeof seal)
    return writer_fail(w, errno ? errno : EIO, "cannot seal trace file");
  return 0;
}

int trace_writer_close(struct trace_writer *w) {
  trace_writer_cancel(w);
  int rc = trace_writer_flush(w); /* the background thread is idle after it */
  if (rc == 0 && write_chunk(w, NULL, 0, 0, w->err) < 0) { /* the end marker */
    w->failed = true;
    rc = -1;
  }
  if (rc == 0)
    rc = write_seal(w);
  if (close(w->fd) < 0 && rc == 0)
    rc = writer_fail(w, errno, "cannot close trace file");
  int e = errno;
  writer_free(w);
  errno = e;
  return rc;
}

void trace_writer_abandon(struct trace_writer *w) {
  if (!w)
    return;
  trace_writer_cancel(w);
  if (!w->failed)
    (void)trace_writer_flush(w);
  close(w->fd);
  writer_free(w);
}

const char *trace_writer_error(const struct trace_writer *w) { return w->err; }

uint64_t trace_writer_bytes_written(const struct trace_writer *w) { return w->bytes_written; }

/* ---- reader ---- */

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
    if (checksum_ok) {
      char *v = printable_copy(rest, vlen);
      reader_fail(r, "trace format version %u (written by deja %s); this deja reads version %u",
                  version, v, TRACE_FORMAT_VERSION);
      free(v);
      return -1;
    }
    return reader_fail(r,
                       "trace format version %u (written by an unknown deja, or the header "
                       "is corrupt); this deja reads version %u",
                       version, TRACE_FORMAT_VERSION);
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
