// hub_select.hpp: which Verilated hub to run, chosen by the engines a run
// needs.  Every model family of HubModel (rtl/hub/manifest.json's `models`
// and the engines' `hub_models`: `hub` with every engine, `hub_papers` with
// PAPERS alone, ...; docs/engines.md; listed by
// sim::rtl_families, sim/rtl_families.hpp) is a named configuration of the
// one hub top.  A family's engines are what its model says in HELLO, asked
// over its own link (a few hundred cycles), so nothing lists them twice.
// The choice is the family, built at the size asked, with the fewest
// engines that include every engine wanted: the virtual hub simulates only
// what the run uses (issue 22: the BESU engine costs most of every cycle of
// the model that carries it).  Families with a link multiplexer in front of
// their port (`hub_mux`: a byte stream per PE, the boards' link_mux) are
// chosen only when asked for (aggnet-sim --mux), and then only they.
#pragma once

#include "hub_rtl.hpp"
#include "link_stream.hpp"
#include "rtl_families.hpp"

#include <aggnet/link_defs.hpp>
#include <aggnet/link_frame.hpp>

#include <algorithm>
#include <bitset>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace aggnet::sim {

/// The ENGINES bitmap (windows, INFO included) a hub model reports in HELLO;
/// the model is left reset.
inline uint16_t hub_engines(HubModel& m) {
    namespace L = link_defs;
    m.reset(3);
    LinkStream in(m.s_gap());
    link::Frame hello;
    hello.pe = 0;
    hello.op = L::OP_HELLO;
    in.push(link::encode(hello));
    link::Decoder d;
    const unsigned k = m.streams() - 1;  // the link port's own, or the USB stream
    for (unsigned i = 0; i < 20000; ++i) {
        in.drive_stream(m, k, m.cycle());
        const bool v = m.s_tx_valid(k);
        const uint8_t b = m.s_tx_data(k);
        m.tick();
        if (v && d.push(b) && d.frame().op == L::OP_HELLO_R && d.frame().len >= L::HELLO_LEN) {
            const uint16_t e = uint16_t(d.frame().value(L::HELLO_ENGINES, 2));
            m.reset(3);
            return e;
        }
    }
    throw std::runtime_error("a Verilated hub did not answer HELLO in 20000 cycles");
}

/// "papers,nand" for an ENGINES bitmap (INFO left out).
inline std::string engine_names(uint16_t engines) {
    std::string s;
    for (unsigned w = 1; w < 16; ++w)
        if (engines >> w & 1) {
            const char* n = link_defs::win_name(w);
            s += (s.empty() ? "" : ",") + (n ? std::string(n) : "window " + std::to_string(w));
        }
    return s;
}

struct HubFamily {
    std::string name;
    uint16_t engines = 0;          ///< ENGINES bitmap, from its models' HELLO
    std::vector<unsigned> sizes;   ///< the family's sizes built with exactly these engines
    bool mux = false;              ///< a link multiplexer in front of its port (a stream per PE)
};

/// Every built hub model, asked what it carries: one entry per family and
/// set of engines (a family may leave an engine out at some sizes, as `hub`
/// leaves BESU out at 16 and 40 PEs).
inline std::vector<HubFamily> hub_families() {
    std::vector<HubFamily> out;
    for (const auto& f : rtl_families<HubModel>())
        for (unsigned n : f.sizes()) {
            auto m = f.make(n, std::string(f.name) + "_probe", UINT64_MAX);
            const uint16_t e = hub_engines(*m);
            auto it = std::find_if(out.begin(), out.end(),
                                   [&](const HubFamily& h) { return h.name == f.name && h.engines == e; });
            if (it == out.end()) out.push_back({f.name, e, {n}, m->streams() > 1});
            else it->sizes.push_back(n);
        }
    return out;
}

struct HubChoice {
    std::unique_ptr<HubModel> model;
    std::string family;
};

/// The hub of n PEs with the fewest engines that has every engine of
/// `wanted` (an ENGINES bitmap; 0: any, which picks the family with the
/// most engines, the full hub).  Each family's model of n PEs is asked
/// (a family may leave an engine out at some sizes: the `hub` family's
/// N = 16 and 40 have no BESU), and the one chosen is returned, reset.
/// mux: only the families with a link multiplexer in front of the port
/// (a byte stream per PE, `hub_mux`), else only those without.
/// Throws std::invalid_argument naming what was built when none fits.
inline HubChoice make_hub_with(unsigned n, uint16_t wanted, const std::string& name,
                               uint64_t max_cycles = UINT64_MAX, bool mux = false) {
    struct Cand {
        std::unique_ptr<HubModel> model;
        std::string family;
        uint16_t engines;
    };
    std::vector<Cand> cands;
    for (const auto& f : rtl_families<HubModel>()) {
        const auto& sizes = f.sizes();
        if (std::find(sizes.begin(), sizes.end(), n) == sizes.end()) continue;
        auto m = f.make(n, name, max_cycles);
        if ((m->streams() > 1) != mux) continue;
        const uint16_t e = hub_engines(*m);
        cands.push_back({std::move(m), f.name, e});
    }
    auto count = [](uint16_t e) { return std::bitset<16>(e).count(); };
    Cand* best = nullptr;
    Cand* widest = nullptr;
    for (Cand& c : cands) {
        if (!widest || count(c.engines) > count(widest->engines)) widest = &c;
        if ((c.engines & wanted) != wanted) continue;
        if (!best || (wanted ? count(c.engines) < count(best->engines) : count(c.engines) > count(best->engines)))
            best = &c;
    }
    if (!widest) {
        std::vector<unsigned> all;
        for (const auto& f : rtl_families<HubModel>())
            for (unsigned z : f.sizes())
                if ((f.make(z, name + "_probe", UINT64_MAX)->streams() > 1) == mux) all.push_back(z);
        std::sort(all.begin(), all.end());
        all.erase(std::unique(all.begin(), all.end()), all.end());
        std::string sizes;
        for (unsigned s : all) sizes += (sizes.empty() ? "" : " ") + std::to_string(s);
        throw std::invalid_argument("no hub of " + std::to_string(n) + " PEs was built" +
                                    (mux ? " with a link multiplexer" : "") + " (built sizes: " +
                                    (sizes.empty() ? "none" : sizes) + ")");
    }
    if (!best)
        throw std::invalid_argument("this hub was built without " + engine_names(uint16_t(wanted & ~widest->engines)) +
                                    " (built with: " + engine_names(widest->engines) + ")");
    return {std::move(best->model), best->family};
}

}  // namespace aggnet::sim
