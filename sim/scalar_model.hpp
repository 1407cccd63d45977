// scalar_model.hpp: the reference model of the scalar engine (rtl/scalar/,
// docs/scalar.md), written from seed 003 chapter 6 (scsend(), screcv() and
// the scalar communication buffer of the Inprdy routine) and from the
// register map (tools/scalargen.py -> aggnet/scalar_regs.hpp), not from the
// RTL.  Transaction level: one call per bus access, and settle() for what
// the engine does by itself between accesses (inserting held sends,
// scanning receives).
//
//   aggnet::sim::scalar::Model m(4, 64);
//   auto r = m.access(true, true, pe, R::SEND | dest, type << 32 | value, 6);
//   m.settle(rtl_states);   // which held sends the engine let in (see below)
#pragma once

#include <aggnet/scalar_regs.hpp>

#include <cstdint>
#include <deque>
#include <stdexcept>
#include <string>
#include <vector>

namespace aggnet::sim::scalar {

namespace R = aggnet::scalar_regs;

/// One buffered message: the seed's two words, "a word for the scalar data,
/// a halfword for the type of message, and a halfword for the source nodeid".
struct Msg {
    unsigned src = 0;
    uint16_t type = 0;
    uint32_t value = 0;
    bool operator==(const Msg& o) const { return src == o.src && type == o.type && value == o.value; }
};

/// What a receive asks for; any_src / any_type are the seed's -1.
struct Want {
    bool any_src = true, any_type = true;
    unsigned src = 0;
    uint16_t type = 0;
    bool matches(const Msg& m) const { return (any_src || m.src == src) && (any_type || m.type == type); }
};

/// screcv() (seed 003 chapter 6, steps 2-6): walk the buffer from the first
/// ("next") message; step 5/6 compare the source unless it is -1, steps 2/3
/// the type unless it is -1; the first message that passes both is copied
/// out, every other one stays.  Returns its index, or -1 ("indicate message
/// not found").
inline int screcv_find(const std::deque<Msg>& buf, const Want& w) {
    for (size_t i = 0; i < buf.size(); ++i)
        if (w.matches(buf[i])) return int(i);
    return -1;
}

inline uint64_t result(unsigned what, const Msg& m = {}) {
    return uint64_t(what) << R::RES_WHAT | uint64_t(m.src) << R::RES_SRC | uint64_t(m.type) << R::RES_TYPE |
           uint64_t(m.value) << R::RES_VALUE;
}
inline Msg result_msg(uint64_t r) {
    return Msg{unsigned(r >> R::RES_SRC & 0x3f), uint16_t(r >> R::RES_TYPE), uint32_t(r >> R::RES_VALUE)};
}
inline unsigned result_what(uint64_t r) { return unsigned(r >> R::RES_WHAT & 7); }

/// A bus response (docs/link.md: err 0 ok, 1 no such register, 2 refused, 3 pending).
struct Rsp {
    unsigned err = 0;
    uint64_t data = 0;  ///< rdata_hi:rdata
    unsigned len = 0;   ///< a finished CALL's result bytes
    bool operator==(const Rsp& o) const { return err == o.err && data == o.data && len == o.len; }
};
enum : unsigned { OK = 0, NO_REG = 1, REFUSED = 2, PENDING = 3 };

class Model {
public:
    Model(unsigned n, unsigned depth) : n_(n), depth_(depth), buf_(n), op_(n) {}

    unsigned n() const { return n_; }
    unsigned depth() const { return depth_; }
    const std::deque<Msg>& buffer(unsigned pe) const { return buf_.at(pe); }
    unsigned state(unsigned pe) const { return op_.at(pe).st; }
    unsigned cause(unsigned pe) const { return op_.at(pe).cause; }

