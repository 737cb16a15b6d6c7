// Completeness and sanity checks of a SocConfig (see config_check.h).
#include "sim/soc/config_check.h"

#include <cmath>
#include <sstream>

#include "sim/isa/cost_table.h"

namespace aicore::sim {
namespace {

// Field checks: name the field with its path so the message points into the file.
class Checker {
 public:
  explicit Checker(std::string origin) : origin_(std::move(origin)) {}

  void Positive(double v, const char* field) {
    if (!(v > 0) || !std::isfinite(v)) Fail(field, "must be > 0 (got " + Num(v) + ")");
  }
  void NonNegative(double v, const char* field) {
    if (!(v >= 0) || !std::isfinite(v)) Fail(field, "must be >= 0 (got " + Num(v) + ")");
  }
  void PowerOfTwo(uint64_t v, const char* field) {
    if (v != 0 && (v & (v - 1)) != 0) Fail(field, "must be a power of two (got " + Num(v) + ")");
  }
  void NonEmpty(const std::string& v, const char* field) {
    if (v.empty()) Fail(field, "must be set");
  }
  void Fail(const std::string& field, const std::string& why) {
    if (status_.ok()) status_ = InvalidArgument(origin_ + ": field " + field + ": " + why);
  }
  const Status& status() const { return status_; }

