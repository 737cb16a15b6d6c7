"""Advanced API (Matmul, softmax, quant ...), always written `asc.adv.X`: later issues."""
__all__ = []
