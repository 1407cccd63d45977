// board_check.cpp: the checks of `aggnet board-check` (aggnet/board_check.hpp).
#include <aggnet/board_check.hpp>
#include <aggnet/engines.hpp>
#include <aggnet/link_defs.hpp>
#include <aggnet/link_papers.hpp>
#include <aggnet/papers_device.hpp>
#include <aggnet/papers_regs.hpp>
#include "strf.hpp"

#include <algorithm>
#include <array>
#include <cstdarg>
#include <cstdio>
#include <memory>
#include <vector>

namespace aggnet::board_check {

namespace {

namespace D = link_defs;
namespace R = papers_regs;
using clk = std::chrono::steady_clock;

using aggnet::detail::strf;

double us_since(clk::time_point t0) { return std::chrono::duration<double, std::micro>(clk::now() - t0).count(); }

/// The q-quantile of sorted values (nearest rank).
double quantile(const std::vector<double>& v, double q) {
    return v.empty() ? 0 : v[std::min(v.size() - 1, size_t(q * double(v.size() - 1) + 0.5))];
}

uint16_t info(unsigned reg) { return uint16_t(D::WIN_INFO << 12 | reg); }
uint16_t pap(unsigned reg) { return uint16_t(D::WIN_PAPERS << 12 | reg); }
uint64_t all_of(unsigned n) { return n >= 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1; }

/// Collects the verdicts and passes each check on as it is decided.
struct Report {
    const Sink& out;
    bool ok = true;
    void operator()(Verdict v, const std::string& name, const std::string& detail) {
        if (v == Verdict::fail) ok = false;
        out(Check{v, name, detail});
    }
};

/// Runs a check, turning an exception into its FAIL line; once the link
/// itself has failed (a LinkError, or a DeviceError from the pipe) the
/// checks after it are SKIPped as not run.
struct Guard {
    Report& rep;
    bool alive = true;
    void operator()(const std::string& name, const std::function<void()>& fn) {
        if (!alive) return rep(Verdict::skip, name, "not run: the link failed");
        try {
            fn();
        } catch (const LinkError& e) {
            alive = false;
            rep(Verdict::fail, name, std::string("link error: ") + e.what());
        } catch (const RegisterError& e) {
            rep(Verdict::fail, name, e.what());
        } catch (const DeviceError& e) {
            alive = false;
            rep(Verdict::fail, name, e.what());
        } catch (const Error& e) {
            rep(Verdict::fail, name, e.what());
        }
    }
};

// ---- over the link -----------------------------------------------------------

/// A PE's PAPERS registers as found, to be written back.
struct Saved {
    unsigned pe;
    uint32_t sig, mask0, mask1, ctrl, owner;
};

Saved save(link::LinkClient& c, unsigned pe, unsigned n) {
    Saved s{pe, 0, 0, 0, 0, 0};
    s.sig = c.read(pe, pap(R::W_SIG), 1);
    s.mask0 = c.read(pe, pap(R::W_MASK0), 4);
    if (n > 32) s.mask1 = c.read(pe, pap(R::W_MASK1), 4);
    s.ctrl = c.read(pe, pap(R::W_CTRL), 1);
    s.owner = c.read(pe, pap(R::W_OWNER), 1);
    return s;
}

/// Mask first (as LinkPapersPort writes them), OWNER last: writing the
/// others sets it.
void restore(link::LinkClient& c, const Saved& s, unsigned n) {
    c.write(s.pe, pap(R::W_MASK0), s.mask0, 4);
    if (n > 32) c.write(s.pe, pap(R::W_MASK1), s.mask1, 4);
    c.write(s.pe, pap(R::W_CTRL), s.ctrl, 1);
    c.write(s.pe, pap(R::W_SIG), s.sig, 1);
    c.write(s.pe, pap(R::W_OWNER), s.owner, 1);
}

std::array<uint32_t, D::STAT_COUNT> hub_stats(link::LinkClient& c, unsigned pe) {
    std::array<uint32_t, D::STAT_COUNT> s{};
    for (unsigned i = 0; i < D::STAT_COUNT; ++i) s[i] = c.read(pe, info(D::INFO_STAT + i), 2);
    return s;
}

/// HELLO's report and the INFO window's MAGIC, VERSION, HUB_PES and
/// ENGINES read through PE pe; ok: INFO agrees with HELLO.
std::string hello_detail(link::LinkClient& c, unsigned pe, const link::HelloInfo& h, bool& ok) {
    const uint32_t magic = c.read(pe, info(D::INFO_MAGIC), 4);
    const uint32_t ver = c.read(pe, info(D::INFO_VERSION), 1);
    const uint32_t pes = c.read(pe, info(D::INFO_HUB_PES), 1);
    const uint32_t eng = c.read(pe, info(D::INFO_ENGINES), 2);
    std::string engines;
    for (unsigned w = 0; w < 16; ++w)
        if (h.engines >> w & 1) {
            const engines::Engine* e = engines::find(w);
            engines += (engines.empty() ? "" : ",") +
                       (w == D::WIN_INFO ? std::string("info") : e ? std::string(e->name) : "window " + std::to_string(w));
        }
    std::string d = strf("protocol %u (ours %u); hub of %u PEs; this port serves PE%u..PE%u; engines %s; "
                         "hub clock %.2f MHz",
                         h.version, D::VERSION, h.hub_pes, h.first_pe, h.first_pe + h.port_pes - 1,
                         engines.c_str(), double(h.clk_hz) / 1e6);
    std::string bad;
    if (magic != D::INFO_MAGIC_VALUE) bad += strf("; INFO magic reads 0x%08x, not 0x%08x (AGNT)", magic, D::INFO_MAGIC_VALUE);
    if (ver != h.version) bad += strf("; INFO version reads %u", ver);
    if (pes != h.hub_pes) bad += strf("; INFO says %u PEs", pes);
    if (eng != h.engines) bad += strf("; INFO engines 0x%04x differ from HELLO's 0x%04x", eng, h.engines);
    ok = bad.empty();
    return d + bad;
}

/// Every present engine's map hash against this revision's registry.
std::string hashes(link::LinkClient& c, unsigned pe, const link::HelloInfo& h, bool& ok) {
    std::string d;
    ok = true;
    for (unsigned w = 1; w < 16; ++w) {
        if (!(h.engines >> w & 1)) continue;
        bool one = true;
        d += (d.empty() ? "" : "; ") + engine_hash(w, c.read(pe, info(uint16_t(D::INFO_MAP_HASH + w)), 4), one);
        ok = ok && one;
    }
    return d;
}

/// The loopback's round trips: writes of a changing pattern into PE pe's
/// PAPERS MASK0 (never empty: our own bit is set), each read back, until
/// `count` pairs are done or `timeout` has passed on the client's clock.
/// between(done) runs before each pair (the stream check reads counters
/// there).  The caller writes SIG low first and restores the registers.
struct RoundTrips {
    std::vector<double> us;  ///< each write's and read's round trip, sorted
    unsigned count = 0, done = 0, wrong = 0;
    std::string first;       ///< the first wrong read-back
    link::ClientStats cs0;   ///< the client's counters before
    link::DecoderStats rx0;

