#!/usr/bin/env python3
"""gen_wrappers.py — writes libvftrcapture-mpi's wrappers from the one table
capture/mpi/mpi_functions.def (its header says the format).

    gen_wrappers.py TABLE OUT.c OUT.txt

OUT.c: for each function a C wrapper over PMPI and a Fortran wrapper
(mpif.h / `use mpi` symbol name: lower case, one trailing underscore) that
converts handles, statuses and strings (gfortran passes a string's length
after the last argument; the copy is trimmed of trailing blanks) and calls
the C wrapper, and the mpi_f08 binding (mpi_x_f08_: the same arguments,
IERROR optional) over the Fortran one.  OUT.txt: one line per wrapper,
"C-NAME FORTRAN-SYMBOL|- F08-SYMBOL|-" (the tests check every one is
called).  Both are build products, never kept in the tree.
"""
import re
import sys

HANDLES = {  # C handle type -> conversion function stem
    "MPI_Comm": "Comm", "MPI_Datatype": "Type", "MPI_Op": "Op",
    "MPI_Group": "Group", "MPI_Info": "Info", "MPI_Request": "Request",
    "MPI_File": "File", "MPI_Win": "Win", "MPI_Message": "Message",
}


class Param:
    def __init__(self, decl):
        decl = decl.strip()
        m = re.match(r"^(.*?)(\w+)\s*(\[(\w*)\])?$", decl)
        if not m:
            raise ValueError("cannot parse parameter %r" % decl)
        self.ctype = m.group(1).strip()
        self.name = m.group(2)
        self.array = m.group(3) is not None
        self.length = m.group(4) or ""
        self.decl = decl
        base = self.ctype.replace("const", "").strip()
        self.base = base.rstrip("*").strip()
        self.pointer = base.endswith("*")

    def c_decl(self):
        if self.array:
            return "%s %s[]" % (self.ctype, self.name)
        sep = "" if self.ctype.endswith("*") else " "
        return "%s%s%s" % (self.ctype, sep, self.name)


