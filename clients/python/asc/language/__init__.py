"""The `asc` language: core, basic and fwk flattened into `asc`; adv stays `asc.adv`."""
from asc import _unsupported
from asc.language import adv, basic, core, fwk  # noqa: F401
from asc.language.basic import *  # noqa: F401,F403
from asc.language.core import *  # noqa: F401,F403
from asc.language.fwk import *  # noqa: F401,F403

__all__ = list(core.__all__) + list(basic.__all__) + list(fwk.__all__)

# pyasc names not implemented yet raise NotSupportedError, not AttributeError (asc/_unsupported.py).
__getattr__ = _unsupported.module_getattr(__name__)
