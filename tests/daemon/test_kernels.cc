// Builders of the test kernels (see test_kernels.h). Every op carries a source location so
// diagnostics can point at "vadd.cc:<line>".
#include "tests/daemon/test_kernels.h"

#include <string>
#include <vector>

namespace aicore::testing {
namespace {

namespace ir = aicore::ir::v1;

constexpr uint32_t kMte2V = 4;  // HardEvent values (asc-api.md)
constexpr uint32_t kVMte3 = 7;

// Hands out SSA ids and appends ops with increasing source lines.
class Builder {
 public:
  Builder(const std::string& name, const std::string& file) {
    kernel_.set_version(ir::IR_VERSION_1);
    kernel_.set_name(name);
    kernel_.set_kernel_type(ir::KERNEL_AIV_ONLY);
    kernel_.add_files(file);
  }

  uint32_t PointerParam(const std::string& name) {
    ir::Param* p = kernel_.add_params();
    p->set_name(name);
    p->set_kind(ir::Param::KIND_POINTER);
    p->set_dtype(ir::DT_FLOAT32);
    p->set_value(NewId());
    return p->value();
  }

  uint32_t ScalarParam(const std::string& name, ir::DType dtype) {
    ir::Param* p = kernel_.add_params();
    p->set_name(name);
    p->set_kind(ir::Param::KIND_SCALAR);
    p->set_dtype(dtype);
    p->set_value(NewId());
    return p->value();
  }

  uint32_t Const(ir::DType dtype, int64_t value) {
    ir::ConstOp* c = NewOp()->mutable_constant();
    c->set_result(NewId());
    c->set_dtype(dtype);
    c->set_int_value(value);
    return c->result();
  }

  uint32_t BlockIdx() {
    ir::SysValueOp* s = NewOp()->mutable_sys_value();
    s->set_result(NewId());
    s->set_kind(ir::SysValueOp::BLOCK_IDX);
    s->set_dtype(ir::DT_INT64);
    return s->result();
  }

  uint32_t Cast(uint32_t operand, ir::DType from, ir::DType to) {
    ir::ScalarUnaryOp* u = NewOp()->mutable_scalar_unary();
    u->set_result(NewId());
    u->set_kind(ir::ScalarUnaryOp::CAST);
    u->set_dtype(to);
    u->set_src_dtype(from);
    u->set_operand(operand);
    return u->result();
  }

  uint32_t Binary(ir::ScalarBinaryOp::Kind kind, ir::DType dtype, uint32_t lhs, uint32_t rhs) {
    ir::ScalarBinaryOp* b = NewOp()->mutable_scalar_binary();
    b->set_result(NewId());
    b->set_kind(kind);
    b->set_dtype(dtype);
    b->set_lhs(lhs);
    b->set_rhs(rhs);
    return b->result();
  }

  static void Tensor(ir::TensorRef* t, ir::MemSpace space, ir::Position pos, uint32_t addr,
                     uint32_t count) {
    t->set_space(space);
    t->set_position(pos);
    t->set_addr(addr);
    t->set_dtype(ir::DT_FLOAT32);
    t->set_count(count);
  }

  void Copy(ir::MemSpace dst_space, ir::Position dst_pos, uint32_t dst, ir::MemSpace src_space,
            ir::Position src_pos, uint32_t src, uint32_t count) {
    ir::DataCopyOp* d = NewOp()->mutable_data_copy();
    Tensor(d->mutable_dst(), dst_space, dst_pos, dst, count);
    Tensor(d->mutable_src(), src_space, src_pos, src, count);
    d->set_count(count);
  }

  void Add(uint32_t dst, uint32_t src0, uint32_t src1, uint32_t count) {
    ir::VecBinaryOp* v = NewOp()->mutable_vec_binary();
    v->set_kind(ir::VecBinaryOp::ADD);
    Tensor(v->mutable_dst(), ir::MEM_UB, ir::POS_VECOUT, dst, count);
    Tensor(v->mutable_src0(), ir::MEM_UB, ir::POS_VECIN, src0, count);
    Tensor(v->mutable_src1(), ir::MEM_UB, ir::POS_VECIN, src1, count);
    v->set_count(count);
  }

