// libaggnet: the NAND aggregate network (seed 002) over the link; see
// aggnet/nand.hpp and docs/nand.md.
#include <aggnet/error.hpp>
#include <aggnet/link_defs.hpp>
#include <aggnet/nand.hpp>

#include <cstdio>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace aggnet {

namespace R = nand_regs;

const char* vote_count_name(VoteCount c) {
    switch (c) {
    case VoteCount::zero: return "zero";
    case VoteCount::one: return "one";
    case VoteCount::many: return "many";
    case VoteCount::all: return "all";
    }
    return "?";
}

namespace {
uint64_t width_mask(unsigned k) { return k >= 64 ? ~uint64_t(0) : (uint64_t(1) << k) - 1; }
/// A field of `w` bits at bit `at` of `v`.
uint32_t field(uint32_t v, unsigned at, unsigned w) { return (v >> at) & uint32_t(width_mask(w)); }
unsigned bit_width(uint64_t v) {
    unsigned b = 0;
    while (v) ++b, v >>= 1;
    return b;
}
}  // namespace

// ---- LinkNandPort: the NAND window over the link --------------------------------

LinkNandPort::LinkNandPort(link::LinkClient& link, unsigned pe) : link_(link), pe_(pe) {
    uint32_t shape = 0, hash = 0;
    try {
        shape = link_.read(pe_, R::addr(R::SHAPE), 4);
        out0_ = link_.read(pe_, R::addr(R::OUT), 4);
        hash = link_.read(pe_, uint16_t(link_defs::INFO_MAP_HASH + R::WINDOW), 4);
    } catch (const RegisterError& e) {
        throw DeviceError("PE" + std::to_string(pe) + ": the hub has no NAND engine in window " +
                          std::to_string(R::WINDOW) + " (built without EN_NAND?): " + e.what());
    }
    if (hash != R::MAP_HASH) {
        char m[160];
        std::snprintf(m, sizeof m, "PE%u: the hub's NAND register map hash is 0x%08x, this library's 0x%08x: "
                      "rebuild one of them from the same tools/nandgen.py", pe, hash, R::MAP_HASH);
        throw DeviceError(m);
    }
    n_ = field(shape, R::SHAPE_N, R::SHAPE_N_W);
    t_ = field(shape, R::SHAPE_T, R::SHAPE_T_W);
    if (n_ < 1 || n_ > 64 || t_ < 1 || t_ > R::IN_DATA_W || pe_ >= n_)
        throw DeviceError("PE" + std::to_string(pe) + ": the NAND engine reports N = " + std::to_string(n_) +
                          ", t = " + std::to_string(t_));
    // Start between operations: an earlier program's sequenced operation on
    // this PE (still running, or a result nobody collected) would refuse
    // every start and OUT write.  The cancel says where BAR stands after it.
    const uint64_t c = link_.call(pe_, R::addr(R::CANCEL), 0, 0, std::chrono::seconds(1)).value;
    out0_ = (out0_ & ~(1u << R::OUT_BAR)) | uint32_t(field(uint32_t(c), R::CANCEL_BAR, 1)) << R::OUT_BAR;
}

void LinkNandPort::write_out(uint32_t out) {
    ++accesses_, ++frames_;
    link_.write(pe_, R::addr(R::OUT), out, 4);
}

uint32_t LinkNandPort::read_in(unsigned) {
    ++accesses_, ++frames_;
    return link_.read(pe_, R::addr(R::IN), 4);
}

uint32_t LinkNandPort::wait_in(unsigned want, bool value, std::chrono::nanoseconds timeout) {
    ++accesses_, ++frames_;
    return link_.wait(pe_, R::addr(R::IN), 1u << want, uint32_t(value) << want, 4, timeout);
}

uint64_t LinkNandPort::read64(uint16_t lo, uint16_t hi) {
    ++frames_;
    uint64_t b = link_.read(pe_, R::addr(lo), 4);
    if (n_ > 32) ++frames_, b |= uint64_t(link_.read(pe_, R::addr(hi), 4)) << 32;
    return b;
}

std::optional<uint64_t> LinkNandPort::bars() { return read64(R::BARS0, R::BARS1); }

std::optional<uint64_t> LinkNandPort::left() { return read64(R::LEFT0, R::LEFT1); }

uint64_t LinkNandPort::call(uint16_t reg, uint64_t operands, unsigned len, std::chrono::nanoseconds timeout) {
    ++frames_;
    return link_.call(pe_, R::addr(reg), operands, len, timeout).value;
}

