// besu_link.hpp: libaggnet's BESU nodes (aggnet/besu.hpp) over a LinkHub,
// for the tests that drive a hub's BESU engine through its link (the
// Verilated aggnet_hub, or a board top behind its UART pins).
//
// LinkHub hands each PE's replies to that PE's endpoint, so every PE needs
// its own LinkClient, also when one thread acts as every node's PE (a
// loader, or barr): BesuNodes.  run_besu_pes() runs fn(pe, node) on every
// PE's own thread (on_pe_threads) and rethrows the first failure.
#pragma once

#include "link_hub.hpp"

#include <aggnet/besu.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace aggnet::sim {

/// `device` names the clients in messages; PE k's is device + "?pe=k".
struct BesuNodes {
    std::vector<std::unique_ptr<link::LinkClient>> clients;
    std::vector<std::unique_ptr<besu::Node>> own;
    std::vector<besu::Node*> nodes;
    BesuNodes(LinkHub& hub, unsigned n, const std::string& device, const link::LinkConfig& cfg,
              std::chrono::nanoseconds timeout = std::chrono::seconds(10)) {
        for (unsigned i = 0; i < n; ++i) {
            clients.push_back(
                std::make_unique<link::LinkClient>(hub.endpoint(i), device + "?pe=" + std::to_string(i), cfg));
            own.push_back(std::make_unique<besu::Node>(*clients.back(), i, timeout));
            nodes.push_back(own.back().get());
        }
    }
};

inline void run_besu_pes(LinkHub& hub, unsigned n, const std::string& device, const link::LinkConfig& cfg,
                         const std::function<void(unsigned, besu::Node&)>& fn,
                         std::chrono::nanoseconds timeout = std::chrono::seconds(10)) {
    on_pe_threads(n, [&](unsigned pe) {
        link::LinkClient c(hub.endpoint(pe), device + "?pe=" + std::to_string(pe), cfg);
        besu::Node nd(c, pe, timeout);
        fn(pe, nd);
    });
}

}  // namespace aggnet::sim
