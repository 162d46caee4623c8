// deja query on C++ (query_test.py's cpp case, built there with g++): qualified names of a
// namespace's function and variable and of a class's method and static member, which
// the query names as written, not mangled. The counts depend on the clock.
#include <cstdio>
#include <ctime>

namespace ns {
int counter; // ns::twice adds x once
struct Counter {
  static int total; // bump adds `by' three times
  int v = 0;
  __attribute__((noinline)) int bump(int by) {
    v += by;
    total += by;
    return v;
  }
};
int Counter::total;
__attribute__((noinline)) int twice(int x) {
  counter += x;
  return 2 * x;
}
} // namespace ns

__attribute__((noinline)) int twice(int x) { return 3 * x; } // the global one

int main() {
  timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  int k = 1 + (int)(t.tv_nsec % 5);
  ns::Counter c;
  for (int i = 0; i < 3; i++)
    c.bump(k + i);
  int s = ns::twice(k) + twice(k);
  std::printf("k=%d v=%d total=%d counter=%d s=%d\n", k, c.v, ns::Counter::total, ns::counter, s);
  return 0;
}
