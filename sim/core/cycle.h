// The simulator's unit of time: a strong 64-bit cycle count of the AI Core clock. Microseconds
// exist only in reports (cycles / clock_mhz); keeping time a distinct type stops byte counts or
// element counts from being added to it by accident.
#pragma once

#include <cmath>
#include <compare>
#include <cstdint>
#include <limits>

namespace aicore::sim {

class Cycle {
 public:
  constexpr Cycle() = default;
  constexpr explicit Cycle(uint64_t value) : value_(value) {}

  static constexpr Cycle Max() { return Cycle(std::numeric_limits<uint64_t>::max()); }

  constexpr uint64_t value() const { return value_; }

  friend constexpr auto operator<=>(Cycle a, Cycle b) = default;
  friend constexpr Cycle operator+(Cycle a, Cycle b) { return Cycle(a.value_ + b.value_); }
  // Saturating so "how long since" questions never wrap when asked out of order.
  friend constexpr Cycle operator-(Cycle a, Cycle b) {
    return Cycle(a.value_ > b.value_ ? a.value_ - b.value_ : 0);
  }
  constexpr Cycle& operator+=(Cycle other) {
    value_ += other.value_;
    return *this;
  }

 private:
  uint64_t value_ = 0;
};

constexpr Cycle MaxCycle(Cycle a, Cycle b) { return a < b ? b : a; }

// Rounds a fractional duration from the config's cost figures up to whole cycles. The tiny
// tolerance keeps products like 100 * 0.91 (= 91.00000000000001 in binary) from costing 92.
inline Cycle CeilCycles(double cycles) {
  if (!(cycles > 0)) return Cycle(0);
  return Cycle(static_cast<uint64_t>(std::ceil(cycles - 1e-9)));
}

}  // namespace aicore::sim
