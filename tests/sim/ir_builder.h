// A small builder for kernel.proto messages so tests read like the kernels they model:
//   KernelBuilder b("add");  auto x = b.PointerParam("x", ir::DT_FLOAT16);  ...
// Every op gets the builder's current source line (At(line)); values get fresh SSA ids.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernel.pb.h"

namespace aicore::sim::testing {

namespace ir = aicore::ir::v1;

class KernelBuilder {
 public:
  explicit KernelBuilder(std::string name, std::string file = "kernel.py",
                         ir::KernelType type = ir::KERNEL_AIV_ONLY) {
    kernel_.set_version(ir::IR_VERSION_1);
    kernel_.set_name(std::move(name));
    kernel_.set_kernel_type(type);
    kernel_.add_files(std::move(file));
    stack_.push_back(kernel_.mutable_body());
  }

  // Subsequent ops carry this source line.
  KernelBuilder& At(uint32_t line) {
    line_ = line;
    return *this;
  }
  uint32_t NewValue() { return next_id_++; }
  ir::Op* AddOp() {
    ir::Op* op = stack_.back()->add_ops();
    op->mutable_loc()->set_file(0);
    op->mutable_loc()->set_line(line_);
    return op;
  }

  uint32_t PointerParam(const std::string& name, ir::DType elem) {
    return Param(name, ir::Param::KIND_POINTER, elem);
  }
  uint32_t ScalarParam(const std::string& name, ir::DType t) {
    return Param(name, ir::Param::KIND_SCALAR, t);
  }

  uint32_t Const(int64_t v, ir::DType t = ir::DT_INT64) {
    uint32_t id = NewValue();
    auto* c = AddOp()->mutable_constant();
    c->set_result(id);
    c->set_dtype(t);
    c->set_int_value(v);
    return id;
  }
  uint32_t ConstF(double v, ir::DType t = ir::DT_FLOAT32) {
    uint32_t id = NewValue();
    auto* c = AddOp()->mutable_constant();
    c->set_result(id);
    c->set_dtype(t);
    c->set_float_value(v);
    return id;
  }
  uint32_t Binary(ir::ScalarBinaryOp::Kind kind, ir::DType t, uint32_t lhs, uint32_t rhs) {
    uint32_t id = NewValue();
    auto* b = AddOp()->mutable_scalar_binary();
    b->set_result(id);
    b->set_kind(kind);
    b->set_dtype(t);
    b->set_lhs(lhs);
    b->set_rhs(rhs);
    return id;
  }
  uint32_t Add(uint32_t a, uint32_t b, ir::DType t = ir::DT_INT64) {
    return Binary(ir::ScalarBinaryOp::ADD, t, a, b);
  }
  uint32_t Mul(uint32_t a, uint32_t b, ir::DType t = ir::DT_INT64) {
    return Binary(ir::ScalarBinaryOp::MUL, t, a, b);
  }
  uint32_t Unary(ir::ScalarUnaryOp::Kind kind, ir::DType t, uint32_t v,
                 ir::DType src = ir::DT_INVALID) {
    uint32_t id = NewValue();
    auto* u = AddOp()->mutable_scalar_unary();
    u->set_result(id);
    u->set_kind(kind);
    u->set_dtype(t);
    u->set_operand(v);
    u->set_src_dtype(src);
    return id;
  }
  uint32_t Cast(uint32_t v, ir::DType from, ir::DType to) {
    return Unary(ir::ScalarUnaryOp::CAST, to, v, from);
  }
  uint32_t Sys(ir::SysValueOp::Kind kind, ir::DType t = ir::DT_INT64) {
    uint32_t id = NewValue();
    auto* s = AddOp()->mutable_sys_value();
    s->set_result(id);
    s->set_kind(kind);
    s->set_dtype(t);
    return id;
  }
  uint32_t Select(ir::DType t, uint32_t cond, uint32_t a, uint32_t b) {
    uint32_t id = NewValue();
    auto* s = AddOp()->mutable_select();
    s->set_result(id);
    s->set_dtype(t);
    s->set_cond(cond);
    s->set_true_value(a);
    s->set_false_value(b);
    return id;
  }
  // get_value / set_value: one element of `t` at element offset `index`.
  uint32_t ScalarLoad(const ir::TensorRef& t, uint32_t index) {
    uint32_t id = NewValue();
    auto* l = AddOp()->mutable_scalar_load();
    l->set_result(id);
    *l->mutable_src() = t;
    l->set_index(index);
    return id;
  }
  void ScalarStore(const ir::TensorRef& t, uint32_t index, uint32_t value) {
    auto* st = AddOp()->mutable_scalar_store();
    *st->mutable_dst() = t;
    st->set_index(index);
    st->set_value(value);
  }
  // GM byte address = ptr + elements * element_bytes (all uint64).
  uint32_t GmAddr(uint32_t ptr, uint32_t elements_i64, uint32_t element_bytes) {
    uint32_t bytes = Mul(elements_i64, Const(element_bytes));
    return Add(ptr, Cast(bytes, ir::DT_INT64, ir::DT_UINT64), ir::DT_UINT64);
  }

