// Decoding of set_flag / wait_flag (the event decides the pipe) and pipe_barrier.
#include "sim/bridge/decode_context.h"
#include "sim/sync/hard_event.h"

namespace aicore::sim {

Status DecodeContext::DecodeSetFlag(const ir::SetFlagOp& f, Instr* in) {
  return DecodeFlag(f.event(), f.event_id(), /*is_set=*/true, in);
}

Status DecodeContext::DecodeWaitFlag(const ir::WaitFlagOp& f, Instr* in) {
  return DecodeFlag(f.event(), f.event_id(), /*is_set=*/false, in);
}

Status DecodeContext::DecodeFlag(uint32_t event, uint32_t event_id, bool is_set, Instr* in) {
  in->opcode = is_set ? Opcode::kSetFlag : Opcode::kWaitFlag;
  if (Status s = CheckEventOnCore(event, "event"); !s.ok()) return s;
  const HardEventInfo& ev = HardEvent(event);
  if (Status u = UseInteger(event_id, "event_id"); !u.ok()) return u;
  in->event = static_cast<uint8_t>(event);
  in->a = event_id;
  in->pipe = is_set ? ev.src : ev.dst;
  return Status::Ok();
}

namespace {

// The model's pipe of an IR pipe, or false for a value that is no pipe of C220.
bool ModelPipe(int pipe, PipeId* out) {
  static constexpr struct {
    int ir;
    PipeId pipe;
  } kPipes[] = {{ir::PIPE_S, PipeId::kS},       {ir::PIPE_V, PipeId::kV},
                {ir::PIPE_M, PipeId::kM},       {ir::PIPE_MTE1, PipeId::kMte1},
                {ir::PIPE_MTE2, PipeId::kMte2}, {ir::PIPE_MTE3, PipeId::kMte3},
                {ir::PIPE_ALL, PipeId::kAll},   {ir::PIPE_FIX, PipeId::kFix}};
  for (const auto& p : kPipes) {
    if (p.ir == pipe) {
      *out = p.pipe;
      return true;
    }
  }
  return false;
}

std::string IrPipeName(int pipe) {
  return ir::Pipe_IsValid(pipe) ? ir::Pipe_Name(static_cast<ir::Pipe>(pipe)) : std::to_string(pipe);
}

// Cross-core flag ids are 4 bits (hardware-910b.md 3.4); modes 0..2 exist on A2.
constexpr uint32_t kCrossCoreModes = 3;

}  // namespace

Status DecodeContext::DecodePipeBarrier(const ir::PipeBarrierOp& b, Instr* in) {
  in->opcode = Opcode::kPipeBarrier;
  if (!ModelPipe(b.pipe(), &in->pipe)) {
    return OpError("pipe", IrPipeName(b.pipe()) +
                               " is not a pipe of Ascend 910B (C220): use PIPE_S, PIPE_V, "
                               "PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_FIX or PIPE_ALL");
  }
  return Status::Ok();
}

Status DecodeContext::DecodeCrossCoreSetFlag(const ir::CrossCoreSetFlagOp& f, Instr* in) {
  in->opcode = Opcode::kCrossCoreSetFlag;
  if (Status u = UseInteger(f.flag_id(), "flag_id"); !u.ok()) return u;
  if (f.mode() >= kCrossCoreModes) {
    return OpError("mode", std::to_string(f.mode()) +
                               " is not a cross-core mode of Ascend 910B: 0 (all cube cores, or "
                               "all vector cores, of the launch), 1 (the vector cores of one AI "
                               "Core) or 2 (a cube core and its vector cores)");
  }
  PipeId pipe = PipeId::kS;
  if (!ModelPipe(f.pipe(), &pipe) || pipe == PipeId::kS || pipe == PipeId::kAll) {
    return OpError("pipe", IrPipeName(f.pipe()) +
                               " cannot carry a cross-core set: use PIPE_V, PIPE_M, PIPE_MTE1, "
                               "PIPE_MTE2, PIPE_MTE3 or PIPE_FIX (the set fires after that "
                               "pipe's earlier work; hardware-910b.md 3.4)");
  }
  in->pipe = pipe;
  in->a = f.flag_id();
  in->event = static_cast<uint8_t>(f.mode());
  in->b = f.library() ? 1 : 0;
  return Status::Ok();
}

Status DecodeContext::DecodeCrossCoreWaitFlag(const ir::CrossCoreWaitFlagOp& f, Instr* in) {
  in->opcode = Opcode::kCrossCoreWaitFlag;
  if (Status u = UseInteger(f.flag_id(), "flag_id"); !u.ok()) return u;
  if (f.mode() >= kCrossCoreModes) {
    return OpError("mode", std::to_string(f.mode()) + " is not a cross-core mode (0, 1 or 2)");
  }
  // A2 waits on the scalar unit whatever pipe and mode the call names (asc-api.md 10.7).
  in->pipe = PipeId::kS;
  in->a = f.flag_id();
  in->event = static_cast<uint8_t>(f.mode());
  in->b = f.library() ? 1 : 0;
  return Status::Ok();
}

Status DecodeContext::DecodeGmWait(const ir::GmWaitOp& w, Instr* in) {
  in->opcode = Opcode::kGmWait;
  if (Status u = UseInteger(w.address(), "address"); !u.ok()) return u;
  if (Status d = CheckDType(w.dtype(), "dtype"); !d.ok()) return d;
  DType t = ToDType(w.dtype());
  if (!IsInteger(t)) {
    return OpError("dtype", std::string(DTypeProtoName(t)) + " is not an integer type");
  }
  if (w.cmp() == ir::GmWaitOp::CMP_INVALID || !ir::GmWaitOp::Cmp_IsValid(w.cmp())) {
    return OpError("cmp",
                   std::to_string(w.cmp()) + " is not a comparison (EQ, NE, GE, GT, LE, LT)");
  }
  if (Status u = UseInteger(w.value(), "value"); !u.ok()) return u;
  if (Status u = UseOptionalInteger(w.count(), "count"); !u.ok()) return u;
  if (Status u = UseOptionalInteger(w.stride(), "stride"); !u.ok()) return u;
  in->dtype = t;
  in->kind = static_cast<uint8_t>(w.cmp());
  in->a = w.address();
  in->b = w.value();
  in->c = w.count();
  in->aux = w.stride();
  in->event = w.any() ? 1 : 0;  // gm_wait: 1 = released when any element compares
  if (w.result() != 0) {
    if (Status d = Define(w.result(), DType::kInt32, "result"); !d.ok()) return d;
    in->result = w.result();
  }
  return Status::Ok();
}

}  // namespace aicore::sim
