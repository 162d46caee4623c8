/* Which pages of a process changed since its previous state point. Without soft-dirty
 * bits (this kernel has none) the recorder keeps a hash of every present writable page
 * (present per /proc/PID/pagemap) and compares. */
#ifndef DEJA_RECORD_PAGE_HASHES_H
#define DEJA_RECORD_PAGE_HASHES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct page_hashes;

struct page_hashes *page_hashes_new(void);
void page_hashes_free(struct page_hashes *h);
/* Forgets the pages in [ADDR, ADDR+LEN): the kernel or an executed call changed them in a
 * way replay reproduces by itself, so their next content must be saved whatever its hash. */
void page_hashes_forget(struct page_hashes *h, uint64_t addr, uint64_t len);
void page_hashes_clear(struct page_hashes *h);

/* Calls EMIT(CTX, address, page) for every present writable page of process TID whose
 * content changed since the last call (all of them the first time), one page at a time,
 * so a state point of any size is streamed. Returns the number of pages, or -1 with errno
 * set (also when EMIT returned -1). */
typedef int (*page_emit_fn)(void *ctx, uint64_t addr, const uint8_t *page);
long page_hashes_changed(struct page_hashes *h, pid_t tid, int mem_fd, page_emit_fn emit,
                         void *ctx);

#endif
