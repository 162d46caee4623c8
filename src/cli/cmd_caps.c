/* `deja caps`: the processor features deja can use on this machine (task/hw_caps.h). */
#include <stdio.h>

#include "cli/commands.h"
#include "task/hw_caps.h"

int cmd_caps(int argc, char **argv) {
  if (argc > 1) {
    print_usage(stderr, "caps");
    return 1;
  }
  (void)argv;
  hw_caps_print(stdout);
  return 0;
}
