"""A worker: claims the steps and work items of the stages it serves, runs a handler on each,
keeps the lease alive from a thread of its own, and reports the outcome (see docs/workers.md)."""

from __future__ import annotations

import asyncio
import inspect
import logging
import signal
import threading
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Awaitable, Callable, Mapping, Optional, Protocol, Union

from .client import Client, ServerError
from .kinds import JOB_KINDS_QUERY, Kinds
from .push import PushSignal, matches

log = logging.getLogger("artissist_worker")

CLAIM = """mutation WorkerClaim($kind: String, $stage: String, $workerId: String) {
  claimWork(kind: $kind, stage: $stage, workerId: $workerId) {
  tenantId lease job { jobId kind inputs } step { name attempt startedAt leaseExpiresAt }
  item { sequence attempt inputs startedAt leaseExpiresAt } } }"""

# Every report names the unit, the attempt, a pool worker's lease and this process (workerId).
_ITEM_VARS = "$jobId: ID!, $stage: String!, $sequence: Int!, $attempt: Int!, $lease: String, $workerId: String"
_ITEM_REF = "jobId: $jobId, stage: $stage, sequence: $sequence, attempt: $attempt, lease: $lease, workerId: $workerId"
_STEP_VARS = "$jobId: ID!, $stage: String!, $attempt: Int, $lease: String, $workerId: String"
_STEP_REF = "jobId: $jobId, stepName: $stage, attempt: $attempt, lease: $lease, workerId: $workerId"

ITEM_PROGRESS = f"""mutation WorkerItemProgress({_ITEM_VARS}, $progress: Float!) {{
  reportWorkItemProgress({_ITEM_REF}, progress: $progress) {{ leaseExpiresAt }} }}"""
ITEM_COMPLETE = f"""mutation WorkerItemComplete({_ITEM_VARS}, $outputs: JSONObject!) {{
  completeWorkItem({_ITEM_REF}, outputs: $outputs) {{ status }} }}"""
ITEM_FAIL = f"""mutation WorkerItemFail({_ITEM_VARS}, $code: String!, $message: String!) {{
  failWorkItem({_ITEM_REF}, code: $code, message: $message) {{ status }} }}"""
STEP_PROGRESS = f"""mutation WorkerStepProgress({_STEP_VARS}, $progress: Float!) {{
  reportStepProgress({_STEP_REF}, progress: $progress) {{ jobId }} }}"""
STEP_COMPLETE = f"""mutation WorkerStepComplete({_STEP_VARS}, $outputs: JSONObject) {{
  completeStep({_STEP_REF}, outputs: $outputs) {{ jobId }} }}"""
STEP_FAIL = f"""mutation WorkerStepFail({_STEP_VARS}, $code: String!, $message: String!) {{
  failStep({_STEP_REF}, code: $code, message: $message) {{ jobId }} }}"""
ITEM_HAND_BACK = f"""mutation WorkerItemHandBack({_ITEM_VARS}) {{ handBackWorkItem({_ITEM_REF}) {{ status }} }}"""
STEP_HAND_BACK = f"""mutation WorkerStepHandBack({_STEP_VARS}) {{ handBackStep({_STEP_REF}) {{ jobId }} }}"""

# The lease a claim is assumed to hold when its answer does not say (the server's default).
DEFAULT_LEASE_SECONDS = 60.0

# How long a pushed worker's first claim waits for its subscription's acknowledgement (so that the claim is bound to it) before
# it is sent unbound: a subscription is acknowledged within milliseconds unless something between holds its answer back.
FIRST_CLAIM_WAIT_SECONDS = 5.0


class WorkFailed(Exception):
    """Raised by a handler to fail its attempt with a stable code of its own (retried while attempts remain)."""

    def __init__(self, code: str, message: str = "") -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message or code


class Cancelled(Exception):
    """Raised by Work.raise_if_cancelled once the work is cancelled or lost: the SDK drops it, reporting nothing."""


Outputs = Optional[Mapping[str, Any]]
Handler = Callable[["Work"], Union[Outputs, Awaitable[Outputs]]]
# Told what the worker reached (see Worker's on_state): "subscribed", "idle", or "claimed" with the Work claimed.
StateHook = Callable[[str, Optional["Work"]], None]


