/*
 * waits.c — the hook for the page's "Largest waits" section.
 *
 * The wait analysis (late sender, wait at barrier and N x N, OpenMP
 * barrier waiting, ...) is being built in lib/model for issue 18 and is not
 * there yet, so this file writes nothing and the page has no such section.
 * When the analysis lands, this is the one place to fill in:
 *
 *   1. compute the waits in vftr_report_collect (collect.c) through the
 *      model's API and keep the result in struct vftr_report
 *      (report_impl.h).  The branch building it (wt-analysis, not in main
 *      yet) offers lib/model/analysis.h: vftr_analysis_run() over the
 *      report's open source (a pass of its own: it reads every process's
 *      records in syncpt.h's canonical order), then vftr_analysis_waits()
 *      for the rows (pattern, process, call path, time) and
 *      vftr_analysis_summary() for the totals, limited to the report's
 *      window [a, b);
 *   2. write here, between the summary and the timeline,
 *        <section id="waits"><h2>Largest waits</h2> ... </section>
 *      with a sortable table (class "sortable", headers as in html.c's th())
 *      of the largest waits: pattern, call path, process, time — the figures
 *      vftr-stats --waits prints, formatted as it formats them, so that the
 *      test comparing the page with vftr-stats covers them too;
 *   3. return 1 (a section was written); link it in html.c's nav (written
 *      before the sections: ask for the analysis first), and add "waits" to
 *      SECTIONS in test/integration/report_browser.py so that the browser
 *      test expects it.
 *
 * Until then: 0, no section.
 */
#include "report_impl.h"

int rep_waits_html(const struct vftr_report *r, FILE *out)
{
    (void)r, (void)out;
    return 0;
}