  static ir::TensorRef Gm(uint32_t addr, ir::DType t) {
    ir::TensorRef r;
    r.set_space(ir::MEM_GM);
    r.set_position(ir::POS_GM);
    r.set_addr(addr);
    r.set_dtype(t);
    return r;
  }
  static ir::TensorRef Ub(uint32_t addr, ir::DType t, ir::Position pos = ir::POS_VECCALC) {
    ir::TensorRef r;
    r.set_space(ir::MEM_UB);
    r.set_position(pos);
    r.set_addr(addr);
    r.set_dtype(t);
    return r;
  }

  ir::DataCopyOp* DataCopy(const ir::TensorRef& dst, const ir::TensorRef& src, uint32_t count) {
    auto* c = AddOp()->mutable_data_copy();
    *c->mutable_dst() = dst;
    *c->mutable_src() = src;
    c->set_count(count);
    return c;
  }
  ir::DataCopyOp* DataCopyParams(const ir::TensorRef& dst, const ir::TensorRef& src,
                                 uint32_t block_count, uint32_t block_len, uint32_t src_stride,
                                 uint32_t dst_stride) {
    auto* c = AddOp()->mutable_data_copy();
    *c->mutable_dst() = dst;
    *c->mutable_src() = src;
    c->set_params_form(true);
    c->set_block_count(block_count);
    c->set_block_len(block_len);
    c->set_src_stride(src_stride);
    c->set_dst_stride(dst_stride);
    return c;
  }
  ir::VecBinaryOp* VecBinary(ir::VecBinaryOp::Kind kind, const ir::TensorRef& dst,
                             const ir::TensorRef& a, const ir::TensorRef& b, uint32_t count) {
    auto* v = AddOp()->mutable_vec_binary();
    v->set_kind(kind);
    *v->mutable_dst() = dst;
    *v->mutable_src0() = a;
    *v->mutable_src1() = b;
    v->set_count(count);
    return v;
  }
  ir::VecUnaryOp* VecUnary(ir::VecUnaryOp::Kind kind, const ir::TensorRef& dst,
                           const ir::TensorRef& src, uint32_t count) {
    auto* v = AddOp()->mutable_vec_unary();
    v->set_kind(kind);
    *v->mutable_dst() = dst;
    *v->mutable_src() = src;
    v->set_count(count);
    return v;
  }
  ir::VecScalarOp* VecScalar(ir::VecScalarOp::Kind kind, const ir::TensorRef& dst,
                             const ir::TensorRef& src, uint32_t scalar, uint32_t count) {
    auto* v = AddOp()->mutable_vec_scalar();
    v->set_kind(kind);
    *v->mutable_dst() = dst;
    *v->mutable_src() = src;
    v->set_scalar(scalar);
    v->set_count(count);
    return v;
  }
  void SetFlag(uint32_t event, uint32_t id_value) {
    auto* f = AddOp()->mutable_set_flag();
    f->set_event(event);
    f->set_event_id(id_value);
  }
  void WaitFlag(uint32_t event, uint32_t id_value) {
    auto* f = AddOp()->mutable_wait_flag();
    f->set_event(event);
    f->set_event_id(id_value);
  }
  void Barrier(ir::Pipe pipe) { AddOp()->mutable_pipe_barrier()->set_pipe(pipe); }