def parse_time(value: Optional[str]) -> Optional[float]:
    """Seconds since the epoch of an ISO 8601 time as the server writes it (…Z), or None."""
    if not value:
        return None
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


def lease_seconds(started_at: Optional[str], lease_expires_at: Optional[str]) -> float:
    """The lease's length: from the attempt's start to its lease's end, both the server's clock (so no skew); the default without them."""
    start, end = parse_time(started_at), parse_time(lease_expires_at)
    if start is None or end is None or end <= start:
        return DEFAULT_LEASE_SECONDS
    return end - start


def heartbeat_seconds(lease: float, fraction: float) -> float:
    """How often a held unit's lease is renewed: `fraction` of the lease, at least 0.1 s."""
    return max(0.1, lease * fraction)


# eq=False: each claimed unit is its own object (a set of running ones holds them by identity).
@dataclass(eq=False)
class Work:
    """One claimed step or work item, as the handler sees it."""

    kind: str
    stage: str
    job_id: str
    tenant_id: str
    # The attempt the claim handed out: every report names it (a second attempt after a crash is 2).
    attempt: int
    inputs: dict[str, Any]
    # The item's sequence in its stage; None for a single step.
    sequence: Optional[int]
    # A pool worker's lease on this unit (passed with every report); None for a tenant-bound worker.
    lease: Optional[str]
    lease_seconds: float
    # Set when the job was cancelled, or the attempt is otherwise over for this worker (timed out,
    # taken over, given up at a stop): the handler should stop; nothing it returns is reported.
    cancelled: threading.Event = field(default_factory=threading.Event)
    # Set when the worker was asked to stop: finish within the grace period, or stop early.
    stopping: threading.Event = field(default_factory=threading.Event)
    # The code that ended the attempt for this worker (JOB_CANCELLED, ATTEMPT_TIMED_OUT, WORKER_STOPPED …).
    lost_code: Optional[str] = None
    # Set once the handler returned: its outcome is being reported, so a stop does not hand it back.
    _reporting: bool = False
    # The workerId its claim named (None when the worker claimed it unsubscribed): its reports name the same, or none.
    _worker_id: Optional[str] = None
    _progress: float = 0.0
    _dirty: bool = False
    _wake: threading.Condition = field(default_factory=threading.Condition)

    @property
    def is_step(self) -> bool:
        return self.sequence is None

    def progress(self, value: float) -> None:
        """Records progress (0 to 1). The heartbeat thread sends it, at most once per `min_report_seconds`: never more than the server needs."""
        with self._wake:
            self._progress = min(1.0, max(0.0, float(value)))
            self._dirty = True
            self._wake.notify_all()

    def raise_if_cancelled(self) -> None:
        """Raises Cancelled when the work was cancelled or lost; a handler calls it between pieces of work."""
        if self.cancelled.is_set():
            raise Cancelled(self.lost_code or "CANCELLED")

    def lose(self, code: str) -> None:
        """Marks the attempt over for this worker (`code` says why) and tells the handler through `cancelled`."""
        with self._wake:
            if self.lost_code is None:
                self.lost_code = code
            self.cancelled.set()
            self._wake.notify_all()


def work_of(claim: Mapping[str, Any]) -> Work:
    """The Work a claimWork answer hands out: the item's attempt and inputs, or the step's attempt and the job's inputs."""
    job, step, item = claim["job"], claim["step"], claim.get("item")
    held = item if item else step
    return Work(
        kind=str(job["kind"]),
        stage=str(step["name"]),
        job_id=str(job["jobId"]),
        tenant_id=str(claim["tenantId"]),
        attempt=int(held["attempt"]),
        inputs=dict((item["inputs"] if item else job.get("inputs")) or {}),
        sequence=int(item["sequence"]) if item else None,
        lease=claim.get("lease"),
        lease_seconds=lease_seconds(held.get("startedAt"), held.get("leaseExpiresAt")),
    )


class WorkSignal(Protocol):
    """When to claim again: the server's pushed signals (PushSignal, the default) or a poll (PollingSignal). A source that
    also has `start(worker)` and `close()` is started by run() and closed at stop() (see PushSignal)."""

    def found(self) -> None:
        """A claim found work: claim again at once."""

    def wait(self, stop: threading.Event) -> None:
        """A claim found nothing: return when it is worth claiming again (or `stop` is set)."""

    def wake(self) -> None:
        """Something says work may be there (a notification, a stop): end every wait now."""


