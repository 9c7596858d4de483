/*
 * fuzz_tuiprompt.c — libFuzzer target for vftr-tui's prompts and the key
 * actions behind them, without a terminal: the input is a sequence of keys
 * dispatched through the key table (tui/keys.c) to the model (tui/model.c)
 * of a small trace the target writes at start (two processes, three
 * functions, a message; its view refreshed after every key).  When an
 * action asks for a line (g: go to a time, /: a PCRE2 search), the prompt
 * callback takes the next keys through the line editor (tui_line_key:
 * Escape, Ctrl-G, Backspace, Ctrl-U, Ctrl-W, Enter, text) — so the parsers
 * of what was typed (lib/util's time syntax, the regular expression) get
 * fuzzed text.
 *
 * Bytes 0xf0..0xfd stand for the keys beyond ASCII (arrows, pages, Enter,
 * Tab, resize, Escape, Backspace), in enum order; 'S' (which runs
 * vftr-snap) is left out.  At most 48 keys per input.  Properties checked
 * besides "no crash, no hang, no sanitizer report, no leak": the line a
 * prompt hands over is terminated, within its buffer and never holds a
 * control character; the cursor stays inside the trace's span; the
 * selected process exists.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "otf.h"

#include "keys.h"
#include "model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static char trace[96];

/* main [0, 1000) on both processes, work [100, 400) and io [500, 600) on
 * process 1, work [200, 700) on process 2, a message 1 -> 2 at 300..350;
 * 1 tick = 1 us. */
static void write_trace(const char *stub)
{
    OTF_FileManager *m = OTF_FileManager_open(16);
    OTF_Writer *w = OTF_Writer_open(stub, 2, m);

    if (!w)
        abort();
    OTF_Writer_writeDefTimerResolution(w, 0, 1000000);
    OTF_Writer_writeDefProcess(w, 0, 1, "rank 0", 0);
    OTF_Writer_writeDefProcess(w, 0, 2, "rank 1", 0);
    OTF_Writer_assignProcess(w, 1, 1);
    OTF_Writer_assignProcess(w, 2, 2);
    OTF_Writer_writeDefFunctionGroup(w, 0, 1, "APP");
    OTF_Writer_writeDefFunction(w, 0, 1, "main", 1, 0);
    OTF_Writer_writeDefFunction(w, 0, 2, "work", 1, 0);
    OTF_Writer_writeDefFunction(w, 0, 3, "io", 1, 0);
    OTF_Writer_writeDefTimeRange(w, 0, 0, 1000, NULL);
    OTF_Writer_writeEnter(w, 0, 1, 1, 0);
    OTF_Writer_writeEnter(w, 0, 1, 2, 0);
    OTF_Writer_writeEnter(w, 100, 2, 1, 0);
    OTF_Writer_writeEnter(w, 200, 2, 2, 0);
    OTF_Writer_writeSendMsg(w, 300, 1, 2, 0, 1, 64, 0);
    OTF_Writer_writeRecvMsg(w, 350, 2, 1, 0, 1, 64, 0);
    OTF_Writer_writeLeave(w, 400, 2, 1, 0);
    OTF_Writer_writeEnter(w, 500, 3, 1, 0);
    OTF_Writer_writeLeave(w, 600, 3, 1, 0);
    OTF_Writer_writeLeave(w, 700, 2, 2, 0);
    OTF_Writer_writeLeave(w, 999, 1, 1, 0);
    OTF_Writer_writeLeave(w, 999, 1, 2, 0);
    OTF_Writer_close(w);
    OTF_FileManager_close(m);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    char dir[64];

    (void)argc;
    (void)argv;
    snprintf(dir, sizeof dir, "/tmp/fuzz_tuiprompt.XXXXXX");
    if (!mkdtemp(dir))
        abort();
    snprintf(trace, sizeof trace, "%s/t", dir);
    write_trace(trace);
    return 0;
}

struct feed {
    const uint8_t *p, *end;
    int keys;
};

static int next_key(struct feed *f)
{
    int k;

    if (f->p >= f->end || f->keys >= 48)
        return -1;
    f->keys++;
    k = *f->p++;
    if (k >= 0xf0 && k <= 0xfd)
        return TUI_KEY_UP + (k - 0xf0);
    return k;
}

/* The screen's prompt without a screen: keys from the input through the
 * line editor until it is done or the input ends (cancelled). */
static int prompt(void *ctx, const char *label, char *buf, size_t size)
{
    struct feed *f = ctx;
    struct tui_line line;
    enum tui_line_result r = TUI_LINE_MORE;
    int k;

    (void)label;
    tui_line_init(&line, buf, size);
    while (r == TUI_LINE_MORE && (k = next_key(f)) >= 0)
        r = tui_line_key(&line, k);
    if (line.len >= size || buf[line.len] != '\0' || strlen(buf) != line.len)
        abort();
    for (size_t i = 0; i < line.len; i++)
        if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
            abort();
    return r == TUI_LINE_DONE ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    struct tui_model *m = tui_model_open(trace, err, sizeof err);
    struct feed f = { data, data + size, 0 };
    struct tui_app app;
    int k;

    if (!m)
        abort();
    memset(&app, 0, sizeof app);
    app.model = m;
    app.prompt = prompt;
    app.prompt_ctx = &f;
    app.prof_rows = app.proc_rows = 8;
    tui_model_set_columns(m, 40);
    (void)tui_model_refresh(m, err, sizeof err);
    while ((k = next_key(&f)) >= 0) {
        if (k == 'S')
            continue;       /* runs vftr-snap: not here */
        if (tui_key_dispatch(&app, k) == TUI_QUIT)
            break;
        m = app.model;
        (void)tui_model_refresh(m, err, sizeof err);
        const struct tui_view *v = tui_model_view(m);
        const struct vftr_window_info *info = tui_model_info(m);
        size_t np;

        tui_model_procs(m, &np);
        if (v->cursor < info->first || v->cursor > info->last + 1 || v->proc_sel >= np)
            abort();
    }
    tui_model_free(app.model);
    return 0;
}
