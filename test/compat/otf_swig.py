"""otf_swig.py STUB -- the OTF API through the SWIG module built from
test/compat/otf_swig.i (found on PYTHONPATH as "otf").

Writes a trace of two streams whose records tie in time, reads it back in
chunks (definitions, events with the progress after every chunk, unsorted
events), and looks at otf_errno / otf_strerr through otf.cvar after a
failing call.  Prints one line per step; test/integration/otf_compat_swig.sh
compares the output of the module built over the reference's headers with
that of the module built over vftr's.
"""
import sys

import otf

READ_ERROR = (1 << 64) - 1     # OTF_READ_ERROR: a cast, which SWIG leaves out


def main(stub):
    print("constants", otf.OTF_ERR_LEN, otf.OTF_NO_ERROR, otf.OTF_ERROR,
          otf.OTF_RETURN_OK, otf.OTF_ENTER_RECORD, otf.OTF_NRECORDS)
    fm = otf.OTF_FileManager_open(8)
    w = otf.OTF_Writer_open(stub, 2, fm)
    ok = otf.OTF_Writer_writeDefTimerResolution(w, 0, 1000000)
    for p in (1, 2):
        ok &= otf.OTF_Writer_assignProcess(w, p, p)
        ok &= otf.OTF_Writer_writeDefProcess(w, 0, p, "rank %d" % p, 0)
    ok &= otf.OTF_Writer_writeDefFunction(w, 0, 1, "main", 0, 0)
    for step in range(5):
        for p in (1, 2):
            ok &= otf.OTF_Writer_writeEnter(w, 100 + 10 * step, 1, p, 0)
            ok &= otf.OTF_Writer_writeLeave(w, 105 + 10 * step, 1, p, 0)
    print("written", ok, "close", otf.OTF_Writer_close(w))

    r = otf.OTF_Reader_open(stub, fm)
    mc = otf.OTF_Reader_getMasterControl(r)
    print("streams", otf.OTF_MasterControl_getCount(mc),
          "stream of 2:", otf.OTF_MasterControl_mapReverse(mc, 2))
    ha = otf.OTF_HandlerArray_open()
    print("definitions", otf.OTF_Reader_readDefinitions(r, ha))
    otf.OTF_Reader_setRecordLimit(r, 7)
    while True:
        n = otf.OTF_Reader_readEvents(r, ha)
        print("events", n, "progress", otf.OTF_Reader_eventTimeProgress(r))
        if n == 0 or n == READ_ERROR:
            break
    otf.OTF_Reader_setTimeInterval(r, 0, 1000)
    print("unsorted", otf.OTF_Reader_readEventsUnsorted(r, ha),
          "progress", otf.OTF_Reader_eventProgress(r))
    print("reader close", otf.OTF_Reader_close(r))

    otf.cvar.otf_errno = otf.OTF_NO_ERROR
    missing = otf.OTF_Reader_open(stub + "-missing", fm)
    print("missing trace opens:", missing is not None,
          "otf_errno", otf.cvar.otf_errno,
          "message:", len(otf.cvar.otf_strerr) > 0)
    otf.OTF_HandlerArray_close(ha)
    otf.OTF_FileManager_close(fm)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: otf_swig.py STUB")
    main(sys.argv[1])
