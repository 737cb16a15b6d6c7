"""Advanced API (Matmul, softmax, quant ...), always written `asc.adv.X`: later issues."""
from asc import _unsupported
__all__ = []

# pyasc names not implemented yet raise NotSupportedError, not AttributeError (asc/_unsupported.py).
__getattr__ = _unsupported.module_getattr(__name__)
