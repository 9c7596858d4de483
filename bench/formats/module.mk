# bench/formats — issue 17's formats: vftr's OTF2 writer and reader against
# libotf2 driven directly (bench/formats/o2bench.c), the conversion OTF ->
# OTF2 on 10 M events, Perfetto and Chrome JSON write rates and bytes per
# event, memory against trace length.  `make bench` runs it; `make
# bench-formats` alone; BENCH_FORMATS_EVENTS=N for another size.

BFMT_DIR := $(BUILD)/bench/formats

$(BFMT_DIR)/o2bench: bench/formats/o2bench.c $(VFTR_LIBS)
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(LDFLAGS) $(VFTR_LIBS) $(VFTR_LDLIBS)

.PHONY: bench-formats
bench-formats: $(BFMT_DIR)/o2bench $(BIN)/vfd2otf $(BIN)/vftr-convert $(BUILD)/test/conv/mkvfd
	$(Q)BUILD=$(BUILD) bash bench/formats/run.sh

BENCH_EXTRA += bench-formats
