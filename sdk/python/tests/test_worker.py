"""The SDK's parts that need no server: claims read, leases timed, outputs checked, reports chosen, errors classified.
Run with `python3 -m unittest discover -s sdk/python/tests -t sdk/python` (test/unit/python-sdk.test.ts does, under npm test)."""

from __future__ import annotations

import asyncio
import contextlib
import http.server
import io
import importlib.util
import logging
import os
import shutil
import sys
import tempfile
import threading
import time
import unittest
from typing import Any, Mapping, Optional, get_type_hints
from unittest import mock

from artissist_worker import Cancelled, Client, Kinds, PollingSignal, ServerError, Work, WorkFailed, Worker
from artissist_worker.__main__ import main as cli_main
from artissist_worker.client import error_of
from artissist_worker.typegen import class_name, typed_module
from artissist_worker.push import PushSignal, matches, sse_messages
from artissist_worker.worker import ITEM_HAND_BACK, STEP_HAND_BACK, ITEM_COMPLETE, ITEM_FAIL, STEP_COMPLETE, Heartbeat, heartbeat_seconds, lease_seconds, work_of

# The SDK logs what it drops and retries; these tests make it do so on purpose.
logging.getLogger("artissist_worker").disabled = True

ITEM_CLAIM = {
    "tenantId": "acme",
    "lease": "sealed",
    "job": {"jobId": "job_1", "kind": "BATCH", "inputs": {"label": "x"}},
    "step": {"name": "process", "attempt": 1, "startedAt": None, "leaseExpiresAt": None},
    "item": {"sequence": 7, "attempt": 3, "inputs": {"source": "tenants/acme/in.png"}, "startedAt": "2026-01-01T00:00:00.000Z",
             "leaseExpiresAt": "2026-01-01T00:00:45.000Z"},
}
STEP_CLAIM = {
    "tenantId": "acme",
    "lease": None,
    "job": {"jobId": "job_2", "kind": "MUSIC_VIDEO", "inputs": {"prompt": "harbour"}},
    "step": {"name": "compose", "attempt": 2, "startedAt": "2026-01-01T00:00:00Z", "leaseExpiresAt": "2026-01-01T00:01:00Z"},
    "item": None,
}
KINDS = Kinds([
    {"name": "BATCH", "inputs": [{"name": "label", "type": "string", "required": False, "s3Key": False}],
     "stages": [{"name": "process", "outputs": [], "fanOut": {
        "itemInputs": [{"name": "source", "type": "string", "required": True, "s3Key": True},
                       {"name": "params", "type": "json", "required": False, "s3Key": False}],
        "itemOutputs": [{"name": "result", "type": "string", "required": True, "s3Key": True},
                        {"name": "metrics", "type": "json", "required": False, "s3Key": False}]}}]},
    {"name": "MUSIC_VIDEO", "inputs": [{"name": "characterImage", "type": "string", "required": True, "s3Key": True}],
     "stages": [{"name": "compose", "fanOut": None,
                                        "outputs": [{"name": "video", "type": "string", "required": True, "s3Key": True}]}]},
])


class FakeClient(Client):
    """Answers each call with the next of `answers` (an exception is raised), recording what was sent."""

    def __init__(self, answers: list[Any]) -> None:
        super().__init__("http://unused", "token", sleep=lambda _s: None)
        self.answers = answers
        self.sent: list[tuple[str, dict[str, Any]]] = []

    def request(self, query: str, variables: Optional[Mapping[str, Any]] = None) -> dict[str, Any]:
        self.sent.append((query, dict(variables or {})))
        answer = self.answers.pop(0) if self.answers else {}
        if isinstance(answer, Exception):
            raise answer
        return answer


def worker_with(client: FakeClient) -> Worker:
    return Worker("http://unused", "token", client=client, kinds=KINDS)


