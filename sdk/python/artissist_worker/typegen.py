"""Typed inputs and outputs from the declared kinds: `python -m artissist_worker types` writes a module of TypedDicts,
one `<Kind><Stage>Inputs` (what the handler's work.inputs holds) and one `<Kind><Stage>Outputs` (what it returns) a stage."""

from __future__ import annotations

import keyword
import re

from .kinds import Field, Kinds

# The declared field types (JobField.type) as Python types.
PYTHON_TYPES = {
    "string": "str",
    "id": "str",
    "int": "int",
    "float": "float",
    "boolean": "bool",
    "date": "str",
    "dateTime": "str",
    "json": "Any",
    "strings": "list[str]",
    "enum": "str",
}


def class_name(kind: str, stage: str, suffix: str) -> str:
    """A class name from a kind and a stage: MUSIC_VIDEO, render-scenes, Outputs → MusicVideoRenderScenesOutputs (K3dCharacter… for a digit)."""
    words = [w for w in re.split(r"[^0-9A-Za-z]+", f"{kind} {stage}") if w]
    name = "".join(w[:1].upper() + w[1:].lower() for w in words) + suffix
    return name if name[:1].isalpha() else f"K{name}"


def _typed_dict(name: str, fields: tuple[Field, ...]) -> str:
    def line(f: Field) -> str:
        return f"    {f.name}: {PYTHON_TYPES.get(f.type, 'Any')}"

    if any(not f.name.isidentifier() or keyword.iskeyword(f.name) for f in fields):
        # A name that cannot be a class attribute: the functional form, every field optional.
        entries = ", ".join(f"{f.name!r}: {PYTHON_TYPES.get(f.type, 'Any')}" for f in fields)
        return f"{name} = TypedDict({name!r}, {{{entries}}}, total=False)\n"
    required = [f for f in fields if f.required]
    optional = [f for f in fields if not f.required]
    if not optional:
        return f"class {name}(TypedDict):\n" + ("\n".join(map(line, required)) or "    pass") + "\n"
    if not required:
        return f"class {name}(TypedDict, total=False):\n" + "\n".join(map(line, optional)) + "\n"
    # Python 3.10 has no Required[]: the required fields in a base class, the optional ones in a total=False subclass.
    base = f"_{name}Required"
    return (
        f"class {base}(TypedDict):\n" + "\n".join(map(line, required)) + "\n\n\n"
        f"class {name}({base}, total=False):\n" + "\n".join(map(line, optional)) + "\n"
    )


def typed_module(kinds: Kinds) -> str:
    """The source of a module declaring each stage's inputs and outputs as TypedDicts (importable on Python 3.10+)."""
    parts = [
        '"""The declared kinds\' inputs and outputs, written by `python -m artissist_worker types` from the server\'s jobKinds."""',
        "",
        "from __future__ import annotations",
        "",
        "from typing import Any, TypedDict",
        "",
    ]
    for kind, stage, fields in kinds.stages():
        parts.append("")
        parts.append(_typed_dict(class_name(kind, stage, "Inputs"), fields.inputs))
        parts.append("")
        parts.append(_typed_dict(class_name(kind, stage, "Outputs"), fields.outputs))
    return "\n".join(parts).rstrip() + "\n"
