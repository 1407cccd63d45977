#!/usr/bin/env bash
# tools/make_selftest.sh (make lint): two makes in one tree at once, e.g.
# `make lint` beside `make build`, both regenerate BUILD/engines.mk and
# BUILD/hw/boards.mk from an empty build directory; each must succeed.  (They
# once shared one temporary file, and all but one failed with
# "mv: cannot stat 'build/engines.mk.tmp'".)
set -u
cd "$(dirname "$0")/.."
tmp=$(mktemp -d /tmp/aggnet-make-selftest-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
pids=()
for i in 1 2 3 4; do
    make --no-print-directory BUILD="$tmp/build" -n gen hw-check-board BOARD=icestick >"$tmp/make$i.log" 2>&1 &
    pids+=($!)
done
fail=0
for i in 1 2 3 4; do
    if ! wait "${pids[$((i - 1))]}"; then
        echo "make selftest: FAIL: make $i of 4 run at once failed:" >&2
        sed 's/^/  /' "$tmp/make$i.log" >&2
        fail=1
    fi
done
[ "$fail" = 0 ] && echo "make selftest: ok (4 makes at once regenerate the build's make variables)"
exit "$fail"