class PollingSignal:
    """Claims again after a wait that grows from `min_wait` by `factor` to `max_wait` while claims find nothing."""

    def __init__(self, min_wait: float = 0.25, max_wait: float = 5.0, factor: float = 2.0) -> None:
        self.min_wait, self.max_wait, self.factor = min_wait, max_wait, factor
        self._next = min_wait
        self._woken = threading.Event()
        self._lock = threading.Lock()

    def delays(self, count: int) -> list[float]:
        """The next `count` waits of empty claims in a row, from now (without waiting): what wait() would sleep."""
        out, delay = [], self._next
        for _ in range(count):
            out.append(delay)
            delay = min(self.max_wait, delay * self.factor)
        return out

    def found(self) -> None:
        with self._lock:
            self._next = self.min_wait

    def wait(self, stop: threading.Event) -> None:
        with self._lock:
            delay = self._next
            self._next = min(self.max_wait, self._next * self.factor)
        deadline = time.monotonic() + delay
        while not stop.is_set() and not self._woken.is_set():
            left = deadline - time.monotonic()
            if left <= 0:
                break
            self._woken.wait(min(left, 0.1))
        self._woken.clear()

    def wake(self) -> None:
        self._woken.set()


class Heartbeat(threading.Thread):
    """Renews one unit's lease by reporting its progress every `interval` seconds (and sends the handler's progress, at most
    every `min_interval`), independent of the handler: a handler busy in CPU-bound Python or in native code keeps its lease."""

    def __init__(self, work: Work, send: Callable[[Work, float], None], interval: float, min_interval: float) -> None:
        super().__init__(name=f"heartbeat {work.job_id}/{work.stage}/{work.sequence}", daemon=True)
        self.work, self.send, self.interval, self.min_interval = work, send, interval, min_interval
        self._stopped = False
        self.reports = 0

    def stop(self) -> None:
        with self.work._wake:
            self._stopped = True
            self.work._wake.notify_all()
        if threading.current_thread() is not self:
            self.join()

    def run(self) -> None:
        work, last = self.work, time.monotonic()
        while True:
            with work._wake:
                while True:
                    if self._stopped or work.cancelled.is_set():
                        return
                    now = time.monotonic()
                    due = last + self.interval
                    if work._dirty:
                        due = min(due, last + self.min_interval)
                    if now >= due:
                        break
                    work._wake.wait(due - now)
                progress, work._dirty = work._progress, False
            last = time.monotonic()
            try:
                self.send(work, progress)
                self.reports += 1
            except ServerError as error:
                if error.lost:
                    log.warning("%s/%s #%s attempt %s is over for this worker: %s", work.job_id, work.stage, work.sequence, work.attempt, error)
                    work.lose(error.code)
                    return
                # A failed renewal is tried again at the next beat; the lease outlasts two more of them.
                log.warning("renewing the lease of %s/%s #%s failed (%s); trying again", work.job_id, work.stage, work.sequence, error)


