#!/usr/bin/env python3
"""vfdshare.py — writes the regression inputs of fuzz_vfdshare (the exchange
of vfd2otf-mpi's first pass, see test/fuzz/fuzz_vfdshare.c) into
test/fuzz/regress/vfdshare/: a recorded real exchange (the seed
test/fuzz/corpus/vfdshare/basic, two ranks) with one field of what another
rank sends made hostile, as the fuzzer found them:

  act-length    an action's length beyond the record (read past the buffer)
  tps-zero      a clock rate of 0 (integer division by zero, SIGFPE)
  scan-rc-min   a failed scan's errno of INT_MIN and no message (negated:
                undefined; the open failed without saying why)
  clock-far     clock offsets at the ends of 64 bits (float-to-int
                conversions and signed overflows out of range)

Run from the top directory: python3 test/fuzz/regress/vfdshare.py
"""
import struct

HOST_MAX = 256
SEED = 'test/fuzz/corpus/vfdshare/basic'
OUT = 'test/fuzz/regress/vfdshare/'


def records(buf):
    """(start, fields) of every rank record of the first pass (put_rank)."""
    out, p = [], 0
    while p < len(buf):
        start, f = p, {}
        p += 8                                  # file index
        f['scan_rc'] = p
        p += 20                                 # scan_rc, rank, complete, have_run_id, size
        for name in ('scan_err', 'path'):
            n, = struct.unpack_from('<Q', buf, p)
            p += 8 + (0 if n == 2**64 - 1 else n)
        f['tps'] = p
        p += 6 * 8 + HOST_MAX + 16              # tps .. events, host, run id
        f['have_clock'] = p
        p += 8
        f['clock'] = p
        p += 2 * 32                             # phase, ticks, root_ticks, rtt (padded)
        nthr, = struct.unpack_from('<Q', buf, p)
        p += 8 + 64 * nthr
        nch, = struct.unpack_from('<Q', buf, p)
        p += 8 + 24 * nch
        nacts, = struct.unpack_from('<Q', buf, p)
        f['acts'] = p + 8
        p += 8 + nacts
        out.append((start, f))
    assert p == len(buf)
    return out


data = open(SEED, 'rb').read()
l1, = struct.unpack_from('<I', data, 1)
head, buf1, buf2 = data[:5], bytearray(data[5:5 + l1]), data[5 + l1:]
recs = records(bytes(buf1))


def write(name, b):
    open(OUT + name, 'wb').write(head + bytes(b) + buf2)


b = bytearray(buf1)
struct.pack_into('<I', b, recs[0][1]['acts'] + 4, 0xfff0)       # first action's length
write('act-length', b)
b = bytearray(buf1)
struct.pack_into('<Q', b, recs[1][1]['tps'], 0)
write('tps-zero', b)
b = bytearray(buf1)
struct.pack_into('<i', b, recs[1][1]['scan_rc'], -2**31)
write('scan-rc-min', b)
b = bytearray(buf1)
struct.pack_into('<ii', b, recs[1][1]['have_clock'], 1, 1)
for k, (t, root) in enumerate(((2**63 - 1, 0), (2**64 - 1, 2**63))):
    struct.pack_into('<IIQQQ', b, recs[1][1]['clock'] + 32 * k, k, 0, t, root, 2**64 - 1)
write('clock-far', b)