uint64_t NandPort::call(uint16_t, uint64_t, unsigned, std::chrono::nanoseconds) {
    throw std::logic_error(describe() + ": no NAND sequencer on this port");
}

std::string LinkNandPort::describe() const { return "NAND window of PE" + std::to_string(pe_) + " over the link"; }

// ---- LptNandPort: the engine's cable on a parallel port -----------------------------

LptNandPort::LptNandPort(Transport& port, unsigned pe, unsigned pes) : port_(port), pe_(pe), n_(pes) {
    if (n_ < 1 || n_ > 64 || pe_ >= n_)
        throw DeviceError(port_.describe() + ": NAND cable: PE" + std::to_string(pe) + " of " + std::to_string(pes) +
                          " PEs is not a PE of the hub");
    // Idle lines first (data all 1, BAR 0, SEL 0), then pin 17 low: on the cable.
    d_ = uint8_t(width_mask(R::CABLE_IN_DATA_W) << R::CABLE_D_DATA);
    port_.write_data(d_);
    port_.write_control(uint8_t(1u << R::CABLE_C_ATTACH));
    accesses_ += 2;
    // Join between barriers: BAR where the flip-flop stands (SEL 0: BS = BF,
    // once the engine follows this cable's SEL).
    settled_ = port_.now() + kSelectSettle;
    settle();
    const bool bf = (port_.read_status() >> R::CABLE_S_BS) & 1;
    ++accesses_;
    if (bf) put(uint8_t(d_ | 1u << R::CABLE_D_BAR));
    out0_ = uint32_t(bf) << R::OUT_BAR;
}

LptNandPort::~LptNandPort() {
    try {
        port_.write_control(0);  // pin 17 floats high: off the cable
    } catch (...) {
    }
}

void LptNandPort::put(uint8_t d) {
    port_.write_data(d);
    d_ = d;
    ++accesses_;
}

void LptNandPort::write_out(uint32_t out) {
    uint8_t d = uint8_t(field(out, R::OUT_DATA, R::CABLE_IN_DATA_W) << R::CABLE_D_DATA);
    d |= uint8_t(field(out, R::OUT_BAR, 1) << R::CABLE_D_BAR);
    d |= uint8_t(field(out, R::OUT_ACK, 1) << R::CABLE_D_ACK);
    const uint8_t sel = uint8_t(1u << R::CABLE_D_SEL), req = uint8_t(1u << R::CABLE_D_REQ);
    d |= uint8_t(d_ & sel);  // SEL is this port's business (select())
    if (field(out, R::OUT_REQ, 1)) {
        // a request is a 0 -> 1 edge of D7: lower it first if it is still up
        if (d_ & req) put(uint8_t(d_ & ~req));
        d |= req;
    }
    put(d);
}

void LptNandPort::select(unsigned want) {
    const bool sel = want == R::IN_SP;
    const uint8_t sel_bit = uint8_t(1u << R::CABLE_D_SEL);
    if (bool(d_ & sel_bit) != sel) {
        put(uint8_t(sel ? d_ | sel_bit : d_ & ~sel_bit));
        settled_ = port_.now() + kSelectSettle;
    }
    settle();
}

void LptNandPort::settle() {
    // Until then BS may still show the other flag: do not read it.  A PC
    // port access takes about 1 us, so on a real port this costs at most
    // one status read; a faster port (or a simulated one) waits here.
    if (port_.now() < settled_) port_.wait_status(0, 0, Deadline{settled_});
}

uint32_t LptNandPort::in_of(reg_t st) const {
    const uint32_t bs = field(uint32_t(st), R::CABLE_S_BS, 1);
    const unsigned flag = field(d_, R::CABLE_D_SEL, 1) ? R::IN_SP : R::IN_BF;
    return field(uint32_t(st), R::CABLE_S_DATA, R::CABLE_OUT_DATA_W) << R::IN_DATA | bs << R::IN_BS | bs << flag;
}

uint32_t LptNandPort::read_in(unsigned want) {
    select(want);
    ++accesses_;
    return in_of(port_.read_status());
}

