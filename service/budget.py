"""Per-call budgets: the audit work of a call stops once the call is cancelled or its deadline
has passed.

Each call that audits gets a ``Budget``. The audit loops check it before every record: in a
thread through ``Budget.spent``, in an audit worker process through the call's byte in a
``Board`` of flags shared with the workers (and the deadline, which the worker compares with its
own clock). So a call given up costs at most the record being audited when it was given up
(one hand: the auditor's bound per hand; a match is audited as one record).

``Calls`` keeps the budgets of the calls in flight: a call leaves it only once every audit and
store it started has finished, so ``Calls.idle`` returns when no call of the server is auditing
or writing anything any more.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
import time
from collections.abc import AsyncIterator, Callable
from multiprocessing.context import BaseContext
from typing import Any, ParamSpec, TypeVar

SLOTS = 4096
"""Calls in flight that audit in worker processes with a flag of their own; more calls than this
at once still stop at their deadline, and their queued batches are dropped on cancel."""

P = ParamSpec("P")
T = TypeVar("T")


class Board:
    """Cancellation flags shared with the audit worker processes: one byte per call slot."""

    def __init__(self, context: BaseContext) -> None:
        self.flags: Any = context.RawArray("b", SLOTS)
        self._free = list(range(SLOTS - 1, -1, -1))

    def take(self) -> int:
        """A free slot with its flag down, or -1 when every slot is taken."""
        return self._free.pop() if self._free else -1

    def give_back(self, slot: int) -> None:
        """Lower a slot's flag and free it (once no worker reads it for its call any more)."""
        self.flags[slot] = 0
        self._free.append(slot)


class Budget:
    """What one call may still spend: nothing once it is cancelled or past its deadline.

    ``deadline`` is on ``time.time()``'s clock (worker processes compare it with theirs). The
    call's executor futures are kept, so the call can wait for them before it counts as done.
    """

    def __init__(self, deadline: float | None, board: Board | None) -> None:
        self.deadline = deadline
        self.board = board
        self.slot = board.take() if board is not None else -1
        self.futures: set[concurrent.futures.Future[Any]] = set()
        self._cancelled = threading.Event()

    def spent(self) -> bool:
        """True once the call is cancelled or its deadline has passed (safe from any thread)."""
        if self._cancelled.is_set():
            return True
        return self.deadline is not None and time.time() >= self.deadline

    def cancel(self) -> None:
        """Stop the call's audit work: its threads and worker processes see it before their
        next record."""
        self._cancelled.set()
        if self.board is not None and self.slot >= 0:
            self.board.flags[self.slot] = 1

    def wait_cancelled(self, timeout: float) -> bool:
        """Block until the call is cancelled (True), or ``timeout`` seconds pass (False)."""
        return self._cancelled.wait(timeout)

    def submit(
        self,
        executor: concurrent.futures.Executor,
        fn: Callable[P, T],
        *args: P.args,
        **kwargs: P.kwargs,
    ) -> asyncio.Future[T]:
        """Run ``fn`` in ``executor`` for this call; the call waits for it before it ends."""
        future = executor.submit(fn, *args, **kwargs)
        self.futures.add(future)
        # Runs in the executor's thread: set.discard and list(set) are atomic under the GIL.
        future.add_done_callback(self.futures.discard)
        return asyncio.wrap_future(future)

    async def settle(self) -> None:
        """Cancel the call's work that has not started and wait for the rest to finish."""
        for future in list(self.futures):
            future.cancel()  # only work not yet started is cancelled
        running = [asyncio.wrap_future(f) for f in list(self.futures)]
        if running:
            await asyncio.wait(running)
        if self.board is not None and self.slot >= 0:
            self.board.give_back(self.slot)
            self.slot = -1


class Calls:
    """The budgets of the calls in flight on one server (used on its event loop only)."""

    def __init__(self, board: Board | None) -> None:
        self.board = board
        self.active: set[Budget] = set()
        self._idle = asyncio.Event()
        self._idle.set()

    @contextlib.asynccontextmanager
    async def budget(self, time_remaining: float | None) -> AsyncIterator[Budget]:
        """A budget for a call with ``time_remaining`` seconds (None: no deadline). On the way
        out the budget is spent (cancelled), and the call's work is settled before it leaves,
        even when the call itself was cancelled."""
        deadline = None if time_remaining is None else time.time() + time_remaining
        budget = Budget(deadline, self.board)
        self.active.add(budget)
        self._idle.clear()
        try:
            yield budget
        finally:
            budget.cancel()
            # The call leaves once its work is settled, even if it stops waiting for that.
            settling = asyncio.ensure_future(budget.settle())
            settling.add_done_callback(lambda _: self._leave(budget))
            await asyncio.shield(settling)

    def _leave(self, budget: Budget) -> None:
        self.active.discard(budget)
        if not self.active:
            self._idle.set()

    async def idle(self) -> None:
        """Return once no call is in flight: no audit or store of any call is still running."""
        await self._idle.wait()

    def cancel_all(self) -> None:
        """Spend every call's budget (on shutdown, once the grace period is over)."""
        for budget in self.active:
            budget.cancel()
