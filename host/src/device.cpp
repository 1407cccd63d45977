// device.cpp: device strings and the sim: and ppdev: transports.
#include <aggnet/device.hpp>
#include <aggnet/papers_regs.hpp>
#include <aggnet/vhub_protocol.hpp>

#include <algorithm>
#include <map>
#include <thread>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <linux/parport.h>
#include <linux/ppdev.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace aggnet {

namespace {

const char* const kForms = "expected sim:DIR/peK, ppdev:/dev/parportN?pe=K[&n=N] or serial:/dev/ttyUSBn@BAUD";

std::string quoted(const std::string& s) { return "'" + s + "'"; }

bool parse_uint(const std::string& s, unsigned long long max, unsigned long long& out) {
    if (s.empty() || s.size() > 20) return false;
    unsigned long long v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return false;
        v = v * 10 + unsigned(c - '0');
        if (v > max) return false;
    }
    out = v;
    return true;
}

std::string hex(unsigned long long v) {
    char b[24];
    std::snprintf(b, sizeof b, "0x%llx", v);
    return b;
}

struct KeyRange {
    unsigned long long lo, hi;
    const char* what;
};

/// "k=v&k=v" after a device string's '?': every key known, none twice,
/// every value a decimal number in its range.
std::map<std::string, unsigned long long> parse_query(const std::string& spec, const std::string& query,
                                                      const std::map<std::string, KeyRange>& keys) {
    std::map<std::string, unsigned long long> out;
    if (query.empty()) return out;
    std::string known;
    for (const auto& k : keys) known += (known.empty() ? "" : ", ") + k.first + "=";
    size_t pos = 0;
    while (pos <= query.size()) {
        const auto amp = query.find('&', pos);
        const std::string kv = query.substr(pos, amp == std::string::npos ? std::string::npos : amp - pos);
        pos = amp == std::string::npos ? query.size() + 1 : amp + 1;
        const auto eq = kv.find('=');
        const std::string key = kv.substr(0, eq);
        const std::string val = eq == std::string::npos ? "" : kv.substr(eq + 1);
        const auto k = keys.find(key);
        if (k == keys.end())
            throw DeviceSyntaxError("device " + quoted(spec) + ": unknown option " + quoted(kv) + " (options: " + known + ")");
        if (out.count(key)) throw DeviceSyntaxError("device " + quoted(spec) + ": " + key + "= is given twice");
        unsigned long long v = 0;
        if (!parse_uint(val, k->second.hi, v) || v < k->second.lo)
            throw DeviceSyntaxError("device " + quoted(spec) + ": " + key + "=" + val + " is not " + k->second.what);
        out[key] = v;
    }
    return out;
}

}  // namespace

