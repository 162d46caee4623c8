/* What an ioctl writes: the request's encoding (direction and size) where it tells the
 * truth, a table of the requests whose encoding does not (legacy ones without a size,
 * ones that name a long but write an int, ones that write back a struct they were
 * given), requests whose output is sized by its own content (SIOCGIFCONF,
 * FS_IOC_FIEMAP), and whether deja knows a request at all. Sizes are the x86-64
 * kernel's. */
#include "syscalls/syscall_ioctl.h"

#include <linux/fs.h>
#include <linux/fiemap.h>
#include <linux/hdreg.h>
#include <linux/loop.h>
#include <linux/serial.h>
#include <linux/sockios.h>
#include <linux/vt.h>
#include <linux/vm_sockets.h>
#include <linux/kd.h>
#include <linux/if_tun.h>
#include <linux/perf_event.h>
#include <asm/termbits.h>
#include <sys/ioctl.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <stddef.h>

#define IFREQ_SIZE sizeof(struct ifreq)
#define FIEMAP_EXTENT_SIZE sizeof(struct fiemap_extent)

/* A request whose encoding does not say what it writes: the bytes it writes at args[2]
 * when it succeeds (0: nothing). */
struct ioctl_fact {
  uint32_t request;
  uint32_t size;
};

static const struct ioctl_fact facts[] = {
    /* terminals */
    {TCGETS, sizeof(struct termios)}, /* the kernel's (36 bytes), not glibc's (60) */
    {TIOCGLCKTRMIOS, sizeof(struct termios)},
    {TCGETA, sizeof(struct termio)},
    {TIOCGWINSZ, sizeof(struct winsize)},
    {TIOCGPGRP, 4},
    {TIOCGSID, 4},
    {FIONREAD, 4},
    {TIOCOUTQ, 4},
    {TIOCMGET, 4},
    {TIOCGETD, 4},
    {TIOCGSOFTCAR, 4},
    {TIOCGSERIAL, sizeof(struct serial_struct)},
    {TIOCGICOUNT, sizeof(struct serial_icounter_struct)},
    {TIOCGRS485, sizeof(struct serial_rs485)},
    {TIOCSRS485, sizeof(struct serial_rs485)}, /* writes back what the driver took */
    {TIOCLINUX, 1},                            /* some subcodes answer in the code's byte */
    {FIOQSIZE, 8},
    {TCSETS, 0},
    {TCSETSW, 0},
    {TCSETSF, 0},
    {TCSETA, 0},
    {TCSETAW, 0},
    {TCSETAF, 0},
    {TCSBRK, 0},
    {TCSBRKP, 0},
    {TCXONC, 0},
    {TCFLSH, 0},
    {TIOCEXCL, 0},
    {TIOCNXCL, 0},
    {TIOCSCTTY, 0},
    {TIOCNOTTY, 0},
    {TIOCSPGRP, 0},
    {TIOCSTI, 0},
    {TIOCSWINSZ, 0},
    {TIOCMBIS, 0},
    {TIOCMBIC, 0},
    {TIOCMSET, 0},
    {TIOCSSOFTCAR, 0},
    {TIOCCONS, 0},
    {TIOCSSERIAL, 0},
    {TIOCPKT, 0},
    {TIOCSETD, 0},
    {TIOCSBRK, 0},
    {TIOCCBRK, 0},
    {TIOCSLCKTRMIOS, 0},
    {TIOCVHANGUP, 0},
    {TIOCMIWAIT, 0},
    {FIONBIO, 0},
    {FIONCLEX, 0},
    {FIOCLEX, 0},
    {FIOASYNC, 0},
    {TIOCGPTPEER, 0}, /* returns a descriptor */
    /* virtual terminals and keyboards */
    {VT_OPENQRY, 4},
    {VT_GETMODE, sizeof(struct vt_mode)},
    {VT_GETSTATE, sizeof(struct vt_stat)},
    {KDGETMODE, 4},
    {KDGKBMODE, 4},
    {KDGKBMETA, 4},
    {KDGKBTYPE, 1},
    {KDGETLED, 1},
    {KDGKBLED, 1},
    {VT_SETMODE, 0},
    {VT_RELDISP, 0},
    {VT_ACTIVATE, 0},
    {VT_WAITACTIVE, 0},
    {VT_DISALLOCATE, 0},
    {KDSETMODE, 0},
    {KDSKBMODE, 0},
    {KDSKBMETA, 0},
    {KDSETLED, 0},
    {KDSKBLED, 0},
    {KIOCSOUND, 0},
    {KDMKTONE, 0},
    /* files and block devices */
    {FS_IOC_GETFLAGS, 4}, /* encoded with a long, the kernel writes an int */
    {FS_IOC_GETVERSION, 4},
    {FIBMAP, 4},
    {FIGETBSZ, 4},
    {BLKROGET, 4},
    {BLKGETSIZE, 8},
    {BLKRAGET, 8},
    {BLKFRAGET, 8},
    {BLKSECTGET, 2},
    {BLKSSZGET, 4},
    {BLKBSZGET, 4}, /* encoded with a size_t, the kernel writes an int */
    {BLKIOMIN, 4},
    {BLKIOOPT, 4},
    {BLKALIGNOFF, 4},
    {BLKPBSZGET, 4},
    {BLKDISCARDZEROES, 4},
    {BLKROTATIONAL, 2},
    {HDIO_GETGEO, sizeof(struct hd_geometry)},
    {LOOP_GET_STATUS, sizeof(struct loop_info)},
    {LOOP_GET_STATUS64, sizeof(struct loop_info64)},
    {BLKROSET, 0},
    {BLKRRPART, 0},
    {BLKFLSBUF, 0},
    {BLKRASET, 0},
    {BLKFRASET, 0},
    {LOOP_SET_FD, 0},
    {LOOP_CLR_FD, 0},
    {LOOP_SET_STATUS, 0},
    {LOOP_SET_STATUS64, 0},
    {LOOP_CHANGE_FD, 0},
    {LOOP_SET_CAPACITY, 0},
    {LOOP_SET_DIRECT_IO, 0},
    {LOOP_SET_BLOCK_SIZE, 0},
    {LOOP_CONFIGURE, 0},
    {LOOP_CTL_ADD, 0},
    {LOOP_CTL_REMOVE, 0},
    {LOOP_CTL_GET_FREE, 0},
    /* tun: TUNSETIFF writes back the name it chose, TUNGETIFF a whole ifreq */
    {TUNSETIFF, IFREQ_SIZE},
    {TUNGETIFF, IFREQ_SIZE},
    /* perf events (the preload library's context-switch event, programs' counters) */
    {PERF_EVENT_IOC_ENABLE, 0},
    {PERF_EVENT_IOC_DISABLE, 0},
    {PERF_EVENT_IOC_REFRESH, 0},
    {PERF_EVENT_IOC_RESET, 0},
    /* sockets and network devices */
    {FIOGETOWN, 4},
    {SIOCGPGRP, 4},
    {SIOCATMARK, 4},
    {SIOCOUTQNSD, 4},
    {SIOCGSTAMP_OLD, 16},
    {SIOCGSTAMPNS_OLD, 16},
    {SIOCGIFNAME, IFREQ_SIZE},
    {SIOCGIFFLAGS, IFREQ_SIZE},
    {SIOCGIFADDR, IFREQ_SIZE},
    {SIOCGIFDSTADDR, IFREQ_SIZE},
    {SIOCGIFBRDADDR, IFREQ_SIZE},
    {SIOCGIFNETMASK, IFREQ_SIZE},
    {SIOCGIFMETRIC, IFREQ_SIZE},
    {SIOCGIFMTU, IFREQ_SIZE},
    {SIOCGIFHWADDR, IFREQ_SIZE},
    {SIOCGIFINDEX, IFREQ_SIZE},
    {SIOCGIFTXQLEN, IFREQ_SIZE},
    {SIOCGIFMAP, IFREQ_SIZE},
    {SIOCGIFPFLAGS, IFREQ_SIZE},
    {SIOCGIFMEM, IFREQ_SIZE},
    {SIOCGIFSLAVE, IFREQ_SIZE},
    {SIOCGMIIPHY, IFREQ_SIZE},
    {SIOCGMIIREG, IFREQ_SIZE},
    {SIOCGARP, sizeof(struct arpreq)},
    {IOCTL_VM_SOCKETS_GET_LOCAL_CID, 4}, /* on /dev/vsock: the CID, encoded without a size */
    {FIOSETOWN, 0},
    {SIOCSPGRP, 0},
    {SIOCADDRT, 0},
    {SIOCDELRT, 0},
    {SIOCSIFNAME, 0},
    {SIOCSIFLINK, 0},
    {SIOCSIFFLAGS, 0},
    {SIOCSIFADDR, 0},
    {SIOCSIFDSTADDR, 0},
    {SIOCSIFBRDADDR, 0},
    {SIOCSIFNETMASK, 0},
    {SIOCSIFMETRIC, 0},
    {SIOCSIFMTU, 0},
    {SIOCSIFHWADDR, 0},
    {SIOCSIFTXQLEN, 0},
    {SIOCSIFMAP, 0},
    {SIOCADDMULTI, 0},
    {SIOCDELMULTI, 0},
    {SIOCSIFPFLAGS, 0},
    {SIOCDIFADDR, 0},
    {SIOCSIFHWBROADCAST, 0},
    {SIOCSARP, 0},
    {SIOCDARP, 0},
};

