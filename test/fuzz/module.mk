# make fuzz — libFuzzer targets (clang), each run briefly on its seed corpus.
# FUZZ_SECONDS=N runs each longer.
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_SECONDS ?= 20
FUZZ_TARGETS := $(patsubst test/fuzz/%.c,$(FUZZ_DIR)/%,$(wildcard test/fuzz/fuzz_*.c))
# Fragments included earlier add their parsers' sources and libraries with
# FUZZ_LIBSRC += / FUZZ_CPPFLAGS += / FUZZ_LDLIBS +=.
FUZZ_LIBSRC += $(wildcard lib/otf/*.c) $(OTF_GEN_C)

$(FUZZ_DIR)/%: test/fuzz/%.c $(FUZZ_LIBSRC) $(OTF_HEADERS) $(OTF_GEN_STAMP)
	$(call say,FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)clang -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined \
		-I$(OTF_INC_DIR) -Ilib/otf -I$(OTF_GEN_DIR) -Ilib $(FUZZ_CPPFLAGS) -o $@ $< $(sort $(FUZZ_LIBSRC)) $(PKG_LIBS_OTF) $(FUZZ_LDLIBS) -lpthread -lm

fuzz: deps
	$(Q)$(MAKE) --no-print-directory $(OTF_HEADERS) $(OTF_GEN_C)
	$(Q)$(MAKE) --no-print-directory $(FUZZ_TARGETS)
	$(Q)for t in $(FUZZ_TARGETS); do \
		name=$$(basename $$t); corpus=test/fuzz/corpus/$${name#fuzz_}; \
		mkdir -p $(FUZZ_DIR)/corpus-$$name; \
		echo "fuzz: $$name for $(FUZZ_SECONDS)s"; \
		$$t -max_total_time=$(FUZZ_SECONDS) -max_len=65536 $(FUZZ_DIR)/corpus-$$name $$corpus \
			|| exit 1; done