class Worker:
    """Serves the registered (kind, stage) handlers: claim, run, renew, report, until stopped.

    url and token: the server's GraphQL URL and a worker token (role worker, tenant-bound) or a pool
    worker's token (role pool). slots: units run at once. grace_seconds: how long running handlers
    may finish after a stop is asked for before their work is given up. worker_id: this process's own id (a random one by
    default), sent with the subscription and, while that is open, with each claim (and that claim's reports), so that the
    server hands back what it holds if it is lost. on_state: called (on the thread that got there) with "subscribed" once the
    server acknowledged the subscription (again after each reconnection); "idle" when every slot waits for a signal, its
    last claims having found nothing, and (pushed) the subscription is acknowledged: the worker sends nothing more until a
    signal or its fallback; and "claimed" with each Work claimed, before its handler runs. It should return quickly."""

    def __init__(
        self,
        url: str,
        token: str,
        *,
        slots: int = 1,
        grace_seconds: float = 30.0,
        heartbeat_fraction: float = 1 / 3,
        min_report_seconds: float = 1.0,
        signal_source: Optional[WorkSignal] = None,
        kinds: Optional[Kinds] = None,
        client: Optional[Client] = None,
        worker_id: Optional[str] = None,
        on_state: Optional[StateHook] = None,
    ) -> None:
        self.client = client or Client(url, token)
        # This process's own id (several processes may share a token): what it claims is bound to its subscription, and handed
        # back by the server when that connection is lost and not made again within the server's grace.
        self.worker_id = worker_id or uuid.uuid4().hex
        self.slots = slots
        self.grace_seconds = grace_seconds
        self.heartbeat_fraction = heartbeat_fraction
        self.min_report_seconds = min_report_seconds
        self.signal: WorkSignal = signal_source if signal_source is not None else PushSignal()
        self.kinds = kinds
        self.handlers: dict[tuple[str, str], Handler] = {}
        self.startup: list[Callable[[], None]] = []
        self.running: set[Work] = set()
        self.completed = 0
        self._stopping = threading.Event()
        self._given_up = threading.Event()
        # Set when a give-up starts, and once its hand-backs are answered: run() returns only after them.
        self._giving_up = threading.Event()
        self._handed_back = threading.Event()
        self._lock = threading.Lock()
        self._turn = 0
        # The registered stages that may have claimable work, each with the number of the last hint that marked it: a claim
        # that finds none takes its stage out, unless a signal marked it again while the claim was on its way (that signal's
        # work may have come after the claim was decided, and would otherwise wait for the fallback).
        self._maybe: dict[tuple[str, str], int] = {}
        self._hints = 0
        # A claim refused for a reason waiting cannot mend (a token expired or without the role): run() raises it.
        self._fatal: Optional[ServerError] = None
        self.on_state = on_state
        # The pushed signals' subscription: True while the server has acknowledged it, False while it is not (yet) open, None
        # for a source that does not push (or whose subscription was refused). Claims name worker_id only while it is True:
        # the server binds them to that subscription, and a polling worker's id would be forwarded to a topic no one hears.
        self._push: Optional[bool] = None
        # Slots waiting for a signal now, and whether "idle" was said since one last stopped waiting.
        self._waiting = 0
        self._idle_said = False
        # Set once the subscription was acknowledged, dropped or refused: a pushed worker's first claim waits for it.
        self._push_told = threading.Event()

    def stage(self, kind: str, stage: str) -> Callable[[Handler], Handler]:
        """Registers the decorated function as the handler of `stage` of job kind `kind`. It takes a Work and returns the
        outputs (a dict; None for none), or raises WorkFailed(code, message). It may be async."""

        def register(handler: Handler) -> Handler:
            self.handlers[(kind, stage)] = handler
            return handler

        return register

    def on_startup(self, hook: Callable[[], None]) -> Callable[[], None]:
        """Registers `hook` to run once before the first claim (load a model once)."""
        self.startup.append(hook)
        return hook

    # --- Running --------------------------------------------------------------------------------

    def run(self, install_signals: bool = True) -> None:
        """Claims and runs work until stop() (or SIGTERM / SIGINT when `install_signals`) and returns once every slot has
        finished or its work was given up. Raises ValueError without handlers, and ServerError when the declared kinds cannot be
        read or a claim is refused for good (UNAUTHENTICATED, FORBIDDEN, BAD_USER_INPUT: the token or the stages are wrong)."""
        if not self.handlers:
            raise ValueError("No handler: register one with @worker.stage(kind, stage).")
        if install_signals:
            signal.signal(signal.SIGTERM, self._on_signal)
            signal.signal(signal.SIGINT, self._on_signal)
        for hook in self.startup:
            hook()
        if self.kinds is None:
            self.kinds = self._read_kinds()
        start = getattr(self.signal, "start", None)
        if callable(start):
            self._push = False
            start(self)
        slots = [threading.Thread(target=self._slot, name=f"slot {n}", daemon=True) for n in range(self.slots)]
        log.info("serving %s with %d slot(s)", ", ".join(sorted("/".join(key) for key in self.handlers)), self.slots)
        for slot in slots:
            slot.start()
        # The main thread only waits, in short joins, so that signal handlers run at once.
        while any(slot.is_alive() for slot in slots):
            if self._given_up.is_set():
                # Handlers that ignore `cancelled` are abandoned: their threads are daemons, gone with the process.
                deadline = time.monotonic() + 1.0
                for slot in slots:
                    slot.join(max(0.0, deadline - time.monotonic()))
                break
            for slot in slots:
                slot.join(0.1)
        if self._giving_up.is_set():
            # The slots end as soon as their handlers are told; the hand-backs are what lets others take the work at once.
            self._handed_back.wait(10.0)
        self._close_signal()
        log.info("worker stopped after %d units", self.completed)
        if self._fatal:
            raise self._fatal

    def stop(self) -> None:
        """Stops claiming; running handlers see `work.stopping` and have grace_seconds to finish before their work is given up."""
        if self._stopping.is_set():
            return
        log.info("stopping: no more claims; %d running unit(s) get %.1f s to finish", len(self.running), self.grace_seconds)
        self._stopping.set()
        with self._lock:
            running = bool(self.running)
        # A stopping worker takes nothing more: it leaves the signals, so new work is dealt to the others. Not while it holds
        # work: the server would take that for a lost connection and hand the work back after its grace, before this one's.
        if not running:
            self._close_signal()
        self.signal.wake()
        with self._lock:
            for work in self.running:
                work.stopping.set()
        timer = threading.Timer(self.grace_seconds, self.give_up)
        timer.daemon = True
        timer.start()

    def give_up(self) -> None:
        """Gives up every running unit now (see hand_back): the handlers are told through `cancelled` and nothing they return is
        reported. A unit whose handler returned already is left to its report."""
        with self._lock:
            if self._giving_up.is_set():
                return
            self._giving_up.set()
            running = [work for work in self.running if not work._reporting]
        for work in running:
            work.lose("WORKER_STOPPED")
        for work in running:
            self.hand_back(work)
        self._handed_back.set()
        self._given_up.set()

    def hand_back(self, work: Work) -> None:
        """Hands `work` back (handBackWorkItem, handBackStep): another worker may claim it at once, as its next attempt, with no
        backoff and no attempt counted. An attempt that was over already (cancelled, taken over) has nothing to hand back; a
        hand-back that fails otherwise leaves the unit to its lease, taken over when it runs out."""
        log.info("handing back %s/%s #%s attempt %s", work.job_id, work.stage, work.sequence, work.attempt)
        try:
            self._send(work, ITEM_HAND_BACK if not work.is_step else STEP_HAND_BACK, {}, attempts=2)
            log.info("handed back %s/%s #%s attempt %s", work.job_id, work.stage, work.sequence, work.attempt)
        except ServerError as error:
            level = logging.INFO if error.lost else logging.WARNING
            log.log(level, "could not hand back %s/%s #%s attempt %s: %s", work.job_id, work.stage, work.sequence, work.attempt, error)

    # --- What the pushed signals need (push.PushTarget) -------------------------------------------

    def push_endpoint(self) -> tuple[str, str]:
        return self.client.url, self.client.token

    def push_scope(self) -> tuple[list[str], list[str]]:
        return sorted({kind for kind, _ in self.handlers}), sorted({stage for _, stage in self.handlers})

    def push_worker_id(self) -> str:
        return self.worker_id

    def push_subscribed(self, live: Optional[bool]) -> None:
        """The subscription was acknowledged (True), ended (False) or refused (None: polling): claims name worker_id only
        while it is acknowledged."""
        with self._lock:
            self._push = live
        self._push_told.set()
        if live:
            self._state("subscribed")
        self._say_if_idle()

    def _state(self, state: str, work: Optional[Work] = None) -> None:
        """Tells on_state that the worker reached `state`; a hook that raises is logged, and the worker goes on."""
        if self.on_state is None:
            return
        try:
            self.on_state(state, work)
        except Exception:  # noqa: BLE001 - the hook is the author's: its fault is logged, and stops no claim or report
            log.exception("the on_state hook failed on %r", state)

    def _say_if_idle(self) -> None:
        """Says "idle" once the worker reached it: every slot waits, no stage is marked worth a claim, and a pushed worker's
        subscription is acknowledged. Said once until a slot stops waiting."""
        with self._lock:
            idle = (self._waiting == self.slots and not self._maybe and self._push is not False and not self._stopping.is_set()
                    and not self._idle_said)
            if idle:
                self._idle_said = True
        if idle:
            self._state("idle")

    def lease_ended(self, signal: Mapping[str, Any]) -> None:
        """Cancels the running handlers whose attempt a LEASE_ENDED signal names (the job cancelled, or the unit taken over)."""
        with self._lock:
            running = list(self.running)
        for work in running:
            if matches(signal, work.job_id, work.tenant_id, work.stage, work.sequence, work.attempt):
                log.info("%s/%s #%s attempt %s is over: %s", work.job_id, work.stage, work.sequence, work.attempt, signal.get("reason"))
                work.lose(str(signal.get("reason") or "LEASE_ENDED"))

    def _close_signal(self) -> None:
        close = getattr(self.signal, "close", None)
        if callable(close):
            close()

    def _on_signal(self, signum: int, _frame: Any) -> None:
        if self._stopping.is_set():
            log.info("second %s: giving up running work now", signal.Signals(signum).name)
            self.give_up()
        else:
            self.stop()

    def _read_kinds(self) -> Optional[Kinds]:
        try:
            return Kinds(self.client.call(JOB_KINDS_QUERY)["jobKinds"])
        except ServerError as error:
            if error.code != "FORBIDDEN":
                raise
            # A pool worker reads nothing but its claims: its outputs are checked by the server alone.
            log.info("the declared kinds are not open to this token (%s); outputs are checked by the server only", error.code)
            return None

    def hint(self, kind: Optional[str], stage: Optional[str]) -> None:
        """Marks the registered stages of `kind` and `stage` (None: every one) as worth a claim."""
        with self._lock:
            self._hints += 1
            for key in self.handlers:
                if (kind is None or key[0] == kind) and (stage is None or key[1] == stage):
                    self._maybe[key] = self._hints

    def _next_stage(self) -> Optional[tuple[str, str]]:
        """The next registered stage in turn that may have work; None when none may."""
        with self._lock:
            keys = list(self.handlers)
            for _ in keys:
                self._turn = (self._turn + 1) % len(keys)
                if keys[self._turn] in self._maybe:
                    return keys[self._turn]
            return None

    def _slot(self) -> None:
        if self._push is False:
            # The first claim waits for the subscription, so that what it takes is bound to it; at most a few seconds, then it
            # goes unbound (work taken late costs more than a unit left to its lease if the process dies). Woken every 0.1 s to
            # see a stop too.
            deadline = time.monotonic() + FIRST_CLAIM_WAIT_SECONDS
            while not (self._push_told.is_set() or self._stopping.is_set()) and time.monotonic() < deadline:
                self._push_told.wait(0.1)
        self.hint(None, None)
        while not self._stopping.is_set():
            key = self._next_stage()
            if key is None:
                # No stage may have work: wait for a signal (a poll knows of no stage: every one is looked at after it).
                with self._lock:
                    self._waiting += 1
                self._say_if_idle()
                try:
                    self.signal.wait(self._stopping)
                finally:
                    with self._lock:
                        self._waiting -= 1
                        self._idle_said = False
                if not callable(getattr(self.signal, "start", None)):
                    self.hint(None, None)
                continue
            kind, stage = key
            with self._lock:
                hinted = self._maybe.get(key)
                worker_id = self.worker_id if self._push else None
            try:
                claim = self.client.call(CLAIM, {"kind": kind, "stage": stage, "workerId": worker_id})["claimWork"]
            except ServerError as error:
                log.error("claimWork(%s, %s) failed: %s", kind, stage, error)
                if not error.retryable:
                    # Waiting cannot mend it: the worker stops (running units finish) and run() raises it.
                    self._fatal = self._fatal or error
                    self.stop()
                    return
                claim = None
            if claim is None:
                # Nothing there now (or a passing fault, retried within Client.call's bound): until a signal says otherwise.
                with self._lock:
                    if self._maybe.get(key) == hinted:
                        del self._maybe[key]
                continue
            self.signal.found()
            work = work_of(claim)
            work._worker_id = worker_id
            self._state("claimed", work)
            self._serve(work)

    def _serve(self, work: Work) -> None:
        handler = self.handlers[(work.kind, work.stage)]
        with self._lock:
            self.running.add(work)
            if self._stopping.is_set():
                work.stopping.set()
        beat = Heartbeat(work, self._report_progress, heartbeat_seconds(work.lease_seconds, self.heartbeat_fraction), self.min_report_seconds)
        beat.start()
        try:
            outcome = self._run_handler(handler, work)
            work._reporting = True
            beat.stop()
            if work.cancelled.is_set():
                log.info("%s/%s #%s attempt %s dropped: %s", work.job_id, work.stage, work.sequence, work.attempt, work.lost_code)
                return
            self._report(work, outcome)
        finally:
            beat.stop()
            with self._lock:
                self.running.discard(work)

    def _run_handler(self, handler: Handler, work: Work) -> Union[Mapping[str, Any], WorkFailed, None]:
        """The handler's outputs, the failure to report, or None when it stopped because the work was cancelled."""
        try:
            result = handler(work)
            # A plain handler returns its outputs (or None); an async one an awaitable of them.
            outputs = result if result is None or isinstance(result, Mapping) else asyncio.run(_awaited(result))
            return dict(outputs or {})
        except Cancelled:
            return None
        except WorkFailed as failed:
            return failed
        except Exception as error:  # noqa: BLE001 - any fault of the handler fails its attempt, with its text
            log.exception("the handler of %s/%s failed", work.kind, work.stage)
            return WorkFailed("HANDLER_ERROR", f"{type(error).__name__}: {error}")

    def _report(self, work: Work, outcome: Union[Mapping[str, Any], WorkFailed, None]) -> None:
        if outcome is None:
            return
        if isinstance(outcome, Mapping):
            missing = self.kinds.missing_outputs(work.kind, work.stage, outcome) if self.kinds else []
            if missing:
                outcome = WorkFailed("OUTPUTS_MISSING", f"The handler's outputs lack the required {', '.join(missing)} of {work.kind}/{work.stage}.")
        try:
            if isinstance(outcome, WorkFailed):
                self._send(work, ITEM_FAIL if not work.is_step else STEP_FAIL, {"code": outcome.code[:100], "message": outcome.message[:2000]})
                log.info("%s/%s #%s attempt %s failed: %s", work.job_id, work.stage, work.sequence, work.attempt, outcome.code)
                return
            try:
                self._send(work, ITEM_COMPLETE if not work.is_step else STEP_COMPLETE, {"outputs": dict(outcome)})
                self.completed += 1
                log.info("%s/%s #%s attempt %s completed", work.job_id, work.stage, work.sequence, work.attempt)
            except ServerError as error:
                if error.code != "BAD_USER_INPUT":
                    raise
                # The server refused the outputs (a key outside the tenant, a wrong type): a fault of the handler's, so its attempt fails.
                self._send(work, ITEM_FAIL if not work.is_step else STEP_FAIL, {"code": "OUTPUTS_REFUSED", "message": error.message[:2000]})
        except ServerError as error:
            if error.lost:
                work.lose(error.code)
                log.warning("%s/%s #%s attempt %s was over when reported: %s", work.job_id, work.stage, work.sequence, work.attempt, error)
            else:
                # Retried within Client.call's bound: the unit is left to its lease, and taken over when it runs out.
                log.error("could not report %s/%s #%s attempt %s: %s", work.job_id, work.stage, work.sequence, work.attempt, error)

    def _report_progress(self, work: Work, progress: float) -> None:
        self._send(work, ITEM_PROGRESS if not work.is_step else STEP_PROGRESS, {"progress": progress}, attempts=1)

    def _send(self, work: Work, mutation: str, extra: Mapping[str, Any], attempts: int = 5) -> None:
        # The process's id, when the claim bound the unit to its subscription, unbinds it wherever that is (bound-workers.ts on
        # the server); a unit claimed unsubscribed was bound nowhere, and a report naming it would be forwarded to no one.
        ref: dict[str, Any] = {"jobId": work.job_id, "stage": work.stage, "attempt": work.attempt, "lease": work.lease,
                               "workerId": work._worker_id}
        if not work.is_step:
            ref["sequence"] = work.sequence
        self.client.call(mutation, {**ref, **extra}, attempts=attempts)


async def _awaited(result: Awaitable[Outputs]) -> Outputs:
    return await result
