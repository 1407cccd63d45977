// link_client.cpp: the host end of the link (docs/link.md).
#include <aggnet/link_client.hpp>

#include <cstdio>
#include <stdexcept>

namespace aggnet::link {

namespace D = link_defs;
using std::chrono::nanoseconds;

namespace {
std::string ms(nanoseconds t) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g ms", double(t.count()) / 1e6);
    return buf;
}
uint32_t size_mask(unsigned size) { return size >= 4 ? 0xffffffffu : (uint32_t(1) << (8 * size)) - 1; }
void check_size(unsigned size) {
    if (size < 1 || size > D::MAX_VALUE_BYTES) throw std::invalid_argument("link: register size must be 1..4 bytes");
}
}  // namespace

LinkClient::LinkClient(LinkPipe& pipe, std::string device, LinkConfig cfg)
    : pipe_(pipe), device_(std::move(device)), cfg_(cfg) {
    if (cfg_.max_attempts < 1) cfg_.max_attempts = 1;
}

std::string LinkClient::where(unsigned pe, const Frame& f) const {
    char buf[64];
    const char* name = D::op_name(f.op);
    std::snprintf(buf, sizeof buf, ": PE%u %s 0x%04x", pe, name ? name : "?", f.addr);
    return device_ + buf;
}

// ---- starting commands ---------------------------------------------------

void LinkClient::begin(unsigned pe, const Frame& f, bool has_deadline, nanoseconds deadline) {
    if (pe > D::MAX_PE) throw std::invalid_argument("link: PE id must be 0..63");
    Pe& p = pes_[pe];
    if (p.active) throw std::logic_error("link: PE" + std::to_string(pe) + " already has a command in progress");
    if (info_.port_pes && (pe < info_.first_pe || pe >= info_.first_pe + info_.port_pes))
        throw DeviceError(device_ + ": PE" + std::to_string(pe) + " is not served by this link port (PEs " +
                          std::to_string(info_.first_pe) + ".." +
                          std::to_string(info_.first_pe + info_.port_pes - 1) + ")");
    p.active = true;
    p.finished = false;
    p.accepted = false;
    p.stale_answers = 0;
    p.total = 0;
    p.req = f;
    p.req.pe = uint8_t(pe);
    p.has_deadline = has_deadline;
    p.wait_deadline = deadline;
    p.result = LinkResult{};
    p.result.op = f.op;
    p.result.addr = f.addr;
    if (!p.synced && f.op != D::OP_HELLO) {
        Frame h;
        h.op = D::OP_HELLO;
        h.addr = f.addr;  // echoed; lets a trace show which command the HELLO precedes
        p.in_hello = true;
        launch(pe, h);
    } else {
        p.in_hello = false;
        launch(pe, p.req);
    }
}

void LinkClient::launch(unsigned pe, const Frame& f) {
    Pe& p = pes_[pe];
    p.seq = p.next_seq++;
    p.inflight = f;
    p.inflight.pe = uint8_t(pe);
    p.inflight.seq = p.seq;
    p.bytes.clear();
    encode(p.inflight, p.bytes);
    alive(p);
    send_inflight(p, false);
}

void LinkClient::alive(Pe& p) {
    p.attempts = 0;
    p.interval = cfg_.resend_timeout;
}

void LinkClient::send_inflight(Pe& p, bool resend) {
    pipe_.send(p.bytes.data(), p.bytes.size());
    const nanoseconds now = pipe_.now();
    if (p.attempts == 0) p.first_sent = now;
    ++p.attempts;
    ++p.total;
    ++stats_.frames_sent;
    if (resend) {
        ++stats_.resends;
        if (p.interval < cfg_.resend_timeout_max) p.interval = std::min(p.interval * 2, cfg_.resend_timeout_max);
    }
    p.resend_at = now + p.interval;
}

void LinkClient::start_hello(unsigned pe) {
    Frame f;
    f.op = D::OP_HELLO;
    begin(pe, f, false, {});
}

void LinkClient::start_read(unsigned pe, uint16_t addr, unsigned size) {
    check_size(size);
    Frame f;
    f.op = D::OP_READ;
    f.addr = addr;
    f.append(size, 1);
    begin(pe, f, false, {});
}

