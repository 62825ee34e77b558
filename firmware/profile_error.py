# ProfileError: a board profile's bad key, named with what is accepted (raised by
# firmware/profile.py and its checks, caught by whoever loads a profile).  Its own module,
# under the profile and its checks: they all import it, it imports nothing, and it stays
# resident when profile.release() drops the checks.
class ProfileError(ValueError):
    """A profile key that is missing, unknown, of the wrong type or out of range.

    .key is the dotted path of the key ("timings_ms.gate_close"), .accepted what
    would be accepted; str() reads "timings_ms.gate_close: got 0; accepted: ...".
    Validation reports every problem it finds at once: .problems lists them (this
    one alone, or several: then .key and .accepted are the first's and str() reads
    "2 problems:" and one line each)."""

    def __init__(self, key, message, accepted=None, problems=None):
        self.key = key
        self.accepted = accepted
        text = key + ": " + message
        if accepted:
            text = text + "; accepted: " + accepted
        if problems:
            text = "%d problems:\n  %s" % (len(problems), "\n  ".join([str(p) for p in problems]))
        self.problems = problems if problems else [self]
        super().__init__(text)
