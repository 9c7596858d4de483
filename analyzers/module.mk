# analyzers — vftr's trace analysis tools.  Each tool lives in its own
# directory analyzers/<tool>/ and is linked from its *.c files against lib/:
# analyzers/<tool>/*.c  ->  $(BIN)/<tool>.  A new tool needs no change here.

ANALYZER_TOOLS := $(sort $(notdir $(patsubst %/,%,$(dir $(wildcard analyzers/*/*.c)))))
ANALYZER_BINS  := $(addprefix $(BIN)/,$(ANALYZER_TOOLS))

# Tools print their version with --version (lib/util/opts.h).
$(OBJ)/analyzers/%.o: CPPFLAGS += -DVFTR_VERSION=\"$(VERSION)\"

# A tool that needs more libraries names them in ANALYZER_LDLIBS_<tool>
# (set in its own fragment, e.g. test/snap/module.mk).
#
# $(1) = tool name.  VFTR_LDLIBS is defined later (test/module.mk), which is
# fine: recipes are expanded only when they run.
define analyzer_rule
$(BIN)/$(1): $(patsubst %.c,$(OBJ)/%.o,$(wildcard analyzers/$(1)/*.c)) $(VFTR_REPORT_A) $(VFTR_MODEL_A) $(VFTR_UTIL_A) $(VFTR_VFD_A) $(OTF_A)
	$$(call say,LD,$$@)
	$(Q)mkdir -p $$(@D)
	$(Q)$$(CC) $$(LDFLAGS) -o $$@ $$(filter %.o,$$^) $$(VFTR_REPORT_A) $$(VFTR_MODEL_A) $$(VFTR_UTIL_A) $$(VFTR_VFD_A) $$(OTF_A) $$(ANALYZER_LDLIBS_$(1)) $$(VFTR_LDLIBS)
endef
$(foreach tool,$(ANALYZER_TOOLS),$(eval $(call analyzer_rule,$(tool))))

all: $(ANALYZER_BINS)
