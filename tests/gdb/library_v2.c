/* The library that replaces the recorded one on disk (see library.c): other code, other
 * types, other symbol addresses. */
struct demo_shape {
  long a, b, c, d;
};

static int padding(int x) { return x * 3 + 1; }
const char demo_name[] = "replaced after the recording";
struct demo_shape demo_shape_instance = {2, 3, 4, 5};

int demo_value(void) { return padding((int)demo_shape_instance.a); }
