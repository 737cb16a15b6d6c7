// GM traffic through L2 and HBM (see gm_path.h). Why each rule (hardware-910b.md 6.2, 7;
// docs/timing-model.md):
// - Reads that miss fetch whole lines from HBM; hits only cost L2 bandwidth (~5x HBM).
// - A NORMAL write goes into L2; a missing line is first read from HBM when
//   l2.write_allocate is set (the assumed reason an L2 bypass saves ~30% on streaming kernels).
//   The write itself ends when L2 has taken its bytes: the fill and any dirty eviction occupy
//   the HBM channels (and so delay everybody's later traffic) without holding this copy.
// - CACHE_MODE_DISABLE goes straight to the HBM channel of its direction.
// - A transfer not aligned to gm.request_bytes moves at gm.misaligned_efficiency on every
//   channel it uses.
#include "sim/mem/gm_path.h"

#include <algorithm>

namespace aicore::sim {

GmPath::GmPath(const SocConfig& c)
    : config_(c),
      hbm_read_(c.hbm_read_bytes_per_cycle, c.hbm_transfer_overhead_cycles),
      hbm_write_(c.hbm_write_bytes_per_cycle, c.hbm_transfer_overhead_cycles),
      l2_(c.l2.bytes_per_cycle),
      tags_(c.l2_bytes, c.l2.line_bytes, c.l2.ways) {}

double GmPath::Efficiency(uint64_t addr, uint64_t pitch, uint64_t chunks) const {
  uint64_t req = config_.gm_request_bytes;
  if (req == 0) return 1;
  bool aligned = addr % req == 0 && (chunks <= 1 || pitch % req == 0);
  return aligned ? 1.0 : config_.gm_misaligned_efficiency;
}

GmTiming GmPath::Grant(const GmTransfer& t, double now) {
  GmTiming r;
  uint64_t bytes = t.chunk_bytes * t.chunks;
  if (bytes == 0) {
    r.done = now;
    return r;
  }
  r.efficiency = Efficiency(t.addr, t.pitch, t.chunks);
  double cost = static_cast<double>(bytes) / r.efficiency;
  if (t.mode == CacheMode::kDisable) {
    if (t.write) {
      r.done = hbm_write_.Grant(now, cost);
      r.hbm_write_bytes = bytes;
    } else {
      r.done = hbm_read_.Grant(now, cost);
      r.hbm_read_bytes = bytes;
      r.latency = config_.gm_latency_cycles;
    }
    return r;
  }
  L2Cache::Access a;
  if (t.chunks <= 1 || t.pitch == t.chunk_bytes) {
    tags_.Touch(t.addr, bytes, t.write, &a);
  } else {
    tags_.TouchStrided(t.addr, t.chunk_bytes, t.pitch, t.chunks, t.write, &a);
  }
  uint64_t line = tags_.line_bytes();
  r.done = l2_.Grant(now, cost);
  uint64_t lines = a.hits + a.misses;
  r.l2_hit_bytes = lines == 0 ? 0 : bytes * a.hits / lines;
  bool fill = a.misses > 0 && (!t.write || config_.l2.write_allocate);
  if (fill) {
    uint64_t fill_bytes = a.misses * line;
    double fill_done = hbm_read_.Grant(now, static_cast<double>(fill_bytes) / r.efficiency);
    r.hbm_read_bytes = fill_bytes;
    if (!t.write) r.done = std::max(r.done, fill_done);
  }
  if (a.dirty_evictions > 0) {
    uint64_t wb = a.dirty_evictions * line;
    hbm_write_.Grant(now, static_cast<double>(wb));
    r.hbm_write_bytes = wb;
  }
  if (!t.write) {
    r.latency = a.misses > 0 ? config_.gm_latency_cycles : config_.l2.hit_latency_cycles;
  }
  return r;
}

}  // namespace aicore::sim
