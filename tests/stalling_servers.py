"""Servers on 127.0.0.1 that stall, as a forge or a git host can: they accept and never answer, answer the headers
and never the body, or never even complete the TCP handshake."""

from __future__ import annotations

import socket
import threading


class SilentServer:
    """Accepts every connection and never sends a byte (what made ``revmine run`` hang in ``git fetch`` for as long
    as it was left). With ``headers``, reads each request and answers only these bytes: a body that never comes."""

    def __init__(self, path: str = "/silent.git", headers: bytes | None = None) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}{path}"
        self.headers = headers
        self.held: list[socket.socket] = []
        self.accepted = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            self.held.append(conn)
            if self.headers is not None:
                conn.recv(65536)
                conn.sendall(self.headers)

    def close(self) -> None:
        self.sock.close()
        for conn in self.held:
            conn.close()


class UnreachableServer:
    """A port whose handshake never completes: its accept queue (backlog 0) is kept full and nothing is accepted,
    so Linux drops every new SYN, as a firewall that drops packets does; a client waits in ``connect``."""

    def __init__(self, path: str = "/unreachable.git") -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(0)
        address = self.sock.getsockname()
        self.url = f"http://127.0.0.1:{address[1]}{path}"
        self.fillers = []
        for _ in range(2):  # one fills the queue, the next waits in the kernel: later SYNs are dropped
            filler = socket.socket()
            filler.setblocking(False)
            filler.connect_ex(address)
            self.fillers.append(filler)

    def close(self) -> None:
        for s in [*self.fillers, self.sock]:
            s.close()
