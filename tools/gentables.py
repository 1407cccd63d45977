"""gentables: what the table generators (tools/regmap.py, tools/linkgen.py,
tools/besugen.py, tools/nandgen.py) share.  Each generator has a TARGETS dict
of repository-relative path -> function returning the file's text.

  gentables.main("linkgen", __doc__, TARGETS, ROOT)      # in a generator's main

Without --check it rewrites the files that differ; with --check it writes
nothing and exits 1 naming every stale file (what `make lint` runs).

  gentables.map_hash(REGS, FIELDS)                       # a register map's hash

is the hash an engine's INFO window reports (MAP_HASH+w, docs/link.md).
"""
import argparse
import sys
import zlib


def map_hash(*tables):
    """CRC-32 of the canonical text of a register map: the repr() of each
    table, concatenated.  The hub's INFO window reports it per engine
    window, and libaggnet refuses a hub whose hash is not the one it was
    built with."""
    text = "".join(repr(t) for t in tables)
    return zlib.crc32(text.encode()) & 0xFFFFFFFF


def cause_text_fn(causes):
    """C++ lines of `constexpr const char* cause_text(unsigned cause)`: "NAME:
    meaning" for each (name, code, meaning) of `causes` (an engine's table of
    refusal causes, enum values C_<name>), nullptr for any other code.  One
    generator for every engine's library, so its messages are the table's."""
    esc = lambda t: t.replace("\\", "\\\\").replace('"', '\\"')
    o = ["/// \"NAME: meaning\" of a cause (its row of the table above), or nullptr.",
         "constexpr const char* cause_text(unsigned cause) {", "    switch (cause) {"]
    o += [f"    case C_{n}: return \"{n}: {esc(m)}\";" for n, c, m in causes]
    o += ["    default: return nullptr;", "    }", "}"]
    return o


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
