"""Artissist worker SDK: serve pipeline stages from Python with the standard library only (see docs/workers.md)."""

from .client import Client, ServerError
from .kinds import Kinds
from .push import PushSignal
from .worker import Cancelled, Outputs, PollingSignal, Work, WorkFailed, Worker, WorkSignal

__all__ = ["Cancelled", "Client", "Kinds", "Outputs", "PollingSignal", "PushSignal", "ServerError", "Work", "WorkFailed", "Worker", "WorkSignal"]
