"""The journal's writer thread (layer: below the session; CPython only).

A commit with ``synchronous=FULL`` waits for the disk: on a Raspberry Pi's SD card that
can be tens to hundreds of milliseconds, during which an event loop that committed itself
would run nothing, not even an abort.  So the daemon's journal hands its transactions to
this thread (docs/ARCHITECTURE.md "The journal's writer"):

* :meth:`Writer.put` queues one unit of work and returns at once, with the unit's number;
* the thread takes **every** unit queued so far and runs them, in order, in one
  transaction (a group commit): a unit queued while a commit is on the disk waits for at
  most that commit and its own;
* :meth:`Writer.synced` (awaitable) returns once everything queued before it is
  committed, and raises the failure if a unit could not be: the daemon awaits it before
  it reports anything (a command's answer, an event to a front end) and before it sends
  a motion to the table, so nothing outside the daemon sees or acts on a transition the
  disk does not hold yet, as when each commit ran on the loop.

A failed unit makes the writer **failed** for good: memory is then ahead of the disk, so
every later :meth:`synced` and :meth:`put` raises the first failure (no motor moves on a
state the journal lost; a restart resumes from what was committed).
"""
import asyncio
import threading


class Unit:
    """One unit of work: ``events`` rows to insert first (or None), then ``work(db)``
    (or None).  The runner sets ``result`` or ``error``."""

    __slots__ = ("seq", "events", "work", "result", "error")

    def __init__(self, seq, events, work):
        self.seq = seq
        self.events = events
        self.work = work
        self.result = None
        self.error = None


class Writer:
    """A thread that runs queued units through ``run_batch(units)``: it runs every unit
    of the list in one transaction, sets each one's ``result`` or ``error``, and raises
    if the transaction as a whole failed (every unit of it failed then)."""

    def __init__(self, run_batch, *, name="journal-writer"):
        self._run_batch = run_batch
        self._name = name
        self._cv = threading.Condition()
        self._queue = []
        self._queued = 0  # the last unit's number
        self._done = 0  # every unit up to this one has run
        self._failure = None  # the first error: the writer is failed from then on
        self._waiters = []  # (seq, loop, future) of synced() calls
        self._stopping = False
        self._thread = None

    # -- the caller's side ------------------------------------------------------------------
    def start(self):
        self._thread = threading.Thread(target=self._loop, name=self._name, daemon=True)
        self._thread.start()

    @property
    def failure(self):
        return self._failure

    @property
    def queued(self):
        """The number of the last unit queued."""
        return self._queued

    @property
    def uncommitted(self):
        """How many units are queued or running."""
        return self._queued - self._done

    def put(self, events=None, work=None):
        """Queue a unit; returns it (its ``seq`` is what :meth:`synced` takes)."""
        with self._cv:
            if self._failure is not None:
                raise self._failure
            if self._stopping:
                raise RuntimeError("the journal's writer is stopping")
            self._queued += 1
            unit = Unit(self._queued, events, work)
            self._queue.append(unit)
            self._cv.notify_all()
            return unit

    def wait(self, unit):
        """Block this thread until ``unit`` ran; its result, or its error raised."""
        with self._cv:
            while self._done < unit.seq:
                self._cv.wait()
        if unit.error is not None:
            raise unit.error
        return unit.result

    async def synced(self, upto=None):
        """Return once every unit queued so far (or up to number ``upto``) is committed;
        raise the writer's failure if there is one."""
        with self._cv:
            target = self._queued if upto is None else min(int(upto), self._queued)
            if self._done >= target or self._failure is not None:
                fut = None
            else:
                loop = asyncio.get_running_loop()
                fut = loop.create_future()
                self._waiters.append((target, loop, fut))
        if fut is not None:
            await fut
        if self._failure is not None:
            raise self._failure

    def stop(self):
        """Run what is queued, then end the thread (waits for it)."""
        with self._cv:
            self._stopping = True
            self._cv.notify_all()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    # -- the thread ---------------------------------------------------------------------------
    def _loop(self):
        while True:
            with self._cv:
                while not self._queue and not self._stopping:
                    self._cv.wait()
                if not self._queue:
                    return
                batch, self._queue = self._queue, []
            try:
                self._run_batch(batch)
            except BaseException as e:  # noqa: BLE001 - handed to whoever waits for it
                for u in batch:
                    if u.error is None:
                        u.error = e
            self._finished(batch)

    def _finished(self, batch):
        with self._cv:
            failed = next((u.error for u in batch if u.error is not None), None)
            if failed is not None and self._failure is None:
                self._failure = failed
            self._done = batch[-1].seq
            due = [w for w in self._waiters if w[0] <= self._done or self._failure is not None]
            self._waiters = [w for w in self._waiters if w not in due]
            self._cv.notify_all()
        for _seq, loop, fut in due:
            try:
                loop.call_soon_threadsafe(_resolve, fut)
            except RuntimeError:  # that loop is closed: nobody waits any more
                pass


def _resolve(fut):
    if not fut.done():
        fut.set_result(None)
