"""The stubs (`hookc.pyi`) describe the module as built: every public name
they declare exists, with the same members, and the module ships them with
a `py.typed` marker."""

import ast
import pathlib

import hookc

STUBS = pathlib.Path(__file__).resolve().parents[1] / "hookc.pyi"


def declared():
    tree = ast.parse(STUBS.read_text())
    out = {}
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)) and not node.name.startswith("_"):
            members = {
                n.name
                for n in getattr(node, "body", [])
                if isinstance(n, ast.FunctionDef)
            } if isinstance(node, ast.ClassDef) else set()
            out[node.name] = members
    return out


def test_every_stub_name_exists_with_its_members():
    names = declared()
    assert {"Policy", "compile", "compile_sources", "CompileError", "ArtifactError"} <= set(names)
    for name, members in names.items():
        obj = getattr(hookc, name)
        for member in members:
            assert hasattr(obj, member), f"{name}.{member}"


def test_every_public_name_of_the_module_has_a_stub():
    public = {n for n in dir(hookc) if not n.startswith("_")}
    assert public <= set(declared()) | {"hookc"}, public - set(declared())


def test_the_installed_package_carries_stubs_and_py_typed():
    folder = pathlib.Path(hookc.__file__).parent
    assert (folder / "py.typed").exists()
    assert (folder / "__init__.pyi").read_text() == STUBS.read_text()
