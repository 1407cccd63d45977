// nand_table2.hpp: seed 002 Table 2, "Predicted and measured time using
// TTL_PAPERS", for k = 32: each operation's I/O cycles on TTL_PAPERS
// (5*ceil(k/4) = 40 for broadcast and the reductions, 5*ceil(k/2) = 80 for
// max and min) and the time measured on four 486DX33 PCs.  One copy, read by
// test_nand_ops (our I/O cycles must not exceed these) and bench_nand_ops
// (printed beside our figures).
#pragma once

#include <string>
#include <vector>

namespace aggnet::sim {

struct Table2Row {
    const char* op;  ///< the name test_nand_ops and bench_nand_ops use
    unsigned io;     ///< TTL_PAPERS I/O cycles at k = 32
    double us;       ///< measured, k = 32 (microseconds)
};

inline const std::vector<Table2Row>& nand_table2() {
    static const std::vector<Table2Row> rows = {
        {"barrier", 2, 2.5}, {"broadcast", 40, 59}, {"any", 5, 6.3},   {"all", 5, 6.3},
        {"OR", 40, 59},      {"AND", 40, 59},       {"NAND", 40, 59},  {"NOR", 40, 59},
        {"max", 80, 112},    {"min", 80, 112},      {"vote vector", 40, 59}, {"signal", 1, 1.2},
    };
    return rows;
}

/// The row of `op`, or nullptr for an operation Table 2 does not list.
inline const Table2Row* nand_table2_row(const std::string& op) {
    for (const auto& r : nand_table2())
        if (op == r.op) return &r;
    return nullptr;
}

}  // namespace aggnet::sim
