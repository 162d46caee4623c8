/* Unit tests for framed, compressed, checksummed trace streams (src/trace/trace_stream_*.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "trace/trace_stream.h"

#define KIND 7u
#define VERSION_STRING "0.1.0-test"

/* ---- fixtures and helpers ---- */

struct fixture {
  char dir[64];
  char path[128];
};

static int setup(void **state) {
  struct fixture *f = calloc(1, sizeof *f);
  if (!f)
    return -1;
  strcpy(f->dir, "/tmp/deja-test-trace-XXXXXX");
  if (!mkdtemp(f->dir)) {
    free(f);
    return -1;
  }
  snprintf(f->path, sizeof f->path, "%s/stream", f->dir);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  struct fixture *f = *state;
  DIR *d = opendir(f->dir);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d))) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
        continue;
      char p[512];
      snprintf(p, sizeof p, "%s/%s", f->dir, e->d_name);
      unlink(p);
    }
    closedir(d);
  }
  rmdir(f->dir);
  free(f);
  return 0;
}

/* Record I is SIZE bytes of a pattern that depends on I, so mix-ups are caught. */
static void fill_record(uint8_t *buf, size_t size, unsigned i) {
  for (size_t j = 0; j < size; j++)
    buf[j] = (uint8_t)(i * 31u + j * 7u + (j >> 9));
}

static bool record_matches(const uint8_t *rec, size_t len, size_t size, unsigned i) {
  if (len != size)
    return false;
  for (size_t j = 0; j < size; j++)
    if (rec[j] != (uint8_t)(i * 31u + j * 7u + (j >> 9)))
      return false;
  return true;
}

static uint8_t *read_whole_file(const char *path, size_t *len) {
  FILE *fp = fopen(path, "rb");
  assert_non_null(fp);
  fseek(fp, 0, SEEK_END);
  long n = ftell(fp);
  fseek(fp, 0, SEEK_SET);
  uint8_t *data = malloc((size_t)n + 1);
  assert_non_null(data);
  assert_int_equal(fread(data, 1, (size_t)n, fp), (size_t)n);
  fclose(fp);
  *len = (size_t)n;
  return data;
}

static void write_whole_file(const char *path, const uint8_t *data, size_t len) {
  unlink(path);
  FILE *fp = fopen(path, "wb");
  assert_non_null(fp);
  if (len)
    assert_int_equal(fwrite(data, 1, len, fp), len);
  assert_int_equal(fclose(fp), 0);
}

static struct trace_writer *open_writer(const char *path) {
  char err[256] = "";
  struct trace_writer *w = trace_writer_open(path, KIND, VERSION_STRING, err, sizeof err);
  if (!w)
    fail_msg("trace_writer_open: %s", err);
  return w;
}

static struct trace_reader *open_reader(const char *path) {
  char err[256] = "";
  struct trace_reader *r = trace_reader_open(path, KIND, err, sizeof err);
  if (!r)
    fail_msg("trace_reader_open: %s", err);
  return r;
}

/* Sizes used by the round-trip tests: empty, tiny, chunk-sized and larger. */
static size_t record_size(unsigned i) {
  static const size_t special[] = {0, 1, 0, 3, 300 * 1024, 0, 4096, 1024 * 1024 + 13, 65536};
  if (i < sizeof special / sizeof special[0])
    return special[i];
  return (i * 37u) % 2000u;
}

/* Writes NREC records (sizes from record_size()) to PATH. */
static void write_records(const char *path, unsigned nrec, bool close_properly) {
  struct trace_writer *w = open_writer(path);
  size_t biggest = 2 * 1024 * 1024;
  uint8_t *buf = malloc(biggest);
  assert_non_null(buf);
  for (unsigned i = 0; i < nrec; i++) {
    size_t size = record_size(i);
    fill_record(buf, size, i);
    assert_int_equal(trace_writer_append(w, buf, size), 0);
  }
  free(buf);
  if (close_properly)
    assert_int_equal(trace_writer_close(w), 0);
  else
    trace_writer_abandon(w);
}

