#!/usr/bin/python3
"""pfcheck.py PROTO_DIR TRACE — decodes a Perfetto trace vftr wrote with
protoc and Perfetto's own .proto files (test/data/perfetto), packet by
packet, inflating compressed_packets bundles first (zlib, as
trace_processor does), and checks what a viewer relies on:
  - protoc decodes every packet with no field it does not know;
  - every sequence starts with its incremental state cleared, defaults and
    an incremental clock before any event;
  - every event names an interned name (per sequence) or carries its own;
  - slices nest per track (an end closes the latest begin);
  - every terminating flow id was started by an earlier send;
  - timestamps (deltas on the incremental clock) never go back.
Prints one line of counts: "packets P begins B ends E instants I counters C
flows F", exit 1 with the first problem otherwise.
"""
import re
import subprocess
import sys
import zlib

proto_dir, path = sys.argv[1], sys.argv[2]
data = open(path, "rb").read()


def varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7f) << s
        s += 7
        if c < 0x80:
            return v, i


def fields(b):
    """(field, wiretype, value-or-bytes) of a message's top level."""
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        f, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 1:
            v, i = b[i:i + 8], i + 8
        elif wt == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        elif wt == 5:
            v, i = b[i:i + 4], i + 4
        else:
            sys.exit("pfcheck: %s: wire type %d at offset %d" % (path, wt, i))
        yield f, wt, v


def fail(msg):
    print("pfcheck: %s: %s" % (path, msg))
    sys.exit(1)


# the packets, bundles inflated (Trace.packet = field 1)
packets = []
for f, wt, v in fields(data):
    if f != 1 or wt != 2:
        fail("a top-level field %d that is no packet" % f)
    inner = {g: w for g, _, w in fields(v)}
    if 50 in inner:
        if len(v) + 8 > 512 * 1024:
            fail("a compressed bundle of %d bytes (Perfetto's limit: 512 KiB)" % len(v))
        for g, wt2, p in fields(zlib.decompress(inner[50])):
            packets.append(p)
    else:
        packets.append(v)

# protoc, one Trace of all packets
out = bytearray()
for p in packets:
    n = len(p)
    out += b"\x0a"
    while n >= 0x80:
        out.append((n & 0x7f) | 0x80)
        n >>= 7
    out.append(n)
    out += p
r = subprocess.run(["protoc", "-I", proto_dir, "--decode=perfetto.protos.Trace",
                    "protos/perfetto/trace/trace.proto"], input=bytes(out),
                   capture_output=True)
if r.returncode != 0:
    fail("protoc cannot decode it: " + r.stderr.decode()[:300])
text = r.stdout.decode()
unknown = re.findall(r"^\s*\d+: ", text, re.M)
if unknown:
    fail("fields protoc does not know: %s" % unknown[:3])

# walk the decoded text, one packet at a time
blocks = re.split(r"^packet \{\n", text, flags=re.M)[1:]
if len(blocks) != len(packets):
    fail("protoc shows %d packets, the file has %d" % (len(blocks), len(packets)))
seqs = {}
stacks = {}
flows = set()
n = {"begins": 0, "ends": 0, "instants": 0, "counters": 0, "flows": 0}


def val(block, key):
    m = re.search(r"^\s*%s: (\S+)" % key, block, re.M)
    return m.group(1) if m else None


for b in blocks:
    seq = val(b, "trusted_packet_sequence_id")
    st = seqs.setdefault(seq, {"clear": False, "names": set(), "ts": 0, "default": None})
    if val(b, "sequence_flags") == "1":
        st["clear"] = True
        st["names"] = set()
        st["ts"] = 0
        m = re.search(r"track_event_defaults \{\s*track_uuid: (\d+)", b)
        st["default"] = m.group(1) if m else None
        if "is_incremental: true" not in b or "timestamp_clock_id: 64" not in b:
            fail("sequence %s: cleared without the incremental clock" % seq)
    for m in re.finditer(r"event_names \{\s*iid: (\d+)\s*name: \"", b):
        st["names"].add(m.group(1))
    if "track_event {" not in b:
        continue
    if not st["clear"]:
        fail("sequence %s: an event before its state was cleared" % seq)
    delta = val(b, "timestamp")
    if delta is None:
        fail("sequence %s: an event without a timestamp" % seq)
    st["ts"] += int(delta)
    te = b[b.index("track_event {"):]
    typ = val(te, "type")
    track = val(te, "track_uuid") or st["default"]
    iid = val(te, "name_iid")
    if iid is not None and iid not in st["names"]:
        fail("sequence %s: name_iid %s used before it was interned" % (seq, iid))
    name = iid or val(te, "name")
    stack = stacks.setdefault(track, [])
    if typ == "TYPE_SLICE_BEGIN":
        n["begins"] += 1
        stack.append(name)
    elif typ == "TYPE_SLICE_END":
        n["ends"] += 1
        if not stack:
            fail("track %s: a slice end without a begin at %d" % (track, st["ts"]))
        stack.pop()
    elif typ == "TYPE_INSTANT":
        n["instants"] += 1
    elif typ == "TYPE_COUNTER":
        n["counters"] += 1
    for m in re.finditer(r"^\s*flow_ids: (\d+)", te, re.M):
        flows.add(m.group(1))
    for m in re.finditer(r"^\s*terminating_flow_ids: (\d+)", te, re.M):
        if m.group(1) not in flows:
            fail("flow %s ends before it starts" % m.group(1))
        n["flows"] += 1
print("packets %d begins %d ends %d instants %d counters %d flows %d" % (
    len(packets), n["begins"], n["ends"], n["instants"], n["counters"], n["flows"]))
