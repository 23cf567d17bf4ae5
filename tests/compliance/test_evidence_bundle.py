"""The Board verifies a period by itself: the evidence bundle and the standalone verifier (issue 21, item 3).

A clean bundle verifies against the anchor the Board was sent; a changed field, a deleted row, a truncated
tail, a reordered pair and a forged signature each fail, naming the row. The tampering is done to the bundle
itself, by someone who also rewrites its manifest (so only the chain and the Board's anchor can tell).
"""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
import sys
import zipfile
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import time_machine
from django.core import mail

from compliance.chain import anchors_for_ended_days, chain_link_all
from compliance.evidence import verify_bundle
from compliance.evidence.bundle import bundle_plan, bundle_stream
from compliance.models import ChainAnchor

DAY = date(2026, 11, 3)  # the coupons' frozen gaming day

pytestmark = [pytest.mark.usefixtures("coupon_clock"), pytest.mark.django_db]


@pytest.fixture
def evidence(program, receive, tmp_path: Path, django_capture_on_commit_callbacks) -> tuple[Path, Path, Any]:
    """A day of records, the Board's anchor made once the day ended, and the day's bundle: (bundle, anchor file,
    the receipt)."""
    receipt = receive(1, 100)
    receive(101, 150)
    chain_link_all()
    with time_machine.travel("2026-11-04 12:00:00+00:00", tick=True), \
            django_capture_on_commit_callbacks(execute=True):  # the anchor's e-mail, sent after commit
        assert anchors_for_ended_days() == 1
    anchor = ChainAnchor.objects.get(facility=program.facility, reason=ChainAnchor.Reason.GAMING_DAY)
    anchor_file = tmp_path / "anchor.json"
    anchor_file.write_text(anchor.as_json())
    plan = bundle_plan(program.facility, DAY, DAY)
    assert plan.anchor == anchor and plan.rows > 0
    bundle = tmp_path / "bundle.zip"
    bundle.write_bytes(b"".join(bundle_stream(plan)))
    return bundle, anchor_file, receipt


def _verify(bundle: Path, anchor: Path) -> verify_bundle.Result:
    return verify_bundle.verify(str(bundle), [str(anchor)])


def _rewrite(bundle: Path, name: str, change: Callable[[list[dict[str, Any]]], list[dict[str, Any]]]) -> None:
    """Change one file of the bundle, then rewrite its manifest's hashes as a careful forger would."""
    with zipfile.ZipFile(bundle) as archive:
        files = {info.filename: archive.read(info.filename) for info in archive.infolist()}
    items = [json.loads(line) for line in files[name].splitlines() if line.strip()]
    files[name] = b"".join(json.dumps(item, sort_keys=True, separators=(",", ":")).encode() + b"\n"
                           for item in change(items))
    manifest = json.loads(files["manifest.json"])
    manifest["files"] = {n: hashlib.sha256(d).hexdigest() for n, d in files.items() if n != "manifest.json"}
    files["manifest.json"] = json.dumps(manifest).encode()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for n, data in files.items():
            archive.writestr(n, data)
    bundle.write_bytes(buffer.getvalue())


def _chain_file(bundle: Path, prefix: str, what: str) -> str:
    with zipfile.ZipFile(bundle) as archive:
        manifest = json.loads(archive.read("manifest.json"))
    return next(entry[what] for entry in manifest["chains"] if entry["chain"].startswith(prefix))


