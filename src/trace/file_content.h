/* The content of a preserved file, read sparsely: only the data regions of a byte range
 * (SEEK_DATA/SEEK_HOLE), all-zero pages skipped, so a 2 GiB sparse file with one page of
 * data costs one page to hash and to copy.
 *
 * The content hash (XXH3-128) covers the file size and every non-zero page of the range
 * with its offset. Everything outside the range, holes and zero pages read as zeros, so
 * a sparse copy of the range hashes the same as its source. */
#ifndef DEJA_TRACE_FILE_CONTENT_H
#define DEJA_TRACE_FILE_CONTENT_H

#include <stdint.h>

#define FILE_HASH_HEX_LEN 32

/* Hashes bytes [LO, HI) of the file open at FD (SIZE bytes long) into HEX (33 bytes).
 * Returns 0, or -1 with errno set. */
int file_content_hash(int fd, uint64_t lo, uint64_t hi, uint64_t size, char *hex);

/* Copies bytes [LO, HI) of IN into OUT (an empty file) at the same offsets, leaving holes
 * for holes and zero pages, then sets OUT's size to SIZE. Writes the copy's hash into HEX.
 * Returns 0, or -1 with errno set. */
int file_content_copy(int in, int out, uint64_t lo, uint64_t hi, uint64_t size, char *hex);

/* Copies the whole of IN (SIZE bytes) into OUT (an empty file), data regions only, with
 * copy_file_range (in the kernel; a reflink on file systems that share blocks), else as
 * file_content_copy does. Returns 0, or -1 with errno set. */
int file_content_clone(int in, int out, uint64_t size);

/* The hash at the end of a preserved file's name ("NAME-<32 hex>"), or NULL. */
const char *file_content_hash_of_name(const char *name);

#endif
