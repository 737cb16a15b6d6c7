"""Host side of `asc`: configuration, jit, compilation, launch."""
from asc.runtime import config  # noqa: F401
