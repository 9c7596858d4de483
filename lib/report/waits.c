/*
 * waits.c — the hook for the page's "Largest waits" section.
 *
 * The wait analysis (late sender, wait at barrier and N x N, OpenMP
 * barrier waiting, ...) is being built in lib/model for issue 18 and is not
 * there yet, so this file writes nothing and the page has no such section.
 * When the analysis lands, this is the one place to fill in:
 *
 *   1. compute the waits in vftr_report_collect (collect.c) through the
 *      model's API, from the same read (its handler callbacks next to the
 *      profile builders) or its own query, and keep the result in struct
 *      vftr_report (report_impl.h);
 *   2. write here, between the summary and the timeline,
 *        <section id="waits"><h2>Largest waits</h2> ... </section>
 *      with a sortable table (class "sortable", headers as in html.c's th())
 *      of the largest waits: pattern, call path, process, time — the figures
 *      vftr-stats --waits prints, formatted as it formats them, so that the
 *      test comparing the page with vftr-stats covers them too;
 *   3. return 1 (a section was written); the navigation and the browser
 *      test (test/integration/report_browser.sh) then expect it.
 *
 * Until then: 0, no section.
 */
#include "report_impl.h"

int rep_waits_html(const struct vftr_report *r, FILE *out)
{
    (void)r, (void)out;
    return 0;
}
