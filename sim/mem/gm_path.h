// The path of GM traffic shared by every core of a launch: the die's L2 (tags, hit bandwidth)
// and HBM's separate read and write channels. A copy asks it once, at its start event, when its
// bytes have passed every channel it uses; grants follow event order, so the result is
// deterministic, and the cost is O(1) per transfer plus one tag lookup per 512-byte line.
#pragma once

#include <cstdint>

#include "sim/core/config.h"
#include "sim/isa/program.h"
#include "sim/mem/hbm.h"
#include "sim/mem/l2_cache.h"

namespace aicore::sim {

// One copy's GM side: `chunks` pieces of `chunk_bytes`, `pitch` bytes apart, from `addr`.
struct GmTransfer {
  uint64_t addr = 0;
  uint64_t chunk_bytes = 0;
  uint64_t pitch = 0;
  uint64_t chunks = 0;
  bool write = false;
  CacheMode mode = CacheMode::kNormal;
};

struct GmTiming {
  double done = 0;        // absolute (fractional) cycle the last byte passed every channel
  uint32_t latency = 0;   // first-byte latency of a read (HBM or L2 hit); 0 for writes
  double efficiency = 1;  // gm.misaligned_efficiency if misaligned, else 1
  uint64_t l2_hit_bytes = 0;
  uint64_t hbm_read_bytes = 0;   // misses, write-allocate fills, bypass reads
  uint64_t hbm_write_bytes = 0;  // bypass writes, dirty evictions
};

class GmPath {
 public:
  explicit GmPath(const SocConfig& config);

  // Efficiency of a transfer from its GM address and row pitch (gm.request_bytes alignment).
  double Efficiency(uint64_t addr, uint64_t pitch, uint64_t chunks) const;

  // Grants the request `t` made at `now`: when its bytes have passed every channel it uses.
  GmTiming Grant(const GmTransfer& t, double now);

 private:
  const SocConfig& config_;
  BandwidthChannel hbm_read_;
  BandwidthChannel hbm_write_;
  BandwidthChannel l2_;
  L2Cache tags_;
};

}  // namespace aicore::sim
