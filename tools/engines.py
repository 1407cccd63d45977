#!/usr/bin/env python3
"""tools/engines.py: the engine registry, read by every consumer.

Every folder rtl/<name>/ is one component (an engine such as `papers`, or a
shared part such as `common` or `link`) and holds one manifest,
rtl/<name>/manifest.json: its RTL sources, include directories, dependencies,
bus window, Verilated model families, test suites, synthesis jobs, formal
jobs, register-map generators and bench points; an engine with a slot in
the hub also names the hub model families that carry it (hub_models),
which this file folds into the hub's families.  docs/engines.md describes
the format field by field and how to add an engine.

This file is the only reader.  It finds rtl/*/manifest.json, checks each one
(unknown or missing fields, wrong types, files that do not exist, RTL files
outside the component's folder or left out of its manifest, top modules that
no source defines, duplicate bus windows and names, unknown or cyclic
dependencies, formal harnesses without a negative control, a Verilated class
made two ways) and fails with the file and the field named.  Consumers:

  Python   formal/run.py, tools/synth.py, tools/bench_hw.py:
             import engines; reg = engines.load()
             reg.formal_jobs(), reg.synth_jobs(), reg.bench_points(), ...
  make     `tools/engines.py make` prints make variables (ENGINE_*); the top
           Makefile writes them to $(BUILD)/engines.mk and includes it (lint,
           gen, and mk/hw.mk's bitstream sources).
  CMake    `tools/engines.py cmake OUT` writes OUT, a CMake include of flat
           AGGNET_* variables; CMakeLists.txt includes it and calls
           aggnet_engine(<name>) for every component.

Usage: tools/engines.py check | make | cmake OUT | selftest [-v]
"""
import copy
import json
import os
import re
import shutil
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MANIFEST = "manifest.json"
HUB = "hub"                    # the component whose top gathers every engine's slot
FAMILIES = ("ice40", "ecp5")   # what synth jobs may name (tools/synth.py maps each)
DEFAULT_TIMEOUT = 900


class ManifestError(Exception):
    """A manifest (or the set of them) is invalid; str() names file and field."""


# ---- the format --------------------------------------------------------------
# kind: str, int, bool, strs, ints, files, dirs, params, objs (a list of
# objects described by `schema`).  Paths are relative to the repository root.

def F(kind, required=False, default=None, schema=None):
    return {"kind": kind, "required": required, "default": default, "schema": schema}


VERILATE = {
    "prefix": F("str", True),      # Verilated class name; {PARAM} placeholders
    "top": F("str", True),         # top module
    "params": F("params"),         # {"N": 4} or [{"N": 3}, {"N": 4}]: one model each
    "args": F("strs", default=[]),  # extra verilator arguments
}
TEST = {
    "name": F("str", True),        # CTest name and executable
    "sources": F("files", True),   # C++ sources of the Catch2 binary
    "verilate": F("objs", default=[], schema=VERILATE),
    "families": F("strs", default=[]),   # model families it links (make_<family>_rtl)
    "timeout": F("int", default=DEFAULT_TIMEOUT),
    "seeded": F("bool", default=False),  # random stimulus: `make test-fresh` reruns it
    "boards": F("bool", default=False),  # also verilates every board top (tools/boards/, fw/<board>/top.v)
    "board_args": F("strs", default=[]),  # extra verilator arguments for those board tops (a -G override only for the tops declaring that parameter)
    "bench": F("bool", default=False),   # a cycle benchmark: built, not a CTest test; `make bench` runs it
    "parts": F("strs", default=[]),  # Catch2 tags: one CTest entry <name>:<tag> each, and <name>:rest
    "runs": F("strs", default=[]),   # programs it starts (RUNNABLE): built first, paths as AGGNET_<NAME>_EXE
}
# the project's programs a test may start ("runs"): CMake target names
RUNNABLE = ("aggnet-sim", "aggnet-cli")
MODEL = {
    "family": F("str", True),      # make_<family>_rtl(), <family>_rtl_sizes(), <family>_models
    "top": F("str", True),
    "param": F("str", True),       # the size parameter (-G<param>=<size>)
    "sizes": F("ints", True),      # default sizes; cache variable AGGNET_<FAMILY>_SIZES overrides
    "args": F("strs", default=[]),
    "size_args": F("size_args", default={}),  # extra verilator arguments for one size: {"16": ["-GEN_X=0"]}
    "header": F("file", True),     # the C++ adapter header
    "class": F("str", True),       # adapter template: Class<Vmodel>(size, name, max_cycles)
    "base": F("str", True),        # the interface the factory returns
}
SYNTH = {
    "name": F("str", True),
    "top": F("str", True),
    "params": F("params"),
    "families": F("strs", default=list(FAMILIES)),
}
FORMAL = {
    "name": F("str", True),
    "harness": F("file", True),    # its module is named after the file
    "params": F("params"),
    # a proof: k of the k-induction (sat -maxsteps); a negative control: the
    # cycles from reset within which its counterexample must come (ABC bmc3)
    "steps": F("int", True),
    "defines": F("strs", default=[]),
    "expect_pass": F("bool", default=True),
}
BENCH = {
    "name": F("str", True),
    "top": F("str", True),
    "params": F("params"),
    "chain": F("strs", default=[]),  # the ports in the chains (default all); the others: inputs 0, outputs open
}
SLOT_PARAM = {
    "name": F("str", True),        # a parameter the hub top gains (derived from N)
    "value": F("str", True),       # its Verilog default expression
}
SLOT_PORT = {
    "dir": F("str", True),         # input | output (as seen from the hub top)
    "name": F("str", True),        # hub top port = slot module port of the same name
    "width": F("str", True),       # Verilog width expression, e.g. N*W
    "idle": F("int", default=0),   # the level its lines rest at undriven (an input a board top leaves open)
}
SLOT = {
    "module": F("str", True),      # the engine's slot module: the bus slave ports + `ports`
    "params": F("exprs", default={}),        # slot parameter -> expression of hub parameters
    "hub_params": F("objs", default=[], schema=SLOT_PARAM),
    "ports": F("objs", default=[], schema=SLOT_PORT),
    "includes": F("strs", default=[]),       # .vh files the map hash expression needs
    "map_hash": F("str", default="32'd0"),   # Verilog expression: the register map's hash (INFO MAP_HASH+w)
    "enable": F("int", default=1),           # default of the hub parameter EN_<NAME> (0: built only on request)
    "call": F("bool", default=False),        # the slot takes CALLs: it has the five CALL ports (docs/link.md)
    "busy": F("bool", default=False),        # the slot has an output `busy`: its state moves on by itself
    "settle": F("str", default="8"),         # Verilog expression: cycles from a bus write to its registers' final value
    "gone": F("bool", default=False),        # the slot has an input pe_gone [N-1:0]: PE a's own link is silent (aggnet_hub's link_gone)
}
HUB_MODEL = {
    "family": F("str", True),      # a model family of the hub: one of its `models`, or a new one
    "sizes": F("ints"),            # joined: the sizes that carry the engine (default all); new: the family's
    "params": F("params"),         # hub parameters the engine needs: its EN_<NAME> and its slot's hub_params
}
GENERATOR = {
    "run": F("str", True),         # shell command that rewrites the outputs
    "check": F("str", True),       # shell command that fails when an output is stale
    "outputs": F("files", default=[]),
}
COMPONENT = {
    "title": F("str", True),
    "window": F("int"),
    "depends": F("strs", default=[]),
    "sources": F("files", default=[]),
    "includes": F("dirs", default=[]),
    "verilator_args": F("strs", default=[]),
    "generators": F("objs", default=[], schema=GENERATOR),
    "models": F("objs", default=[], schema=MODEL),
    "tests": F("objs", default=[], schema=TEST),
    "synth": F("objs", default=[], schema=SYNTH),
    "formal": F("objs", default=[], schema=FORMAL),
    "bench_hw": F("objs", default=[], schema=BENCH),
    "slot": F("objs", default=[], schema=SLOT),   # at most one: the engine's place in the hub top
    "hub_models": F("objs", default=[], schema=HUB_MODEL),  # named hub configurations that carry it
}

IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
NAME = re.compile(r"^[a-z][a-z0-9_]*$")


def _kind_ok(kind, v):
    def strs(x):
        return isinstance(x, list) and all(isinstance(s, str) for s in x)
    if kind in ("str", "file"):
        return isinstance(v, str) and v != ""
    if kind == "int":
        return isinstance(v, int) and not isinstance(v, bool)
    if kind == "bool":
        return isinstance(v, bool)
    if kind in ("strs", "files", "dirs"):
        return strs(v)
    if kind == "ints":
        return isinstance(v, list) and all(isinstance(i, int) and not isinstance(i, bool) for i in v)
    if kind == "params":
        sets = v if isinstance(v, list) else [v]
        return len(sets) > 0 and all(
            isinstance(s, dict) and all(IDENT.match(k) and isinstance(x, int) and not isinstance(x, bool)
                                        for k, x in s.items()) for s in sets)
    if kind == "objs":
        return isinstance(v, list) and all(isinstance(o, dict) for o in v)
    if kind == "size_args":
        return isinstance(v, dict) and all(re.match(r"^[1-9][0-9]*$", k) and strs(x) for k, x in v.items())
    if kind == "exprs":
        return isinstance(v, dict) and all(IDENT.match(k) and isinstance(x, str) and x for k, x in v.items())
    raise AssertionError(kind)


KIND_TEXT = {
    "str": "a non-empty string", "file": "a file path", "int": "an integer", "bool": "true or false",
    "strs": "a list of strings", "ints": "a list of integers", "files": "a list of file paths",
    "dirs": "a list of directory paths", "objs": "a list of objects",
    "exprs": "an object of parameter names to Verilog expressions",
    "size_args": "an object of sizes (\"16\") to lists of strings",
    "params": "an object of integer parameters, or a non-empty list of them",
}


def _parse(obj, schema, fname, where, root, errs):
    """Check obj against schema; return it with defaults filled in.  Messages
    read '<manifest>: <field path>: ...'."""
    out = {}
    at = fname + (": " + where if where else "")
    for k in obj:
        if k not in schema:
            errs.append("%s: unknown field '%s' (known: %s)" % (at, k, ", ".join(schema)))
    for k, f in schema.items():
        w = "%s: %s" % (fname, (where + "." + k) if where else k)
        if k not in obj:
            if f["required"]:
                errs.append("%s: missing field '%s'" % (at, k))
            d = f["default"]
            # a copy: a default list or object is never shared between manifests
            # (_join_hub_models extends a family's size_args in place)
            out[k] = [{}] if f["kind"] == "params" and d is None else copy.deepcopy(d)
            continue
        v = obj[k]
        if not _kind_ok(f["kind"], v):
            errs.append("%s: must be %s, not %s" % (w, KIND_TEXT[f["kind"]], json.dumps(v)))
            out[k] = copy.deepcopy(f["default"]) if f["kind"] != "params" else [{}]
            continue
        if f["kind"] in ("files", "file"):
            for p in (v if f["kind"] == "files" else [v]):
                if not os.path.isfile(os.path.join(root, p)):
                    errs.append("%s: no such file '%s'" % (w, p))
        elif f["kind"] == "dirs":
            for p in v:
                if not os.path.isdir(os.path.join(root, p)):
                    errs.append("%s: no such directory '%s'" % (w, p))
        if f["kind"] == "params":
            v = v if isinstance(v, list) else [v]
        if f["kind"] == "objs":
            sub = (where + "." + k) if where else k
            v = [_parse(o, f["schema"], fname, "%s[%d]" % (sub, i), root, errs) for i, o in enumerate(v)]
        out[k] = v
    return out


def _expand(template, params, where, errs):
    """template.format(**params) for each parameter set: the job names."""
    names = []
    for p in params:
        try:
            names.append(template.format(**p))
        except (KeyError, IndexError, ValueError) as e:
            errs.append("%s: '%s' names a placeholder its params do not have (%s)" % (where, template, e))
            return []
    if len(set(names)) != len(names):
        errs.append("%s: '%s' gives the same name for several params sets; add a {PARAM} placeholder"
                    % (where, template))
    return names


MODULE_RE = re.compile(r"^\s*module\s+([A-Za-z_][A-Za-z0-9_$]*)", re.M)


def _modules(root, path):
    with open(os.path.join(root, path)) as f:
        return MODULE_RE.findall(f.read())


# ---- the registry ---------------------------------------------------------------

class Component:
    def __init__(self, name, path, data):
        self.name = name
        self.dir = os.path.join("rtl", name)
        self.manifest = path
        self.m = data

    def __getattr__(self, k):
        if k != "m" and k in COMPONENT:
            return self.m[k]
        raise AttributeError(k)


