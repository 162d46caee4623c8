/* The shared capstone decoder (see x86_decoder.h). */
#include "arch/x86_decoder.h"

csh x86_decoder(void) {
  static csh h;
  static int state; /* 0: not tried, 1: ready, -1: unavailable */
  if (state == 0) {
    state = cs_open(CS_ARCH_X86, CS_MODE_64, &h) == CS_ERR_OK ? 1 : -1;
    if (state == 1)
      cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
  }
  return state == 1 ? h : 0;
}