/* Reads PATH back expecting NREC records in the order written; returns complete(). */
static bool read_records(const char *path, unsigned nrec) {
  struct trace_reader *r = open_reader(path);
  assert_string_equal(trace_reader_writer_version(r), VERSION_STRING);
  const void *rec;
  size_t len;
  for (unsigned i = 0; i < nrec; i++) {
    int rc = trace_reader_next(r, &rec, &len);
    if (rc != 1)
      fail_msg("record %u: next returned %d: %s", i, rc, trace_reader_error(r));
    assert_true(record_matches(rec, len, record_size(i), i));
  }
  assert_int_equal(trace_reader_next(r, &rec, &len), 0);
  assert_int_equal(trace_reader_next(r, &rec, &len), 0); /* stays at the end */
  bool complete = trace_reader_complete(r);
  trace_reader_close(r);
  return complete;
}

/* ---- tests ---- */

static void test_round_trip_many_records(void **state) {
  struct fixture *f = *state;
  write_records(f->path, 3000, true);
  assert_true(read_records(f->path, 3000));
}

/* tell() before every record, then seek() back to each (in a scrambled order): next()
 * returns that record again, and the stream ends as before after it. */
static void test_tell_and_seek(void **state) {
  struct fixture *f = *state;
  enum { N = 3000 };
  write_records(f->path, N, true);
  struct trace_reader *r = open_reader(f->path);
  static struct trace_pos at[N + 1];
  const void *rec;
  size_t len;
  for (unsigned i = 0; i < N; i++) {
    at[i] = trace_reader_tell(r);
    assert_int_equal(trace_reader_next(r, &rec, &len), 1);
  }
  at[N] = trace_reader_tell(r);
  assert_int_equal(trace_reader_next(r, &rec, &len), 0);
  for (unsigned k = 0; k < N; k += 7) {
    unsigned i = (k * 1543u) % N;
    assert_int_equal(trace_reader_seek(r, at[i]), 0);
    assert_int_equal(trace_reader_next(r, &rec, &len), 1);
    assert_true(record_matches(rec, len, record_size(i), i));
    if (i + 1 < N) {
      assert_int_equal(trace_reader_next(r, &rec, &len), 1);
      assert_true(record_matches(rec, len, record_size(i + 1), i + 1));
    }
  }
  assert_int_equal(trace_reader_seek(r, at[N]), 0);
  assert_int_equal(trace_reader_next(r, &rec, &len), 0);
  assert_true(trace_reader_complete(r));
  trace_reader_close(r);
}

/* tell() and seek() with records split across chunks and a record cancelled after some of
 * its chunks were written. */
static void test_tell_and_seek_split_records(void **state) {
  struct fixture *f = *state;
  static const size_t sizes[] = {10, 20u << 20, 7, 9u << 20, 3, 0, 17u << 20};
  enum { N = sizeof sizes / sizeof sizes[0] };
  uint8_t *buf = malloc(20u << 20);
  assert_non_null(buf);
  struct trace_writer *w = open_writer(f->path);
  for (unsigned i = 0; i < N; i++) {
    if (i == 3) { /* dropped after two chunks of it were written */
      assert_int_equal(trace_writer_begin(w), 0);
      assert_int_equal(trace_writer_put(w, buf, 18u << 20), 0);
      trace_writer_cancel(w);
    }
    fill_record(buf, sizes[i], i);
    assert_int_equal(trace_writer_append(w, buf, sizes[i]), 0);
  }
  assert_int_equal(trace_writer_close(w), 0);
  free(buf);
  struct trace_reader *r = open_reader(f->path);
  struct trace_pos at[N + 1];
  const void *rec;
  size_t len;
  for (unsigned i = 0; i < N; i++) {
    at[i] = trace_reader_tell(r);
    assert_int_equal(trace_reader_next(r, &rec, &len), 1);
    assert_true(record_matches(rec, len, sizes[i], i));
  }
  at[N] = trace_reader_tell(r);
  assert_int_equal(trace_reader_next(r, &rec, &len), 0);
  for (unsigned k = 0; k < 2 * N; k++) {
    unsigned i = (k * 5u) % N;
    assert_int_equal(trace_reader_seek(r, at[i]), 0);
    assert_int_equal(trace_reader_next(r, &rec, &len), 1);
    assert_true(record_matches(rec, len, sizes[i], i));
  }
  assert_int_equal(trace_reader_seek(r, at[N]), 0);
  assert_int_equal(trace_reader_next(r, &rec, &len), 0);
  assert_true(trace_reader_complete(r));
  trace_reader_close(r);
}