class ClaimsTest(unittest.TestCase):
    def test_an_item_claim_gives_the_items_attempt_inputs_and_lease(self) -> None:
        work = work_of(ITEM_CLAIM)
        self.assertEqual((work.kind, work.stage, work.job_id, work.sequence, work.attempt), ("BATCH", "process", "job_1", 7, 3))
        self.assertEqual(work.inputs, {"source": "tenants/acme/in.png"})
        self.assertEqual((work.lease, work.tenant_id, work.lease_seconds), ("sealed", "acme", 45.0))
        self.assertFalse(work.is_step)

    def test_a_step_claim_gives_the_steps_attempt_and_the_jobs_inputs(self) -> None:
        work = work_of(STEP_CLAIM)
        self.assertEqual((work.stage, work.sequence, work.attempt, work.lease), ("compose", None, 2, None))
        self.assertEqual(work.inputs, {"prompt": "harbour"})
        self.assertTrue(work.is_step)


class LeasesTest(unittest.TestCase):
    def test_the_lease_is_measured_on_the_servers_clock_with_a_default(self) -> None:
        self.assertEqual(lease_seconds("2026-01-01T00:00:00Z", "2026-01-01T00:00:02.500Z"), 2.5)
        self.assertEqual(lease_seconds(None, "2026-01-01T00:00:02Z"), 60.0)
        self.assertEqual(lease_seconds("2026-01-01T00:00:05Z", "2026-01-01T00:00:02Z"), 60.0)

    def test_renewals_come_at_a_fraction_of_the_lease_never_below_a_tenth_of_a_second(self) -> None:
        self.assertAlmostEqual(heartbeat_seconds(60, 1 / 3), 20.0)
        self.assertEqual(heartbeat_seconds(0.1, 1 / 3), 0.1)

    def test_a_renewal_answered_job_cancelled_sets_the_handlers_event_and_stops_renewing(self) -> None:
        work = work_of(ITEM_CLAIM)
        sent: list[float] = []

        def send(_w: Work, progress: float) -> None:
            sent.append(progress)
            raise ServerError("JOB_CANCELLED", "cancelled")

        beat = Heartbeat(work, send, interval=0.05, min_interval=0.01)
        beat.start()
        self.assertTrue(work.cancelled.wait(2))
        beat.join(2)
        self.assertFalse(beat.is_alive())
        self.assertEqual((work.lost_code, sent), ("JOB_CANCELLED", [0.0]))
        with self.assertRaises(Cancelled):
            work.raise_if_cancelled()

    def test_progress_goes_out_soon_but_at_most_once_per_min_interval_and_a_failed_renewal_is_tried_again(self) -> None:
        work = work_of(ITEM_CLAIM)
        sent: list[float] = []

        def send(_w: Work, progress: float) -> None:
            sent.append(progress)
            if len(sent) == 1:
                raise ServerError("SERVICE_UNAVAILABLE", "busy")

        beat = Heartbeat(work, send, interval=60, min_interval=0.05)
        # Three quick calls, made before the thread starts: made after it, a busy machine that paused this thread between
        # two of them for longer than min_interval would let the first go out alone (this file failed once, unnamed, under load;
        # this is the one race of that kind it had).
        for value in (0.1, 0.2, 0.3):
            work.progress(value)
        beat.start()
        deadline = time.monotonic() + 2
        while len(sent) < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        work.progress(0.9)
        while len(sent) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        beat.stop()
        # Three quick calls made one report (the last value), and the next one went out after a failed one.
        self.assertEqual(sent, [0.3, 0.9])
        self.assertIsNone(work.lost_code)


class PollingTest(unittest.TestCase):
    def test_waits_grow_to_the_cap_while_claims_find_nothing_and_start_again_after_work(self) -> None:
        signal = PollingSignal(min_wait=0.25, max_wait=2.0, factor=2.0)
        self.assertEqual(signal.delays(5), [0.25, 0.5, 1.0, 2.0, 2.0])
        stop = threading.Event()
        stop.set()
        signal.wait(stop)
        signal.wait(stop)
        self.assertEqual(signal.delays(2), [1.0, 2.0])
        signal.found()
        self.assertEqual(signal.delays(1), [0.25])

    def test_a_wake_ends_a_wait_at_once(self) -> None:
        signal = PollingSignal(min_wait=30)
        threading.Timer(0.05, signal.wake).start()
        started = time.monotonic()
        signal.wait(threading.Event())
        self.assertLess(time.monotonic() - started, 5)


