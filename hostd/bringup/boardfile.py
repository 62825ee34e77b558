"""The board profile on the host: which file describes the connected table, and writing
measured values (calibration, timings) into it with a backup and a diff (docs/FIRMWARE.md
§3.2).

The built-in profiles (firmware/boards/<id>.json) are the project's; a club's table gets
its own copy in one place, `$JANTAKU_CONFIG_DIR/boards/<id>.json` (the service sets
JANTAKU_CONFIG_DIR=/var/lib/jantaku: written by the daemon, readable by the jantaku
group), else `$XDG_CONFIG_HOME/jantaku/boards/<id>.json` (default ~/.config/...), made
from the built-in one the first time something is written.  That copy is what `jantaku
selftest` compares with, what calibrate writes and what `jantaku flash --board ID`
installs (docs/DEPLOY.md "Where the club's profile lives").
"""
import copy
import difflib
import json
import os
import shutil
import time

import structlog

from firmware import profile as fprofile
from hostd.bringup import hardware
from hostd.errors import ConfigError

log = structlog.get_logger("jantaku.boardfile")


def user_dir():
    """Where a club's profiles live: $JANTAKU_CONFIG_DIR/boards, else the XDG config's."""
    own = os.environ.get("JANTAKU_CONFIG_DIR")
    if own:
        return os.path.join(own, "boards")
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "jantaku", "boards")


def user_path(board_id):
    return os.path.join(user_dir(), "%s.json" % board_id)


def builtin_path(board_id):
    return os.path.join(fprofile.boards_dir(), "%s.json" % board_id)


def path_for(board_id):
    """The club's copy if there is one, else the built-in profile (None if neither)."""
    for p in (user_path(board_id), builtin_path(board_id)):
        if os.path.exists(p):
            return p
    return None


def load(board_id):
    """(validated profile, path, raw dict) of the connected table's board, its pins checked
    against its hardware (hostd/bringup/hardware: HardwareError lists every problem;
    warnings are logged)."""
    path = path_for(board_id)
    if path is None:
        raise ConfigError("no board profile for %r: neither %s nor %s exists; copy your table's "
                          "profile there" % (board_id, user_path(board_id), builtin_path(board_id)))
    try:
        with open(path) as f:
            raw = json.load(f)
        profile = fprofile.validate(copy.deepcopy(raw))
    except (OSError, ValueError) as e:  # ProfileError is a ValueError
        raise ConfigError("board profile %s: %s" % (path, e)) from None
    # its pins against its hardware: every problem at once (HardwareError, a ConfigError)
    for w in hardware.require(profile, where="board profile %s" % path):
        log.warning("board profile hardware", profile=path, warning=str(w))
    return profile, path, raw


def track_sides(profile):
    """Where each track's wall comes up: the profile's ``track_sides``, else, for a table of
    up to 4 tracks, in the order of play from the front (track 1 at the front, 2 on its
    right, ...; firmware/profile_check.py SIDES), else None (not known)."""
    from firmware.profile_check import SIDES

    if profile.get("track_sides"):
        return list(profile["track_sides"])
    return list(SIDES[: profile["tracks"]]) if profile["tracks"] <= len(SIDES) else None


def _text(d):
    return json.dumps(d, indent=2, ensure_ascii=False) + "\n"


def write(board_id, change):
    """Apply change(raw dict) -> None to the board's profile and write it to the club's
    copy: validated first (nothing is written if it would not load), the previous file
    kept as <file>.bak-<time>, the diff returned.  Returns {"path", "backup", "diff"}."""
    _, src, raw = load(board_id)
    new = copy.deepcopy(raw)
    change(new)
    try:
        fprofile.validate(copy.deepcopy(new))
    except ValueError as e:
        raise ConfigError("the new profile would not load (%s): nothing written" % e) from None
    dest = user_path(board_id)
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    backup = None
    if os.path.exists(dest):
        backup = "%s.bak-%s" % (dest, time.strftime("%Y%m%d-%H%M%S"))
        n = 1
        while os.path.exists(backup):
            backup = "%s.bak-%s-%d" % (dest, time.strftime("%Y%m%d-%H%M%S"), n)
            n += 1
        shutil.copy2(dest, backup)
    diff = "".join(difflib.unified_diff(_text(raw).splitlines(True), _text(new).splitlines(True),
                                        fromfile=backup or src, tofile=dest))
    tmp = dest + ".tmp"
    with open(tmp, "w") as f:
        f.write(_text(new))
    os.replace(tmp, dest)
    return {"path": dest, "backup": backup, "from": src, "diff": diff}