    RoundTrips(link::LinkClient& c, unsigned pe, unsigned n, unsigned pairs, std::chrono::nanoseconds timeout,
               const std::function<void(unsigned)>& between = {})
        : count(pairs), cs0(c.stats()), rx0(c.rx_stats()) {
        const uint32_t all = uint32_t(all_of(std::min(n, 32u)));
        const uint32_t own = pe < 32 ? 1u << pe : 1u;  // never an empty mask (its GO oscillates)
        uint32_t x = 0x2545f491u ^ pe;
        auto since = [&](std::chrono::nanoseconds t0) { return double((c.now() - t0).count()) / 1e3; };
        const auto end = c.now() + timeout;
        for (; done < count && c.now() < end; ++done) {
            if (between) between(done);
            x = x * 1664525u + 1013904223u;  // a new pattern each time
            const uint32_t pat = ((x >> 7) & all) | own;
            auto t0 = c.now();
            c.write(pe, pap(R::W_MASK0), pat, 4);
            us.push_back(since(t0));
            t0 = c.now();
            const uint32_t v = c.read(pe, pap(R::W_MASK0), 4);
            us.push_back(since(t0));
            if (v != pat && !wrong++) first = strf(" (first: wrote 0x%x, read 0x%x)", pat, v);
        }
        std::sort(us.begin(), us.end());
    }

    /// "40 round trips with PE1 (...), 0 wrong; round trip median ...; resends ..."
    std::string text(const link::LinkClient& c, unsigned pe) const {
        const link::ClientStats& cs = c.stats();
        const link::DecoderStats& rx = c.rx_stats();
        return strf("%zu round trips with PE%u (%u writes of MASK0 and read-backs), %u wrong%s; "
                    "round trip median %.0f us, p99 %.0f us, max %.0f us; "
                    "resends %llu, stale replies %llu, bad frames received %llu",
                    us.size(), pe, done, wrong, first.c_str(), quantile(us, 0.5), quantile(us, 0.99),
                    us.empty() ? 0.0 : us.back(), (unsigned long long)(cs.resends - cs0.resends),
                    (unsigned long long)(cs.stale - cs0.stale),
                    (unsigned long long)(rx.crc_err + rx.resync + rx.bad_len + rx.timeout - rx0.crc_err - rx0.resync -
                                         rx0.bad_len - rx0.timeout));
    }

    /// The verdict: FAIL on a wrong read-back or pairs left undone.
    Check check(const std::string& name, std::chrono::milliseconds timeout, const std::string& detail) const {
        if (done < count)
            return {Verdict::fail, name,
                    strf("only %u of %u write/read-back pairs within %lld ms; ", done, count,
                         (long long)timeout.count()) + detail};
        return {wrong ? Verdict::fail : Verdict::pass, name, detail};
    }
};

struct Link {
    link::LinkClient& c;
    link::LinkPipe& pipe;
    unsigned pe;
    link::HelloInfo h;
    const Options& o;
    std::vector<Saved> saved;

    void keep(unsigned p) {
        for (const auto& s : saved)
            if (s.pe == p) return;
        saved.push_back(save(c, p, h.hub_pes));
    }

    /// Write patterns into our MASK0 and read them back.
    Check loopback() {
        keep(pe);
        c.write(pe, pap(R::W_SIG), 0, 1);  // S low: a pattern must not complete anyone's barrier
        const auto hub0 = hub_stats(c, pe);
        const RoundTrips rt(c, pe, h.hub_pes, o.round_trips, o.step_timeout);
        const auto hub1 = hub_stats(c, pe);
        std::string hub;
        for (unsigned i = 0; i < D::STAT_COUNT; ++i)
            hub += strf(" %s +%u", D::stat_name(i), (hub1[i] - hub0[i]) & ((1u << D::STAT_BITS) - 1));
        return rt.check("loopback", o.step_timeout, rt.text(c, pe) + "; hub:" + hub);
    }

    /// Waits for GO == level at every port; returns the PEs that did not get there.
    uint64_t wait_all(std::vector<std::unique_ptr<LinkPapersPort>>& ports, bool level) {
        const Deadline d{pipe.now() + o.step_timeout};
        uint64_t missing = 0;
        for (unsigned p = 0; p < ports.size(); ++p)
            if (ports[p]->wait_go(level, d).go != level) missing |= uint64_t(1) << p;
        return missing;
    }

    void out_all(std::vector<std::unique_ptr<LinkPapersPort>>& ports, reg_t bits, uint64_t dvec) {
        const Deadline d{pipe.now() + o.step_timeout};
        for (unsigned p = 0; p < ports.size(); ++p)
            ports[p]->out(bits | ((dvec >> p & 1) ? reg_t(1) << R::DATA_D : 0), d);
    }