def test_a_clean_bundle_verifies_against_the_boards_anchor_and_says_what_it_checked(evidence, capsys):
    bundle, anchor, _receipt = evidence
    result = _verify(bundle, anchor)
    assert result.problems == []
    assert result.counts["records"] >= 2 and result.counts["signatures"] >= 6 and result.counts["anchored heads"] >= 3
    # The standalone file runs as the Board would run it: another interpreter, the standard library only.
    script = Path(verify_bundle.__file__)
    done = subprocess.run([sys.executable, "-I", str(script), str(bundle), "--anchors", str(anchor)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "VERIFIED: every check holds." in done.stdout and "anchored heads" in done.stdout


def test_the_verifier_imports_nothing_but_the_standard_library():
    source = Path(verify_bundle.__file__).read_text()
    imported = {line.split()[1].split(".")[0] for line in source.splitlines() if line.startswith(("import ", "from "))}
    assert imported <= {"__future__", "argparse", "hashlib", "json", "sys", "zipfile", "collections", "pathlib", "typing"}


def test_a_changed_field_of_a_signed_record_fails_naming_it(evidence):
    bundle, anchor, receipt = evidence

    def forge(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for record in records:
            if record["id"] == receipt.pk:
                record["content"]["supplier"] = "Someone Else"
        return records

    _rewrite(bundle, "records/coupons.CouponReceipt.jsonl", forge)
    problems = _verify(bundle, anchor).problems
    assert any(f"coupons.CouponReceipt #{receipt.pk}: its content does not match its" in p for p in problems), problems


def test_a_changed_field_of_a_chain_row_fails_naming_the_row(evidence):
    bundle, anchor, _ = evidence
    name = _chain_file(bundle, "coupons.LedgerLine@", "rows")
    changed: list[int] = []

    def forge(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        rows[0]["content"]["quantity"] = 1
        changed.append(rows[0]["id"])
        return rows

    _rewrite(bundle, name, forge)
    problems = _verify(bundle, anchor).problems
    assert any(p.startswith(f"coupons.LedgerLine #{changed[0]} (coupons.CouponReceipt #") and "changed" in p
               for p in problems), problems


def test_a_deleted_row_fails_naming_it(evidence):
    bundle, anchor, _ = evidence
    name = _chain_file(bundle, "compliance.AuditEvent@", "rows")
    deleted: list[int] = []

    def drop(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        deleted.append(rows[1]["id"])
        return rows[:1] + rows[2:]

    _rewrite(bundle, name, drop)
    problems = _verify(bundle, anchor).problems
    assert any(f"compliance.AuditEvent #{deleted[0]}, which is missing from the bundle" in p for p in problems), problems


def test_a_truncated_tail_fails_against_the_boards_anchor(evidence):
    bundle, anchor, _ = evidence
    links, rows = _chain_file(bundle, "compliance.AuditEvent@", "links"), _chain_file(bundle, "compliance.AuditEvent@",
                                                                                       "rows")
    kept: list[str] = []

    def cut(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        kept.append(items[-1]["ids"])
        return items[:-1]

    _rewrite(bundle, links, cut)
    dropped = {pk for run in kept[0].split(",") for pk in range(int(run.split("-")[0]), int(run.split("-")[-1]) + 1)}
    _rewrite(bundle, rows, lambda items: [row for row in items if row["id"] not in dropped])
    problems = _verify(bundle, anchor).problems
    assert any("your anchor (anchor" in p and "the chain was cut short" in p for p in problems), problems


def test_a_reordered_pair_fails_naming_both_rows(evidence):
    bundle, anchor, _ = evidence
    name = _chain_file(bundle, "compliance.Signature@", "rows")
    swapped: list[int] = []

    def swap(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        rows[0]["content"], rows[1]["content"] = rows[1]["content"], rows[0]["content"]
        rows[0]["seal"], rows[1]["seal"] = rows[1]["seal"], rows[0]["seal"]
        swapped.extend([rows[0]["id"], rows[1]["id"]])
        return rows

    _rewrite(bundle, name, swap)
    problems = _verify(bundle, anchor).problems
    for pk in swapped:
        assert any(p.startswith(f"compliance.Signature #{pk} (") for p in problems), problems


def test_a_forged_signature_fails_naming_the_record(evidence):
    bundle, anchor, receipt = evidence
    name = _chain_file(bundle, "compliance.Signature@", "rows")
    forged_id = 10_000_000

    def add_row(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        forged = json.loads(json.dumps(rows[0]))
        forged["id"], forged["content"]["printed_name"] = forged_id, "Mallory"
        return [*rows, forged]

    def claim(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for record in records:
            if record["id"] == receipt.pk:
                record["signatures"].append(forged_id)
        return records

    _rewrite(bundle, name, add_row)
    _rewrite(bundle, "records/coupons.CouponReceipt.jsonl", claim)
    problems = _verify(bundle, anchor).problems
    assert any(f"compliance.Signature #{forged_id}" in p and "in none of its links" in p for p in problems), problems
    # A signature the record lists that is no row of the chain at all is named with the record.
    _rewrite(bundle, name, lambda rows: [row for row in rows if row["id"] != forged_id])
    problems = _verify(bundle, anchor).problems
    assert any(p.startswith(f"coupons.CouponReceipt #{receipt.pk}: its signature #{forged_id} is not a row") for p in
               problems), problems


def test_the_anchor_e_mail_carries_the_heads_the_verifier_reads(evidence):
    _bundle, anchor, _ = evidence
    sent = [m for m in mail.outbox if "Audit chain anchor" in m.subject]
    assert sent, [m.subject for m in mail.outbox]
    (name, content, mimetype) = sent[-1].attachments[0]
    assert name.endswith(".json") and mimetype == "application/json"
    assert json.loads(content)["heads"] == json.loads(anchor.read_text())["heads"]
