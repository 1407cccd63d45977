// link_papers.cpp: the PAPERS routines over the link (aggnet/link_papers.hpp).
#include <aggnet/link_defs.hpp>
#include <aggnet/link_papers.hpp>
#include <aggnet/papers_regs.hpp>

#include <algorithm>
#include <cstdio>

namespace aggnet {

namespace R = papers_regs;
namespace D = link_defs;

namespace {
std::string hex32(uint32_t v) {
    char b[16];
    std::snprintf(b, sizeof b, "0x%08x", v);
    return b;
}
std::chrono::nanoseconds left(Deadline d, std::chrono::nanoseconds now) {
    return d.at > now ? d.at - now : std::chrono::nanoseconds(0);
}
}  // namespace

LinkPapersPort::LinkPapersPort(link::LinkClient& client, link::LinkPipe& pipe, unsigned pe)
    : c_(client), pipe_(pipe), pe_(pe) {
    const std::string dev = c_.device() + " (PE" + std::to_string(pe) + ")";
    const link::HelloInfo h = c_.hello(pe);
    if (!(h.engines >> D::WIN_PAPERS & 1))
        throw DeviceError(dev + ": this hub was built without the PAPERS engine (engines " +
                          hex32(h.engines) + ")");
    const uint32_t hash = c_.read(pe, uint16_t(D::WIN_INFO << 12 | (D::INFO_MAP_HASH + D::WIN_PAPERS)), 4);
    if (hash != R::MAP_HASH)
        throw DeviceError(dev + ": the hub's PAPERS register map (hash " + hex32(hash) +
                          ") is not the one this libaggnet was built with (" + hex32(R::MAP_HASH) +
                          "); rebuild the bitstream or the library from the same revision");
    n_ = h.hub_pes;
    clk_hz_ = h.clk_hz;
    hello_ = h;
    accesses_ += 2;
}

uint16_t LinkPapersPort::addr(uint16_t reg) const { return uint16_t(D::WIN_PAPERS << 12 | reg); }

void LinkPapersPort::out(reg_t data, Deadline) {
    // P_OUT: the data register's low bits are SIG, the rest the mask.
    const uint8_t sig = uint8_t(data & 0xf);
    const uint64_t mask = uint64_t(data >> R::DATA_B0);
    // Mask first: the hub then sees S only with the mask it belongs to.
    if (!have_mask_ || mask != mask_) {
        c_.write(pe_, addr(R::W_MASK0), uint32_t(mask), 4);
        ++accesses_;
        if (n_ > 32) c_.write(pe_, addr(R::W_MASK1), uint32_t(mask >> 32), 4), ++accesses_;
        mask_ = mask;
        have_mask_ = true;
    }
    if (!have_sig_ || sig != sig_) {
        c_.write(pe_, addr(R::W_SIG), sig, 1);
        ++accesses_;
        sig_ = sig;
        have_sig_ = true;
    }
}

PapersStatus LinkPapersPort::in(Deadline) {
    const uint32_t st = c_.read(pe_, addr(R::W_STAT), 1);
    PapersStatus r;
    r.go = st >> R::W_STAT_GO & 1;
    r.intr = st >> R::W_STAT_INT & 1;
    r.ivec = c_.read(pe_, addr(R::W_IVEC0), 4);
    accesses_ += 2;
    if (n_ > 32) r.ivec |= uint64_t(c_.read(pe_, addr(R::W_IVEC1), 4)) << 32, ++accesses_;
    return r;
}

bool LinkPapersPort::present(uint64_t& pes, Deadline) {
    pes = c_.read(pe_, addr(R::W_PRESENT0), 4);
    ++accesses_;
    if (n_ > 32) pes |= uint64_t(c_.read(pe_, addr(R::W_PRESENT1), 4)) << 32, ++accesses_;
    return true;
}

void LinkPapersPort::mode(uint8_t control, Deadline) {
    c_.write(pe_, addr(R::W_CTRL), control & 0x1f, 1);  // logic level: no PC inversion on the link
    ++accesses_;
}

PapersStatus LinkPapersPort::wait_go(bool level, Deadline d) {
    // One link WAIT: the hub answers when GO has the level.  Only GO and
    // INT are current in what we return on a wake-up; the IVEC is read when
    // the wait runs out (Papers samples it then).
    try {
        ++accesses_;
        const uint32_t st = c_.wait(pe_, addr(R::W_STAT), 1u << R::W_STAT_GO, level ? 1u << R::W_STAT_GO : 0, 1,
                                    left(d, now()));
        PapersStatus r;
        r.go = level;
        r.intr = st >> R::W_STAT_INT & 1;
        return r;
    } catch (const TimeoutError&) {
        return in(d);
    }
}

uint64_t LinkPapersPort::sync(bool d, Deadline dl) {
    // One CALL: the hub raises S, waits for GO and drops S itself; its
    // RESULT is the data vector.  It leaves SIG at D and IR.
    ++accesses_;
    const link::LinkClient::CallResult r = c_.call(pe_, addr(R::W_SYNC), d ? 1 : 0, 1, left(dl, now()));
    sig_ = uint8_t((d ? 1u << R::DATA_D : 0u) | (sig_ & (1u << R::DATA_IR)));
    have_sig_ = true;
    return r.value;
}

unsigned LinkPapersPort::sync_cancel(uint64_t& last, Deadline dl) {
    // The SYNC that timed out is still in progress at the hub (link_port
    // forgot it, the engine did not): CANCEL says how it ended, LAST holds
    // its vector or who had arrived.  Afterwards S and PROBE are low.
    const auto wait = std::max<std::chrono::nanoseconds>(left(dl, now()), std::chrono::milliseconds(200));
    const unsigned outcome = unsigned(c_.call(pe_, addr(R::W_CANCEL), 0, 0, wait).value);
    last = c_.read(pe_, addr(R::W_LAST0), 4);
    accesses_ += 2;
    if (n_ > 32) last |= uint64_t(c_.read(pe_, addr(R::W_LAST1), 4)) << 32, ++accesses_;
    sig_ = uint8_t(sig_ & ~((1u << R::DATA_S) | (1u << R::DATA_PROBE)));
    return outcome;
}

std::string LinkPapersPort::describe() const {
    return c_.device() + " (link, PE" + std::to_string(pe_) + " of " + std::to_string(n_) + ", hub clock " +
           std::to_string(clk_hz_ / 1000000) + " MHz)";
}

}  // namespace aggnet