DeviceSpec parse_device(const std::string& spec) {
    const auto colon = spec.find(':');
    if (spec.empty()) throw DeviceSyntaxError(std::string("empty device string; ") + kForms);
    if (colon == std::string::npos)
        throw DeviceSyntaxError("device string " + quoted(spec) + " has no kind prefix; " + kForms);
    const std::string kind = spec.substr(0, colon), rest = spec.substr(colon + 1);
    DeviceSpec d;
    if (kind == "sim") {
        d.kind = DeviceSpec::Sim;
        if (rest.empty()) throw DeviceSyntaxError("device " + quoted(spec) + ": sim: needs a socket path, DIR/peK");
        const auto slash = rest.rfind('/');
        const std::string base = slash == std::string::npos ? rest : rest.substr(slash + 1);
        unsigned long long k = 0;
        if (base.size() < 3 || base.compare(0, 2, "pe") != 0 || !parse_uint(base.substr(2), 63, k))
            throw DeviceSyntaxError("device " + quoted(spec) + ": the socket name " + quoted(base) +
                              " is not peK (K = 0..63); aggnet-sim names PE K's port DIR/peK");
        d.path = rest;
        d.pe = unsigned(k);
        return d;
    }
    if (kind == "ppdev") {
        d.kind = DeviceSpec::Ppdev;
        const auto q = rest.find('?');
        d.path = rest.substr(0, q);
        if (d.path.empty() || d.path[0] != '/')
            throw DeviceSyntaxError("device " + quoted(spec) + ": ppdev: needs an absolute device path, e.g. ppdev:/dev/parport0?pe=0");
        const auto opts = parse_query(spec, q == std::string::npos ? "" : rest.substr(q + 1),
                                      {{"pe", {0, 63, "a PE number"}}, {"n", {2, 64, "a hub size (2..4)"}}});
        if (opts.count("n")) d.pes = unsigned(opts.at("n"));
        if (d.pes > 4)
            throw DeviceSyntaxError("device " + quoted(spec) + ": n=" + std::to_string(d.pes) +
                              ": a parallel port has 8-bit registers, enough for hubs of at most 4 PEs"
                              " (larger hubs: the virtual hub, or the serial link)");
        if (!opts.count("pe"))
            throw DeviceSyntaxError("device " + quoted(spec) + ": say which PE this port is cabled to, e.g. " + kind + ":" +
                              d.path + "?pe=0 (the pins do not tell)");
        d.pe = unsigned(opts.at("pe"));
        if (d.pe >= d.pes)
            throw DeviceSyntaxError("device " + quoted(spec) + ": pe=" + std::to_string(d.pe) + " but the hub has n=" +
                              std::to_string(d.pes) + " PEs (PE0..PE" + std::to_string(d.pes - 1) + ")");
        return d;
    }
    if (kind == "serial") {
        d.kind = DeviceSpec::Serial;
        const auto q = rest.find('?');
        const std::string main = rest.substr(0, q);
        const auto at = main.rfind('@');
        d.path = main.substr(0, at);
        if (d.path.empty() || d.path[0] != '/')
            throw DeviceSyntaxError("device " + quoted(spec) + ": serial: needs an absolute device path, e.g. serial:/dev/ttyUSB0@3000000");
        unsigned long long baud = 0;
        if (at == std::string::npos || !parse_uint(main.substr(at + 1), 100000000, baud) || baud == 0)
            throw DeviceSyntaxError("device " + quoted(spec) + ": serial: needs a baud rate after '@', e.g. serial:" + d.path +
                              "@3000000");
        d.baud = unsigned(baud);
        const auto opts = parse_query(spec, q == std::string::npos ? "" : rest.substr(q + 1), {{"pe", {0, 63, "a PE number"}}});
        d.pe_given = opts.count("pe") != 0;
        if (d.pe_given) d.pe = unsigned(opts.at("pe"));
        return d;
    }
    throw DeviceSyntaxError("device string " + quoted(spec) + ": unknown kind " + quoted(kind) + "; " + kForms);
}

std::unique_ptr<Transport> open_device(const std::string& spec, std::chrono::nanoseconds timeout) {
    const DeviceSpec d = parse_device(spec);
    switch (d.kind) {
    case DeviceSpec::Sim: {
        auto t = std::make_unique<SimTransport>(d.path, timeout);
        if (t->pe_index() != d.pe)
            throw DeviceError("device " + quoted(spec) + ": the hub says this socket is PE" +
                              std::to_string(t->pe_index()) + ", not PE" + std::to_string(d.pe));
        return t;
    }
    case DeviceSpec::Ppdev:
        return std::make_unique<PpdevTransport>(d.path, d.pe, d.pes);
    case DeviceSpec::Serial:
        throw DeviceError("device " + quoted(spec) + ": a serial: device is the link, not the PC port's three "
                          "registers; open it with open_papers_port() (aggnet/papers_device.hpp)");
    }
    throw DeviceError("device " + quoted(spec) + ": unhandled kind");
}

// ---- SimTransport -------------------------------------------------------------

namespace {

using std::chrono::nanoseconds;

long long ms_of(nanoseconds t) { return (long long)std::chrono::duration_cast<std::chrono::milliseconds>(t).count(); }

/// poll() one fd for `events` until the deadline (steady clock); false on timeout.
bool poll_until(int fd, short events, nanoseconds deadline, nanoseconds now_ns) {
    for (;;) {
        const nanoseconds left = deadline - now_ns;
        if (left <= nanoseconds(0)) return false;
        // Round up so that we never wake just before the deadline and spin.
        const long long msl = (left.count() + 999999) / 1000000;
        pollfd p{fd, events, 0};
        const int r = ::poll(&p, 1, int(std::min<long long>(msl, 1000000000)));
        if (r > 0) return true;  // readable / writable, or an error to be read
        if (r < 0 && errno != EINTR) return true;  // let the syscall report it
        now_ns = std::chrono::duration_cast<nanoseconds>(std::chrono::steady_clock::now().time_since_epoch());
    }
}

}  // namespace