uint32_t LptNandPort::wait_in(unsigned want, bool value, std::chrono::nanoseconds timeout) {
    select(want);
    ++accesses_;
    const Deadline d = port_.in(timeout);
    reg_t st = port_.read_status(d);
    for (;;) {
        if (bool((st >> R::CABLE_S_BS) & 1) == value) return in_of(st);
        if (port_.now() >= d.at)
            throw TimeoutError(describe() + ": BS did not become " + std::to_string(int(value)) + " within " +
                                   std::to_string(std::chrono::duration<double, std::milli>(timeout).count()) + " ms",
                               0);
        st = port_.wait_status(reg_t(1) << R::CABLE_S_BS, st, d);
    }
}

std::string LptNandPort::describe() const {
    return port_.describe() + " (NAND cable, PE" + std::to_string(pe_) + " of " + std::to_string(n_) + ")";
}

// ---- NandPe -------------------------------------------------------------------

NandPe::NandPe(link::LinkClient& link, unsigned pe, std::chrono::nanoseconds timeout)
    : own_(std::make_unique<LinkNandPort>(link, pe)), port_(*own_), pe_(pe), timeout_(timeout) {
    n_ = port_.pes();
    t_ = port_.trees();
    // Take up where the PE's OUT register stands (a program may attach to
    // a hub that ran another before it).
    phase_ = field(port_.initial_out(), R::OUT_BAR, 1);
    ack_ = field(port_.initial_out(), R::OUT_ACK, 1);
    data_ = uint32_t(width_mask(t_));
}

NandPe::NandPe(NandPort& port, std::chrono::nanoseconds timeout)
    : port_(port), pe_(port.pe()), n_(port.pes()), t_(port.trees()), timeout_(timeout) {
    phase_ = field(port_.initial_out(), R::OUT_BAR, 1);
    ack_ = field(port_.initial_out(), R::OUT_ACK, 1);
    data_ = uint32_t(width_mask(t_));
}

void NandPe::check_k(unsigned k, const char* op) const {
    if (k < 1 || k > 64)
        throw std::invalid_argument(std::string("nand ") + op + ": width " + std::to_string(k) +
                                    " bits is outside 1..64");
}

void NandPe::write_out(uint32_t extra) {
    port_.write_out(data_ << R::OUT_DATA | uint32_t(phase_) << R::OUT_BAR | uint32_t(ack_) << R::OUT_ACK | extra);
}

std::optional<uint64_t> NandPe::missing() {
    const auto bars = port_.bars();
    if (!bars) return std::nullopt;
    const uint64_t want = phase_ ? width_mask(n_) : 0;
    return (*bars ^ want) & width_mask(n_);
}

uint32_t NandPe::wait_phase() {
    try {
        const uint32_t in = port_.wait_in(R::IN_BF, phase_, timeout_);
        pending_ = false;
        return in;
    } catch (const TimeoutError&) {
        pending_ = true;
        const auto miss = missing();
        std::ostringstream m;
        m << "PE" << pe_ << ": NAND barrier (tree S" << (phase_ ? 1 : 0) << ") did not complete within "
          << std::chrono::duration<double, std::milli>(timeout_).count() << " ms; ";
        if (miss) {
            m << "PEs that never arrived:";
            for (unsigned j = 0; j < n_; ++j)
                if (*miss >> j & 1) m << " " << j;
        } else {
            m << "which PEs never arrived is not visible on " << port_.describe();
        }
        m << " (the next operation waits for this barrier first)";
        throw TimeoutError(m.str(), miss.value_or(0));
    }
}