class Registry:
    def __init__(self, root, comps):
        self.root = root
        self.by_name = {c.name: c for c in comps}
        self.order = comps   # dependencies first

    @property
    def components(self):
        return list(self.order)

    def names(self):
        return [c.name for c in self.order]

    def closure(self, name):
        """Component `name` and everything it depends on, dependencies first."""
        seen = []

        def visit(n):
            for d in self.by_name[n].depends:
                visit(d)
            if n not in seen:
                seen.append(n)
        visit(name)
        return [self.by_name[n] for n in seen]

    def sources(self, name):
        return [s for c in self.closure(name) for s in c.sources]

    def includes(self, name):
        return [i for c in self.closure(name) for i in c.includes]

    def libdirs(self, name):
        return [c.dir for c in self.closure(name) if c.sources]

    def modules(self, name):
        """{module: file} over the sources of `name` and its dependencies."""
        return {m: s for s in self.sources(name) if os.path.isfile(os.path.join(self.root, s))
                for m in _modules(self.root, s)}

    def all_sources(self):
        return [s for c in self.order for s in c.sources]

    def all_includes(self):
        return [i for c in self.order for i in c.includes]

    def all_libdirs(self):
        return [c.dir for c in self.order if c.sources]

    def _jobs(self, key, label):
        out = []
        for c in self.order:
            for j in c.m[key]:
                for name, params in zip(_expand(j[label], j["params"], "", []), j["params"]):
                    d = dict(j)
                    d.update(name=name, params=params, engine=c.name,
                             sources=self.sources(c.name), includes=self.includes(c.name))
                    out.append(d)
        return out

    def synth_jobs(self):
        """[{name, top, params, families, engine, sources, includes}] in manifest order."""
        return self._jobs("synth", "name")

    def formal_jobs(self):
        """[{name, harness, module, params, steps, defines, expect_pass, engine, sources, includes}]."""
        out = self._jobs("formal", "name")
        for j in out:
            j["module"] = os.path.splitext(os.path.basename(j["harness"]))[0]
        return out

    def bench_points(self):
        """[{name, top, params, engine, sources, includes}]: what `make bench-hw` measures."""
        return self._jobs("bench_hw", "name")

    def generators(self):
        return [dict(g, engine=c.name) for c in self.order for g in c.generators]

    def slots(self):
        """[(component, slot)] of every engine with a place in the hub top, by window."""
        return sorted(((c, c.slot[0]) for c in self.order if c.slot), key=lambda cs: cs[0].window)

    def windows(self):
        return {c.window: c.name for c in self.order if c.window is not None}

    def tests(self):
        """[{name, sources, families, timeout, seeded, engine, models: [{prefix, top, file, args}],
        boards: [{name, prefix, top_file, params}]}]: each model's `file` defines its top (the
        rest comes from the -y folders of the component and its dependencies); with "boards",
        one model V<board>_top per board of tools/boards/, its top fw/<board>/top.v, and the
        top's integer localparams (N, HUB_KHZ, LINK_BAUD, ...)."""
        out = []
        for c in self.order:
            mods = self.modules(c.name)
            for t in c.tests:
                models = []
                for v in t["verilate"]:
                    for prefix, p in zip(_expand(v["prefix"], v["params"], "", []), v["params"]):
                        args = ["-G%s=%d" % kv for kv in p.items()] + c.verilator_args + v["args"]
                        models.append({"prefix": prefix, "top": v["top"], "file": mods.get(v["top"]),
                                       "args": args})
                bds = []
                for b in (board_tops(self.root) if t["boards"] else []):
                    bds.append(b)
                    # a -G override reaches only the tops that declare that parameter
                    args = [a for a in t["board_args"]
                            if not a.startswith("-G") or a[2:].split("=")[0] in b["overridable"]]
                    models.append({"prefix": b["prefix"], "top": "top", "file": b["top_file"],
                                   "args": c.verilator_args + args})
                out.append(dict(t, engine=c.name, models=models, boards=bds))
        return out

    def families(self):
        """[model family, with engine, top_file (the file that defines its top) and args
        (the component's verilator_args first)]."""
        return [dict(m, engine=c.name, top_file=self.modules(c.name).get(m["top"]),
                     args=c.verilator_args + m["args"]) for c in self.order for m in c.models]



LOCALPARAM_RE = re.compile(r"localparam\s+integer\s+([A-Z_][A-Z0-9_]*)\s*=\s*(\d+)\s*;")
PARAM_RE = re.compile(r"\bparameter\s+integer\s+([A-Z_][A-Z0-9_]*)\s*=")
STRING_PARAM_RE = re.compile(r"localparam\s+([A-Z_][A-Z0-9_]*)\s*=\s*\"([A-Za-z0-9_ .-]*)\"\s*;")


def board_tops(root):
    """[{name, prefix, top_file, params}] for every board of tools/boards/ (the one
    list of boards; none in the selftest's throw-away trees): its gateware top and
    the integer and string localparams the top declares with a literal value
    (a string as its Verilog literal, quotes included: DISPLAY = "LED8")."""
    d = os.path.join(root, "tools", "boards")
    if not os.path.isdir(d):
        return []
    out = []
    for f in sorted(os.listdir(d)):
        if not f.endswith(".py") or f.startswith("_"):
            continue
        name = f[:-3]
        top = "fw/%s/top.v" % name
        params = {}
        overridable = set()
        if os.path.isfile(os.path.join(root, top)):
            with open(os.path.join(root, top)) as fh:
                text = fh.read()
            params = {k: int(v) for k, v in LOCALPARAM_RE.findall(text)}
            params.update({k: '"%s"' % v for k, v in STRING_PARAM_RE.findall(text)})
            overridable = set(PARAM_RE.findall(text))
        out.append({"name": name, "prefix": "V%s_top" % name, "top_file": top, "params": params,
                    "overridable": overridable})
    return out


