# bench/conv — vfd2otf's speed (-j 1, -j 2) and peak memory on >= 10 M
# events from 16 .vfd files, against the reference OTF library's own write
# rate on the same events (bench/conv/refwrite.c, built with
# -lopen-trace-format).  `make bench` runs it; `make bench-conv` alone;
# BENCH_CONV_EVENTS=N for another size (BENCH_CONV_MSGS, BENCH_CONV_IDLE: see run.sh).

BCONV_DIR := $(BUILD)/bench/conv

$(BCONV_DIR)/refwrite: bench/conv/refwrite.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -D_GNU_SOURCE $(REF_OTF_CFLAGS) -std=gnu11 $(OPT) -Wall -o $@ $< $(REF_OTF_LIBS)

.PHONY: bench-conv
bench-conv: $(BCONV_DIR)/refwrite $(BIN)/vfd2otf $(BUILD)/test/conv/mkvfd
	$(Q)BUILD=$(BUILD) bash bench/conv/run.sh

BENCH_EXTRA += bench-conv
