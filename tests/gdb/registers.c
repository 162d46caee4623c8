/* gdb_registers: known bytes and strings in memory, floating point values in xmm0. */
#include <stdio.h>

unsigned char known_bytes[4] = {0xde, 0xad, 0xbe, 0xef};
const char *greeting = "hello from deja";
char message[32] = "replayed string";

double scale(double value)
{
    return value * 2.5;
}

int main(void)
{
    double scaled = scale(4.0);
    printf("%s %s %g %x\n", greeting, message, scaled, known_bytes[0]);
    return 0;
}
