# make demo — the main job on bundled examples.  Until the converter lands
# (capture -> .vfd -> vfd2otf), two halves of it: capture a small program
# (share/examples/capture_demo.c) under vftr-run and show its profile log;
# write a small multi-stream OTF trace with vftr's OTF library
# (share/examples/otf_demo.c), print it with vftr-dump and profile it with
# vftr-stats.

DEMO_DIR := $(BUILD)/demo
DEMO_BIN := $(DEMO_DIR)/otf_demo

$(DEMO_BIN): share/examples/otf_demo.c $(OTF_A) $(OTF_HEADERS)
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(LDFLAGS) $(OTF_A) $(VFTR_LDLIBS)

DEMO_CAPTURE := $(DEMO_DIR)/capture_demo

# The user's side: an ordinary build with the compiler's function hooks.
$(DEMO_CAPTURE): share/examples/capture_demo.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O1 -g -finstrument-functions -o $@ $<

demo: deps
	$(Q)$(MAKE) --no-print-directory all $(DEMO_BIN) $(DEMO_CAPTURE)
	$(Q)rm -f $(DEMO_DIR)/capture_demo_*
	@echo "--- vftr-run $(DEMO_CAPTURE) ---"
	$(Q)$(BIN)/vftr-run --out $(DEMO_DIR) -- $(DEMO_CAPTURE)
	@echo "--- the profile log $(DEMO_DIR)/capture_demo_0.log (head) ---"
	$(Q)sed -n '/^Profile/,$$p' $(DEMO_DIR)/capture_demo_0.log | head -n 14
	@ls -l $(DEMO_DIR)/capture_demo_0.vfd
	$(Q)rm -f $(DEMO_DIR)/demo.*
	$(Q)$(DEMO_BIN) $(DEMO_DIR)/demo
	@echo "--- vftr-dump $(DEMO_DIR)/demo (definitions and events) ---"
	$(Q)$(BIN)/vftr-dump $(DEMO_DIR)/demo
	@echo "--- vftr-dump --count $(DEMO_DIR)/demo ---"
	$(Q)$(BIN)/vftr-dump --count $(DEMO_DIR)/demo
	@echo "--- vftr-stats $(DEMO_DIR)/demo ---"
	$(Q)$(BIN)/vftr-stats $(DEMO_DIR)/demo