void LinkClient::start_write(unsigned pe, uint16_t addr, uint32_t value, unsigned size) {
    check_size(size);
    if (value & ~size_mask(size)) throw std::invalid_argument("link: WRITE value does not fit in its size");
    Frame f;
    f.op = D::OP_WRITE;
    f.addr = addr;
    f.append(value, size);
    begin(pe, f, false, {});
}

void LinkClient::start_wait(unsigned pe, uint16_t addr, uint32_t mask, uint32_t value, unsigned size,
                            nanoseconds deadline) {
    check_size(size);
    if ((mask | value) & ~size_mask(size)) throw std::invalid_argument("link: WAIT mask/value do not fit in its size");
    if (value & ~mask) throw std::invalid_argument("link: WAIT value has bits outside the mask (it could never hold)");
    Frame f;
    f.op = D::OP_WAIT;
    f.addr = addr;
    f.append(mask, size);
    f.append(value, size);
    begin(pe, f, true, deadline);
}

void LinkClient::start_call(unsigned pe, uint16_t addr, uint64_t operands, unsigned len, nanoseconds deadline) {
    if (len > D::MAX_PAYLOAD) throw std::invalid_argument("link: CALL operands are 0..8 bytes");
    if (len < 8 && (operands >> (8 * len)) != 0)
        throw std::invalid_argument("link: CALL operands do not fit in " + std::to_string(len) + " bytes");
    Frame f;
    f.op = D::OP_CALL;
    f.addr = addr;
    if (len > 4) {
        f.append(uint32_t(operands >> 32), len - 4);
        f.append(uint32_t(operands), 4);
    } else if (len) {
        f.append(uint32_t(operands), len);
    }
    begin(pe, f, true, deadline);
}

// ---- receiving -------------------------------------------------------------

void LinkClient::feed(const uint8_t* data, size_t n) {
    if (n) last_byte_ = pipe_.now();
    for (size_t i = 0; i < n; ++i)
        if (dec_.push(data[i])) on_frame(dec_.frame());
}

void LinkClient::finish(Pe& p, LinkResult r) {
    // A command that may never have reached the hub used up a seq the hub
    // has not seen; the hub takes only last seq + 1 as new (docs/link.md),
    // so the PE says HELLO again before its next command.
    if (r.kind == LinkResult::link_error || (r.kind == LinkResult::timeout && !p.accepted)) p.synced = false;
    r.op = p.req.op;
    r.addr = p.req.addr;
    r.attempts = p.total;
    p.result = std::move(r);
    p.finished = true;
}

