// libaggnet: Hall's coordination processor (seed 004, chapters IV-V) in the
// hub's COP engine (rtl/cop/, docs/cop.md), over the link.
//
// Link PE p is COP channel p.  Every COP operation is one link CALL (docs/
// link.md rule 8) to the CALL register of its opcode (cop_regs.hpp,
// regs::call), carrying its operand, answered once with its result: a
// barrier, a reduction or a prefix sum finishes when every PE of the
// process's terminal-count (TC) vector has contributed.
//
//   aggnet::cop::Channel ch(client, pe);          // checks the hub and its map
//   ch.barrier();
//   int64_t s = ch.reduce(aggnet::cop::Op::Sum, int64_t(x));
//   auto h = ch.start_reduce(aggnet::cop::Op::Max, int32_t(y));  // Hall's overlap:
//   work();                                               // compute while the
//   int32_t m = int32_t(ch.finish(h));                    // round completes
//
// Which PEs take part is the supervisor's choice (Supervisor: SETTC and SETBM
// for the process's two keys, PROC for the channel's process): a user
// program cannot change it.  Errors: a refusal throws CopError naming the
// PE, the opcode and the cause the channel logged (its CAUSE register);
// PRIV throws ProtectionError.  Every call has a timeout; when it passes,
// TimeoutError names the PEs the round still waits for (WAIT register) or
// the channel that holds the lock, and the CALL is cancelled (CANCEL, docs/
// cop.md): nothing of it stays armed in the COP, a contribution leaves its
// round (WAIT names this PE again), and a result that came as the deadline
// passed is returned instead of the error.
#pragma once

#include <aggnet/cop_regs.hpp>  // the tables (tools/copgen.py)
#include <aggnet/error.hpp>
#include <aggnet/link_client.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace aggnet::cop {

constexpr uint32_t DEFAULT_KEY = 0x434F5053;  ///< COP_KEY of the hub top ("COPS"); set your own per site

const char* cause_name(unsigned cause);   ///< "NOTINTC: ..."
const char* op_name(unsigned opcode);     ///< "SUMI64", or "opcode 0x.." for none

/// The COP refused an operation; cause as its channel logged it (CAUSE).
struct CopError : Error {
    CopError(const std::string& what, unsigned pe_, unsigned opcode_, unsigned cause_)
        : Error(what), pe(pe_), opcode(opcode_), cause(cause_) {}
    unsigned pe;
    unsigned opcode;
    unsigned cause;  ///< Cause (cop_regs.hpp)
};
/// PRIV: a supervisor operation from user mode; nothing changed (PRIVCNT counts it).
struct ProtectionError : CopError {
    using CopError::CopError;
};

enum class Op { Sum, Max, Min, Or, And, Xor };   ///< integer reductions (signed max/min, wrapping sum)
enum class FOp { Sum, Max, Min, ExactSum };       ///< double reductions (the FPU: refused NOFPU without it)
enum class Scan { Inclusive, Exclusive };         ///< prefix sums in channel order

unsigned reduce_opcode(Op op, bool w64);
unsigned reduce_opcode(FOp op);
unsigned scan_opcode(Scan s, bool w64);
unsigned scan_opcode(Scan s);  ///< of doubles: SCANIF / SCANXF (SUMF's rounded adds, channel order)
unsigned exact_scan_opcode(Scan s);  ///< of doubles, exact: EXSCANIF / EXSCANXF

/// One PE's channel.
class Channel {
public:
    /// PE `pe` of the hub behind `link`.  Throws DeviceError if the hub has no
    /// COP, a different register map (INFO MAP_HASH+4) or no channel for `pe`.
    Channel(link::LinkClient& link, unsigned pe, std::chrono::nanoseconds timeout = std::chrono::seconds(10));

    unsigned pe() const { return pe_; }
    unsigned channels() const { return channels_; }  ///< C of the core (the hub's N)
    bool has_fpu() const { return fpu_; }
    std::chrono::nanoseconds timeout() const { return timeout_; }
    void set_timeout(std::chrono::nanoseconds t) { timeout_ = t; }
    /// Which of the process's two keys (masks and TC vectors) the collectives use.
    void use_mask(unsigned mask) { mask_ = mask & 1; }
    unsigned mask() const { return mask_; }
    uint64_t calls() const { return calls_; }  ///< COP CALLs made (one link frame each way)

