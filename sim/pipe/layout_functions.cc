// The pipe layer's layout table (see layout_functions.h), expanded from sim/isa/layouts.def.
#include "sim/pipe/layout_functions.h"

#include <deque>
#include <mutex>
#include <string>

#include "sim/core/invariant.h"
#include "sim/pipe/issue.h"
#include "sim/pipe/issue_internal.h"
#include "sim/pipe/pipe_executors.h"

namespace aicore::sim {

namespace {

constexpr LayoutFunctions kFunctions[] = {
#define AICORE_LAYOUT(e, name, sync, sources, reads_dst, scalar, build, vexec, dexec, cexec, \
                      sexec, maker)                                                          \
  {&issue::build, &(vexec), &(dexec), &(cexec)},
#include "sim/isa/layouts.def"
};
static_assert(sizeof(kFunctions) / sizeof(kFunctions[0]) == kNumLayouts);

struct ExtraFunctions {
  std::mutex mu;
  std::deque<LayoutFunctions> rows;  // layout kNumLayouts + i
};

ExtraFunctions& Extras() {
  static ExtraFunctions extras;
  return extras;
}

}  // namespace

const LayoutFunctions& FunctionsOf(OpClass c) {
  int i = static_cast<int>(c);
  if (i < kNumLayouts) return kFunctions[i];
  ExtraFunctions& x = Extras();
  SIM_CHECK(i - kNumLayouts < static_cast<int>(x.rows.size()),
            "operand layout " + std::string(Layout(c).name) + " has no registered functions");
  return x.rows[i - kNumLayouts];
}

void RegisterLayoutFunctions(OpClass c, LayoutFunctions functions) {
  ExtraFunctions& x = Extras();
  std::lock_guard<std::mutex> lock(x.mu);
  auto i = static_cast<size_t>(static_cast<int>(c) - kNumLayouts);
  SIM_CHECK(static_cast<int>(c) >= kNumLayouts, "a table layout's functions are its row's");
  if (x.rows.size() <= i)
    x.rows.resize(i + 1, LayoutFunctions{&issue::NoBuild, &NoVectorExec, &NoDmaExec, &NoCubeExec});
  x.rows[i] = functions;
}

}  // namespace aicore::sim
