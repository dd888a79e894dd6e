"""Work pushed instead of polled: the server's workSignals subscription over GraphQL over SSE, read with http.client
(standard library only). One connection a worker; idle, it costs nothing but the server's keep-alive comments."""

from __future__ import annotations

import http.client
import json
import logging
import threading
import time
import urllib.parse
from datetime import datetime
from typing import Any, Callable, Mapping, Optional, Protocol, Sequence

from .client import error_of

log = logging.getLogger("artissist_worker")

SIGNALS = """subscription WorkerSignals($kinds: [String!], $stages: [String!], $workerId: String) {
  workSignals(kinds: $kinds, stages: $stages, workerId: $workerId) {
  type tenantId kind stage count availableAt available jobId sequence attempt reason } }"""

# The codes after which a new subscription cannot succeed: the worker falls back to polling.
REFUSED = frozenset({"UNAUTHENTICATED", "FORBIDDEN", "BAD_USER_INPUT", "GRAPHQL_VALIDATION_FAILED", "BAD_REQUEST"})


class PushTarget(Protocol):
    """What a PushSignal needs of its worker: where to connect, what it serves, and whom to tell of an attempt that is over."""

    def push_endpoint(self) -> tuple[str, str]:
        """The server's GraphQL URL and the worker's token."""

    def push_scope(self) -> tuple[list[str], list[str]]:
        """The kinds and stages the worker serves."""

    def push_worker_id(self) -> str:
        """The process's own id, sent with the subscription and every claim: the server hands back what the process claimed
        when the subscription's connection is lost and does not come back within its grace (WORKER_GRACE_SECONDS)."""

    def push_subscribed(self, live: Optional[bool]) -> None:
        """The subscription was acknowledged (True: the server binds the worker's claims to it now), ended (False: it is made
        again), or refused (None: the worker polls instead)."""

    def hint(self, kind: Optional[str], stage: Optional[str]) -> None:
        """Work of `kind` and `stage` may be claimable (None: any the worker serves)."""

    def lease_ended(self, signal: Mapping[str, Any]) -> None:
        """A LEASE_ENDED signal: the attempts it names are over (the job cancelled, or taken over)."""


def sse_messages(lines: Callable[[], bytes]) -> Any:
    """The `data` of each `next` event of an SSE stream read line by line from `lines` (b"" at its end), as parsed JSON."""
    event = ""
    data: list[str] = []
    while True:
        raw = lines()
        if not raw:
            return
        line = raw.decode("utf-8").rstrip("\r\n")
        if line == "":
            if event == "complete":
                return
            if event in ("", "next") and data:
                yield json.loads("\n".join(data))
            event = ""
            data = []
        elif line.startswith(":"):
            continue  # A keep-alive comment.
        else:
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "event":
                event = value
            elif name == "data":
                data.append(value)


