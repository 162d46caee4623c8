/* The library as recorded (see library.c). */
struct demo_shape {
  int a;
};

const char demo_name[] = "recorded";
struct demo_shape demo_shape_instance = {1};

int demo_value(void) { return demo_shape_instance.a; }
