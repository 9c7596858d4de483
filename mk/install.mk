# make install PREFIX=... — binaries, libraries, headers, pkg-config files and
# man pages.  DESTDIR is honoured for packaging.

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig \
		$(DESTDIR)$(PREFIX)/include/vftr/otf $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/man/man3 $(DESTDIR)$(PREFIX)/share/man/man5
	install -m 755 $(wildcard $(BIN)/*) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(OTF_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(OTF_SO) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libvftrotf.so.$(OTF_LIBVERSION) $(DESTDIR)$(PREFIX)/lib/libvftrotf.so.$(OTF_SOVERSION)
	ln -sf libvftrotf.so.$(OTF_SOVERSION) $(DESTDIR)$(PREFIX)/lib/libvftrotf.so
	install -m 644 $(OTF_HEADERS) $(DESTDIR)$(PREFIX)/include/vftr/otf/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(OTF_LIBVERSION)|g' \
		-e 's|@LIBS_PRIVATE@|$(PKG_LIBS_OTF) -lpthread|g' lib/otf/vftr-otf.pc.in \
		> $(DESTDIR)$(PREFIX)/lib/pkgconfig/vftr-otf.pc
	install -m 644 $(wildcard share/man/man1/*.1) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 $(wildcard share/man/man3/*.3) $(DESTDIR)$(PREFIX)/share/man/man3/
	install -m 644 $(wildcard share/man/man5/*.5) $(DESTDIR)$(PREFIX)/share/man/man5/
	# the capture library: vftr-run finds it in $(PREFIX)/lib (build with the
	# same PREFIX as you install to)
	install -m 644 $(CAPTURE_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(CAPTURE_SO) $(DESTDIR)$(PREFIX)/lib/
	ln -sf $(notdir $(CAPTURE_SO)) $(DESTDIR)$(PREFIX)/lib/libvftrcapture.so.$(CAPTURE_SOVERSION)
	ln -sf libvftrcapture.so.$(CAPTURE_SOVERSION) $(DESTDIR)$(PREFIX)/lib/libvftrcapture.so
	install -m 644 $(CAPTURE_HEADERS) $(DESTDIR)$(PREFIX)/include/