class OutputsTest(unittest.TestCase):
    def test_required_outputs_missing_or_none_are_named_in_declaration_order(self) -> None:
        self.assertEqual(KINDS.missing_outputs("BATCH", "process", {"metrics": {}}), ["result"])
        self.assertEqual(KINDS.missing_outputs("BATCH", "process", {"result": None}), ["result"])
        self.assertEqual(KINDS.missing_outputs("BATCH", "process", {"result": "k"}), [])
        self.assertEqual(KINDS.missing_outputs("MUSIC_VIDEO", "compose", {}), ["video"])
        # A kind the server does not declare (a free-form job) is the server's to check.
        self.assertEqual(KINDS.missing_outputs("FREE", "x", {}), [])
        self.assertEqual(KINDS.unknown_outputs("BATCH", "process", {"result": "k", "extra": 1}), ["extra"])


class TypesTest(unittest.TestCase):
    def test_each_stage_gets_typed_dicts_of_its_handlers_inputs_and_outputs_with_the_required_keys_declared(self) -> None:
        # Imported as a user's project imports the module the command wrote.
        folder = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, folder)
        with open(os.path.join(folder, "kinds_types.py"), "w", encoding="utf-8") as file:
            file.write(typed_module(KINDS))
        spec = importlib.util.spec_from_file_location("kinds_types", os.path.join(folder, "kinds_types.py"))
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["kinds_types"] = module
        self.addCleanup(sys.modules.pop, "kinds_types")
        spec.loader.exec_module(module)
        namespace = vars(module)
        keys = {
            name: (set(namespace[name].__required_keys__), set(namespace[name].__optional_keys__))
            for name in ("BatchProcessInputs", "BatchProcessOutputs", "MusicVideoComposeInputs", "MusicVideoComposeOutputs")
        }
        self.assertEqual(keys, {
            "BatchProcessInputs": ({"source"}, {"params"}),
            "BatchProcessOutputs": ({"result"}, {"metrics"}),
            # A step's handler gets the job's inputs.
            "MusicVideoComposeInputs": ({"characterImage"}, set()),
            "MusicVideoComposeOutputs": ({"video"}, set()),
        })
        self.assertEqual(get_type_hints(namespace["BatchProcessInputs"]), {"source": str, "params": Any})

    def test_class_names_are_identifiers_whatever_the_kind_and_stage(self) -> None:
        self.assertEqual(class_name("MUSIC_VIDEO", "render-scenes", "Outputs"), "MusicVideoRenderScenesOutputs")
        self.assertEqual(class_name("3D_CHARACTER", "text-to-image", "Inputs"), "K3dCharacterTextToImageInputs")

    def test_the_types_command_says_in_one_line_what_is_missing_or_what_the_server_answered(self) -> None:
        # A real HTTP server refusing the token, as the server does a malformed one; no traceback reaches the user.
        class Refusing(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers["content-length"]))
                body = b'{"errors":[{"message":"The token is not valid.","extensions":{"code":"UNAUTHENTICATED"}}]}'
                self.send_response(401)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        server = http.server.HTTPServer(("127.0.0.1", 0), Refusing)
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        url = f"http://127.0.0.1:{server.server_address[1]}/graphql"

        def types(env: dict[str, str]) -> tuple[int, str, str]:
            out, err = io.StringIO(), io.StringIO()
            with mock.patch.dict(os.environ, env, clear=True), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = cli_main(["types"])
            return code, out.getvalue(), err.getvalue()

        self.assertEqual(types({}), (1, "", "ARTISSIST_URL and ARTISSIST_TOKEN must be set.\n"))
        self.assertEqual(
            types({"ARTISSIST_URL": url, "ARTISSIST_TOKEN": "x"}),
            (1, "", "jobKinds failed: UNAUTHENTICATED: The token is not valid.\n"),
        )


