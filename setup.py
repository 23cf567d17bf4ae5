"""The one build step pyproject.toml cannot say: the wheel carries the top-level templates/ and static/.

They stay at the top of the checkout, where the project keeps them; the wheel (and the sdist) carries them as
package data of ``compliance``, in ``compliance/bundled/``, where compliance/settings.py looks first. An editable
install (``make run``, ``make test``) reads them from the checkout. bin/check-wheel installs the built wheel and
renders every template from there.
"""

from __future__ import annotations

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

TREES = ("templates", "static")
BUNDLED = Path("compliance", "bundled")


class BuildPyWithTrees(build_py):
    """build_py whose data files include the two trees: the wheel copies them, the sdist lists them."""

    def _get_data_files(self) -> list[tuple[str, str, str, list[str]]]:
        return [*super()._get_data_files(), *self._trees()]

    def get_data_files_without_manifest(self) -> list[tuple[str, str, str, list[str]]]:
        # what egg_info's manifest (the sdist's file list) takes
        return [*super().get_data_files_without_manifest(), *self._trees()]

    def _trees(self) -> list[tuple[str, str, str, list[str]]]:
        if self.editable_mode:
            return []
        return [("compliance", tree, str(Path(self.build_lib, BUNDLED, tree)), _files(Path(tree))) for tree in TREES]


def _files(tree: Path) -> list[str]:
    return sorted(str(p.relative_to(tree)) for p in tree.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


setup(cmdclass={"build_py": BuildPyWithTrees})