void LinkClient::on_frame(const Frame& f) {
    if (f.pe > D::MAX_PE) {
        ++stats_.stale;
        return;
    }
    const unsigned pe = f.pe;
    Pe& p = pes_[pe];
    if (!p.active || p.finished || f.seq != p.seq || f.addr != p.inflight.addr) {
        ++stats_.stale;
        return;
    }
    const uint8_t req = p.inflight.op;
    LinkResult r;
    if (f.op == D::OP_ERR && f.len == 1 && f.payload[0] == D::ERR_STALE) {
        // The hub's sequence state for this PE is not ours (docs/link.md,
        // "Exactly once", rules 2 and 4); the frame was not applied.
        ++stats_.replies;
        ++stats_.resyncs;
        if (++p.stale_answers > cfg_.max_stale) {
            r.kind = LinkResult::link_error;
            r.message = where(pe, p.req) + ": the hub answered ERR STALE " + std::to_string(p.stale_answers) +
                        " times, HELLO again each time (its sequence state for PE" + std::to_string(pe) +
                        " keeps changing: is another program using this PE?)";
            p.in_hello = false;
            finish(p, r);
            return;
        }
        Frame h;
        h.op = D::OP_HELLO;
        h.addr = p.req.addr;
        // A stale HELLO: ours fell 1..HELLO_STALE behind the hub's last seq
        // (a restarted host); HELLO_SKIP further on is outside that window.
        if (req == D::OP_HELLO) p.next_seq = uint8_t(p.seq + D::HELLO_SKIP);
        p.synced = false;
        if (p.req.op == D::OP_HELLO) {
            p.in_hello = false;
            launch(pe, p.req);
        } else {
            p.in_hello = true;
            launch(pe, h);
        }
        return;
    }
    if (f.op == D::OP_ERR && f.len == 1) {
        ++stats_.replies;
        const uint8_t code = f.payload[0];
        const char* name = D::err_name(code);
        r.kind = LinkResult::hub_error;
        r.err = code;
        r.message = where(pe, p.inflight) + ": the hub answered ERR " + (name ? name : std::to_string(code));
        p.in_hello = false;
        finish(p, r);
        return;
    }
    if (req == D::OP_HELLO && f.op == D::OP_HELLO_R && f.len == D::HELLO_LEN) {
        ++stats_.replies;
        HelloInfo h;
        h.version = f.payload[D::HELLO_VERSION];
        h.hub_pes = f.payload[D::HELLO_HUB_PES];
        h.first_pe = f.payload[D::HELLO_FIRST_PE];
        h.port_pes = f.payload[D::HELLO_PORT_PES];
        h.engines = uint16_t(f.value(D::HELLO_ENGINES, 2));
        h.clk_hz = uint64_t(f.value(D::HELLO_CLK, 2)) * D::HELLO_CLK_UNIT_HZ;
        if (h.version != D::VERSION) {
            r.kind = LinkResult::bad_version;
            r.message = device_ + ": the hub speaks link protocol version " + std::to_string(h.version) +
                        ", this libaggnet speaks " + std::to_string(D::VERSION) + "; rebuild one of them";
            p.in_hello = false;
            finish(p, r);
            return;
        }
        info_ = h;
        p.synced = true;
        if (p.in_hello) {
            p.in_hello = false;
            launch(pe, p.req);
        } else {
            r.hello = h;
            finish(p, r);
        }
        return;
    }
    if (req == D::OP_READ && f.op == D::OP_DATA && f.len == p.inflight.payload[0]) {
        ++stats_.replies;
        r.value = f.value(0, f.len);
        finish(p, r);
        return;
    }
    if (req == D::OP_WRITE && f.op == D::OP_ACK && f.len == 0) {
        ++stats_.replies;
        finish(p, r);
        return;
    }
    if ((req == D::OP_WAIT || req == D::OP_CALL) && f.op == D::OP_ACK && f.len == 0) {
        // accepted and pending: the link is alive; keep-alives go on
        ++stats_.replies;
        p.accepted = true;
        alive(p);
        p.resend_at = pipe_.now() + p.interval;
        return;
    }
    if (req == D::OP_WAIT && f.op == D::OP_DATA && f.len * 2u == p.inflight.len) {
        ++stats_.replies;
        r.value = f.value(0, f.len);
        finish(p, r);
        return;
    }
    if (req == D::OP_CALL && f.op == D::OP_RESULT) {
        ++stats_.replies;
        uint64_t v = 0;
        for (unsigned i = 0; i < f.len; ++i) v = v << 8 | f.payload[i];
        r.result = v;
        r.result_len = f.len;
        finish(p, r);
        return;
    }
    ++stats_.stale;  // a reply that does not answer the outstanding op
}

// ---- time ------------------------------------------------------------------

