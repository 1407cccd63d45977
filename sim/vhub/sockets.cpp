// sockets.cpp: listeners, accepting, and the socket directory (sockets.hpp).
#include "sockets.hpp"

#include <aggnet/cli.hpp>

#include <cstdio>
#include <dirent.h>
#include <stdexcept>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

namespace aggnet::vhub {

Listener Listener::open(const std::string& path) {
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    if (path.size() >= sizeof(a.sun_path))
        throw std::runtime_error("socket path " + path + " is too long for a Unix socket (" +
                                 std::to_string(sizeof(a.sun_path) - 1) + " bytes at most)");
    std::memcpy(a.sun_path, path.c_str(), path.size() + 1);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) throw std::runtime_error("socket: " + errno_text());
    // check_dir() made sure nothing is in the way: never unlink here.
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        const std::string e = errno_text();
        ::close(fd);
        throw std::runtime_error("cannot bind " + path + ": " + e);
    }
    struct stat st {};
    ::stat(path.c_str(), &st);
    if (::listen(fd, 4) != 0) throw std::runtime_error("listen " + path + ": " + errno_text());
    return {fd, path, st.st_dev, st.st_ino};
}

void Listener::close() {
    if (fd < 0) return;
    ::close(fd);
    fd = -1;
    // Remove the socket only if it is still the one we made.
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode) && st.st_dev == dev && st.st_ino == ino)
        ::unlink(path.c_str());
}

int Acceptor::accept(int listen_fd, const std::string& path) {
    const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
            paused_until_ = steady::now() + std::chrono::milliseconds(kBackoffMs);
            if (!failing_)
                std::fprintf(stderr,
                             "aggnet-sim: cannot accept a client on %s: %s; retrying every %d ms, connected "
                             "clients are still served\n",
                             path.c_str(), errno_text().c_str(), kBackoffMs);
            failing_ = true;
        }
        return -1;
    }
    if (failing_) std::fprintf(stderr, "aggnet-sim: accepting clients again\n");
    failing_ = false;
    return fd;
}

bool check_dir(const std::string& dir) {
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0) {
        if (errno != ENOENT) throw std::runtime_error("--dir " + dir + ": " + errno_text());
        if (::mkdir(dir.c_str(), 0700) != 0) throw std::runtime_error("cannot create --dir " + dir + ": " + errno_text());
        return true;
    }
    if (!S_ISDIR(st.st_mode)) throw cli::UsageError("--dir " + dir + " exists and is not a directory");
    DIR* d = ::opendir(dir.c_str());
    if (!d) throw std::runtime_error("--dir " + dir + ": " + errno_text());
    std::vector<std::string> stale;
    std::string foreign, live;
    while (dirent* e = ::readdir(d)) {
        const std::string name = e->d_name;
        if (name == "." || name == "..") continue;
        const std::string path = dir + "/" + name;
        struct stat fs {};
        ::lstat(path.c_str(), &fs);
        if (S_ISLNK(fs.st_mode) && name.rfind("pty-", 0) == 0) {
            char target[256] = {};
            const ssize_t k = ::readlink(path.c_str(), target, sizeof target - 1);
            if (k > 0 && std::string(target, size_t(k)).rfind("/dev/pts/", 0) == 0) {
                stale.push_back(path);
                continue;
            }
        }
        if (!S_ISSOCK(fs.st_mode)) {
            if (foreign.empty())
                foreign = "'" + name + "' (" +
                          (S_ISDIR(fs.st_mode) ? "a directory" : S_ISREG(fs.st_mode) ? "a regular file" : "not a socket") +
                          ")";
            continue;
        }
        sockaddr_un a{};
        a.sun_family = AF_UNIX;
        if (path.size() >= sizeof(a.sun_path)) continue;
        std::memcpy(a.sun_path, path.c_str(), path.size() + 1);
        const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        const bool answers = fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
        if (fd >= 0) ::close(fd);
        if (answers) {
            if (live.empty()) live = name;
        } else {
            stale.push_back(path);
        }
    }
    ::closedir(d);
    if (!live.empty())
        throw std::runtime_error("--dir " + dir + ": socket '" + live +
                                 "' in it answers: another program (an aggnet-sim?) serves this directory");
    if (!foreign.empty())
        throw cli::UsageError("--dir " + dir + " holds " + foreign +
                              ", which aggnet-sim did not make; it only uses an empty directory (or a new path) and "
                              "never removes what it did not create");
    for (const auto& p : stale) {
        ::unlink(p.c_str());
        std::fprintf(stderr, "aggnet-sim: removed %s, left by a killed hub\n", p.c_str());
    }
    return false;
}

}  // namespace aggnet::vhub
