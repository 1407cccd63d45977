// device.cpp: device strings and the sim: and ppdev: transports.
#include <aggnet/device.hpp>
#include <aggnet/papers_regs.hpp>
#include <aggnet/vhub_protocol.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <linux/parport.h>
#include <linux/ppdev.h>
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

}  // namespace

DeviceSpec parse_device(const std::string& spec) {
    const auto colon = spec.find(':');
    if (spec.empty()) throw DeviceError(std::string("empty device string; ") + kForms);
    if (colon == std::string::npos)
        throw DeviceError("device string " + quoted(spec) + " has no kind prefix; " + kForms);
    const std::string kind = spec.substr(0, colon), rest = spec.substr(colon + 1);
    DeviceSpec d;
    if (kind == "sim") {
        d.kind = DeviceSpec::Sim;
        if (rest.empty()) throw DeviceError("device " + quoted(spec) + ": sim: needs a socket path, DIR/peK");
        const auto slash = rest.rfind('/');
        const std::string base = slash == std::string::npos ? rest : rest.substr(slash + 1);
        unsigned long long k = 0;
        if (base.size() < 3 || base.compare(0, 2, "pe") != 0 || !parse_uint(base.substr(2), 63, k))
            throw DeviceError("device " + quoted(spec) + ": the socket name " + quoted(base) +
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
            throw DeviceError("device " + quoted(spec) + ": ppdev: needs an absolute device path, e.g. ppdev:/dev/parport0?pe=0");
        bool have_pe = false;
        if (q != std::string::npos) {
            std::string query = rest.substr(q + 1);
            size_t pos = 0;
            while (pos <= query.size()) {
                const auto amp = query.find('&', pos);
                const std::string kv = query.substr(pos, amp == std::string::npos ? std::string::npos : amp - pos);
                pos = amp == std::string::npos ? query.size() + 1 : amp + 1;
                const auto eq = kv.find('=');
                const std::string key = kv.substr(0, eq);
                const std::string val = eq == std::string::npos ? "" : kv.substr(eq + 1);
                unsigned long long v = 0;
                if (key == "pe") {
                    if (!parse_uint(val, 63, v))
                        throw DeviceError("device " + quoted(spec) + ": pe=" + val + " is not a PE number");
                    d.pe = unsigned(v);
                    have_pe = true;
                } else if (key == "n") {
                    if (!parse_uint(val, 64, v) || v < 2)
                        throw DeviceError("device " + quoted(spec) + ": n=" + val + " is not a hub size (2..4)");
                    d.pes = unsigned(v);
                } else {
                    throw DeviceError("device " + quoted(spec) + ": unknown option " + quoted(kv) +
                                      " (ppdev options: pe=K, n=N)");
                }
            }
        }
        if (d.pes > 4)
            throw DeviceError("device " + quoted(spec) + ": n=" + std::to_string(d.pes) +
                              ": a parallel port has 8-bit registers, enough for hubs of at most 4 PEs"
                              " (larger hubs: the virtual hub, or the serial link)");
        if (!have_pe)
            throw DeviceError("device " + quoted(spec) + ": say which PE this port is cabled to, e.g. " + kind + ":" +
                              d.path + "?pe=0 (the pins do not tell)");
        if (d.pe >= d.pes)
            throw DeviceError("device " + quoted(spec) + ": pe=" + std::to_string(d.pe) + " but the hub has n=" +
                              std::to_string(d.pes) + " PEs (PE0..PE" + std::to_string(d.pes - 1) + ")");
        return d;
    }
    if (kind == "serial") {
        d.kind = DeviceSpec::Serial;
        const auto at = rest.rfind('@');
        d.path = rest.substr(0, at);
        if (d.path.empty() || d.path[0] != '/')
            throw DeviceError("device " + quoted(spec) + ": serial: needs an absolute device path, e.g. serial:/dev/ttyUSB0@3000000");
        unsigned long long baud = 0;
        if (at == std::string::npos || !parse_uint(rest.substr(at + 1), 100000000, baud) || baud == 0)
            throw DeviceError("device " + quoted(spec) + ": serial: needs a baud rate after '@', e.g. serial:" + d.path +
                              "@3000000");
        d.baud = unsigned(baud);
        return d;
    }
    throw DeviceError("device string " + quoted(spec) + ": unknown kind " + quoted(kind) + "; " + kForms);
}

std::unique_ptr<Transport> open_device(const std::string& spec) {
    const DeviceSpec d = parse_device(spec);
    switch (d.kind) {
    case DeviceSpec::Sim: {
        auto t = std::make_unique<SimTransport>(d.path);
        if (t->pe_index() != d.pe)
            throw DeviceError("device " + quoted(spec) + ": the hub says this socket is PE" +
                              std::to_string(t->pe_index()) + ", not PE" + std::to_string(d.pe));
        return t;
    }
    case DeviceSpec::Ppdev:
        return std::make_unique<PpdevTransport>(d.path, d.pe, d.pes);
    case DeviceSpec::Serial:
        throw DeviceError("device " + quoted(spec) + ": serial link not implemented yet (arrives with the serial link issue)");
    }
    throw DeviceError("device " + quoted(spec) + ": unhandled kind");
}

// ---- SimTransport -------------------------------------------------------------

SimTransport::SimTransport(const std::string& path) : path_(path) {
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    if (path.size() >= sizeof(a.sun_path))
        throw DeviceError("sim:" + path + ": socket path longer than " + std::to_string(sizeof(a.sun_path) - 1) + " bytes");
    std::memcpy(a.sun_path, path.c_str(), path.size() + 1);
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) throw DeviceError("sim:" + path + ": socket: " + std::strerror(errno));
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        const int e = errno;
        ::close(fd_);
        fd_ = -1;
        std::string hint;
        if (e == ENOENT) hint = " (is aggnet-sim running? it prints its socket directory)";
        if (e == ECONNREFUSED) hint = " (nobody listens: the aggnet-sim that made it has exited?)";
        throw DeviceError("sim:" + path + ": cannot connect: " + std::strerror(e) + hint);
    }
    Answer h = call(vhub::HELLO);
    if (!h.ok) {
        ::close(fd_);
        fd_ = -1;
        throw DeviceError("sim:" + path + ": " + h.text);
    }
    n_ = unsigned(uint64_t(h.value));
    pe_ = unsigned(uint64_t(h.value >> 64));
    k_ = h.aux;
}

