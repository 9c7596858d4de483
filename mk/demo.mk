# make demo — filled in once the tools exist.
demo: deps all
