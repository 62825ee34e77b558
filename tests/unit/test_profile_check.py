import sys

from firmware import profile, profile_check


def test_schema_covers_the_shipped_profile_keys():
    import json

    with open(profile.boards_dir() + "/reference-18.json") as f:
        d = json.load(f)
    assert set(d) <= set(profile_check.SCHEMA)
    for k in profile_check.OPTIONAL:
        top = k.split(".")[0]
        assert top in profile_check.SCHEMA


def test_release_drops_the_checks_and_validate_brings_them_back():
    profile.load(None)
    assert "firmware.profile_check" in sys.modules
    profile.release()
    assert "firmware.profile_check" not in sys.modules
    assert profile.load("long-29")["max_stacks"] == 29
    assert "firmware.profile_check" in sys.modules
