"""Every function that prints a PDF (calls compliance.documents.render_pdf, or a sign's frame that does) is printed
with long values by a test that checks it (tests/pdf_checks.assert_clean_pdf): a new document is added here with
its test, or this test names it."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# "module.function" -> the test module printing it with long values
COVERED = {
    "compliance.games.documents.figures_pdf": "tests/games/test_documents_print.py",
    "compliance.newgames.documents.request_pdf": "tests/newgames/test_documents.py",
    "compliance.reports.render.content_pdf": "tests/reports/test_documents_print.py",
    "compliance.submissions.documents._sign": "tests/submissions/test_documents_print.py",
    "compliance.submissions.documents.guide_pdf": "tests/submissions/test_documents_print.py",
    "compliance.submissions.documents.podium_pdf": "tests/submissions/test_documents_print.py",
    "compliance.submissions.documents.submission_pdf": "tests/submissions/test_documents_print.py",
    "coupons.drop_report.drop_count_pdf": "tests/coupons/test_documents_print.py",
    "coupons.mailing_proofs.proofs_pdf": "tests/coupons/test_documents_print.py",
    "coupons.reports.ledger_pdf": "tests/coupons/test_reports.py",
    "coupons.reports.reconciliation_pdf": "tests/coupons/test_documents_print.py",
}
# the signs printed through _sign, each printed by the test of _sign
SIGNS = ("payout_sign_pdf", "limits_sign_pdf", "limit_sign_pdf")


def _printers() -> set[str]:
    found = set()
    for path in ROOT.glob("**/*.py"):
        relative = path.relative_to(ROOT)
        if relative.parts[0] in {".venv", "tests", "bench"} or "migrations" in relative.parts:
            continue
        if path.name == "documents.py" and relative.parts[:1] == ("compliance",) and len(relative.parts) == 2:
            continue  # the frame itself
        tree = ast.parse(path.read_text())
        module = ".".join(relative.with_suffix("").parts)
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                calls = {c.func.id if isinstance(c.func, ast.Name) else getattr(c.func, "attr", "")
                         for c in ast.walk(node) if isinstance(c, ast.Call)}
                if "render_pdf" in calls:
                    found.add(f"{module}.{node.name}")
    return found


def test_every_document_is_printed_with_long_values_by_a_test():
    assert _printers() == set(COVERED)
    for function, test in COVERED.items():
        text = (ROOT / test).read_text()
        name = function.rsplit(".", 1)[1]
        assert "assert_clean_pdf" in text, test
        if name == "_sign":
            assert all(sign in text for sign in SIGNS), test
        else:
            assert name in text, (function, test)


def test_no_page_sends_a_person_to_the_repositorys_documents():
    """A page says what it means in words ("a CSV file: a first line naming the columns …"), never "described in
    docs/exclusion.md", a file the person has no way to open."""
    import re

    pattern = re.compile(r"docs/\w+|\b\w+\.md\b")
    found = [f"{path.relative_to(ROOT)}: {match.group(0)}" for path in (ROOT / "templates").glob("**/*.html")
             for match in pattern.finditer(path.read_text())]
    assert not found, found