  void SetFlag(uint32_t event, uint32_t id) {
    ir::SetFlagOp* f = NewOp()->mutable_set_flag();
    f->set_event(event);
    f->set_event_id(id);
  }

  void WaitFlag(uint32_t event, uint32_t id) {
    ir::WaitFlagOp* f = NewOp()->mutable_wait_flag();
    f->set_event(event);
    f->set_event_id(id);
  }

  // Ops added between BeginFor and EndFor go into the loop body.
  void BeginFor(uint32_t lower, uint32_t upper, uint32_t step) {
    ir::ForOp* f = NewOp()->mutable_for_op();
    f->set_lower(lower);
    f->set_upper(upper);
    f->set_step(step);
    f->set_induction(NewId());
    f->set_dtype(ir::DT_INT64);
    outer_.push_back(region_);
    region_ = f->mutable_body();
  }
  void EndFor() { EndRegion(); }

  // Ops added between BeginIf and EndIf go into the then-region (no else, no yields).
  void BeginIf(uint32_t cond) {
    ir::IfOp* f = NewOp()->mutable_if_op();
    f->set_cond(cond);
    outer_.push_back(region_);
    region_ = f->mutable_then_region();
  }
  void EndIf() { EndRegion(); }

  void Barrier(ir::Pipe pipe) { NewOp()->mutable_pipe_barrier()->set_pipe(pipe); }

  ir::Kernel Finish() {
    kernel_.set_num_values(next_id_ - 1);
    return kernel_;
  }

 private:
  uint32_t NewId() { return next_id_++; }
  void EndRegion() {
    region_ = outer_.back();
    outer_.pop_back();
  }
  ir::Op* NewOp() {
    if (region_ == nullptr) region_ = kernel_.mutable_body();
    ir::Op* op = region_->add_ops();
    op->mutable_loc()->set_file(0);
    op->mutable_loc()->set_line(++line_);
    return op;
  }

