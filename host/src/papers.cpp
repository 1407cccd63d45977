// papers.cpp: the PAPERS host routines of seed 000 section 4.3.
#include <aggnet/papers.hpp>

#include <algorithm>
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

void LptPort::out(reg_t data, Deadline d) { t_.write_data(data, d); }

namespace {
/// The PC's status register in the window's terms.  The PC inverts Busy;
/// the hub drives the Busy pin with /GO exactly as the seed's PAL (equation
/// for /PEaGO) does, so the register already reads GO.  I_k carries PE
/// (x+k+1) mod N (seed 000 Table 4 for N = 4; generalised).
PapersStatus from_pc(reg_t st, unsigned n, unsigned pe) {
    PapersStatus s;
    s.go = (st >> R::STATUS_GO(n)) & 1;
    s.intr = (st >> R::STATUS_INT(n)) & 1;
    for (unsigned k = 0; k + 1 < n; ++k)
        if ((st >> (R::STATUS_I0 + k)) & 1) s.ivec |= uint64_t(1) << ((pe + k + 1) % n);
    return s;
}
}  // namespace

PapersStatus LptPort::in(Deadline d) { return from_pc(t_.read_status(d), hub_pes(), pe_index()); }

PapersStatus LptPort::wait_go(bool level, Deadline d) {
    const reg_t gobit = reg_t(1) << R::STATUS_GO(hub_pes());
    return from_pc(t_.wait_status(gobit, level ? 0 : gobit, d), hub_pes(), pe_index());
}

void LptPort::mode(uint8_t control, Deadline d) {
    t_.write_control(static_cast<uint8_t>(control ^ R::LPT_CONTROL_XOR), d);
}

// ---- Papers ----------------------------------------------------------------

Papers::Papers(Transport& t, Timeout io_timeout)
    : own_port_(std::make_unique<LptPort>(t)), port_(*own_port_), io_(io_timeout), n_(t.hub_pes()),
      pe_(t.pe_index()) {
    attach();
}

Papers::Papers(PapersPort& port, Timeout io_timeout)
    : port_(port), io_(io_timeout), n_(port.hub_pes()), pe_(port.pe_index()) {
    attach();
}

void Papers::attach() {
    if (n_ < 2 || n_ > 64)
        throw Error("papers: hub reports " + std::to_string(n_) + " PEs; a PAPERS hub has 2..64");
    if (pe_ >= n_)
        throw Error("papers: this port is PE" + std::to_string(pe_) + " but the hub has only " +
                    std::to_string(n_) + " PEs");
    control_ = static_cast<uint8_t>((1u << R::CONTROL_CE) | (1u << R::CONTROL_U0));
    if (port_.can_sync()) {
        // A barrier the hub still runs for this PE (a program before us that
        // timed out or died in one) would refuse our writes: end it.
        uint64_t last = 0;
        port_.sync_cancel(last, io());
    }
    port_.mode(control_, io());
    last_mask_ = our_mask();
    last_pout_ = pout(last_mask_);
    put(last_pout_, io());
    port_.flush(io());
}

void Papers::put(reg_t data, Deadline d) {
    port_.out(data, d);
    cur_ = data;
}

reg_t Papers::pout(uint64_t mask) const { return reg_t(mask) << R::DATA_B0; }

reg_t Papers::ir_bit() const { return ir_ ? bit(R::DATA_IR) : 0; }

namespace {
/// Leave this much of a wait's time for the accesses after it expires (read
/// who is there, withdraw S), so that the whole call ends within its timeout.
std::chrono::nanoseconds cleanup_margin(std::chrono::nanoseconds timeout) {
    return std::min<std::chrono::nanoseconds>(timeout / 10, std::chrono::milliseconds(50));
}
}  // namespace

