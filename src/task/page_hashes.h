/* Which pages of a process changed since its previous state point. Without soft-dirty
 * bits (this kernel has none) the recorder keeps a hash of every present writable page
 * (present per /proc/PID/pagemap) and compares; replay keeps the same hashes to find
 * pages its run-for-real code left different from the recording (replay_state_pages.c). */
#ifndef DEJA_TASK_PAGE_HASHES_H
#define DEJA_TASK_PAGE_HASHES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct page_hashes;

struct page_hashes *page_hashes_new(void);
void page_hashes_free(struct page_hashes *h);
/* A copy of H (a checkpoint of the replay keeps one). */
struct page_hashes *page_hashes_copy(const struct page_hashes *h);
/* Forgets the pages in [ADDR, ADDR+LEN): the kernel or an executed call changed them in a
 * way replay reproduces by itself, so their next content must be saved whatever its hash. */
void page_hashes_forget(struct page_hashes *h, uint64_t addr, uint64_t len);
void page_hashes_clear(struct page_hashes *h);
/* A page's hash and its caller-defined TAG. get: false when the page is not known. */
bool page_hashes_get(struct page_hashes *h, uint64_t page, uint64_t *hash, uint64_t *tag);
void page_hashes_set(struct page_hashes *h, uint64_t page, uint64_t hash, uint64_t tag);

uint64_t page_hash(const uint8_t *page);
bool page_hash_is_zero(uint64_t hash);
/* A digest of a process's memory: the sum of a mix of each page's address and hash over
 * its present writable pages, all-zero pages left out (a page only read is present in one
 * run and absent in another, with the same content). Order does not matter. */
void page_digest_add(uint64_t *digest, uint64_t addr, uint64_t hash);

/* Calls FN for every present writable page of process TID (its memory read through
 * MEM_FD), in address order; stops when FN returns non-zero and returns that value, or
 * -1 with errno set when /proc cannot be read. */
typedef int (*page_scan_fn)(void *ctx, uint64_t addr, const uint8_t *page, uint64_t hash);
int page_scan(pid_t tid, int mem_fd, page_scan_fn fn, void *ctx);

/* Calls EMIT(CTX, address, page) for every present writable page of process TID whose
 * content changed since the last call (all of them the first time), one page at a time,
 * so a state point of any size is streamed. Returns the number of pages, or -1 with errno
 * set (also when EMIT returned -1); *DIGEST (when not NULL) gets the memory's digest. */
typedef int (*page_emit_fn)(void *ctx, uint64_t addr, const uint8_t *page);
long page_hashes_changed(struct page_hashes *h, pid_t tid, int mem_fd, page_emit_fn emit, void *ctx,
                         uint64_t *digest);

#endif
