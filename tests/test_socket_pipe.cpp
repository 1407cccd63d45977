// test_socket_pipe.cpp: SocketPipe (host/src/socket_pipe.cpp), the link over
// a Unix stream socket, without aggnet-sim:
//
//   - on a socketpair: every byte value passes both ways unchanged; recv
//     returns 0 at its deadline and not before; the far end closing gives
//     DeviceError naming the device, and every later call repeats it; a far
//     end that stops reading fails send() after SocketPipe::kSendTimeout;
//   - connect errors name the device and say why: nothing there, nobody
//     listening (a socket left by a killed hub), not a socket, a path too long;
//   - end to end: open_papers_port("sim:DIR/pe0") and "sim:DIR/link?pe=0"
//     against a listening socket bridged to a Verilated aggnet_hub
//     (tests/hub_bridge.hpp), barriers with PE1 on the hub's pins.
#include "hub_bridge.hpp"

#include <aggnet/link_papers.hpp>
#include <aggnet/papers.hpp>
#include <aggnet/papers_device.hpp>
#include <aggnet/socket_pipe.hpp>
#include <catch2/catch.hpp>

#include <cerrno>
#include <cstdlib>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

using namespace aggnet;
using aggnet::link::SocketPipe;
using Catch::Matchers::Contains;
using std::chrono::milliseconds;
using std::chrono::nanoseconds;

