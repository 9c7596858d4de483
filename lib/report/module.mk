# lib/report — the report's figures collected through lib/model and drawn
# as one HTML page or SVG charts (vftr-report, vftr-stats --plot).  Linked
# as libvftrreport.a, before libvftrmodel.a.  The page's style and script
# (report.css, report.js) are built in by embed.py.

REPORT_SRC := $(wildcard lib/report/*.c)
REPORT_GEN := $(BUILD)/gen/report/assets.c
REPORT_OBJ := $(patsubst %.c,$(OBJ)/%.o,$(REPORT_SRC)) $(OBJ)/$(REPORT_GEN:.c=.o)
VFTR_REPORT_A := $(LIB)/libvftrreport.a

all: $(VFTR_REPORT_A)

$(REPORT_GEN): lib/report/embed.py lib/report/report.css lib/report/report.js
	$(call say,GEN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(PYTHON) lib/report/embed.py $@ vftr_report_css=lib/report/report.css \
		vftr_report_js=lib/report/report.js

$(VFTR_REPORT_A): $(REPORT_OBJ)
	$(call say,AR,$@)
	$(Q)mkdir -p $(@D)
	$(Q)rm -f $@ && $(AR) rcs $@ $^
