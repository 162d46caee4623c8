/* The one capstone x86-64 decoder (with operand details) the arch/ files share.
 * Capstone is loaded (dlopen) on first use, not linked: its 78 000 relocations and
 * ~350 page faults cost every deja process ~1 ms at start, and only replay's reverse
 * execution and watchpoints decode instructions. */
#ifndef DEJA_ARCH_X86_DECODER_H
#define DEJA_ARCH_X86_DECODER_H

#include <capstone/capstone.h>

/* Capstone's functions, valid once x86_decoder() returned a handle. */
struct x86_capstone {
  cs_err (*open)(cs_arch arch, cs_mode mode, csh *handle);
  cs_err (*option)(csh handle, cs_opt_type type, size_t value);
  size_t (*disasm)(csh handle, const uint8_t *code, size_t size, uint64_t address, size_t count,
                   cs_insn **insn);
  bool (*disasm_iter)(csh handle, const uint8_t **code, size_t *size, uint64_t *address,
                      cs_insn *insn);
  cs_insn *(*malloc)(csh handle);
  void (*free)(cs_insn *insn, size_t count);
  bool (*insn_group)(csh handle, const cs_insn *insn, unsigned int group_id);
};
extern struct x86_capstone x86_cs;

/* Made on first use; 0 when capstone cannot be loaded or cannot make one. */
csh x86_decoder(void);
/* The one instruction at the start of CODE (LEN bytes at ADDR), with its details; NULL
 * when none decodes (or no decoder). Free it with x86_cs.free(insn, 1). */
cs_insn *x86_decode_one(const uint8_t *code, size_t len, uint64_t addr);
/* The next instruction of a linear sweep through *CODE (*LEFT bytes at *ADDR) into INSN,
 * stepping over bytes that decode as none (data, padding) one at a time; false at the
 * end. */
bool x86_next_insn(csh h, const uint8_t **code, size_t *left, uint64_t *addr, cs_insn *insn);

/* Whether operand I of INSN is memory the instruction writes. Capstone's access flags
 * are not enough: capstone 4 says that most vector stores (movups, vmovdqu, vmovdqu64:
 * libc's memset and memcpy), x87 and MXCSR stores, cmpxchg and movbe only read their
 * destination. A memory destination (the first operand, capstone's Intel order) of an
 * instruction with two or more operands is written, but for cmp, test, bt and cmps; and
 * so is the one operand of the x87/MXCSR stores. */
bool x86_mem_written(const cs_insn *insn, int i);
/* Whether operand I of INSN is memory the instruction reads: capstone's read flag, but
 * for the stores above that capstone says only read (cmpxchg reads and writes). */
bool x86_mem_read(const cs_insn *insn, int i);

/* The address memory operand OP of an instruction ending at NEXT_RIP names with
 * registers R (FS_BASE/GS_BASE from R for a segment override). */
struct user_regs_struct;
uint64_t x86_mem_address(const cs_x86_op *op, const struct user_regs_struct *r, uint64_t next_rip);

#endif