Papers::Waited Papers::wait_go(bool level, uint64_t mask, Deadline end, std::chrono::nanoseconds timeout,
                               const char* what) {
    // Our pins stay as they are while we wait (the PEs of the last barrier
    // may still be reading our D bit); only PROBE is added.
    const reg_t out_now = cur_ & ~bit(R::DATA_PROBE);
    bool probing = (cur_ >> R::DATA_PROBE) & 1;
    const Deadline wait_until{end.at - cleanup_margin(timeout)};
    const uint64_t others = mask & ~our_mask();
    // Wake on GO only (waking on each arrival would cost a round trip per PE
    // on the virtual hub); the first wait returns at once if GO is there
    // already.  But look at who is
    // there at least every kArrivalSample, so that a PE that arrives and
    // later withdraws (it timed out itself) is told apart from one that never
    // came.  PROBE is set from the first sample on: in phase 2 it went out
    // with S; in phase 1 only if GO is not there at once.
    // At least eight samples in a wait, however short.
    const std::chrono::nanoseconds sample = std::min<std::chrono::nanoseconds>(kArrivalSample, timeout / 8);
    uint64_t seen = 0;  // PEs seen arrived during this wait
    PapersStatus st;
    for (;;) {
        const Deadline slice{std::min(wait_until.at, port_.now() + sample)};
        st = port_.wait_go(level, slice);
        if (st.go == level) return {st, false};
        if (probing) seen |= st.ivec & others;
        if (port_.now() >= wait_until.at) break;
        if (!probing) {
            put(out_now | bit(R::DATA_PROBE), end);
            probing = true;
        }
    }
    // Timed out.  The cleanup accesses get at least a little time of their own.
    const Deadline cleanup{std::max(end.at, port_.now() + std::chrono::milliseconds(200))};
    if (!probing) {  // a timeout shorter than one sample
        put(out_now | bit(R::DATA_PROBE), cleanup);
        st = port_.in(cleanup);
        if (st.go == level) {
            put(out_now, cleanup);
            return {st, false};
        }
    }
    const uint64_t here = st.ivec & others;
    abandoned_ = true;
    if (level) {
        // Waiting for GO: withdraw S (and PROBE) so that the barrier cannot
        // fire behind our back.  If it fired just before the withdrawal
        // reached the hub, GO is up: the barrier completed after all.
        const reg_t withdrawn = out_now & ~bit(R::DATA_S);
        put(withdrawn, cleanup);
        const PapersStatus after = port_.in(cleanup);
        if (after.go) {
            abandoned_ = false;
            return {after, true};
        }
        arrival_timeout(what, timeout, mask, here, seen, cleanup);
    }
    // Waiting for the GO reset of a finished barrier: the PEs still holding S
    // keep GO up (a dead PE's pins stay as it left them).
    put(out_now, cleanup);  // PROBE off again
    reset_timeout(what, timeout, mask, here & mask);
}

void Papers::arrival_timeout(const char* what, Timeout timeout, uint64_t mask, uint64_t here, uint64_t seen,
                             Deadline cleanup) {
    const uint64_t others = mask & ~our_mask();
    const uint64_t missing = others & ~here;
    const uint64_t never = missing & ~seen, left = missing & seen;
    std::ostringstream msg;
    msg << what << ": PE" << pe_ << " timed out after " << ms(timeout);
    msg << " waiting for barrier mask " << hex(mask) << "; never arrived: " << pe_list(never);
    uint64_t here_now = 0;
    bool asked = false;
    try {
        asked = never && port_.present(here_now, cleanup);
    } catch (const Error&) {  // the timeout is the news; a failing link shows on the next access
    }
    if (asked && (never & ~here_now))
        msg << " (absent at the hub: " << pe_list(never & ~here_now)
            << ", whose CE is 0: cable unplugged, PC off, or not attached)";
    if (left) msg << "; arrived, then left before it completed (timed out themselves, or passed it with "
                     "a different mask): " << pe_list(left);
    msg << " (arrived: S high with a mask naming PE" << pe_ << ")";
    throw TimeoutError(msg.str(), never, left);
}

void Papers::reset_timeout(const char* what, Timeout timeout, uint64_t mask, uint64_t holding) {
    const uint64_t others = mask & ~our_mask();
    std::ostringstream msg;
    msg << what << ": PE" << pe_ << " timed out after " << ms(timeout);
    msg << " waiting for the reset of barrier mask " << hex(mask);
    if (holding) {
        msg << "; never released (still holding S): " << pe_list(holding);
        throw TimeoutError(msg.str(), holding, 0);
    }
    msg << "; no PE of it holds S naming PE" << pe_ << ", so one of " << pe_list(others)
        << " has changed its mask to leave PE" << pe_ << " out";
    throw TimeoutError(msg.str(), others, 0);
}

bool Papers::hub_sync(bool d, Deadline end, std::chrono::nanoseconds timeout, const char* what, uint64_t& vec) {
    // The whole of sync() below, and the reset after it, done by the hub in
    // one operation (a link port's SYNC CALL).  It leaves our D at d and S
    // and PROBE low, as the pin path's last P_OUT does.
    const reg_t after = last_pout_ | (d ? bit(R::DATA_D) : 0) | ir_bit();
    try {
        vec = port_.sync(d, Deadline{end.at - cleanup_margin(timeout)});
        cur_ = after;
        abandoned_ = false;
        return true;
    } catch (const TimeoutError&) {
    }
    // The hub still has it: cancel, and learn how it ended.
    const Deadline cleanup{std::max(end.at, port_.now() + std::chrono::milliseconds(200))};
    uint64_t last = 0;
    const unsigned outcome = port_.sync_cancel(last, cleanup);
    cur_ = after;
    switch (outcome) {
    case R::W_CANCEL_FINISHED:  // it completed as we gave up: LAST is its vector
        vec = last;
        abandoned_ = false;
        return true;
    case R::W_CANCEL_FIRED:  // GO came as S was withdrawn: completed for everyone
        vec = (port_.in(cleanup).ivec & last_mask_) | (d ? our_mask() : 0);
        abandoned_ = false;
        return true;
    case R::W_CANCEL_WITHDRAWN: {
        // LAST: every PE seen arrived during the wait; who is there now
        // tells those that came and left from those still waiting
        abandoned_ = true;
        const uint64_t seen = last & last_mask_ & ~our_mask();
        arrival_timeout(what, timeout, last_mask_, arrived() & seen, seen, cleanup);
    }
    case R::W_CANCEL_RESET_WAIT:
        abandoned_ = true;
        reset_timeout(what, timeout, last_mask_, arrived() & last_mask_);
    default:
        throw Error(std::string(what) + ": PE" + std::to_string(pe_) + ": the hub's CANCEL answered " +
                    std::to_string(outcome) + " for a barrier it was running (expected 1..4)");
    }
}