  // ---- framework (TPipe, TQue, TBuf, TBufPool) ----------------------------------------------
  // Declarations carry the current line; ids are 1-based in declaration order.
  uint32_t Queue(const std::string& name, ir::Position src, ir::Position dst, uint32_t depth) {
    return Declare(name, ir::QueueDecl::QUEUE, src, dst, depth);
  }
  uint32_t Que(const std::string& name, ir::Position pos, uint32_t depth) {
    return Declare(name, ir::QueueDecl::QUEUE, pos, pos, depth);
  }
  uint32_t TBuf(const std::string& name, ir::Position pos = ir::POS_VECCALC) {
    return Declare(name, ir::QueueDecl::TBUF, pos, pos, 0);
  }
  uint32_t Pool(const std::string& name, ir::Position pos, uint32_t buf_id_size = 4) {
    ir::BufPoolDecl* d = kernel_.add_pools();
    d->set_id(kernel_.pools_size());
    d->set_name(name);
    d->set_position(pos);
    d->set_buf_id_size(buf_id_size);
    d->mutable_loc()->set_line(line_);
    return d->id();
  }
  void Sync(bool auto_sync, bool erase_user_flags = false) {
    kernel_.mutable_sync()->set_auto_sync(auto_sync);
    kernel_.mutable_sync()->set_erase_user_flags(erase_user_flags);
  }
  ir::FrameworkOp* Fwk(ir::FrameworkOp::Kind kind, uint32_t queue = 0,
                       const std::vector<uint32_t>& operands = {}) {
    ir::FrameworkOp* f = AddOp()->mutable_framework();
    f->set_kind(kind);
    f->set_queue(queue);
    for (uint32_t v : operands) f->add_operands(v);
    return f;
  }
  void InitBuffer(uint32_t queue, int64_t num, int64_t len) {
    Fwk(ir::FrameworkOp::INIT_BUFFER, queue, {Const(num, ir::DT_INT32), Const(len, ir::DT_INT32)});
  }
  // Result ids of an op returning (address, bytes), both DT_UINT32.
  struct Tensor {
    uint32_t addr = 0;
    uint32_t bytes = 0;
  };
  Tensor FwkTensor(ir::FrameworkOp::Kind kind, uint32_t queue) {
    ir::FrameworkOp* f = Fwk(kind, queue);
    Tensor t{NewValue(), NewValue()};
    f->set_result(t.addr);
    f->set_result2(t.bytes);
    return t;
  }
  Tensor AllocTensor(uint32_t queue) { return FwkTensor(ir::FrameworkOp::ALLOC_TENSOR, queue); }
  Tensor Deque(uint32_t queue) { return FwkTensor(ir::FrameworkOp::DEQUE, queue); }
  Tensor TBufGet(uint32_t queue) { return FwkTensor(ir::FrameworkOp::TBUF_GET, queue); }
  void Enque(uint32_t queue, uint32_t addr) { Fwk(ir::FrameworkOp::ENQUE, queue, {addr}); }
  void FreeTensor(uint32_t queue, uint32_t addr) {
    Fwk(ir::FrameworkOp::FREE_TENSOR, queue, {addr});
  }
  // A framework op with one result of the decoder-assigned dtype.
  uint32_t FwkValue(ir::FrameworkOp::Kind kind, uint32_t queue = 0, uint32_t event = 0) {
    ir::FrameworkOp* f = Fwk(kind, queue);
    f->set_event(event);
    f->set_result(NewValue());
    return f->result();
  }
  void PoolOp(ir::FrameworkOp::Kind kind, uint32_t pool, uint32_t sub_pool, uint32_t share_pool,
              const std::vector<uint32_t>& operands) {
    ir::FrameworkOp* f = Fwk(kind, 0, operands);
    f->set_pool(pool);
    f->set_sub_pool(sub_pool);
    f->set_share_pool(share_pool);
  }

  struct Loop {
    uint32_t iv;
    std::vector<uint32_t> iter_args;
  };
  // for (iv = lower; iv < upper; iv += step) with loop-carried `init` values.
  Loop BeginFor(uint32_t lower, uint32_t upper, uint32_t step, ir::DType t = ir::DT_INT64,
                const std::vector<uint32_t>& init = {}) {
    ir::ForOp* f = AddOp()->mutable_for_op();
    f->set_lower(lower);
    f->set_upper(upper);
    f->set_step(step);
    f->set_dtype(t);
    f->set_induction(NewValue());
    Loop loop{f->induction(), {}};
    for (uint32_t v : init) {
      f->add_init(v);
      uint32_t a = NewValue();
      f->add_iter_args(a);
      loop.iter_args.push_back(a);
    }
    fors_.push_back(f);
    stack_.push_back(f->mutable_body());
    return loop;
  }
  std::vector<uint32_t> EndFor(const std::vector<uint32_t>& yields = {}) {
    ir::ForOp* f = fors_.back();
    fors_.pop_back();
    stack_.pop_back();
    std::vector<uint32_t> results;
    for (uint32_t y : yields) {
      f->add_yields(y);
      uint32_t r = NewValue();
      f->add_results(r);
      results.push_back(r);
    }
    return results;
  }

