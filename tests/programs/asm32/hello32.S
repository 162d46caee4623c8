/* A 32-bit x86 program (no libc): writes "hello from 32-bit code" and exits 0. deja
   refuses it up front and stops a recording that executes it (error_tests.sh). */
.globl _start
_start:
  movl $4, %eax /* write */
  movl $1, %ebx
  movl $msg, %ecx
  movl $len, %edx
  int $0x80
  movl $1, %eax /* exit */
  xorl %ebx, %ebx
  int $0x80
.data
msg: .ascii "hello from 32-bit code\n"
.set len, . - msg
.section .note.GNU-stack, "", @progbits
