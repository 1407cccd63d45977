#!/usr/bin/env python3
"""tools/verilate.py: build one Verilated model into a static archive.

CMake runs it (aggnet_verilate() in CMakeLists.txt), once per model class:

    tools/verilate.py --verilator BIN DIR PREFIX [VAR=value ...]
    tools/verilate.py selftest      (make lint: objects rebuilt when flags change)

DIR/PREFIX.args holds every Verilator argument of the model, one a line;
CMake rewrites it only when one changes: --cc, --prefix, --top-module, the
file that defines the top, the -y folders of its component and its
dependencies (Verilator reads from them only the modules the top
instantiates), the -I include folders, the -G parameters and the C++ flags
(-CFLAGS).  The script

1. runs Verilator with them into DIR/stage/;
2. copies into DIR/obj/ each generated file whose contents differ from the
   copy there, so a file Verilator writes again unchanged keeps its time and
   is not compiled again; when a makefile changed (the C++ flags are in it),
   it removes every object and the archive, which no makefile rule would
   otherwise rebuild with the new flags;
3. writes DIR/obj/PREFIX__hot.cpp and PREFIX__cold.cpp, which include the
   C++ files Verilator has just listed (PREFIX_classes.mk): the code that
   runs every simulated cycle, and the rest (units());
4. runs Verilator's own makefile (PREFIX.mk, which includes verilated.mk)
   with tools/verilated_model.mk in DIR/obj/ for the archive
   PREFIX__model.a of the two units, with VAR=value (CXX=, OBJCACHE=): a new
   port or a new non-inlined submodule builds and links on the first try;
5. writes DIR/PREFIX.d, the files Verilator read (its PREFIX__ver.d) as the
   prerequisites of DIR/PREFIX.stamp, CMake's DEPFILE, and touches the stamp.

A model is therefore verilated again only when a file it reads changes, and
each unit recompiled only when a file it includes changed.  The archive leaves out the
Verilator runtime (verilated.cpp, ...): CMake builds that once, as the
library `verilated`.
"""
import argparse
import filecmp
import os
import shutil
import subprocess
import sys
import tempfile


# Verilator's __Slow files (constructors, initial and settle code, the
# trace's declarations and full dumps) run once per model or per waveform,
# and its __Trace__N files (a waveform's per-cycle changes) only while a
# test dumps one (AGGNET_TRACE): they make up the cold unit, compiled
# without optimisation, many times faster (README.md, "Two commands", has
# what the two units save).
COLD_OPT = "-O0"
MODEL_MK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "verilated_model.mk")


def classes(path):
    """Verilator's PREFIX_classes.mk: its file lists {VAR: [name, ...]} and
    its single values {VAR: value} (VM_PARALLEL_BUILDS, ...)."""
    lists, values, cur = {}, {}, None
    with open(path) as f:
        for line in f:
            t = line.strip()
            if t.endswith("+= \\"):
                cur = lists.setdefault(t.split()[0], [])
            elif cur is not None and t.endswith("\\"):
                cur.append(t[:-1].strip())
            else:
                cur = None
                if " = " in t and not t.startswith("#"):
                    k, v = t.split(" = ", 1)
                    values[k.strip()] = v.strip()
    return lists, values


def write_if_changed(path, text):
    """Writes text unless the file already holds it (its time then stays)."""
    if os.path.exists(path):
        with open(path) as f:
            if f.read() == text:
                return
    with open(path, "w") as f:
        f.write(text)


