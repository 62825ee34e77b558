"""hostd's layout shows its layers (docs/ARCHITECTURE.md §2): packages at the top, no
import cycle between its modules (imports inside functions count; `if TYPE_CHECKING:`
imports do not), its packages in one order (each imports only those below it), and no function longer than a screenful or two.  Across firmware/,
protocol/ and hw_sim/ no module touches another module's private members (issue 39), and
no new pair of files imports each other (issue 51)."""
import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
HOSTD = ROOT / "hostd"
MAX_FUNCTION_LINES = 100
MAX_TOP_MODULES = 8
MIN_PACKAGES = 4


def _module_name(path):
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules():
    return {_module_name(p): p for p in sorted(HOSTD.rglob("*.py"))}


def _is_type_checking(node):
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree, name, is_package, modules, ours=("hostd",)):
    """The modules of ours (hostd's) `tree` imports, anywhere but under `if TYPE_CHECKING:`."""
    out = set()

    def resolve(target):
        while target and target not in modules:
            target = target.rpartition(".")[0]
        if target and target != name:
            out.add(target)

    def visit(node):
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            for a in node.names:
                resolve(a.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name if is_package else name.rpartition(".")[0]
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                mod = base + ("." + node.module if node.module else "")
            else:
                mod = node.module or ""
            for a in node.names:
                full = mod + "." + a.name
                resolve(full if full in modules else mod)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return {m for m in out if m.split(".")[0] in ours}


def import_graph():
    modules = _modules()
    graph = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(), str(path))
        graph[name] = _imports(tree, name, path.name == "__init__.py", modules)
    return graph


def cycles(graph):
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in graph.get(v, ()):
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return out


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_hostd_has_no_import_cycle():
    found = cycles(import_graph())
    assert not found, "import cycles in hostd: %s" % "; ".join(" <-> ".join(c) for c in found)


#: the file-level import cycles left in firmware/, protocol/ and hw_sim/ (each a sorted list of
#: modules; none may be added): hal.py looks a four-port signal up in fourport/pins.py, which
#: takes its kinds and the reference signals from hal.py.
DEVICE_CYCLES_LEFT = [["firmware.fourport.pins", "firmware.hal"]]


def device_import_graph():
    """firmware/, protocol/ and hw_sim/ (the MicroPython side): module -> the modules of
    these it imports, a function's import too (a lazy import is an import)."""
    ours = ("firmware", "protocol", "hw_sim")
    paths = [p for d in ours for p in sorted((ROOT / d).rglob("*.py"))]
    modules = {_module_name(p): p for p in paths}
    return {name: _imports(ast.parse(path.read_text(), str(path)), name, path.name == "__init__.py",
                           modules, ours)
            for name, path in modules.items()}


def test_the_device_side_has_no_new_import_cycle():
    """The board profile's modules import one way (profile_error.py and profile_leaf.py
    under profile.py, profile_check.py and profile_fourport.py), and no other pair of
    files imports each other, lazily or not (issue 51)."""
    found = cycles(device_import_graph())
    new = [c for c in found if c not in DEVICE_CYCLES_LEFT]
    assert not new, "import cycles: %s" % "; ".join(" <-> ".join(c) for c in new)


#: hostd's packages from the bottom up (docs/ARCHITECTURE.md §2): each imports only those
#: before it, and the top level's own modules (errors.py ...) import no package.  A new
#: package takes its place here.
PACKAGE_ORDER = ("rules", "boards", "hand", "game", "table", "bringup", "core", "web", "fleet",
                 "cli")


def _package(module):
    parts = module.split(".")
    if len(parts) > 2 or (HOSTD / parts[-1] / "__init__.py").is_file():
        return parts[1]
    return None  # a top-level module (hostd/errors.py ...)


