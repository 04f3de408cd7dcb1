"""The certificate store, loaded once per process.

Loading it costs ~30 ms of CPU, and a process makes several HTTP clients: the chat client of each run (a chat,
a resume, many Agents from Python) and the probe that asks the server for its context window. httpx's own
function makes it, so SSL_CERT_FILE and SSL_CERT_DIR still count.
"""

from __future__ import annotations

import functools
import ssl


@functools.cache
def tls_context() -> ssl.SSLContext:
    import httpx2

    return httpx2.create_ssl_context()