uint64_t NandPe::sequenced(bool vote, uint64_t v, unsigned k, unsigned w, const char* op) {
    // The operand's k bits at the top of the 64-bit row, 0s below (they
    // come back above the result: nand_regs SLICES).
    const unsigned steps = (k + w - 1) / w;
    const uint16_t reg = uint16_t((vote ? R::VOTE : R::SLICES) | (w - 1) << R::CA_SLICES_W |
                                  (k - 1) << R::CA_SLICES_K);
    const uint64_t operand = (v & width_mask(k)) << (64 - k);
    uint64_t r = 0;
    try {
        r = port_.call(reg, operand, R::SEQ_BYTES, timeout_);
    } catch (const TimeoutError&) {
        // Who is missing: the PEs whose BAR is not this PE's (it arrived at
        // the step it waits in; they did not), read before LEFT, so that a PE
        // that cancels in between counts as one that left (LEFT: its cancel
        // withdrew its BAR), never as one that never arrived.  Then this PE
        // leaves the operation too.
        const auto bars = port_.bars();
        const auto gone = port_.left();
        uint64_t miss = 0, left = 0;
        if (bars) miss = ((*bars >> pe_ & 1) ? ~*bars : *bars) & width_mask(n_);
        if (gone) left = *gone & width_mask(n_) & ~(uint64_t(1) << pe_), miss &= ~*gone;
        const unsigned was = cancel();
        std::ostringstream m;
        m << "PE" << pe_ << ": NAND " << op << " (" << k << " bits, one CALL to the engine's sequencer) did not "
          << "finish within " << std::chrono::duration<double, std::milli>(timeout_).count() << " ms; PEs that "
          << "never arrived:";
        for (unsigned j = 0; j < n_; ++j)
            if (miss >> j & 1) m << " " << j;
        if (!miss) m << " none seen";
        if (left) {
            m << "; PEs that left it (cancelled):";
            for (unsigned j = 0; j < n_; ++j)
                if (left >> j & 1) m << " " << j;
        }
        m << (was == R::CANCEL_WAS_FINISHED ? " (it finished as this PE cancelled: its result is lost)"
                                            : " (cancelled: this PE left the operation too)");
        throw TimeoutError(m.str(), miss, left);
    } catch (const RegisterError& e) {
        if (e.code != link_defs::ERR_REFUSED) throw;
        std::ostringstream m;
        m << "PE" << pe_ << ": NAND " << op << ": the engine's sequencer refused it (an earlier operation of this "
          << "PE is still running or its result was never collected; NandPe::cancel() ends it)";
        throw ProtocolError(m.str());
    }
    seq_io_ += 2 * uint64_t(steps);  // what the cable would take: a write and a wait per step
    if (steps & 1) phase_ = !phase_;
    return r & width_mask(k);
}

unsigned NandPe::cancel() {
    if (!port_.sequencer()) return R::CANCEL_WAS_IDLE;
    const uint64_t c = port_.call(R::CANCEL, 0, 0, std::chrono::seconds(1));
    phase_ = field(uint32_t(c), R::CANCEL_BAR, 1);
    data_ = uint32_t(width_mask(t_));
    return field(uint32_t(c), R::CANCEL_WAS, R::CANCEL_WAS_W);
}

uint32_t NandPe::step(uint32_t out) {
    if (port_.sequencer()) return uint32_t(sequenced(false, out, t_, t_, "step (barrier, any, all)"));
    // A barrier that timed out is still open: the PEs' operations must stay
    // in step, so it completes before this one starts.
    if (pending_) wait_phase();
    phase_ = !phase_;
    data_ = out & uint32_t(width_mask(t_));
    write_out();
    return field(wait_phase(), R::IN_DATA, t_);
}

void NandPe::barrier() { step(uint32_t(width_mask(t_))); }

uint64_t NandPe::chunked(uint64_t v, unsigned k, bool invert_out, bool invert_in, const char* op) {
    if (port_.sequencer()) {
        const uint64_t r = sequenced(false, invert_out ? ~v : v, k, t_, op);
        return (invert_in ? ~r : r) & width_mask(k);
    }
    uint64_t result = 0;
    for (unsigned at = 0; at < k; at += t_) {
        const unsigned w = std::min(t_, k - at);
        const uint32_t wm = uint32_t(width_mask(w));
        uint32_t chunk = uint32_t(v >> at) & wm;
        if (invert_out) chunk = ~chunk & wm;
        uint32_t r = step(chunk | (uint32_t(width_mask(t_)) & ~wm)) & wm;  // unused trees: neutral 1s
        if (invert_in) r = ~r & wm;
        result |= uint64_t(r) << at;
    }
    return result;
}

uint64_t NandPe::broadcast(unsigned root, uint64_t value, unsigned k) {
    check_k(k, "broadcast");
    if (root >= n_)
        throw std::invalid_argument("nand broadcast: root PE" + std::to_string(root) + " is beyond N = " +
                                    std::to_string(n_));
    // 2.2: the sender outputs the complement, every other PE 1s.
    return pe_ == root ? chunked(value, k, true, false, "broadcast") : chunked(~uint64_t(0), k, false, false, "broadcast");
}

bool NandPe::any(bool a) {
    // 2.3: Any(a) = NAND(NOT a)
    const uint32_t tm = uint32_t(width_mask(t_));
    return step(a ? tm & ~1u : tm) & 1;
}

bool NandPe::all(bool a) {
    // 2.3: All(a) = NOT NAND(a)
    const uint32_t tm = uint32_t(width_mask(t_));
    return !(step(a ? tm : tm & ~1u) & 1);
}