    // ---- collectives (every PE of the key's TC vector) ----------------------
    void barrier();
    int32_t reduce(Op op, int32_t v);
    int64_t reduce(Op op, int64_t v);
    double reduce(FOp op, double v);
    int32_t scan(int32_t v, Scan s = Scan::Inclusive);
    int64_t scan(int64_t v, Scan s = Scan::Inclusive);
    /// Doubles: the running SUMF in channel order (Exclusive: +0 for the first member).
    double scan(double v, Scan s = Scan::Inclusive);
    /// Doubles, exact: the correctly rounded exact sum of the terms up to this channel's
    /// (Exclusive: before it; +0 for the first member), whatever their magnitudes.
    double exact_scan(double v, Scan s = Scan::Inclusive);
    /// Every other channel of the key's broadcast mask gets v in its mailbox.
    void broadcast(uint32_t v);
    void broadcast(uint64_t v);
    /// One mailbox delivery (waits for one); *len its bytes (4 or 8).
    uint64_t receive(unsigned* len = nullptr);

    // ---- the Data RAM (the process's words; ADDR is set when it changes) ---
    uint32_t fetch_add(unsigned addr, uint32_t v);  ///< RMW32: the old value; old + v written
    uint64_t fetch_add(unsigned addr, uint64_t v);  ///< RMW64
    uint32_t read(unsigned addr);
    uint64_t read64(unsigned addr);
    void write(unsigned addr, uint32_t v);          ///< keeps the word's high half
    void write(unsigned addr, uint64_t v);

    // ---- the lock (LOCK / UNLOCK: the controller serves only the holder) ----
    void lock();
    void unlock();  ///< from a channel that does not hold it: CopError NOTLOCKER

    // ---- start / finish: compute while the round completes ----------------
    struct Handle {
        unsigned opcode = 0;
        unsigned mask = 0;
        bool open = false;
    };
    /// Starts any opcode's CALL with its operand (cop_regs.hpp OPCODES says
    /// how many bytes); finish() waits for the result.  One at a time per PE.
    Handle start(unsigned opcode, uint64_t operand = 0);
    Handle start_barrier() { return start(OP_BENTRY); }
    Handle start_reduce(Op op, int32_t v) { return start(reduce_opcode(op, false), uint32_t(v)); }
    Handle start_reduce(Op op, int64_t v) { return start(reduce_opcode(op, true), uint64_t(v)); }
    Handle start_scan(int64_t v, Scan s = Scan::Inclusive) { return start(scan_opcode(s, true), uint64_t(v)); }
    /// The result, right-aligned, zero above its bytes (last_len()).
    uint64_t finish(Handle& h);
    /// start + finish.
    uint64_t call(unsigned opcode, uint64_t operand = 0);
    /// start + finish on key `mask` (not the one use_mask() chose).
    uint64_t call_on(unsigned mask, unsigned opcode, uint64_t operand = 0);
    unsigned last_len() const { return last_len_; }  ///< result bytes of the last finish()
    /// CANCEL (docs/cop.md "CANCEL"): withdraws or collects this channel's
    /// CALL; returns the result word (bits 1..0 the CancelOutcome, bit 2 a
    /// refusal, bits 15..8 its cause).  finish() sends it when a CALL times out.
    unsigned cancel();

    // ---- registers -----------------------------------------------------------
    uint32_t reg(uint16_t r);
    void set_reg(uint16_t r, uint32_t v, const char* what);
    uint64_t waiting(unsigned mask);   ///< WAITm: TC bits the open round still waits for
    uint64_t tc(unsigned mask);        ///< TCm of this channel's process
    uint64_t bm(unsigned mask);        ///< BMm
    void set_addr(unsigned addr);

private:
    link::LinkClient& link_;
    unsigned pe_;
    std::chrono::nanoseconds timeout_;
    unsigned channels_ = 0;
    bool fpu_ = false;
    unsigned mask_ = 0;
    int addr_ = -1;  ///< ADDR as last written (-1: unknown)
    uint64_t calls_ = 0;
    bool started_ = false;
    unsigned last_len_ = 0;
    Handle start_on(unsigned mask, unsigned opcode, uint64_t operand);
    [[noreturn]] void refused(const std::string& what);
    /// A timed-out CALL: CANCEL it (a result that came meanwhile is returned),
    /// else TimeoutError naming the missing PEs and the lock holder.
    uint64_t timed_out(unsigned opcode, unsigned mask);
    static constexpr unsigned kCancelTries = 100;
    uint64_t pair(uint16_t lo);
};

