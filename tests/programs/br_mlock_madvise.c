/* mlock and madvise, whose results replay cannot always reproduce by running them
   (replay does not lock memory; some advice depends on the machine's state): a locked
   page that MADV_DONTNEED refuses (EINVAL, its content kept), advice that only hints,
   MADV_POPULATE on PROT_NONE memory, a range not mapped, and the content after each.
   The value written differs per run. */
#include <stdio.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "check.h"

#ifndef MADV_COLD
#define MADV_COLD 20
#endif
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

static void advise(const char *label, void *p, size_t len, int advice) {
  SHOW_CALL(label, madvise(p, len, advice));
}

int main(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  unsigned char value = (unsigned char)(1 + ts.tv_nsec % 250);
  /* The whole nanosecond count, so two recordings differ (the byte alone collides
     one time in 250). */
  printf("value %u from %ld ns\n", value, (long)ts.tv_nsec);
  size_t len = 4 * 4096;
  unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(p != MAP_FAILED);
  memset(p, value, len);
  struct rlimit rl;
  CHECK(getrlimit(RLIMIT_MEMLOCK, &rl) == 0);
  printf("memlock limit >= 64k: %d\n", rl.rlim_cur >= 65536);
  SHOW_CALL("mlock", mlock(p, 4096));
  advise("DONTNEED locked", p, 4096, MADV_DONTNEED);
  printf("locked page after DONTNEED: %u\n", p[0]);
  SHOW_CALL("mlock2 onfault", mlock2(p + 4096, 4096, MLOCK_ONFAULT));
  SHOW_CALL("munlock", munlock(p, 2 * 4096));
  advise("DONTNEED unlocked", p, 4096, MADV_DONTNEED);
  printf("page after DONTNEED: %u\n", p[0]);
  advise("WILLNEED", p, len, MADV_WILLNEED);
  advise("SEQUENTIAL", p, len, MADV_SEQUENTIAL);
  advise("HUGEPAGE", p, len, MADV_HUGEPAGE);
  advise("NOHUGEPAGE", p, len, MADV_NOHUGEPAGE);
  advise("COLD", p, len, MADV_COLD);
  advise("PAGEOUT", p + 4096, 4096, MADV_PAGEOUT);
  printf("page after PAGEOUT: %u\n", p[4096]);
  advise("POPULATE_WRITE", p, len, MADV_POPULATE_WRITE);
  advise("COLLAPSE", p, len, MADV_COLLAPSE);
  advise("DONTDUMP", p, len, MADV_DONTDUMP);
  advise("bad advice", p, len, 999);
  CHECK(mprotect(p + 3 * 4096, 4096, PROT_NONE) == 0);
  advise("POPULATE_READ PROT_NONE", p + 3 * 4096, 4096, MADV_POPULATE_READ);
  CHECK(munmap(p + 2 * 4096, 4096) == 0);
  advise("WILLNEED with a hole", p, len, MADV_WILLNEED);
  advise("DONTNEED with a hole", p, len, MADV_DONTNEED);
  printf("second page after DONTNEED with a hole: %u\n", p[4096]);
  SHOW_CALL("mlock hole", mlock(p, len));
  SHOW_CALL("mlockall future onfault", mlockall(MCL_FUTURE | MCL_ONFAULT));
  unsigned char *q = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(q != MAP_FAILED);
  q[0] = value;
  advise("DONTNEED under mlockall", q, 4096, MADV_DONTNEED);
  printf("new page after DONTNEED under mlockall: %u\n", q[0]);
  SHOW_CALL("munlockall", munlockall());
  return 0;
}