 private:
  static std::string Num(uint64_t v) { return std::to_string(v); }
  static std::string Num(double v) {
    std::ostringstream s;
    s << v;
    return s.str();
  }
  std::string origin_;
  Status status_;
};

}  // namespace

Status ValidateSocConfig(const SocConfig& c, const std::string& origin) {
  Checker k(origin);
  k.NonEmpty(c.name, "name");
  k.NonEmpty(c.arch, "arch");
  k.Positive(c.cube_cores, "cube_cores");
  k.Positive(c.vector_cores, "vector_cores");
  k.Positive(c.clock_mhz, "clock_mhz");
  k.Positive(static_cast<double>(c.ub_bytes), "memory.ub_bytes");
  k.Positive(static_cast<double>(c.l1_bytes), "memory.l1_bytes");
  k.Positive(static_cast<double>(c.l0a_bytes), "memory.l0a_bytes");
  k.Positive(static_cast<double>(c.l0b_bytes), "memory.l0b_bytes");
  k.Positive(static_cast<double>(c.l0c_bytes), "memory.l0c_bytes");
  k.Positive(static_cast<double>(c.bt_bytes), "memory.bt_bytes");
  k.Positive(static_cast<double>(c.fb_bytes), "memory.fb_bytes");
  k.Positive(static_cast<double>(c.l2_bytes), "memory.l2_bytes");
  k.Positive(static_cast<double>(c.hbm_bytes), "memory.hbm_bytes");
  struct Alignment {
    uint32_t bytes;
    const char* field;
  };
  for (const Alignment& a : {Alignment{c.ub_alignment_bytes, "memory.ub_alignment_bytes"},
                             Alignment{c.l1_alignment_bytes, "memory.l1_alignment_bytes"},
                             Alignment{c.l0a_alignment_bytes, "memory.l0a_alignment_bytes"},
                             Alignment{c.l0b_alignment_bytes, "memory.l0b_alignment_bytes"},
                             Alignment{c.l0c_alignment_bytes, "memory.l0c_alignment_bytes"},
                             Alignment{c.bt_alignment_bytes, "memory.bt_alignment_bytes"},
                             Alignment{c.fb_alignment_bytes, "memory.fb_alignment_bytes"}}) {
    k.Positive(a.bytes, a.field);
    k.PowerOfTwo(a.bytes, a.field);
  }
  k.Positive(c.queue_depth_vector, "queue_depth.vector");
  k.Positive(c.queue_depth_cube, "queue_depth.cube");
  k.Positive(c.queue_depth_mte1, "queue_depth.mte1");
  k.Positive(c.queue_depth_mte2, "queue_depth.mte2");
  k.Positive(c.queue_depth_mte3, "queue_depth.mte3");
  k.Positive(c.queue_depth_fixpipe, "queue_depth.fixpipe");
  // Zero-cost scalar ops would let a scalar-only loop run forever without time passing.
  k.Positive(c.scalar_op_cycles, "scalar.op_cycles");
  k.NonNegative(c.scalar_issue_cycles, "scalar.issue_cycles");
  k.Positive(c.scalar_local_load_cycles, "scalar.local_load_cycles");
  k.Positive(c.scalar_local_store_cycles, "scalar.local_store_cycles");
  k.Positive(c.scalar_gm_load_cycles, "scalar.gm_load_cycles");
  k.Positive(c.scalar_gm_store_cycles, "scalar.gm_store_cycles");
  k.Positive(c.vector_repeat_bytes, "vector.repeat_bytes");
  if (c.vector_repeat_bytes % 32 != 0) k.Fail("vector.repeat_bytes", "must be a multiple of 32");
  struct Dma {
    const DmaCostConfig& d;
    const char* fixed;
    const char* burst;
    const char* rate;
  };
  for (const Dma& d :
       {Dma{c.mte2, "mte2.fixed_cycles", "mte2.per_burst_cycles", "mte2.core_bytes_per_cycle"},
        Dma{c.mte3, "mte3.fixed_cycles", "mte3.per_burst_cycles", "mte3.core_bytes_per_cycle"},
        Dma{c.ub_copy, "ub_copy.fixed_cycles", "ub_copy.per_burst_cycles",
            "ub_copy.core_bytes_per_cycle"}}) {
    k.NonNegative(d.d.fixed_cycles, d.fixed);
    k.NonNegative(d.d.per_burst_cycles, d.burst);
    k.Positive(d.d.core_bytes_per_cycle, d.rate);
  }
  k.Positive(c.hbm_read_bytes_per_cycle, "gm.hbm_read_bytes_per_cycle");
  k.Positive(c.hbm_write_bytes_per_cycle, "gm.hbm_write_bytes_per_cycle");
  k.NonNegative(c.hbm_transfer_overhead_cycles, "gm.hbm_transfer_overhead_cycles");
  k.Positive(c.gm_request_bytes, "gm.request_bytes");
  k.PowerOfTwo(c.gm_request_bytes, "gm.request_bytes");
  // An efficiency above 1 would make misaligned transfers faster than aligned ones.
  if (!(c.gm_misaligned_efficiency > 0 && c.gm_misaligned_efficiency <= 1)) {
    k.Fail("gm.misaligned_efficiency", "must be in (0, 1]");
  }
  k.Positive(c.l2.line_bytes, "l2.line_bytes");
  k.PowerOfTwo(c.l2.line_bytes, "l2.line_bytes");
  k.Positive(c.l2.ways, "l2.ways");
  k.Positive(c.l2.bytes_per_cycle, "l2.bytes_per_cycle");
  if (c.l2.line_bytes != 0 && c.l2.ways != 0 &&
      c.l2_bytes % (static_cast<uint64_t>(c.l2.line_bytes) * c.l2.ways) != 0) {
    k.Fail("l2.ways", "memory.l2_bytes must be a whole number of sets of ways * line_bytes");
  }
  k.Positive(c.ub_banks.block_bytes, "ub_banks.block_bytes");
  k.Positive(c.ub_banks.groups, "ub_banks.groups");
  k.Positive(static_cast<double>(c.ub_banks.bank_bytes), "ub_banks.bank_bytes");
  k.Positive(c.debug.system_counter_mhz, "debug.system_counter_mhz");
  k.Positive(static_cast<double>(c.debug.output_bytes_per_core), "debug.output_bytes_per_core");
  k.Positive(static_cast<double>(c.debug.output_bytes_per_launch), "debug.output_bytes_per_launch");
  k.Positive(static_cast<double>(c.gm_alloc_alignment_bytes), "gm.alloc_alignment_bytes");
  if (c.gm_alloc_alignment_bytes != 0 &&
      (c.gm_alloc_alignment_bytes & (c.gm_alloc_alignment_bytes - 1)) != 0) {
    k.Fail("gm.alloc_alignment_bytes", "must be a power of two");
  }
  k.Positive(static_cast<double>(c.gm_alloc_block_bytes), "gm.alloc_block_bytes");
  if (c.gm_alloc_alignment_bytes != 0 && c.gm_alloc_block_bytes % c.gm_alloc_alignment_bytes != 0) {
    k.Fail("gm.alloc_block_bytes", "must be a multiple of gm.alloc_alignment_bytes");
  }
  k.Positive(c.flag_ids_per_event, "flag_ids_per_event");
  if (c.flag_ids_per_event > 64) k.Fail("flag_ids_per_event", "must be <= 64");
  if (!k.status().ok()) return k.status();
  StatusOr<CostTable> costs = CostTable::Build(c);
  if (!costs.ok()) return InvalidArgument(origin + ": " + costs.status().message());
  return Status::Ok();
}

}  // namespace aicore::sim