class ReportsTest(unittest.TestCase):
    def test_outputs_lacking_a_required_field_fail_the_attempt_held(self) -> None:
        client = FakeClient([{}])
        worker_with(client)._report(work_of(ITEM_CLAIM), {"metrics": {}})
        (query, variables), = client.sent
        self.assertEqual(query, ITEM_FAIL)
        self.assertEqual((variables["code"], variables["attempt"], variables["sequence"], variables["lease"]), ("OUTPUTS_MISSING", 3, 7, "sealed"))
        self.assertIn("result", variables["message"])

    def test_a_step_completes_with_its_outputs_naming_its_attempt(self) -> None:
        client = FakeClient([{}])
        worker = worker_with(client)
        work = work_of(STEP_CLAIM)
        work._worker_id = worker.worker_id  # Claimed while subscribed: bound, so its reports name the process.
        worker._report(work, {"video": "tenants/acme/v.mp4"})
        (query, variables), = client.sent
        self.assertEqual(query, STEP_COMPLETE)
        self.assertEqual(variables, {"jobId": "job_2", "stage": "compose", "attempt": 2, "lease": None, "workerId": worker.worker_id,
                                     "outputs": {"video": "tenants/acme/v.mp4"}})
        self.assertEqual(worker.completed, 1)

    def test_outputs_the_server_refuses_fail_the_attempt_with_its_message(self) -> None:
        client = FakeClient([ServerError("BAD_USER_INPUT", "outputs.result must be under tenants/acme/"), {}])
        worker_with(client)._report(work_of(ITEM_CLAIM), {"result": "elsewhere"})
        self.assertEqual([q for q, _ in client.sent], [ITEM_COMPLETE, ITEM_FAIL])
        self.assertEqual(client.sent[1][1]["code"], "OUTPUTS_REFUSED")
        self.assertIn("under tenants/acme/", client.sent[1][1]["message"])

    def test_a_completion_answered_job_cancelled_drops_the_work(self) -> None:
        client = FakeClient([ServerError("JOB_CANCELLED", "cancelled")])
        work = work_of(ITEM_CLAIM)
        worker_with(client)._report(work, {"result": "tenants/acme/r.png"})
        self.assertEqual((work.lost_code, work.cancelled.is_set(), len(client.sent)), ("JOB_CANCELLED", True, 1))

    def test_a_handler_fails_with_its_code_with_any_exception_or_stops_when_cancelled(self) -> None:
        worker = worker_with(FakeClient([]))
        work = work_of(ITEM_CLAIM)

        def failing(_w: Work) -> None:
            raise WorkFailed("OUT_OF_MEMORY", "the GPU ran out")

        def broken(_w: Work) -> None:
            raise KeyError("prompt")

        def stopped(w: Work) -> None:
            w.lose("JOB_CANCELLED")
            w.raise_if_cancelled()

        async def asynchronous(w: Work) -> dict[str, Any]:
            await asyncio.sleep(0)
            return {"result": w.stage}

        failed = worker._run_handler(failing, work)
        self.assertIsInstance(failed, WorkFailed)
        assert isinstance(failed, WorkFailed)
        self.assertEqual(failed.code, "OUT_OF_MEMORY")
        crashed = worker._run_handler(broken, work)
        assert isinstance(crashed, WorkFailed)
        self.assertEqual((crashed.code, crashed.message), ("HANDLER_ERROR", "KeyError: 'prompt'"))
        self.assertEqual(worker._run_handler(asynchronous, work), {"result": "process"})
        self.assertIsNone(worker._run_handler(stopped, work))


