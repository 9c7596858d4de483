# make install PREFIX=... — binaries, libraries, headers, pkg-config files
# (vftr-otf, vftr-capture: both put the library directory in the program's
# rpath, so that what they link runs without LD_LIBRARY_PATH), man pages and
# the documents they point to (share/doc/vftr).  DESTDIR is honoured for
# packaging.  The tools link vftr's libraries statically and run from
# anywhere; vftr-run finds the capture library next to itself (../lib).
# test/integration/install.sh installs into a temporary DESTDIR and uses it.

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig \
		$(DESTDIR)$(PREFIX)/include/vftr/otf $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/man/man3 $(DESTDIR)$(PREFIX)/share/man/man5 \
		$(DESTDIR)$(PREFIX)/share/doc/vftr
	install -m 755 $(BIN)/* $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(OTF_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(OTF_SO) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libvftrotf.so.$(OTF_LIBVERSION) $(DESTDIR)$(PREFIX)/lib/libvftrotf.so.$(OTF_SOVERSION)
	ln -sf libvftrotf.so.$(OTF_SOVERSION) $(DESTDIR)$(PREFIX)/lib/libvftrotf.so
	install -m 644 $(OTF_HEADERS) $(DESTDIR)$(PREFIX)/include/vftr/otf/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(OTF_LIBVERSION)|g' \
		-e 's|@LIBS_PRIVATE@|$(PKG_LIBS_OTF) -lpthread|g' \
		-e 's|^Libs: -L$${libdir}|Libs: -L$${libdir} -Wl,-rpath,$${libdir}|' lib/otf/vftr-otf.pc.in \
		> $(DESTDIR)$(PREFIX)/lib/pkgconfig/vftr-otf.pc
	install -m 644 $(wildcard share/man/man1/*.1) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 $(wildcard share/man/man3/*.3) $(DESTDIR)$(PREFIX)/share/man/man3/
	install -m 644 $(wildcard share/man/man5/*.5) $(DESTDIR)$(PREFIX)/share/man/man5/
	install -m 644 README.md $(wildcard share/doc/*.md) $(DESTDIR)$(PREFIX)/share/doc/vftr/
	# the capture library: vftr-run finds it in $(PREFIX)/lib (build with the
	# same PREFIX as you install to)
	install -m 644 $(CAPTURE_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(CAPTURE_SO) $(DESTDIR)$(PREFIX)/lib/
	ln -sf $(notdir $(CAPTURE_SO)) $(DESTDIR)$(PREFIX)/lib/libvftrcapture.so.$(CAPTURE_SOVERSION)
	ln -sf libvftrcapture.so.$(CAPTURE_SOVERSION) $(DESTDIR)$(PREFIX)/lib/libvftrcapture.so
	install -m 644 $(CAPTURE_HEADERS) $(DESTDIR)$(PREFIX)/include/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' capture/vftr-capture.pc.in \
		> $(DESTDIR)$(PREFIX)/lib/pkgconfig/vftr-capture.pc
