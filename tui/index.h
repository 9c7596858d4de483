/*
 * index.h — an OTF2 archive made browsable: converted once through vftr's
 * model into an OTF trace with snapshots and summaries, kept in DIR/vftr-tui/
 * beside the archive's anchor file and reused while it is newer than the
 * archive (a file "done" marks it finished).
 */
#ifndef VFTR_TUI_INDEX_H
#define VFTR_TUI_INDEX_H

#include <stddef.h>

/* Makes (or finds) the index of the OTF2 archive trace; its OTF name stub
 * in out.  0, or -errno with err naming the file. */
int tui_index_otf2(const char *trace, char *out, size_t outlen, char *err, size_t errlen);

#endif /* VFTR_TUI_INDEX_H */