def parse(path):
    funcs = []
    for lineno, line in enumerate(open(path, encoding="utf-8"), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith(" |"):
            line = line[:-2]
        fields = [f.strip() for f in line.split(" | ")]
        if len(fields) < 2:
            raise SystemExit("%s:%d: expected NAME | PARAMETERS | ACTIONS" % (path, lineno))
        name, params = fields[0], fields[1]
        actions = fields[2] if len(fields) > 2 else ""
        plist = [] if params in ("", "void") else [Param(p) for p in params.split(", ")]
        f = {"name": name, "params": plist, "pre": [], "post": [], "done": [], "fortran": True,
             "sync": None, "if": None}
        for a in [a.strip() for a in actions.split(" ; ") if a.strip()]:
            if a.startswith("sync:"):
                f["sync"] = a[5:]
            elif a.startswith("pre:"):
                f["pre"].append(a[4:])
            elif a.startswith("post:"):
                f["post"].append(a[5:])
            elif a.startswith("done:"):
                f["done"].append(a[5:])
            elif a == "fortran=no":
                f["fortran"] = False
            elif a.startswith("if:"):
                f["if"] = a[3:]
            else:
                raise SystemExit("%s:%d: unknown action %r" % (path, lineno, a))
        funcs.append(f)
    return funcs


def c_wrapper(f):
    name, ps = f["name"], f["params"]
    out = []
    decl = ", ".join(p.c_decl() for p in ps) or "void"
    args = ", ".join(p.name for p in ps)
    out.append("VFTR_MPI_API int %s(%s)\n{" % (name, decl))
    out.append("    struct vftr_mpi_call vc;")
    out.append("    int rc;")
    # statuses the caller ignores are replaced: the records need them
    for p in ps:
        if p.base == "MPI_Status" and not p.array:
            out.append("    MPI_Status vftr_st_%s;" % p.name)
        elif p.base == "MPI_Status" and p.array:
            out.append("    MPI_Status vftr_sts_%s[VFTR_MPI_STACK];" % p.name)
            out.append("    MPI_Status *vftr_heap_%s = NULL;" % p.name)
    out.append("")
    if f["sync"]:
        out.append('    vftr_mpi_sync(VFTR_MPI_FN_%s, "%s_sync", %s);' % (name, name, f["sync"]))
    out.append("    vftr_mpi_begin(&vc, VFTR_MPI_FN_%s);" % name)
    for p in ps:
        if p.base == "MPI_Status" and not p.array:
            out.append("    if (%s == MPI_STATUS_IGNORE)" % p.name)
            out.append("        %s = &vftr_st_%s;" % (p.name, p.name))
        elif p.base == "MPI_Status" and p.array:
            out.append("    if (%s == MPI_STATUSES_IGNORE)" % p.name)
            out.append("        %s = vftr_mpi_statuses(%s, vftr_sts_%s, &vftr_heap_%s);"
                       % (p.name, p.length, p.name, p.name))
    for s in f["pre"]:
        out.append("    %s;" % s)
    out.append("    rc = P%s(%s);" % (name, args))
    for s in f["post"]:
        out.append("    if (rc == MPI_SUCCESS)")
        out.append("        %s;" % s)
    for s in f["done"]:
        out.append("    %s;" % s)
    for p in ps:
        if p.base == "MPI_Status" and p.array:
            out.append("    free(vftr_heap_%s);" % p.name)
    out.append("    vftr_mpi_end(&vc);")
    out.append("    return rc;")
    out.append("}\n")
    return "\n".join(out)


def f_length(p, ps):
    """C expression of an array parameter's length inside a Fortran wrapper."""
    if p.length == "comm_size":
        return "vftr_mpi_comm_size_any(c_comm)"
    return "(int)*%s" % p.length


def f_wrapper(f):
    name, ps = f["name"], f["params"]
    sym = name.lower() + "_"
    fdecl, pre, args, post, hidden = [], [], [], [], []
    for p in ps:
        n = p.name
        if p.base == "char" and p.pointer:                     # a string: its length
            fdecl.append("char *%s" % n)                       # comes after ierr
            hidden.append("size_t %s_len" % n)
            pre.append("char *c_%s = vftr_mpi_fstr(%s, %s_len);" % (n, n, n))
            pre.append("if (c_%s == NULL) { *ierr = MPI_ERR_NO_MEM; return; }" % n)
            args.append("c_%s" % n)
            post.append("free(c_%s);" % n)
        elif p.base == "void":                                 # buffers
            fdecl.append("void *%s" % n)
            args.append("vftr_mpi_fbuf(%s)" % n)
        elif p.base == "int" and not p.pointer and not p.array:  # by value
            fdecl.append("MPI_Fint *%s" % n)
            args.append("(int)*%s" % n)
        elif p.base == "int":                                  # arrays and outputs
            fdecl.append("MPI_Fint *%s" % n)
            args.append("(int *)%s" % n)
            if n == "index":
                post.append("if (rc == MPI_SUCCESS && *%s != MPI_UNDEFINED) (*%s)++;" % (n, n))
            if n == "array_of_indices":
                post.append("if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED)"
                            " for (int i = 0; i < *outcount; i++) %s[i]++;" % n)
        elif p.base in ("MPI_Offset", "MPI_Aint") and not p.pointer and not p.array:
            fdecl.append("%s *%s" % (p.base, n))               # INTEGER(MPI_*_KIND)
            args.append("*%s" % n)
        elif p.base == "MPI_Aint" and p.pointer and not p.array:  # an output
            fdecl.append("MPI_Aint *%s" % n)
            args.append(n)
        elif p.base in HANDLES and p.array:
            stem = HANDLES[p.base]
            fdecl.append("MPI_Fint *%s" % n)
            length = f_length(p, ps)
            pre.append("int n_%s = %s;" % (n, length))
            pre.append("%s *c_%s = vftr_mpi_falloc(n_%s, sizeof *c_%s);" % (p.base, n, n, n))
            pre.append("if (c_%s == NULL) { *ierr = MPI_ERR_NO_MEM; return; }" % n)
            pre.append("for (int i = 0; i < n_%s; i++) c_%s[i] = MPI_%s_f2c(%s[i]);"
                       % (n, n, stem, n))
            args.append("c_%s" % n)
            if not p.ctype.startswith("const"):
                post.append("for (int i = 0; i < n_%s; i++) %s[i] = MPI_%s_c2f(c_%s[i]);"
                            % (n, n, stem, n))
            if p.base != "MPI_Request" and any(q.name == "request" for q in ps):
                # a nonblocking call reads the array until it completes
                post.append("if (rc == MPI_SUCCESS) vftr_mpi_req_attach(c_request, c_%s);"
                            " else free(c_%s);" % (n, n))
            else:
                post.append("free(c_%s);" % n)
        elif p.base in HANDLES and p.pointer:
            stem = HANDLES[p.base]
            fdecl.append("MPI_Fint *%s" % n)
            pre.append("%s c_%s = MPI_%s_f2c(*%s);" % (p.base, n, stem, n))
            args.append("&c_%s" % n)
            post.append("*%s = MPI_%s_c2f(c_%s);" % (n, stem, n))
        elif p.base in HANDLES:
            stem = HANDLES[p.base]
            fdecl.append("MPI_Fint *%s" % n)
            pre.append("%s c_%s = MPI_%s_f2c(*%s);" % (p.base, n, stem, n))
            args.append("c_%s" % n)
        elif p.base == "MPI_Status" and p.array:
            fdecl.append("MPI_Fint *%s" % n)
            pre.append("int n_%s = %s;" % (n, f_length(p, ps)))
            # MPI_STATUSES_IGNORE may be NULL (it is in Open MPI)
            pre.append("int ign_%s = %s == VFTR_MPI_F_STATUSES_IGNORE;" % (n, n))
            pre.append("MPI_Status *c_%s = ign_%s ? MPI_STATUSES_IGNORE"
                       " : vftr_mpi_falloc(n_%s, sizeof(MPI_Status));" % (n, n, n))
            pre.append("if (!ign_%s && c_%s == NULL) { *ierr = MPI_ERR_NO_MEM; return; }"
                       % (n, n))
            args.append("c_%s" % n)
            post.append("if (!ign_%s) {" % n)
            post.append("    for (int i = 0; i < n_%s; i++)" % n)
            post.append("        MPI_Status_c2f(&c_%s[i], %s + (size_t)i * VFTR_MPI_F_STATUS_SIZE);"
                        % (n, n))
            post.append("    free(c_%s);" % n)
            post.append("}")
        elif p.base == "MPI_Status":
            fdecl.append("MPI_Fint *%s" % n)
            pre.append("MPI_Status c_%s;" % n)
            args.append("%s == VFTR_MPI_F_STATUS_IGNORE ? MPI_STATUS_IGNORE : &c_%s" % (n, n))
            post.append("if (%s != VFTR_MPI_F_STATUS_IGNORE) MPI_Status_c2f(&c_%s, %s);" % (n, n, n))
        else:
            raise SystemExit("%s: no Fortran mapping for %r" % (name, p.decl))
    # a comm_size length needs the converted communicator first
    order = [s for s in pre if s.startswith("MPI_Comm c_comm")] + \
            [s for s in pre if not s.startswith("MPI_Comm c_comm")]
    fdecl.append("MPI_Fint *ierr")
    fdecl += hidden
    out = ["VFTR_MPI_API void %s(%s);" % (sym, ", ".join(fdecl)),
           "VFTR_MPI_API void %s(%s)\n{" % (sym, ", ".join(fdecl))]
    out += ["    " + s for s in order]
    out.append("    int rc = %s(%s);" % (name, ", ".join(args)))
    out += ["    " + s for s in post]
    out.append("    *ierr = rc;")
    out.append("}\n")
    return "\n".join(out)


def f08_wrapper(f):
    """The mpi_f08 binding (Open MPI's symbol mpi_x_f08_): the same
    arguments as the mpif.h one (a handle is a TYPE holding its INTEGER,
    passed by reference; a status is the same array) except IERROR, which
    is OPTIONAL there (NULL when the caller leaves it out)."""
    name, ps = f["name"], f["params"]
    sym = name.lower() + "_"
    fdecl, args, hidden, hargs = [], [], [], []
    for p in ps:
        if p.base == "char" and p.pointer:
            fdecl.append("char *%s" % p.name)
            hidden.append("size_t %s_len" % p.name)
            hargs.append("%s_len" % p.name)
        elif p.base == "void":
            fdecl.append("void *%s" % p.name)
        elif p.base in ("MPI_Offset", "MPI_Aint"):
            fdecl.append("%s *%s" % (p.base, p.name))
        else:
            fdecl.append("MPI_Fint *%s" % p.name)
        args.append(p.name)
    decl = ", ".join(fdecl + ["MPI_Fint *ierr"] + hidden)
    out = ["VFTR_MPI_API void %sf08_(%s);" % (sym, decl),
           "VFTR_MPI_API void %sf08_(%s)\n{" % (sym, decl),
           "    MPI_Fint e;\n",
           "    %s(%s);" % (sym, ", ".join(args + ["&e"] + hargs)),
           "    if (ierr != NULL)",
           "        *ierr = e;",
           "}\n"]
    return "\n".join(out)


def main():
    if len(sys.argv) != 4:
        raise SystemExit("usage: gen_wrappers.py TABLE OUT.c OUT.txt")
    table, out_c, out_txt = sys.argv[1:]
    funcs = parse(table)
    with open(out_c, "w", encoding="utf-8") as o:
        o.write("/* Generated by capture/mpi/gen_wrappers.py from %s: do not edit. */\n" % table)
        o.write('#include "mpi_rt.h"\n\n')
        o.write("const char *const vftr_mpi_fn_names[VFTR_MPI_FN_COUNT] = {\n")
        for f in funcs:
            o.write('    [VFTR_MPI_FN_%s] = "%s",\n' % (f["name"], f["name"]))
        o.write('    [VFTR_MPI_FN_Pcontrol] = "MPI_Pcontrol",  /* hand-written: mpi_rt.c */\n')
        o.write("};\n\n")
        for f in funcs:
            if f["if"]:
                o.write("#if %s\n" % f["if"])
            o.write(c_wrapper(f))
            o.write("\n")
            if f["fortran"]:
                o.write(f_wrapper(f))
                o.write("\n")
                o.write(f08_wrapper(f))
                o.write("\n")
            if f["if"]:
                o.write("#endif\n\n")
    with open(out_txt, "w", encoding="utf-8") as o:
        for f in funcs:
            fsym = f["name"].lower() + "_"
            o.write("%s %s %s\n" % (f["name"], fsym if f["fortran"] else "-",
                                    fsym[:-1] + "_f08_" if f["fortran"] else "-"))
    # the enum of function indices goes into a header next to OUT.c
    with open(out_c[:-2] + "_fn.h", "w", encoding="utf-8") as o:
        o.write("/* Generated by capture/mpi/gen_wrappers.py from %s: do not edit. */\n" % table)
        o.write("#ifndef VFTR_MPI_WRAPPERS_FN_H\n#define VFTR_MPI_WRAPPERS_FN_H\nenum {\n")
        for f in funcs:
            o.write("    VFTR_MPI_FN_%s,\n" % f["name"])
        o.write("    VFTR_MPI_FN_Pcontrol,\n    VFTR_MPI_FN_COUNT\n};\n#endif\n")


if __name__ == "__main__":
    main()