class ErrorsTest(unittest.TestCase):
    def test_codes_are_read_from_the_answer_and_classified(self) -> None:
        limited = error_of(429, {"errors": [{"message": "slow down", "extensions": {"code": "RATE_LIMITED", "retryAfterSeconds": 2}}]})
        assert limited is not None
        self.assertEqual((limited.code, limited.retry_after, limited.retryable, limited.lost), ("RATE_LIMITED", 2.0, True, False))
        timed_out = error_of(200, {"errors": [{"message": "late", "extensions": {"code": "ATTEMPT_TIMED_OUT"}}], "data": None})
        assert timed_out is not None
        self.assertEqual((timed_out.retryable, timed_out.lost), (False, True))
        self.assertIsNone(error_of(200, {"data": {"x": 1}}))
        gateway = error_of(502, None)
        assert gateway is not None
        self.assertEqual((gateway.code, gateway.retryable), ("SERVICE_UNAVAILABLE", True))

    def test_calls_are_sent_again_after_retryable_failures_within_a_bound(self) -> None:
        client = FakeClient([ServerError("SERVICE_UNAVAILABLE", "x"), ServerError("NETWORK", "y"), {"ok": True}])
        self.assertEqual(client.call("q"), {"ok": True})
        self.assertEqual(len(client.sent), 3)
        always = FakeClient([ServerError("CONTENDED", "z")] * 5)
        with self.assertRaises(ServerError):
            always.call("q", attempts=3)
        self.assertEqual(len(always.sent), 3)
        refused = FakeClient([ServerError("BAD_USER_INPUT", "no")])
        with self.assertRaises(ServerError):
            refused.call("q")
        self.assertEqual(len(refused.sent), 1)


class StoppingTest(unittest.TestCase):
    def test_giving_up_tells_each_running_handler_and_hands_its_work_back(self) -> None:
        handed: list[int] = []

        class Recording(Worker):
            def hand_back(self, work: Work) -> None:
                handed.append(work.attempt)

        worker = Recording("http://unused", "token", client=FakeClient([]), kinds=KINDS, grace_seconds=0.05)
        work = work_of(ITEM_CLAIM)
        worker.running.add(work)
        worker.stop()
        self.assertTrue(work.stopping.is_set())
        self.assertFalse(work.cancelled.is_set())
        deadline = time.monotonic() + 2
        while not handed and time.monotonic() < deadline:
            time.sleep(0.01)
        self.assertEqual((handed, work.lost_code, work.cancelled.is_set()), ([3], "WORKER_STOPPED", True))

    def test_a_hand_back_names_the_attempt_held_and_an_attempt_over_already_is_let_go(self) -> None:
        client = FakeClient([{"handBackWorkItem": {"status": "PENDING"}}, ServerError("INVALID_TRANSITION", "that attempt is over")])
        worker = worker_with(client)
        bound = work_of(ITEM_CLAIM)
        bound._worker_id = worker.worker_id
        worker.hand_back(bound)
        # Claimed while not subscribed: bound to nothing, so its reports name no process (the server would forward them to no one).
        worker.hand_back(work_of(STEP_CLAIM))
        self.assertEqual(client.sent[0], (ITEM_HAND_BACK, {"jobId": "job_1", "stage": "process", "attempt": 3, "lease": "sealed", "sequence": 7,
                                                           "workerId": worker.worker_id}))
        self.assertEqual(client.sent[1], (STEP_HAND_BACK, {"jobId": "job_2", "stage": "compose", "attempt": 2, "lease": None,
                                                           "workerId": None}))

    def test_startup_hooks_run_once_first_and_a_claim_refused_for_good_stops_the_worker_and_run_raises_it(self) -> None:
        client = FakeClient([ServerError("UNAUTHENTICATED", "the token expired")])
        worker = worker_with(client)
        worker.stage("BATCH", "process")(lambda _w: {"result": "k"})
        started: list[int] = []
        worker.on_startup(lambda: started.append(len(client.sent)))
        with self.assertRaises(ServerError) as raised:
            worker.run(install_signals=False)
        self.assertEqual((raised.exception.code, len(client.sent)), ("UNAUTHENTICATED", 1))
        # The startup hook ran once, before the first claim.
        self.assertEqual(started, [0])

    def test_run_refuses_a_worker_without_handlers(self) -> None:
        with self.assertRaises(ValueError):
            worker_with(FakeClient([])).run(install_signals=False)