nanoseconds LinkClient::poll() {
    const nanoseconds now = pipe_.now();
    if (dec_.in_frame() && now - last_byte_ >= cfg_.idle_timeout) dec_.timeout();
    nanoseconds next = now + cfg_.resend_timeout;
    for (unsigned pe = 0; pe < pes_.size(); ++pe) {
        Pe& p = pes_[pe];
        if (!p.active || p.finished) continue;
        if (p.has_deadline && now >= p.wait_deadline) {
            LinkResult r;
            r.kind = LinkResult::timeout;
            if (p.req.op == D::OP_CALL) {
                r.message = where(pe, p.req) + ": the engine did not finish the CALL within the deadline" +
                            (p.accepted ? "" : " (no frame came back from the hub for it)");
            } else {
                const unsigned s = p.req.len / 2;
                char buf[96];
                std::snprintf(buf, sizeof buf, ": (reg & 0x%x) == 0x%x did not hold within the deadline",
                              p.req.value(0, s), p.req.value(s, s));
                r.message = where(pe, p.req) + buf + (p.accepted ? "" : " (the hub never acknowledged the WAIT)");
            }
            finish(p, r);
            continue;
        }
        if (now >= p.resend_at) {
            if (p.attempts >= cfg_.max_attempts) {
                LinkResult r;
                r.kind = LinkResult::link_error;
                // Name the caller's command; its automatic HELLO may be what failed.
                const bool hello_first = p.in_hello && p.req.op != D::OP_HELLO;
                r.message = where(pe, p.req) + ": no reply" + (hello_first ? " to the HELLO before it" : "") +
                            " after " + std::to_string(p.attempts) + " frames in " + ms(now - p.first_sent) +
                            (cfg_.resend_timeout_max > cfg_.resend_timeout
                                 ? " (resends " + ms(cfg_.resend_timeout) + " backing off to " +
                                       ms(cfg_.resend_timeout_max) + ")"
                                 : " (" + ms(cfg_.resend_timeout) + " apart)") +
                            (dec_.stats().legacy
                                 ? " (" + std::to_string(dec_.stats().legacy) +
                                       " frames came in the CRC-16 format of link versions 1-3: the hub runs an "
                                       "older bitstream or build than this libaggnet speaks (version " +
                                       std::to_string(D::VERSION) + "); rebuild and load it)"
                             : p.inflight.op == D::OP_HELLO && !p.synced
                                 ? " (link down, or PE not served by this link port?)"
                                 : " (link down?)");
                finish(p, r);
                continue;
            }
            send_inflight(p, true);
        }
        if (p.resend_at < next) next = p.resend_at;
        if (p.has_deadline && p.wait_deadline < next) next = p.wait_deadline;
    }
    return next;
}

LinkResult LinkClient::take(unsigned pe) {
    Pe& p = pes_.at(pe);
    if (!p.finished) throw std::logic_error("link: PE" + std::to_string(pe) + " has no finished command");
    p.active = false;
    p.finished = false;
    return p.result;
}

// ---- blocking calls ----------------------------------------------------------

LinkResult LinkClient::run(unsigned pe) {
    uint8_t buf[512];
    while (!done(pe)) {
        const nanoseconds until = poll();
        if (done(pe)) break;
        const size_t n = pipe_.recv(buf, sizeof buf, until);
        if (n) feed(buf, n);
    }
    LinkResult r = take(pe);
    switch (r.kind) {
    case LinkResult::ok: break;
    case LinkResult::hub_error: throw RegisterError(r.message, pe, r.op, r.addr, r.err);
    case LinkResult::link_error: throw LinkError(r.message, pe, r.op, r.addr, r.attempts);
    case LinkResult::timeout: throw TimeoutError(r.message, 0);
    case LinkResult::bad_version: throw DeviceError(r.message);
    }
    return r;
}

HelloInfo LinkClient::hello(unsigned pe) {
    start_hello(pe);
    return run(pe).hello;
}

uint32_t LinkClient::read(unsigned pe, uint16_t addr, unsigned size) {
    start_read(pe, addr, size);
    return run(pe).value;
}

void LinkClient::write(unsigned pe, uint16_t addr, uint32_t value, unsigned size) {
    start_write(pe, addr, value, size);
    run(pe);
}

uint32_t LinkClient::wait(unsigned pe, uint16_t addr, uint32_t mask, uint32_t value, unsigned size,
                          nanoseconds timeout) {
    start_wait(pe, addr, mask, value, size, pipe_.now() + timeout);
    return run(pe).value;
}

LinkClient::CallResult LinkClient::call(unsigned pe, uint16_t addr, uint64_t operands, unsigned len,
                                        nanoseconds timeout) {
    start_call(pe, addr, operands, len, pipe_.now() + timeout);
    return finish_call(pe);
}

LinkClient::CallResult LinkClient::finish_call(unsigned pe) {
    const LinkResult r = run(pe);
    return {r.result, r.result_len};
}

}  // namespace aggnet::link
