// rtl_families.hpp: the Verilated model families of one interface, at run
// time.  A manifest's `models` entry is one family (docs/engines.md): one
// model per size.  Families of the same interface (`base`, e.g. HubModel)
// are the named configurations of one top: the hub with every engine
// (`hub`), the hub with PAPERS alone (`hub_papers`), ...
//
// Test suites link a family's models directly (make_<family>_rtl(),
// sim/rtl_factory.cpp.in).  A program that picks its model at run time
// (aggnet-sim --engines, --pes) loads them instead: CMake builds every
// family and size of a base as its own plugin, BUILD/models/<family>_n<size>.so
// (sim/rtl_plugin.cpp.in), and load_rtl_families() finds what was built.  So
// a program needs only the models it runs to be compiled (make demo builds
// three of them), and it can say which ones exist.
#pragma once

#include <dlfcn.h>
#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace aggnet::sim {

template <class Base>
struct RtlFamily {
    std::string name;
    std::function<std::unique_ptr<Base>(unsigned n, const std::string& name, uint64_t max_cycles)> make;
    std::vector<unsigned> built;  ///< sizes, ascending
    const std::vector<unsigned>& sizes() const { return built; }
};

/// Every family of models behind Base, in the order of their files' names (defined by the
/// program that uses it, e.g. with load_rtl_families()).
template <class Base>
const std::vector<RtlFamily<Base>>& rtl_families();

/// What a model plugin exports (aggnet_rtl_plugin(), sim/rtl_plugin.cpp.in).
/// abi: kRtlPluginAbi when built; base: the interface's name.
template <class Base>
struct RtlPlugin {
    unsigned abi;
    const char* base;
    const char* family;
    unsigned size;
    std::unique_ptr<Base> (*make)(unsigned n, const std::string& name, uint64_t max_cycles);
};
constexpr unsigned kRtlPluginAbi = 1;

/// The directory of a program's model plugins: $AGGNET_SIM_MODELS if set,
/// else models/ beside the running executable.
inline std::string rtl_plugin_dir() {
    if (const char* d = std::getenv("AGGNET_SIM_MODELS"); d && *d) return d;
    std::string exe(4096, '\0');
    const ssize_t k = ::readlink("/proc/self/exe", exe.data(), exe.size() - 1);
    if (k <= 0) return "models";
    exe.resize(size_t(k));
    return exe.substr(0, exe.rfind('/') + 1) + "models";
}

/// Loads every plugin of `base` in `dir` (files *.so; CMake names them
/// <family>_n<size>.so) and groups them into families, sizes ascending.  A file that does not load, or is a plugin of
/// another build, is an error naming it (a stale or foreign file must not
/// pass for a model); no plugin at all is an empty list.
template <class Base>
std::vector<RtlFamily<Base>> load_rtl_families(const std::string& dir, const char* base) {
    std::vector<std::string> files;
    if (DIR* d = ::opendir(dir.c_str())) {
        while (const dirent* e = ::readdir(d)) {
            const std::string f = e->d_name;
            if (f.size() > 3 && f.compare(f.size() - 3, 3, ".so") == 0) files.push_back(f);
        }
        ::closedir(d);
    }
    std::sort(files.begin(), files.end());
    using Make = std::unique_ptr<Base> (*)(unsigned, const std::string&, uint64_t);
    std::vector<RtlFamily<Base>> out;
    std::vector<std::vector<std::pair<unsigned, Make>>> makers;  // per family: its plugins' factories
    for (const std::string& f : files) {
        const std::string path = dir + "/" + f;
        // never closed: the models it makes live as long as the program
        void* h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!h) throw std::runtime_error("model plugin " + path + " does not load: " + ::dlerror());
        using Get = const void* (*)();
        auto get = reinterpret_cast<Get>(::dlsym(h, "aggnet_rtl_plugin"));
        if (!get) throw std::runtime_error("model plugin " + path + " has no aggnet_rtl_plugin()");
        const auto* p = static_cast<const RtlPlugin<Base>*>(get());
        if (p->abi != kRtlPluginAbi)
            throw std::runtime_error("model plugin " + path + " was built for plugin ABI " + std::to_string(p->abi) +
                                     ", this program loads " + std::to_string(kRtlPluginAbi) + ": rebuild it");
        if (std::strcmp(p->base, base) != 0) continue;  // another interface's model
        size_t i = 0;
        while (i < out.size() && out[i].name != p->family) ++i;
        if (i == out.size()) {
            out.push_back({p->family, nullptr, {}});
            makers.emplace_back();
        }
        if (std::find(out[i].built.begin(), out[i].built.end(), p->size) != out[i].built.end())
            throw std::runtime_error("model plugin " + path + ": " + p->family + " at " + std::to_string(p->size) +
                                     " is in " + dir + " twice");
        out[i].built.push_back(p->size);
        std::sort(out[i].built.begin(), out[i].built.end());
        makers[i].emplace_back(p->size, p->make);
    }
    for (size_t i = 0; i < out.size(); ++i) {
        out[i].make = [dir, name = out[i].name, m = makers[i]](unsigned n, const std::string& inst,
                                                              uint64_t max_cycles) -> std::unique_ptr<Base> {
            for (const auto& [size, make] : m)
                if (size == n) return make(n, inst, max_cycles);
            std::string b;
            for (const auto& sm : m) b += (b.empty() ? "" : ", ") + std::to_string(sm.first);
            throw std::invalid_argument("no " + name + " model of size " + std::to_string(n) + " in " + dir +
                                        " (built: " + b + ")");
        };
    }
    return out;
}

}  // namespace aggnet::sim
