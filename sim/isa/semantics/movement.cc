// Data movement on PIPE_V. Rearrangement (see movement.h): each instruction is a list of byte
// moves inside UB, computed from its evaluated operands and, for gather/scatter/gather_mask, from
// the offsets or the pattern it reads from UB when it starts. copy (asc-api.md 4.2) moves the bits
// of its active lanes unchanged, for every b16 and b32 element type of its row.
#include "sim/isa/semantics/movement.h"

#include <cstring>

#include "sim/core/invariant.h"
#include "sim/isa/opcode.h"
#include "sim/isa/semantics/element_loops.h"

namespace aicore::sim {
namespace {

constexpr uint64_t kBlock = 32;
constexpr uint64_t kRepeat = 256;

std::string Range(uint64_t lo, uint64_t n) {
  return "UB[" + std::to_string(lo) + ", " + std::to_string(lo + n) + ")";
}

// Moves bytes from UB into the target image, checking both ends against UB.
class Mover {
 public:
  Mover(const uint8_t* ub, uint64_t ub_bytes, const MoveTarget& t, std::string* fault)
      : ub_(ub), ub_bytes_(ub_bytes), t_(t), fault_(fault) {}

  bool Inside(uint64_t addr, uint64_t n, const char* what) {
    if (addr <= ub_bytes_ && n <= ub_bytes_ - addr) return true;
    *fault_ = std::string(what) + " " + Range(addr, n) + " is outside UB (" +
              std::to_string(ub_bytes_) + " bytes)";
    return false;
  }
  bool Read(uint64_t addr, void* out, uint64_t n, const char* what) {
    if (!Inside(addr, n, what)) return false;
    std::memcpy(out, ub_ + addr, n);
    return true;
  }
  bool U32(uint64_t addr, uint32_t* v, const char* what) { return Read(addr, v, 4, what); }
  bool Copy(uint64_t dst, uint64_t src, uint64_t n, const char* src_what = "the source",
            const char* dst_what = "the destination") {
    if (!Inside(src, n, src_what) || !Inside(dst, n, dst_what)) return false;
    // The issue stage sized the image to every byte the instruction can write.
    SIM_CHECK(dst >= t_.lo && dst + n <= t_.lo + t_.span, "a rearrangement wrote " + Range(dst, n) +
                                                              " outside its planned dst span " +
                                                              Range(t_.lo, t_.span));
    std::memcpy(t_.image + (dst - t_.lo), ub_ + src, n);
    std::memset(t_.written + (dst - t_.lo), 1, n);
    return true;
  }

