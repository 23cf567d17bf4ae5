"""deploy/ as an operator uses it (docs/operations.md): the units, the environment file's template, and
deploy/compliance-admin, which runs a management command with the units' environment."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"


def _unit(name: str) -> dict[str, list[str]]:
    settings: dict[str, list[str]] = {}
    for line in (DEPLOY / "systemd" / f"compliance-{name}.service").read_text().splitlines():
        if "=" in line and not line.startswith("#"):
            key, _, value = line.partition("=")
            settings.setdefault(key, []).append(value)
    return settings


def test_beat_runs_in_its_own_unit_and_no_worker_runs_one():
    worker, beat = _unit("worker"), _unit("beat")
    assert " -B" not in worker["ExecStart"][0] and "--beat" not in worker["ExecStart"][0]
    assert " beat " in beat["ExecStart"][0] and beat["StateDirectory"] == ["compliance-beat"]
    assert "/var/lib/compliance-beat/" in beat["ExecStart"][0], "its schedule file is in its state directory"


def test_the_environment_template_does_not_override_the_units_credentials():
    """systemd lets EnvironmentFile= win over Environment=: a SECRET_KEY_FILE line there would point every process
    away from the credential the unit hands in."""
    template = (DEPLOY / "compliance.env.example").read_text()
    assigned = {line.split("=", 1)[0] for line in template.splitlines() if re.match(r"^[A-Z_]+=", line)}
    assert not {"SECRET_KEY", "SECRET_KEY_FILE", "AUDIT_CHAIN_KEY", "AUDIT_CHAIN_KEY_FILE"} & assigned
    for name in ("web", "worker", "beat"):
        unit = _unit(name)
        assert unit["EnvironmentFile"] == ["/etc/compliance/compliance.env"]
        assert any("SECRET_KEY_FILE=%d/secret_key" in e and "AUDIT_CHAIN_KEY_FILE=%d/audit_chain_key" in e
                   for e in unit["Environment"]), name
        assert not unit.get("ReadWritePaths"), f"{name}: no host directory to write (files live in the database)"


@pytest.mark.skipif(not (ROOT / ".venv" / "bin" / "django-admin").exists(), reason="needs the project's .venv")
def test_compliance_admin_runs_a_command_with_the_environment_file(tmp_path):
    secret, chain_key = tmp_path / "secret_key", tmp_path / "audit_chain_key"
    secret.write_text("s" * 60 + "\n")
    chain_key.write_text("c" * 40 + "\n")
    env_file = tmp_path / "compliance.env"
    env_file.write_text("# a comment\n\nDJANGO_ENV=production\nDJANGO_SETTINGS_MODULE=compliance.settings\n"
                        "ALLOWED_HOSTS=compliance.example.com\nREDIS_URL=redis://127.0.0.1:6379/15\n"
                        f"DATABASE_URL=sqlite:///{tmp_path}/db.sqlite3\nADMINS=IT on call <it@casino.example>\n"
                        f"STATIC_ROOT={tmp_path}/static\nLOG_LEVEL=ERROR\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_", "REDIS_", "DEBUG"))}
    env |= {"COMPLIANCE_ENV_FILE": str(env_file), "SECRET_KEY_FILE": str(secret),
            "AUDIT_CHAIN_KEY_FILE": str(chain_key), "ALLOWED_HOSTS": "set.in.the.shell"}
    code = ("from django.conf import settings as s; "
            "print(s.ADMINS, s.ALLOWED_HOSTS, len(s.SECRET_KEY), s.DEBUG)")
    done = subprocess.run([str(DEPLOY / "compliance-admin"), "shell", "-c", code], env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "[('IT on call', 'it@casino.example')] ['set.in.the.shell'] 60 False" in done.stdout, done.stdout

    missing = subprocess.run([str(DEPLOY / "compliance-admin"), "check"], capture_output=True, text=True,
                             env=env | {"COMPLIANCE_ENV_FILE": str(tmp_path / "none.env")}, timeout=60, check=False)
    assert missing.returncode == 2 and "cannot read" in missing.stderr