    /// Barriers and waitvecs with every PE, all driven from here.
    void every_pe(Report& rep) {
        const unsigned n = h.hub_pes;
        auto per_pe = [&](const std::string& why) {
            rep(Verdict::skip, "barrier",
                "a barrier needs every PE, and " + why +
                    ": run board-check on the shared link (the board's USB UART serial:/dev/ttyUSBn@BAUD, "
                    "or aggnet-sim's DIR/link, DIR/pty-link)");
            rep(Verdict::skip, "waitvec", "as for the barrier");
        };
        if (h.first_pe != 0 || h.port_pes < n)
            return per_pe(strf("this port serves PE%u..PE%u of %u", h.first_pe, h.first_pe + h.port_pes - 1, n));
        // A per-PE socket or pty in front of the hub's one link port
        // (aggnet-sim's DIR/peK, DIR/pty-peK) passes only its own PE's
        // frames, though HELLO_R names the port behind it.  A HELLO for
        // another PE tells: no answer while our own PE still answers is such
        // a port, not a dead link.
        for (unsigned p = 0; p < n; ++p) {
            if (p == pe) continue;
            try {
                c.hello(p);
            } catch (const LinkError&) {
                c.read(pe, info(D::INFO_MAGIC), 4);  // throws if the link itself is down
                return per_pe(strf("this port carries PE%u only (PE%u does not answer on it)", pe, p));
            }
        }
        std::vector<std::unique_ptr<LinkPapersPort>> ports;
        for (unsigned p = 0; p < n; ++p) {
            keep(p);
            ports.push_back(std::make_unique<LinkPapersPort>(c, pipe, p));
        }
        const uint64_t all = all_of(n);
        const reg_t mask = reg_t(all) << R::DATA_B0, s = reg_t(1) << R::DATA_S;
        const std::string ms = strf("%lld ms", (long long)o.step_timeout.count());
        const Deadline d{pipe.now() + o.step_timeout};
        for (auto& p : ports) p->mode(1u << R::CONTROL_CE | 1u << R::CONTROL_U0, d);
        out_all(ports, mask, 0);
        if (uint64_t m = wait_all(ports, false))
            return rep(Verdict::fail, "barrier", "GO stays high with S low at " + pe_list(m) + " after " + ms);
        std::vector<double> us;
        for (unsigned b = 0; b < o.barriers; ++b) {
            const auto t0 = clk::now();
            out_all(ports, mask | s, 0);
            if (uint64_t m = wait_all(ports, true))
                return rep(Verdict::fail, "barrier",
                           strf("barrier %u of %u: no GO at ", b + 1, o.barriers) + pe_list(m) + " within " + ms +
                               " of every PE raising S");
            us.push_back(us_since(t0));
            out_all(ports, mask, 0);
            if (uint64_t m = wait_all(ports, false))
                return rep(Verdict::fail, "barrier",
                           strf("barrier %u of %u: GO did not fall at ", b + 1, o.barriers) + pe_list(m) +
                               " within " + ms + " of every PE dropping S");
        }
        std::sort(us.begin(), us.end());
        rep(Verdict::pass, "barrier",
            strf("%u barriers with all %u PEs from one program: first S to GO seen at every PE median %.0f us, "
                 "max %.0f us",
                 o.barriers, n, quantile(us, 0.5), us.back()));

        // Each PE sends bit p of the pattern; every PE must read the others' bits.
        const uint64_t pat = 0x5555555555555555ull & all;
        std::string bad;
        for (const uint64_t v : {pat, ~pat & all}) {
            out_all(ports, mask | s, v);
            if (uint64_t m = wait_all(ports, true))
                return rep(Verdict::fail, "waitvec", "no GO at " + pe_list(m) + " within " + ms);
            for (unsigned p = 0; p < n; ++p) {
                uint64_t iv = c.read(p, pap(R::W_IVEC0), 4);
                if (n > 32) iv |= uint64_t(c.read(p, pap(R::W_IVEC1), 4)) << 32;
                const uint64_t want = v & ~(uint64_t(1) << p);
                if (iv != want)
                    bad += strf("; sent 0x%llx: PE%u read 0x%llx, not 0x%llx", (unsigned long long)v, p,
                                (unsigned long long)iv, (unsigned long long)want);
            }
            out_all(ports, mask, v);
            if (uint64_t m = wait_all(ports, false))
                return rep(Verdict::fail, "waitvec", "GO did not fall at " + pe_list(m) + " within " + ms);
        }
        rep(bad.empty() ? Verdict::pass : Verdict::fail, "waitvec",
            strf("2 exchanges with all %u PEs (each PE sends its bit of 0x%llx, then of 0x%llx)", n,
                 (unsigned long long)pat, (unsigned long long)(~pat & all)) +
                (bad.empty() ? ": every PE read what the others sent" : bad));
    }
};

}  // namespace

std::string engine_hash(unsigned window, uint32_t reported, bool& ok) {
    const engines::Engine* e = engines::find(window);
    ok = true;
    if (!e) return strf("window %u 0x%08x (an engine this library does not know)", window, reported);
    if (!e->map_hash && !reported) return std::string(e->name) + " (no register map to check)";
    std::string d = strf("%s 0x%08x", e->name, reported);
    ok = reported == e->map_hash;
    return d + (ok ? " = ours"
                   : strf(" but ours is 0x%08x: rebuild the bitstream or libaggnet from one revision", e->map_hash));
}

std::string format(const Check& c) {
    const char* v = c.verdict == Verdict::pass ? "PASS" : c.verdict == Verdict::fail ? "FAIL" : "SKIP";
    return strf("%s  %-11s ", v, c.name.c_str()) + c.detail;
}

bool check_link(const std::string& spec, const Options& o, const Sink& out) {
    Report rep{out};
    LinkConnection lc;
    try {
        lc = open_link(spec, o.step_timeout);
    } catch (const Error& e) {
        rep(Verdict::fail, "open", e.what());
        return false;
    }
    Link l{*lc.client, *lc.pipe, lc.pe, {}, o, {}};
    Guard guarded{rep};  // guarded.alive: false once the link itself failed
    guarded("hello", [&] {
        l.h = l.c.hello(l.pe);
        bool ok = false;
        const std::string d = hello_detail(l.c, l.pe, l.h, ok);
        rep(ok ? Verdict::pass : Verdict::fail, "hello", d);
    });
    if (!guarded.alive || l.h.hub_pes == 0) {
        rep(Verdict::skip, "the rest", "not run: no HELLO from " + spec);
        return false;
    }
    guarded("map hashes", [&] {
        bool ok = false;
        const std::string d = hashes(l.c, l.pe, l.h, ok);
        rep(ok ? Verdict::pass : Verdict::fail, "map hashes", d);
    });
    const bool papers = l.h.engines >> D::WIN_PAPERS & 1;
    if (papers) {
        guarded("loopback", [&] {
            const Check c = l.loopback();
            rep(c.verdict, c.name, c.detail);
        });
    } else {
        rep(Verdict::skip, "loopback", "this hub has no PAPERS engine, whose MASK0 the loopback writes");
    }
    if (!papers) {
        rep(Verdict::skip, "barrier", "this hub has no PAPERS engine");
    } else {
        guarded("barrier", [&] { l.every_pe(rep); });
    }
    if (!l.saved.empty()) {
        if (!guarded.alive) {
            rep(Verdict::fail, "restore", "PAPERS registers not written back: the link failed");
        } else {
            guarded("restore", [&] {
                std::string pes;
                for (const auto& s : l.saved) restore(l.c, s, l.h.hub_pes), pes += " PE" + std::to_string(s.pe);
                rep(Verdict::pass, "restore", "SIG, MASK, CTRL and OWNER written back as found at" + pes);
            });
        }
    }
    return rep.ok;
}

// ---- every stream of a link multiplexer ------------------------------------------

namespace {

uint16_t mux_count(unsigned k, unsigned i) { return info(uint16_t(D::INFO_MUX_COUNT + 8 * k + i)); }

/// What a step of stream counter i means, for a FAIL line.
const char* mux_meaning(unsigned i) {
    switch (i) {
    case D::MUX_BIND: return "frames naming a PE the stream may not speak for, refused";
    case D::MUX_OVERRUN: return "frames lost because its input buffer was full";
    case D::MUX_TXDROP: return "replies to it dropped: the stream absent, or its output buffer full";
    case D::MUX_PARTIAL: return "frames cut short: damaged bytes, or a wrong baud";
    default: return "frames forwarded";
    }
}

/// The link port's counters that count damage (INFO STAT): every one but
/// FRAMES_OK and DUP (resends show there).
bool stat_is_error(unsigned i) { return i != D::STAT_FRAMES_OK && i != D::STAT_DUP; }

using Counts = std::array<uint32_t, D::MUX_COUNTERS>;

/// Every stream's counters (k < s) read through PE pe; only FRAMES with `frames_only`.
std::vector<Counts> sweep(link::LinkClient& c, unsigned pe, unsigned s, bool frames_only) {
    std::vector<Counts> v(s);
    for (unsigned k = 0; k < s; ++k)
        for (unsigned i = 0; i < (frames_only ? 1 : D::MUX_COUNTERS); ++i) v[k][i] = c.read(pe, mux_count(k, i), 2);
    return v;
}

/// One stream's counters read through its own client, their steps summed
/// modulo 2^bits from one read to the next, and the frames the client sent
/// from the first FRAMES read to the last.
struct Tally {
    link::LinkClient& c;
    unsigned pe, k, bits;
    Counts last{};
    std::array<uint64_t, D::MUX_COUNTERS> steps{};
    uint64_t sent0 = 0, sent1 = 0;
    bool started = false;