class PushSignal:
    """A WorkSignal fed by the server's workSignals subscription: a wait ends when work of the worker's stages appears (now, or
    at its `availableAt`), and at the latest after `fallback_seconds` (a slow poll, for what no signal says: a crashed
    worker's lease running out). LEASE_ENDED signals go to the worker, which cancels the handlers they concern. A connection
    that drops is made again after a growing pause; a server without workSignals leaves the worker polling every
    `poll_seconds`."""

    def __init__(self, fallback_seconds: float = 30.0, poll_seconds: float = 1.0, read_timeout: float = 60.0) -> None:
        self.fallback_seconds = fallback_seconds
        self.poll_seconds = poll_seconds
        self.read_timeout = read_timeout
        # Each signal moves the generation on; a slot's wait ends once the generation passed the one it last saw, so one
        # signal wakes every waiting slot, and one that came while a slot was busy ends its next wait at once.
        self._generation = 0
        self._seen: dict[int, int] = {}
        self._changed = threading.Condition()
        self._closed = threading.Event()
        self._target: Optional[PushTarget] = None
        self._refused = False
        self._connection: Optional[http.client.HTTPConnection] = None
        self._lock = threading.Lock()
        self._timers: list[threading.Timer] = []
        # How many subscriptions were made (a test counts the requests an idle worker makes).
        self.connections = 0
        self.connected = threading.Event()

    # --- WorkSignal ------------------------------------------------------------------------------

    def found(self) -> None:
        """A claim found work: nothing to change (the next claim follows at once)."""

    def wait(self, stop: threading.Event) -> None:
        """Returns once a signal said work is there (or said so since this slot's last wait), after the fallback, or at a stop."""
        limit = self.poll_seconds if self._refused else self.fallback_seconds
        deadline = time.monotonic() + limit
        me = threading.get_ident()
        timed_out = False
        with self._changed:
            while not stop.is_set() and self._generation <= self._seen.get(me, 0):
                left = deadline - time.monotonic()
                if left <= 0:
                    timed_out = True
                    break
                self._changed.wait(min(left, 0.5))
            self._seen[me] = self._generation
        # The fallback (or a poll, when refused) knows of no stage in particular: every stage is looked at. (Told outside
        # the condition's lock: the worker's hint takes its own lock, which wake() takes before this one.)
        if timed_out and self._target is not None:
            self._target.hint(None, None)

    def wake(self, kind: Optional[str] = None, stage: Optional[str] = None) -> None:
        """Ends every wait now, for work of `kind` and `stage` (None: any the worker serves)."""
        if self._target is not None:
            self._target.hint(kind, stage)
        with self._changed:
            self._generation += 1
            self._changed.notify_all()

    # --- The subscription ------------------------------------------------------------------------

    def start(self, target: PushTarget) -> None:
        """Opens the subscription for `target` on a daemon thread of its own."""
        self._target = target
        thread = threading.Thread(target=self._follow, args=(target,), name="work signals", daemon=True)
        thread.start()

    def close(self) -> None:
        """Ends the subscription: a stopping worker is dealt no more work."""
        self._closed.set()
        self.connected.clear()
        if self._target is not None:
            self._target.push_subscribed(False)
        with self._lock:
            connection, self._connection = self._connection, None
            for timer in self._timers:
                timer.cancel()
        if connection is not None:
            try:
                # shutdown() ends the blocked read at once, where close() alone would wait for it.
                if connection.sock is not None:
                    connection.sock.shutdown(2)
                connection.close()
            except OSError:
                pass

    def _follow(self, target: PushTarget) -> None:
        pause = 0.25
        while not self._closed.is_set():
            try:
                self._subscribe(target)
                pause = 0.25
            except _Refused as refused:
                log.warning("workSignals refused (%s); polling every %.1f s instead", refused, self.poll_seconds)
                self._refused = True
                self.connected.clear()
                target.push_subscribed(None)
                self.wake()
                return
            except Exception as error:  # noqa: BLE001 - any failure of the stream is a dropped connection, made again
                # close() from another thread can leave http.client mid-read (it raises what it meets then): the end.
                if self._closed.is_set():
                    return
                log.info("the work signals' connection dropped (%s); connecting again in %.2f s", error, pause)
            self.connected.clear()
            target.push_subscribed(False)
            # Work may have appeared while it was down: one look, then the new subscription says more.
            self.wake()
            self._closed.wait(pause)
            pause = min(5.0, pause * 2)

    def _subscribe(self, target: PushTarget) -> None:
        url, token = target.push_endpoint()
        kinds, stages = target.push_scope()
        parts = urllib.parse.urlsplit(url)
        factory = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        connection = factory(parts.hostname or "localhost", parts.port, timeout=self.read_timeout)
        with self._lock:
            if self._closed.is_set():
                return
            self._connection = connection
        variables = {"kinds": kinds, "stages": stages, "workerId": target.push_worker_id()}
        body = json.dumps({"query": SIGNALS, "variables": variables}).encode("utf-8")
        headers = {"content-type": "application/json", "accept": "text/event-stream", "authorization": f"Bearer {token}"}
        self.connections += 1
        connection.request("POST", parts.path or "/", body=body, headers=headers)
        response = connection.getresponse()
        if response.status != 200:
            raw = response.read()
            try:
                answer: Any = json.loads(raw.decode("utf-8"))
            except ValueError:
                answer = None
            failure = error_of(response.status, answer)
            code = failure.code if failure else f"HTTP {response.status}"
            if response.status < 500 and (failure is None or failure.code in REFUSED):
                raise _Refused(code)
            raise http.client.HTTPException(code)
        for message in sse_messages(response.readline):
            failure = error_of(200, message)
            if failure is not None:
                if failure.code in REFUSED:
                    raise _Refused(failure.code)
                raise http.client.HTTPException(failure.code)
            self._on_signal(target, (message.get("data") or {}).get("workSignals") or {})
        raise http.client.HTTPException("the stream ended")

    def _on_signal(self, target: PushTarget, signal: Mapping[str, Any]) -> None:
        kind = signal.get("type")
        if kind == "SUBSCRIBED":
            # The work it says is waiting is marked first, so the worker is not told idle while that work waits for a claim.
            if signal.get("available"):
                self.wake()
            self.connected.set()
            target.push_subscribed(True)
        elif kind == "WORK_AVAILABLE":
            named = signal.get("kind")
            self._at(signal.get("availableAt"), named, signal.get("stage") if named else None)
        elif kind == "LEASE_ENDED":
            target.lease_ended(signal)

    def _at(self, available_at: Optional[str], kind: Optional[str], stage: Optional[str]) -> None:
        """Ends the waits now, or at `available_at` (after a retry backoff) by a timer, for work of `kind` and `stage`."""
        delay = 0.0
        if available_at:
            delay = _seconds_until(available_at)
        if delay <= 0.01:
            self.wake(kind, stage)
            return
        timer = threading.Timer(delay, self.wake, args=(kind, stage))
        timer.daemon = True
        with self._lock:
            self._timers = [t for t in self._timers if t.is_alive()] + [timer]
        timer.start()


class _Refused(Exception):
    """The server refused the subscription for a reason a new one would meet again."""


def _seconds_until(iso: str) -> float:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() - time.time()


def matches(signal: Mapping[str, Any], job_id: str, tenant_id: str, stage: str, sequence: Optional[int], attempt: int) -> bool:
    """True when a LEASE_ENDED `signal` concerns the attempt held: its job (and tenant), and its stage, sequence and attempt
    when the signal names them (a job's cancellation names none)."""
    if signal.get("jobId") != job_id or (signal.get("tenantId") not in (None, tenant_id)):
        return False
    if signal.get("stage") is None:
        return True
    named: Sequence[Any] = (signal.get("stage"), signal.get("sequence"), signal.get("attempt"))
    return named[0] == stage and named[1] == sequence and named[2] in (None, attempt)
