// sockets.hpp: the virtual hub's Unix sockets in its directory DIR.
//   Listener      a listening socket we bound (DIR/peK, DIR/link,
//                 DIR/control), removed at close only if it is still ours.
//   Acceptor      accept4() on a listener, pausing every listener for a
//                 while when the process is out of descriptors.
//   check_dir()   whether --dir DIR is ours to use: empty, or holding only
//                 what a killed aggnet-sim left, which is cleared.
#pragma once

#include "common.hpp"

#include <string>
#include <sys/types.h>

namespace aggnet::vhub {

struct Listener {
    int fd = -1;
    std::string path;
    dev_t dev = 0;  ///< what we bound (removed only if still ours)
    ino_t ino = 0;

    /// Binds and listens on `path`; check_dir() made sure nothing is in the way.
    static Listener open(const std::string& path);
    /// Closes the listener and removes its socket if it is still the one we made.
    void close();
};

class Acceptor {
public:
    static constexpr int kBackoffMs = 100;  ///< pause accepting after EMFILE / ENFILE

    /// accept4() on a listener; -1 when there is nobody (EAGAIN) or no
    /// descriptor to spare.  Out of descriptors the listener stays readable,
    /// so the listeners are not polled for a while (no spinning) while the
    /// connected clients are still served; logged once per episode.
    int accept(int listen_fd, const std::string& path);
    /// Whether the listeners are polled at `now`.
    bool accepting(steady::time_point now) const { return now >= paused_until_; }
    /// When accepting resumes; max() if it is not paused.
    steady::time_point resumes(steady::time_point now) const {
        return now < paused_until_ ? paused_until_ : steady::time_point::max();
    }

private:
    bool failing_ = false;
    steady::time_point paused_until_{};
};

/// --dir DIR: ours to use only if it is empty or holds nothing but what an
/// aggnet-sim makes (sockets nobody listens on, pty-* symlinks into
/// /dev/pts), left by a killed one; those are removed.  Returns whether we
/// created it.  Throws cli::UsageError for anything else in it.
bool check_dir(const std::string& dir);

}  // namespace aggnet::vhub
