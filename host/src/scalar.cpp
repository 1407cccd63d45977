// libaggnet: the scalar engine (seed 003 chapter 6) over the link; see
// aggnet/scalar.hpp and docs/scalar.md.
#include <aggnet/link_defs.hpp>
#include <aggnet/scalar.hpp>
#include "strf.hpp"

#include <algorithm>
#include <chrono>

namespace aggnet::scalar {

namespace R = aggnet::scalar_regs;
using aggnet::detail::strf;

namespace {
double ms(std::chrono::nanoseconds t) { return std::chrono::duration<double, std::milli>(t).count(); }
Message message_of(uint64_t r) {
    return Message{unsigned(r >> R::RES_SRC & 0x3f), uint16_t(r >> R::RES_TYPE), uint32_t(r >> R::RES_VALUE)};
}
unsigned what_of(uint64_t r) { return unsigned(r >> R::RES_WHAT & 7); }
}  // namespace

const char* cause_text(unsigned c) {
    switch (c) {
    case R::CAUSE_NONE: return "no cause logged";
    case R::CAUSE_BUSY: return "BUSY: this PE's previous scalar operation is still pending or its result was not "
                               "collected (Port::cancel() ends it)";
    case R::CAUSE_DEST: return "DEST: no such destination PE";
    case R::CAUSE_SOURCE: return "SOURCE: no such source PE";
    case R::CAUSE_LEN: return "LEN: operand bytes other than the register takes";
    case R::CAUSE_IDLE: return "IDLE: no operation started";
    default: return "an unknown cause";
    }
}

Port::Port(link::LinkClient& link, unsigned pe, std::chrono::nanoseconds timeout)
    : link_(link), pe_(pe), timeout_(timeout) {
    uint32_t shape = 0;
    try {
        const uint32_t hash = link_.read(pe_, uint16_t(link_defs::INFO_MAP_HASH + R::WINDOW), 4);
        if (hash == 0)
            throw DeviceError(strf("PE%u: the hub has no scalar engine (window %u empty: built without EN_SCALAR; "
                                   "aggnet-sim --engines scalar)", pe, R::WINDOW));
        if (hash != R::MAP_HASH)
            throw DeviceError(strf("PE%u: the hub's scalar register map hash is 0x%08x, this library's 0x%08x: "
                                   "rebuild one of them from the same tools/scalargen.py",
                                   pe, hash, R::MAP_HASH));
        shape = link_.read(pe_, R::addr(R::SHAPE), 4);
    } catch (const RegisterError& e) {
        throw DeviceError(strf("PE%u: the hub's scalar engine has no such PE: ", pe) + e.what());
    }
    pes_ = shape >> R::SHAPE_N & 0xff;
    depth_ = shape >> R::SHAPE_DEPTH & 0xff;
}

link::LinkClient::CallResult Port::call(uint16_t reg, uint64_t operand, unsigned len, const std::string& what) {
    ++calls_;
    try {
        return link_.call(pe_, R::addr(reg), operand, len, timeout_);
    } catch (const RegisterError& e) {
        if (e.code != link_defs::ERR_REFUSED) throw;
        const unsigned cause = link_.read(pe_, R::addr(R::CAUSE), 4) & 7;
        throw ScalarError(strf("PE%u: scalar %s refused: ", pe_, what.c_str()) + cause_text(cause), pe_, cause);
    }
}

uint64_t Port::cancel() {
    ++calls_;
    return link_.call(pe_, R::addr(R::CANCEL), 0, 0, std::max<std::chrono::nanoseconds>(timeout_, std::chrono::seconds(1)))
        .value;
}

unsigned Port::fill() { return link_.read(pe_, R::addr(R::FILL), 4) & 0xff; }

void Port::send(unsigned dest, uint16_t type, uint32_t value) {
    const std::string what = strf("send to PE%u (type %u)", dest, unsigned(type));
    if (dest > 63)  // the address field has 6 bits: the engine cannot even be asked
        throw ScalarError(strf("PE%u: scalar %s: ", pe_, what.c_str()) + cause_text(R::CAUSE_DEST), pe_,
                          R::CAUSE_DEST);
    try {
        call(uint16_t(R::SEND | dest), uint64_t(type) << 32 | value, R::SEND_BYTES, what);
    } catch (const TimeoutError&) {
        const uint64_t c = cancel();
        if (what_of(c) == R::WHAT_SENT) return;  // it went in as the timeout passed
        // Not the destination's FILL: reading it would speak for that PE on
        // the link, beside its own client (two clients for one PE collide in
        // the hub's sequence numbers; a bound stream refuses it). A send is
        // held only while the destination's buffer is full.
        throw TimeoutError(strf("PE%u: scalar %s waited %.0f ms for room in PE%u's receive buffer (held while "
                                "it was full, %u messages); withdrawn, not sent",
                                pe_, what.c_str(), ms(timeout_), dest, depth_),
                           uint64_t(1) << dest);
    }
}

std::string Port::want_text(int source, int type) const {
    std::string s = source == Any ? "from any PE" : strf("from PE%d", source);
    return s + (type == Any ? " of any type" : strf(" of type %d", type));
}

std::optional<Message> Port::receive(int source, int type, bool block) {
    if (source < Any || source > 63)
        throw ScalarError(strf("PE%u: scalar receive: source %d is neither a PE nor Any: ", pe_, source) +
                              cause_text(R::CAUSE_SOURCE),
                          pe_, R::CAUSE_SOURCE);
    if (type < Any || type > 0xffff)
        throw std::invalid_argument(strf("PE%u: scalar receive: type %d is neither 0..65535 nor Any", pe_, type));
    const uint16_t reg = uint16_t(R::RECV | (source == Any ? 0u : unsigned(source)) |
                                  unsigned(source == Any) << R::CA_RECV_ANYSRC |
                                  unsigned(type == Any) << R::CA_RECV_ANYTYPE | unsigned(block) << R::CA_RECV_BLOCK);
    const std::string what = "receive " + want_text(source, type);
    uint64_t r = 0;
    try {
        r = call(reg, type == Any ? 0u : unsigned(type), R::RECV_BYTES, what).value;
    } catch (const TimeoutError&) {
        r = cancel();
        if (what_of(r) != R::WHAT_MESSAGE)
            throw TimeoutError(strf("PE%u: scalar %s: no such message within %.0f ms (%u others in this PE's buffer); "
                                    "withdrawn",
                                    pe_, what.c_str(), ms(timeout_), fill()),
                               source == Any ? 0 : uint64_t(1) << source);
    }
    if (what_of(r) == R::WHAT_NONE) return std::nullopt;
    return message_of(r);
}

Message Port::recv(int source, int type) { return *receive(source, type, true); }
std::optional<Message> Port::try_recv(int source, int type) { return receive(source, type, false); }

double PingPong::percentile(double q) const {
    if (us.empty()) return 0;
    std::vector<double> v = us;
    std::sort(v.begin(), v.end());
    return v[size_t(q * double(v.size() - 1) + 0.5)];
}

PingPong ping_pong(Port& a, Port& b, unsigned count, uint16_t type) {
    PingPong r;
    const uint64_t c0 = a.calls() + b.calls();
    for (unsigned i = 0; i < count; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        const uint32_t v = 0x9E3779B9u * (i + 1);
        a.send(b.pe(), type, v);
        const Message m = b.recv(int(a.pe()), type);
        if (m.value != v || m.source != a.pe() || m.type != type)
            throw Error(strf("ping %u: PE%u got value 0x%08x type %u from PE%u, want 0x%08x type %u from PE%u", i, b.pe(),
                             m.value, unsigned(m.type), m.source, v, unsigned(type), a.pe()));
        b.send(a.pe(), type, ~v);
        const Message p = a.recv(int(b.pe()), type);
        if (p.value != ~v || p.source != b.pe())
            throw Error(strf("pong %u: PE%u got value 0x%08x from PE%u, want 0x%08x from PE%u", i, a.pe(), p.value,
                             p.source, ~v, b.pe()));
        r.us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    }
    r.calls = a.calls() + b.calls() - c0;
    return r;
}

}  // namespace aggnet::scalar
