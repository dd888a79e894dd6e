"""A GraphQL client over HTTP, standard library only: one POST a request, errors by their code."""

from __future__ import annotations

import json
import random
import time
import urllib.error
import urllib.request
from typing import Any, Callable, Mapping, Optional

# The server's codes a worker can wait out: a dependency or a rate budget of the moment, a write
# that lost its race (nothing was written). Anything else is an answer about the work itself.
RETRYABLE_CODES = frozenset({"SERVICE_UNAVAILABLE", "RATE_LIMITED", "CONTENDED", "CONFLICT"})

# The codes that say the attempt the worker holds is over: cancelled, timed out, taken over or
# gone. Retrying cannot succeed; the worker stops the work and drops it.
LOST_CODES = frozenset({"JOB_CANCELLED", "ATTEMPT_TIMED_OUT", "INVALID_TRANSITION", "NOT_FOUND", "FORBIDDEN"})


class ServerError(Exception):
    """A request that failed: the server's `extensions.code` (or NETWORK for no answer) and message."""

    def __init__(self, code: str, message: str, retry_after: Optional[float] = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.retry_after = retry_after

    @property
    def retryable(self) -> bool:
        """True when the same request may succeed later (see RETRYABLE_CODES); no answer at all is too."""
        return self.code in RETRYABLE_CODES or self.code == "NETWORK"

    @property
    def lost(self) -> bool:
        """True when the answer says the attempt held is over (see LOST_CODES)."""
        return self.code in LOST_CODES


def error_of(status: int, body: Any) -> Optional[ServerError]:
    """The first error of a GraphQL answer as a ServerError, or None when it has none."""
    errors = body.get("errors") if isinstance(body, dict) else None
    if errors:
        first = errors[0] if isinstance(errors[0], dict) else {}
        extensions = first.get("extensions") or {}
        code = str(extensions.get("code") or ("INTERNAL" if status >= 500 else "BAD_REQUEST"))
        retry_after = extensions.get("retryAfterSeconds")
        return ServerError(code, str(first.get("message", "")), float(retry_after) if retry_after is not None else None)
    if not isinstance(body, dict) or "data" not in body:
        return ServerError("SERVICE_UNAVAILABLE" if status >= 500 else "BAD_REQUEST", f"HTTP {status} without a GraphQL answer")
    return None


class Client:
    """Sends GraphQL operations to `url` with a bearer `token`."""

    def __init__(self, url: str, token: str, timeout: float = 30.0, sleep: Callable[[float], None] = time.sleep) -> None:
        self.url = url
        self.token = token
        self.timeout = timeout
        self._sleep = sleep

    def request(self, query: str, variables: Optional[Mapping[str, Any]] = None) -> dict[str, Any]:
        """The answer's `data`. Raises ServerError with the first error's code, or NETWORK when nothing answered."""
        payload = json.dumps({"query": query, "variables": dict(variables or {})}).encode("utf-8")
        request = urllib.request.Request(
            self.url,
            data=payload,
            method="POST",
            headers={"content-type": "application/json", "authorization": f"Bearer {self.token}"},
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                status, raw = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, raw = error.code, error.read()
        except (urllib.error.URLError, OSError) as error:
            raise ServerError("NETWORK", str(error)) from error
        try:
            body = json.loads(raw.decode("utf-8"))
        except ValueError:
            body = None
        failure = error_of(status, body)
        if failure:
            raise failure
        data = body["data"]
        return data if isinstance(data, dict) else {}

    def call(self, query: str, variables: Optional[Mapping[str, Any]] = None, attempts: int = 5) -> dict[str, Any]:
        """request(), sent again after a retryable failure, at most `attempts` times in all, with jittered backoff."""
        for attempt in range(1, attempts + 1):
            try:
                return self.request(query, variables)
            except ServerError as error:
                if not error.retryable or attempt == attempts:
                    raise
                wait = error.retry_after if error.retry_after is not None else min(5.0, 0.2 * 2 ** (attempt - 1))
                self._sleep(wait * (0.5 + random.random() / 2))
        raise AssertionError("unreachable: the loop returns or raises")
