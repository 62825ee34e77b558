"""The table's own controls (layer: session): its status light, which shows what the
table waits for (docs/FIRMWARE.md "The status light"), and its start and dice buttons,
each press doing what the table waits for or refused with why (docs/FAULTS.md
"Buttons").  It drives the daemon through its public methods."""
import structlog

from hostd.errors import JantakuError

log = structlog.get_logger("jantaku.daemon")


class Panel:
    """The light and the buttons of one daemon.  ``spawn(coro)``: runs a task of the
    daemon's; ``emit(event)``: an event of the daemon's own (the daemon reacts, publishes)."""

    def __init__(self, daemon, *, spawn, emit):
        self.daemon = daemon
        self._spawn = spawn
        self._emit = emit
        self.shown = "auto"  # the host pattern last sent to the status light

    def wanted(self):
        """The status light's host pattern (docs/FIRMWARE.md "The status light"): people
        are asked, or the hand's walls are up without a throw; else the firmware's own."""
        nxt = self.daemon.next_step()
        if nxt["action"] in ("continue", "clear_fault") or self.daemon.state.name == "stopped":
            return "people"
        if nxt["action"] == "dice":
            return "dice"
        return "auto"

    def show(self, pattern=None):
        """Send the light's pattern when it changes (`refused`: a one-shot, always)."""
        want = pattern or self.wanted()
        if want == self.shown and want != "refused":
            return
        if want != "refused":
            self.shown = want
        if not self.daemon.link.connected:
            return  # the table client sends the last pattern again when it is back
        self._spawn(self._send(want))

    async def _send(self, pattern):
        try:
            await self.daemon.table.set_light(pattern)
        except JantakuError as e:  # the light is a courtesy: never a step's failure
            log.info("the status light was not set", pattern=pattern, error=str(e))

    def pressed(self, button):
        """The table's start or dice button was pressed: one press, one action."""
        self._spawn(self._on_button(button))

    # -- the buttons ------------------------------------------------------------------------
    async def _on_button(self, name):
        """A press of the table's start or dice button does what the table waits for
        (docs/FAULTS.md "Buttons"); a press it cannot take is refused, and says why."""
        try:
            if name == "dice":
                did = "throw: %s" % (await self.daemon.throw_dice(by="button"))["text"]
            else:
                did = await self._press_start()
        except JantakuError as e:
            self.show("refused")  # the light says the press was not taken
            self._emit({"type": "button", "button": name, "taken": False, "why": str(e),
                        "next": self.daemon.next_step()})
            return
        self._emit({"type": "button", "button": name, "taken": True, "did": did})

    async def _press_start(self):
        """The start button: the hand over (again, after a stopped lift), else continue
        when people were asked; refused otherwise."""
        allowed = self.daemon.can()
        if "hand_over" in allowed:
            await self.daemon.hand_over(by="button")
            return "hand over"
        if "continue" in allowed:
            await self.daemon.continue_()  # people are done: the centre closes, the step goes on
            return "continue"
        self.daemon.judge("hand_over")  # raises, with the reason
        return "nothing"
