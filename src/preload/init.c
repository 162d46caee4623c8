/* The library's start in each process it is loaded into (preload.h): the fixed page
 * mapped with its entries, the first thread's buffer announced to deja, libc's own call
 * sites redirected to the buffer, and the child of a fork given its own context-switch
 * event. When deja does not take the buffer (no deja, or -n), nothing else is done. */
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "preload/preload.h"

/* Maps the page with the untraced entry, the traced one and the one replay lets through
 * (syscallbuf_abi.h). False when it cannot be mapped. */
static bool map_page(void) {
  static const uint8_t entry[] = SBUF_ENTRY_RECORD, traced[] = SBUF_TRACED_ENTRY,
                       exec[] = SBUF_EXEC_ENTRY;
  long p = preload_raw_syscall(SYS_mmap, (long)SBUF_PAGE_ADDR, 4096, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (p != (long)SBUF_PAGE_ADDR)
    return false;
  preload_copy((void *)p, entry, sizeof entry);
  preload_copy((void *)(p + SBUF_TRACED_ENTRY_OFF), traced, sizeof traced);
  preload_copy((void *)(p + SBUF_EXEC_OFF), exec, sizeof exec);
  return preload_raw_syscall(SYS_mprotect, p, 4096, PROT_READ | PROT_EXEC, 0, 0, 0) == 0;
}

__attribute__((constructor)) static void preload_init(void) {
  if (!map_page())
    return;
  preload_watch_thread_ends();
  if (!preload_start_buffers())
    return;
  preload_patch_libc();
  pthread_atfork(NULL, NULL, preload_forked_child);
}