    /// One bus access of PE pe to register reg (addr 11..0).
    Rsp access(bool we, bool call, unsigned pe, uint16_t reg, uint64_t wdata, unsigned len) {
        if (pe >= n_) return {NO_REG};
        Op& o = op_[pe];
        if (!call) {
            if (reg != R::SHAPE && reg != R::FILL && reg != R::CAUSE && reg != R::STATE) return {NO_REG};
            if (we) return {REFUSED};
            if (reg == R::SHAPE) return {OK, uint64_t(depth_) << R::SHAPE_DEPTH | n_ << R::SHAPE_N};
            if (reg == R::FILL) return {OK, buf_[pe].size()};
            if (reg == R::CAUSE) return {OK, o.cause};
            return {OK, o.st};
        }
        if (!we) {  // an ask
            Rsp r{OK, 0, 0};
            switch (o.st) {
            case R::ST_SEND:
            case R::ST_RECV: return {PENDING};
            case R::ST_SENT: break;
            case R::ST_MSG: r = {OK, result(R::WHAT_MESSAGE, o.msg), 8}; break;
            case R::ST_EMPTY: r = {OK, result(R::WHAT_NONE), 8}; break;
            default: o.cause = R::CAUSE_IDLE; return {REFUSED};
            }
            o.st = R::ST_IDLE;
            return r;
        }
        if (reg == R::CANCEL) {
            Rsp r{OK, result(R::WHAT_NONE), 8};
            if (o.st == R::ST_SEND || o.st == R::ST_RECV) r.data = result(R::WHAT_WITHDRAWN);
            if (o.st == R::ST_SENT) r.data = result(R::WHAT_SENT);
            if (o.st == R::ST_MSG) r.data = result(R::WHAT_MESSAGE, o.msg);
            o.st = R::ST_IDLE;
            o.dirty = false;
            o.cause = R::CAUSE_NONE;
            return r;
        }
        const bool send = (reg & 0xC00) == R::SEND, recv = (reg & 0xC00) == R::RECV;
        if (!send && !recv) return {NO_REG};
        if (reg & (send ? R::CA_SEND_RSVD : R::CA_RECV_RSVD)) return {NO_REG};
        const unsigned who = reg & 0x3f;
        const bool anys = recv && (reg >> R::CA_RECV_ANYSRC & 1), anyt = recv && (reg >> R::CA_RECV_ANYTYPE & 1);
        auto refuse = [&](unsigned c) {
            o.cause = c;
            return Rsp{REFUSED};
        };
        if (o.st != R::ST_IDLE) return refuse(R::CAUSE_BUSY);
        if (len != (send ? R::SEND_BYTES : R::RECV_BYTES)) return refuse(R::CAUSE_LEN);
        if (send && who >= n_) return refuse(R::CAUSE_DEST);
        if (recv && !anys && who >= n_) return refuse(R::CAUSE_SOURCE);
        o.cause = R::CAUSE_NONE;
        if (send) {
            o.st = R::ST_SEND;
            o.dest = who;
            o.msg = Msg{pe, uint16_t(wdata >> 32), uint32_t(wdata)};
        } else {
            o.st = R::ST_RECV;
            o.want = Want{anys, anyt, who, uint16_t(wdata)};
            o.block = reg >> R::CA_RECV_BLOCK & 1;
            o.dirty = true;
        }
        return {PENDING};
    }

    /// What the engine does between accesses, until it has nothing left:
    /// every receive whose buffer changed since its last scan is scanned
    /// (screcv_find), and held sends go in where there is room.  Which of
    /// several sends held for the same full buffer gets a freed entry is the
    /// engine's round-robin; `let_in(pe)` says whether the engine let PE
    /// pe's held send in (the test reads the engine's STATE).  Throws if the
    /// engine let in a send the model has no room for, or left one out that
    /// has room.
    template <class LetIn>
    void settle(LetIn let_in) {
        for (bool again = true; again;) {
            again = false;
            for (unsigned p = 0; p < n_; ++p) {
                Op& o = op_[p];
                if (o.st == R::ST_RECV && o.dirty) {
                    o.dirty = false;
                    const int k = screcv_find(buf_[p], o.want);
                    if (k >= 0) {
                        o.msg = buf_[p][size_t(k)];
                        buf_[p].erase(buf_[p].begin() + k);  // the others keep their order
                        o.st = R::ST_MSG;
                    } else if (!o.block) {
                        o.st = R::ST_EMPTY;
                    }
                    again = true;
                }
            }
            for (unsigned p = 0; p < n_; ++p) {
                Op& o = op_[p];
                if (o.st != R::ST_SEND || !let_in(p)) continue;
                if (buf_[o.dest].size() >= depth_)
                    throw std::runtime_error("scalar model: PE" + std::to_string(p) + "'s send let in to the full buffer of PE" +
                                             std::to_string(o.dest));
                insert(p);
                again = true;
            }
        }
        for (unsigned p = 0; p < n_; ++p)
            if (op_[p].st == R::ST_SEND && buf_[op_[p].dest].size() < depth_)
                throw std::runtime_error("scalar model: PE" + std::to_string(p) + "'s send is held but PE" +
                                         std::to_string(op_[p].dest) + "'s buffer has room");
    }
    /// settle() where no choice arises (every held send with room goes in).
    void settle() {
        settle([&](unsigned p) { return buf_[op_[p].dest].size() < depth_; });
    }

private:
    struct Op {
        unsigned st = R::ST_IDLE;
        unsigned cause = R::CAUSE_NONE;
        unsigned dest = 0;
        Msg msg{};     ///< SEND: the message; MSG: the one taken
        Want want{};
        bool block = false;
        bool dirty = false;
    };
    void insert(unsigned p) {
        Op& o = op_[p];
        buf_[o.dest].push_back(o.msg);
        if (op_[o.dest].st == R::ST_RECV) op_[o.dest].dirty = true;
        o.st = R::ST_SENT;
    }
    unsigned n_, depth_;
    std::vector<std::deque<Msg>> buf_;
    std::vector<Op> op_;
};

}  // namespace aggnet::sim::scalar
