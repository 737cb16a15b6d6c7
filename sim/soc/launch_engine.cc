// The launch loop (see launch_engine.h). Single-threaded by design: determinism comes from the
// one event order, not from locks.
#include "sim/soc/launch_engine.h"

#include <algorithm>
#include <array>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/check/deadlock.h"
#include "sim/core/invariant.h"
#include "sim/core/logging.h"
#include "sim/isa/positions.h"
#include "sim/isa/scalar_ops.h"
#include "sim/pipe/launch_context.h"
#include "sim/pipe/timeline.h"
#include "sim/soc/ai_core.h"
#include "sim/soc/core_group.h"
#include "sim/soc/core_spec.h"
#include "sim/soc/group_shape.h"

namespace aicore::sim {
namespace {

// Largest grid the runtime accepts (Ascend blockDim is a u16 in the launch descriptor).
constexpr uint32_t kMaxBlockDim = 65535;
// Events between polls of LaunchOptions::cancel (a power of two).
constexpr uint64_t kCancelPollInterval = 4096;

std::string ParamList(const Program& p) {
  std::string s;
  for (size_t i = 0; i < p.params.size(); ++i) {
    if (i > 0) s += ", ";
    s += p.params[i].name;
  }
  return s;
}

// An integer argument must fit its parameter's type: a client's 2^32 + 64 for an int32 would
// otherwise run as 64.
Status IntFits(const std::string& which, int64_t value, DType dtype) {
  if (!IsInteger(dtype) && dtype != DType::kBool) return Status::Ok();
  uint32_t bits = DTypeBits(dtype);
  if (bits >= 64 && IsSigned(dtype)) return Status::Ok();
  bool fits = false;
  std::string range;
  if (dtype == DType::kBool) {
    fits = value == 0 || value == 1;
    range = "0 or 1";
  } else if (IsSigned(dtype)) {
    int64_t hi = (int64_t{1} << (bits - 1)) - 1;
    fits = value >= -hi - 1 && value <= hi;
    range = std::to_string(-hi - 1) + " .. " + std::to_string(hi);
  } else {
    uint64_t hi = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
    fits = value >= 0 && static_cast<uint64_t>(value) <= hi;
    range = "0 .. " + std::to_string(hi);
  }
  if (fits) return Status::Ok();
  return InvalidArgument(which + " is " + std::string(DTypeProtoName(dtype)) + " (" + range +
                         "); got " + std::to_string(value) + ", which does not fit");
}

Status BindArguments(const Program& program, const std::vector<ArgValue>& args,
                     std::vector<ScalarValue>* values) {
  if (args.size() != program.params.size()) {
    return InvalidArgument("kernel " + program.name + " takes " +
                           std::to_string(program.params.size()) + " arguments (" +
                           ParamList(program) + "), got " + std::to_string(args.size()));
  }
  values->assign(program.num_values + 1, IntValue(0));
  for (size_t i = 0; i < args.size(); ++i) {
    const ParamInfo& p = program.params[i];
    const ArgValue& a = args[i];
    std::string which = "argument " + std::to_string(i) + " (" + p.name + ")";
    ScalarValue v;
    if (p.kind == ParamInfo::Kind::kPointer) {
      if (a.kind == ArgValue::Kind::kAddress) {
        v.u = a.address;
      } else if (a.kind == ArgValue::Kind::kInt && a.int_value >= 0) {
        v.u = static_cast<uint64_t>(a.int_value);
      } else {
        return InvalidArgument(which + " is a GM pointer; pass a device address");
      }
    } else if (a.kind == ArgValue::Kind::kInt) {
      if (Status fits = IntFits(which, a.int_value, p.dtype); !fits.ok()) return fits;
      v = CastScalar(IntValue(a.int_value), DType::kInt64, p.dtype);
    } else if (a.kind == ArgValue::Kind::kFloat) {
      if (!IsFloat(p.dtype)) {
        return InvalidArgument(which + " is a " + std::string(DTypeProtoName(p.dtype)) +
                               " scalar; got a float");
      }
      v = RoundFloat(a.float_value, p.dtype);
    } else {
      return InvalidArgument(which + " is a " + std::string(DTypeProtoName(p.dtype)) +
                             " scalar; got a device address");
    }
    (*values)[p.slot] = v;
  }
  return Status::Ok();
}

// Cross-core sets no wait consumed by the end of the launch (CrossCoreSync::Leftovers).
// The race checker judges instructions as they are issued; after a deadlock, a race whose
// instruction never left its pipe's queue never happened: it is not reported (the deadlock is).
void DropRacesOfUnstarted(const std::vector<AiCore*>& cores, const Program& program,
                          DiagnosticSink& diags) {
  std::set<std::tuple<int32_t, std::string, std::string, std::string, uint32_t>> unstarted;
  std::vector<std::pair<PipeId, const Instr*>> queued;
  for (uint32_t c = 0; c < cores.size(); ++c) {
    queued.clear();
    cores[c]->CollectUnstarted(&queued);
    for (const auto& [pipe, instr] : queued) {
      unstarted.insert({static_cast<int32_t>(c), std::string(PipeName(pipe)),
                        std::string(Info(instr->opcode).mnemonic), program.FileName(*instr),
                        instr->line});
    }
  }
  std::vector<Diagnostic>& all = diags.diagnostics();
  all.erase(std::remove_if(all.begin(), all.end(),
                           [&](const Diagnostic& d) {
                             return d.kind == Diagnostic::Kind::kRace &&
                                    unstarted.count({d.core, d.pipe, d.op, d.location.file,
                                                     d.location.line}) > 0;
                           }),
            all.end());
}

void ReportCrossCoreLeftovers(LaunchContext& ctx, Cycle now) {
  for (const CrossCoreSync::Leftover& l : ctx.cross->Leftovers()) {
    const Instr* setter = l.setter;
    Site site{l.core, 0, setter != nullptr ? setter->pipe : PipeId::kS, setter, now};
    std::string id = std::to_string(l.id);
    std::string by = setter != nullptr ? "cross_core_set_flag at " + ctx.program.Where(*setter)
                                       : "a cross_core_set_flag";
    ctx.diags.Warn(
        ctx.diags.Make(Diagnostic::Kind::kUnmatchedFlag, Diagnostic::Severity::kWarning, site,
                       "core " + std::to_string(l.core) + ": cross-core flag " + id +
                           " still has " + std::to_string(l.count) + " pending set" +
                           (l.count > 1 ? "s" : "") + " (the first by " + by +
                           ") when the launch ends: no cross_core_wait_flag(" + id +
                           ") on this core consumed " + (l.count > 1 ? "them" : "it") +
                           ". Fix: add the matching cross_core_wait_flag(" + id +
                           ") on this core, or remove the set."),
        nullptr);
  }
}

// The memory `space` of the first core type of the kernel that has it, and that core's spec.
const MemorySpec* FindMemory(const CoreSpecs& specs, MemSpace space, const CoreSpec** owner) {
  for (const CoreSpec* spec : specs) {
    if (spec == nullptr) continue;
    for (const MemorySpec& m : spec->memories) {
      if (m.space != space) continue;
      *owner = spec;
      return &m;
    }
  }
  return nullptr;
}

// A LocalTensor declared at a compile-time address past the end of its memory on the cores that
// run it (the platform, and so the memory's size, is known only now). The chip checks accesses,
// not declarations, and pyasc's own examples declare more L1 than 910B has: a warning that names
// the tensor, its line and the size, while each access past the end is still an OUT_OF_BOUNDS
// error when it happens.
void ReportStaticTensorBounds(LaunchContext& ctx, const CoreSpecs& specs) {
  for (const StaticTensorInfo& t : ctx.program.static_tensors) {
    const CoreSpec* spec = nullptr;
    const MemorySpec* m = FindMemory(specs, t.memory, &spec);
    if (m == nullptr || t.addr + t.bytes <= m->bytes) continue;
    Instr declared;  // the declaration's place, as Program::Where reads it
    declared.file = t.file;
    declared.line = t.line;
    std::string where = ctx.program.Where(declared);
    std::string mem(MemSpaceName(t.memory));
    std::string size = std::to_string(m->bytes);
    Diagnostic d;
    d.kind = Diagnostic::Kind::kOutOfBounds;
    d.severity = Diagnostic::Severity::kWarning;
    d.message = "LocalTensor " + t.name + " at " + where + " (TPosition." +
                PositionOf(t.position)->name + ") is declared over " + mem + "[" +
                std::to_string(t.addr) + ", " + std::to_string(t.addr + t.bytes) + ") but the " +
                spec->name + "'s " + mem + " has " + size + " bytes; an access past " + size +
                " is an OUT_OF_BOUNDS error. Fix: lower its addr or tile_size so that addr + " +
                "tile_size * element size <= " + size;
    d.location.file = ctx.program.FileName(declared);
    d.location.line = t.line;
    d.memory = mem;
    d.address_lo = t.addr;
    d.address_hi = t.addr + t.bytes;
    ctx.diags.Warn(std::move(d), nullptr);
  }
}

}  // namespace

StatusOr<LaunchResult> LaunchEngine::Run(const Program& program, uint32_t block_dim,
                                         const std::vector<ArgValue>& args,
                                         const LaunchOptions& options) {
  const GroupShape& shape = GroupShapeOf(program.kernel_type);
  if (block_dim == 0 || block_dim > kMaxBlockDim) {
    return InvalidArgument("block_dim must be in 1.." + std::to_string(kMaxBlockDim) + ", got " +
                           std::to_string(block_dim));
  }
  std::vector<ScalarValue> initial;
  Status bound = BindArguments(program, args, &initial);
  if (!bound.ok()) return bound;
  // The spec of each core type the groups use: the platform's, or the caller's vector core.
  std::array<CoreSpec, kNumCoreTypes> platform_specs;
  CoreSpecs specs{};
  for (CoreType t : {CoreType::kAiv, CoreType::kAic}) {
    int i = static_cast<int>(t);
    if (shape.PerGroup(t) == 0) continue;
    if (t == CoreType::kAiv && options.vector_core != nullptr) {
      specs[i] = options.vector_core;
      continue;
    }
    StatusOr<CoreSpec> spec = CoreSpecFor(t, config_);
    if (!spec.ok()) return spec.status();
    platform_specs[i] = std::move(*spec);
    specs[i] = &platform_specs[i];
  }

  LaunchResult result;
  LaunchContext ctx(config_, program, costs_, gm_);
  ctx.block_dim = block_dim;
  ctx.check = options.check;
  if (ctx.check != CheckLevel::kOff) ReportStaticTensorBounds(ctx, specs);
  // GM findings name the tensor by the argument that points into it.
  for (const ParamInfo& p : program.params) {
    if (p.kind != ParamInfo::Kind::kPointer) continue;
    if (const GmAllocation* a = gm_.Check(initial[p.slot].u, 1).allocation) {
      ctx.diags.NameGmTensor(a->base, p.name);
    }
  }
  if (ctx.check != CheckLevel::kOff) ctx.gm_check = std::make_unique<GmChecker>(gm_, ctx.diags);
  ctx.max_cycles = options.max_cycles;
  ctx.cancel = options.cancel;
  std::vector<TimelineEntry> timeline;
  if (options.record_timeline) ctx.timeline = &timeline;
  if (options.timing_only) ctx.unknown = std::make_unique<UnknownBytes>(gm_);
  auto log = GetLogger("sim.launch");
  ctx.debug_log = log->should_log(spdlog::level::debug);

  // Block b runs on group b % groups (later blocks in waves); a group's cores are numbered
  // consecutively, so an AIV_ONLY launch's core c is group c's vector core.
  uint32_t num_groups = GroupCount(shape, config_, block_dim);
  std::vector<CorePlace> places;
  for (uint32_t g = 0; g < num_groups; ++g) CoreGroup::AppendPlaces(shape, g, &places);
  ctx.cross = std::make_unique<CrossCoreSync>(
      std::move(places),
      std::array<uint32_t, 2>{block_dim * shape.PerGroup(CoreType::kAiv),
                              block_dim * shape.PerGroup(CoreType::kAic)},
      config_.cross_core_flag_ids, config_.cross_core_flag_max_count, ctx.gm_check != nullptr);
  if (ctx.gm_check != nullptr) ctx.gm_check->set_clocks(&ctx.cross->clocks());
  std::vector<std::unique_ptr<CoreGroup>> groups;
  std::vector<AiCore*> cores;  // by core index: where events go
  groups.reserve(num_groups);
  for (uint32_t g = 0; g < num_groups; ++g) {
    groups.push_back(std::make_unique<CoreGroup>(shape, static_cast<uint32_t>(cores.size()), specs,
                                                 ctx, initial));
    for (const auto& core : groups.back()->cores()) cores.push_back(core.get());
  }
  auto num_cores = static_cast<uint32_t>(cores.size());
  for (uint32_t b = 0; b < block_dim; ++b) groups[b % num_groups]->AddBlock(b);
  for (AiCore* core : cores) core->Begin(Cycle(0));

  Cycle now;
  uint64_t processed = 0;
  auto publish_progress = [&](Cycle at, bool stopped) {
    if (options.progress == nullptr) return;
    ProgressSnapshot snapshot;
    snapshot.cycle = at.value();
    snapshot.events = processed;
    snapshot.block_dim = block_dim;
    snapshot.stopped = stopped;
    snapshot.cores.reserve(cores.size());
    for (const AiCore* core : cores) {
      snapshot.cores.push_back(core->Progress());
      snapshot.blocks_done += snapshot.cores.back().blocks_done;
    }
    options.progress->Publish(snapshot);
  };
  if (options.progress != nullptr) {
    ctx.publish_progress = [&](Cycle at) { publish_progress(MaxCycle(at, now), false); };
  }
  while (!ctx.events.empty() && !ctx.stopped) {
    if ((++processed & (kCancelPollInterval - 1)) == 0) {
      publish_progress(now, false);
      if (ctx.CheckCancel()) break;
    }
    Event e = ctx.events.Pop();
    if (ctx.max_cycles != 0 && e.cycle.value() > ctx.max_cycles) {
      Site site{e.core, 0, PipeId::kS, nullptr, Cycle(ctx.max_cycles)};
      ctx.diags.Error(ctx.diags.Make(
          Diagnostic::Kind::kCycleLimit, Diagnostic::Severity::kError, site,
          "the launch of " + program.name + " did not finish within max_cycles = " +
              std::to_string(ctx.max_cycles) + " cycles (core " + std::to_string(e.core) +
              " still had work). Fix: raise LaunchOptions.max_cycles, or check loop bounds "
              "for a loop that never ends."));
      ctx.Stop(LaunchResult::Status::kCycleLimitExceeded);
      now = Cycle(ctx.max_cycles);
      break;
    }
    now = e.cycle;
    ctx.now = now;
    try {
      cores[e.core]->HandleEvent(e);
    } catch (InvariantViolation& bug) {
      bug.set_unit(cores[e.core]->DescribeEvent(e) + " at cycle " + std::to_string(now.value()));
      throw;
    }
    now = ctx.now;
  }

  publish_progress(now, true);
  ctx.publish_progress = nullptr;
  if (ctx.cancelled || ctx.CheckCancel()) {
    return FailedPrecondition("launch of " + program.name + " cancelled at cycle " +
                              std::to_string(now.value()));
  }
  if (!ctx.stopped) {
    std::vector<WaiterInfo> waiters;
    for (const AiCore* core : cores) {
      if (!core->finished()) core->CollectWaiters(&waiters);
    }
    if (!waiters.empty()) {
      ReportDeadlock(waiters, now, ctx.diags);
      ctx.Stop(LaunchResult::Status::kDeadlock);
      DropRacesOfUnstarted(cores, ctx.program, ctx.diags);
    }
  }

  if (!ctx.stopped && ctx.check != CheckLevel::kOff) ReportCrossCoreLeftovers(ctx, now);

  Cycle last;
  for (AiCore* core : cores) {
    std::vector<CoreStats> s = core->TakeStats(now);
    for (CoreStats& cs : s) result.cores.push_back(std::move(cs));
    last = MaxCycle(last, core->end_cycle());
  }
  std::sort(result.cores.begin(), result.cores.end(),
            [](const CoreStats& a, const CoreStats& b) { return a.block_idx < b.block_idx; });
  const CoreStats* longest = nullptr;
  for (CoreStats& cs : result.cores) {
    cs.bound_pipe = BoundPipe(cs.pipes);
    if (longest == nullptr || cs.cycles > longest->cycles) longest = &cs;
  }
  if (longest != nullptr) result.bound_pipe = longest->bound_pipe;

  result.status = ctx.status;
  result.kernel_name = program.name;
  result.platform = config_.name;
  result.block_dim = block_dim;
  result.cycles = config_.LaunchOverhead(num_cores) + last.value();
  result.clock_mhz = config_.clock_mhz;
  result.duration_us = static_cast<double>(result.cycles) / config_.clock_mhz;
  result.check.level = options.check;
  ctx.diags.Finish(&result.check);
  result.diagnostics = std::move(ctx.diags.diagnostics());
  result.simulated_instructions = ctx.instructions;
  if (options.record_timeline) result.timeline = NameTimeline(program, timeline);
  result.timing_only = options.timing_only;
  result.debug_output = ctx.debug_out.Take();

  if (ctx.debug_log) {
    log->debug("{}: {} blocks on {} cores, {} cycles, {} instructions, {} diagnostics",
               program.name, block_dim, num_cores, result.cycles, ctx.instructions,
               result.diagnostics.size());
  }
  return result;
}

}  // namespace aicore::sim