/// RAII: LOCK on construction, UNLOCK on destruction.
class Lock {
public:
    explicit Lock(Channel& ch) : ch_(ch) { ch_.lock(); }
    ~Lock();
    Lock(const Lock&) = delete;
    Lock& operator=(const Lock&) = delete;

private:
    Channel& ch_;
};

/// Supervisor mode on one channel (MODE <- key) for the supervisor
/// operations; user mode again (MODE <- 0) on destruction.
class Supervisor {
public:
    explicit Supervisor(Channel& ch, uint32_t key = DEFAULT_KEY);
    ~Supervisor();
    Supervisor(const Supervisor&) = delete;
    Supervisor& operator=(const Supervisor&) = delete;

    /// PROC: this channel's process (PPN, PID).
    void set_process(unsigned ppn, unsigned pid);
    /// SETTC / SETBM for key `mask` of this channel's process; a PE bit >=
    /// channels() is refused (CopError RANGE).  Ends an open round of the key
    /// (its waiting members are refused ABORTED).
    void set_tc(unsigned mask, uint64_t pes);
    void set_bm(unsigned mask, uint64_t pes);
    /// Breaks a held lock (any channel's).
    void break_lock();
    /// HOLD: the controller serves nothing while set.
    void hold(bool on);

private:
    Channel& ch_;
};

/// Rounds of one operation by several PEs' channels at once from one thread
/// (their LinkClient drives every PE: a shared link such as sim:DIR/link or
/// a board's USB UART), each result checked against plain arithmetic over
/// the round's contributions (drawn from `seed`): the engine of `aggnet cop`
/// and the demo.  ops: barrier, sum, max, min, or, and, xor (64-bit), scan
/// (inclusive), bcast (root k mod n; the others receive), fetch-add (every
/// PE takes a ticket from Data RAM word 1: each round's tickets are the next
/// n numbers), exsum (the exact double sum of small integers; CopError
/// NOFPU without the FPU), fscan (SCANIF over quarters of small integers:
/// every running sum exact; NOFPU without the FPU), exscan (EXSCANIF over
/// small integers).  The channels' TC and broadcast mask must hold every one of
/// them.  A wrong result throws Error naming the round, PE, got and want.
struct Rounds {
    std::string op;
    unsigned pes = 0;
    std::vector<double> us;  ///< each round's time, first start to last result, in microseconds
    uint64_t calls = 0;      ///< COP CALLs made (one frame each way)
    uint64_t last = 0;       ///< the last round's result at the first channel (bcast: the value sent)
    double percentile(double q) const;  ///< 0.5: the median
};
const char* const kRoundOps[] = {"barrier", "sum", "max", "min", "or", "and", "xor", "scan", "bcast", "fetch-add", "exsum",
                                 "fscan", "exscan"};
Rounds run_rounds(const std::vector<Channel*>& chans, const std::string& op, unsigned count, uint64_t seed = 1);

/// The exact double sum against SUMF over shuffled terms (`aggnet cop DEVICE
/// orders`, the demo): one term per channel (large powers of two that cancel
/// in pairs, and small quarters, so the exact sum is the quarters' and is known),
/// assigned to the PEs in `shuffles` orders (the list's, reversed, then
/// shuffled from `seed`); each order runs one SUMF round and one EXSUMF round
/// (the channels' key 0 TC must hold every one of them). Throws Error unless
/// every PE gets the same bits in each round and EXSUMF is the exact sum every
/// time; SUMF's rounded sum depends on the order (it is a row's business).
struct OrderRow {
    std::vector<double> terms;  ///< by PE (the channels' order)
    uint64_t sumf = 0, exsumf = 0;
};
struct Orders {
    double exact = 0;
    std::vector<OrderRow> rows;
};
Orders exact_orders(const std::vector<Channel*>& chans, unsigned shuffles, uint64_t seed = 1);

/// Every PE in 0..n-1 (a TC or mask word).
constexpr uint64_t all_pes(unsigned n) { return n >= 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1; }

}  // namespace aggnet::cop
