/*
 * fuzz_trace.c — libFuzzer target for every OTF parser of libvftrotf: the
 * input is split into a master control file, a definitions file and an
 * events file (at the first two 0x00 bytes; missing parts get a default), and
 * the whole trace is read through OTF_Reader with vftr's printer installed,
 * compressed or not (the first byte's low bit), with a time window when the
 * second byte says so.  Any crash, hang or sanitizer report is a bug; read
 * errors are expected.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <otf.h>
#include <vftr_otf_print.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static void put(const char* dir, const char* name, const uint8_t* p, size_t n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE* f = fopen(path, "wb");
    if (f == NULL)
        return;
    if (n)
        fwrite(p, 1, n, f);
    fclose(f);
}

static const uint8_t* cut(const uint8_t** p, size_t* n, size_t* len)
{
    const uint8_t* start = *p;
    const uint8_t* z = memchr(*p, 0, *n);
    if (z == NULL) {
        *len = *n;
        *p += *n;
        *n = 0;
    } else {
        *len = (size_t)(z - *p);
        *n -= *len + 1;
        *p = z + 1;
    }
    return start;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size < 2)
        return 0;
    uint8_t flags = data[0], window = data[1];
    data += 2;
    size -= 2;
    char dir[] = "/tmp/vftr-fuzz-XXXXXX";
    if (mkdtemp(dir) == NULL)
        return 0;
    size_t n1, n2, n3;
    const uint8_t* m = cut(&data, &size, &n1);
    const uint8_t* d = cut(&data, &size, &n2);
    const uint8_t* e = cut(&data, &size, &n3);
    static const uint8_t defmaster[] = "1:1,2\n";
    if (n1 == 0) {
        m = defmaster;
        n1 = sizeof defmaster - 1;
    }
    put(dir, "t.otf", m, n1);
    put(dir, "t.0.def", d, n2);
    put(dir, (flags & 1) ? "t.1.events.z" : "t.1.events", e, n3);

    char stub[600];
    snprintf(stub, sizeof stub, "%s/t", dir);
    FILE* out = fopen("/dev/null", "w");
    OTF_FileManager* fm = OTF_FileManager_open(4);
    OTF_Reader* r = fm ? OTF_Reader_open(stub, fm) : NULL;
    if (r != NULL && out != NULL) {
        OTF_HandlerArray* h = OTF_HandlerArray_open();
        if (h != NULL && vftr_otf_print_install(h, out, VFTR_OTF_PRINT_ALL, NULL) == 0) {
            OTF_Reader_readDefinitions(r, h);
            if (window)
                OTF_Reader_setTimeInterval(r, (uint64_t)window << 4, (uint64_t)window << 8);
            OTF_Reader_readEvents(r, h);
            OTF_Reader_readMarkers(r, h);
        }
        OTF_HandlerArray_close(h);
    }
    if (r)
        OTF_Reader_close(r);
    if (fm)
        OTF_FileManager_close(fm);
    if (out)
        fclose(out);
    const char* names[] = { "t.otf", "t.0.def", "t.1.events", "t.1.events.z" };
    for (size_t i = 0; i < 4; i++) {
        char path[700];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
    return 0;
}