static void test_bytes_written_matches_file(void **state) {
  struct fixture *f = *state;
  struct trace_writer *w = open_writer(f->path);
  uint64_t after_header = trace_writer_bytes_written(w);
  assert_true(after_header > 0);
  uint8_t rec[1000];
  fill_record(rec, sizeof rec, 1);
  /* 400 KiB of records: at least one chunk must have been flushed by itself. */
  for (int i = 0; i < 400; i++)
    assert_int_equal(trace_writer_append(w, rec, sizeof rec), 0);
  assert_true(trace_writer_bytes_written(w) > after_header);
  assert_int_equal(trace_writer_flush(w), 0);
  assert_int_equal(trace_writer_flush(w), 0); /* nothing pending: no-op */
  struct stat st;
  assert_int_equal(stat(f->path, &st), 0);
  assert_int_equal((uint64_t)st.st_size, trace_writer_bytes_written(w));
  assert_int_equal(trace_writer_close(w), 0);
  assert_int_equal(stat(f->path, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0600);
}

static void test_abandoned_stream_is_incomplete(void **state) {
  struct fixture *f = *state;
  write_records(f->path, 500, false);
  assert_false(read_records(f->path, 500));
}

static void test_empty_streams(void **state) {
  struct fixture *f = *state;
  write_records(f->path, 0, true);
  assert_true(read_records(f->path, 0));
  unlink(f->path);
  write_records(f->path, 0, false);
  assert_false(read_records(f->path, 0));
}

static void test_writer_refuses_existing_file(void **state) {
  struct fixture *f = *state;
  write_records(f->path, 1, true);
  char err[256] = "";
  assert_null(trace_writer_open(f->path, KIND, VERSION_STRING, err, sizeof err));
  assert_non_null(strstr(err, f->path));
}

/* Records larger than a chunk are split across chunks and read back whole. */
static void test_large_records_span_chunks(void **state) {
  struct fixture *f = *state;
  struct trace_writer *w = open_writer(f->path);
  size_t huge = 70u * 1024 * 1024; /* above the 64 MiB a chunk may hold */
  uint8_t *buf = malloc(huge);
  assert_non_null(buf);
  fill_record(buf, huge, 1);
  assert_int_equal(trace_writer_append(w, buf, 10), 0);
  assert_int_equal(trace_writer_append(w, buf, huge), 0);
  /* Streamed in odd pieces. */
  size_t streamed = 17u * 1024 * 1024 + 5;
  fill_record(buf, streamed, 2);
  assert_int_equal(trace_writer_begin(w), 0);
  for (size_t at = 0; at < streamed; at += 999983)
    assert_int_equal(trace_writer_put(w, buf + at, streamed - at < 999983 ? streamed - at : 999983),
                     0);
  assert_int_equal(trace_writer_end(w), 0);
  fill_record(buf, 3, 3);
  assert_int_equal(trace_writer_append(w, buf, 3), 0);
  assert_int_equal(trace_writer_close(w), 0);

  struct trace_reader *r = open_reader(f->path);
  const void *rec;
  size_t len;
  assert_int_equal(trace_reader_next(r, &rec, &len), 1);
  assert_int_equal(len, 10);
  assert_int_equal(trace_reader_next(r, &rec, &len), 1);
  assert_true(record_matches(rec, len, huge, 1));
  assert_int_equal(trace_reader_next(r, &rec, &len), 1);
  assert_true(record_matches(rec, len, streamed, 2));
  assert_int_equal(trace_reader_next(r, &rec, &len), 1);
  assert_true(record_matches(rec, len, 3, 3));
  assert_int_equal(trace_reader_next(r, &rec, &len), 0);
  assert_true(trace_reader_complete(r));
  trace_reader_close(r);
  free(buf);
}

/* A record dropped half-way (cancel, or a writer that stops in the middle of it) is never
 * seen; the records around it are. */
static void test_unfinished_records_are_dropped(void **state) {
  struct fixture *f = *state;
  size_t big = 20u * 1024 * 1024;
  uint8_t *buf = malloc(big);
  assert_non_null(buf);
  struct trace_writer *w = open_writer(f->path);
  fill_record(buf, 5, 1);
  assert_int_equal(trace_writer_append(w, buf, 5), 0);
  assert_int_equal(trace_writer_begin(w), 0); /* cancelled after chunks of it were written */
  assert_int_equal(trace_writer_put(w, buf, big), 0);
  trace_writer_cancel(w);
  assert_int_equal(trace_writer_begin(w), 0); /* cancelled before any of it was written */
  assert_int_equal(trace_writer_put(w, buf, 100), 0);
  trace_writer_cancel(w);
  fill_record(buf, 6, 2);
  assert_int_equal(trace_writer_append(w, buf, 6), 0);
  assert_int_equal(trace_writer_begin(w), 0); /* the writer stops in the middle */
  assert_int_equal(trace_writer_put(w, buf, big), 0);
  trace_writer_abandon(w);

  struct trace_reader *r = open_reader(f->path);
  const void *rec;
  size_t len;
  assert_int_equal(trace_reader_next(r, &rec, &len), 1);
  assert_true(record_matches(rec, len, 5, 1));
  assert_int_equal(trace_reader_next(r, &rec, &len), 1);
  assert_true(record_matches(rec, len, 6, 2));
  assert_int_equal(trace_reader_next(r, &rec, &len), 0);
  assert_false(trace_reader_complete(r));
  trace_reader_close(r);
  free(buf);
}

static void test_wrong_kind(void **state) {
  struct fixture *f = *state;
  write_records(f->path, 1, true);
  char err[256] = "";
  assert_null(trace_reader_open(f->path, KIND + 1, err, sizeof err));
  assert_non_null(strstr(err, f->path));
  assert_non_null(strstr(err, "kind"));
}

static void test_missing_and_non_trace_files(void **state) {
  struct fixture *f = *state;
  char err[256] = "";
  assert_null(trace_reader_open(f->path, KIND, err, sizeof err));
  assert_non_null(strstr(err, f->path));
  write_whole_file(f->path, (const uint8_t *)"hello, world, not a trace", 25);
  err[0] = '\0';
  assert_null(trace_reader_open(f->path, KIND, err, sizeof err));
  assert_non_null(strstr(err, f->path));
  assert_non_null(strstr(err, "not a deja trace"));
  err[0] = '\0';
  assert_null(trace_reader_open(f->dir, KIND, err, sizeof err));
  assert_non_null(strstr(err, f->dir));
}

/* Rewrites the header's version field (byte 8) and, when RESEAL, its checksum. */
static void set_version(const char *path, uint32_t version, bool reseal) {
  size_t len;
  uint8_t *data = read_whole_file(path, &len);
  for (int i = 0; i < 4; i++)
    data[8 + i] = (uint8_t)(version >> (8 * i));
  /* magic 8, version 4, kind 4, string length 4, string, checksum 8 */
  uint32_t vlen = data[16] | data[17] << 8 | data[18] << 16 | (uint32_t)data[19] << 24;
  size_t sum_at = 20 + vlen;
  assert_true(sum_at + 8 <= len);
  if (reseal) {
    uint64_t sum = XXH64(data, sum_at, 0);
    for (int i = 0; i < 8; i++)
      data[sum_at + i] = (uint8_t)(sum >> (8 * i));
  }
  write_whole_file(path, data, len);
  free(data);
}

static void test_wrong_version(void **state) {
  struct fixture *f = *state;
  write_records(f->path, 3, true);
  set_version(f->path, 7, true);
  char err[512] = "";
  assert_null(trace_reader_open(f->path, KIND, err, sizeof err));
  assert_non_null(strstr(err, f->path));
  assert_non_null(strstr(err, "trace format version 7 (written by deja " VERSION_STRING
                              "), a newer format: read it with a newer deja"));
  assert_non_null(strstr(err, "reads version 3"));

  /* An older one says so. */
  set_version(f->path, 1, true);
  assert_null(trace_reader_open(f->path, KIND, err, sizeof err));
  assert_non_null(strstr(err, "trace format version 1 (written by deja " VERSION_STRING
                              "), an older format: read it with the deja that wrote it"));

  /* Without a matching checksum the version is still named. */
  set_version(f->path, 9, false);
  err[0] = '\0';
  assert_null(trace_reader_open(f->path, KIND, err, sizeof err));
  assert_non_null(strstr(err, f->path));
  assert_non_null(strstr(err, "version 9"));
}

/* Writes a small trace of several chunks; returns its bytes and the chunk boundaries. */
static uint8_t *small_trace(const char *path, size_t *len, unsigned *nrec) {
  struct trace_writer *w = open_writer(path);
  uint8_t buf[64];
  unsigned n = 0;
  for (unsigned chunk = 0; chunk < 3; chunk++) {
    for (unsigned k = 0; k < 3; k++, n++) {
      size_t size = (n * 5u) % 40u;
      fill_record(buf, size, n);
      assert_int_equal(trace_writer_append(w, buf, size), 0);
    }
    assert_int_equal(trace_writer_flush(w), 0);
  }
  assert_int_equal(trace_writer_close(w), 0);
  *nrec = n;
  return read_whole_file(path, len);
}

/* Reads a possibly damaged trace: every record delivered must be one that was written, in
 * order. Returns 1 for a clean complete read, 0 for a clean incomplete read, -1 for an
 * error (whose message must name the file). */
static int read_damaged(const char *path, unsigned nrec, unsigned *delivered) {
  char err[512] = "";
  *delivered = 0;
  struct trace_reader *r = trace_reader_open(path, KIND, err, sizeof err);
  if (!r) {
    if (!strstr(err, path))
      fail_msg("open error does not name the file: %s", err);
    return -1;
  }
  const void *rec;
  size_t len;
  int rc;
  while ((rc = trace_reader_next(r, &rec, &len)) == 1) {
    assert_true(*delivered < nrec);
    assert_true(record_matches(rec, len, (*delivered * 5u) % 40u, *delivered));
    (*delivered)++;
  }
  int result;
  if (rc < 0) {
    if (!strstr(trace_reader_error(r), path))
      fail_msg("read error does not name the file: %s", trace_reader_error(r));
    assert_int_equal(trace_reader_next(r, &rec, &len), -1); /* stays failed */
    result = -1;
  } else {
    result = trace_reader_complete(r) ? 1 : 0;
  }
  trace_reader_close(r);
  return result;
}

/* The seal's offset: after magic 8, version 4, kind 4, string length 4, string, checksum 8. */
#define SEAL_AT (28 + sizeof VERSION_STRING - 1)

/* Writes every proper prefix of DATA in turn and reads it: none may read as complete, and
 * a clean (incomplete) read delivers whole chunks only. Returns how many read cleanly. */
static unsigned clean_cuts(const char *path, const uint8_t *data, size_t len, unsigned nrec) {
  unsigned clean = 0;
  for (size_t cut = 0; cut < len; cut++) {
    write_whole_file(path, data, cut);
    unsigned delivered;
    int rc = read_damaged(path, nrec, &delivered);
    if (rc == 1)
      fail_msg("a cut at byte %zu of %zu reads as complete", cut, len);
    if (rc == 0) {
      clean++;
      assert_true(delivered % 3 == 0); /* only whole chunks */
    }
  }
  write_whole_file(path, data, len);
  unsigned delivered;
  assert_int_equal(read_damaged(path, nrec, &delivered), 1);
  assert_int_equal(delivered, nrec);
  return clean;
}

/* Every cut of a closed file is an error: its seal names the length it must have. */
static void test_truncation_at_every_offset(void **state) {
  struct fixture *f = *state;
  size_t len;
  unsigned nrec;
  uint8_t *data = small_trace(f->path, &len, &nrec);
  assert_int_equal(clean_cuts(f->path, data, len, nrec), 0);
  free(data);
}

/* A file whose writer was killed has no seal: cut after the header or after any whole
 * chunk it reads cleanly as incomplete (3 chunks: 4 such cuts; not after the marker). */
static void test_unsealed_truncation_at_every_offset(void **state) {
  struct fixture *f = *state;
  size_t len;
  unsigned nrec;
  uint8_t *data = small_trace(f->path, &len, &nrec);
  memset(data + SEAL_AT, 0, 16);
  assert_int_equal(clean_cuts(f->path, data, len, nrec), 4);
  free(data);
}

static void test_truncation_message(void **state) {
  struct fixture *f = *state;
  size_t len;
  unsigned nrec;
  uint8_t *data = small_trace(f->path, &len, &nrec);
  write_whole_file(f->path, data, len - 30); /* inside the last data chunk */
  char err[512] = "";
  assert_null(trace_reader_open(f->path, KIND, err, sizeof err));
  assert_non_null(strstr(err, f->path));
  assert_non_null(strstr(err, "truncated"));
  assert_non_null(strstr(err, "the trace was cut short"));

  /* Without the seal the cut is found where the chunk ends early. */
  memset(data + SEAL_AT, 0, 16);
  write_whole_file(f->path, data, len - 30);
  struct trace_reader *r = open_reader(f->path);
  const void *rec;
  size_t rlen;
  int rc;
  while ((rc = trace_reader_next(r, &rec, &rlen)) == 1)
    ;
  assert_int_equal(rc, -1);
  assert_non_null(strstr(trace_reader_error(r), f->path));
  assert_non_null(strstr(trace_reader_error(r), "truncated at byte"));
  assert_non_null(strstr(trace_reader_error(r), "the trace was cut short"));
  trace_reader_close(r);
  free(data);
}

static void test_flipped_byte_at_every_offset(void **state) {
  struct fixture *f = *state;
  size_t len;
  unsigned nrec;
  uint8_t *data = small_trace(f->path, &len, &nrec);
  static const uint8_t masks[] = {0x01, 0x80, 0xff};
  for (size_t at = 0; at < len; at++) {
    for (size_t m = 0; m < sizeof masks; m++) {
      data[at] ^= masks[m];
      write_whole_file(f->path, data, len);
      data[at] ^= masks[m];
      unsigned delivered;
      /* Every byte is covered by a checksum, so every flip is an error. */
      if (read_damaged(f->path, nrec, &delivered) != -1)
        fail_msg("flip 0x%02x at byte %zu went unnoticed", masks[m], at);
    }
  }
  free(data);
}

static void test_corruption_message(void **state) {
  struct fixture *f = *state;
  size_t len;
  unsigned nrec;
  uint8_t *data = small_trace(f->path, &len, &nrec);
  data[len - 30] ^= 0x10; /* inside the last data chunk's compressed bytes */
  write_whole_file(f->path, data, len);
  struct trace_reader *r = open_reader(f->path);
  const void *rec;
  size_t rlen;
  int rc;
  while ((rc = trace_reader_next(r, &rec, &rlen)) == 1)
    ;
  assert_int_equal(rc, -1);
  const char *err = trace_reader_error(r);
  assert_non_null(strstr(err, f->path));
  assert_non_null(strstr(err, "is corrupt (checksum mismatch)"));
  trace_reader_close(r);
  free(data);
}

static void test_data_after_end_marker(void **state) {
  struct fixture *f = *state;
  size_t len;
  unsigned nrec;
  uint8_t *data = small_trace(f->path, &len, &nrec);
  uint8_t *longer = malloc(len + 1);
  assert_non_null(longer);
  memcpy(longer, data, len);
  longer[len] = 0;
  write_whole_file(f->path, longer, len + 1);
  char err[512] = "";
  assert_null(trace_reader_open(f->path, KIND, err, sizeof err)); /* the seal says so */
  assert_non_null(strstr(err, "appended after the end"));
  /* Unsealed, the reader finds it after the end marker. */
  memset(longer + SEAL_AT, 0, 16);
  write_whole_file(f->path, longer, len + 1);
  unsigned delivered;
  assert_int_equal(read_damaged(f->path, nrec, &delivered), -1);
  assert_int_equal(delivered, nrec);
  free(longer);
  free(data);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_round_trip_many_records, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bytes_written_matches_file, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tell_and_seek, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tell_and_seek_split_records, setup, teardown),
      cmocka_unit_test_setup_teardown(test_abandoned_stream_is_incomplete, setup, teardown),
      cmocka_unit_test_setup_teardown(test_empty_streams, setup, teardown),
      cmocka_unit_test_setup_teardown(test_writer_refuses_existing_file, setup, teardown),
      cmocka_unit_test_setup_teardown(test_large_records_span_chunks, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unfinished_records_are_dropped, setup, teardown),
      cmocka_unit_test_setup_teardown(test_wrong_kind, setup, teardown),
      cmocka_unit_test_setup_teardown(test_missing_and_non_trace_files, setup, teardown),
      cmocka_unit_test_setup_teardown(test_wrong_version, setup, teardown),
      cmocka_unit_test_setup_teardown(test_truncation_at_every_offset, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unsealed_truncation_at_every_offset, setup, teardown),
      cmocka_unit_test_setup_teardown(test_truncation_message, setup, teardown),
      cmocka_unit_test_setup_teardown(test_flipped_byte_at_every_offset, setup, teardown),
      cmocka_unit_test_setup_teardown(test_corruption_message, setup, teardown),
      cmocka_unit_test_setup_teardown(test_data_after_end_marker, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