static const struct ioctl_fact *fact_of(uint32_t request) {
  for (size_t i = 0; i < sizeof facts / sizeof facts[0]; i++)
    if (facts[i].request == request)
      return &facts[i];
  return NULL;
}

bool syscall_ioctl_known(uint32_t request) {
  return _IOC_DIR(request) != _IOC_NONE || fact_of(request) != NULL;
}

/* SIOCGIFCONF: the length word of struct ifconf, and that many bytes of its buffer. */
static int ifconf_regions(uint64_t arg, struct special_regions *s) {
  struct ifconf c;
  if (s->read(s, arg, &c, sizeof c) != 0)
    return -1;
  s->add(s, arg, sizeof c.ifc_len);
  if (c.ifc_buf && c.ifc_len > 0)
    s->add(s, (uint64_t)(uintptr_t)c.ifc_buf, (uint64_t)c.ifc_len);
  return 0;
}

/* FS_IOC_FIEMAP: the header and the extents the kernel mapped (at most as many as
 * asked for; none are written when none were asked for). */
static int fiemap_regions(uint64_t arg, struct special_regions *s) {
  struct fiemap f;
  if (s->read(s, arg, &f, sizeof f) != 0)
    return -1;
  uint32_t n = f.fm_mapped_extents < f.fm_extent_count ? f.fm_mapped_extents : f.fm_extent_count;
  s->add(s, arg, sizeof f + (uint64_t)n * FIEMAP_EXTENT_SIZE);
  return 0;
}

int ioctl_regions(const uint64_t args[6], int64_t result, struct special_regions *s) {
  uint32_t request = (uint32_t)args[1];
  uint64_t arg = args[2];
  if (result < 0 || !arg)
    return 0;
  if (request == SIOCGIFCONF)
    return ifconf_regions(arg, s);
  if (request == FS_IOC_FIEMAP)
    return fiemap_regions(arg, s);
  const struct ioctl_fact *f = fact_of(request);
  if (f)
    s->add(s, arg, f->size);
  else if ((_IOC_DIR(request) & _IOC_READ) && _IOC_SIZE(request) > 0)
    s->add(s, arg, _IOC_SIZE(request));
  return 0;
}
