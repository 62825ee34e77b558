"""The analyser's one error: a hand (or a call, or backs) that cannot be read."""
from hostd.errors import BadRequest


class HandError(BadRequest, ValueError):
    """A hand that cannot be read or analysed (``BadRequest``: the API answers 400,
    the CLI exits 2). The message says what is wrong and what is accepted."""
