// DumpTensor's text (see dump_format.h).
#include "sim/isa/dump_format.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "sim/isa/fp16.h"

namespace aicore::sim {
namespace {

template <typename T>
T Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// One element as the library prints it: integers in decimal, floats with %f.
void AppendElement(DType t, const uint8_t* p, std::string* out) {
  char buf[64];
  int n = 0;
  if (IsFloat(t)) {
    double v = t == DType::kFloat16    ? HalfToFloat(Load<uint16_t>(p))
               : t == DType::kBFloat16 ? Bf16ToFloat(Load<uint16_t>(p))
               : t == DType::kFloat32  ? Load<float>(p)
                                       : Load<double>(p);
    n = std::snprintf(buf, sizeof buf, "%f", v);
  } else {
    uint32_t bits = DTypeSize(t) * 8;
    uint64_t raw = 0;
    std::memcpy(&raw, p, DTypeSize(t));  // little-endian host, as the chip
    if (IsSigned(t)) {
      // Sign-extend from the element's width.
      auto v = static_cast<int64_t>(raw << (64 - bits)) >> (64 - bits);
      n = std::snprintf(buf, sizeof buf, "%" PRId64, v);
    } else {
      n = std::snprintf(buf, sizeof buf, "%" PRIu64, raw);
    }
  }
  // A huge float prints hundreds of digits with %f; keep what fits.
  if (n > 0) out->append(buf, static_cast<size_t>(n) < sizeof buf ? n : sizeof buf - 1);
}

class Printer {
 public:
  Printer(DType t, const uint8_t* data, uint64_t count, const std::vector<uint64_t>& shape,
          uint64_t budget, std::string* out)
      : t_(t), data_(data), count_(count), shape_(shape), budget_(budget), out_(out) {}

  // Dims [dim, end) of the shape, starting at element `next_`.
  void Level(size_t dim) {
    *out_ += '[';
    uint64_t n = dim < shape_.size() ? shape_[dim] : count_;
    for (uint64_t i = 0; i < n && next_ < count_ && !Full(); ++i) {
      if (i > 0) *out_ += dim + 1 < shape_.size() ? ",\n" : ", ";
      if (dim + 1 < shape_.size()) {
        Level(dim + 1);
      } else {
        AppendElement(t_, data_ + next_ * DTypeSize(t_), out_);
        ++next_;
      }
    }
    *out_ += ']';
  }

  // Elements the shape does not cover print as one more flat row.
  void Rest() {
    if (next_ >= count_ || Full()) return;
    *out_ += ",\n[";
    for (bool first = true; next_ < count_ && !Full(); ++next_, first = false) {
      if (!first) *out_ += ", ";
      AppendElement(t_, data_ + next_ * DTypeSize(t_), out_);
    }
    *out_ += ']';
  }

 private:
  bool Full() const { return out_->size() > budget_; }

  DType t_;
  const uint8_t* data_;
  uint64_t count_;
  const std::vector<uint64_t>& shape_;
  uint64_t budget_;
  std::string* out_;
  uint64_t next_ = 0;
};

}  // namespace

std::string FormatDumpTensor(const DumpHeader& h, const uint8_t* data,
                             const std::vector<uint64_t>& shape, uint64_t budget_bytes) {
  std::string out =
      "DumpTensor: desc=" + std::to_string(h.desc) + ", addr=" + std::to_string(h.addr) +
      ", data_type=" + std::string(DTypeName(h.dtype)) + ", position=" + std::string(h.position) +
      ", dump_size=" + std::to_string(h.dump_size) + "\n";
  Printer p(h.dtype, data, h.dump_size, shape, budget_bytes, &out);
  p.Level(0);
  if (!shape.empty()) p.Rest();
  out += '\n';
  return out;
}

}  // namespace aicore::sim