if __name__ == "__main__":
    unittest.main()


class PushTest(unittest.TestCase):
    def test_an_sse_stream_gives_each_next_events_data_and_ends_at_complete(self) -> None:
        lines = iter([b": keep-alive\n", b"\n", b"event: next\n", b'data: {"data": {"workSignals": {"type": "SUBSCRIBED"}}}\n', b"\n",
                      b"event: next\r\n", b'data: {"data":\n', b'data: {"workSignals": {"type": "WORK_AVAILABLE"}}}\n', b"\n",
                      b"event: complete\n", b"\n", b"event: next\n", b'data: {"late": true}\n', b"\n"])
        messages = list(sse_messages(lambda: next(lines, b"")))
        self.assertEqual([m["data"]["workSignals"]["type"] for m in messages], ["SUBSCRIBED", "WORK_AVAILABLE"])

    def test_a_lease_ended_signal_concerns_the_attempts_it_names(self) -> None:
        cancelled = {"type": "LEASE_ENDED", "jobId": "job_1", "tenantId": "acme", "stage": None}
        self.assertTrue(matches(cancelled, "job_1", "acme", "process", 7, 3))
        self.assertFalse(matches(cancelled, "job_2", "acme", "process", 7, 3))
        self.assertFalse(matches({**cancelled, "tenantId": "other"}, "job_1", "acme", "process", 7, 3))
        taken = {**cancelled, "stage": "process", "sequence": 7, "attempt": 3}
        self.assertTrue(matches(taken, "job_1", "acme", "process", 7, 3))
        self.assertFalse(matches({**taken, "attempt": 2}, "job_1", "acme", "process", 7, 3))
        self.assertFalse(matches({**taken, "sequence": None}, "job_1", "acme", "process", 7, 3))

    def test_a_signal_wakes_every_waiting_slot_and_one_that_came_while_busy_ends_the_next_wait_at_once(self) -> None:
        signal = PushSignal(fallback_seconds=5)
        stop = threading.Event()
        woke: list[float] = []
        threads = [threading.Thread(target=lambda: (signal.wait(stop), woke.append(time.monotonic()))) for _ in range(2)]
        for t in threads:
            t.start()
        time.sleep(0.1)
        signal.wake()
        for t in threads:
            t.join(2)
        self.assertEqual(len(woke), 2)
        signal.wake()
        started = time.monotonic()
        signal.wait(stop)
        self.assertLess(time.monotonic() - started, 0.5)


class QuietSignal:
    """A WorkSignal that says nothing of its own: a slot's wait ends only at a stop. So a stage a claim took out of the worker's
    list is never claimed again in this test, as a pushed worker would not claim it before its 30 s fallback. It has `start`,
    so the worker leaves the hints to the test (what a WORK_AVAILABLE does: Worker.hint, then wake), and the acknowledgement of
    its subscription (what SUBSCRIBED does: Worker.push_subscribed(True))."""

    def start(self, _target: Worker) -> None:
        pass

    def close(self) -> None:
        pass

    def found(self) -> None:
        pass

    def wait(self, stop: threading.Event) -> None:
        stop.wait()

    def wake(self) -> None:
        pass


class HeldClaims(FakeClient):
    """Holds the first claim until the test lets it answer null (nothing claimable when the server decided it), and answers
    every later one null at once; each claim is told through `claimed`. A fake for the one thing a real server cannot be made
    to do on cue: answer a claim after a signal that came while the claim was on its way."""

    def __init__(self) -> None:
        super().__init__([])
        self.claims = 0
        self.claimed = [threading.Event(), threading.Event()]
        self.answer_first = threading.Event()

    def request(self, query: str, variables: Optional[Mapping[str, Any]] = None) -> dict[str, Any]:
        self.sent.append((query, dict(variables or {})))
        self.claims += 1
        if self.claims <= len(self.claimed):
            self.claimed[self.claims - 1].set()
        if self.claims == 1:
            self.answer_first.wait()
        return {"claimWork": None}


