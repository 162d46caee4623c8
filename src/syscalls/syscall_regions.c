/* Which tracee memory a finished system call wrote: sizes come from the table entry, the
 * arguments, the result and, for indirect buffers (iovecs, msghdr, socklen), tracee memory
 * read after the call. */
#include "syscalls/syscall_table.h"
#include "syscalls/syscall_ioctl.h"
#include "syscalls/syscall_regions_special.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <net/if.h>
#include <asm/termbits.h>
#include <linux/futex.h>
#include <linux/prctl.h>
#include <linux/sockios.h>

#include "common/kernel_abi.h"

#define IOV_CAP 1024 /* IOV_MAX: the kernel refuses longer iovec arrays */
#define IOV_CHUNK 64 /* iovecs read from the tracee at a time */

#ifndef PR_GET_AUXV
#define PR_GET_AUXV 0x41555856
#endif
#ifndef PR_SCHED_CORE
#define PR_SCHED_CORE 62
#define PR_SCHED_CORE_GET 0
#endif
#ifndef PR_GET_SHADOW_STACK_STATUS
#define PR_GET_SHADOW_STACK_STATUS 74
#endif
#ifndef FUTEX_LOCK_PI2
#define FUTEX_LOCK_PI2 13
#endif
#ifndef F_GET_RW_HINT
#define F_GET_RW_HINT 1035
#define F_GET_FILE_RW_HINT 1037
#endif
#define CLONE_PIDFD_FLAG 0x00001000ULL
#define CLONE_PARENT_SETTID_FLAG 0x00100000ULL

_Static_assert(sizeof(struct msghdr) == 56, "struct msghdr differs from the kernel's");
_Static_assert(sizeof(struct mmsghdr) == 64, "struct mmsghdr differs from the kernel's");
_Static_assert(sizeof(struct epoll_event) == 12, "struct epoll_event differs from the kernel's");
_Static_assert(sizeof(struct flock) == 32, "struct flock differs from the kernel's");

/* The regions found so far; overflow remembers that MAX was not enough. */
struct region_list {
  struct mem_region *out;
  int n, max;
  bool overflow;
};

static void add_region(struct region_list *l, uint64_t addr, uint64_t len) {
  if (addr == 0 || len == 0)
    return;
  if (l->n >= l->max) {
    l->overflow = true;
    return;
  }
  l->out[l->n].addr = addr;
  l->out[l->n].len = len;
  l->n++;
}

static bool interrupted(int64_t result) {
  return result == -EINTR || result == -ERESTARTSYS || result == -ERESTARTNOINTR ||
         result == -ERESTARTNOHAND || result == -ERESTART_RESTARTBLOCK;
}

static uint64_t elem_size(const struct syscall_out *o) { return o->size ? o->size : 1; }

static int read_mem(syscall_mem_read_fn rd, void *ctx, uint64_t addr, void *buf, size_t len) {
  if (rd == NULL || addr == 0)
    return -1;
  return rd(ctx, addr, buf, len);
}

/* The first BYTES bytes spread over COUNT iovecs at IOV_ADDR. */
static int add_iovec_bytes(struct region_list *l, syscall_mem_read_fn rd, void *ctx,
                           uint64_t iov_addr, uint64_t count, uint64_t bytes) {
  struct iovec chunk[IOV_CHUNK];
  if (count > IOV_CAP)
    count = IOV_CAP;
  for (uint64_t done = 0; done < count && bytes > 0;) {
    uint64_t n = count - done < IOV_CHUNK ? count - done : IOV_CHUNK;
    if (read_mem(rd, ctx, iov_addr + done * sizeof(struct iovec), chunk,
                 n * sizeof(struct iovec)) != 0)
      return -1;
    for (uint64_t i = 0; i < n && bytes > 0; i++) {
      uint64_t len = chunk[i].iov_len < bytes ? chunk[i].iov_len : bytes;
      add_region(l, (uint64_t)(uintptr_t)chunk[i].iov_base, len);
      bytes -= len;
    }
    done += n;
  }
  return 0;
}

/* What the kernel filled in for one received message: the header fields it updates
 * (HDR_ADDR, HDR_LEN bytes), the sender address, BYTES of data and the control data. */
static int add_received_msg(struct region_list *l, syscall_mem_read_fn rd, void *ctx,
                            uint64_t hdr_addr, uint64_t hdr_len, uint64_t bytes) {
  struct msghdr m;
  if (read_mem(rd, ctx, hdr_addr, &m, sizeof m) != 0)
    return -1;
  add_region(l, hdr_addr, hdr_len);
  /* msg_namelen now holds the address's full length, which may exceed the buffer. */
  uint64_t namelen = m.msg_namelen < sizeof(struct sockaddr_storage)
                         ? m.msg_namelen
                         : sizeof(struct sockaddr_storage);
  add_region(l, (uint64_t)(uintptr_t)m.msg_name, namelen);
  if (add_iovec_bytes(l, rd, ctx, (uint64_t)(uintptr_t)m.msg_iov, m.msg_iovlen, bytes) != 0)
    return -1;
  /* msg_controllen now holds the bytes the kernel wrote. */
  add_region(l, (uint64_t)(uintptr_t)m.msg_control, m.msg_controllen);
  return 0;
}

