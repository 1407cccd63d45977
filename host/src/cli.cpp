// cli.cpp: option values (aggnet/cli.hpp).
#include <aggnet/cli.hpp>

namespace aggnet::cli {

uint64_t number(const std::string& opt, const std::string& text, uint64_t lo, uint64_t hi) {
    auto bad = [&](const std::string& why) -> UsageError {
        return UsageError(opt + " wants a number in " + std::to_string(lo) + ".." + std::to_string(hi) + ", not '" +
                          text + "'" + (why.empty() ? "" : " (" + why + ")"));
    };
    if (text.empty()) throw bad("empty");
    const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    const std::string digits = hex ? text.substr(2) : text;
    const unsigned base = hex ? 16 : 10;
    uint64_t v = 0;
    for (char c : digits) {
        unsigned d;
        if (c >= '0' && c <= '9') d = unsigned(c - '0');
        else if (hex && c >= 'a' && c <= 'f') d = unsigned(c - 'a' + 10);
        else if (hex && c >= 'A' && c <= 'F') d = unsigned(c - 'A' + 10);
        else throw bad(hex ? "not a hexadecimal number" : "not a decimal number; hexadecimal takes 0x");
        if (v > (UINT64_MAX - d) / base) throw bad("too large");
        v = v * base + d;
    }
    if (v < lo || v > hi) throw bad(v < lo ? "too small" : "too large");
    return v;
}

std::string nonempty(const std::string& opt, const std::string& text) {
    if (text.empty()) throw UsageError(opt + " wants a value, not an empty string");
    return text;
}

}  // namespace aggnet::cli
