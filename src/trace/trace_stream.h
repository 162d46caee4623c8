/* Framed, compressed, checksummed record streams: the on-disk unit of a trace (written by
 * trace_stream_writer.c, read by trace_stream_reader.c).
 *
 * File layout:
 *   file header  : magic "DEJATRC1" (8 bytes), u32 format version, u32 stream kind,
 *                  u32 length of the writer's version string, the string (no NUL),
 *                  u64 XXH64 of everything before it (seed 0).
 *   chunks       : u32 magic 0x4b4e4843 ("CHNK"), u32 compressed size, u32 raw size,
 *                  u32 number of records, u64 XXH64 of (these 16 header bytes + compressed
 *                  bytes), then the zstd frame.  The raw payload is a sequence of records,
 *                  each u32 header + bytes. The header's low 30 bits are the length; bit
 *                  31 says the record continues as the first record of the next chunk
 *                  (only a chunk's last record may continue), bit 30 marks the last
 *                  fragment of a record the writer dropped. The writer splits records at
 *                  8 MiB, so a record of any size (a state point of a 1 GB heap) is
 *                  written and read with bounded chunk buffers.
 *   end marker   : a chunk with raw size 0, zero records and compressed size 0: written by
 *                  trace_writer_close() so a reader can tell "recorder finished" from
 *                  "recorder was killed" (complete chunks, no end marker).
 * Each chunk goes to the file in a single write(), so a recorder killed with SIGKILL leaves
 * only complete chunks. All integers are little-endian. */
#ifndef DEJA_TRACE_STREAM_H
#define DEJA_TRACE_STREAM_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#define TRACE_FORMAT_VERSION 3u /* 3: the seal after the file header */

struct trace_writer;
struct trace_reader;

/* Creates PATH (must not exist, mode 0600). On failure returns NULL and writes a message
 * naming the file into ERR. WRITER_VERSION is stored in the header (deja's version). */
struct trace_writer *trace_writer_open(const char *path, uint32_t stream_kind,
                                       const char *writer_version, char *err, size_t errlen);
/* Appends one record of any size; flushes a chunk by itself once ~256 KiB of records are
 * pending, and splits larger records across chunks. Returns 0, or -1 with errno set
 * (message via trace_writer_error). */
int trace_writer_append(struct trace_writer *w, const void *rec, size_t len);
/* The same, streamed: begin, put the record's bytes in any number of pieces, end. Only
 * one chunk of it is held in memory at a time. cancel drops an unfinished record (a
 * reader never sees it); close and abandon cancel an open record. */
int trace_writer_begin(struct trace_writer *w);
int trace_writer_put(struct trace_writer *w, const void *data, size_t len);
int trace_writer_end(struct trace_writer *w);
void trace_writer_cancel(struct trace_writer *w);
/* Writes pending records as one chunk now (no-op when none pending, or inside a record),
 * and waits for chunks written in the background. */
int trace_writer_flush(struct trace_writer *w);
/* From now on full chunks are compressed and written by a thread of the writer's own,
 * allowed on CPUS (NULL: as the caller), while the caller goes on; a failure is reported
 * by a later call. trace_writer_flush and close wait for it. */
void trace_writer_background(struct trace_writer *w, const cpu_set_t *cpus);
/* Flushes, writes the end marker, closes and frees. Returns 0 or -1. */
int trace_writer_close(struct trace_writer *w);
/* Frees without writing the end marker (pending records are flushed). */
void trace_writer_abandon(struct trace_writer *w);
const char *trace_writer_error(const struct trace_writer *w);
uint64_t trace_writer_bytes_written(const struct trace_writer *w);

/* Opens and validates the header. Version mismatch gives a message like
 * "PATH: trace format version 2 (written by deja 0.3.0); this deja reads version 1". */
struct trace_reader *trace_reader_open(const char *path, uint32_t expected_kind, char *err,
                                       size_t errlen);
/* Returns 1 with *rec and *len pointing at the next record (valid until the next call;
 * a record split across chunks is put together in memory),
 * 0 at the end of the stream, -1 on a corrupt or truncated stream (message via
 * trace_reader_error, naming the file, the chunk's byte offset and what is wrong). */
int trace_reader_next(struct trace_reader *r, const void **rec, size_t *len);
/* Where a record starts: the file offset of its chunk and its index in the chunk. */
struct trace_pos {
  uint64_t chunk_offset;
  uint32_t index;
};
/* The position of the record next() returns next. */
struct trace_pos trace_reader_tell(const struct trace_reader *r);
/* Makes next() return the record at POS (a position tell() gave for this file); the
 * chunk is read and verified again. 0, or -1 (message via trace_reader_error). */
int trace_reader_seek(struct trace_reader *r, struct trace_pos pos);
/* After next() returned 0: true when the stream ended with the end marker, false when it
 * ended after a complete chunk without one (the writer was killed). */
bool trace_reader_complete(const struct trace_reader *r);
const char *trace_reader_error(const struct trace_reader *r);
const char *trace_reader_writer_version(const struct trace_reader *r);
void trace_reader_close(struct trace_reader *r);

#endif
