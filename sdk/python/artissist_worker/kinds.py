"""The server's declared job kinds (the `jobKinds` query): which outputs each stage must give."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional

JOB_KINDS_QUERY = """query WorkerJobKinds { jobKinds { name inputs { name type required s3Key } stages { name outputs { name type required s3Key }
  fanOut { itemInputs { name type required s3Key } itemOutputs { name type required s3Key } } } } }"""


@dataclass(frozen=True)
class Field:
    """One declared field of a stage's outputs or inputs."""

    name: str
    type: str
    required: bool
    s3_key: bool


@dataclass(frozen=True)
class StageFields:
    """What a stage's handler meets: the inputs it is given (the job's for a step, the item's for a fan-out stage) and the
    outputs its completion must give."""

    fan_out: bool
    outputs: tuple[Field, ...]
    inputs: tuple[Field, ...]


def _fields(raw: Any) -> tuple[Field, ...]:
    return tuple(Field(str(f["name"]), str(f["type"]), bool(f["required"]), bool(f["s3Key"])) for f in raw or [])


class Kinds:
    """The declared kinds as `jobKinds` answered them, by kind and stage name."""

    def __init__(self, job_kinds: list[Mapping[str, Any]]) -> None:
        self._stages: dict[tuple[str, str], StageFields] = {}
        for kind in job_kinds:
            for stage in kind["stages"]:
                fan_out = stage.get("fanOut")
                self._stages[(str(kind["name"]), str(stage["name"]))] = StageFields(
                    fan_out=fan_out is not None,
                    outputs=_fields(fan_out["itemOutputs"] if fan_out else stage.get("outputs")),
                    # A step's handler gets the job's inputs; an item's, the item's.
                    inputs=_fields(fan_out["itemInputs"] if fan_out else kind.get("inputs")),
                )

    def stages(self) -> list[tuple[str, str, StageFields]]:
        """Every declared (kind, stage) with its fields, in the order jobKinds lists them."""
        return [(kind, stage, fields) for (kind, stage), fields in self._stages.items()]

    def stage(self, kind: str, stage: str) -> Optional[StageFields]:
        """The stage's declaration, or None for a kind or stage the server does not declare (free-form jobs)."""
        return self._stages.get((kind, stage))

    def missing_outputs(self, kind: str, stage: str, outputs: Mapping[str, Any]) -> list[str]:
        """The required outputs of the stage that `outputs` leaves out or sets to None, in declaration order."""
        declared = self.stage(kind, stage)
        if declared is None:
            return []
        return [f.name for f in declared.outputs if f.required and outputs.get(f.name) is None]

    def unknown_outputs(self, kind: str, stage: str, outputs: Mapping[str, Any]) -> list[str]:
        """The outputs the stage does not declare (the server refuses them), sorted; none for an undeclared stage."""
        declared = self.stage(kind, stage)
        if declared is None:
            return []
        names = {f.name for f in declared.outputs}
        return sorted(name for name in outputs if name not in names)