def units(obj, p):
    """Writes obj/PREFIX__hot.cpp and obj/PREFIX__cold.cpp, the two C++
    units tools/verilated_model.mk compiles: the model's per-cycle code, and
    the rest (a file named __Slow, or a waveform's __Trace__).  A model
    Verilator did not split into parallel builds (VM_PARALLEL_BUILDS = 0:
    it is small) is all in its hot unit: one header parse costs more than
    optimising its cold code."""
    lists, values = classes(os.path.join(obj, p + "_classes.mk"))
    names = [n for v in ("VM_CLASSES_FAST", "VM_SUPPORT_FAST", "VM_CLASSES_SLOW", "VM_SUPPORT_SLOW")
             for n in lists.get(v, [])]
    missing = [n for n in names if not os.path.exists(os.path.join(obj, n + ".cpp"))]
    if not names or missing:
        raise SystemExit("tools/verilate.py: %s: %s_classes.mk lists no C++ file%s" %
                         (p, p, "" if not missing else " it names: " + " ".join(missing)))
    split = values.get("VM_PARALLEL_BUILDS", "1") != "0"
    cold = [n for n in names if split and (n.endswith("__Slow") or "__Trace__" in n)]
    hot = [n for n in names if n not in cold]
    for unit, members in (("hot", hot), ("cold", cold)):
        text = "// tools/verilate.py: the %s unit of %s\n" % (unit, p)
        text += "".join('#include "%s.cpp"\n' % n for n in members)
        write_if_changed(os.path.join(obj, "%s__%s.cpp" % (p, unit)), text)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--verilator", required=True, help="verilator_bin")
    ap.add_argument("--make", default="make")
    ap.add_argument("dir", help="the model's folder (holds PREFIX.args)")
    ap.add_argument("prefix", help="the Verilated class, e.g. Vsync2")
    ap.add_argument("vars", nargs="*", help="make variables for PREFIX.mk, e.g. CXX=g++")
    a = ap.parse_args(argv[1:])
    p = a.prefix
    stage, obj = os.path.join(a.dir, "stage"), os.path.join(a.dir, "obj")
    os.makedirs(stage, exist_ok=True)
    os.makedirs(obj, exist_ok=True)

    rc = subprocess.call([a.verilator, "-f", os.path.join(a.dir, p + ".args"), "--Mdir", stage])
    if rc:
        return rc
    changed = []
    for f in sorted(os.listdir(stage)):
        if f.startswith(p + "__ver"):   # Verilator's dependency and --skip-identical files
            continue
        src, dst = os.path.join(stage, f), os.path.join(obj, f)
        if not os.path.exists(dst) or not filecmp.cmp(src, dst, shallow=False):
            shutil.copyfile(src, dst)
            changed.append(f)
    # The makefiles carry the compiler flags (-CFLAGS), but no object depends
    # on them: when they change, every object is stale (compiled with the old
    # flags, e.g. without -fPIC), so the archive is rebuilt from scratch.
    if any(f.endswith(".mk") for f in changed):
        for f in os.listdir(obj):
            if f.endswith((".o", ".a", ".d")):
                os.remove(os.path.join(obj, f))

    # A make of its own, serial: this runs under CMake's make, whose
    # jobserver it cannot join (models build in parallel with each other).
    # The hot unit's optimisation flags are the model's -CFLAGS (CMake's
    # AGGNET_VERILATED_OPT), the cold unit's COLD_OPT.
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    units(obj, p)
    r = subprocess.run([a.make, "-s", "--no-print-directory", "-C", obj, "-f", p + ".mk", "-f", MODEL_MK,
                        p + "__model.a", "COLD_OPT=" + COLD_OPT] + a.vars,
                       env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    # verilated.mk announces every archive it writes; the rest (compiler errors) is shown
    out = [line for line in r.stdout.splitlines() if not line.startswith("Archive ")]
    if out:
        print("\n".join(out), flush=True)
    if r.returncode:
        print("tools/verilate.py: %s: make -C %s -f %s.mk failed" % (p, obj, p), file=sys.stderr)
        return r.returncode

    with open(os.path.join(stage, p + "__ver.d")) as f:
        deps = []
        for w in f.read().split(":", 1)[1].split():
            if w not in deps:
                deps.append(w)
    stamp = os.path.join(a.dir, p + ".stamp")
    with open(os.path.join(a.dir, p + ".d"), "w") as f:
        f.write("%s: %s\n" % (stamp, " ".join(deps)))
    with open(stamp, "w"):
        pass
    return 0


def selftest():
    """Builds rtl/common/sync2.v three times in a scratch folder: unchanged
    arguments recompile nothing; changed C++ flags recompile every object
    (they once kept objects built without -fPIC, and the model plugins that
    linked them could not be loaded)."""
    verilator = shutil.which("verilator_bin") or shutil.which("verilator")
    if not verilator:
        print("verilate.py selftest: no verilator on PATH", file=sys.stderr)
        return 1
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "rtl", "common", "sync2.v")
    with tempfile.TemporaryDirectory() as d:
        def build(flag):
            with open(os.path.join(d, "Vst.args"), "w") as f:
                f.write("\n".join(["--cc", "--prefix", "Vst", "--top-module", "sync2", "-CFLAGS", flag, src]) + "\n")
            rc = main(["verilate.py", "--verilator", verilator, d, "Vst", "CXX=" + os.environ.get("CXX", "c++")])
            if rc:
                raise SystemExit("verilate.py selftest: the build failed (%d)" % rc)
            obj = os.path.join(d, "obj")
            return {f: os.stat(os.path.join(obj, f)).st_mtime_ns for f in os.listdir(obj) if f.endswith(".o")}
        first = build("-DAGGNET_VERILATE_SELFTEST=1")
        again = build("-DAGGNET_VERILATE_SELFTEST=1")
        other = build("-DAGGNET_VERILATE_SELFTEST=2")
    bad = []
    if not first:
        bad.append("no object was built")
    if again != first:
        bad.append("unchanged arguments recompiled %s" % sorted(f for f in first if again.get(f) != first[f]))
    stale = sorted(f for f in first if other.get(f) == first[f])
    if stale:
        bad.append("new C++ flags left %s as compiled with the old ones" % stale)
    for b in bad:
        print("verilate.py selftest: FAIL: " + b, file=sys.stderr)
    if not bad:
        print("verilate.py selftest: ok (%d objects; kept when nothing changed, rebuilt for new flags)" % len(first))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(selftest() if sys.argv[1:] == ["selftest"] else main(sys.argv))
