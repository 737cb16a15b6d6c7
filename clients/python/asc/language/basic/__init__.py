"""Basic API: data movement, vector instructions, synchronisation, system values, debug output."""
from asc import _unsupported
from asc.language.basic.aipp import *  # noqa: F401,F403
from asc.language.basic.aipp import __all__ as _aipp_all
from asc.language.basic.atomic import *  # noqa: F401,F403
from asc.language.basic.atomic import __all__ as _atomic_all
from asc.language.basic.cube import *  # noqa: F401,F403
from asc.language.basic.cube import __all__ as _cube_all
from asc.language.basic.cube_config import *  # noqa: F401,F403
from asc.language.basic.cube_config import __all__ as _cube_config_all
from asc.language.basic.cube_loads import *  # noqa: F401,F403
from asc.language.basic.cube_loads import __all__ as _cube_loads_all
from asc.language.basic.cube_open import *  # noqa: F401,F403
from asc.language.basic.cube_open import __all__ as _cube_open_all
from asc.language.basic.data_copy import *  # noqa: F401,F403
from asc.language.basic.data_copy import __all__ as _copy_all
from asc.language.basic.deq import *  # noqa: F401,F403
from asc.language.basic.deq import __all__ as _deq_all
from asc.language.basic.debug import *  # noqa: F401,F403
from asc.language.basic.debug import __all__ as _debug_all
from asc.language.basic.list_tensor import *  # noqa: F401,F403
from asc.language.basic.list_tensor import __all__ as _list_all
from asc.language.basic.memory_check import *  # noqa: F401,F403
from asc.language.basic.memory_check import __all__ as _memory_check_all
from asc.language.basic.mask import *  # noqa: F401,F403
from asc.language.basic.mask import __all__ as _mask_all
from asc.language.basic.scalar import *  # noqa: F401,F403
from asc.language.basic.scalar import __all__ as _scalar_all
from asc.language.basic.system import *  # noqa: F401,F403
from asc.language.basic.system import __all__ as _system_all
from asc.language.basic.sync import *  # noqa: F401,F403
from asc.language.basic.sync import __all__ as _sync_all
from asc.language.basic.sys_var import *  # noqa: F401,F403
from asc.language.basic.sys_var import __all__ as _sys_all
from asc.language.basic.vec import *  # noqa: F401,F403
from asc.language.basic.vec import __all__ as _vec_all
from asc.language.basic.sort import *  # noqa: F401,F403
from asc.language.basic.sort import __all__ as _sort_all
from asc.language.basic.reduce import *  # noqa: F401,F403
from asc.language.basic.reduce import __all__ as _reduce_all

__all__ = (list(_aipp_all) + list(_atomic_all) + list(_copy_all) + list(_cube_all) + list(_cube_config_all) + list(_cube_loads_all) + list(_cube_open_all) + list(_debug_all) + list(_deq_all)
           + list(_list_all) + list(_mask_all) + list(_memory_check_all) + list(_reduce_all) + list(_scalar_all) + list(_sort_all)
           + list(_sync_all) + list(_sys_all) + list(_system_all) + list(_vec_all))

# pyasc names not implemented yet raise NotSupportedError, not AttributeError (asc/_unsupported.py).
__getattr__ = _unsupported.module_getattr(__name__)
