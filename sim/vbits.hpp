// vbits.hpp: read and write a bit field of a Verilator port, whether Verilator
// made it an integer (<= 64 bits) or a VlWide array of 32-bit words.
#pragma once

#include <aggnet/transport.hpp>
#include <verilated.h>

#include <type_traits>

namespace aggnet::sim {

template <class T>
inline void put_bits(T& sig, unsigned lsb, unsigned width, reg_t value) {
    for (unsigned i = 0; i < width; ++i) {
        const bool b = (value >> i) & 1;
        const unsigned pos = lsb + i;
        if constexpr (std::is_integral_v<T>) {
            using U = std::make_unsigned_t<T>;
            const U m = U(1) << pos;
            sig = b ? T(sig | m) : T(sig & ~m);
        } else {
            const EData m = EData(1) << (pos % 32);
            if (b) sig[pos / 32] |= m;
            else sig[pos / 32] &= ~m;
        }
    }
}

template <class T>
inline reg_t get_bits(const T& sig, unsigned lsb, unsigned width) {
    reg_t v = 0;
    for (unsigned i = 0; i < width; ++i) {
        const unsigned pos = lsb + i;
        bool b;
        if constexpr (std::is_integral_v<T>) b = (sig >> pos) & 1;
        else b = (sig[pos / 32] >> (pos % 32)) & 1;
        if (b) v |= reg_t(1) << i;
    }
    return v;
}

}  // namespace aggnet::sim
