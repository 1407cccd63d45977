"""gentables: the one write-or-check loop of the table generators
(tools/regmap.py, tools/linkgen.py).  Each generator has a TARGETS dict of
repository-relative path -> function returning the file's text.

  gentables.main("linkgen", __doc__, TARGETS, ROOT)      # in a generator's main

Without --check it rewrites the files that differ; with --check it writes
nothing and exits 1 naming every stale file (what `make lint` runs).
"""
import argparse
import sys


def main(tool, doc, targets, root, before=None):
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="fail if a generated file is stale")
    args = ap.parse_args()
    if before:
        before()
    stale = []
    for rel, fn in targets.items():
        path = root / rel
        text = fn()
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(rel)
        elif not path.exists() or path.read_text() != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            print(f"{tool}: wrote {rel}")
    if stale:
        print(f"{tool}: stale generated files (run `python3 tools/{tool}.py`): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0
