// strf.hpp: printf into a std::string, for libaggnet's error messages and
// reports (internal to host/src).
#pragma once

#include <cstdarg>
#include <cstdio>
#include <string>

namespace aggnet::detail {

std::string strf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
inline std::string strf(const char* fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return buf;
}

}  // namespace aggnet::detail
