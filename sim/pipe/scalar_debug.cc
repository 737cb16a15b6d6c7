// The scalar unit's debug ops (asc-api.md 4.15, 3.10): printf formats traced scalars into the
// launch's debug output; dump_tensor drains every pipe as Ascend C's DumpTensor does
// (PIPE_ALL before and after), so it sees what the pipes wrote, reads the tensor on the scalar
// unit in view of the race checker and costs its bytes at the MTE3 rate (the library copies them
// into the GM dump space); trap stops the core with a kernel fault; the profiling marks only
// land in the timeline.
#include <algorithm>
#include <cmath>
#include <string>

#include "sim/check/bounds.h"
#include "sim/check/buffer_use.h"
#include "sim/core/invariant.h"
#include "sim/isa/dump_format.h"
#include "sim/isa/printf_format.h"
#include "sim/pipe/launch_context.h"
#include "sim/pipe/scalar_unit.h"
#include "sim/pipe/scalar_unit_inline.h"
#include "sim/pipe/timeline.h"

namespace aicore::sim {

int64_t ScalarUnit::SystemCounter() const {
  const DebugConfig& d = ctx_.config.debug;
  if (ctx_.config.clock_mhz <= 0) return 0;
  double ticks = static_cast<double>(time_.value()) * d.system_counter_mhz / ctx_.config.clock_mhz;
  return static_cast<int64_t>(std::floor(ticks));
}

void ScalarUnit::Emit(const Instr& in, DebugRecord::Kind kind, std::string text) {
  DebugRecord r;
  r.core = core_;
  r.block_idx = block_;
  r.cycle = time_.value();
  r.location.file = ctx_.program.FileName(in);
  r.location.line = in.line;
  r.location.column = in.column;
  r.text = std::move(text);
  r.kind = kind;
  ctx_.debug_out.Add(std::move(r));
}

bool ScalarUnit::ExecPrintf(const Instr& in, Cycle /*now*/) {
  const Program& program = ctx_.program;
  const DebugInfo& d = program.debug_ops[in.aux];
  const uint32_t* slots = program.Slots(d.args);
  tmp_.clear();
  std::vector<DType> types(d.args.size);
  for (uint32_t i = 0; i < d.args.size; ++i) {
    tmp_.push_back(values_[slots[i]]);
    types[i] = program.value_dtypes[slots[i]];
  }
  Emit(in, DebugRecord::Kind::kPrintf, FormatPrintf(d.pieces, tmp_.data(), types.data()));
  return RetireScalar(ctx_.config.debug.printf_cycles);
}

bool ScalarUnit::ExecTrap(const Instr& in, Cycle /*now*/) {
  ctx_.diags.Error(ctx_.diags.Make(
      Diagnostic::Kind::kTrap, Diagnostic::Severity::kError, SiteOf(&in, PipeId::kS),
      ctx_.diags.Prefix(SiteOf(&in, PipeId::kS)) +
          ": the kernel called trap(), which stops the AI Core (remove the call, or the "
          "condition that leads to it, to run on)."));
  ctx_.Stop(LaunchResult::Status::kKernelFault);
  return false;
}

bool ScalarUnit::ExecProfMark(const Instr& in, Cycle /*now*/) {
  const Program& program = ctx_.program;
  const DebugInfo& d = program.debug_ops[in.aux];
  auto kind = static_cast<ProfMarkKind>(in.kind);
  if (kind == ProfMarkKind::kTimeStamp) {
    // Ascend C's PrintTimeStamp line; the pc is the op's index, as in traces.
    Emit(in, DebugRecord::Kind::kTimeStamp,
         "descId is " + std::to_string(static_cast<uint32_t>(Int(d.desc))) +
             ", rsv is 0, timeStamp is " + std::to_string(SystemCounter()) + ", pcPtr is " +
             std::to_string(in.op_index) + ", entry is 0.\n");
  }
  if (ctx_.timeline != nullptr) {
    TimelineEntry& e = ctx_.timeline->emplace_back();
    e.instr = &in;
    e.core = core_;
    e.block_idx = block_;
    e.pipe = PipeId::kS;
    e.kind = TimelineEntry::Kind::kProfMark;
    e.issue_cycle = e.start_cycle = e.end_cycle = time_.value();
  }
  return RetireScalar(ctx_.config.scalar_op_cycles);
}

bool ScalarUnit::ExecDumpTensor(const Instr& in, Cycle now) {
  (void)now;
  const Program& program = ctx_.program;
  const DebugInfo& d = program.debug_ops[in.aux];
  // The library's first PIPE_ALL: every write a pipe has in flight lands before the read.
  if (!host_.AllPipesDrained()) {
    wait_ = Wait::kDrain;
    wait_instr_ = &in;
    return false;
  }
  wait_ = Wait::kNone;
  NoteBarrierAll();
  Site site = SiteOf(&in, PipeId::kS);
  const TensorOperand& t = d.tensor;
  int64_t size = Int(d.dump_size);
  if (size < 0) {
    return Fault(in, "dump_tensor's dump_size is " + std::to_string(size) +
                         "; it counts elements and must be >= 0.");
  }
  uint64_t esize = DTypeSize(t.dtype);
  uint64_t count = static_cast<uint64_t>(size);
  // Any size that large fails the bounds check below; keep the product from overflowing.
  uint64_t bytes = count > (uint64_t{1} << 40) ? (uint64_t{1} << 62) : count * esize;
  uint64_t addr = values_[t.addr].u;
  if (!IsFloat(program.value_dtypes[t.addr]) && IsSigned(program.value_dtypes[t.addr])) {
    int64_t a = Int(t.addr);
    if (a < 0) return Fault(in, "dump_tensor's address is negative (" + std::to_string(a) + ").");
    addr = static_cast<uint64_t>(a);
  }
  const uint8_t* data = nullptr;
  AccessRole role{"tensor", false};
  if (bytes > 0) {
    if (t.space == MemSpace::kGm) {
      data = CheckGmAccess(env_.gm, addr, bytes, esize, role, site, ctx_.diags);
      if (data != nullptr && ctx_.gm_check != nullptr) {
        ctx_.gm_check->OnRead(site, GmSpan{addr, bytes, bytes, 1});
      }
    } else {
      LocalMemory* mem = env_.memories.Find(t.space);
      SIM_CHECK(mem != nullptr, "dump_tensor of a memory this core lacks passed the decoder");
      if (CheckLocalAccess(*mem, addr, bytes, mem->alignment(), role, site, ctx_.diags)) {
        data = mem->data() + addr;
      }
    }
    if (data == nullptr) {
      ctx_.Stop(LaunchResult::Status::kKernelFault);
      return false;
    }
    MemRange range{t.space, addr, addr + bytes, false, 0, 0};
    if (!CheckBufferUse(tpipe_, &range, 1, site, ctx_.check != CheckLevel::kOff, ctx_.diags)) {
      ctx_.Stop(LaunchResult::Status::kKernelFault);
      return false;
    }
    if (observe_) {
      uint64_t seq = order_.OnAccess(PipeId::kS);
      if (races_ != nullptr) races_->OnAccess(site, seq, &range, 1);
    }
  }
  std::vector<uint64_t> shape;
  const uint32_t* dims = program.Slots(d.shape);
  for (uint32_t i = 0; i < d.shape.size; ++i) {
    int64_t v = Int(dims[i]);
    if (v < 0) {
      return Fault(in, "dump_tensor's shape_info dim " + std::to_string(i) + " is " +
                           std::to_string(v) + "; dims must be >= 0.");
    }
    shape.push_back(static_cast<uint64_t>(v));
  }
  DumpHeader h;
  h.desc = static_cast<uint32_t>(Int(d.desc));
  h.addr = addr;
  h.dtype = t.dtype;
  h.position = MemSpaceName(t.space);
  h.dump_size = count;
  std::string text = FormatDumpTensor(h, data, shape, ctx_.debug_out.Room(core_));
  MemRange dumped{t.space, addr, addr + bytes, false, 0, 0};
  if (ctx_.unknown != nullptr && bytes > 0 && ctx_.unknown->AnyUnknown(core_, dumped)) {
    // What is printed is memory as it is, which a timing-only launch did not compute.
    text = "[timing-only launch: the values of this dump were not computed]\n" + text;
  }
  Emit(in, DebugRecord::Kind::kDumpTensor, text);
  // The library's second PIPE_ALL: nothing issued later overlaps the copy to the dump space.
  NoteBarrierAll();
  ++frames_.back().pc;
  ++stats_.instructions;
  ++ctx_.instructions;
  const DmaCostConfig& mte3 = ctx_.config.mte3;
  double copy = mte3.core_bytes_per_cycle > 0
                    ? std::ceil(static_cast<double>(bytes) / mte3.core_bytes_per_cycle)
                    : 0;
  Advance(ctx_.config.debug.dump_fixed_cycles + static_cast<uint32_t>(std::min(copy, 1e9)));
  return true;
}

}  // namespace aicore::sim
