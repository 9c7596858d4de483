#!/usr/bin/env python3
"""runelf.py — writes the regression inputs of fuzz_runelf (vftr-run's own
ELF check) into test/fuzz/regress/runelf/:

  two-dynamic   two PT_DYNAMIC program headers: the reader kept the first
                one's copy and lost it (a leak per such file)

Run from the top directory: python3 test/fuzz/regress/runelf.py
"""
import struct


def elf(needed, ndynamic):
    strtab = b'\0' + needed + b'\0'
    ehsize, phsize = 64, 56
    nph = 1 + ndynamic
    dynoff = ehsize + nph * phsize
    dyn = [(5, 0x400000 + dynoff + 16 * 4), (10, len(strtab)), (1, 1), (0, 0)]
    total = dynoff + 16 * len(dyn) + len(strtab)
    eh = b'\x7fELF' + bytes([2, 1, 1]) + b'\0' * 9
    eh += struct.pack('<HHIQQQIHHHHHH', 2, 62, 1, 0x400000, ehsize, 0, 0, ehsize, phsize, nph, 0, 0, 0)
    ph = struct.pack('<IIQQQQQQ', 1, 5, 0, 0x400000, 0x400000, total, total, 0x1000)
    for _ in range(ndynamic):
        ph += struct.pack('<IIQQQQQQ', 2, 6, dynoff, 0x400000 + dynoff, 0x400000 + dynoff,
                          16 * len(dyn), 16 * len(dyn), 8)
    return eh + ph + b''.join(struct.pack('<qQ', t, v) for t, v in dyn) + strtab


open('test/fuzz/regress/runelf/two-dynamic', 'wb').write(elf(b'libfoo.so.1', 2))
