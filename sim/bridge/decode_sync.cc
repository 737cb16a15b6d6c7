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

Status DecodeContext::DecodePipeBarrier(const ir::PipeBarrierOp& b, Instr* in) {
  in->opcode = Opcode::kPipeBarrier;
  switch (b.pipe()) {
    case ir::PIPE_S:
      in->pipe = PipeId::kS;
      break;
    case ir::PIPE_V:
      in->pipe = PipeId::kV;
      break;
    case ir::PIPE_M:
      in->pipe = PipeId::kM;
      break;
    case ir::PIPE_MTE1:
      in->pipe = PipeId::kMte1;
      break;
    case ir::PIPE_MTE2:
      in->pipe = PipeId::kMte2;
      break;
    case ir::PIPE_MTE3:
      in->pipe = PipeId::kMte3;
      break;
    case ir::PIPE_ALL:
      in->pipe = PipeId::kAll;
      break;
    case ir::PIPE_FIX:
      in->pipe = PipeId::kFix;
      break;
    default:
      return OpError("pipe", (ir::Pipe_IsValid(b.pipe()) ? ir::Pipe_Name(b.pipe())
                                                         : std::to_string(b.pipe())) +
                                 " is not a pipe of Ascend 910B (C220): use PIPE_S, PIPE_V, "
                                 "PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_FIX or PIPE_ALL");
  }
  return Status::Ok();
}

}  // namespace aicore::sim