 private:
  const uint8_t* ub_;
  uint64_t ub_bytes_;
  MoveTarget t_;
  std::string* fault_;
};

bool LaneActive(const MoveArgs& a, uint64_t r, uint64_t e, uint64_t lanes) {
  if (a.counter) return r * lanes + e < a.count;
  if (e >= 128) return false;
  return e < 64 ? ((a.mask_lo >> e) & 1u) != 0 : ((a.mask_hi >> (e - 64)) & 1u) != 0;
}

uint64_t Iterations(const MoveArgs& a, uint64_t lanes) {
  return a.counter ? (a.count + lanes - 1) / lanes : a.repeats;
}

bool Brcb(const MoveArgs& a, Mover& m) {
  uint64_t s = DTypeSize(a.dtype);
  for (uint64_t r = 0; r < a.repeats; ++r) {
    for (uint64_t t = 0; t < 8; ++t) {
      uint64_t block = a.dst + (r * a.dst_rep + t * a.dst_blk) * kBlock;
      for (uint64_t k = 0; k < kBlock / s; ++k) {
        if (!m.Copy(block + k * s, a.src + (r * 8 + t) * s, s)) return false;
      }
    }
  }
  return true;
}

// Gather and scatter: lane e of iteration r uses offset r * lanes + e.
bool GatherScatter(const MoveArgs& a, Mover& m, bool scatter) {
  uint64_t s = DTypeSize(a.dtype);
  uint64_t lanes = kRepeat / s;
  uint64_t iterations = Iterations(a, lanes);
  for (uint64_t r = 0; r < iterations; ++r) {
    for (uint64_t e = 0; e < lanes; ++e) {
      if (!LaneActive(a, r, e, lanes)) continue;
      uint32_t off = 0;
      if (!m.U32(a.index + (r * lanes + e) * 4, &off, "the offset")) return false;
      uint64_t at = a.base + off;
      bool ok = scatter ? m.Copy(a.dst + at, a.src + r * a.src_rep * kBlock + e * s, s,
                                 "the source", "the scattered element")
                        : m.Copy(a.dst + r * a.dst_rep * kBlock + e * s, a.src + at, s,
                                 "the gathered element");
      if (!ok) return false;
    }
  }
  return true;
}

bool Gatherb(const MoveArgs& a, Mover& m) {
  uint64_t blk = a.dst_blk == 0 ? 1 : a.dst_blk;  // ascendc-semantics.md 5.8
  for (uint64_t r = 0; r < a.repeats; ++r) {
    for (uint64_t j = 0; j < 8; ++j) {
      uint32_t off = 0;
      if (!m.U32(a.index + (r * 8 + j) * 4, &off, "the offset")) return false;
      if (!m.Copy(a.dst + (r * a.dst_rep + j * blk) * kBlock, a.src + off, kBlock,
                  "the gathered block")) {
        return false;
      }
    }
  }
  return true;
}

bool PatternBit(const MoveArgs& a, Mover& m, uint64_t r, uint64_t e, bool* bit) {
  switch (a.pattern) {
    case 1:
      *bit = e % 2 == 0;
      return true;
    case 2:
      *bit = e % 2 == 1;
      return true;
    case 3:
    case 4:
    case 5:
    case 6:
      *bit = e % 4 == static_cast<uint64_t>(a.pattern - 3);
      return true;
    case 7:
      *bit = true;
      return true;
    default: {
      uint8_t byte = 0;
      if (!m.Read(a.index + r * a.index_rep * kBlock + e / 8, &byte, 1, "the pattern")) {
        return false;
      }
      *bit = ((byte >> (e % 8)) & 1u) != 0;
      return true;
    }
  }
}

bool GatherMask(const MoveArgs& a, Mover& m, uint64_t* kept) {
  uint64_t s = DTypeSize(a.dtype);
  uint64_t lanes = kRepeat / s;
  uint64_t per_block = kBlock / s;
  uint64_t active = a.reduce_mode ? a.mask_len : lanes;
  uint64_t k = 0;
  for (uint64_t r = 0; r < a.repeats; ++r) {
    for (uint64_t e = 0; e < active; ++e) {
      bool bit = false;
      if (!PatternBit(a, m, r, e, &bit)) return false;
      if (!bit) continue;
      uint64_t src =
          a.src + (r * a.src_rep + e / per_block * a.src_blk) * kBlock + e % per_block * s;
      if (!m.Copy(a.dst + k * s, src, s)) return false;
      ++k;
    }
  }
  *kept = k;
  return true;
}

bool Transpose(const MoveArgs& a, Mover& m) {
  constexpr uint64_t s = 2;
  if (a.transpose_type == 0) {
    for (uint64_t i = 0; i < 16; ++i) {
      for (uint64_t j = 0; j < 16; ++j) {
        if (!m.Copy(a.dst + (i * 16 + j) * s, a.src + (j * 16 + i) * s, s)) return false;
      }
    }
    return true;
  }
  uint64_t n = a.n, c = a.c, h = a.h, w = a.w;
  if (a.transpose_type == kTransposeNd2NdB16) {
    uint64_t mats = (n == 0 ? 1 : n) * (c == 0 ? 1 : c);
    for (uint64_t b = 0; b < mats; ++b) {
      uint64_t off = b * h * w * s;
      for (uint64_t i = 0; i < h; ++i) {
        for (uint64_t j = 0; j < w; ++j) {
          if (!m.Copy(a.dst + off + (j * h + i) * s, a.src + off + (i * w + j) * s, s)) {
            return false;
          }
        }
      }
    }
    return true;
  }
  bool to_nhwc = a.transpose_type == kTransposeNchw2Nhwc;
  for (uint64_t in = 0; in < n; ++in) {
    for (uint64_t ic = 0; ic < c; ++ic) {
      for (uint64_t ih = 0; ih < h; ++ih) {
        for (uint64_t iw = 0; iw < w; ++iw) {
          uint64_t nchw = ((in * c + ic) * h + ih) * w + iw;
          uint64_t nhwc = ((in * h + ih) * w + iw) * c + ic;
          uint64_t d = to_nhwc ? nhwc : nchw, sr = to_nhwc ? nchw : nhwc;
          if (!m.Copy(a.dst + d * s, a.src + sr * s, s)) return false;
        }
      }
    }
  }
  return true;
}

// ascendc-semantics.md 5.10. A single repeat is already offset by the repeat strides.
bool TransDataTo5hd(const MoveArgs& given, Mover& m) {
  MoveArgs a = given;
  if (a.addr_tensors) {
    for (int i = 0; i < 16; ++i) {
      if (!m.Read(a.dst_addrs + i * 8, &a.dst_list[i], 8, "the address list") ||
          !m.Read(a.src_addrs + i * 8, &a.src_list[i], 8, "the address list")) {
        return false;
      }
    }
  }
  uint64_t s = DTypeSize(a.dtype);
  for (uint64_t r = 0; r < a.repeats; ++r) {
    uint64_t step = a.repeats == 1 ? 1 : r;
    uint64_t od = step * a.dst_rep * kBlock, os = step * a.src_rep * kBlock;
    if (s == 1 || s == 2) {
      uint64_t dh = s == 1 && a.dst_high ? 16 : 0, sh = s == 1 && a.src_high ? 16 : 0;
      for (uint64_t i = 0; i < 16; ++i) {
        for (uint64_t j = 0; j < 16; ++j) {
          if (!m.Copy(a.dst_list[j] + od + (dh + i) * s, a.src_list[i] + os + (sh + j) * s, s)) {
            return false;
          }
        }
      }
      continue;
    }
    for (uint64_t row = 0; row < 8; ++row) {
      for (uint64_t h = 0; h < 2; ++h) {
        for (uint64_t e = 0; e < 8; ++e) {
          if (!m.Copy(a.dst_list[2 * row + h] + od + e * s, a.src_list[8 * h + e] + os + row * s,
                      s)) {
            return false;
          }
        }
      }
    }
  }
  return true;
}

// The element types this file moves, per kind (the rows list the same).
bool Admits(MoveKind k, DType t) {
  switch (t) {
    case DType::kInt8:
    case DType::kUInt8:
      return k == MoveKind::kTransDataTo5hd;
    case DType::kFloat16:
    case DType::kInt16:
    case DType::kUInt16:
      return true;
    case DType::kBFloat16:
      return k != MoveKind::kGatherMask;
    case DType::kFloat32:
    case DType::kInt32:
    case DType::kUInt32:
      return k != MoveKind::kTranspose && k != MoveKind::kTransposeExt;
    default:
      return false;
  }
}

// A row's function: checks the element type, then runs the move the pipe gave (none when the
// table's tests call it).
void Run(const VecOperands& o, MoveKind kind, const char* name) {
  if (!Admits(kind, o.dtype)) semantics::UnsupportedDType(name, o.dtype);
  if (o.move == nullptr) return;
  MoveCall& call = *o.move;
  SIM_CHECK(call.args != nullptr && call.args->dtype == o.dtype,
            std::string(name) + " ran without its operands");
  call.ok = RunMove(*call.args, call.ub, call.ub_bytes, call.target, &call.kept, &call.fault);
}

}  // namespace

uint64_t GatherMaskPatternBytes(DType t, bool reduce_mode, uint64_t mask_len) {
  uint64_t lanes = kRepeat / DTypeSize(t);
  return ((reduce_mode ? mask_len : lanes) + 7) / 8;
}

bool RunMove(const MoveArgs& a, const uint8_t* ub, uint64_t ub_bytes, const MoveTarget& t,
             uint64_t* kept, std::string* fault) {
  Mover m(ub, ub_bytes, t, fault);
  switch (a.kind) {
    case MoveKind::kBrcb:
      return Brcb(a, m);
    case MoveKind::kGather:
      return GatherScatter(a, m, false);
    case MoveKind::kScatter:
      return GatherScatter(a, m, true);
    case MoveKind::kGatherb:
      return Gatherb(a, m);
    case MoveKind::kGatherMask:
      return GatherMask(a, m, kept);
    case MoveKind::kTranspose:
    case MoveKind::kTransposeExt:
      return Transpose(a, m);
    case MoveKind::kTransDataTo5hd:
      return TransDataTo5hd(a, m);
  }
  return false;
}

void VecBrcb(const VecOperands& o) { Run(o, MoveKind::kBrcb, "brcb"); }
void VecGather(const VecOperands& o) { Run(o, MoveKind::kGather, "gather"); }
void VecGatherb(const VecOperands& o) { Run(o, MoveKind::kGatherb, "gatherb"); }
void VecScatter(const VecOperands& o) { Run(o, MoveKind::kScatter, "scatter"); }
void VecGatherMask(const VecOperands& o) { Run(o, MoveKind::kGatherMask, "gather_mask"); }
void VecTranspose(const VecOperands& o) { Run(o, MoveKind::kTranspose, "transpose"); }
void VecTransDataTo5hd(const VecOperands& o) {
  Run(o, MoveKind::kTransDataTo5hd, "trans_data_to_5hd");
}

void VecCopy(const VecOperands& o) {
  if (!VectorOpSupports(Opcode::kVecCopy, o.dtype)) semantics::UnsupportedDType("copy", o.dtype);
  std::memcpy(o.dst, o.src0, o.count * DTypeSize(o.dtype));
}

}  // namespace aicore::sim
