// Decoding of structured control flow: for and while (with loop-carried values) and if, each
// entering the scopes of its regions so values do not escape them.
#include "sim/bridge/decode_context.h"

namespace aicore::sim {

Status DecodeContext::DecodeFor(const ir::ForOp& f, Instr* in) {
  uint32_t depth = region_depth_;
  in->opcode = Opcode::kFor;
  if (f.dtype() != ir::DT_INT32 && f.dtype() != ir::DT_INT64) {
    return OpError("dtype", IrDTypeName(f.dtype()) +
                                " is not allowed; loop bounds are DT_INT32 "
                                "or DT_INT64");
  }
  DType t = ToDType(f.dtype());
  in->dtype = t;
  if (Status u = UseTyped(f.lower(), "lower", t); !u.ok()) return u;
  if (Status u = UseTyped(f.upper(), "upper", t); !u.ok()) return u;
  if (Status u = UseTyped(f.step(), "step", t); !u.ok()) return u;
  int n = f.init_size();
  if (f.iter_args_size() != n || f.yields_size() != n || f.results_size() != n) {
    return OpError("iter_args",
                   "init, iter_args, yields and results must have the same length "
                   "(got " +
                       std::to_string(n) + ", " + std::to_string(f.iter_args_size()) + ", " +
                       std::to_string(f.yields_size()) + ", " + std::to_string(f.results_size()) +
                       ")");
  }
  std::vector<DType> types(n);
  for (int i = 0; i < n; ++i) {
    if (Status u = Use(f.init(i), "init[" + std::to_string(i) + "]", &types[i]); !u.ok()) {
      return u;
    }
  }
  ForInfo info;
  info.lower = f.lower();
  info.upper = f.upper();
  info.step = f.step();
  info.induction = f.induction();
  info.body = NewRegion();
  info.init = AddSlots(f.init());
  info.iter_args = AddSlots(f.iter_args());
  info.yields = AddSlots(f.yields());
  info.results = AddSlots(f.results());

  EnterScope();
  if (Status d = Define(f.induction(), t, "induction"); !d.ok()) return d;
  for (int i = 0; i < n; ++i) {
    if (Status d = Define(f.iter_args(i), types[i], "iter_args[" + std::to_string(i) + "]");
        !d.ok()) {
      return d;
    }
  }
  if (Status r = DecodeRegion(f.body(), info.body, depth + 1); !r.ok()) return r;
  for (int i = 0; i < n; ++i) {
    if (Status u = UseTyped(f.yields(i), "yields[" + std::to_string(i) + "]", types[i]); !u.ok()) {
      return u;
    }
  }
  LeaveScope();
  for (int i = 0; i < n; ++i) {
    if (Status d = Define(f.results(i), types[i], "results[" + std::to_string(i) + "]"); !d.ok()) {
      return d;
    }
  }
  in->aux = static_cast<uint32_t>(p_->fors.size());
  p_->fors.push_back(info);
  return Status::Ok();
}

Status DecodeContext::DecodeWhile(const ir::WhileOp& w, Instr* in) {
  uint32_t depth = region_depth_;
  in->opcode = Opcode::kWhile;
  int n = w.init_size();
  if (w.iter_args_size() != n || w.yields_size() != n || w.results_size() != n) {
    return OpError("iter_args",
                   "init, iter_args, yields and results must have the same length "
                   "(got " +
                       std::to_string(n) + ", " + std::to_string(w.iter_args_size()) + ", " +
                       std::to_string(w.yields_size()) + ", " + std::to_string(w.results_size()) +
                       ")");
  }
  std::vector<DType> types(n);
  for (int i = 0; i < n; ++i) {
    if (Status u = Use(w.init(i), "init[" + std::to_string(i) + "]", &types[i]); !u.ok()) {
      return u;
    }
  }
  WhileInfo info;
  info.body = NewRegion();
  info.cond = w.cond();
  info.init = AddSlots(w.init());
  info.iter_args = AddSlots(w.iter_args());
  info.yields = AddSlots(w.yields());
  info.results = AddSlots(w.results());
  EnterScope();
  for (int i = 0; i < n; ++i) {
    if (Status d = Define(w.iter_args(i), types[i], "iter_args[" + std::to_string(i) + "]");
        !d.ok()) {
      return d;
    }
  }
  if (Status r = DecodeRegion(w.body(), info.body, depth + 1); !r.ok()) return r;
  for (int i = 0; i < n; ++i) {
    if (Status u = UseTyped(w.yields(i), "yields[" + std::to_string(i) + "]", types[i]); !u.ok()) {
      return u;
    }
  }
  // The condition is the body's: read after its last op, before the scope closes.
  if (Status u = UseTyped(w.cond(), "cond", DType::kBool); !u.ok()) return u;
  LeaveScope();
  for (int i = 0; i < n; ++i) {
    if (Status d = Define(w.results(i), types[i], "results[" + std::to_string(i) + "]"); !d.ok()) {
      return d;
    }
  }
  in->aux = static_cast<uint32_t>(p_->whiles.size());
  p_->whiles.push_back(info);
  return Status::Ok();
}

Status DecodeContext::DecodeIf(const ir::IfOp& f, Instr* in) {
  uint32_t depth = region_depth_;
  in->opcode = Opcode::kIf;
  if (Status u = UseTyped(f.cond(), "cond", DType::kBool); !u.ok()) return u;
  int n = f.results_size();
  if (f.then_yields_size() != n || f.else_yields_size() != n) {
    return OpError("results",
                   "then_yields, else_yields and results must have the same length "
                   "(got " +
                       std::to_string(f.then_yields_size()) + ", " +
                       std::to_string(f.else_yields_size()) + ", " + std::to_string(n) + ")");
  }
  IfInfo info;
  info.cond = f.cond();
  info.then_region = NewRegion();
  info.else_region = NewRegion();
  info.then_yields = AddSlots(f.then_yields());
  info.else_yields = AddSlots(f.else_yields());
  info.results = AddSlots(f.results());
  std::vector<DType> then_types(n), else_types(n);
  EnterScope();
  if (Status r = DecodeRegion(f.then_region(), info.then_region, depth + 1); !r.ok()) return r;
  for (int i = 0; i < n; ++i) {
    if (Status u = Use(f.then_yields(i), "then_yields[" + std::to_string(i) + "]", &then_types[i]);
        !u.ok()) {
      return u;
    }
  }
  LeaveScope();
  EnterScope();
  if (Status r = DecodeRegion(f.else_region(), info.else_region, depth + 1); !r.ok()) return r;
  for (int i = 0; i < n; ++i) {
    if (Status u =
            UseTyped(f.else_yields(i), "else_yields[" + std::to_string(i) + "]", then_types[i]);
        !u.ok()) {
      return u;
    }
  }
  LeaveScope();
  for (int i = 0; i < n; ++i) {
    if (Status d = Define(f.results(i), then_types[i], "results[" + std::to_string(i) + "]");
        !d.ok()) {
      return d;
    }
  }
  in->aux = static_cast<uint32_t>(p_->ifs.size());
  p_->ifs.push_back(info);
  return Status::Ok();
}

}  // namespace aicore::sim