Papers::Waited Papers::sync(reg_t b, Deadline end, std::chrono::nanoseconds timeout, const char* what) {
    // _p_wait() / _p_waitvec() of section 4.3.2-4.3.3, with PROBE set while
    // we wait for GO (it changes only what our own I bits show).
    const reg_t ir = ir_bit();
    wait_go(false, last_mask_, end, timeout, what);                 // while (P_IN() & GO);
    put(b | bit(R::DATA_S) | bit(R::DATA_PROBE) | ir, end);          // P_OUT(b | S);
    return wait_go(true, last_mask_, end, timeout, what);            // while (!(P_IN() & GO));
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
    const Deadline end = port_.in_time(timeout);
    // Had somebody beside us: wait for barrier reset -- unless that barrier
    // was abandoned after a timeout (nobody is reading our D bit in it, and a
    // dead PE holding S would keep it from resetting forever).
    if ((last_mask_ & ~our_mask()) && !abandoned_)
        wait_go(false, last_mask_, end, timeout, "enqueue");
    if (abandoned_) {
        // Our GO may be stuck high from the abandoned barrier (a dead PE
        // holds S, so CLKRST over the old mask never holds).  Over a mask
        // naming only ourselves, with our S low, the PAL's own CLKRST resets
        // it at once, whatever the others do; then the new mask starts clean.
        put(pout(our_mask()) | ir_bit(), end);
        wait_go(false, our_mask(), end, timeout, "enqueue");
    }
    last_mask_ = mask;
    last_pout_ = pout(mask);
    const Deadline last{std::max(end.at, port_.now() + std::chrono::milliseconds(200))};
    put(last_pout_ | ir_bit(), last);
    port_.flush(last);  // the new mask is in place when enqueue() returns
    abandoned_ = false;
}

void Papers::wait(Timeout timeout) {
    if (!(last_mask_ & ~our_mask())) return;  // alone: nothing to do
    const Deadline end = port_.in_time(timeout);
    uint64_t vec = 0;
    if (port_.can_sync() && !abandoned_ && hub_sync(false, end, timeout, "wait", vec)) return;
    sync(last_pout_, end, timeout, "wait");
    put(last_pout_ | ir_bit(), end);  // P_OUT(p): reset barrier
    abandoned_ = false;
}

uint64_t Papers::waitvec(bool flag, Timeout timeout) {
    uint64_t result = flag ? our_mask() : 0;
    if (last_mask_ & ~our_mask()) {
        const Deadline end = port_.in_time(timeout);
        uint64_t vec = 0;
        if (port_.can_sync() && !abandoned_ && hub_sync(flag, end, timeout, "waitvec", vec))
            return (vec & last_mask_) | result;
        const reg_t b = flag ? (last_pout_ | bit(R::DATA_D)) : last_pout_;
        const Waited w = sync(b, end, timeout, "waitvec");
        // PROBE off (S kept up, so nobody's GO resets and changes D under us),
        // then x = P_IN(): the data bit vector.
        if (!w.s_dropped) put(b | bit(R::DATA_S) | ir_bit(), end);
        const PapersStatus x = port_.in(end);
        put(b | ir_bit(), end);  // P_OUT(b): reset synchronization
        result |= x.ivec & last_mask_;
        abandoned_ = false;
    }
    return result;
}

void Papers::set_interrupt_request(bool on) {
    ir_ = on;
    put((cur_ & ~bit(R::DATA_IR)) | ir_bit(), io());
    port_.flush(io());  // IR is up (or down) at the hub when this returns
}

void Papers::set_mode(bool gi, bool ie, uint8_t user) {
    control_ = static_cast<uint8_t>((1u << R::CONTROL_CE) | (gi ? 1u << R::CONTROL_GI : 0u) |
                                    (ie ? 1u << R::CONTROL_IE : 0u) |
                                    ((user & 1u) << R::CONTROL_U0) | (((user >> 1) & 1u) << R::CONTROL_U1));
    port_.mode(control_, io());
    port_.flush(io());
}

Papers::Status Papers::status() {
    const PapersStatus st = port_.in(io());
    return {st.go, st.intr, st.ivec};
}

uint64_t Papers::arrived() {
    const reg_t was = cur_;
    put(was | bit(R::DATA_PROBE), io());
    const PapersStatus st = port_.in(io());
    put(was, io());
    return st.ivec;
}

}  // namespace aggnet
