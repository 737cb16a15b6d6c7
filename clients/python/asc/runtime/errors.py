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


class KernelCheckError(KernelFaultError):
    """The kernel ran, but under strict checking (AICORE_SIM_CHECK=strict, verify_sync=True) it
    has a race or an error, or under strict-all any finding; the message names the first and
    lists the rest, and `report` holds them all."""


class KernelWarning(UserWarning):
    """A warning diagnostic of a successful launch (e.g. a GM access past the end of a tensor)."""
