# make demo — the main job on a bundled example.  Until the converter lands,
# that is: write a small multi-stream OTF trace with vftr's OTF library
# (share/examples/otf_demo.c) and print it with vftr-dump.

DEMO_DIR := $(BUILD)/demo
DEMO_BIN := $(DEMO_DIR)/otf_demo

$(DEMO_BIN): share/examples/otf_demo.c $(OTF_A) $(OTF_HEADERS)
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(LDFLAGS) $(OTF_A) $(VFTR_LDLIBS)

demo: deps
	$(Q)$(MAKE) --no-print-directory all $(DEMO_BIN)
	$(Q)rm -f $(DEMO_DIR)/demo.*
	$(Q)$(DEMO_BIN) $(DEMO_DIR)/demo
	@echo "--- vftr-dump $(DEMO_DIR)/demo (definitions and events) ---"
	$(Q)$(BIN)/vftr-dump $(DEMO_DIR)/demo
	@echo "--- vftr-dump --count $(DEMO_DIR)/demo ---"
	$(Q)$(BIN)/vftr-dump --count $(DEMO_DIR)/demo
