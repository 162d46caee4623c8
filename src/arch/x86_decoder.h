/* The one capstone x86-64 decoder (with operand details) the arch/ files share. */
#ifndef DEJA_ARCH_X86_DECODER_H
#define DEJA_ARCH_X86_DECODER_H

#include <capstone/capstone.h>

/* Made on first use; 0 when capstone cannot make one. */
csh x86_decoder(void);

#endif