namespace {

/// A fresh directory under /tmp, removed with what the test put in it.
struct TempDir {
    std::string path;
    std::vector<std::string> files;
    TempDir() {
        char t[] = "/tmp/aggnet-sp-XXXXXX";
        REQUIRE(::mkdtemp(t) != nullptr);
        path = t;
    }
    ~TempDir() {
        for (auto& f : files) ::unlink(f.c_str());
        ::rmdir(path.c_str());
    }
    std::string add(const std::string& name) {
        files.push_back(path + "/" + name);
        return files.back();
    }
};

/// A listening Unix socket at `path` (non-blocking, for Bridge::Listen).
int listen_at(const std::string& path) {
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    REQUIRE(fd >= 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    REQUIRE(path.size() < sizeof a.sun_path);
    std::memcpy(a.sun_path, path.c_str(), path.size() + 1);
    REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    REQUIRE(::listen(fd, 4) == 0);
    return fd;
}

std::string connect_error(const std::string& path) {
    try {
        SocketPipe p(path, "sim:" + path, milliseconds(200));
    } catch (const DeviceError& e) {
        return e.what();
    }
    return "(no DeviceError)";
}

struct Pair {
    int far = -1;
    std::unique_ptr<SocketPipe> pipe;
    Pair() {
        int sv[2];
        REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
        far = sv[1];
        pipe = std::make_unique<SocketPipe>(sv[0], "sim:/test/pe0");
    }
    ~Pair() {
        if (far >= 0) ::close(far);
    }
};

}  // namespace

TEST_CASE("socket pipe: every byte both ways; recv waits until its deadline", "[host][socket]") {
    Pair p;
    std::vector<uint8_t> all(256);
    for (unsigned i = 0; i < 256; ++i) all[i] = uint8_t(i);
    p.pipe->send(all.data(), all.size());
    std::vector<uint8_t> got(256);
    size_t n = 0;
    while (n < 256) {
        const ssize_t r = ::read(p.far, got.data() + n, 256 - n);
        REQUIRE(r > 0);
        n += size_t(r);
    }
    CHECK(got == all);
    REQUIRE(::write(p.far, all.data(), all.size()) == 256);
    std::vector<uint8_t> back;
    uint8_t b[100];
    while (back.size() < 256) {
        const size_t k = p.pipe->recv(b, sizeof b, p.pipe->now() + milliseconds(1000));
        REQUIRE(k > 0);
        CHECK(k <= sizeof b);
        back.insert(back.end(), b, b + k);
    }
    CHECK(back == all);
    // Nothing comes: 0 at the deadline, not before it.
    const nanoseconds t0 = p.pipe->now();
    CHECK(p.pipe->recv(b, sizeof b, t0 + milliseconds(30)) == 0);
    CHECK(p.pipe->now() - t0 >= milliseconds(30));
    CHECK(p.pipe->recv(b, sizeof b, t0) == 0);  // a deadline already passed: returns at once
}

TEST_CASE("socket pipe: the hub closing the connection names the device, then every call throws",
          "[host][socket]") {
    Pair p;
    const uint8_t x = 0x7e;
    REQUIRE(::write(p.far, &x, 1) == 1);
    ::close(p.far);
    p.far = -1;
    uint8_t b[8];
    // A byte sent before the close is still delivered.
    CHECK(p.pipe->recv(b, sizeof b, p.pipe->now() + milliseconds(500)) == 1);
    CHECK_THROWS_WITH(p.pipe->recv(b, sizeof b, p.pipe->now() + milliseconds(500)),
                      Contains("sim:/test/pe0: the virtual hub closed the connection") &&
                          Contains("refused a second client"));
    CHECK_FALSE(p.pipe->is_open());
    CHECK_THROWS_WITH(p.pipe->send(&x, 1), Contains("sim:/test/pe0: the virtual hub closed the connection"));
}

TEST_CASE("socket pipe: the hub closing the connection fails send too", "[host][socket]") {
    Pair p;
    ::close(p.far);
    p.far = -1;
    const uint8_t x[4] = {1, 2, 3, 4};
    CHECK_THROWS_WITH(p.pipe->send(x, 4), Contains("sim:/test/pe0: the virtual hub closed the connection"));
}

TEST_CASE("socket pipe: a hub that stops reading fails send after the send timeout", "[host][socket]") {
    Pair p;
    int small = 4096;
    ::setsockopt(p.far, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    std::vector<uint8_t> frame(20, 0x55);
    const nanoseconds t0 = p.pipe->now();
    std::string err;
    try {
        for (int i = 0; i < 1000000; ++i) p.pipe->send(frame.data(), frame.size());
    } catch (const DeviceError& e) {
        err = e.what();
    }
    CHECK_THAT(err, Contains("sim:/test/pe0: the virtual hub stopped reading"));
    CHECK(p.pipe->now() - t0 >= SocketPipe::kSendTimeout);
    CHECK_FALSE(p.pipe->is_open());
}

TEST_CASE("socket pipe: connect errors say why", "[host][socket]") {
    TempDir d;
    CHECK_THAT(connect_error(d.path + "/pe0"),
               Contains("sim:" + d.path + "/pe0: cannot connect") && Contains("No such file or directory") &&
                   Contains("no virtual hub there") && Contains("is aggnet-sim running?"));
    // A socket whose listener is gone (the aggnet-sim that made it was killed).
    const std::string stale = d.add("pe1");
    ::close(listen_at(stale));
    CHECK_THAT(connect_error(stale), Contains("Connection refused") && Contains("nobody listens"));
    // Not a socket.
    const std::string file = d.add("pe2");
    const int fd = ::open(file.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
    REQUIRE(fd >= 0);
    ::close(fd);
    CHECK_THAT(connect_error(file), Contains("is not a socket"));
    CHECK_THAT(connect_error(d.path), Contains("is a directory"));
    CHECK_THAT(connect_error("/tmp/" + std::string(120, 'x') + "/pe0"),
               Contains("longer than the 107") && Contains("shorter --dir"));
    CHECK(SocketPipe::sim_link_config().resend_timeout == milliseconds(50));
    CHECK(SocketPipe::sim_link_config().max_attempts == 20);
}

TEST_CASE("sim: end to end: open_papers_port over DIR/pe0 and DIR/link?pe=0 to a Verilated hub",
          "[host][socket][link]") {
    TempDir d;
    const std::string sock = d.add("pe0");
    const std::string link_sock = d.add("link");
    const int lfd = listen_at(sock), lfd_link = listen_at(link_sock);
    {
        test::Bridge bridge(lfd, test::Bridge::Listen);
        for (const std::string& dev : {"sim:" + sock, "sim:" + d.path + "/pe0"}) {
            auto port = open_papers_port(dev);
            CHECK(link_of(*port) != nullptr);
            CHECK(transport_of(*port) == nullptr);
            CHECK_THAT(port->describe(), Contains(dev));
            Papers p(*port);
            CHECK(p.pes() == 4);
            CHECK(p.pe() == 0);
            p.enqueue(0x3, milliseconds(5000));
            const unsigned before = bridge.pe1_barriers;
            for (int i = 0; i < 20; ++i) p.wait(milliseconds(5000));
            const unsigned pe1 = bridge.pe1_barriers - before;
            CHECK(pe1 >= 20);
            CHECK(pe1 <= 21);  // PE1 may be one ahead, waiting
            CHECK(link_of(*port)->client().stats().replies >= 20);  // 1 command a barrier at least: a SYNC CALL
            p.enqueue(0x1, milliseconds(5000));  // leave PE1 to itself
        }
        CHECK(bridge.clients == 2);
    }
    {
        test::Bridge bridge(lfd_link, test::Bridge::Listen);
        auto port = open_papers_port("sim:" + link_sock + "?pe=0");
        Papers p(*port);
        CHECK(p.pe() == 0);
        p.enqueue(0x3, milliseconds(5000));
        const unsigned before = bridge.pe1_barriers;
        for (int i = 0; i < 10; ++i) p.wait(milliseconds(5000));
        CHECK(bridge.pe1_barriers - before >= 10);
    }
    ::close(lfd);
    ::close(lfd_link);
}
