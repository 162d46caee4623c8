/* A buffered call that blocks: the main thread opens a FIFO for reading (an open the
   library makes untraced) until another thread, after a sleep, opens it for writing. The
   recorder interrupts the blocked open and restarts it as a traced call. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
static char path[256];
static void *writer(void *arg) {
  (void)arg;
  struct timespec ts = {0, 30 * 1000 * 1000};
  nanosleep(&ts, NULL);
  int fd = open(path, O_WRONLY);
  if (fd < 0 || write(fd, "hi", 2) != 2)
    return (void *)1;
  close(fd);
  return NULL;
}
int main(void) {
  snprintf(path, sizeof path, "/tmp/deja-fifo-%d", getpid());
  if (mkfifo(path, 0600) != 0)
    return 2;
  pthread_t t;
  pthread_create(&t, NULL, writer, NULL);
  int fd = open(path, O_RDONLY);
  char buf[3] = {0};
  ssize_t n = read(fd, buf, 2);
  void *rv;
  pthread_join(t, &rv);
  unlink(path);
  printf("read %zd: %s, writer %s\n", n, buf, rv ? "failed" : "ok");
  return 0;
}
