// papers.cpp: the PAPERS host routines of seed 000 section 4.3.
#include <aggnet/papers.hpp>

#include <sstream>

namespace aggnet {

namespace R = papers_regs;

namespace {
constexpr reg_t bit(unsigned b) { return reg_t(1) << b; }

std::string hex(uint64_t v) {
    std::ostringstream o;
    o << "0x" << std::hex << v;
    return o.str();
}

std::string ms(std::chrono::nanoseconds t) {
    std::ostringstream o;
    o << double(t.count()) / 1e6 << " ms";
    return o.str();
}
}  // namespace

std::string pe_list(uint64_t set) {
    std::string s;
    for (unsigned k = 0; k < 64; ++k) {
        if (set >> k & 1) {
            if (!s.empty()) s += ", ";
            s += "PE" + std::to_string(k);
        }
    }
    return s.empty() ? "no PE" : s;
}

// ---- LptPort: the one place that knows about the PC's pin inversions ------

LptPort::LptPort(Transport& t) : t_(t) {}

void LptPort::out(reg_t data) {
    ++accesses_;
    t_.write_data(data);
}

reg_t LptPort::in() {
    ++accesses_;
    // The PC inverts Busy; the hub drives the Busy pin with /GO exactly as the
    // seed's PAL (equation for /PEaGO) does, so the register already reads GO.
    return t_.read_status();
}

void LptPort::mode(uint8_t control) {
    ++accesses_;
    t_.write_control(static_cast<uint8_t>(control ^ R::PC_CONTROL_INVERT));
}

// ---- Papers ----------------------------------------------------------------

Papers::Papers(Transport& t) : t_(t), port_(t), n_(t.hub_pes()), pe_(t.pe_index()) {
    if (n_ < 2 || n_ > 64)
        throw Error("papers: hub reports " + std::to_string(n_) + " PEs; a PAPERS hub has 2..64");
    if (pe_ >= n_)
        throw Error("papers: this port is PE" + std::to_string(pe_) + " but the hub has only " +
                    std::to_string(n_) + " PEs");
    control_ = static_cast<uint8_t>((1u << R::CONTROL_CE) | (1u << R::CONTROL_U0));
    port_.mode(control_);
    last_mask_ = our_mask();
    last_pout_ = pout(last_mask_);
    port_.out(last_pout_);
}

reg_t Papers::pout(uint64_t mask) const { return reg_t(mask) << R::DATA_B0; }

bool Papers::go_of(reg_t status) const { return (status >> R::STATUS_GO(n_)) & 1; }

uint64_t Papers::i_to_mask(reg_t status) const {
    // Ik carries PE (x+k+1)%N (seed Table 4 for N = 4; generalised).
    uint64_t m = 0;
    for (unsigned k = 0; k + 1 < n_; ++k)
        if ((status >> (R::STATUS_I0 + k)) & 1) m |= uint64_t(1) << ((pe_ + k + 1) % n_);
    return m;
}

void Papers::wait_go(bool level, reg_t out_now, uint64_t mask, Timeout timeout, const char* what) {
    const auto deadline = t_.now() + timeout;
    const reg_t ir = ir_ ? bit(R::DATA_IR) : 0;
    while (go_of(port_.in()) != level) {
        if (t_.now() < deadline) {
            t_.relax();
            continue;
        }
        // Timed out: look at who has arrived (PROBE shows S AND mask-contains-us).
        port_.out(out_now | ir | bit(R::DATA_PROBE));
        const reg_t st = port_.in();
        port_.out(out_now | ir);
        if (go_of(st) == level) return;  // it came just now
        const uint64_t others = mask & ~our_mask();
        const uint64_t arrived = i_to_mask(st) & others;
        if (level) {
            // Waiting for GO: withdraw S so that the barrier cannot fire
            // behind our back, and name the PEs that have not arrived.
            port_.out((out_now & ~bit(R::DATA_S)) | ir);
            const uint64_t missing = others & ~arrived;
            throw TimeoutError(std::string(what) + ": PE" + std::to_string(pe_) + " timed out after " +
                                   ms(timeout) + " waiting for " + pe_list(missing) +
                                   " of barrier mask " + hex(mask) +
                                   " (not arrived: S low, or its mask does not contain PE" +
                                   std::to_string(pe_) + ")",
                               missing);
        }
        // Waiting for the GO reset: the PEs still holding S keep GO up.
        const uint64_t holding = arrived ? arrived : others;
        throw TimeoutError(std::string(what) + ": PE" + std::to_string(pe_) + " timed out after " +
                               ms(timeout) + " waiting for the reset of barrier mask " + hex(mask) +
                               "; still holding S (or no longer naming PE" + std::to_string(pe_) +
                               "): " + pe_list(holding),
                           holding);
    }
}

void Papers::sync(reg_t b, Timeout timeout, const char* what) {
    // _p_wait() / _p_waitvec() of section 4.3.2-4.3.3.
    const reg_t ir = ir_ ? bit(R::DATA_IR) : 0;
    wait_go(false, b, last_mask_, timeout, what);  // while (P_IN() & GO);
    port_.out(b | bit(R::DATA_S) | ir);            // P_OUT(b | S);
    wait_go(true, b | bit(R::DATA_S), last_mask_, timeout, what);  // while (!(P_IN() & GO));
}

void Papers::enqueue(uint64_t mask, Timeout timeout) {
    // PARANOID, always on.
    if (mask & ~all_mask())
        throw MaskError("enqueue: mask " + hex(mask) + " names " + pe_list(mask & ~all_mask()) +
                            ", but the hub has " + std::to_string(n_) + " PEs (PE0..PE" +
                            std::to_string(n_ - 1) + ")",
                        mask & ~all_mask());
    // An empty mask satisfies CLKSET and CLKRST alternately: by the PAL
    // equations GO would toggle every clock.  No barrier has no PEs.
    if (mask == 0)
        throw MaskError("enqueue: empty mask: a barrier needs at least one PE (use our_mask() to be alone)", 0);
    if (mask == last_mask_) return;  // unchanged: nothing to do
    if (last_mask_ & ~our_mask())    // had somebody beside us: wait for barrier reset
        wait_go(false, last_pout_, last_mask_, timeout, "enqueue");
    last_mask_ = mask;
    last_pout_ = pout(mask);
    port_.out(last_pout_ | (ir_ ? bit(R::DATA_IR) : 0));
}

void Papers::wait(Timeout timeout) {
    if (!(last_mask_ & ~our_mask())) return;  // alone: nothing to do
    sync(last_pout_, timeout, "wait");
    port_.out(last_pout_ | (ir_ ? bit(R::DATA_IR) : 0));  // P_OUT(p): reset barrier
}

uint64_t Papers::waitvec(bool flag, Timeout timeout) {
    uint64_t result = flag ? our_mask() : 0;
    if (last_mask_ & ~our_mask()) {
        const reg_t b = flag ? (last_pout_ | bit(R::DATA_D)) : last_pout_;
        sync(b, timeout, "waitvec");
        const reg_t x = port_.in();  // x = P_IN(): get data bit vector
        port_.out(b | (ir_ ? bit(R::DATA_IR) : 0));  // P_OUT(b): reset synchronization
        result |= i_to_mask(x) & last_mask_;
    }
    return result;
}

void Papers::set_interrupt_request(bool on) {
    ir_ = on;
    port_.out(last_pout_ | (ir_ ? bit(R::DATA_IR) : 0));
}

void Papers::set_mode(bool gi, bool ie, uint8_t user) {
    control_ = static_cast<uint8_t>((1u << R::CONTROL_CE) | (gi ? 1u << R::CONTROL_GI : 0u) |
                                    (ie ? 1u << R::CONTROL_IE : 0u) |
                                    ((user & 1u) << R::CONTROL_U0) | (((user >> 1) & 1u) << R::CONTROL_U1));
    port_.mode(control_);
}

Papers::Status Papers::status() {
    const reg_t st = port_.in();
    return {go_of(st), bool((st >> R::STATUS_INT(n_)) & 1), i_to_mask(st)};
}

uint64_t Papers::arrived() {
    const reg_t ir = ir_ ? bit(R::DATA_IR) : 0;
    port_.out(last_pout_ | ir | bit(R::DATA_PROBE));
    const reg_t st = port_.in();
    port_.out(last_pout_ | ir);
    return i_to_mask(st);
}

}  // namespace aggnet
