// Google Benchmark of the simulator's hot units (issue 38): the event queue under the pattern a
// launch makes, and a launch of small vector instructions (the Add ladder's loop with a small
// tile on 8 cores) at each check level, reporting simulated pipe instructions per second.
// Not a test: `build/bin/aicore_sim_bench` (make bench runs it).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "sim/bridge/bridge.h"
#include "sim/core/event_queue.h"
#include "sim/soc/device.h"
#include "tests/sim/ladder_kernel.h"

namespace aicore::sim::testing {
namespace {

// A launch keeps a few events per core in flight: each pop pushes one or two a little later.
void BM_EventQueue(benchmark::State& state) {
  const auto cores = static_cast<uint32_t>(state.range(0));
  EventQueue q;
  std::mt19937_64 rng(7);
  for (uint32_t c = 0; c < cores; ++c) {
    for (uint8_t u = 0; u < 4; ++u) q.Push(Cycle(rng() % 64), EventKind::kStart, c, u, 0);
  }
  for (auto _ : state) {
    Event e = q.Pop();
    q.Push(e.cycle + Cycle(1 + rng() % 32), static_cast<EventKind>(rng() % 5), e.core, e.unit,
           e.payload + 1);
    benchmark::DoNotOptimize(e);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EventQueue)->Arg(8)->Arg(48);

// One launch, out of line so that `valgrind --tool=callgrind
// --toggle-collect='*MeasuredLaunch*'` counts the measured launches and not the warm-up.
[[gnu::noinline]] StatusOr<LaunchResult> MeasuredLaunch(Device& device, const Program& program,
                                                        uint32_t cores,
                                                        const std::vector<ArgValue>& args,
                                                        const LaunchOptions& options) {
  return device.Launch(program, cores, args, options);
}

// 8 cores, fp16 tiles of 128 elements: instruction-bound, the per-instruction cost of the model.
void BM_SmallVectorLaunch(benchmark::State& state) {
  const auto check = static_cast<CheckLevel>(state.range(0));
  const uint32_t cores = 8;
  LadderOptions o;
  o.tile = 128;
  o.total = o.tile * cores * 256;
  o.buffers = 2;
  StatusOr<SocConfig> config = LoadSocConfig("Ascend910B1");
  auto program = DecodeKernel(LadderKernel(o));
  if (!config.ok() || !program.ok()) {
    state.SkipWithError("config or kernel did not load");
    return;
  }
  Device device(*config);
  const uint64_t bytes = static_cast<uint64_t>(o.total) * 2;
  std::vector<uint16_t> host(o.total, 0x3c00);  // 1.0
  uint64_t x = *device.Malloc(bytes), y = *device.Malloc(bytes), z = *device.Malloc(bytes);
  (void)device.Write(x, host.data(), bytes);
  (void)device.Write(y, host.data(), bytes);
  LaunchOptions options;
  options.check = check;
  const std::vector<ArgValue> args = {ArgValue::Address(x), ArgValue::Address(y),
                                      ArgValue::Address(z)};
  (void)device.Launch(**program, cores, args, options);  // warm-up: first-launch allocations
  uint64_t instructions = 0;
  for (auto _ : state) {
    auto r = MeasuredLaunch(device, **program, cores, args, options);
    if (!r.ok() || r->status != LaunchResult::Status::kOk) {
      state.SkipWithError("launch failed");
      return;
    }
    instructions += r->simulated_instructions;
  }
  state.counters["instr_per_s"] =
      benchmark::Counter(static_cast<double>(instructions), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SmallVectorLaunch)
    ->Arg(static_cast<int>(CheckLevel::kOff))
    ->Arg(static_cast<int>(CheckLevel::kWarn))
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace aicore::sim::testing

BENCHMARK_MAIN();
