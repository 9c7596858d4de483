# make install — filled in with the tools.
install: all
