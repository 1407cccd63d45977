#!/usr/bin/env python3
"""Adding an engine is one folder: checked by doing it.

In a throw-away copy of the working tree this script adds an engine the way
docs/engines.md ("How to add an engine") says a developer does: a copy of the
scratch engine (rtl/scratch/, tests/test_scratch.cpp) under a new name and a
new window, plus its one row in tools/linkgen.py's window table.  Then it

  1. runs every generator (`make gen`) and fails unless the hand-written
     files that changed are exactly the new folder, the new test and that
     one row; it prints the generated files that changed (docs/engines.md
     lists them);
  2. runs `tools/engines.py check`, and lints every source of the new
     component as its own top with only its own flags (as `make lint` does);
  3. runs the new component's formal jobs and synthesis jobs (formal/run.py,
     tools/synth.py: both find it through its manifest);
  4. configures CMake, builds the new test alone, finds it in CTest under the
     component's label and runs it.

Nothing outside the copy changes.  `make engine-selftest` runs it; CI runs it
after `make lint`.

Usage: tools/engine_selftest.py [--name NAME] [--window W] [--keep] [--jobs N]
"""
import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import engines  # noqa: E402

TEMPLATE = "scratch"
TEMPLATE_TEST = "tests/test_scratch.cpp"


def run(cmd, cwd, quiet=False):
    """Runs cmd (a list, or a string for the shell) in cwd; raises with its output on failure."""
    shell = isinstance(cmd, str)
    p = subprocess.run(cmd, cwd=cwd, shell=shell, text=True,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if p.returncode != 0:
        sys.stdout.write(p.stdout)
        raise SystemExit("engine-selftest: FAILED: %s (exit %d)" % (cmd if shell else " ".join(cmd), p.returncode))
    if not quiet:
        sys.stdout.write(p.stdout)
    return p.stdout


def copy_tree(dst):
    """The working tree's tracked and untracked, not ignored, files (not build/)."""
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                         cwd=ROOT, check=True, stdout=subprocess.PIPE).stdout.decode()
    for rel in filter(None, out.split("\0")):
        src = ROOT / rel
        if not src.is_file() or rel.startswith("build/"):
            continue  # deleted in the working tree, or a build product
        d = dst / rel
        d.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, d)


def rename(text, name):
    return text.replace(TEMPLATE, name).replace(TEMPLATE.upper(), name.upper())


def add_engine(tree, name, window):
    """What a developer writes: the folder, the test, one window row."""
    old_w = engines.load(tree).by_name[TEMPLATE].window
    src = tree / "rtl" / TEMPLATE
    dst = tree / "rtl" / name
    dst.mkdir()
    for f in sorted(src.iterdir()):
        (dst / rename(f.name, name)).write_text(rename(f.read_text(), name))
    man = dst / "manifest.json"
    text = man.read_text()
    text, k1 = re.subn(r'"window": %d\b' % old_w, '"window": %d' % window, text)
    text, k2 = re.subn(r'"WINDOW": "%d"' % old_w, '"WINDOW": "%d"' % window, text)
    if k1 != 1 or k2 != 1:
        raise SystemExit("engine-selftest: rtl/%s/manifest.json: expected one window and one slot WINDOW "
                         "to renumber (found %d, %d)" % (TEMPLATE, k1, k2))
    man.write_text(text)
    (tree / ("tests/test_%s.cpp" % name)).write_text(rename((tree / TEMPLATE_TEST).read_text(), name))
    lg = tree / "tools" / "linkgen.py"
    text = lg.read_text()
    row = '    ("%s", %d, "a throw-away copy of the scratch engine (tools/engine_selftest.py)"),\n' % (
        name.upper(), window)
    anchor = re.search(r'^WINDOWS = \[\n', text, re.M)
    if not anchor:
        raise SystemExit("engine-selftest: tools/linkgen.py has no WINDOWS table")
    lg.write_text(text[:anchor.end()] + row + text[anchor.end():])


