#!/usr/bin/env python3
"""trim.py — how vftr's test copy of Perfetto's .proto files was made.

Usage: trim.py PERFETTO_CHECKOUT OUTDIR

Copies, unmodified, the .proto files that describe the messages vftr's
Perfetto writer (lib/model/sink_perfetto.c) emits (track_event/,
clock_snapshot.proto and what they import), and writes three envelope files
cut down to the fields vftr writes: trace_packet.proto (TracePacket),
trace_packet_defaults.proto (TracePacketDefaults) and
interned_data/interned_data.proto (InternedData).  The cut-down files keep
Perfetto's licence header, say that they were modified, and keep each kept
field's declaration line verbatim (a oneof's members labelled optional,
as proto2 wants outside a oneof), so that `protoc --decode` checks vftr's
field numbers against Perfetto's own text, not against a copy of vftr's.
Perfetto's files are Apache-2.0 (see the header of each).
"""
import os
import re
import sys

SRC, OUT = sys.argv[1], sys.argv[2]
P = "protos/perfetto/trace/"

# envelope: file -> (message, fields kept, imports kept)
TRIM = {
    P + "trace_packet.proto": ("TracePacket", [
        "timestamp", "timestamp_clock_id", "track_event", "track_descriptor",
        "clock_snapshot", "compressed_packets", "trusted_packet_sequence_id",
        "interned_data", "sequence_flags", "trace_packet_defaults"],
        [P + "clock_snapshot.proto", P + "interned_data/interned_data.proto",
         P + "trace_packet_defaults.proto", P + "track_event/track_descriptor.proto",
         P + "track_event/track_event.proto"]),
    P + "trace_packet_defaults.proto": ("TracePacketDefaults", [
        "timestamp_clock_id", "track_event_defaults"],
        [P + "track_event/track_event.proto"]),
    P + "interned_data/interned_data.proto": ("InternedData", [
        "event_categories", "event_names", "debug_annotation_names"],
        [P + "track_event/debug_annotation.proto", P + "track_event/track_event.proto"]),
}
COPY_ROOTS = [P + "trace.proto", P + "clock_snapshot.proto",
              P + "track_event/track_event.proto", P + "track_event/track_descriptor.proto"]


def read(path):
    with open(os.path.join(SRC, path)) as f:
        return f.read()


def write(path, text):
    full = os.path.join(OUT, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text)


def trim(path, message, fields, imports):
    text = read(path)
    header = text[:text.index("*/") + 2]
    body = text[text.index("message " + message + " {"):]
    keep = []
    for line in body.splitlines():
        m = re.match(r"\s*(?:optional|repeated)?\s*[\w.]+\s+(\w+)\s*=\s*\d+", line)
        if m and m.group(1) in fields:
            line = line.strip()
            # members of a oneof have no label; outside it proto2 needs one
            if not re.match(r"(optional|repeated)\s", line):
                line = "optional " + line
            keep.append("  " + line)
    enums = ""
    if message == "TracePacket":      # SequenceFlags, verbatim
        e = body[body.index("  enum SequenceFlags {"):]
        enums = e[:re.search(r"\n  };?\n", e).end()]
        enums = "\n".join(l for l in enums.splitlines() if not l.strip().startswith("//"))
        enums += "\n"
    return (header + "\n\n// Modified for vftr's tests: only the fields vftr writes are kept, each\n"
            "// declaration line as Perfetto has it, members of a oneof labelled\n"
            "// optional (test/data/perfetto/trim.py).\n\n"
            'syntax = "proto2";\n\n' +
            "".join('import "%s";\n' % i for i in imports) +
            "\npackage perfetto.protos;\n\nmessage %s {\n" % message + enums +
            "\n".join(keep) + "\n}\n")


done = set()
todo = list(COPY_ROOTS)
for path, (msg, fields, imports) in TRIM.items():
    write(path, trim(path, msg, fields, imports))
    done.add(path)
    todo += imports
while todo:
    path = todo.pop()
    if path in done:
        continue
    done.add(path)
    text = read(path)
    write(path, text)
    todo += re.findall(r'^import\s+"([^"]+)";', text, re.M)
