"""Writes of exclusion-list screening, § 525.21(q)(7). Each checks the capability, validates in words, then
writes atomically; records are signed with the acting person's password in the same transaction.

``imports`` (the Board's lists, refused whole when a line is malformed), ``screening`` (a mailing screened
against the lists in force) and ``decisions`` (a compliance officer's signed decision on a possible match).
"""

from compliance.exclusion.services.decisions import match_decide
from compliance.exclusion.services.imports import list_import
from compliance.exclusion.services.screening import screening_run

__all__ = ["list_import", "match_decide", "screening_run"]
