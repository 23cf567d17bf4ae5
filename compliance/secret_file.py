"""A secret made once and kept in a file, for the embedded default (no environment to hold it).

Imports nothing from Django: the settings module uses it.
"""

from __future__ import annotations

import os
import secrets
import time
from pathlib import Path

__all__ = ["embedded_secret"]


def embedded_secret(path: Path) -> str:
    """The secret in ``path``, made (random, readable by its owner only) the first time it is asked for.

    Two processes starting together make it once: the file is created exclusively and the loser reads it.
    """
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass
        else:
            with os.fdopen(fd, "w") as handle:
                handle.write(secrets.token_hex(32))
    secret = path.read_text().strip()
    for _ in range(40):  # the winner of a race may not have written it yet
        if secret:
            break
        time.sleep(0.05)
        secret = path.read_text().strip()
    if not secret:
        raise RuntimeError(f"{path} is empty: delete it to make a new key, or set the key in the environment")
    return secret
