/*
 * fuzz_vfdscan.c — libFuzzer target for lib/vfd/scan.c, the fast second
 * read of event chunks.  vfd2otf only hands it chunks the general reader
 * validated, but the file may change between the two reads, so the scanner
 * must survive any bytes: the input is written to a file, and every "VFDC"
 * in it is taken for an events chunk whose records are all decoded, three
 * ways: in batches (vftr_vfd_scan_events), one by one with the inline
 * decoder (vftr_vfd_scan_next), and skimmed as vfd2otf's first pass does
 * (vftr_vfd_scan_next_ext, on the payload as memory).
 * Crashes, hangs and sanitizer reports are bugs; -EBADMSG is expected.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vfd/vftr_vfd_scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[] = "/tmp/fuzz_vfdscan_XXXXXX";
    int fd = mkstemp(path);

    if (fd < 0)
        return 0;
    if (write(fd, data, size) != (ssize_t)size) {
        close(fd);
        unlink(path);
        return 0;
    }
    close(fd);
    struct vftr_vfd_scan *s = vftr_vfd_scan_open(path);

    unlink(path);
    if (!s)
        return 0;
    for (size_t i = 0; i + 4 <= size; i++) {
        struct vftr_vfd_scan_chunk ch;
        struct vftr_vfd_scan_event ev[8];
        uint32_t nrec = i + 20 <= size ? (uint32_t)data[i + 16] | (uint32_t)data[i + 17] << 8 : 0;
        int n;

        if (memcmp(data + i, "VFDC", 4) != 0 || vftr_vfd_scan_chunk(s, i, nrec, &ch) < 0)
            continue;
        struct vftr_vfd_scan_chunk one = ch, skim;
        while ((n = vftr_vfd_scan_events(&ch, ev, 8)) > 0)
            for (int k = 0; k < n; k++)
                if (ev[k].data && ev[k].id)     /* the payload must lie in the file */
                    (void)*(volatile const uint8_t *)(ev[k].data + ev[k].id - 1);
        while (vftr_vfd_scan_next(&one, &ev[0]) == 1)
            if (ev[0].data && ev[0].id)
                (void)*(volatile const uint8_t *)(ev[0].data + ev[0].id - 1);
        {   /* vftr_vfd_scan_chunk checked that the payload lies in the input */
            uint32_t len = (uint32_t)data[i + 12] | (uint32_t)data[i + 13] << 8 |
                           (uint32_t)data[i + 14] << 16 | (uint32_t)data[i + 15] << 24;

            vftr_vfd_scan_payload(&skim, data + i + 48, len, nrec, 0, 0);
        }
        while (vftr_vfd_scan_next_ext(&skim, &ev[0]) == 1)
            if (ev[0].data && ev[0].id)
                (void)*(volatile const uint8_t *)(ev[0].data + ev[0].id - 1);
    }
    vftr_vfd_scan_close(s);
    return 0;
}
