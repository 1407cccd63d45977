// sim_control.cpp: SimControl, the client of aggnet-sim's control socket
// (aggnet/sim_control.hpp).
#include <aggnet/cli.hpp>
#include <aggnet/device.hpp>
#include <aggnet/sim_control.hpp>
#include <aggnet/socket_pipe.hpp>

#include <unistd.h>

namespace aggnet {

using std::chrono::nanoseconds;

namespace {

constexpr size_t kMaxReply = 65536;  ///< a reply line longer than this is garbage

long long ms_of(nanoseconds t) { return (long long)std::chrono::duration_cast<std::chrono::milliseconds>(t).count(); }

}  // namespace

SimControl::SimControl(const std::string& where, nanoseconds timeout) : timeout_(timeout) {
    if (where.empty()) throw DeviceError("sim control: no directory given (aggnet-sim prints its directory)");
    const auto slash = where.rfind('/');
    const std::string base = slash == std::string::npos ? where : where.substr(slash + 1);
    if (base == "control") path_ = where;
    else path_ = (where.back() == '/' ? where : where + "/") + "control";
}

std::string SimControl::request(const std::string& line, nanoseconds timeout) {
    if (line.empty() || line.find('\n') != std::string::npos || line.find('\r') != std::string::npos)
        throw Error(device() + ": a command is one non-empty line, not '" + line + "'");
    const nanoseconds start = std::chrono::duration_cast<nanoseconds>(
                          std::chrono::steady_clock::now().time_since_epoch()),
                      deadline = start + timeout;
    std::string reply;
    try {
        link::SocketPipe pipe(path_, device(), timeout_);
        const std::string out = line + "\n";
        pipe.send(reinterpret_cast<const uint8_t*>(out.data()), out.size());
        for (;;) {
            uint8_t buf[512];
            const size_t k = pipe.recv(buf, sizeof buf, deadline);
            if (k == 0)
                throw DeviceError(device() + ": no reply to '" + line + "' within " +
                                  std::to_string(ms_of(pipe.now() - start)) +
                                  " ms; is aggnet-sim stopped (SIGSTOP) or stuck?");
            reply.append(reinterpret_cast<const char*>(buf), k);
            const auto nl = reply.find('\n');
            if (nl != std::string::npos) {
                reply.resize(nl);
                break;
            }
            if (reply.size() > kMaxReply)
                throw DeviceError(device() + ": garbled reply to '" + line + "': no end of line in " +
                                  std::to_string(reply.size()) + " bytes");
        }
    } catch (const DeviceError& e) {
        // The pipe's errors name the socket but not the command.
        const std::string what = e.what();
        if (what.find("'" + line + "'") != std::string::npos) throw;
        throw DeviceError(what + " (command '" + line + "')");
    }
    if (reply == "ok") return {};
    if (reply.compare(0, 3, "ok ") == 0) return reply.substr(3);
    if (reply == "err" || reply.compare(0, 4, "err ") == 0)
        throw DeviceError(device() + ": '" + line + "' refused: " + (reply.size() > 4 ? reply.substr(4) : "(no message)"));
    throw DeviceError(device() + ": garbled reply to '" + line + "': '" + reply + "' (expected ok or err)");
}

namespace {

/// A number in a reply: decimal, or hexadecimal after 0x (cli::number's
/// forms); anything else is a garbled reply.
uint64_t reply_number(const SimControl& c, const std::string& cmd, const std::string& key, const std::string& text) {
    try {
        return cli::number(key, text, 0, UINT64_MAX);
    } catch (const cli::UsageError&) {
        throw DeviceError(c.device() + ": garbled reply to '" + cmd + "': " + key + " is '" + text + "', not a number");
    }
}

}  // namespace

uint64_t SimControl::cycle_reply(const std::string& cmd) { return reply_number(*this, cmd, "the cycle", request(cmd)); }

uint64_t SimControl::cycle() { return cycle_reply("cycle"); }
uint64_t SimControl::hold() { return cycle_reply("hold"); }
uint64_t SimControl::release() { return cycle_reply("release"); }
uint64_t SimControl::cut() { return cycle_reply("cut"); }
uint64_t SimControl::mend() { return cycle_reply("mend"); }

uint64_t SimControl::step(uint64_t k) {
    if (k < 1 || k > kMaxStep)
        throw Error(device() + ": step takes 1.." + std::to_string(kMaxStep) + " cycles, not " + std::to_string(k));
    const std::string cmd = "step " + std::to_string(k);
    const nanoseconds run(k * (1000000000ull / kStepFloorHz));
    return reply_number(*this, cmd, "the cycle", request(cmd, timeout_ + run));
}

void SimControl::trace(const std::string& path) {
    if (path.empty()) throw Error(device() + ": trace needs a file name");
    std::string abs = path;
    if (path[0] != '/') {
        char cwd[4096];
        if (!::getcwd(cwd, sizeof cwd)) throw Error(device() + ": trace " + path + ": cannot tell our working directory");
        abs = std::string(cwd) + "/" + path;
    }
    request("trace " + abs);
}

void SimControl::trace_off() { request("trace off"); }
void SimControl::quit() { request("quit"); }

SimStatus SimControl::status() {
    const std::string text = request("status");
    SimStatus s;
    for (size_t pos = 0; pos < text.size();) {
        const auto sp = text.find(' ', pos);
        const std::string tok = text.substr(pos, sp == std::string::npos ? std::string::npos : sp - pos);
        pos = sp == std::string::npos ? text.size() : sp + 1;
        if (tok.empty()) continue;
        const auto eq = tok.find('=');
        if (eq == std::string::npos || eq == 0)
            throw DeviceError(device() + ": garbled reply to 'status': '" + tok + "' is not key=value");
        s.fields.emplace_back(tok.substr(0, eq), tok.substr(eq + 1));
    }
    auto get = [&](const char* key) -> uint64_t {
        for (const auto& f : s.fields)
            if (f.first == key) return reply_number(*this, "status", key, f.second);
        throw DeviceError(device() + ": garbled reply to 'status': no " + key + "= in '" + text + "'");
    };
    s.cycle = get("cycle");
    const uint64_t held = get("held");
    if (held > 1) throw DeviceError(device() + ": garbled reply to 'status': held=" + std::to_string(held));
    s.held = held == 1;
    s.pes = unsigned(get("pes"));
    s.engines = get("engines");
    s.clk_hz = get("clk_hz");
    s.queued = get("queued");
    s.clients = unsigned(get("clients"));
    s.damaged = get("damaged");
    return s;
}

std::string sim_dir_of(const std::string& device) {
    const DeviceSpec d = parse_device(device);
    if (d.kind != DeviceSpec::Sim) return {};
    const auto slash = d.path.rfind('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : d.path.substr(0, slash);
}

}  // namespace aggnet