// 2.4: reduceAND = ~NAND(a), reduceOR = NAND(~a), reduceNOR = ~NAND(~a).
uint64_t NandPe::reduce_and(uint64_t v, unsigned k) {
    check_k(k, "reduce_and");
    return chunked(v, k, false, true, "reduce_and");
}
uint64_t NandPe::reduce_or(uint64_t v, unsigned k) {
    check_k(k, "reduce_or");
    return chunked(v, k, true, false, "reduce_or");
}
uint64_t NandPe::reduce_nand(uint64_t v, unsigned k) {
    check_k(k, "reduce_nand");
    return chunked(v, k, false, false, "reduce_nand");
}
uint64_t NandPe::reduce_nor(uint64_t v, unsigned k) {
    check_k(k, "reduce_nor");
    return chunked(v, k, true, true, "reduce_nor");
}

uint64_t NandPe::max_u_bits(uint64_t v, unsigned k, unsigned bits) {
    check_k(k, "max");
    if (bits < 1 || ((1u << bits) - 1) > t_)
        throw std::invalid_argument("nand max: " + std::to_string(bits) + " bits per step need " +
                                    std::to_string((1u << std::min(bits, 16u)) - 1) + " trees, the engine has " +
                                    std::to_string(t_));
    v &= width_mask(k);
    // The sequencer's VOTE makes the last group the narrow one (rtl/nand/
    // nand_seq.v): the same maximum in the same number of steps.
    if (port_.sequencer()) return sequenced(true, v, k, bits, "maximum");
    // 2.4: from the most significant group down, a PE still in the running
    // whose group is j > 0 outputs 0 on tree j-1 (m = 2^bits - 1 trees); the
    // highest 1 of the NAND is the group of the maximum; a PE whose group
    // differs drops out (outputs 1s).
    const uint32_t tm = uint32_t(width_mask(t_));
    bool running = true;
    uint64_t result = 0;
    unsigned left = k;
    while (left) {
        const unsigned w = (left % bits) ? left % bits : bits;
        left -= w;
        const unsigned j = unsigned(v >> left) & ((1u << w) - 1);
        uint32_t out = tm;
        if (running && j) out &= ~(1u << (j - 1));
        const uint32_t r = step(out) & ((1u << ((1u << w) - 1)) - 1);
        const unsigned g = bit_width(r);  // highest tree with a 0 in, plus 1
        result |= uint64_t(g) << left;
        if (j != g) running = false;
    }
    return result;
}

uint64_t NandPe::max_u(uint64_t v, unsigned k) {
    unsigned bits = 1;
    while (((1u << (bits + 1)) - 1) <= t_ && bits + 1 <= k) ++bits;
    return max_u_bits(v, k, bits);
}

uint64_t NandPe::min_u(uint64_t v, unsigned k) {
    check_k(k, "min");
    return ~max_u(~v & width_mask(k), k) & width_mask(k);
}

namespace {
void check_signed(int64_t v, unsigned k, const char* op) {
    if (k < 64) {
        const int64_t lo = -(int64_t(1) << (k - 1)), hi = (int64_t(1) << (k - 1)) - 1;
        if (v < lo || v > hi)
            throw std::invalid_argument(std::string("nand ") + op + ": " + std::to_string(v) + " does not fit in " +
                                        std::to_string(k) + " signed bits");
    }
}
int64_t sign_extend(uint64_t u, unsigned k) {
    if (k >= 64) return int64_t(u);
    const uint64_t sign = uint64_t(1) << (k - 1);
    return int64_t((u ^ sign) - sign);
}
// IEEE bit patterns to unsigned keys in the same order (-0 just below +0;
// NaNs with the sign clear above +inf, with it set below -inf).
uint64_t float_key(uint64_t b, unsigned k) {
    const uint64_t sign = uint64_t(1) << (k - 1);
    return (b & sign) ? ~b & width_mask(k) : b | sign;
}
uint64_t float_unkey(uint64_t key, unsigned k) {
    const uint64_t sign = uint64_t(1) << (k - 1);
    return (key & sign) ? key & ~sign : ~key & width_mask(k);
}
}  // namespace

