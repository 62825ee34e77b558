"""hostd's layout shows its layers (docs/ARCHITECTURE.md §2): packages at the top, no
import cycle between its modules (imports inside functions count; `if TYPE_CHECKING:`
imports do not), and no function longer than a screenful or two."""
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


def _imports(tree, name, is_package, modules):
    """The hostd modules `tree` imports, anywhere but under `if TYPE_CHECKING:`."""
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
    return {m for m in out if m.startswith("hostd")}


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
                                 "bringup/steps.py"])
def test_the_session_s_helpers_use_its_public_methods_only(rel):
    """The recovery, the resume and the bench steps drive the Session (or the Daemon)
    through its public methods, never another object's `_name`."""
    found = list(_private_uses(HOSTD / rel))
    assert not found, "private attributes of another object: %s" % ", ".join(found)


def _own_privates(tree):
    """The `_names` a module defines: its functions and methods, the attributes it sets
    on self/cls, its classes' attributes."""
    own = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            own.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                and isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
            own.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            own.add(node.id)
    return {n for n in own if n.startswith("_")}


def _foreign_private_uses(path):
    """`obj._name` in `path` where `_name` is not one of this module's own (another
    module's class's private member); dunders aside."""
    tree = ast.parse(path.read_text(), str(path))
    own = _own_privates(tree) | NAMEDTUPLE_API
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") \
                and not node.attr.startswith("__") and node.attr not in own:
            if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                yield "%s:%d .%s" % (path.name, node.lineno, node.attr)


# a named tuple's public methods begin with "_" so as not to clash with its fields
NAMEDTUPLE_API = {"_replace", "_asdict", "_fields", "_make", "_field_defaults"}


# what may reach into another's internals, and why
FOREIGN_ALLOWED = {
    # paho-mqtt has no limit on an incoming packet's size: the bridge drops a too-large
    # PUBLISH as paho reads it (its reader, its packet state, its PUBACK; docs/FLEET.md)
    "hostd/fleet/broker.py": {"_sock_recv", "_in_packet", "_send_puback", "_sock"},
}


def test_the_foreign_private_check_finds_a_use(tmp_path):
    path = tmp_path / "probe.py"
    path.write_text("class A:\n    def _f(self):\n        pass\n\n\n"
                    "def g(b, t):\n    return b._x + A()._f() + t._replace(y=1)\n")
    assert [u.split(" ")[1] for u in _foreign_private_uses(path)] == ["._x"]


@pytest.mark.parametrize("path", sorted(HOSTD.rglob("*.py")), ids=lambda p: str(p.relative_to(HOSTD)))
def test_no_hostd_module_reads_another_modules_private_members(path):
    """Issue 39: each module talks to another's objects through their public members."""
    allowed = FOREIGN_ALLOWED.get(str(path.relative_to(ROOT)), set())
    found = [u for u in _foreign_private_uses(path) if u.rsplit(".", 1)[1] not in allowed]
    assert not found, "private members of another module's objects: %s" % ", ".join(found)
