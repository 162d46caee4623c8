/* An ioctl deja does not know (SIOCETHTOOL: the kernel writes through a pointer inside
   the request's struct): the recording says so; the program prints only the result, so
   the replay still matches. Then tun (/dev/net/tun, or its error): TUNSETIFF writes back
   the name the kernel chose, TUNGETIFF a whole struct ifreq though its encoding says 4
   bytes. The time printed differs per run. */
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/if_tun.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "check.h"

static void tun(void) {
  int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    printf("open /dev/net/tun: errno %d\n", errno);
    return;
  }
  unsigned features = 0;
  SHOW_CALL("TUNGETFEATURES", ioctl(fd, TUNGETFEATURES, &features));
  printf("features %x\n", features);
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "dejatun%%d");
  ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
  errno = 0;
  int rc = ioctl(fd, TUNSETIFF, &ifr);
  printf("TUNSETIFF: %d errno %d name %s\n", rc, rc ? errno : 0, ifr.ifr_name);
  char *page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(page != MAP_FAILED && mprotect(page + 4096, 4096, PROT_NONE) == 0);
  struct ifreq *got = (struct ifreq *)(page + 4096 - sizeof *got);
  memset(got, 0x5a, sizeof *got);
  errno = 0;
  rc = ioctl(fd, TUNGETIFF, got);
  printf("TUNGETIFF: %d errno %d name %s flags %x\n", rc, rc ? errno : 0, rc ? "-" : got->ifr_name,
         rc ? 0 : (unsigned)got->ifr_flags);
  close(fd);
}

int main(void) {
  int s = socket(AF_INET, SOCK_DGRAM, 0);
  CHECK(s >= 0);
  struct ethtool_value v = {ETHTOOL_GLINK, 0};
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "lo");
  ifr.ifr_data = (char *)&v;
  SHOW_CALL("SIOCETHTOOL GLINK lo", ioctl(s, SIOCETHTOOL, &ifr));
  close(s);
  tun();
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  printf("time %lld.%09ld\n", (long long)ts.tv_sec, ts.tv_nsec);
  return 0;
}