// 2.4: signed values with a bias of 2^(k-1) (flipping the sign bit).
int64_t NandPe::max_s(int64_t v, unsigned k) {
    check_k(k, "max");
    check_signed(v, k, "max_s");
    const uint64_t sign = uint64_t(1) << (k - 1);
    return sign_extend(max_u((uint64_t(v) & width_mask(k)) ^ sign, k) ^ sign, k);
}
int64_t NandPe::min_s(int64_t v, unsigned k) {
    check_k(k, "min");
    check_signed(v, k, "min_s");
    const uint64_t sign = uint64_t(1) << (k - 1);
    return sign_extend(min_u((uint64_t(v) & width_mask(k)) ^ sign, k) ^ sign, k);
}

// 2.4: floating point in the bit order that compares like the values.
float NandPe::max_f(float v) {
    uint32_t b;
    std::memcpy(&b, &v, 4);
    const uint32_t r = uint32_t(float_unkey(max_u(float_key(b, 32), 32), 32));
    float f;
    std::memcpy(&f, &r, 4);
    return f;
}
float NandPe::min_f(float v) {
    uint32_t b;
    std::memcpy(&b, &v, 4);
    const uint32_t r = uint32_t(float_unkey(min_u(float_key(b, 32), 32), 32));
    float f;
    std::memcpy(&f, &r, 4);
    return f;
}
double NandPe::max_d(double v) {
    uint64_t b;
    std::memcpy(&b, &v, 8);
    const uint64_t r = float_unkey(max_u(float_key(b, 64), 64), 64);
    double d;
    std::memcpy(&d, &r, 8);
    return d;
}
double NandPe::min_d(double v) {
    uint64_t b;
    std::memcpy(&b, &v, 8);
    const uint64_t r = float_unkey(min_u(float_key(b, 64), 64), 64);
    double d;
    std::memcpy(&d, &r, 8);
    return d;
}

// 2.5: the minimum of the PE numbers of the true voters (N for the others).
unsigned NandPe::lowest_true(bool vote) { return unsigned(min_u(vote ? pe_ : n_, bit_width(n_))); }

// 2.5: OR of the true voters' numbers, then any, all, and any true voter
// whose number is not that OR (more than one).
VoteCount NandPe::count_vote(bool vote) {
    const unsigned kpe = std::max(1u, bit_width(n_ - 1));
    const uint64_t orr = reduce_or(vote ? pe_ : 0, kpe);
    const bool other = vote && pe_ != orr;
    bool some, every, more;
    if (t_ >= 3) {
        // one step: tree 0 any (NOT vote), tree 1 all (vote), tree 2 any(other)
        const uint32_t tm = uint32_t(width_mask(t_));
        uint32_t out = tm & ~7u;
        out |= (vote ? 0u : 1u) | (vote ? 2u : 0u) | (other ? 0u : 4u);
        const uint32_t r = step(out);
        some = r & 1;
        every = !(r & 2);
        more = r & 4;
    } else {
        some = any(vote);
        every = all(vote);
        more = any(other);
    }
    if (!some) return VoteCount::zero;
    if (every) return VoteCount::all;
    return more ? VoteCount::many : VoteCount::one;
}

// 2.5: the controller of bit i outputs the complement of its vote there,
// every other output is 1.
uint64_t NandPe::vote_vector(bool vote, unsigned my_bit, unsigned k) {
    check_k(k, "vote_vector");
    uint64_t out = ~uint64_t(0);
    if (my_bit < k && vote) out &= ~(uint64_t(1) << my_bit);
    return chunked(out, k, false, false, "vote_vector");
}

uint64_t NandPe::resource_vector(uint64_t wants, unsigned k) { return reduce_or(wants, k); }

// 2.7: the request tree sets the pending signal; the acknowledge barrier
// clears it.
void NandPe::signal() { write_out(1u << R::OUT_REQ); }

bool NandPe::signal_pending() { return port_.read_in(R::IN_SP) >> R::IN_SP & 1; }

void NandPe::wait_signal(std::chrono::nanoseconds timeout) { port_.wait_in(R::IN_SP, true, timeout); }

void NandPe::acknowledge() {
    ack_ = !ack_;
    try {
        write_out();
    } catch (const RegisterError& e) {
        ack_ = !ack_;
        if (e.code != link_defs::ERR_REFUSED) throw;
        std::ostringstream m;
        m << "PE" << pe_ << ": acknowledge refused by the hub: this PE's previous acknowledge has not completed "
          << "(not every PE has acknowledged yet); nothing changed";
        throw ProtocolError(m.str());
    }
}

}  // namespace aggnet