SimTransport::SimTransport(const std::string& path, std::chrono::nanoseconds timeout) : path_(path) {
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    if (path.size() >= sizeof(a.sun_path))
        throw DeviceError("sim:" + path + ": socket path longer than " + std::to_string(sizeof(a.sun_path) - 1) + " bytes");
    std::memcpy(a.sun_path, path.c_str(), path.size() + 1);
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd_ < 0) throw DeviceError("sim:" + path + ": socket: " + std::strerror(errno));
    const Deadline d = in(timeout);
    // Non-blocking: a Unix socket whose listen backlog is full answers EAGAIN
    // (the hub is not accepting); retry until the deadline, never block.
    int rc;
    while ((rc = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a)) != 0 &&
           (errno == EAGAIN || errno == EINTR) && now() < d.at)
        ::usleep(1000);
    if (rc != 0) {
        const int e = errno;
        ::close(fd_);
        fd_ = -1;
        std::string hint;
        if (e == ENOENT) hint = " (is aggnet-sim running? it prints its socket directory)";
        if (e == ECONNREFUSED) hint = " (nobody listens: the aggnet-sim that made it has exited?)";
        if (e == EAGAIN) hint = " (for " + std::to_string(ms_of(now() - (d.at - timeout))) +
                                " ms: the hub is not accepting connections; is it stopped or out of file descriptors?)";
        throw DeviceError("sim:" + path + ": cannot connect: " + std::strerror(e) + hint);
    }
    Answer h = call(vhub::HELLO, 0, d);
    if (!h.ok) {
        close();
        throw DeviceError("sim:" + path + ": " + h.text);
    }
    n_ = unsigned(uint64_t(h.value));
    pe_ = unsigned(uint64_t(h.value >> 64));
    k_ = h.aux;
    hello_ = true;
}

SimTransport::~SimTransport() { close(); }

void SimTransport::close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    if (closed_why_.empty()) closed_why_ = "closed by the program";
}

std::string SimTransport::where() const {
    return "sim:" + path_ + (hello_ ? " (PE" + std::to_string(pe_) + ")" : "");
}

void SimTransport::fail(const std::string& what) {
    // The byte stream is no longer in step with the hub: close it, so that a
    // late reply can never be taken for the answer to a later request.
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    closed_why_ = what;
    throw DeviceError(where() + ": " + what);
}

std::string SimTransport::send_bytes(const void* req, size_t len, uint16_t op, Deadline d) {
    if (fd_ < 0) throw DeviceError(where() + ": connection closed (" + closed_why_ + ")");
    const auto* p = static_cast<const uint8_t*>(req);
    const nanoseconds started = now();
    for (size_t done = 0; done < len;) {
        const ssize_t w = ::send(fd_, p + done, len - done, MSG_NOSIGNAL);
        if (w > 0) {
            done += size_t(w);
            continue;
        }
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (!poll_until(fd_, POLLOUT, d.at, now()))
                fail("the hub took no request bytes for " + std::to_string(ms_of(now() - started)) +
                     " ms while sending " + vhub::op_name(op) + "; is aggnet-sim stopped or overloaded? (connection closed)");
            continue;
        }
        // The hub may have answered and closed already (a refused port):
        // the reply, if any, says more than the errno.
        return std::strerror(errno);
    }
    return {};
}

SimTransport::Answer SimTransport::read_reply(uint16_t op, uint32_t seq, Deadline d, const std::string& send_error,
                                              const char* during) {
    const std::string opn = during ? std::string(during) + " (the acknowledgement of an earlier " + vhub::op_name(op) + ")"
                                   : std::string(vhub::op_name(op));
    const nanoseconds started = now();
    auto recv_all = [&](void* buf, size_t want) -> bool {
        auto* c = static_cast<uint8_t*>(buf);
        for (size_t done = 0; done < want;) {
            const ssize_t r = ::recv(fd_, c + done, want - done, 0);
            if (r > 0) {
                done += size_t(r);
                continue;
            }
            if (r < 0 && errno == EINTR) continue;
            if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                if (!poll_until(fd_, POLLIN, d.at, now()))
                    fail("no reply from the hub within " + std::to_string(ms_of(now() - started)) + " ms to " + opn +
                         "; is aggnet-sim stopped (SIGSTOP) or overloaded? (connection closed)");
                continue;
            }
            if (r == 0) {
                if (!send_error.empty())
                    fail("the hub closed the connection before " + opn + " was sent (" + send_error + ")");
                if (op == 0 && done == 0) return false;  // raw_bytes: the hub closed instead of replying
                fail("the hub closed the connection during " + opn);
            }
            if (errno == ECONNRESET || errno == EPIPE)
                fail("the hub reset the connection during " + opn +
                     " (it drops a client that stops reading its replies or sends a malformed request; its log says"
                     " which)");
            fail("hub connection lost during " + opn + ": " + std::strerror(errno));
        }
        return true;
    };
    vhub::Reply r;
    if (!recv_all(&r, sizeof r)) return {false, 0, 0, 0, "closed"};
    // seq 0: an error the hub sends before reading any request (a refused port).
    const bool unsolicited = r.seq == 0 && r.status == vhub::kErr;
    if (r.text_len > vhub::kMaxText || r.reserved != 0 || (op != 0 && r.seq != seq && !unsolicited))
        fail("garbled reply to " + opn + " (seq " + std::to_string(r.seq) + ", expected " + std::to_string(seq) +
             ", text length " + std::to_string(r.text_len) + ")");
    Answer a{r.status == vhub::kOk, (reg_t(r.hi) << 64) | r.lo, r.cycle, r.aux, {}};
    a.text.resize(r.text_len);
    if (r.text_len) recv_all(&a.text[0], r.text_len);
    return a;
}

