// board_check.hpp: what a user runs after flashing a board (`aggnet
// board-check DEVICE`): a list of checks, each PASS, FAIL or SKIP with the
// numbers that back it.
//
// Over the link (sim:, serial:; check_link):
//   hello      HELLO: protocol version, hub size, the PEs this port serves,
//              engines, clock; the INFO window's magic, size and engines agree
//   map hashes every engine's register-map hash (INFO window) against the one
//              this libaggnet was built with, for the engines it knows
//   loopback   round trips that write a pattern into our PE's PAPERS MASK0 and
//              read it back: wrong values, round-trip median / p99 / max, the
//              client's resends and stale replies, the hub's link statistics
//              (INFO window) before and after
//   barrier    barriers with every PE of the hub, one program acting as every
//              PE on the shared link (seed 000's protocol: raise S for all, wait
//              for GO at all, drop S, wait for GO to fall); SKIP on a port that
//              serves one PE only (the barrier needs every PE)
//   waitvec    two exchanges with every PE (each sends a bit; every PE must read
//              what the others sent), SKIP as barrier
//   restore    the PAPERS registers (SIG, MASK, CTRL, OWNER) of every PE touched
//              are written back as they were found
//
// On a PC parallel port's pins (ppdev:; check_pins), with a mask naming only
// ourselves: S -> GO, IR -> INT, GI, each mask bit, GO and INT read at both
// levels; the readings are compared with what the PAL equations (seed 000
// section 3.1) predict with every pin sound and with each pin stuck at each
// level, and every DB25 pin gets a line: PASS, FAIL (naming how it is stuck),
// or SKIP for the pins one PE cannot observe alone (D, PROBE, I0..I2 need a
// second PE; U0, U1 drive only the status display; CE, read active low,
// makes the PE absent when 0, which the steps check).
//
// Every stream of a board's link multiplexer (docs/link_mux.md: one UART per
// PE on the board's pins beside its USB UART; check_streams), one already
// open LinkClient per stream, checked one stream after the other:
//   streams    INFO MUX_STREAMS: the hub has a multiplexer, each stream given
//              exists, each header stream is given the one PE it speaks for;
//              map hashes as above, once
//   hello      HELLO through the stream for its PE, INFO as above
//   pins       every stream's FRAMES counter read twice through the stream:
//              its frames must arrive on the stream given, not another
//   loopback   as above, on the stream's PE (registers written back)
//   present    INFO MUX_ABSENT: the stream is not absent
//   counters   the stream's counters (INFO MUX_COUNT) before and after the
//              loopback, read at least every half counter wrap: FRAMES steps
//              by the frames the client sent, BIND, OVERRUN, TXDROP and
//              PARTIAL do not step; nor do the link port's error counters
//              (INFO STAT; the other streams are quiet meanwhile)
// A stream that does not answer its HELLO is diagnosed through one that
// does: HELLO again, with every stream's counters read before and after,
// names where its frames went (BIND on stream m: the cable is on stream m's
// pins, or speaks for another PE; FRAMES without a reply: the hub's TX wire;
// PARTIAL: damaged bytes or a wrong baud; nothing anywhere: no cable).
//
// Every step has a deadline: link commands are bounded by the link's resends,
// waits and the loopback by Options::step_timeout.
#pragma once

#include <aggnet/link_client.hpp>
#include <aggnet/papers.hpp>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace aggnet::board_check {

enum class Verdict { pass, fail, skip };

struct Check {
    Verdict verdict = Verdict::pass;
    std::string name;    ///< "hello", "loopback", "pin 5", ...
    std::string detail;  ///< the numbers, or what is wrong
};

/// One present engine, by its window and the map hash the hub reports for
/// it (INFO MAP_HASH+w), against this revision's registry
/// (aggnet/engines.hpp, generated from the manifests): "besu 0x20f38d10 =
/// ours", "nand 0x... but ours is ...", "nand (no register map to check)",
/// "window 9 0x... (an engine this library does not know)".  ok: the hash
/// is ours, or there is none to check.
std::string engine_hash(unsigned window, uint32_t reported, bool& ok);

/// "PASS  loopback    400 round trips ..." (one line, no newline).
std::string format(const Check& c);

/// Receives each check as soon as it is decided (the CLI prints it at once).
using Sink = std::function<void(const Check&)>;

struct Options {
    /// Loopback: write / read-back pairs (2 round trips each).
    unsigned round_trips = 200;
    /// Barriers with every PE.
    unsigned barriers = 10;
    /// Bound of each step: a wait for GO, the whole loopback.
    std::chrono::milliseconds step_timeout{10000};
    /// check_streams: the multiplexer's counters are compared modulo
    /// 2^mux_count_bits and read at least every 2^(mux_count_bits-1) frames
    /// of the stream, so that none wraps unseen.  0: the hub's INFO
    /// MUX_CNT_W (8, the narrowest CNT_W of the board tops, from a hub that
    /// does not say); 2..16: this width whatever the hub says.
    unsigned mux_count_bits = 0;
};

/// The link checks on a sim: or serial: device.  Returns true when no check
/// failed.  A device that does not open is reported as a failed "open".
bool check_link(const std::string& spec, const Options& o, const Sink& out);

/// One stream of a board's link multiplexer, reached through a LinkClient
/// already open on it (a serial line on the stream's pins, or a simulated
/// one).
struct Stream {
    /// `stream` for the board's USB UART: the multiplexer's last stream.
    static constexpr unsigned usb = ~0u;
    /// `stream` for the header stream of `pe`: header stream k speaks for
    /// PE first + k (the first PE of HELLO's port; 0 on the *_uart boards).
    static constexpr unsigned header = ~0u - 1;
    link::LinkClient& client;
    unsigned stream;  ///< its index k, or usb, or header
    unsigned pe;      ///< the PE the client speaks for on it
};

/// The stream checks (above) on every stream given, in order; the hub
/// should be idle.  Returns true when no check failed.  A hub without a
/// multiplexer (INFO MUX_STREAMS 0) fails "streams", saying so.
bool check_streams(const std::vector<Stream>& streams, const Options& o, const Sink& out);

/// The pin checks on one PE's PAPERS port of a hub of at most 4 PEs (8-bit
/// registers: a PC parallel port, LptPort over a ppdev transport).  Other PEs
/// should be idle (no barrier naming us, no IR).  Leaves the port attached
/// as Papers leaves it (CE|U0, mask = ourselves, S low).  Returns true when
/// no check failed.
bool check_pins(PapersPort& port, const Options& o, const Sink& out);

}  // namespace aggnet::board_check