static int add_mmsghdrs(struct region_list *l, syscall_mem_read_fn rd, void *ctx, uint64_t vec,
                        uint64_t count) {
  for (uint64_t i = 0; i < count; i++) {
    uint64_t at = vec + i * sizeof(struct mmsghdr);
    unsigned int msg_len;
    if (read_mem(rd, ctx, at + offsetof(struct mmsghdr, msg_len), &msg_len, sizeof msg_len) != 0)
      return -1;
    if (add_received_msg(l, rd, ctx, at, sizeof(struct mmsghdr), msg_len) != 0)
      return -1;
  }
  return 0;
}

static uint64_t fcntl_size(uint64_t cmd) {
  switch (cmd) {
  case F_GETLK:
  case F_OFD_GETLK: return sizeof(struct flock);
  case F_GETOWN_EX: return sizeof(struct f_owner_ex);
  case F_GET_RW_HINT:
  case F_GET_FILE_RW_HINT: return 8;
  default: return 0;
  }
}

static void add_prctl(struct region_list *l, const uint64_t args[6], int64_t result) {
  switch (args[0]) {
  case PR_GET_NAME: add_region(l, args[1], 16); break;
  case PR_GET_PDEATHSIG:
  case PR_GET_CHILD_SUBREAPER:
  case PR_GET_TSC: add_region(l, args[1], 4); break;
  case PR_GET_TID_ADDRESS:
  case PR_GET_SHADOW_STACK_STATUS: add_region(l, args[1], 8); break;
  case PR_GET_AUXV: /* returns the full size, copies at most args[2] */
    add_region(l, args[1], (uint64_t)result < args[2] ? (uint64_t)result : args[2]);
    break;
  case PR_SET_MM:
    if (args[1] == PR_SET_MM_MAP_SIZE)
      add_region(l, args[2], 4);
    break;
  case PR_SCHED_CORE:
    if (args[1] == PR_SCHED_CORE_GET)
      add_region(l, args[4], 8);
    break;
  default: break;
  }
}

/* FUTEX_WAKE_OP changes the word at uaddr2; the PI operations store owner tids and waiter
 * bits in the futex words, even when they fail after touching them. */
static void add_futex(struct region_list *l, const uint64_t args[6], int64_t result) {
  switch (args[1] & FUTEX_CMD_MASK) {
  case FUTEX_WAKE_OP:
    if (result >= 0)
      add_region(l, args[4], 4);
    break;
  case FUTEX_LOCK_PI:
  case FUTEX_LOCK_PI2:
  case FUTEX_TRYLOCK_PI:
  case FUTEX_UNLOCK_PI:
    if (result != -EFAULT)
      add_region(l, args[0], 4);
    break;
  case FUTEX_WAIT_REQUEUE_PI:
  case FUTEX_CMP_REQUEUE_PI:
    if (result != -EFAULT) {
      add_region(l, args[0], 4);
      add_region(l, args[4], 4);
    }
    break;
  default: break;
  }
}

/* clone/clone3 in the parent (result = child tid): the parent tid and pidfd words. */
static int add_clone(struct region_list *l, const struct syscall_desc *d, const uint64_t args[6],
                     syscall_mem_read_fn rd, void *ctx) {
  uint64_t flags, pidfd, parent_tid;
  if (d->nr == __NR_clone3) { /* clone3(struct clone_args *, size) */
    uint64_t head[4];         /* flags, pidfd, child_tid, parent_tid */
    if (args[1] < sizeof head || read_mem(rd, ctx, args[0], head, sizeof head) != 0)
      return -1;
    flags = head[0];
    pidfd = head[1];
    parent_tid = head[3];
  } else { /* clone(flags, stack, parent_tid, child_tid, tls); pidfd shares parent_tid */
    flags = args[0];
    pidfd = args[2];
    parent_tid = args[2];
  }
  if (flags & CLONE_PIDFD_FLAG)
    add_region(l, pidfd, 4);
  if ((flags & CLONE_PARENT_SETTID_FLAG) && !((flags & CLONE_PIDFD_FLAG) && parent_tid == pidfd))
    add_region(l, parent_tid, 4);
  return 0;
}

/* Adapter from special_regions' callbacks to the region list. */
struct special_ctx {
  struct special_regions s;
  struct region_list *l;
  syscall_mem_read_fn rd;
  void *ctx;
};

static void special_add(struct special_regions *s, uint64_t addr, uint64_t len) {
  add_region(((struct special_ctx *)s)->l, addr, len);
}

