// rtl_families.hpp: the Verilated model families of one interface, at run
// time.  A manifest's `models` entry is one family (docs/engines.md): one
// model per size behind make_<family>_rtl().  Families of the same
// interface (`base`, e.g. HubModel) are the named configurations of one top:
// the hub with every engine (`hub`), the hub with PAPERS alone
// (`hub_papers`), ...  CMake writes rtl_families<Base>() for every base
// (CMakeLists.txt, `<base>_families`); link that library to use it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace aggnet::sim {

template <class Base>
struct RtlFamily {
    const char* name;
    std::unique_ptr<Base> (*make)(unsigned n, const std::string& name, uint64_t max_cycles);
    const std::vector<unsigned>& (*sizes)();
};

/// Every family of models behind Base, in manifest order.
template <class Base>
const std::vector<RtlFamily<Base>>& rtl_families();

}  // namespace aggnet::sim
