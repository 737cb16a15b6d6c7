// The operands of an issued cube instruction beyond its IssuedInstr's transfers: the evaluated
// parameter struct its semantics function takes (sim/isa/semantics/cube.h) and the bias table's
// bytes for a Mmad with a bias. The issue stage writes them into a slot of the core's pool
// (sim/pipe/payload_pool.h); the pipe reads them when the instruction starts and frees the slot.
#pragma once

#include <cstdint>

#include "sim/isa/semantics/cube.h"

namespace aicore::sim {

struct CubeArgs {
  cube::InitConstArgs init;           // init_const_value
  cube::LoadTransposeArgs transpose;  // load_data_with_transpose
  cube::Nd2NzArgs nd2nz;              // data_copy with Nd2NzParams
  cube::LoadData2DArgs load2d;        // load_data with LoadData2DParams
  cube::LoadData3DArgs load3d;        // load_data with LoadData3DParamsV2 / V2Pro
  cube::MmadArgs mmad;
  const uint8_t* bias = nullptr;  // mmad: the bias table's row (nullptr: none)
  // mmad: the cube waits for an earlier Mmad's L0C result it accumulates onto (3.4: 10 or more
  // fractals); smaller ones read L0C as it is, which a pipe_barrier(PIPE_M) must order.
  bool interlock = false;
  cube::FixpipeArgs fixpipe;
};

}  // namespace aicore::sim
