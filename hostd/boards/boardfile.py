"""The board profile on the host: which file describes the connected table, and writing
measured values (calibration, timings) into it with a backup and a diff (docs/FIRMWARE.md
§3.2).

The built-in profiles (firmware/boards/<id>.json) are the project's; a club's table gets
its own copy in one place, `$JANTAKU_CONFIG_DIR/boards/<id>.json` (the service sets
JANTAKU_CONFIG_DIR=/var/lib/jantaku: written by the daemon, readable by the jantaku
group), else `$XDG_CONFIG_HOME/jantaku/boards/<id>.json` (default ~/.config/...), made
from the built-in one the first time something is written.  That copy is what `jantaku
selftest` compares with, what calibrate writes and what `jantaku flash --board ID`
installs (docs/DEPLOY.md "Where the club's profile lives").  Every command finds a board
by its id the same way (:func:`locate`, said in each command's help: LOOKUP): flash,
wiring, sim serve, demo, run --pi, and the daemon's selftest and calibrate.
"""
import copy
import difflib
import json
import os
import re
import shutil
import time

from firmware import profile as fprofile
from hostd.boards import hardware
from hostd.errors import ConfigError

#: the one pattern of an id that becomes a file's name (a board's profile, whoever named
#: it: a person's --board, the table's IDENTITY): the profile's own rule for its "id"
#: (firmware/profile_check.py ID, ID_CHARS), so nothing with "/", ".." or a dot leaves the
#: folder it is looked up in
BOARD_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,19}\Z")


def board_id(value, where="board id"):
    """``value`` if it is an id (BOARD_ID), else ConfigError saying what was wrong and what
    is accepted.  Every path made of an id goes through it."""
    if not isinstance(value, str) or not BOARD_ID.match(value):
        from firmware.profile_check import id_rule

        raise ConfigError("%s %r refused: an id is %s" % (where, value, id_rule()))
    return value

def user_dir():
    """Where a club's profiles live: $JANTAKU_CONFIG_DIR/boards, else the XDG config's."""
    own = os.environ.get("JANTAKU_CONFIG_DIR")
    if own:
        return os.path.join(own, "boards")
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "jantaku", "boards")


def user_path(board_id_):
    return os.path.join(user_dir(), "%s.json" % board_id(board_id_))


def builtin_path(board_id_):
    return os.path.join(fprofile.boards_dir(), "%s.json" % board_id(board_id_))


#: how every command finds a board by its id (each one's help says it: flash, wiring, sim
#: serve, demo, run --pi, and the daemon's selftest and calibrate for the connected board)
LOOKUP = ("an id is looked up as the club's copy first ($JANTAKU_CONFIG_DIR/boards/ID.json, "
          "else $XDG_CONFIG_HOME/jantaku/boards/ID.json, by default ~/.config/jantaku/boards), "
          "then the shipped profiles (firmware/boards/ID.json)")


def board_help(default=None):
    """The help of a command's ``--board ID|PATH``: the one lookup, and the default."""
    return "the board profile: an id or a JSON file's path; %s%s" % (
        LOOKUP, "; default %s" % default if default else "")


def is_path(board):
    """A --board value that names a file (it has a / or ends in .json), not an id."""
    return "/" in board or board.endswith(".json")


def path_for(board_id_, shipped=None):
    """The club's copy if there is one, else the built-in profile (None if neither);
    ``shipped``: another folder of shipped profiles (a checkout's, for its tests)."""
    board_id(board_id_)
    own = os.path.join(shipped, "%s.json" % board_id_) if shipped else builtin_path(board_id_)
    for p in (user_path(board_id_), own):
        if os.path.exists(p):
            return p
    return None


def known_ids(shipped=None):
    """Every board id the lookup finds: the club's copies and the shipped profiles."""
    ids = set()
    for d in (user_dir(), shipped or fprofile.boards_dir()):
        try:
            ids.update(f[:-5] for f in os.listdir(d) if f.endswith(".json"))
        except OSError:
            pass
    return sorted(ids)


def locate(board, shipped=None):
    """The file a board id or path names, by the one lookup (LOOKUP): a path as it is, an
    id the club's copy first, then the shipped profile (``shipped``: another folder of
    them).  ConfigError naming where it looked and the ids known, when there is none."""
    board = str(board)
    if is_path(board):
        if not os.path.isfile(board):
            raise ConfigError("board profile %s: cannot read it (no such file)" % board)
        return board
    path = path_for(board, shipped)
    if path is None:
        where = os.path.join(shipped, board + ".json") if shipped else builtin_path(board)
        raise ConfigError("no board profile for %r: neither the club's copy %s nor the shipped "
                          "%s exists; known ids: %s; or give a JSON file's path"
                          % (board, user_path(board), where, ", ".join(known_ids(shipped))))
    return path


def read(board):
    """The validated profile a board id or path names (the one lookup); ConfigError
    saying what is wrong."""
    path = locate(board)
    try:
        return fprofile.load(path)
    except ValueError as e:  # ProfileError is a ValueError
        raise ConfigError("board profile %s: %s" % (path, e)) from None


def load(board):
    """(validated profile, path, raw dict) of the connected table's board, its pins checked
    against its hardware (hostd/boards/hardware: HardwareError lists every problem;
    warnings are logged).  ``board`` is an id (BOARD_ID), never a path: it is what the
    table said it is."""
    path = locate(board_id(board, "the table's board id"))
    try:
        with open(path) as f:
            raw = json.load(f)
        profile = fprofile.validate(copy.deepcopy(raw))
    except (OSError, ValueError) as e:  # ProfileError is a ValueError
        raise ConfigError("board profile %s: %s" % (path, e)) from None
    # its pins against its hardware: every problem at once (HardwareError, a ConfigError)
    for w in hardware.require(profile, where="board profile %s" % path):
        import structlog  # (here: the CLI's help reads LOOKUP and stays light)

        structlog.get_logger("jantaku.boardfile").warning("board profile hardware", profile=path,
                                                          warning=str(w))
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


def write(board, change):
    """Apply change(raw dict) -> None to the board's profile and write it to the club's
    copy: validated first (nothing is written if it would not load), the previous file
    kept as <file>.bak-<time>, the diff returned.  Returns {"path", "backup", "diff"}."""
    _, src, raw = load(board)
    new = copy.deepcopy(raw)
    change(new)
    try:
        fprofile.validate(copy.deepcopy(new))
    except ValueError as e:
        raise ConfigError("the new profile would not load (%s): nothing written" % e) from None
    dest = user_path(board)
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
