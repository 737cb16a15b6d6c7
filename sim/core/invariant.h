// Simulator invariants: conditions that hold unless the simulator itself is wrong. A violation
// throws InvariantViolation; the launch engine adds which unit was running (core, pipe,
// instruction) and Device::Launch returns it as an INTERNAL status that says it is a simulator
// bug, never as a kernel fault that blames the kernel (CONVENTIONS: gem5's panic vs fatal).
#pragma once

#include <exception>
#include <source_location>
#include <string>

namespace aicore::sim {

class InvariantViolation : public std::exception {
 public:
  InvariantViolation(std::string condition, std::string where, std::string message)
      : condition_(std::move(condition)), where_(std::move(where)), message_(std::move(message)) {
    Compose();
  }

  const char* what() const noexcept override { return what_.c_str(); }
  const std::string& condition() const { return condition_; }
  const std::string& where() const { return where_; }  // "sim/pipe/pipe.cc:120"
  const std::string& message() const { return message_; }
  const std::string& unit() const { return unit_; }  // "core 3 PIPE_V add at add.py:12"

  // Names the unit that was running when the check failed (the first caller to know wins).
  void set_unit(std::string unit) {
    if (!unit_.empty()) return;
    unit_ = std::move(unit);
    Compose();
  }

 private:
  void Compose();

  std::string condition_, where_, message_, unit_, what_;
};

// Throws InvariantViolation. Out of line so the checks cost one branch where they stand.
[[noreturn]] void InvariantFailed(const char* condition, std::string message,
                                  std::source_location loc = std::source_location::current());

}  // namespace aicore::sim

// SIM_CHECK(cond, message): `message` (a std::string expression) is built only on failure.
#define SIM_CHECK(cond, message)                        \
  do {                                                  \
    if (!(cond)) [[unlikely]] {                         \
      ::aicore::sim::InvariantFailed(#cond, (message)); \
    }                                                   \
  } while (0)