class LostWakeUpTest(unittest.TestCase):
    def test_a_signal_that_comes_while_an_empty_claim_is_on_its_way_keeps_its_stage_for_the_next_claim(self) -> None:
        client = HeldClaims()
        states: list[str] = []
        idle = threading.Event()

        def on_state(state: str, _work: Optional[Work]) -> None:
            states.append(state)
            if state == "idle":
                idle.set()

        worker = Worker("http://unused", "token", client=client, kinds=KINDS, signal_source=QuietSignal(), grace_seconds=0,
                        on_state=on_state)
        worker.stage("BATCH", "process")(lambda _w: {"result": "k"})
        running = threading.Thread(target=worker.run, kwargs={"install_signals": False}, daemon=True)
        running.start()
        try:
            # A pushed worker's first claim waits for its subscription's acknowledgement, so that it is bound to it.
            self.assertFalse(client.claimed[0].wait(0.3), "no claim before the subscription is acknowledged")
            worker.push_subscribed(True)
            self.assertTrue(client.claimed[0].wait(10), "the first claim was sent")
            # Work appears after the server decided the claim under way (it will answer null): its signal comes now.
            worker.hint("BATCH", "process")
            client.answer_first.set()
            # The stage stays worth a claim: the slot claims again at once, with no other signal. (Bounded only so that the
            # wake-up lost, the slot waiting for a signal that never comes, fails here instead of hanging.)
            self.assertTrue(client.claimed[1].wait(10), "the slot claimed again after the signal that came during its claim")
            # That claim found nothing too: the worker waits, subscribed, and says so once.
            self.assertTrue(idle.wait(10), "idle said")
        finally:
            client.answer_first.set()
            worker.stop()
            running.join(10)
        self.assertFalse(running.is_alive())
        # Each claim names the process (its worker_id), as its subscription does: the server binds the claim to it.
        self.assertEqual(client.sent[0][1], {"kind": "BATCH", "stage": "process", "workerId": worker.worker_id})
        self.assertEqual(client.sent[1][1], {"kind": "BATCH", "stage": "process", "workerId": worker.worker_id})
        self.assertEqual(states, ["subscribed", "idle"])
        self.assertEqual(worker.push_worker_id(), worker.worker_id)

    def test_a_polling_worker_names_no_worker_id_and_says_idle_at_each_wait(self) -> None:
        # Not subscribed, its claims are bound to nothing: a workerId would have the server forward each claim and report over
        # the bus to a topic no instance listens to.
        client = FakeClient([{"claimWork": None}] * 10)
        idle = threading.Semaphore(0)
        worker = Worker("http://unused", "token", client=client, kinds=KINDS, signal_source=PollingSignal(0.01, 0.01),
                        on_state=lambda state, _work: idle.release() if state == "idle" else None)
        worker.stage("BATCH", "process")(lambda _w: {"result": "k"})
        running = threading.Thread(target=worker.run, kwargs={"install_signals": False}, daemon=True)
        running.start()
        try:
            for n in range(2):
                self.assertTrue(idle.acquire(timeout=10), f"idle said at wait {n + 1}")
        finally:
            worker.stop()
            running.join(10)
        self.assertGreaterEqual(len(client.sent), 2)
        self.assertEqual({variables["workerId"] for _query, variables in client.sent}, {None})

    def test_each_worker_has_an_id_of_its_own_unless_given_one(self) -> None:
        first, second = worker_with(FakeClient([])), worker_with(FakeClient([]))
        self.assertNotEqual(first.worker_id, second.worker_id)
        self.assertEqual(Worker("http://unused", "token", client=FakeClient([]), worker_id="gpu-3").push_worker_id(), "gpu-3")