  ir::Kernel kernel_;
  ir::Region* region_ = nullptr;    // where NewOp appends
  std::vector<ir::Region*> outer_;  // the regions around it, innermost last
  uint32_t next_id_ = 1;
  uint32_t line_ = 0;
};

}  // namespace

ir::Kernel VaddKernel(uint32_t elems_per_core) {
  Builder b("vadd", "vadd.cc");
  const uint32_t x = b.PointerParam("x");
  const uint32_t y = b.PointerParam("y");
  const uint32_t z = b.PointerParam("z");
  const uint32_t tile_bytes = elems_per_core * 4;

  // This core's slice: byte offset block_idx * tile_bytes into each GM tensor.
  const uint32_t block = b.Cast(b.BlockIdx(), ir::DT_INT64, ir::DT_UINT64);
  const uint32_t offset =
      b.Binary(ir::ScalarBinaryOp::MUL, ir::DT_UINT64, block, b.Const(ir::DT_UINT64, tile_bytes));
  const uint32_t gx = b.Binary(ir::ScalarBinaryOp::ADD, ir::DT_UINT64, x, offset);
  const uint32_t gy = b.Binary(ir::ScalarBinaryOp::ADD, ir::DT_UINT64, y, offset);
  const uint32_t gz = b.Binary(ir::ScalarBinaryOp::ADD, ir::DT_UINT64, z, offset);

  const uint32_t ub_x = b.Const(ir::DT_INT32, 0);
  const uint32_t ub_y = b.Const(ir::DT_INT32, tile_bytes);
  const uint32_t ub_z = b.Const(ir::DT_INT32, 2 * tile_bytes);
  const uint32_t count = b.Const(ir::DT_INT32, elems_per_core);
  const uint32_t event_id = b.Const(ir::DT_INT32, 0);

  b.Copy(ir::MEM_UB, ir::POS_VECIN, ub_x, ir::MEM_GM, ir::POS_GM, gx, count);
  b.Copy(ir::MEM_UB, ir::POS_VECIN, ub_y, ir::MEM_GM, ir::POS_GM, gy, count);
  b.SetFlag(kMte2V, event_id);
  b.WaitFlag(kMte2V, event_id);
  b.Add(ub_z, ub_x, ub_y, count);
  b.SetFlag(kVMte3, event_id);
  b.WaitFlag(kVMte3, event_id);
  b.Copy(ir::MEM_GM, ir::POS_GM, gz, ir::MEM_UB, ir::POS_VECOUT, ub_z, count);
  return b.Finish();
}

ir::Kernel SpinKernel(int64_t iterations) {
  Builder b("spin", "spin.cc");
  const uint32_t lower = b.Const(ir::DT_INT64, 0);
  const uint32_t upper = b.Const(ir::DT_INT64, iterations);
  const uint32_t step = b.Const(ir::DT_INT64, 1);
  const uint32_t src = b.Const(ir::DT_INT32, 0);
  const uint32_t dst = b.Const(ir::DT_INT32, 8192);
  const uint32_t count = b.Const(ir::DT_INT32, 2048);
  b.BeginFor(lower, upper, step);
  b.Add(dst, src, src, count);
  b.Barrier(ir::PIPE_V);
  b.EndFor();
  return b.Finish();
}

ir::Kernel NestedIfKernel(uint32_t depth) {
  Builder b("nested_if", "nested_if.cc");
  const uint32_t yes = b.Const(ir::DT_BOOL, 1);
  const uint32_t src = b.Const(ir::DT_INT32, 0);
  const uint32_t dst = b.Const(ir::DT_INT32, 8192);
  const uint32_t count = b.Const(ir::DT_INT32, 64);
  for (uint32_t i = 0; i < depth; ++i) b.BeginIf(yes);
  b.Add(dst, src, src, count);
  for (uint32_t i = 0; i < depth; ++i) b.EndIf();
  return b.Finish();
}

ir::Kernel StraightLineKernel(uint32_t adds, uint32_t salt) {
  Builder b("straight_" + std::to_string(salt), "straight.cc");
  const uint32_t never = b.Const(ir::DT_BOOL, 0);
  const uint32_t src = b.Const(ir::DT_INT32, 0);
  const uint32_t dst = b.Const(ir::DT_INT32, 8192);
  const uint32_t count = b.Const(ir::DT_INT32, 64);
  b.BeginIf(never);  // decoded in full, never run: the launch is quick and finds nothing
  for (uint32_t i = 0; i < adds; ++i) {
    b.Add(dst, src, src, count);
    b.Barrier(ir::PIPE_V);
  }
  b.EndIf();
  return b.Finish();
}

ir::Kernel Int32ParamKernel() {
  Builder b("int32_param", "int32_param.cc");
  b.ScalarParam("n", ir::DT_INT32);
  const uint32_t src = b.Const(ir::DT_INT32, 0);
  const uint32_t dst = b.Const(ir::DT_INT32, 8192);
  const uint32_t count = b.Const(ir::DT_INT32, 64);
  b.Add(dst, src, src, count);
  return b.Finish();
}

ir::Kernel DeadlockKernel() {
  Builder b("deadlock", "deadlock.cc");
  const uint32_t x = b.PointerParam("x");
  const uint32_t ub = b.Const(ir::DT_INT32, 0);
  const uint32_t count = b.Const(ir::DT_INT32, 64);
  const uint32_t event_id = b.Const(ir::DT_INT32, 0);
  b.Copy(ir::MEM_UB, ir::POS_VECIN, ub, ir::MEM_GM, ir::POS_GM, x, count);
  b.WaitFlag(kMte2V, event_id);  // no set_flag(MTE2_V, 0) anywhere: the V pipe waits forever
  return b.Finish();
}

}  // namespace aicore::testing