SimTransport::~SimTransport() { close(); }

void SimTransport::close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
}

SimTransport::Answer SimTransport::raw(uint16_t magic, uint16_t op, reg_t value) {
    if (fd_ < 0) throw DeviceError("sim:" + path_ + ": connection closed");
    vhub::Request q;
    q.magic = magic;
    q.op = op;
    q.lo = uint64_t(value);
    q.hi = uint64_t(value >> 64);
    const auto* p = reinterpret_cast<const uint8_t*>(&q);
    std::string send_error;  // the hub may have answered and closed already (a refused port)
    for (size_t done = 0; done < sizeof q;) {
        const ssize_t w = ::send(fd_, p + done, sizeof q - done, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            send_error = std::strerror(errno);
            break;
        }
        done += size_t(w);
    }
    auto recv_all = [&](void* buf, size_t len) {
        auto* c = static_cast<uint8_t*>(buf);
        for (size_t done = 0; done < len;) {
            const ssize_t r = ::recv(fd_, c + done, len - done, send_error.empty() ? 0 : MSG_DONTWAIT);
            if (r < 0 && errno == EINTR) continue;
            if (!send_error.empty() && r <= 0)
                throw DeviceError("sim:" + path_ + ": hub connection lost sending " + vhub::op_name(op) + ": " + send_error);
            if (r == 0) throw DeviceError("sim:" + path_ + ": the hub closed the connection (during " + vhub::op_name(op) + ")");
            if (r < 0) throw DeviceError("sim:" + path_ + ": hub connection lost during " + vhub::op_name(op) + ": " + std::strerror(errno));
            done += size_t(r);
        }
    };
    vhub::Reply r;
    recv_all(&r, sizeof r);
    Answer a{r.status == vhub::kOk, (reg_t(r.hi) << 64) | r.lo, r.cycle, r.aux, {}};
    if (r.text_len > vhub::kMaxText) throw DeviceError("sim:" + path_ + ": garbled reply (text length " + std::to_string(r.text_len) + ")");
    a.text.resize(r.text_len);
    if (r.text_len) recv_all(&a.text[0], r.text_len);
    return a;
}

SimTransport::Answer SimTransport::call(uint16_t op, reg_t value) {
    Answer a = raw(vhub::kMagic, op, value);
    if (!a.ok && op != vhub::HELLO) throw DeviceError("sim:" + path_ + ": " + vhub::op_name(op) + ": " + a.text);
    return a;
}

void SimTransport::write_data(reg_t value) { call(vhub::WDATA, value); }
void SimTransport::write_control(uint8_t value) { call(vhub::WCTRL, value); }
reg_t SimTransport::read_status() { return call(vhub::RSTATUS).value; }
uint64_t SimTransport::hub_cycle() { return call(vhub::CYCLE).cycle; }
uint64_t SimTransport::hub_ops() { return uint64_t(call(vhub::CYCLE).value); }
void SimTransport::quit() { call(vhub::QUIT); }

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

void PpdevTransport::write_data(reg_t value) {
    if (value > 0xff)
        throw DeviceError("ppdev:" + path_ + ": data value " + hex((unsigned long long)value) +
                          " does not fit the 8-bit data register");
    uint8_t b = uint8_t(value);
    io(PPWDATA, &b, "PPWDATA");
}

void PpdevTransport::write_control(uint8_t value) { io(PPWCONTROL, &value, "PPWCONTROL"); }

reg_t PpdevTransport::read_status() {
    uint8_t b = 0;
    io(PPRSTATUS, &b, "PPRSTATUS");
    return b;
}

std::string PpdevTransport::describe() const {
    return "ppdev:" + path_ + " (parallel port, PE" + std::to_string(pe_) + " of " + std::to_string(n_) + ")";
}

}  // namespace aggnet