def upward_imports(graph, order):
    """Each import of a module by one of a package the order puts below its own (or of any
    package by a top-level module), as 'importer -> imported'."""
    rank = {p: i for i, p in enumerate(order)}
    out = []
    for a, bs in sorted(graph.items()):
        pa = _package(a)
        for b in sorted(bs):
            pb = _package(b)
            if pb is None or pa == pb:
                continue
            if pa is None or rank[pb] > rank[pa]:
                out.append("%s -> %s" % (a, b))
    return out


def test_the_package_order_check_sees_an_upward_import():
    graph = {"hostd.rules.dice": {"hostd.core.daemon"}, "hostd.core.daemon": {"hostd.rules.dice"},
             "hostd.errors": set()}
    assert upward_imports(graph, PACKAGE_ORDER) == ["hostd.rules.dice -> hostd.core.daemon"]


def test_hostd_s_packages_import_only_those_below_them():
    """No two packages import each other: the packages have one order, each importing only
    the ones below it (rules imports nothing of ours but the top level's modules)."""
    packages = sorted(p.name for p in HOSTD.iterdir() if (p / "__init__.py").is_file())
    assert sorted(PACKAGE_ORDER) == packages, "give each package its place in PACKAGE_ORDER"
    up = upward_imports(import_graph(), PACKAGE_ORDER)
    assert not up, "imports against the package order %s: %s" % (" < ".join(PACKAGE_ORDER),
                                                                "; ".join(up))


def test_a_function_import_counts_and_type_checking_does_not():
    src = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from hostd.core import daemon\n"
           "def f():\n    from hostd.web import api\n")
    mods = {"hostd.core.daemon": None, "hostd.web.api": None, "hostd.x": None}
    assert _imports(ast.parse(src), "hostd.x", False, mods) == {"hostd.web.api"}


def test_hostd_is_packages_not_a_flat_folder():
    top_modules = [p.name for p in HOSTD.glob("*.py")]
    packages = [p.name for p in HOSTD.iterdir() if (p / "__init__.py").is_file()]
    assert len(top_modules) <= MAX_TOP_MODULES, sorted(top_modules)
    assert len(packages) >= MIN_PACKAGES, sorted(packages)


def _long_functions():
    for name, path in _modules().items():
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if n > MAX_FUNCTION_LINES:
                    yield "%s:%d %s (%d lines)" % (path.relative_to(ROOT), node.lineno,
                                                   node.name, n)


def test_no_function_in_hostd_is_over_100_lines():
    long = list(_long_functions())
    assert not long, "functions over %d lines: %s" % (MAX_FUNCTION_LINES, ", ".join(long))


@pytest.mark.parametrize("name", ["default_seed_or", "load_mixed_deck", "def reloading",
                                  "total_stacks", "min_total", "take_change"])
def test_dead_code_stays_gone(name):
    where = [str(p.relative_to(ROOT)) for p in list(HOSTD.rglob("*.py"))
             + list((ROOT / "firmware").rglob("*.py")) if name in p.read_text()]
    assert not where, "%r is back in %s" % (name, where)


def test_one_table_fault_class():
    where = [str(p.relative_to(ROOT)) for p in HOSTD.rglob("*.py")
             if "class TableFault" in p.read_text()]
    assert len(where) == 1, where


def _private_uses(path):
    """`obj._name` in `path` where obj is not `self` or `cls` (another object's private
    attribute); dunders aside."""
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") \
                and not node.attr.startswith("__"):
            own = isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
            if not own:
                yield "%s:%d .%s" % (path.relative_to(ROOT), node.lineno, node.attr)


@pytest.mark.parametrize("rel", ["core/recovery.py", "core/resume.py", "bringup/selftest.py",
                                 "core/bench.py", "core/panel.py", "core/split.py"])
def test_the_session_s_helpers_use_its_public_methods_only(rel):
    """The recovery, the resume and the bench steps drive the Session (or the Daemon)
    through its public methods, never another object's `_name`."""
    found = list(_private_uses(HOSTD / rel))
    assert not found, "private attributes of another object: %s" % ", ".join(found)


