"""Errors of a launch: the simulated kernel did something the chip would not survive."""


class KernelFaultError(RuntimeError):
    """A launch ended with a status other than OK; the message lists every diagnostic."""

    def __init__(self, message: str, report=None):
        super().__init__(message)
        self.report = report


class DeadlockError(KernelFaultError):
    """Every pipe waited on a flag nobody will set."""


class CycleLimitError(KernelFaultError):
    """The launch exceeded its cycle limit."""


class KernelWarning(UserWarning):
    """A warning diagnostic of a successful launch (e.g. GM access within allocation slack)."""