static int special_read(struct special_regions *s, uint64_t addr, void *buf, size_t len) {
  struct special_ctx *c = (struct special_ctx *)s;
  return read_mem(c->rd, c->ctx, addr, buf, len);
}

/* One table entry's regions; -1 when tracee memory could not be read. */
static int add_out(struct region_list *l, const struct syscall_desc *d, const struct syscall_out *o,
                   const uint64_t args[6], int64_t result, syscall_mem_read_fn rd, void *ctx) {
  uint64_t ptr = args[o->ptr_arg];
  uint64_t count = args[o->size_arg];
  uint64_t res = result > 0 ? (uint64_t)result : 0;

  if (o->kind == OUT_FIXED_IF_INTERRUPTED) {
    if (interrupted(result))
      add_region(l, ptr, o->size);
    return 0;
  }
  if (o->kind == OUT_FIXED_ALWAYS) {
    if (result != -EFAULT)
      add_region(l, ptr, o->size);
    return 0;
  }
  if (o->kind == OUT_POLLFD) { /* revents are stored even when a signal cut the wait */
    if (result >= 0 || interrupted(result))
      add_region(l, ptr, count * sizeof(struct pollfd));
    return 0;
  }
  if (o->kind == OUT_FUTEX) {
    add_futex(l, args, result);
    return 0;
  }
  if (o->kind == OUT_SPECIAL) { /* some write even when they fail (capget) */
    struct special_ctx c = {{special_add, special_read}, l, rd, ctx};
    return special_regions(d, args, result, &c.s);
  }
  if (result < 0)
    return 0;

  switch (o->kind) {
  case OUT_FIXED: add_region(l, ptr, o->size); break;
  case OUT_ARG: add_region(l, ptr, count * elem_size(o)); break;
  case OUT_RESULT: add_region(l, ptr, res * elem_size(o)); break;
  case OUT_MIN_ARG_RESULT: add_region(l, ptr, (res < count ? res : count) * elem_size(o)); break;
  case OUT_SOCKLEN: {
    uint32_t len;
    if (ptr == 0 || count == 0) /* no buffer: the kernel ignores the length word */
      break;
    if (read_mem(rd, ctx, count, &len, sizeof len) != 0)
      return -1;
    add_region(l, ptr, len < o->size ? len : o->size);
    add_region(l, count, sizeof len);
    break;
  }
  case OUT_IOVEC_RESULT:
    if (res > 0 && ptr != 0)
      return add_iovec_bytes(l, rd, ctx, ptr, count, res);
    break;
  case OUT_MSGHDR:
    if (ptr != 0)
      return add_received_msg(l, rd, ctx, ptr, sizeof(struct msghdr), res);
    break;
  case OUT_MMSGHDR:
    if (ptr != 0)
      return add_mmsghdrs(l, rd, ctx, ptr, res < count ? res : count);
    break;
  case OUT_MMSGHDR_SENT:
    for (uint64_t i = 0; i < res && i < count && ptr != 0; i++)
      add_region(l, ptr + i * sizeof(struct mmsghdr) + offsetof(struct mmsghdr, msg_len),
                 sizeof(unsigned int));
    break;
  case OUT_FDSET: add_region(l, ptr, (args[0] + 63) / 64 * 8); break;
  case OUT_EPOLL: add_region(l, ptr, res * sizeof(struct epoll_event)); break;
  case OUT_GETDENTS: add_region(l, ptr, res); break;
  case OUT_IOCTL: {
    struct special_ctx c = {{special_add, special_read}, l, rd, ctx};
    return ioctl_regions(args, result, &c.s);
  }
  case OUT_FCNTL: add_region(l, ptr, fcntl_size(args[1])); break;
  case OUT_PRCTL: add_prctl(l, args, result); break;
  case OUT_PAGES: add_region(l, ptr, (count + PAGE_BYTES - 1) / PAGE_BYTES); break;
  case OUT_NODEMASK: /* the kernel copies maxnode - 1 bits, rounded up to longs */
    if (count > 1)
      add_region(l, ptr, (count - 1 + 63) / 64 * 8);
    break;
  case OUT_CLONE:
    if (result > 0)
      return add_clone(l, d, args, rd, ctx);
    break;
  default: break;
  }
  return 0;
}

int syscall_written_regions(const struct syscall_desc *d, const uint64_t args[6], int64_t result,
                            syscall_mem_read_fn rd, void *rd_ctx, struct mem_region *out, int max) {
  struct region_list l = {.out = out, .n = 0, .max = max, .overflow = false};
  if (d == NULL)
    return 0;
  for (int i = 0; i < SYSCALL_MAX_OUT && d->out[i].kind != OUT_NONE; i++) {
    if (add_out(&l, d, &d->out[i], args, result, rd, rd_ctx) != 0)
      return -2;
  }
  return l.overflow ? -1 : l.n;
}
