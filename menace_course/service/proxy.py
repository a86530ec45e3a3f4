"""``--behind-proxy``: believe X-Forwarded-* only from the reverse proxy's own addresses.

Werkzeug's ``ProxyFix`` believes the headers of whoever connects. A service that also
answers on an address students can reach directly would then take a student's forged
``X-Forwarded-For`` as their address (a fresh rate-limit key per request) and their
``X-Forwarded-Proto`` as HTTPS. :class:`TrustedProxyFix` hands a request to ``ProxyFix``
only when its peer is one of the configured proxies (``--trusted-proxy``, default the
loopback addresses, where a proxy on the same machine connects from); from anyone else
the forwarded headers are removed, so nothing downstream reads them.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from typing import Any

from werkzeug.middleware.proxy_fix import ProxyFix

#: The default ``--trusted-proxy``: a reverse proxy on this machine.
LOOPBACK = ("127.0.0.1", "::1")
FORWARDED = (
    "HTTP_X_FORWARDED_FOR",
    "HTTP_X_FORWARDED_PROTO",
    "HTTP_X_FORWARDED_HOST",
    "HTTP_X_FORWARDED_PORT",
    "HTTP_X_FORWARDED_PREFIX",
    "HTTP_FORWARDED",
)

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_proxies(values: Iterable[str]) -> tuple[Network, ...]:
    """Addresses or networks (``10.0.0.5``, ``10.0.0.0/24``, ``::1``) as networks.

    Raises:
        ValueError: one is neither, naming it.
    """
    found = []
    for value in values:
        try:
            found.append(ipaddress.ip_network(value.strip(), strict=False))
        except ValueError:
            raise ValueError(
                f"{value!r} is not an IP address or network (like 10.0.0.5 or 10.0.0.0/24)"
            ) from None
    return tuple(found)


def is_trusted(address: str | None, proxies: tuple[Network, ...]) -> bool:
    """True when ``address`` (the TCP peer) is one of ``proxies``."""
    try:
        peer = ipaddress.ip_address((address or "").split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(peer, ipaddress.IPv6Address) and peer.ipv4_mapped is not None:
        peer = peer.ipv4_mapped
    return any(peer in network for network in proxies)


class TrustedProxyFix:
    """WSGI middleware: ``ProxyFix`` (one proxy hop) for the trusted peers, nothing for others."""

    def __init__(self, app: Any, proxies: Iterable[str] = LOOPBACK) -> None:
        """Wrap ``app``; ``proxies`` are the addresses the reverse proxy connects from."""
        self.app = app
        self.proxies = parse_proxies(proxies)
        self.fixed = ProxyFix(app, x_for=1, x_proto=1, x_host=1, x_port=1)

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        """Serve one request, believing its forwarded headers only from a trusted peer."""
        if is_trusted(environ.get("REMOTE_ADDR"), self.proxies):
            return self.fixed(environ, start_response)
        for header in FORWARDED:
            environ.pop(header, None)
        return self.app(environ, start_response)