  // do { body } while (cond): BeginWhile with the loop-carried `init` values, the body's ops,
  // EndWhile with the body's yields and its bool `cond`.
  Loop BeginWhile(const std::vector<uint32_t>& init = {}) {
    ir::WhileOp* w = AddOp()->mutable_while_op();
    Loop loop{0, {}};
    for (uint32_t v : init) {
      w->add_init(v);
      uint32_t a = NewValue();
      w->add_iter_args(a);
      loop.iter_args.push_back(a);
    }
    whiles_.push_back(w);
    stack_.push_back(w->mutable_body());
    return loop;
  }
  std::vector<uint32_t> EndWhile(uint32_t cond, const std::vector<uint32_t>& yields = {}) {
    ir::WhileOp* w = whiles_.back();
    whiles_.pop_back();
    stack_.pop_back();
    w->set_cond(cond);
    std::vector<uint32_t> results;
    for (uint32_t y : yields) {
      w->add_yields(y);
      uint32_t r = NewValue();
      w->add_results(r);
      results.push_back(r);
    }
    return results;
  }

  // Blocks until `count` int32 words of GM at `addr`, `stride` bytes apart, compare to `value`
  // (every one, or with `any` one of them).
  // Returns the slot of its result: bit i set when element i compared on release.
  uint32_t GmWait(uint32_t addr, ir::GmWaitOp::Cmp cmp, uint32_t value, uint32_t count,
                  uint32_t stride, bool any) {
    ir::GmWaitOp* w = AddOp()->mutable_gm_wait();
    w->set_result(NewValue());
    w->set_address(addr);
    w->set_dtype(ir::DT_INT32);
    w->set_cmp(cmp);
    w->set_value(value);
    w->set_count(count);
    w->set_stride(stride);
    w->set_any(any);
    return w->result();
  }

  // if (cond) { then } else { else }: BeginIf, ops, Else, ops, EndIf.
  void BeginIf(uint32_t cond) {
    ir::IfOp* f = AddOp()->mutable_if_op();
    f->set_cond(cond);
    ifs_.push_back(f);
    stack_.push_back(f->mutable_then_region());
  }
  void Else() {
    stack_.pop_back();
    stack_.push_back(ifs_.back()->mutable_else_region());
  }
  std::vector<uint32_t> EndIf(const std::vector<uint32_t>& then_yields = {},
                              const std::vector<uint32_t>& else_yields = {}) {
    ir::IfOp* f = ifs_.back();
    ifs_.pop_back();
    stack_.pop_back();
    std::vector<uint32_t> results;
    for (size_t i = 0; i < then_yields.size(); ++i) {
      f->add_then_yields(then_yields[i]);
      f->add_else_yields(else_yields[i]);
      uint32_t r = NewValue();
      f->add_results(r);
      results.push_back(r);
    }
    return results;
  }

  ir::Kernel Build() {
    kernel_.set_num_values(next_id_ - 1);
    return kernel_;
  }
  ir::Kernel& kernel() { return kernel_; }

 private:
  uint32_t Declare(const std::string& name, ir::QueueDecl::Kind kind, ir::Position src,
                   ir::Position dst, uint32_t depth) {
    ir::QueueDecl* q = kernel_.add_queues();
    q->set_id(kernel_.queues_size());
    q->set_kind(kind);
    q->set_name(name);
    q->set_src_position(src);
    q->set_dst_position(dst);
    q->set_depth(depth);
    q->mutable_loc()->set_line(line_);
    return q->id();
  }

  uint32_t Param(const std::string& name, ir::Param::Kind kind, ir::DType t) {
    uint32_t id = NewValue();
    ir::Param* p = kernel_.add_params();
    p->set_name(name);
    p->set_kind(kind);
    p->set_dtype(t);
    p->set_value(id);
    return id;
  }

  ir::Kernel kernel_;
  std::vector<ir::Region*> stack_;
  std::vector<ir::ForOp*> fors_;
  std::vector<ir::IfOp*> ifs_;
  std::vector<ir::WhileOp*> whiles_;
  uint32_t next_id_ = 1;
  uint32_t line_ = 1;
};

}  // namespace aicore::sim::testing
