/* mt_stack_reuse: each thread signals that it is done and exits; the main thread, woken,
 * at once starts the next one. glibc gives the new thread a cached stack only once the
 * kernel has cleared the old thread's tid word (CLONE_CHILD_CLEARTID) on its way out, so
 * which stack each thread gets depends on how far the previous exit had come: replay
 * must see the words as the recording did (the stack's address is in the registers at
 * the next system call). Python's threading tests start threads this way. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#define THREADS 400

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;
static int done;
static void *worker(void *arg) {
  int i = (int)(intptr_t)arg;
  pthread_mutex_lock(&lock);
  done = i + 1;
  pthread_cond_signal(&done_cond);
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  for (int i = 0; i < THREADS; i++) {
    pthread_t t;
    if (pthread_create(&t, &attr, worker, (void *)(intptr_t)i) != 0) {
      perror("pthread_create");
      return 1;
    }
    pthread_mutex_lock(&lock);
    while (done != i + 1)
      pthread_cond_wait(&done_cond, &lock);
    pthread_mutex_unlock(&lock);
  }
  printf("threads %d\n", THREADS);
  return 0;
}
