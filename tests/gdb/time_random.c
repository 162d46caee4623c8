/* gdb_time_random: live values (clock, randomness) kept in globals and printed one per
   line in the order the test prints them with gdb; replay must show the recorded ones. */
#include <stdio.h>
#include <sys/random.h>
#include <time.h>

long long clock_seconds;
long long clock_nanoseconds;
unsigned long long random_value;

void values_ready(void)
{
}

int main(void)
{
    struct timespec now;
    if (clock_gettime(CLOCK_REALTIME, &now) != 0)
        return 1;
    clock_seconds = now.tv_sec;
    clock_nanoseconds = now.tv_nsec;
    if (getrandom(&random_value, sizeof random_value, 0) != sizeof random_value)
        return 1;
    values_ready();
    printf("%lld\n%lld\n%llu\n", clock_seconds, clock_nanoseconds, random_value);
    return 0;
}