void SimTransport::collect_posted(Deadline d, uint16_t during) {
    while (!posted_.empty()) {
        const Posted w = posted_.front();
        posted_.pop_front();
        const Answer a = read_reply(w.op, w.seq, d, {}, vhub::op_name(during));
        if (!a.ok) throw DeviceError(where() + ": " + vhub::op_name(w.op) + " (posted earlier): " + a.text);
    }
}

SimTransport::Answer SimTransport::exchange(const void* req, size_t len, uint16_t op, uint32_t seq, Deadline d) {
    const std::string send_error = send_bytes(req, len, op, d);
    collect_posted(d, op);
    return read_reply(op, seq, d, send_error);
}

SimTransport::Answer SimTransport::raw(uint16_t magic, uint16_t op, reg_t value, Deadline d) {
    collect_posted(d, op);
    vhub::Request q;
    q.magic = magic;
    q.op = op;
    q.seq = ++seq_;
    q.lo = uint64_t(value);
    q.hi = uint64_t(value >> 64);
    return exchange(&q, sizeof q, op, q.seq, d);
}

SimTransport::Answer SimTransport::raw_bytes(const void* bytes, size_t len, Deadline d) {
    collect_posted(d, 0);
    return exchange(bytes, len, 0, 0, d);
}

SimTransport::Answer SimTransport::call(uint16_t op, reg_t value, Deadline d, reg_t watch, uint32_t wait_ms) {
    vhub::Request q;
    q.op = op;
    q.seq = ++seq_;
    q.wait_ms = wait_ms;
    q.lo = uint64_t(value);
    q.hi = uint64_t(value >> 64);
    q.mlo = uint64_t(watch);
    q.mhi = uint64_t(watch >> 64);
    if ((op == vhub::WDATA || op == vhub::WCTRL) && posted_.size() < kMaxPosted) {
        // Posted: sent now, acknowledged with the next request's round trip.
        const std::string send_error = send_bytes(&q, sizeof q, op, d);
        if (!send_error.empty()) read_reply(op, q.seq, d, send_error);  // reports how the hub went away
        posted_.push_back({q.seq, op});
        return {true, 0, 0, 0, {}};
    }
    Answer a = exchange(&q, sizeof q, op, q.seq, d);
    if (!a.ok && op != vhub::HELLO) throw DeviceError(where() + ": " + vhub::op_name(op) + ": " + a.text);
    return a;
}

void SimTransport::do_write_data(reg_t value, Deadline d) { call(vhub::WDATA, value, d); }
void SimTransport::do_write_control(uint8_t value, Deadline d) { call(vhub::WCTRL, value, d); }
reg_t SimTransport::do_read_status(Deadline d) { return call(vhub::RSTATUS, 0, d).value; }