# ------------------------------------------------------------------ every package
# No module reads or writes another module's private members (issue 39): an `obj._name`
# (obj not `self`/`cls`, dunders aside) is taken only where that module itself defines
# `_name`.
SHARED = ("hostd", "firmware", "protocol", "hw_sim")
# (module, name) -> why that use is not another of this project's modules' private member
NOT_OURS = {
    ("hw_sim/lifetime.py", "_exit"): "os._exit, the standard library's documented way for a "
    "forked child to end at once (no atexit, no flushing of the parent's buffers)",
    ("hostd/hand/score.py", "_replace"): "a named tuple's public method (its names begin "
    "with _ so as not to clash with the fields)",
    # paho-mqtt has no limit on an incoming packet's size: the bridge drops a too-large
    # PUBLISH as paho reads it (its reader, its packet state, its PUBACK; docs/FLEET.md)
    ("hostd/fleet/broker.py", "_sock_recv"): "paho-mqtt's socket reader, wrapped",
    ("hostd/fleet/broker.py", "_in_packet"): "paho-mqtt's packet being read, dropped",
    ("hostd/fleet/broker.py", "_send_puback"): "paho-mqtt's PUBACK for a dropped QoS 1 packet",
    ("hostd/fleet/broker.py", "_sock"): "paho-mqtt's socket, for what TLS holds back",
}


def _targets(node):
    if isinstance(node, ast.Assign):
        out = list(node.targets)
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        out = [node.target]
    else:
        return []
    flat = []
    while out:
        t = out.pop()
        if isinstance(t, (ast.Tuple, ast.List)):
            out.extend(t.elts)
        else:
            flat.append(t)
    return flat


def _defined_private(tree):
    """The private names a module defines: a `def _name` or `class _Name`, an assignment
    to `self._name` or `cls._name`, or a class attribute `_name`."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        for t in _targets(node):
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) \
                    and t.value.id in ("self", "cls"):
                out.add(t.attr)
        if isinstance(node, ast.ClassDef):
            for st in node.body:
                for t in _targets(st):
                    if isinstance(t, ast.Name):
                        out.add(t.id)
    return {n for n in out if n.startswith("_")}


def _foreign_private_uses(path):
    """`obj._name` in `path` (obj not `self`/`cls`, dunders aside) where `_name` is not
    defined in `path` itself: another module's private member."""
    rel = path.relative_to(ROOT).as_posix()
    return _foreign_in(ast.parse(path.read_text(), str(path)), rel)


def _foreign_in(tree, rel):
    own = _defined_private(tree)
    for node in ast.walk(tree):
        a = node.attr if isinstance(node, ast.Attribute) else ""
        if not a.startswith("_") or a.startswith("__") or a in own or (rel, a) in NOT_OURS:
            continue
        if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
            continue
        yield "%s:%d .%s" % (rel, node.lineno, a)


@pytest.mark.parametrize("package", SHARED)
def test_no_module_touches_another_module_s_private_members(package):
    """The firmware's self-test drives the controller, the stacker and the tracks through
    their public methods, as the protocol's, the simulator's and the daemon's modules do
    each other (the CLI asks the daemon whether it is busy())."""
    found = [u for p in sorted((ROOT / package).rglob("*.py")) for u in _foreign_private_uses(p)]
    assert not found, "another module's private members: %s" % ", ".join(found)


def test_the_private_member_check_sees_a_use_and_its_exceptions_still_hold():
    tree = ast.parse("class A:\n    _k = 1\n\n    def f(self, o):\n"
                     "        self._x = o._y + o._k + o._x + o.__class__.__name__\n")
    assert _defined_private(tree) == {"_k", "_x"}
    assert list(_foreign_in(tree, "m.py")) == ["m.py:5 ._y"]
    for (rel, name), why in NOT_OURS.items():
        assert ".%s" % name in (ROOT / rel).read_text(), "%s no longer uses %s: %s" % (rel, name, why)
