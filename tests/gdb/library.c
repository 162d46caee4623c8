/* gdb_library: calls into libgdbdemo.so (library_v1.c), which the test replaces with a
 * different build (library_v2.c) after recording: gdb must read the recorded one. */
#include <stdio.h>

struct demo_shape;
int demo_value(void);
extern const char demo_name[];

int main(void) {
  printf("%d %s\n", demo_value(), demo_name);
  return 0;
}