reg_t SimTransport::do_wait_status(reg_t watch, reg_t last, Deadline d) {
    // The hub parks the WAIT and answers when a watched bit changes, or after
    // wait_ms with the status then; leave a little of our time for the reply
    // to travel, so that a healthy hub always answers before the deadline.
    const nanoseconds left = d.at - now();
    const nanoseconds slack = std::min<nanoseconds>(left / 4, std::chrono::milliseconds(20));
    const long long wait_ms = left <= nanoseconds(0) ? 0 : ms_of(left - slack);
    // The reply may come a little after the hub's wait ran out (a loaded
    // machine): that only says nothing changed, so allow it kWaitGrace before
    // calling the hub stopped.
    const Deadline reply_by{d.at + kWaitGrace};
    const Answer a = call(vhub::WAIT, last, reply_by, watch, uint32_t(std::min<long long>(wait_ms, vhub::kMaxWaitMs)));
    // The hub's wait ran out (aux = 1) a little before our deadline, by the
    // slack: sit out the rest here rather than asking again and again.
    if (a.aux == 1 && now() < d.at) std::this_thread::sleep_for(d.at - now());
    return a.value;
}

uint64_t SimTransport::hub_cycle() { return call(vhub::CYCLE, 0, in(kDefaultIo)).cycle; }
uint64_t SimTransport::hub_ops() { return uint64_t(call(vhub::CYCLE, 0, in(kDefaultIo)).value); }
void SimTransport::quit() { call(vhub::QUIT, 0, in(kDefaultIo)); }

std::string SimTransport::describe() const {
    return "sim:" + path_ + " (virtual hub, PE" + std::to_string(pe_) + " of " + std::to_string(n_) + ", " +
           std::to_string(k_) + " hub cycles per register access)";
}

// ---- PpdevTransport -----------------------------------------------------------

namespace {
class SystemIoctl final : public IoctlLayer {
public:
    int open(const char* path, int flags) override { return ::open(path, flags); }
    int ioctl(int fd, unsigned long request, void* arg) override { return ::ioctl(fd, request, arg); }
    int close(int fd) override { return ::close(fd); }
};
}  // namespace

std::shared_ptr<IoctlLayer> system_ioctl_layer() {
    static auto sys = std::make_shared<SystemIoctl>();
    return sys;
}

PpdevTransport::PpdevTransport(const std::string& path, unsigned pe, unsigned pes, std::shared_ptr<IoctlLayer> io)
    : path_(path), pe_(pe), n_(pes), io_(std::move(io)) {
    if (n_ < 2 || n_ > 4)
        throw DeviceError("ppdev:" + path + ": a parallel port carries hubs of 2..4 PEs, not " + std::to_string(n_));
    if (pe_ >= n_)
        throw DeviceError("ppdev:" + path + ": PE" + std::to_string(pe_) + " of a " + std::to_string(n_) + "-PE hub");
    fd_ = io_->open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd_ < 0) {
        const int e = errno;
        std::string hint;
        if (e == ENOENT) hint = " (is the ppdev module loaded? modprobe ppdev)";
        if (e == EACCES) hint = " (no permission: are you in the group owning it, usually lp?)";
        throw DeviceError("ppdev:" + path + ": cannot open: " + std::strerror(e) + hint);
    }
    if (io_->ioctl(fd_, PPCLAIM, nullptr) != 0) {
        const int e = errno;
        io_->close(fd_);
        fd_ = -1;
        throw DeviceError("ppdev:" + path + ": cannot claim the port (PPCLAIM): " + std::strerror(e) +
                          (e == ENOTTY ? " (not a ppdev device?)" : ""));
    }
}

PpdevTransport::~PpdevTransport() {
    if (fd_ >= 0) {
        io_->ioctl(fd_, PPRELEASE, nullptr);
        io_->close(fd_);
    }
}

void PpdevTransport::io(unsigned long request, uint8_t* byte, const char* what) {
    if (io_->ioctl(fd_, request, byte) != 0)
        throw DeviceError("ppdev:" + path_ + ": " + what + " failed: " + std::strerror(errno));
}

void PpdevTransport::do_write_data(reg_t value, Deadline) {
    if (value > 0xff)
        throw DeviceError("ppdev:" + path_ + ": data value " + hex((unsigned long long)value) +
                          " does not fit the 8-bit data register");
    uint8_t b = uint8_t(value);
    io(PPWDATA, &b, "PPWDATA");
}

void PpdevTransport::do_write_control(uint8_t value, Deadline) { io(PPWCONTROL, &value, "PPWCONTROL"); }

reg_t PpdevTransport::do_read_status(Deadline) {
    uint8_t b = 0;
    io(PPRSTATUS, &b, "PPRSTATUS");
    return b;
}

std::string PpdevTransport::describe() const {
    return "ppdev:" + path_ + " (parallel port, PE" + std::to_string(pe_) + " of " + std::to_string(n_) + ")";
}

}  // namespace aggnet
