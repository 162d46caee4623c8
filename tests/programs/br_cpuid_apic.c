/* Reads the APIC id of the CPU it runs on with cpuid and takes a different path on each
   CPU (more system calls on CPU 1): a replay on another CPU than the recording's must
   still follow the recorded path. */
#include <cpuid.h>
#include <stdio.h>
#include <unistd.h>

int main(void) {
  unsigned a, b, c, d;
  __cpuid(1, a, b, c, d);
  unsigned apic = b >> 24;
  for (unsigned i = 0; i < apic % 4; i++)
    getppid();
  printf("apic id %u\n", apic);
  return 0;
}
