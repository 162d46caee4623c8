/* rdtsc and rdtscp: counter values that differ from run to run and grow. */
#include <stdio.h>
#include <x86intrin.h>
#include "check.h"

int main(void) {
  unsigned long long first = __rdtsc();
  unsigned int aux = 0;
  unsigned long long second = __rdtscp(&aux);
  unsigned long long third = __rdtsc();
  printf("rdtsc: %llu\n", first);
  printf("rdtscp: %llu (aux %u)\n", second, aux);
  printf("rdtsc: %llu\n", third);
  CHECK(second >= first && third >= second);
  unsigned long long sum = 0;
  for (int i = 0; i < 100; i++)
    sum += __rdtsc() & 0xff;
  printf("sum of 100 low bytes: %llu\n", sum);
  return 0;
}
