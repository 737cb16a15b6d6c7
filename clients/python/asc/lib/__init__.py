"""Host-side libraries of `asc` (device runtime; host tiling arrives with Matmul)."""
