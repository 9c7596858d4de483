# test/tui — programs vftr-tui's tests and benchmark need: the trace
# generator tui_gen, built against vftr's OTF and against the reference
# (the same source, like test/compat).

TUI_GEN_VFTR := $(TEST_DIR)/tui/vftr/tui_gen
TUI_GEN_REF  := $(TEST_DIR)/tui/ref/tui_gen

$(TUI_GEN_VFTR): test/tui/tui_gen.c $(OTF_A) $(OTF_HEADERS)
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -D_GNU_SOURCE -I$(OTF_INC_DIR) -std=c11 $(OPT) $(WARN) \
		$(filter -fsanitize%,$(CFLAGS)) -o $@ $< $(LDFLAGS) $(OTF_A) $(VFTR_LDLIBS)

# The reference headers do not pass vftr's warning set (see test/module.mk).
$(TUI_GEN_REF): test/tui/tui_gen.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -D_GNU_SOURCE $(REF_OTF_CFLAGS) -std=gnu11 $(OPT) -Wall -o $@ $< $(REF_OTF_LIBS)

TEST_PROGRAMS += $(TUI_GEN_VFTR) $(TUI_GEN_REF)

# test/fuzz/fuzz_window.c reads through lib/model/window.c, which uses
# lib/util (trace opening, messages).
FUZZ_LIBSRC += $(wildcard lib/model/*.c lib/util/*.c)
