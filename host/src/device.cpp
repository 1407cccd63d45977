// device.cpp: device strings (parse_device) and the ppdev: transport.
#include <aggnet/device.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <linux/parport.h>
#include <linux/ppdev.h>
#include <map>
#include <sys/ioctl.h>
#include <unistd.h>

namespace aggnet {

namespace {

const char* const kForms =
    "expected sim:DIR/peK, sim:DIR/link?pe=K, ppdev:/dev/parportN?pe=K[&n=N] or serial:/dev/ttyUSBn@BAUD[?pe=K]";

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
        const auto q = rest.find('?');
        d.path = rest.substr(0, q);
        if (d.path.empty())
            throw DeviceSyntaxError("device " + quoted(spec) + ": sim: needs a socket path, DIR/peK or DIR/link?pe=K");
        const auto slash = d.path.rfind('/');
        const std::string base = slash == std::string::npos ? d.path : d.path.substr(slash + 1);
        const std::string query = q == std::string::npos ? "" : rest.substr(q + 1);
        unsigned long long k = 0;
        if (base == "link") {
            // The shared stream serves every PE: which one we are is ours to say.
            const auto opts = parse_query(spec, query, {{"pe", {0, 63, "a PE number (0..63)"}}});
            if (!opts.count("pe"))
                throw DeviceSyntaxError("device " + quoted(spec) + ": DIR/link carries every PE's frames; say which PE"
                                        " we act as, e.g. sim:" + d.path + "?pe=0");
            d.pe = unsigned(opts.at("pe"));
            d.pe_given = true;
            return d;
        }
        if (base.size() < 3 || base.compare(0, 2, "pe") != 0 || !parse_uint(base.substr(2), 63, k))
            throw DeviceSyntaxError("device " + quoted(spec) + ": the socket name " + quoted(base) +
                                    " is not peK (K = 0..63) or link; aggnet-sim names PE K's socket DIR/peK and the"
                                    " shared one DIR/link");
        if (q != std::string::npos)
            throw DeviceSyntaxError("device " + quoted(spec) + ": DIR/" + base + " takes no options (" + quoted(query) +
                                    "): the socket name says the PE");
        d.pe = unsigned(k);
        d.pe_given = true;
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

std::unique_ptr<Transport> open_device(const std::string& spec, std::chrono::nanoseconds) {
    const DeviceSpec d = parse_device(spec);
    switch (d.kind) {
    case DeviceSpec::Ppdev:
        return std::make_unique<PpdevTransport>(d.path, d.pe, d.pes);
    case DeviceSpec::Sim:
    case DeviceSpec::Serial:
        throw DeviceError("device " + quoted(spec) + ": a " + (d.kind == DeviceSpec::Sim ? "sim:" : "serial:") +
                          " device carries link frames, not the PC port's three registers; open it with"
                          " open_papers_port() (aggnet/papers_device.hpp)");
    }
    throw DeviceError("device " + quoted(spec) + ": unhandled kind");
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