def changed_files(tree):
    out = run(["git", "status", "--porcelain", "--untracked-files=all"], tree, quiet=True)
    return sorted(line[3:] for line in out.splitlines())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--name", default="probe", help="the new engine's name (default probe)")
    ap.add_argument("--window", type=int, default=None, help="its window (default: the highest free one)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--keep", action="store_true", help="keep the throw-away tree and say where")
    args = ap.parse_args()
    if not re.fullmatch(r"[a-z][a-z0-9]*", args.name):
        raise SystemExit("engine-selftest: --name must be lower-case letters and digits")
    reg = engines.load(ROOT)
    if args.name in reg.by_name:
        raise SystemExit("engine-selftest: an engine named %s already exists" % args.name)
    taken = set(reg.windows()) | set(engines._linkgen_windows(ROOT))
    window = args.window if args.window is not None else max(set(range(1, 16)) - taken)
    if window in taken or not 1 <= window <= 15:
        raise SystemExit("engine-selftest: window %d is taken or out of 1..15" % window)

    tmp = pathlib.Path(tempfile.mkdtemp(prefix="aggnet-engine-selftest-"))
    try:
        tree = tmp / "tree"
        tree.mkdir()
        copy_tree(tree)
        run(["git", "init", "-q"], tree)
        run(["git", "add", "-A"], tree)
        run(["git", "-c", "user.name=selftest", "-c", "user.email=selftest@localhost", "commit", "-q",
             "-m", "base"], tree)
        print("engine-selftest: adding engine %r in window %d (a copy of %s) in %s" % (
            args.name, window, TEMPLATE, tree))
        add_engine(tree, args.name, window)
        build = tree / "build"
        make = ["make", "--no-print-directory", "BUILD=" + str(build)]

        # 1. generators; then only the folder, the test and one row are hand-written changes
        run(make + ["gen"], tree, quiet=True)
        changed = changed_files(tree)
        generated = {o for g in engines.load(tree).generators() for o in g["outputs"]}
        written = {"tools/linkgen.py", "tests/test_%s.cpp" % args.name}
        hand = [f for f in changed if f not in generated]
        stray = [f for f in hand if f not in written and not f.startswith("rtl/%s/" % args.name)]
        if stray:
            raise SystemExit("engine-selftest: FAILED: adding an engine changed hand-written files "
                             "outside its folder: %s" % ", ".join(stray))
        row_diff = [l for l in run(["git", "diff", "-U0", "tools/linkgen.py"], tree, quiet=True).splitlines()
                    if l[:1] in "+-" and not l.startswith(("+++", "---"))]
        if len(row_diff) != 1 or not row_diff[0].startswith("+"):
            raise SystemExit("engine-selftest: FAILED: tools/linkgen.py should gain one window row, "
                             "its diff is:\n" + "\n".join(row_diff))
        print("engine-selftest: hand-written: rtl/%s/ (%d files), tests/test_%s.cpp, one row of tools/linkgen.py"
              % (args.name, len([f for f in hand if f.startswith("rtl/")]), args.name))
        print("engine-selftest: generated files that changed: %s" % ", ".join(f for f in changed if f in generated))

        # 2. the registry takes it; its sources lint alone
        run(["python3", "tools/engines.py", "check"], tree, quiet=True)
        mk = run(["python3", "tools/engines.py", "make"], tree, quiet=True)
        v = dict(re.findall(r"^(\w+)\s*:?=\s*(.*)$", mk, re.M))
        srcs = v.get("ENGINE_%s_RTL" % args.name, "").split()
        if not srcs:
            raise SystemExit("engine-selftest: FAILED: engines.mk lists no sources for %s" % args.name)
        for f in srcs:
            run("verilator --lint-only -Wall rtl/lint.vlt %s %s --top-module %s" % (
                v["ENGINE_%s_LINT" % args.name], f, os.path.basename(f)[:-2]), tree, quiet=True)
        print("engine-selftest: engines.py check and lint of %d source(s): ok" % len(srcs))

        # 3. formal and synthesis find it through its manifest
        fo = run(["python3", "formal/run.py", "--build", str(build), "--only", args.name], tree, quiet=True)
        so = run(["python3", "tools/synth.py", "--build", str(build), "--only", args.name], tree, quiet=True)
        new = engines.load(tree).by_name[args.name]
        n_formal, n_synth = len(new.formal), len(new.synth)
        for what, out, n in (("formal", fo, n_formal), ("synth", so, n_synth)):
            if n == 0 or args.name not in out:
                raise SystemExit("engine-selftest: FAILED: %s ran no job of %s:\n%s" % (what, args.name, out))
        print("engine-selftest: formal (%d jobs) and synthesis (%d jobs): ok" % (n_formal, n_synth))

        # 4. CMake builds and registers its test; it passes
        test = "test_%s" % args.name
        run(["cmake", "-S", ".", "-B", str(build), "-DCMAKE_BUILD_TYPE=RelWithDebInfo"], tree, quiet=True)
        run(["cmake", "--build", str(build), "-j", str(args.jobs), "--target", test], tree, quiet=True)
        listed = run(["ctest", "--test-dir", str(build), "-N", "-L", args.name], tree, quiet=True)
        if test not in listed:
            raise SystemExit("engine-selftest: FAILED: CTest has no %s under the label %s:\n%s" % (
                test, args.name, listed))
        out = run(["ctest", "--test-dir", str(build), "--output-on-failure", "-R", "^%s$" % test], tree, quiet=True)
        print("\n".join(l for l in out.splitlines() if "tests passed" in l or "Test #" in l))
        print("engine-selftest: PASSED: engine %r added as one folder, one test and one window row" % args.name)
    finally:
        if args.keep:
            print("engine-selftest: kept %s" % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