    void read() {
        for (unsigned i = 0; i < D::MUX_COUNTERS; ++i) {
            const uint32_t v = c.read(pe, mux_count(k, i), 2);
            if (started) steps[i] += (v - last[i]) & ((1u << bits) - 1);
            last[i] = v;
            if (i == D::MUX_FRAMES) (started ? sent1 : sent0) = c.stats().frames_sent;
        }
        if (!started) sent1 = sent0;
        started = true;
    }
    uint64_t sent() const { return sent1 - sent0; }
};

/// A stream given to check_streams, as it went.
struct Given {
    const Stream* s;
    unsigned k = 0;            ///< the stream's index (Stream::usb resolved)
    bool answered = false;     ///< its HELLO was answered
    bool silent = false;       ///< no reply at all (a LinkError), else `why` is what the answer was
    link::HelloInfo h{};
    std::string why;           ///< the error of a HELLO not answered
};

/// "stream 1 (PE1)", "stream 2 (PE0, the USB UART)".
std::string who(const Given& g, unsigned s) {
    return strf("stream %u (PE%u%s)", g.k, g.s->pe, g.k + 1 == s ? ", the USB UART" : "");
}

/// A stream whose HELLO went unanswered: HELLO through it once more, with
/// every stream's counters read through `reader` before and after, and say
/// where its frames went.
std::string diagnose(const Given& g, const Given& reader, unsigned s, unsigned first_pe, unsigned bits) {
    link::LinkClient& rc = reader.s->client;
    const unsigned rp = reader.s->pe;
    const uint32_t m = (1u << bits) - 1;
    rc.hello(rp);  // the reader's PE routed to the reader's stream, its sequence state the reader's
    const auto before = sweep(rc, rp, s, false);
    const uint64_t n0 = g.s->client.stats().frames_sent;
    bool late = false;
    try {
        g.s->client.hello(g.s->pe);
        late = true;
    } catch (const LinkError&) {
    }
    const uint64_t n = g.s->client.stats().frames_sent - n0;
    rc.hello(rp);  // the probe may have spoken for the reader's PE
    const auto after = sweep(rc, rp, s, false);
    const uint32_t absent = rc.read(rp, info(D::INFO_MUX_ABSENT), 4);
    // The largest step of each counter, and on which stream.
    std::array<uint32_t, D::MUX_COUNTERS> top{};
    std::array<unsigned, D::MUX_COUNTERS> on{};
    std::string all;
    for (unsigned k = 0; k < s; ++k)
        for (unsigned i = 0; i < D::MUX_COUNTERS; ++i) {
            if (k == reader.k && i == D::MUX_FRAMES) continue;  // the reader's own reads
            const uint32_t d = (after[k][i] - before[k][i]) & m;
            if (!d) continue;
            all += strf("%s%s +%u on stream %u", all.empty() ? "" : ", ", D::mux_name(i), d, k);
            if (d > top[i]) top[i] = d, on[i] = k;
        }
    const std::string me = who(g, s);
    std::string d = me + ": no answer to HELLO";
    if (late) d += " at first, an answer to the second";
    auto speaks = [&](unsigned k) {
        return k + 1 == s ? std::string("the USB UART's stream") : strf("stream %u speaks only for PE%u", k, first_pe + k);
    };
    if (top[D::MUX_BIND]) {
        const unsigned b = on[D::MUX_BIND];
        d += strf("; BIND +%u on stream %u: its frames, for PE%u, are refused there (%s)", top[D::MUX_BIND], b,
                  g.s->pe, speaks(b).c_str());
        d += b == g.k ? ": the device names the wrong PE (pe=), or the cable is on the wrong pins"
                      : strf(": the cable is on stream %u's pins, not stream %u's: check which pins it is on", b, g.k);
    } else if (top[D::MUX_FRAMES]) {
        const unsigned f = on[D::MUX_FRAMES];
        d += strf("; the hub took its frames on stream %u (FRAMES +%u) but no reply reached it", f, top[D::MUX_FRAMES]);
        d += f == g.k ? strf(": check the wire from stream %u's TX pin to the cable's RXD", f)
                      : strf(", and they came in on stream %u's pins, not stream %u's", f, g.k);
    } else if (top[D::MUX_PARTIAL] || top[D::MUX_OVERRUN]) {
        const unsigned q = on[top[D::MUX_PARTIAL] ? D::MUX_PARTIAL : D::MUX_OVERRUN];
        d += strf("; bytes arrive on stream %u but no whole frame: a wrong baud (each stream has its own rate), "
                  "or a damaged wire", q);
    } else {
        d += strf("; none of the %llu frames it sent arrived on any stream: its TXD reaches no stream's RX pin "
                  "(unplugged, RX and TX swapped, or the adapter dead)",
                  (unsigned long long)n);
    }
    d += strf("; MUX_ABSENT 0x%x: stream %u %s", absent, g.k,
              absent >> g.k & 1 ? "absent (nothing received on its pins within the keep-alive bound)" : "present");
    return d + strf(" (counters during %llu frames of its HELLO, read through stream %u: %s)", (unsigned long long)n,
                    reader.k, all.empty() ? "none stepped" : all.c_str());
}

/// The checks of a stream whose HELLO was answered.
void check_stream(const Given& g, unsigned s, const Options& o, Report& rep) {
    link::LinkClient& c = g.s->client;
    const unsigned pe = g.s->pe, k = g.k;
    const std::string sn = strf("stream %u ", k);
    Guard guarded{rep};
    link::HelloInfo h = g.h;
    guarded(sn + "hello", [&] {
        h = c.hello(pe);  // again: another stream may have spoken for this PE since
        bool ok = false;
        const std::string d = hello_detail(c, pe, h, ok);
        rep(ok ? Verdict::pass : Verdict::fail, sn + "hello",
            strf("PE%u answers on %s: ", pe, c.device().c_str()) + d);
    });
    guarded(sn + "pins", [&] {
        // Between a stream's FRAMES in the first sweep and in the second, this
        // client sent s frames (resends aside): they step the stream its cable is on.
        const auto a = sweep(c, pe, s, true);
        const auto b = sweep(c, pe, s, true);
        std::string where;
        unsigned stepped = 0, own = 0;
        for (unsigned j = 0; j < s; ++j) {
            const uint32_t d = (b[j][0] - a[j][0]) & ((1u << o.mux_count_bits) - 1);
            if (j == k) own = d;
            if (d && j != k) where += strf("%s stream %u +%u", stepped++ ? "," : "", j, d);
        }
        const std::string me = who(g, s);
        if (own && !stepped)
            return rep(Verdict::pass, sn + "pins",
                       strf("%s's frames arrive on stream %u: over %u reads its FRAMES +%u, +0 on the %u others",
                            me.c_str(), k, s, own, s - 1));
        if (own)
            return rep(Verdict::fail, sn + "pins",
                       strf("over %u reads by %s, FRAMES +%u on stream %u and also on", s, me.c_str(), own, k) +
                           where + ": another program is using the hub (run board-check on an idle hub)");
        rep(Verdict::fail, sn + "pins",
            strf("%s's frames do not arrive on stream %u: over %u reads its FRAMES +0, but on", me.c_str(), k, s) +
                where + ": the cable is on those pins, not stream " + std::to_string(k) + "'s");
    });
    Tally t{c, pe, k, o.mux_count_bits};
    std::array<uint32_t, D::STAT_COUNT> hub0{}, hub1{};
    guarded(sn + "loopback", [&] {
        const Saved sv = save(c, pe, h.hub_pes);
        c.write(pe, pap(R::W_SIG), 0, 1);  // S low: a pattern must not complete anyone's barrier
        hub0 = hub_stats(c, pe);
        t.read();
        // Frames from one FRAMES read to the next: the other 4 counters, 2 a
        // round trip, FRAMES itself; at most half a wrap.
        const unsigned per = std::max(1u, ((1u << (o.mux_count_bits - 1)) - D::MUX_COUNTERS) / 2);
        const RoundTrips rt(c, pe, h.hub_pes, o.round_trips, o.step_timeout, [&](unsigned done) {
            if (done && done % per == 0) t.read();
        });
        t.read();
        hub1 = hub_stats(c, pe);
        restore(c, sv, h.hub_pes);
        const Check r = rt.check(sn + "loopback", o.step_timeout,
                                 rt.text(c, pe) + "; PE" + std::to_string(pe) +
                                     "'s SIG, MASK, CTRL and OWNER written back as found");
        rep(r.verdict, r.name, r.detail);
    });
    guarded(sn + "present", [&] {
        const uint32_t absent = c.read(pe, info(D::INFO_MUX_ABSENT), 4);
        const std::string d = strf("MUX_ABSENT 0x%x: ", absent);
        if (absent >> k & 1)
            return rep(Verdict::fail, sn + "present",
                       d + strf("stream %u counts as absent although PE%u has just answered: its frames do not come "
                                "in on stream %u's pins",
                                k, pe, k));
        rep(Verdict::pass, sn + "present", d + strf("stream %u present", k));
    });
    guarded(sn + "counters", [&] {
        if (!t.started) return rep(Verdict::skip, sn + "counters", "not run: the loopback did not start");
        std::string bad, nums;
        if (t.steps[D::MUX_FRAMES] != t.sent()) {
            const uint64_t f = t.steps[D::MUX_FRAMES], n = t.sent();
            bad += f == 0  ? strf("FRAMES +0 but it sent %llu frames: none came in on stream %u's pins; ",
                                  (unsigned long long)n, k)
                 : f < n ? strf("FRAMES +%llu but it sent %llu frames: %llu never reached the hub whole; ",
                                (unsigned long long)f, (unsigned long long)n, (unsigned long long)(n - f))
                         : strf("FRAMES +%llu but it sent only %llu frames: someone else speaks on its pins; ",
                                (unsigned long long)f, (unsigned long long)n);
        }
        for (unsigned i = 0; i < D::MUX_COUNTERS; ++i) {
            nums += strf("%s%s +%llu", i ? ", " : "", D::mux_name(i), (unsigned long long)t.steps[i]);
            if (i != D::MUX_FRAMES && t.steps[i])
                bad += strf("%s +%llu on stream %u (%s); ", D::mux_name(i), (unsigned long long)t.steps[i], k,
                            mux_meaning(i));
        }
        std::string port;
        for (unsigned i = 0; i < D::STAT_COUNT; ++i) {
            const uint32_t d = (hub1[i] - hub0[i]) & ((1u << D::STAT_BITS) - 1);
            if (stat_is_error(i) && d) port += strf("%s%s +%u", port.empty() ? "" : ", ", D::stat_name(i), d);
        }
        if (!port.empty()) bad += "the link port's " + port + " meanwhile (only this stream spoke); ";
        const std::string d = strf("for the %llu frames it sent: ", (unsigned long long)t.sent()) + nums +
                              "; link port errors: " + (port.empty() ? "none" : port);
        rep(bad.empty() ? Verdict::pass : Verdict::fail, sn + "counters", bad + d);
    });
}

}  // namespace

bool check_streams(const std::vector<Stream>& streams, const Options& opt, const Sink& out) {
    if (opt.mux_count_bits != 0 && (opt.mux_count_bits < 2 || opt.mux_count_bits > 16))
        throw Error(strf("board_check: mux_count_bits %u is outside 2..16 (INFO reads the counters as 16 bits)",
                         opt.mux_count_bits));
    Options o = opt;  // mux_count_bits from the hub's INFO when 0
    Report rep{out};
    if (streams.empty()) {
        rep(Verdict::fail, "streams", "no stream given");
        return false;
    }
    // HELLO through every stream; the first that answers reads the INFO window.
    std::vector<Given> gs;
    for (const Stream& s : streams) {
        Given g{&s, 0, false, false, {}, {}};
        try {
            g.h = s.client.hello(s.pe);
            g.answered = true;
        } catch (const LinkError& e) {
            g.silent = true;
            g.why = e.what();
        } catch (const Error& e) {  // another protocol version, a PE the port does not serve, a closed pipe
            g.why = e.what();
        }
        gs.push_back(g);
    }
    const Given* reader = nullptr;
    for (const Given& g : gs)
        if (g.answered && !reader) reader = &g;
    if (!reader) {
        rep(Verdict::fail, "streams",
            "no stream answered its HELLO, so the hub's INFO window cannot be read: is the board flashed with a "
            "bitstream of a *_uart configuration, and the devices' bauds the streams' (docs/link_mux.md)?");
        for (const Given& g : gs)
            rep(Verdict::fail, strf("PE%u on %s", g.s->pe, g.s->client.device().c_str()), g.why);
        return false;
    }
    unsigned s = 0;
    try {
        // HELLO again first: a later stream may have spoken for the reader's
        // PE, and two clients' sequence numbers for one PE collide.
        reader->s->client.hello(reader->s->pe);
        s = reader->s->client.read(reader->s->pe, info(D::INFO_MUX_STREAMS), 4);
    } catch (const Error& e) {
        rep(Verdict::fail, "streams", std::string("INFO MUX_STREAMS: ") + e.what());
        return false;
    }
    // The counters' width and the USB stream's rule (INFO MUX_CNT_W and
    // MUX_USB_ANY; a hub built before they were there answers NO_REG: then
    // 8 bits, the narrowest of the board tops, and the rule is not known).
    unsigned cnt_w = 0, usb_any = 2;
    if (s != 0) {
        try {
            cnt_w = reader->s->client.read(reader->s->pe, info(D::INFO_MUX_CNT_W), 4);
            usb_any = reader->s->client.read(reader->s->pe, info(D::INFO_MUX_USB_ANY), 4);
        } catch (const RegisterError& e) {
            if (e.code != D::ERR_NO_REG) {
                rep(Verdict::fail, "streams", std::string("INFO MUX_CNT_W / MUX_USB_ANY: ") + e.what());
                return false;
            }
            cnt_w = 0, usb_any = 2;  // a hub from before these registers
        } catch (const Error& e) {
            rep(Verdict::fail, "streams", std::string("INFO MUX_CNT_W: ") + e.what());
            return false;
        }
        if (cnt_w == 1 || cnt_w > 16) {
            rep(Verdict::fail, "streams",
                strf("INFO MUX_CNT_W reads %u: counters of that width cannot be checked (2..16 bits)", cnt_w));
            return false;
        }
        if (o.mux_count_bits == 0) o.mux_count_bits = cnt_w ? cnt_w : 8;
    }
    const unsigned first = reader->h.first_pe;
    if (s == 0) {
        rep(Verdict::fail, "streams",
            "INFO MUX_STREAMS reads 0: this hub has no link multiplexer, only one byte stream; the stream checks are "
            "for a board configuration with a UART per PE (docs/link_mux.md): check this one with `aggnet "
            "board-check DEVICE`");
        return false;
    }
    // Each stream given exists, once, and a header stream speaks for its own PE.
    std::string given, bad;
    std::vector<bool> seen(s);
    for (Given& g : gs) {
        const bool hdr = g.s->stream == Stream::header;
        g.k = g.s->stream == Stream::usb ? s - 1 : hdr ? g.s->pe - first : g.s->stream;
        if (hdr && (g.s->pe < first || g.s->pe - first + 1 >= s)) {
            bad += strf("; PE%u has no header stream (they serve PE%u..PE%u)", g.s->pe, first, first + s - 2);
            g.k = s;  // not checked
            continue;
        }
        given += strf("%sstream %u as PE%u", given.empty() ? "" : ", ", g.k, g.s->pe);
        if (g.k >= s) bad += strf("; stream %u does not exist (streams 0..%u)", g.k, s - 1);
        else if (seen[g.k]) bad += strf("; stream %u is given twice", g.k);
        else if (g.k + 1 < s && g.s->pe != first + g.k)
            bad += strf("; stream %u is given PE%u, but it speaks only for PE%u", g.k, g.s->pe, first + g.k);
        else if (g.k + 1 == s && usb_any == 0 && g.s->pe >= first && g.s->pe - first + 1 < s)
            bad += strf("; the USB stream is given PE%u, but it may not speak for a PE a header stream owns "
                        "(MUX_USB_ANY 0)",
                        g.s->pe);
        if (g.k < s) seen[g.k] = true;
    }
    rep(bad.empty() ? Verdict::pass : Verdict::fail, "streams",
        strf("the hub's link multiplexer has %u streams: 0..%u on header pins for PE%u..PE%u, %u the USB UART%s; "
             "counters of %u bits%s; given ",
             s, s - 2, first, first + s - 2, s - 1,
             usb_any == 1 ? " (any PE)" : usb_any == 0 ? " (PEs no header stream owns)" : "", o.mux_count_bits,
             cnt_w ? "" : " (assumed: the hub does not say)") +
            given + bad);
    Guard guarded{rep};
    guarded("map hashes", [&] {
        bool ok = false;
        const std::string d = hashes(reader->s->client, reader->s->pe, reader->h, ok);
        rep(ok ? Verdict::pass : Verdict::fail, "map hashes", d);
    });
    for (const Given& g : gs) {
        const std::string sn = strf("stream %u ", g.k);
        if (g.k >= s) {
            rep(Verdict::skip, strf("PE%u on %s", g.s->pe, g.s->client.device().c_str()),
                "not run: no such stream (see \"streams\")");
        } else if (g.answered) {
            check_stream(g, s, o, rep);
        } else if (!g.silent) {
            rep(Verdict::fail, sn + "hello", who(g, s) + ": " + g.why);
            rep(Verdict::skip, sn + "the rest", "not run: HELLO failed");
        } else {
            std::string d;
            try {
                d = diagnose(g, *reader, s, first, o.mux_count_bits);
            } catch (const Error& e) {
                d = who(g, s) + ": no answer to HELLO; where its frames went is not known: reading the counters "
                                "through stream " + std::to_string(reader->k) + " failed: " + e.what();
            }
            rep(Verdict::fail, sn + "hello", d + " (" + g.why + ")");
            rep(Verdict::skip, sn + "the rest", "not run: no answer to HELLO");
        }
    }
    return rep.ok;
}

// ---- on a parallel port's pins -------------------------------------------------

namespace {

/// A bit of the PC's port and its DB25 pin, with what PAPERS makes of it:
/// papers_regs.hpp's DB25_PINS (generated from tools/regmap.py's DB25 table,
/// the one pin map), annotated for our PE and the hub's size.
struct Pin {
    using Reg = R::Db25Pin::Reg;
    static constexpr Reg data = R::Db25Pin::data, status = R::Db25Pin::status, control = R::Db25Pin::control;
    Reg reg;
    unsigned bit, db25;
    const char* pc;      ///< the PC's name of the pin
    std::string papers;  ///< its PAPERS signal
    bool pc_inverts;     ///< the pin's level is the register bit inverted
    bool active_low;     ///< the hub reads the line active low (CE: presence)
    /// The pin's level (on the cable) for a logic level of its signal:
    /// libaggnet undoes the PC's inversion of control lines and applies the
    /// cable's (papers_regs::LPT_CONTROL_XOR); the PC inverts Busy.
    bool pin_high(bool level) const { return reg == control ? level != active_low : level != pc_inverts; }
};

std::vector<Pin> pins_of(unsigned pe, unsigned n) {
    std::vector<Pin> v;
    for (const R::Db25Pin& p : R::DB25_PINS) {
        std::string sig = p.signal;
        if (p.reg == R::Db25Pin::data && p.bit >= R::DATA_B0) {
            const unsigned k = p.bit - R::DATA_B0;
            sig += k == pe ? " (our own)" : k >= n ? " (no such PE)" : "";
        }
        v.push_back({p.reg, p.bit, p.pin, p.pc, sig, p.pc_inverts, p.active_low});
    }
    return v;
}

/// Whether one PE can observe the pin alone (mask = ourselves).
bool observable(const Pin& p) {
    if (p.reg == Pin::data) return p.bit == R::DATA_IR || p.bit == R::DATA_S || p.bit >= R::DATA_B0;
    if (p.reg == Pin::control) return p.bit == R::CONTROL_GI || p.bit == R::CONTROL_CE;  // CE: presence
    return p.bit > R::STATUS_I0 + 2;  // INT, GO
}

struct Step {
    uint8_t data, control;  ///< logic levels (PC register layout, control not inverted)
    std::string what;
};

enum Tri : uint8_t { T0, T1, TX };
Tri t_and(Tri a, Tri b) { return a == T0 || b == T0 ? T0 : a == T1 && b == T1 ? T1 : TX; }
Tri t_or(Tri a, Tri b) { return a == T1 || b == T1 ? T1 : a == T0 && b == T0 ? T0 : TX; }
Tri t_not(Tri a) { return a == TX ? TX : a == T0 ? T1 : T0; }
Tri tri(bool b) { return b ? T1 : T0; }

struct Reading {
    Tri go, intr;
};

/// A pin stuck at a register level (index into pins_of(); -1: none).
struct Fault {
    int pin;
    bool level;
};

/// What the PAL equations (seed 000 section 3.1; rtl/papers/papers_core.v)
/// make PE a read after each step, with the other PEs idle (S low, masks not
/// naming a) and `f` applied.
std::vector<Reading> predict(const std::vector<Step>& steps, const std::vector<Pin>& pins, Fault f, unsigned a,
                             unsigned n) {
    auto force = [&](Pin::Reg r, unsigned v) {
        if (f.pin < 0 || pins[size_t(f.pin)].reg != r) return v;
        const unsigned m = 1u << pins[size_t(f.pin)].bit;
        return f.level ? v | m : v & ~m;
    };
    std::vector<Reading> out;
    Tri go = TX;  // unknown before the first step
    for (const Step& s : steps) {
        unsigned d = force(Pin::data, s.data), c = force(Pin::control, s.control);
        // Presence (rtl/papers/papers_hub.v): with CE at 0 the hub sees us
        // alone and idle: S, IR and every control bit 0, our own mask bit.
        if (!(c >> R::CONTROL_CE & 1)) d = 1u << (R::DATA_B0 + a), c = 0;
        const unsigned mine = d >> R::DATA_B0 & 0xf;
        const bool own = mine >> a & 1, sreq = d >> R::DATA_S & 1;
        if (mine == 0) go = TX;  // CLKSET and CLKRST both hold: GO toggles
        else if (mine == 1u << a) go = tri(sreq);
        // Another PE in the mask: it never arrives (CLKSET fails) and names
        // nobody (CLKRST fails): GO holds.
        const Tri irterm = tri(own && (d >> R::DATA_IR & 1));
        Tri intr = t_or(irterm, t_and(go, tri(c >> R::CONTROL_GI & 1)));
        Tri rd = t_or(t_and(intr, t_not(irterm)), t_and(t_not(intr), go));
        const unsigned st = force(Pin::status, (rd == T1 ? 1u << R::STATUS_GO(n) : 0) |
                                                   (intr == T1 ? 1u << R::STATUS_INT(n) : 0));
        if (f.pin >= 0 && pins[size_t(f.pin)].reg == Pin::status) {
            if (pins[size_t(f.pin)].bit == R::STATUS_GO(n)) rd = tri(st >> R::STATUS_GO(n) & 1);
            if (pins[size_t(f.pin)].bit == R::STATUS_INT(n)) intr = tri(st >> R::STATUS_INT(n) & 1);
        }
        out.push_back({rd, intr});
    }
    return out;
}

bool agrees(Tri want, bool got) { return want == TX || (want == T1) == got; }

}  // namespace

bool check_pins(PapersPort& port, const Options& o, const Sink& out) {
    Report rep{out};
    const unsigned a = port.pe_index(), n = port.hub_pes();
    if (R::reg_width(n) != 8)
        throw DeviceError(port.describe() + ": the pin check is for 8-bit port registers (hubs of at most 4 PEs)");
    const std::vector<Pin> pins = pins_of(a, n);
    const uint8_t own = uint8_t(1u << (R::DATA_B0 + a)), S = 1u << R::DATA_S, IR = 1u << R::DATA_IR;
    const uint8_t base = 1u << R::CONTROL_CE | 1u << R::CONTROL_U0, gi = uint8_t(base | 1u << R::CONTROL_GI);
    const std::string me = "{PE" + std::to_string(a) + "}";
    std::vector<Step> steps{
        {own, base, "mask " + me + ", S low"},
        {uint8_t(own | S), base, "S high"},
        {uint8_t(own | S), uint8_t(base & ~(1u << R::CONTROL_CE)), "S high, CE off (absent)"},
        {uint8_t(own | S), base, "S high, CE on again"},
        {uint8_t(own | S), gi, "S high, GI"},
        {uint8_t(own | S), base, "S high, GI off"},
        {own, base, "S low"},
        {uint8_t(own | IR), base, "IR"},
        {own, base, "IR off"},
    };
    for (unsigned k = 0; k < 4; ++k) {
        if (k == a) continue;
        const uint8_t two = uint8_t(own | 1u << (R::DATA_B0 + k));
        const std::string m = "mask {PE" + std::to_string(a) + ",PE" + std::to_string(k) + "}";
        steps.push_back({uint8_t(two | S), base, m + ", S high"});
        steps.push_back({two, base, m + ", S low"});
        steps.push_back({own, base, "mask " + me});
    }

    // Run the steps: each register written, then the status read kReads
    // times; the last reading counts (the hub answers in 4 of its cycles,
    // far less than one port access).
    constexpr unsigned kReads = 16;
    std::vector<std::pair<bool, bool>> got;  // GO, INT
    unsigned reads = 0;
    for (const Step& s : steps) {
        const Deadline d = port.in_time(o.step_timeout);
        port.mode(s.control, d);
        port.out(s.data, d);
        PapersStatus st;
        for (unsigned r = 0; r < kReads; ++r, ++reads) st = port.in(d);
        got.emplace_back(st.go, st.intr);
    }
    port.mode(base, port.in_time(o.step_timeout));  // as Papers attaches: CE|U0, mask = ourselves, S low
    port.out(own, port.in_time(o.step_timeout));

    // Which single stuck pin (or none) explains the readings best.
    // Fewest wrong readings first; among equals, the hypothesis that predicts
    // the most readings exactly (a stuck own mask bit empties the mask, whose
    // GO toggles: it "explains" anything at those steps).
    auto misses = [&](Fault f, unsigned& loose) {
        const auto want = predict(steps, pins, f, a, n);
        unsigned m = 0;
        loose = 0;
        for (size_t i = 0; i < steps.size(); ++i) {
            m += !agrees(want[i].go, got[i].first) || !agrees(want[i].intr, got[i].second);
            loose += (want[i].go == TX) + (want[i].intr == TX);
        }
        return m;
    };
    unsigned loose = 0, best_loose = ~0u;
    const unsigned sound = misses({-1, false}, loose);
    std::vector<Fault> best;
    unsigned fewest = sound;
    for (int p = 0; sound && p < int(pins.size()); ++p) {
        if (!observable(pins[size_t(p)])) continue;
        for (const bool lv : {false, true}) {
            const unsigned m = misses({p, lv}, loose);
            if (m >= sound || m > fewest || (m == fewest && loose > best_loose)) continue;
            if (m < fewest || loose < best_loose) best.clear();
            fewest = m, best_loose = loose;
            best.push_back({p, lv});
        }
    }
    std::string seq = strf("%zu steps, %u status reads, mask %s and the others' bits one by one: ", steps.size(),
                           reads, me.c_str());
    if (!sound) {
        rep(Verdict::pass, "pin steps", seq + "every reading as the PAL equations predict");
    } else {
        const auto want = predict(steps, pins, {-1, false}, a, n);
        std::string bad;
        for (size_t i = 0; i < steps.size(); ++i)
            if (!agrees(want[i].go, got[i].first) || !agrees(want[i].intr, got[i].second))
                bad += strf("%s'%s': read GO=%d INT=%d, expected GO=%d INT=%d", bad.empty() ? "" : "; ",
                            steps[i].what.c_str(), got[i].first, got[i].second, want[i].go == T1,
                            want[i].intr == T1);
        rep(Verdict::fail, "pin steps", seq + strf("%u of %zu readings wrong: ", sound, steps.size()) + bad);
    }

    // One line per DB25 pin.
    std::vector<const Pin*> order;
    for (const auto& p : pins) order.push_back(&p);
    std::sort(order.begin(), order.end(), [](const Pin* x, const Pin* y) { return x->db25 < y->db25; });
    for (const Pin* p : order) {
        const std::string name = strf("pin %u", p->db25);
        const std::string sig = strf("(%s, %s) ", p->pc, p->papers.c_str());
        if (!observable(*p)) {
            const bool shown = p->reg == Pin::control;
            rep(Verdict::skip, name,
                sig + (shown ? "drives only the hub's status display: look at the board's LEDs (docs/hardware.md)"
                             : p->reg == Pin::data ? "shows only on the other PEs' I pins: check it with "
                                                     "`aggnet papers waitvec` on two PEs"
                                                   : "shows another PE's D bit: check it with `aggnet papers "
                                                     "waitvec` on two PEs"));
            continue;
        }
        std::string stuck;
        for (const Fault& f : best) {
            if (&pins[size_t(f.pin)] != p) continue;
            const bool high = p->pin_high(f.level);
            stuck = strf("stuck %s: %s reads as %d whatever is driven", high ? "high" : "low", p->papers.c_str(),
                         int(f.level));
        }
        if (!stuck.empty()) {
            const std::string also = best.size() > 1 ? strf(" (%zu pins explain the readings equally)", best.size()) : "";
            const std::string fit = fewest ? strf("; closest single-pin fit, %u readings still unexplained", fewest)
                                           : "; this explains every reading";
            rep(Verdict::fail, name, sig + stuck + fit + also);
        } else if (sound && best.empty()) {
            rep(Verdict::skip, name, sig + "undetermined: no single stuck pin explains the wrong readings "
                                           "(two faults, or another PE active?)");
        } else {
            std::string culprits;
            for (const Fault& f : best) culprits += strf("%s%u", culprits.empty() ? "" : ", ", pins[size_t(f.pin)].db25);
            rep(Verdict::pass, name, sig + (sound ? "sound: the wrong readings are explained by pin " + culprits
                                                  : "driven and read at both levels as predicted"));
        }
    }
    return rep.ok;
}

}  // namespace aggnet::board_check
