// models.cpp: the hub models aggnet-sim can run: the plugins built beside it
// (BUILD/models/<family>_n<size>.so, or $AGGNET_SIM_MODELS;
// sim/rtl_families.hpp), loaded once, on first use.
#include "hub_rtl.hpp"
#include "rtl_families.hpp"

namespace aggnet::sim {

template <>
const std::vector<RtlFamily<HubModel>>& rtl_families<HubModel>() {
    static const std::vector<RtlFamily<HubModel>> families = load_rtl_families<HubModel>(rtl_plugin_dir(), "HubModel");
    return families;
}

}  // namespace aggnet::sim
