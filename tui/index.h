/*
 * index.h — traces made quick to browse before vftr-tui opens them.  An
 * OTF2 archive is converted once through vftr's model into an OTF trace
 * with snapshots and summaries, kept in DIR/vftr-tui/ beside the archive's
 * anchor file and reused while it is newer than the archive (a file
 * "done" marks it finished).  An OTF trace without snapshots gets them in
 * place.  Both run the vftr-snap beside vftr-tui (snaprun.h) with its
 * progress line on stderr.
 */
#ifndef VFTR_TUI_INDEX_H
#define VFTR_TUI_INDEX_H

#include <stddef.h>
#include <stdint.h>

/* Makes (or finds) the index of the OTF2 archive trace; its OTF name stub
 * in out.  0, or -errno with err naming the file. */
int tui_index_otf2(const char *trace, char *out, size_t outlen, char *err, size_t errlen);

/*
 * An OTF trace without snapshots made quick to browse: vftr-snap --all adds
 * snapshots and summaries beside it, in place (kept for the next time),
 * with its progress line on stderr (the screen is not open yet).
 */
enum tui_index_mode {
    TUI_INDEX_AUTO,         /* traces whose event files are TUI_INDEX_MIN_BYTES or more */
    TUI_INDEX_ALWAYS,       /* --index */
    TUI_INDEX_NEVER,        /* --no-index */
};

/* Below this a view read from the trace start takes a few tens of
 * milliseconds (about 2 ns per byte of events, bench-tui's machine). */
#define TUI_INDEX_MIN_BYTES (16u << 20)

/* The bytes of the event files of the OTF trace stub ("foo" for foo.otf):
 * foo.*.events and foo.*.events.z. */
uint64_t tui_index_event_bytes(const char *stub);

/* Should a trace with nsnapshots snapshots and these event bytes be
 * indexed? */
int tui_index_wanted(enum tui_index_mode mode, size_t nsnapshots, uint64_t event_bytes);

/* Indexes the OTF trace stub.  0 done, or -errno with err saying why (the
 * caller goes on without snapshots). */
int tui_index_otf(const char *stub, char *err, size_t errlen);

#endif /* VFTR_TUI_INDEX_H */
