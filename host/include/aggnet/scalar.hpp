// libaggnet: Pai's low-latency scalar send/receive (seed 003, chapter 6:
// scsend(), screcv()) in the hub's scalar engine (rtl/scalar/,
// docs/scalar.md), over the link.
//
// Link PE p is scalar PE p.  A send and a receive are one link CALL each
// (docs/link.md rule 8): one request frame, one RESULT frame.
//
//   aggnet::scalar::Port port(client, pe);               // checks the hub and its map
//   port.send(3, 7, 42);                                 // to PE 3, type 7, value 42
//   auto m = port.recv(aggnet::scalar::Any, 7);          // oldest type-7 message, any source
//   auto t = port.try_recv(2);                           // from PE 2, any type; nullopt: none
//
// send() returns once the message is in the destination's receive buffer;
// a full buffer (64 messages) holds it in the hub until the destination
// receives one.  recv() waits in the hub until a match arrives.  Both have
// the port's timeout: when it passes, the port withdraws the operation
// (the engine's CANCEL) and throws TimeoutError naming what it waited for;
// a message that arrived in that very moment is returned instead (the
// cancel hands it over), so nothing is lost.  A refusal throws
// ScalarError with the engine's cause (DEST: no such PE; SOURCE; BUSY: an
// operation of this PE left pending by another program; cancel() ends it).
#pragma once

#include <aggnet/error.hpp>
#include <aggnet/link_client.hpp>
#include <aggnet/scalar_regs.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace aggnet::scalar {

/// The wildcard of recv()'s source and type (the seed's -1).
constexpr int Any = -1;

/// One message as the receiver gets it: the seed's data word, type and source.
struct Message {
    unsigned source = 0;
    uint16_t type = 0;
    uint32_t value = 0;
    bool operator==(const Message& o) const { return source == o.source && type == o.type && value == o.value; }
};

/// The engine refused an operation; cause is its CAUSE register (scalar_regs CAUSE_*).
struct ScalarError : Error {
    ScalarError(const std::string& what, unsigned pe_, unsigned cause_) : Error(what), pe(pe_), cause(cause_) {}
    unsigned pe;
    unsigned cause;
};

const char* cause_text(unsigned cause);  ///< "DEST: ..." from the register table

/// One PE's end of the scalar engine.
class Port {
public:
    /// PE `pe` of the hub behind `link`.  Throws DeviceError if the hub has no
    /// scalar engine, another register map (INFO MAP_HASH+5) or no PE `pe`.
    Port(link::LinkClient& link, unsigned pe, std::chrono::nanoseconds timeout = std::chrono::seconds(10));

    unsigned pe() const { return pe_; }
    unsigned pes() const { return pes_; }      ///< N of the engine
    unsigned depth() const { return depth_; }  ///< messages each receive buffer holds
    std::chrono::nanoseconds timeout() const { return timeout_; }
    void set_timeout(std::chrono::nanoseconds t) { timeout_ = t; }
    uint64_t calls() const { return calls_; }  ///< engine CALLs made (one link frame each way)

    /// scsend(): value with type to PE dest; returns when it is in dest's buffer.
    void send(unsigned dest, uint16_t type, uint32_t value);
    /// screcv(), waiting in the hub: the oldest message of this PE's buffer
    /// from `source` (a PE, or Any) of `type` (0..65535, or Any).
    Message recv(int source = Any, int type = Any);
    /// screcv() as the seed's: answered at once, nullopt when nothing matches.
    std::optional<Message> try_recv(int source = Any, int type = Any);
    /// Messages in this PE's receive buffer (FILL).
    unsigned fill();
    /// Withdraws this PE's pending operation (a held send, a waiting
    /// receive) or collects a finished one; the engine's CANCEL result.
    uint64_t cancel();

private:
    link::LinkClient& link_;
    unsigned pe_;
    std::chrono::nanoseconds timeout_;
    unsigned pes_ = 0, depth_ = 0;
    uint64_t calls_ = 0;
    std::optional<Message> receive(int source, int type, bool block);
    link::LinkClient::CallResult call(uint16_t reg, uint64_t operand, unsigned len, const std::string& what);
    std::string want_text(int source, int type) const;
};

/// Ping-pong between two PEs driven from one thread: `count` round trips,
/// each a send a->b, a receive at b, a send b->a and a receive at a (4
/// CALLs), every value checked.  Times in microseconds per round trip.
struct PingPong {
    std::vector<double> us;
    uint64_t calls = 0;
    double percentile(double q) const;  ///< 0.5: the median
};
PingPong ping_pong(Port& a, Port& b, unsigned count, uint16_t type = 1);

}  // namespace aggnet::scalar
