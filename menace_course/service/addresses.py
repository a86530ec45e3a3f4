"""Network addresses the service reasons about: which ones never leave this machine.

A plain-http LMS is accepted only on loopback (:mod:`.lti.registry`), and a metrics
endpoint without a token is safe only there (``menace worker --metrics-host``).
"""

from __future__ import annotations

import ipaddress


def is_loopback(host: str | None) -> bool:
    """Whether ``host`` is a loopback address (or ``localhost``); a name or nothing is not."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host or "").is_loopback
    except ValueError:
        return False
