"""Host-side libraries of `asc`: the device runtime (`asc.lib.runtime`) and Matmul host tiling
(`asc.lib.host`)."""
