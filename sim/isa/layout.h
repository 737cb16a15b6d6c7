// The operand layouts in C++: the OpClass enum and one LayoutInfo row per layout, both expanded
// from sim/isa/layouts.def. The stages' own columns (decoders, builders, executors) are expanded
// where their functions live; these rows hold what every stage may read.
#pragma once

#include <cstdint>
#include <string_view>

namespace aicore::sim {

// Operand layout: what the decoder reads from the IR op and the pipe reads at execution.
enum class OpClass : uint8_t {
#define AICORE_LAYOUT(e, name, sync, sources, reads_dst, scalar, build, vexec, dexec, cexec, \
                      sexec, maker)                                                          \
  e,
#include "sim/isa/layouts.def"
};

// What pipes and the scalar unit do with an item beyond executing it.
enum class SyncRole : uint8_t {
  kNone,          // compute or move data
  kSetFlag,       // fires its flag once the pipe's earlier instructions have ended
  kWaitFlag,      // blocks until its flag is set, then consumes it
  kBarrier,       // holds later instructions until every earlier one has ended
  kCrossCoreSet,  // like kSetFlag, but routes a cross-core set (sim/sync/cross_core_sync.h)
};

struct LayoutInfo {
  OpClass id;
  std::string_view name;  // docs/isa.md and asc/_isa.py: "binary"
  SyncRole sync;
  int sources;             // vector compute: tensor sources read per lane
  bool reads_dst;          // vector compute: dst is read too
  bool has_scalar;         // vector compute: a scalar operand in the element type
  std::string_view maker;  // the frontend's maker of a vector row: "module:function"
};

inline constexpr LayoutInfo kLayoutTable[] = {
#define AICORE_LAYOUT(e, name, sync, sources, reads_dst, scalar, build, vexec, dexec, cexec, \
                      sexec, maker)                                                          \
  {OpClass::e, name, SyncRole::sync, sources, reads_dst, scalar, maker},
#include "sim/isa/layouts.def"
};
inline constexpr int kNumLayouts = sizeof(kLayoutTable) / sizeof(kLayoutTable[0]);

// Layouts registered at run time (tests, plug-ins: sim/isa/opcode.h RegisterInstruction) follow
// the table's rows.
const LayoutInfo& ExtraLayout(int index);
inline const LayoutInfo& Layout(OpClass c) {
  int i = static_cast<int>(c);
  return i < kNumLayouts ? kLayoutTable[i] : ExtraLayout(i);
}

// Operand layouts of vector compute rows: how many tensor sources, whether dst is also read.
inline int VectorSources(OpClass c) { return Layout(c).sources; }
inline bool VectorReadsDst(OpClass c) { return Layout(c).reads_dst; }
inline bool VectorHasScalar(OpClass c) { return Layout(c).has_scalar; }
inline SyncRole SyncRoleOf(OpClass c) { return Layout(c).sync; }

}  // namespace aicore::sim
