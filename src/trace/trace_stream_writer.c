/* Writing framed, compressed, checksummed record streams (trace_stream.h, which describes
 * the layout): records gathered into chunks, each compressed and written in one write(),
 * in the background when asked; records of any size split across chunks; the seal. */
#include "trace/trace_stream.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "common/log.h"
#include "trace/trace_buf.h"
#include "trace/trace_stream_format.h"

#define CHUNK_FLUSH_RAW (256u * 1024u)
#define CHUNK_SPLIT_RAW (8u * 1024u * 1024u) /* where the writer splits a record */
#define ZSTD_LEVEL 1
/* Chunks queued for the background thread: a burst of records (a full 1 MiB system call
 * buffer flushed at once) does not stop the recording while the thread catches up. */
#define BG_JOBS 16
#define BG_MAX_BYTES (8u * 1024u * 1024u)
#define BG_KEEP_CAP (2u * 1024u * 1024u) /* a job's buffer larger than this is freed */

/* Fills the 24-byte chunk header; the checksum covers the first 16 bytes + PAYLOAD. */
static void fill_chunk_header(uint8_t *hdr, uint32_t compressed, uint32_t raw, uint32_t nrec,
                              const void *payload) {
  put_u32(hdr, CHUNK_MAGIC);
  put_u32(hdr + 4, compressed);
  put_u32(hdr + 8, raw);
  put_u32(hdr + 12, nrec);
  put_u64(hdr + 16, checksum_two(hdr, 16, payload, compressed));
}

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
