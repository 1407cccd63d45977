#!/usr/bin/env bash
# demo.sh: the aggnet demo.  Starts the virtual hub (aggnet-sim: the Verilated
# aggnet_hub behind its link port) with 4 PEs, and runs 4 host processes
# (aggnet_demo, one per PE) that do barriers, waitvec exchanges, a
# partitioned barrier (two pairs) and an interrupt -- twice: first over the
# hub's sockets (sim:DIR/peK), then over its pseudo-terminals as serial
# lines (serial:DIR/pty-peK@3000000?pe=K), both carrying the link frames a
# board's USB UART carries.  Prints what each PE saw and the latencies, then
# stops the hub and checks it exited cleanly.  Then the COP part: a virtual
# hub with the COP (aggnet-sim --engines cop), where `aggnet cop`, acting as
# its 4 PEs over the shared link, runs barriers, integer sums, broadcasts and
# fetch-and-add tickets, each result checked, and prints the latencies (the
# exact double sum too, or that the COP has no FPU yet).  Then the scalar
# messages (seed 003): a virtual hub with the scalar engine (aggnet-sim
# --engines scalar), where `aggnet scalar`, acting as its 4 PEs over the
# shared link, passes a token round the ring, takes messages with a
# wildcard receive and by type, and runs a ping-pong with its latency
# distribution, every value checked.  Exit status
# non-zero if anything went wrong.
#
#   bash tools/demo.sh [BUILD_DIR]      (default: build)
set -u
BUILD=${1:-build}
ROUNDS=${AGGNET_DEMO_ROUNDS:-200}
COP_ROUNDS=${AGGNET_DEMO_COP_ROUNDS:-200}
SCALAR_PINGS=${AGGNET_DEMO_SCALAR_PINGS:-200}
SIM=$BUILD/aggnet-sim
DEMO=$BUILD/aggnet_demo
CLI=$BUILD/aggnet
for b in "$SIM" "$DEMO" "$CLI"; do
    if [ ! -x "$b" ]; then
        echo "demo: $b is missing; build first (cmake --build $BUILD)" >&2
        exit 2
    fi
done

LOG=$(mktemp -d /tmp/aggnet-demo-XXXXXX)
SIMPID=
cleanup() {
    if [ -n "$SIMPID" ] && kill -0 "$SIMPID" 2>/dev/null; then kill -TERM "$SIMPID" 2>/dev/null; wait "$SIMPID" 2>/dev/null; fi
    rm -rf "$LOG"
}
trap cleanup EXIT

start_sim() {  # $@: aggnet-sim's options; sets SIMPID and DIR
    # (the last hub's output goes first: the new one's shell truncates it
    # only after the fork, and the loop below must not find the old DIR)
    rm -f "$LOG/sim.out" "$LOG/sim.err"
    "$SIM" "$@" >"$LOG/sim.out" 2>"$LOG/sim.err" &
    SIMPID=$!
    # The hub prints "aggnet-sim: 4 PEs at DIR" once its sockets listen.
    DIR=
    for _ in $(seq 1 100); do
        DIR=$(sed -n 's/^aggnet-sim: [0-9]* PEs at //p' "$LOG/sim.out" 2>/dev/null | head -1)
        [ -n "$DIR" ] && break
        kill -0 "$SIMPID" 2>/dev/null || break
        sleep 0.05
    done
    if [ -z "$DIR" ]; then
        echo "demo: aggnet-sim did not start:" >&2
        cat "$LOG/sim.err" >&2
        exit 1
    fi
    echo "hub: $(head -1 "$LOG/sim.out") (pid $SIMPID)"
}

stop_sim() {
    echo "-- stopping the hub --"
    if ! "$CLI" sim "$DIR" quit >/dev/null; then FAIL=1; fi
    for _ in $(seq 1 100); do kill -0 "$SIMPID" 2>/dev/null || break; sleep 0.05; done
    if kill -0 "$SIMPID" 2>/dev/null; then
        echo "demo: FAIL: aggnet-sim still running after quit" >&2
        FAIL=1
    else
        wait "$SIMPID"
        RC=$?
        SIMPID=
        [ "$RC" = 0 ] || { echo "demo: FAIL: aggnet-sim exited with $RC" >&2; FAIL=1; }
    fi
    grep -v -e 'client disconnected' "$LOG/sim.err" | sed 's/^/  /'
    if [ -e "$DIR" ]; then echo "demo: FAIL: $DIR was not removed" >&2; FAIL=1; fi
}

FAIL=0
echo "== aggnet demo: virtual hub (link frames into the Verilated aggnet_hub), 4 PEs, 4 host processes =="
start_sim --pes 4 --pty --engines papers
"$CLI" probe "sim:$DIR/pe0" | sed 's/^/  probe: /'

run_pes() {  # $1: what; $2: device string with @PE@ for the PE number
    echo "== PAPERS over $1 =="
    local PIDS=() k
    for k in 0 1 2 3; do
        "$DEMO" "${2//@PE@/$k}" --rounds "$ROUNDS" >"$LOG/pe$k.out" 2>&1 &
        PIDS+=($!)
    done
    for k in 0 1 2 3; do
        if ! wait "${PIDS[$k]}"; then FAIL=1; fi
    done
    for k in 0 1 2 3; do
        echo "-- PE$k --"
        cat "$LOG/pe$k.out"
    done
}
run_pes "the virtual hub's sockets (sim:)" "sim:$DIR/pe@PE@"
run_pes "its pseudo-terminals as serial lines (serial:, 3 Mbaud)" "serial:$DIR/pty-pe@PE@@3000000?pe=@PE@"
echo "hub: $("$CLI" sim "$DIR" status | tr "\n" " ")"

stop_sim

echo "== the COP (seed 004): a virtual hub with it, one program acting as its 4 PEs over DIR/link =="
start_sim --pes 4 --engines cop
if ! "$CLI" cop "sim:$DIR/link?pe=0" barrier,sum,scan,fscan,exscan,bcast,fetch-add,exsum --count "$COP_ROUNDS"; then FAIL=1; fi
if ! "$CLI" cop "sim:$DIR/link?pe=0" orders; then FAIL=1; fi
stop_sim

echo "== scalar messages (seed 003): a virtual hub with the scalar engine, one program acting as its 4 PEs =="
start_sim --pes 4 --engines scalar
if ! "$CLI" scalar ring "sim:$DIR/link?pe=0" --count 10; then FAIL=1; fi
if ! "$CLI" scalar ping "sim:$DIR/link?pe=0" --count "$SCALAR_PINGS"; then FAIL=1; fi
stop_sim

if [ "$FAIL" = 0 ]; then
    echo "== demo OK: every PE's checks passed, the hub stopped cleanly =="
else
    echo "== demo FAILED (see above) ==" >&2
fi
exit "$FAIL"
