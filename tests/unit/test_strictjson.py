"""One strict JSON reader for the API and the MQTT bridge (hostd/strictjson.py): linear in
its input, and the same bodies answered alike by every MQTT verb and its HTTP route, as
docs/API.md "Bodies" and docs/FLEET.md "Commands" say."""
import asyncio
import json
import time

import httpx
import pytest

from fake_daemon import FakeDaemon
from hostd.core.commands import BY_NAME
from hostd.fleet.mqtt import VERBS, parse_command, run_command
from hostd.strictjson import MAX_BODY_BYTES, BodyRefused, problem, read_object
from hostd.web.api import create_app

LIMIT_MS = 20  # "a 64 KiB object of 10,000 distinct keys with one repeated ... under 20 ms"


def _keys():
    """Distinct JSON keys, shortest first: the 94 printable ASCII characters but '"' and
    '\\', then every pair of them, then every triple."""
    chars = [chr(c) for c in range(32, 127) if chr(c) not in '"\\']
    yield from chars
    yield from (a + b for a in chars for b in chars)
    yield from (a + b + c for a in chars for b in chars for c in chars)


def wide_object(keys=None, budget=MAX_BODY_BYTES):
    """The densest JSON object of distinct keys with its last key repeated at its end (the
    worst case of a check that counts each key among all): ``keys`` of them, or as many as
    fit ``budget`` bytes."""
    names, size = [], 2 + 6
    for k in _keys():
        if keys is not None and len(names) == keys:
            break
        if keys is None and size + len(k) + 5 > budget:
            break
        names.append(k)
        size += len(k) + 5
    text = "{" + ",".join(json.dumps(k) + ":0" for k in names + names[-1:]) + "}"
    return text.encode(), len(names)


def _best(fn, data, n=5):
    best = float("inf")
    for _ in range(n):
        t0 = time.perf_counter()
        fn(data)
        best = min(best, time.perf_counter() - t0)
    return best


def test_a_key_repeated_after_10000_distinct_ones_is_refused_in_linear_time():
    dense, n = wide_object()  # what fits a command: some 9,300 keys in 64 KiB
    assert len(dense) <= MAX_BODY_BYTES and n > 9000
    with pytest.raises(BodyRefused) as e:
        read_object(dense, "{}")
    assert e.value.status == 400 and e.value.code == "bad_json"
    assert "the key %r is given twice" % json.loads(dense[dense.rindex(b',"') + 1:
                                                           dense.rindex(b":")]) in e.value.message
    # 10,000 distinct keys (71 KB: more than a body may be, so the parser alone)
    body, n = wide_object(10000)
    assert n == 10000 and problem(body)[1].startswith("the key ") and "twice" in problem(body)[1]
    best = _best(lambda b: problem(b), body)
    assert best * 1000 < LIMIT_MS, "%.1f ms" % (best * 1000)
    # it grows with the input, not with its square (the old check, keys.count per key,
    # took half a second on the 64 KiB one: bench/api_fuzz.py)
    small = _best(lambda b: problem(b), wide_object(1000)[0])
    assert best < small * 30, (best, small)


def test_the_size_is_checked_before_a_byte_is_decoded():
    huge = b"\xff" * (MAX_BODY_BYTES + 1)  # not even UTF-8: its size is what is said
    with pytest.raises(BodyRefused) as e:
        read_object(huge, "{}")
    assert e.value.status == 413 and e.value.code == "too_large"
    assert "at most %d bytes" % MAX_BODY_BYTES in e.value.message


# -- the same bodies, both ways ----------------------------------------------------------------

X = b'"' + b"x" * MAX_BODY_BYTES + b'"'
BODIES = [  # (payload, status for dice, status for a verb without fields), as docs/API.md says
    (b"", 200, 200),
    (b"{}", 200, 200),
    (b" \r\n\t", 400, 400),  # spaces alone are not JSON (empty is no body)
    (b'{"a": 1}', 422, 422),  # an unknown field
    (b'{"dice": [3, 4]}', 200, 422),
    (b'{"dice": null}', 200, 422),
    (b'{"dice": "34"}', 422, 422),
    (b'{"dice": "3,4"}', 422, 422),
    (b'{"dice": [3, 13.0]}', 422, 422),  # strict: 13.0 is not an integer
    (b'{"dice": [3, true]}', 422, 422),
    (b'{"dice": [NaN]}', 400, 400),
    (b'{"dice": [Infinity, 3]}', 400, 400),
    (b'{"dice": [1e999, 3]}', 400, 400),
    (b'{"dice": [' + b"9" * 5000 + b"]}", 400, 400),
    (b'{"a": 1, "a": 2}', 400, 400),
    (b"\xff{}", 400, 400),
    (b"\xef\xbb\xbf{}", 400, 400),  # a byte order mark
    (b"{", 400, 400),
    (b"{} {}", 400, 400),
    (b"[" * 20000 + b"]" * 20000, 400, 400),
    (b"[]", 422, 422),
    (b"null", 422, 422),
    (b'"{}"', 422, 422),
    (b"3", 422, 422),
    (b'{"a": ' + X + b"}", 413, 413),
]


def _http(payloads, path):
    async def go():
        d = FakeDaemon()
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=create_app(d)),
                                     base_url="http://127.0.0.1:8737") as c:
            return [await c.post(path, content=p, headers={"content-type": "application/json"})
                    for p in payloads]

    return [(r.status_code, r.json().get("error", {}).get("code")) for r in asyncio.run(go())]


def _mqtt(payloads, verb):
    async def go():
        d = FakeDaemon()
        out = []
        for p in payloads:
            body, refusal = parse_command(verb, p)
            status, answer = refusal if refusal else await run_command(d, verb, body)
            out.append((status, answer.get("error", {}).get("code")))
        return out

    return asyncio.run(go())


@pytest.mark.parametrize("verb", sorted(VERBS))
def test_every_verb_answers_each_body_as_its_http_route(verb):
    command = VERBS[verb].command
    payloads = [p for p, _, _ in BODIES]
    http = _http(payloads, command.path)
    mqtt = _mqtt(payloads, verb)
    has_dice = "dice" in command.request.model_fields
    for (payload, dice, other), h, m in zip(BODIES, http, mqtt):
        want = dice if has_dice else other
        shown = payload[:40]
        assert h == m, "%s %r: HTTP %s, MQTT %s" % (verb, shown, h, m)
        assert h[0] == want, "%s %r: %s, docs/API.md says %d" % (verb, shown, h, want)
        if want != 200:
            assert h[1] == {400: "bad_json", 413: "too_large", 422: "bad_request"}[want], h


def test_only_mqtt_has_the_envelope_id_and_says_what_it_accepts():
    """`id` is the MQTT envelope's (a repeated command runs once), not a field: the API
    refuses it as any unknown field."""
    assert _http([b'{"id": "h-1"}'], BY_NAME["hand_over"].path) == [(422, "bad_request")]
    assert _mqtt([b'{"id": "h-1"}'], "hand_over") == [(200, None)]
    body, refusal = parse_command("dice", b'{"dice": "34"}')
    message = refusal[1]["error"]["message"]
    assert message.startswith("dice: Input should be a valid list; accepted: ")
    assert json.loads('{"dice": [3, 4]}') and '{"dice": [faces]}' in message
