// A table-valued figure of the preset (proto FigureTable): a curve or table that one timing
// mechanism reads by name, e.g. a route's bytes-per-cycle efficiency by burst length. The first
// column is the key, strictly increasing (checked when the config loads); Lookup interpolates
// linearly between rows and holds the end rows beyond them, so a one-row table is a constant.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace aicore::sim {

struct FigureTable {
  std::string name;                       // "mte2.burst_efficiency"
  std::string source;                     // where its figures come from, or "assumed"
  std::vector<std::string> columns;       // names with their units: "burst_bytes", "efficiency"
  std::vector<std::vector<double>> rows;  // one value per column each

  // The column named `column`, or -1.
  int Column(const std::string& column) const {
    for (size_t i = 0; i < columns.size(); ++i) {
      if (columns[i] == column) return static_cast<int>(i);
    }
    return -1;
  }

  // Column `column` at key `key` (column 0), linear between rows, the end rows beyond them.
  double Lookup(double key, size_t column) const {
    if (rows.empty()) return 0;
    if (key <= rows.front()[0]) return rows.front()[column];
    if (key >= rows.back()[0]) return rows.back()[column];
    size_t hi = 1;
    while (rows[hi][0] < key) ++hi;
    const std::vector<double>& a = rows[hi - 1];
    const std::vector<double>& b = rows[hi];
    double t = (key - a[0]) / (b[0] - a[0]);
    return a[column] + t * (b[column] - a[column]);
  }
};

}  // namespace aicore::sim