def _linkgen_windows(root):
    """The window table of tools/linkgen.py (window -> NAME), the one list of
    engine windows; {} when it is absent (the selftest's throw-away trees)."""
    import importlib.util
    import pathlib
    path = pathlib.Path(root) / "tools" / "linkgen.py"
    if not path.exists():
        return {}
    spec = importlib.util.spec_from_file_location("_aggnet_linkgen", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return {w: n for n, w, _ in mod.WINDOWS}

def _join_hub_models(hub, comps, errs):
    """Fold every engine's `hub_models` into the hub's `models`: an entry that
    names one of the hub's families adds the engine's parameters to it (at
    its `sizes`, or all of the family's); one that names a new family makes
    it, a copy of the hub's first family (top, size parameter, arguments,
    adapter) with the entry's sizes.  Engines join in window order, so the
    Verilator arguments come out the same whichever manifest is read first.
    Each family records the engines that joined it (`engines`)."""
    joining = sorted((c for c in comps if c.hub_models), key=lambda c: (c.window is None, c.window or 0, c.name))
    if hub is None:
        for c in joining:
            errs.append("%s: hub_models: there is no hub component (rtl/%s/) to build them" % (c.manifest, HUB))
        return
    base = json.loads(json.dumps(hub.models[0])) if hub.models else None
    for m in hub.models:
        m["engines"] = []
    for c in joining:
        mine = set()
        if c.slot:
            mine = {"EN_" + c.name.upper()} | {p["name"] for p in c.slot[0]["hub_params"]}
        for i, h in enumerate(c.hub_models):
            wi = "%s: hub_models[%d]" % (c.manifest, i)
            if not c.slot or c.name == HUB:
                errs.append("%s: only an engine with a slot in the hub can join a hub model family" % wi)
                continue
            if len(h["params"]) != 1:
                errs.append("%s.params: must be one object of hub parameters, not a list" % wi)
                continue
            for k in sorted(h["params"][0]):
                if k not in mine:
                    errs.append("%s.params: '%s' is not a parameter of %s's slot (it may set: %s)"
                                % (wi, k, c.name, ", ".join(sorted(mine))))
            args = ["-G%s=%d" % kv for kv in h["params"][0].items()]
            fam = [m for m in hub.models if m["family"] == h["family"]]
            if fam:
                m = fam[0]
            elif base is None:
                errs.append("%s.family: the hub declares no model family to copy for '%s'" % (wi, h["family"]))
                continue
            elif h["sizes"] is None:
                errs.append("%s.sizes: '%s' is not a family of the hub; a new family needs its sizes"
                            % (wi, h["family"]))
                continue
            else:
                m = dict(json.loads(json.dumps(base)), family=h["family"], sizes=list(h["sizes"]),
                         size_args={}, engines=[])
                hub.models.append(m)
                h = dict(h, sizes=None)   # a new family carries the engine at all its sizes
            m["engines"].append(c.name)
            bad = [n for n in (h["sizes"] or []) if n not in m["sizes"]]
            for n in bad:
                errs.append("%s.sizes: %d is not one of family %s's sizes (%s)"
                            % (wi, n, m["family"], ", ".join(str(x) for x in m["sizes"])))
            if h["sizes"] is None or set(m["sizes"]) <= set(h["sizes"]):
                m["args"] = m["args"] + args
            elif not bad:
                for n in h["sizes"]:
                    m["size_args"][str(n)] = m["size_args"].get(str(n), []) + args


def load(root=ROOT):
    """Read and check every rtl/*/manifest.json; raise ManifestError listing every problem."""
    errs = []
    comps = []
    rtl = os.path.join(root, "rtl")
    for name in sorted(os.listdir(rtl)):
        d = os.path.join(rtl, name)
        if not os.path.isdir(d):
            continue
        rel = "rtl/%s/%s" % (name, MANIFEST)
        if not os.path.isfile(os.path.join(d, MANIFEST)):
            errs.append("rtl/%s/: no %s (every folder under rtl/ is a component with a manifest; "
                        "docs/engines.md)" % (name, MANIFEST))
            continue
        if not NAME.match(name):
            errs.append("%s: the folder name '%s' must be lower case letters, digits and _" % (rel, name))
        try:
            with open(os.path.join(d, MANIFEST)) as f:
                raw = json.load(f)
        except ValueError as e:
            errs.append("%s: not valid JSON: %s" % (rel, e))
            continue
        if not isinstance(raw, dict):
            errs.append("%s: must be a JSON object" % rel)
            continue
        comps.append(Component(name, rel, _parse(raw, COMPONENT, rel, "", root, errs)))
    if errs:   # the checks below need well-formed manifests
        raise ManifestError("\n".join(errs))
    by = {c.name: c for c in comps}
    # The hub top gathers every engine that has a slot (tools/hubgen.py).
    if HUB in by:
        for c in comps:
            if c.slot and c.name != HUB and c.name not in by[HUB].depends:
                by[HUB].m["depends"].append(c.name)
    _join_hub_models(by.get(HUB), comps, errs)

    # per component
    windows = {}
    linkgen_windows = _linkgen_windows(root)
    for c in comps:
        w = c.manifest
        for s in c.sources:
            if not (s.startswith(c.dir + "/") and s.endswith(".v") and "/" not in s[len(c.dir) + 1:]):
                errs.append("%s: sources: '%s' must be a .v file directly in %s/" % (w, s, c.dir))
        for i in c.includes:
            if os.path.normpath(i) != c.dir and not i.startswith(c.dir + "/"):
                errs.append("%s: includes: '%s' must lie in %s/" % (w, i, c.dir))
        for k in ("sources", "includes", "depends"):
            dup = sorted({x for x in c.m[k] if c.m[k].count(x) > 1})
            if dup:
                errs.append("%s: %s: listed twice: %s" % (w, k, ", ".join(dup)))
        if c.window is not None:
            if not 0 <= c.window <= 15:
                errs.append("%s: window: %d is not a bus window (0..15; addr bits 15..12)" % (w, c.window))
            elif linkgen_windows and linkgen_windows.get(c.window) not in (c.name.upper(), None) \
                    and not (c.window == 0 and c.name == "hub"):
                errs.append("%s: window: %d is %s in tools/linkgen.py's WINDOWS table (the one list of windows)"
                            % (w, c.window, linkgen_windows[c.window]))
            elif c.window is not None and linkgen_windows and c.window not in linkgen_windows:
                errs.append("%s: window: %d is not in tools/linkgen.py's WINDOWS table; add it there"
                            % (w, c.window))
            elif c.window in windows:
                errs.append("%s: window: %d is already %s's (%s)"
                            % (w, c.window, windows[c.window].name, windows[c.window].manifest))
            else:
                windows[c.window] = c
        for d in c.depends:
            if d not in by:
                errs.append("%s: depends: no component '%s' (there is: %s)" % (w, d, ", ".join(sorted(by))))
        # every .v file in the folder is a source or a formal harness
        listed = set(c.sources) | {j["harness"] for j in c.formal}
        d = os.path.join(root, c.dir)
        for f in sorted(os.listdir(d)):
            p = "%s/%s" % (c.dir, f)
            if f.endswith(".v") and p not in listed:
                errs.append("%s: %s is in the folder but not in the manifest (add it to sources, "
                            "or use it as a formal harness)" % (w, p))

    # dependency cycles, then the order: dependencies first, else by name
    order, state = [], {}

    def visit(n, path):
        if state.get(n) == "done":
            return
        if state.get(n) == "active":
            cyc = path[path.index(n):] + [n]
            errs.append("%s: depends: dependency cycle %s" % (by[n].manifest, " -> ".join(cyc)))
            return
        state[n] = "active"
        for d in by[n].depends:
            if d in by:
                visit(d, path + [n])
        state[n] = "done"
        order.append(by[n])
    for c in comps:
        visit(c.name, [])
    if errs:   # the checks below follow dependencies
        raise ManifestError("\n".join(errs))
    reg = Registry(root, order)

    # names, placeholders, modules
    seen = {"test": {}, "synth": {}, "formal": {}, "bench_hw": {}, "family": {},
            # names the hub top reserves for itself; slots add theirs
            "hub": {n: "rtl/hub/aggnet_hub.v" for n in (
                "clk", "rst", "N", "LINK_PES", "CLK_HZ", "IDLE_CYCLES", "link_rx_valid", "link_rx_data",
                "link_rx_ferr", "link_tx_valid", "link_tx_ready", "link_tx_data")}}

    def claim(kind, name, where):
        if name in seen[kind]:
            errs.append("%s: %s name '%s' is already used by %s" % (where, kind, name, seen[kind][name]))
        else:
            seen[kind][name] = where
    for c in order:
        w = c.manifest
        mods = reg.modules(c.name)
        visible = ", ".join(x.name for x in reg.closure(c.name))

        def need_top(top, where):
            if top not in mods:
                errs.append("%s: top: no module '%s' in the sources of %s" % (where, top, visible))
        # a test may link the families of its component and its dependencies,
        # and the hub's (an engine's system tests run it in the hub top)
        fams = {m["family"] for x in reg.closure(c.name) for m in x.models}
        if HUB in reg.by_name:
            fams |= {m["family"] for m in reg.by_name[HUB].models}
        for i, m in enumerate(c.models):
            wi = "%s: models[%d]" % (w, i)
            claim("family", m["family"], wi)
            if not NAME.match(m["family"]):
                errs.append("%s.family: '%s' must be lower case letters, digits and _" % (wi, m["family"]))
            need_top(m["top"], wi)
            if not IDENT.match(m["param"]):
                errs.append("%s.param: '%s' is not a parameter name" % (wi, m["param"]))
            if not m["sizes"] or len(set(m["sizes"])) != len(m["sizes"]) or min(m["sizes"]) < 1:
                errs.append("%s.sizes: must be distinct positive integers" % wi)
            for k in m["size_args"]:
                if int(k) not in m["sizes"]:
                    errs.append("%s.size_args: %s is not one of its sizes" % (wi, k))
            for k in ("class", "base"):
                if not IDENT.match(m[k]):
                    errs.append("%s.%s: '%s' is not a C++ identifier" % (wi, k, m[k]))
        for i, t in enumerate(c.tests):
            wi = "%s: tests[%d]" % (w, i)
            claim("test", t["name"], wi)
            if not IDENT.match(t["name"]):
                errs.append("%s.name: '%s' is not a target name" % (wi, t["name"]))
            if t["timeout"] < 1:
                errs.append("%s.timeout: must be >= 1 s" % wi)
            for tag in t["parts"]:
                if not IDENT.match(tag) or tag == "rest":
                    errs.append("%s.parts: '%s' is not a Catch2 tag name (letters, digits, _; not 'rest')" % (wi, tag))
            if len(set(t["parts"])) != len(t["parts"]):
                errs.append("%s.parts: a tag is named twice" % wi)
            if t["parts"] and t["bench"]:
                errs.append("%s.parts: a benchmark is not a CTest test" % wi)
            for prog in t["runs"]:
                if prog not in RUNNABLE:
                    errs.append("%s.runs: '%s' is not one of the programs a test may start (%s)"
                                % (wi, prog, ", ".join(RUNNABLE)))
            for f in t["families"]:
                if f not in fams:
                    errs.append("%s.families: no model family '%s' in %s%s"
                                % (wi, f, visible, " or the hub" if HUB in reg.by_name else ""))
            prefixes = []
            for j, v in enumerate(t["verilate"]):
                wj = "%s.verilate[%d]" % (wi, j)
                need_top(v["top"], wj)
                prefixes += _expand(v["prefix"], v["params"], wj + ".prefix", errs)
            if t["boards"]:
                for b in board_tops(root):
                    if not os.path.isfile(os.path.join(root, b["top_file"])):
                        errs.append("%s.boards: board %s has no top %s" % (wi, b["name"], b["top_file"]))
                    elif "top" not in _modules(root, b["top_file"]):
                        errs.append("%s.boards: %s must define module 'top'" % (wi, b["top_file"]))
                    prefixes.append(b["prefix"])
            dup = sorted({p for p in prefixes if prefixes.count(p) > 1})
            if dup:
                errs.append("%s.verilate: model %s made twice" % (wi, ", ".join(dup)))
        for key in ("synth", "formal", "bench_hw"):
            for i, j in enumerate(c.m[key]):
                wi = "%s: %s[%d]" % (w, key, i)
                for n in _expand(j["name"], j["params"], wi + ".name", errs):
                    claim(key, n, wi)
                if key != "formal":
                    need_top(j["top"], wi)
        for i, j in enumerate(c.synth):
            for fam in j["families"]:
                if fam not in FAMILIES:
                    errs.append("%s: synth[%d].families: '%s' is not one of %s" % (w, i, fam, ", ".join(FAMILIES)))
        negative = {j["harness"] for j in c.formal if not j["expect_pass"]}
        for i, j in enumerate(c.formal):
            wi = "%s: formal[%d]" % (w, i)
            h = j["harness"]
            if not h:
                continue
            mod = os.path.splitext(os.path.basename(h))[0]
            if os.path.isfile(os.path.join(root, h)) and mod not in _modules(root, h):
                errs.append("%s.harness: %s must define module '%s' (named after the file)" % (wi, h, mod))
            if j["steps"] < 1:
                errs.append("%s.steps: must be >= 1" % wi)
            if j["expect_pass"] and h not in negative:
                errs.append("%s: harness %s has no negative control (a job on it with "
                            "\"expect_pass\": false)" % (wi, h))
            for d in j["defines"]:
                if not IDENT.match(d):
                    errs.append("%s.defines: '%s' is not a macro name" % (wi, d))
        for i, sl in enumerate(c.slot):
            wi = "%s: slot[%d]" % (w, i)
            if i > 0:
                errs.append("%s: an engine has one slot in the hub" % wi)
            if c.window in (None, 0):
                errs.append("%s: a slot needs the component's own bus window (1..15)" % wi)
            if c.name == HUB:
                errs.append("%s: the hub cannot be its own engine" % wi)
            need_top(sl["module"], wi + ".module")
            claim("hub", "EN_" + c.name.upper(), wi)
            if sl["enable"] not in (0, 1):
                errs.append("%s.enable: must be 0 or 1" % wi)
            for k in sl["params"]:
                if not IDENT.match(k):
                    errs.append("%s.params: '%s' is not a parameter name" % (wi, k))
            for j, p in enumerate(sl["hub_params"]):
                claim("hub", p["name"], "%s.hub_params[%d]" % (wi, j))
                if not IDENT.match(p["name"]):
                    errs.append("%s.hub_params[%d].name: '%s' is not a parameter name" % (wi, j, p["name"]))
            for j, p in enumerate(sl["ports"]):
                claim("hub", p["name"], "%s.ports[%d]" % (wi, j))
                if p["dir"] not in ("input", "output"):
                    errs.append("%s.ports[%d].dir: '%s' is not input or output" % (wi, j, p["dir"]))
                if not IDENT.match(p["name"]):
                    errs.append("%s.ports[%d].name: '%s' is not a port name" % (wi, j, p["name"]))
                if p["idle"] not in (0, 1):
                    errs.append("%s.ports[%d].idle: must be 0 or 1" % (wi, j))
            for inc in sl["includes"]:
                if not any(os.path.isfile(os.path.join(root, d, inc)) for d in reg.includes(c.name)):
                    errs.append("%s.includes: '%s' is in no include directory of %s" % (wi, inc, visible))
        for i, g in enumerate(c.generators):
            for k in ("run", "check"):
                for tok in g[k].split():
                    if "/" in tok and not os.path.exists(os.path.join(root, tok)):
                        errs.append("%s: generators[%d].%s: no such file '%s'" % (w, i, k, tok))
        # CMake lists are ';'-separated: no argument may contain one
        args = [("verilator_args", a) for a in c.verilator_args]
        args += [("models[%d].args" % i, a) for i, m in enumerate(c.models) for a in m["args"]]
        args += [("models[%d].size_args" % i, a) for i, m in enumerate(c.models)
                 for x in m["size_args"].values() for a in x]
        args += [("tests[%d].verilate[%d].args" % (i, j), a) for i, t in enumerate(c.tests)
                 for j, v in enumerate(t["verilate"]) for a in v["args"]]
        for where, a in args:
            if ";" in a:
                errs.append("%s: %s: '%s' may not contain ';'" % (w, where, a))
    if errs:
        raise ManifestError("\n".join(errs))

    # A Verilated class is built once (CMake: $(BUILD)/verilated/<class>/) and
    # linked by every test that names it, so all of them must make it alike.
    made = {}
    models = [(f["engine"], "family " + f["family"], "V%s_n%d" % (f["family"], n), f["top"], f["top_file"],
               ["-G%s=%d" % (f["param"], n)] + f["args"] + f["size_args"].get(str(n), []))
              for f in reg.families() for n in f["sizes"]]
    models += [(t["engine"], "test " + t["name"], m["prefix"], m["top"], m["file"], m["args"])
               for t in reg.tests() for m in t["models"]]
    for e, what, prefix, top, f, args in models:
        how = (top, f, args, reg.libdirs(e), reg.includes(e))
        where = "%s: %s" % (reg.by_name[e].manifest, what)
        if prefix in made and made[prefix][0] != how:
            errs.append("%s: model %s is also made by %s, with other sources or arguments "
                        "(one class, one build: give one of them another prefix)" % (where, prefix, made[prefix][1]))
        made.setdefault(prefix, (how, where))
    # ... and one design is one class: the same top, sources and arguments
    # under two prefixes would be Verilated and compiled twice.
    by_how = {}
    for prefix, (how, where) in made.items():
        key = repr(how)
        if key in by_how:
            errs.append("%s: model %s is the same design as %s (%s): name that class instead"
                        % (where, prefix, by_how[key][0], by_how[key][1]))
        else:
            by_how[key] = (prefix, where)
    if errs:
        raise ManifestError("\n".join(errs))
    return reg


# ---- make ----------------------------------------------------------------------

def make_vars(reg):
    def flags(incs, libs):
        return " ".join(["-I" + i for i in incs] + ["-y " + d for d in libs])
    o = ["# Generated by tools/engines.py from rtl/*/manifest.json; do not edit.",
         "ENGINES := " + " ".join(reg.names()),
         "ENGINE_MANIFESTS := " + " ".join(c.manifest for c in reg.components),
         "ENGINE_RTL := " + " ".join(reg.all_sources()),
         "ENGINE_INC := " + " ".join(reg.all_includes()),
         "ENGINE_INC_FLAGS := " + " ".join("-I" + i for i in reg.all_includes()),
         "ENGINE_LINT_ALL := " + flags(reg.all_includes(), reg.all_libdirs())]
    for c in reg.components:
        o.append("ENGINE_%s_RTL := %s" % (c.name, " ".join(c.sources)))
        o.append("ENGINE_%s_LINT := %s" % (c.name, flags(reg.includes(c.name), reg.libdirs(c.name))))
    o.append("ENGINE_BENCHES := " + " ".join(t["name"] for t in reg.tests() if t["bench"]))
    for var, key in (("ENGINE_GEN_CMDS", "run"), ("ENGINE_CHECK_CMDS", "check")):
        o.append("define " + var)
        o += ["@" + g[key] for g in reg.generators()] or ["@true"]
        o.append("endef")
    return "\n".join(o) + "\n"


# ---- CMake ----------------------------------------------------------------------

def _cq(v):
    """One CMake argument, quoted."""
    return '"%s"' % str(v).replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$")


def cmake_text(reg):
    root = reg.root

    def absl(paths):
        return ";".join(os.path.join(root, p) for p in paths)
    o = ["# Generated by tools/engines.py from rtl/*/manifest.json; do not edit.",
         "# CMakeLists.txt includes it and calls aggnet_engine(<name>) per component.",
         "set(AGGNET_ENGINES %s)" % _cq(";".join(reg.names()))]

    def s(var, val):
        o.append("set(%s %s)" % (var, _cq(val)))
    for c in reg.components:
        e = "AGGNET_ENGINE_" + c.name
        o.append("")
        o.append("# ---- %s (%s)" % (c.name, c.manifest))
        s(e + "_WINDOW", "" if c.window is None else c.window)
        s(e + "_LIBDIRS", absl(reg.libdirs(c.name)))
        s(e + "_INCLUDE_DIRS", absl(reg.includes(c.name)))
        fams = [m for m in reg.families() if m["engine"] == c.name]
        s(e + "_FAMILIES", ";".join(m["family"] for m in fams))
        for m in fams:
            f = "AGGNET_FAMILY_" + m["family"]
            s(f + "_TOP", m["top"])
            s(f + "_TOP_FILE", os.path.join(root, m["top_file"]))
            s(f + "_PARAM", m["param"])
            s(f + "_SIZES", ";".join(str(x) for x in m["sizes"]))
            s(f + "_ARGS", ";".join(m["args"]))
            for n, a in sorted(m["size_args"].items()):
                s("%s_ARGS_%s" % (f, n), ";".join(a))
            s(f + "_HEADER", os.path.join(root, m["header"]))
            s(f + "_CLASS", m["class"])
            s(f + "_BASE", m["base"])
        tests = [t for t in reg.tests() if t["engine"] == c.name]
        s(e + "_TESTS", ";".join(t["name"] for t in tests))
        for t in tests:
            v = "AGGNET_TEST_" + t["name"]
            s(v + "_SOURCES", absl(t["sources"]))
            s(v + "_FAMILIES", ";".join(t["families"]))
            s(v + "_TIMEOUT", t["timeout"])
            s(v + "_BENCH", "1" if t["bench"] else "0")
            s(v + "_PARTS", ";".join(t["parts"]))
            s(v + "_RUNS", ";".join(t["runs"]))
            s(v + "_LABELS", ";".join([c.name] + (["seeded"] if t["seeded"] else [])))
            s(v + "_MODELS", ";".join(m["prefix"] for m in t["models"]))
            for m in t["models"]:
                s("%s_%s_TOP" % (v, m["prefix"]), m["top"])
                s("%s_%s_ARGS" % (v, m["prefix"]), ";".join(m["args"]))
                s("%s_%s_FILE" % (v, m["prefix"]), os.path.join(root, m["file"]))
            s(v + "_BOARDS", ";".join(b["name"] for b in t["boards"]))
            for b in t["boards"]:
                s("%s_BOARD_%s_PREFIX" % (v, b["name"]), b["prefix"])
                s("%s_BOARD_%s_PARAMS" % (v, b["name"]),
                  ";".join("%s=%s" % kv for kv in sorted(b["params"].items())))
    return "\n".join(o) + "\n"


def write_if_changed(path, text):
    try:
        with open(path) as f:
            if f.read() == text:
                return
    except OSError:
        pass
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def summary(reg):
    o = ["%-8s %-6s %-8s %5s %5s %6s %6s %5s  %s" % ("engine", "window", "depends", "rtl", "tests",
                                                   "synth", "formal", "bench", "title")]
    synth, formal, bench = reg.synth_jobs(), reg.formal_jobs(), reg.bench_points()
    for c in reg.components:
        o.append("%-8s %-6s %-8s %5d %5d %6d %6d %5d  %s" % (
            c.name, "-" if c.window is None else c.window, ",".join(c.depends) or "-", len(c.sources),
            sum(not t["bench"] for t in c.tests), sum(j["engine"] == c.name for j in synth),
            sum(j["engine"] == c.name for j in formal),
            sum(j["engine"] == c.name for j in bench) + sum(t["bench"] for t in c.tests), c.title))
    return "\n".join(o)


# ---- selftest: every check above must fire ---------------------------------------

def selftest(verbose=False):
    """Build small trees with one planted fault each; each must fail with its message."""
    good = {
        "base": {"title": "base", "sources": ["rtl/base/b.v"], "synth": [{"name": "b", "top": "b"}]},
        "eng": {"title": "eng", "window": 3, "depends": ["base"], "sources": ["rtl/eng/e.v"],
                "tests": [{"name": "test_e", "sources": ["tests/t.cpp"],
                           "verilate": [{"prefix": "Ve_n{N}", "top": "e", "params": [{"N": 1}, {"N": 2}]}]}],
                "formal": [{"name": "e_p", "harness": "rtl/eng/e_props.v", "steps": 2},
                           {"name": "e_neg", "harness": "rtl/eng/e_props.v", "steps": 2,
                            "defines": ["SELFTEST"], "expect_pass": False}]},
    }
    files = {"rtl/base/b.v": "module b; endmodule\n", "rtl/eng/e.v": "module e; endmodule\n",
             "rtl/eng/e_props.v": "module e_props; endmodule\n", "tests/t.cpp": ""}

    def tree(mut):
        d = tempfile.mkdtemp(prefix="engines_selftest_")
        m = json.loads(json.dumps(good))
        fs = dict(files)
        mut(m, fs)
        for p, t in fs.items():
            os.makedirs(os.path.join(d, os.path.dirname(p)), exist_ok=True)
            with open(os.path.join(d, p), "w") as f:
                f.write(t)
        for n, man in m.items():
            os.makedirs(os.path.join(d, "rtl", n), exist_ok=True)
            if man is not None:
                with open(os.path.join(d, "rtl", n, MANIFEST), "w") as f:
                    json.dump(man, f)
        return d

    def second(m, fs):
        m["other"] = {"title": "o", "window": 3, "sources": ["rtl/other/o.v"]}
        fs["rtl/other/o.v"] = "module o; endmodule\n"

    def with_hub(*entries):
        """A hub component with one model family; eng gets a slot and joins it."""
        def mut(m, fs):
            m["hub"] = {"title": "hub", "window": 0, "sources": ["rtl/hub/h.v"],
                        "models": [{"family": "hub", "top": "h", "param": "N", "sizes": [2, 4], "args": ["-GK=1"],
                                    "header": "tests/t.cpp", "class": "C", "base": "B"}]}
            fs["rtl/hub/h.v"] = "module h; endmodule\n"
            m["eng"]["slot"] = [{"module": "e", "hub_params": [{"name": "E_W", "value": "2"}]}]
            m["eng"]["hub_models"] = list(entries)
        return mut

    cases = [
        ("unknown field", lambda m, fs: m["eng"].update(sourcez=[]),
         "rtl/eng/manifest.json: unknown field 'sourcez'"),
        ("nested unknown field", lambda m, fs: m["eng"]["tests"][0]["verilate"][0].update(arg=[]),
         "rtl/eng/manifest.json: tests[0].verilate[0]: unknown field 'arg'"),
        ("missing field", lambda m, fs: m["eng"]["formal"][0].pop("steps"),
         "rtl/eng/manifest.json: formal[0]: missing field 'steps'"),
        ("wrong type", lambda m, fs: m["eng"].update(window="3"),
         "rtl/eng/manifest.json: window: must be an integer"),
        ("missing source", lambda m, fs: fs.pop("rtl/eng/e.v"),
         "rtl/eng/manifest.json: sources: no such file 'rtl/eng/e.v'"),
        ("missing test source", lambda m, fs: fs.pop("tests/t.cpp"),
         "rtl/eng/manifest.json: tests[0].sources: no such file 'tests/t.cpp'"),
        ("source elsewhere", lambda m, fs: m["eng"]["sources"].append("rtl/base/b.v"),
         "'rtl/base/b.v' must be a .v file directly in rtl/eng/"),
        ("unlisted file", lambda m, fs: fs.update({"rtl/eng/x.v": "module x; endmodule\n"}),
         "rtl/eng/x.v is in the folder but not in the manifest"),
        ("duplicate window", second, "window: 3 is already eng's"),
        ("bad window", lambda m, fs: m["eng"].update(window=16), "window: 16 is not a bus window"),
        ("unknown dependency", lambda m, fs: m["eng"].update(depends=["nope"]),
         "depends: no component 'nope'"),
        ("dependency cycle", lambda m, fs: m["base"].update(depends=["eng"]),
         "dependency cycle base -> eng -> base"),
        ("no manifest", lambda m, fs: m.update(bare=None), "rtl/bare/: no manifest.json"),
        ("one design under two class names",
         lambda m, fs: m["eng"]["tests"][0]["verilate"].append({"prefix": "Ve_again", "top": "e", "params": {"N": 1}}),
         "model Ve_again is the same design as Ve_n1"),
        ("unknown top", lambda m, fs: m["eng"]["tests"][0]["verilate"][0].update(top="ee"),
         "tests[0].verilate[0]: top: no module 'ee' in the sources of base, eng"),
        ("top of a non-dependency", lambda m, fs: m["base"]["synth"][0].update(top="e"),
         "rtl/base/manifest.json: synth[0]: top: no module 'e' in the sources of base"),
        ("placeholder", lambda m, fs: m["eng"]["tests"][0]["verilate"][0].update(prefix="Ve_n{M}"),
         "names a placeholder its params do not have"),
        ("same name twice", lambda m, fs: m["eng"]["tests"][0]["verilate"][0].update(prefix="Ve"),
         "gives the same name for several params sets"),
        ("no negative control", lambda m, fs: m["eng"]["formal"].pop(1),
         "harness rtl/eng/e_props.v has no negative control"),
        ("duplicate synth name", lambda m, fs: m["eng"].update(synth=[{"name": "b", "top": "e"}]),
         "synth name 'b' is already used"),
        ("unknown family", lambda m, fs: m["eng"]["tests"][0].update(families=["zz"]),
         "tests[0].families: no model family 'zz'"),
        ("a part named rest", lambda m, fs: m["eng"]["tests"][0].update(parts=["fast", "rest"]),
         "tests[0].parts: 'rest' is not a Catch2 tag name"),
        ("a part twice", lambda m, fs: m["eng"]["tests"][0].update(parts=["fast", "fast"]),
         "tests[0].parts: a tag is named twice"),
        ("runs an unknown program", lambda m, fs: m["eng"]["tests"][0].update(runs=["aggnet-nope"]),
         "tests[0].runs: 'aggnet-nope' is not one of the programs a test may start"),
        ("slot of an unknown module", lambda m, fs: m["eng"].update(slot=[{"module": "nope"}]),
         "slot[0].module: top: no module 'nope'"),
        ("slot without a window", lambda m, fs: m["base"].update(slot=[{"module": "b"}]),
         "a slot needs the component's own bus window"),
        ("slot port the hub has", lambda m, fs: m["eng"].update(slot=[{"module": "e", "ports": [
            {"dir": "input", "name": "clk", "width": "1"}]}]), "hub name 'clk' is already used"),
        ("one class, two builds", lambda m, fs: m["eng"]["tests"].append(
            {"name": "test_f", "sources": ["tests/t.cpp"],
             "verilate": [{"prefix": "Ve_n1", "top": "e", "params": {"N": 3}}]}),
         "test test_f: model Ve_n1 is also made by rtl/eng/manifest.json: test test_e"),
        ("hub_models: not its own", with_hub({"family": "hub", "params": {"EN_BASE": 1}}),
         "hub_models[0].params: 'EN_BASE' is not a parameter of eng's slot"),
        ("hub_models: no such size", with_hub({"family": "hub", "sizes": [3], "params": {"EN_ENG": 1}}),
         "hub_models[0].sizes: 3 is not one of family hub's sizes"),
        ("hub_models: new, no sizes", with_hub({"family": "hub_e"}),
         "hub_models[0].sizes: 'hub_e' is not a family of the hub; a new family needs its sizes"),
        ("hub_models: no slot", lambda m, fs: (with_hub()(m, fs), m["base"].update(hub_models=[{"family": "hub"}])),
         "rtl/base/manifest.json: hub_models[0]: only an engine with a slot"),
        ("hub_models: no hub", lambda m, fs: m["eng"].update(hub_models=[{"family": "hub"}]),
         "hub_models: there is no hub component"),
        ("bad JSON", lambda m, fs: fs.update({"rtl/eng/manifest.json": "{"}), None),
    ]
    def loads(what, mut, check):
        """A tree that must load; check(registry) asserts what it holds.  1 if not."""
        d = tree(mut)
        try:
            check(load(d))
            if verbose:
                print("engines selftest: %s" % what)
            return 0
        except (ManifestError, AssertionError) as e:
            print("engines selftest: %s FAILED: %s" % (what, e))
            return 1
        finally:
            shutil.rmtree(d)

    def good_tree(reg):
        assert [c.name for c in reg.components] == ["base", "eng"], reg.names()
        assert reg.sources("eng") == ["rtl/base/b.v", "rtl/eng/e.v"]
        assert [m["prefix"] for m in reg.tests()[0]["models"]] == ["Ve_n1", "Ve_n2"]
        assert reg.tests()[0]["models"][1]["args"] == ["-GN=2"]

    # an engine joins the hub's family at some sizes, makes a family of its
    # own, and its test links both
    joins = with_hub({"family": "hub", "sizes": [4], "params": {"EN_ENG": 1, "E_W": 3}},
                     {"family": "hub_e", "sizes": [2], "params": {"EN_ENG": 1}})

    def hub_tree(reg):
        fams = {f["family"]: f for f in reg.families()}
        assert sorted(fams) == ["b", "hub", "hub_e"], sorted(fams)
        # a family that left size_args out keeps its own, empty (a shared
        # default once carried the hub's joined arguments into every model)
        assert fams["b"]["size_args"] == {} and fams["b"]["args"] == [], fams["b"]
        assert fams["hub"]["args"] == ["-GK=1"] and fams["hub"]["size_args"] == {"4": ["-GEN_ENG=1", "-GE_W=3"]}, \
            fams["hub"]
        assert fams["hub_e"]["args"] == ["-GK=1", "-GEN_ENG=1"] and fams["hub_e"]["sizes"] == [2], fams["hub_e"]
        assert fams["hub_e"]["engine"] == "hub" and fams["hub_e"]["engines"] == ["eng"], fams["hub_e"]

    bad = loads("the good tree loads", lambda m, fs: None, good_tree)
    def base_family(m):
        m["base"]["models"] = [{"family": "b", "top": "b", "param": "N", "sizes": [4],
                                "header": "tests/t.cpp", "class": "C", "base": "B"}]

    bad += loads("an engine joins and adds hub model families",
                 lambda m, fs: (joins(m, fs), base_family(m),
                                m["eng"]["tests"][0].update(families=["hub", "hub_e"])), hub_tree)
    for what, mut, want in cases:
        if want is None:   # bad JSON: written after the manifests
            d = tree(lambda m, fs: None)
            with open(os.path.join(d, "rtl/eng/manifest.json"), "w") as f:
                f.write("{")
            want = "rtl/eng/manifest.json: not valid JSON"
        else:
            d = tree(mut)
        try:
            load(d)
            print("engines selftest: %-24s NOT DETECTED" % what)
            bad += 1
        except ManifestError as e:
            if want in str(e):
                if verbose:
                        print("engines selftest: %-24s detected: %s"
                          % (what, [x for x in str(e).splitlines() if want in x][0]))
            else:
                print("engines selftest: %-24s wrong message:\n  %s" % (what, str(e).replace("\n", "\n  ")))
                bad += 1
        finally:
            shutil.rmtree(d)
    if bad:
        print("engines selftest: FAILED: %d of %d checks (two good trees and %d planted faults)"
              % (bad, len(cases) + 2, len(cases)))
    else:
        print("engines selftest: the good trees load, all %d planted faults caught%s"
              % (len(cases), "" if verbose else " (-v lists them)"))
    return 1 if bad else 0


def main(argv):
    if argv[1:2] == ["selftest"] and argv[2:] in ([], ["-v"]):
        return selftest(argv[2:] == ["-v"])
    if len(argv) < 2 or argv[1] not in ("check", "make", "cmake") or \
            (argv[1] == "cmake") != (len(argv) == 3) or len(argv) > 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    try:
        reg = load()
    except ManifestError as e:
        for line in str(e).splitlines():
            print("engines: " + line, file=sys.stderr)
        return 1
    if argv[1] == "check":
        print(summary(reg))
    elif argv[1] == "make":
        sys.stdout.write(make_vars(reg))
    else:
        write_if_changed(argv[2], cmake_text(reg))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
