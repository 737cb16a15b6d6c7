// C++ calibration driver: runs the Add ladder (tests/sim/ladder_kernel.h) on 48 vector cores of
// a platform and prints simulated vs measured microseconds, the error, per-point wall time and
// the pipe statistics behind each number. A benchmark, not a test; bench/calibrate.py is the
// same ladder through the Python frontend. Set AICORE_SIM_CONFIG_DIR=configs to try config
// edits without rebuilding.
//   aicore_sim_ladder [platform] [total_elements]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "sim/bridge/bridge.h"
#include "sim/isa/fp16.h"
#include "sim/isa/program.h"
#include "sim/soc/device.h"
#include "tests/sim/ladder_kernel.h"

namespace aicore::sim::testing {
namespace {

struct Point {
  const char* name;
  LadderOptions options;
  double measured_us;  // hardware-910b.md 7 [DK-addex][DK-addhi]
};

const PipeStats* Pipe(const CoreStats& c, const char* name) {
  for (const PipeStats& p : c.pipes) {
    if (p.pipe == name) return &p;
  }
  return nullptr;
}

int Main(int argc, char** argv) {
  std::string platform = argc > 1 ? argv[1] : "Ascend910B1";
  int64_t total = argc > 2 ? std::atoll(argv[2]) : 8192LL * 8192;
  const uint32_t cores = 48;
  StatusOr<SocConfig> config = LoadSocConfig(platform);
  if (!config.ok()) {
    std::fprintf(stderr, "%s\n", config.status().message().c_str());
    return 1;
  }
  Device device(*config);
  uint64_t bytes = static_cast<uint64_t>(total) * 2;
  std::vector<uint16_t> hx(total), hy(total);
  std::mt19937 rng(2024);
  std::uniform_real_distribution<float> dist(-100, 100);
  for (int64_t i = 0; i < total; ++i) {
    hx[i] = FloatToHalf(dist(rng));
    hy[i] = FloatToHalf(dist(rng));
  }
  uint64_t x = *device.Malloc(bytes), y = *device.Malloc(bytes), z = *device.Malloc(bytes);
  (void)device.Write(x, hx.data(), bytes);
  (void)device.Write(y, hy.data(), bytes);

  std::vector<Point> points = {
      {"8 KB tiles, single buffer", {total, 4096, 1, false, false}, 306.6},
      {"32 KB tiles", {total, 16384, 1, false, false}, 268.5},
      {"+ double buffer (2 x 16 KB)", {total, 8192, 2, false, false}, 264.0},
      {"+ L2 bypass", {total, 8192, 2, true, false}, 187.7},
      {"+ no bank conflict", {total, 8192, 2, true, true}, 184.5},
  };
  double sum_err = 0;
  for (const Point& p : points) {
    auto program = DecodeKernel(LadderKernel(p.options));
    if (!program.ok()) {
      std::fprintf(stderr, "%s\n", program.status().message().c_str());
      return 1;
    }
    auto t0 = std::chrono::steady_clock::now();
    auto r = device.Launch(**program, cores,
                           {ArgValue::Address(x), ArgValue::Address(y), ArgValue::Address(z)}, {});
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!r.ok() || r->status != LaunchResult::Status::kOk) {
      std::fprintf(stderr, "%s failed: %s\n", p.name,
                   r.ok() ? (r->diagnostics.empty() ? "?" : r->diagnostics[0].message.c_str())
                          : r.status().message().c_str());
      return 1;
    }
    // Spot-check the sum.
    std::vector<uint16_t> hz(total);
    (void)device.Read(z, hz.data(), bytes);
    for (int64_t i = 0; i < total; i += 9973) {
      float want = HalfToFloat(FloatToHalf(HalfToFloat(hx[i]) + HalfToFloat(hy[i])));
      if (HalfToFloat(hz[i]) != want) {
        std::fprintf(stderr, "%s: z[%lld] = %f, want %f\n", p.name, static_cast<long long>(i),
                     HalfToFloat(hz[i]), want);
        return 1;
      }
    }
    double err = (r->duration_us - p.measured_us) / p.measured_us * 100;
    sum_err += std::fabs(err);
    const CoreStats& c0 = r->cores[0];
    const PipeStats* m2 = Pipe(c0, "MTE2");
    const PipeStats* m3 = Pipe(c0, "MTE3");
    const PipeStats* v = Pipe(c0, "V");
    double mhz = r->clock_mhz;
    std::printf(
        "%-30s sim %8.1f us  measured %6.1f  err %+6.1f%%  wall %5.2f s | core0 MTE2 "
        "busy %.1f bw-stall %.1f, MTE3 busy %.1f, V busy %.2f conflict %.2f us, "
        "hbm rd %.0f MiB wr %.0f MiB l2hit %.0f MiB\n",
        p.name, r->duration_us, p.measured_us, err, wall, m2->busy_cycles / mhz,
        m2->bandwidth_stall_cycles / mhz, m3->busy_cycles / mhz, v->busy_cycles / mhz,
        v->bank_conflict_cycles / mhz, (m2->hbm_read_bytes + m3->hbm_read_bytes) * 48.0 / (1 << 20),
        (m2->hbm_write_bytes + m3->hbm_write_bytes) * 48.0 / (1 << 20),
        (m2->l2_hit_bytes + m3->l2_hit_bytes) * 48.0 / (1 << 20));
  }
  std::printf("MAPE: %.1f%%\n", sum_err / points.size());
  return 0;
}

}  // namespace
}  // namespace aicore::sim::testing

int main(int argc, char** argv) { return aicore::sim::testing::Main(argc, argv); }
