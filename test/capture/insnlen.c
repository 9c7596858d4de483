/*
 * insnlen — the patcher's x86-64 instruction decoder (capture/patch.c,
 * vftr_patch_insn_len) against a reference disassembly (capture_patch.sh).
 *
 * Reads lines of hexadecimal bytes, one function's code a line, as objdump
 * prints them; decodes each from its start and prints the lengths found,
 * separated by blanks, ending with 0 where the decoder stopped (a byte it
 * does not know) or nothing when it reached the end exactly.  The script
 * compares them with objdump's instruction lengths.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"

static int nibble(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int main(void)
{
    static char line[1 << 20];
    static uint8_t code[1 << 19];

    while (fgets(line, sizeof line, stdin) != NULL) {
        size_t n = 0, at = 0;

        for (char *p = line; p[0] && p[1] && n < sizeof code;) {
            int hi = nibble(p[0]), lo = nibble(p[1]);

            if (hi < 0 || lo < 0) {
                p++;
                continue;
            }
            code[n++] = (uint8_t)(hi << 4 | lo);
            p += 2;
        }
        while (at < n) {
            size_t len = vftr_patch_insn_len(code + at, n - at);

            printf(at ? " %zu" : "%zu", len);
            if (len == 0)
                break;
            at += len;
        }
        putchar('\n');
    }
    return 0;
}
