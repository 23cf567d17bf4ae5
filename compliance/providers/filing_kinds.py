"""What a certificate holder files and keeps about a provider under §§ 528.2, 528.3, 528.7(2), 528.8(a) and 528.9,
as data: each kind of filing with the clause it answers, the section of the provider's page it belongs to, what
its date means and which particulars it needs; and, from the kinds on record, what is still missing, in words.
Nothing here touches the database (docs/providers.md, "Filings").

Reading of § 528.8(a)(1): "A completed ... Application and Disclosure Information Form has been filed by the
certificate holder in accordance with § 528.2" is the § 528.2(a) submission by this certificate holder, complete:
the form ((a)(1)), the fee ((a)(2)), the individuals' applications and release authorizations ((a)(3)) and its own
written statement ((a)(4)). It is not recorded twice; the § 528.8 section reads the § 528.2 filings.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "APPLICATION_ITEMS",
    "FINDINGS",
    "KINDS",
    "QUALIFICATIONS",
    "SECTIONS",
    "SUBJECT_ROLES",
    "FilingKind",
    "Section",
    "kind_of",
    "permission_missing",
    "section_missing",
]


@dataclass(frozen=True)
class FilingKind:
    code: str
    clause: str  # the clause it answers, as the catalogue cites it
    label: str  # what was filed or done, citing the clause
    section: str  # the section of ch. 528 it is shown under
    date_label: str  # what its date is
    subject: bool = False  # names an individual or entity, its role and the outcome (§ 528.3)
    summary: str = ""  # the label of the summary it needs ("" for none)
    finding: bool = False  # the certificate holder's conclusion (§ 528.9(a)–(b))

    @property
    def cited(self) -> str:
        return f"§ {self.clause}"


KINDS: tuple[FilingKind, ...] = (
    FilingKind("application", "528.2(a)(1)", "Certification Application and Disclosure Information Form submitted "
               "to the Board, an original and one copy (§ 528.2(a)(1), § 528.8(a)(1))", "528.2",
               "Submitted to the Board on"),
    FilingKind("application_fee", "528.2(a)(2)", "Nonrefundable application fee paid (§ 528.2(a)(2))", "528.2",
               "Paid on"),
    FilingKind("individual_applications", "528.2(a)(3)", "Applications and release authorizations of each individual "
               "to be qualified under § 528.3 submitted (§ 528.2(a)(3))", "528.2", "Submitted to the Board on"),
    FilingKind("holder_statement", "528.2(a)(4)", "This certificate holder's written statement that it may do business "
               "with the provider to use its gaming related service (§ 528.2(a)(4))", "528.2", "Dated"),
    FilingKind("laboratory_costs", "528.2(c)", "Gaming Laboratory Operations costs of the review paid, as the Board "
               "or the provider states (§ 528.2(c), § 528.7(2))", "528.2", "Paid on"),
    FilingKind("qualification", "528.3", "Qualification of an individual or entity (§ 528.3)", "528.3",
               "Found qualified, or credential issued, on", subject=True),
    FilingKind("due_diligence", "528.8(a)(2)", "This certificate holder's certification that it performed due "
               "diligence on the provider (§ 528.8(a)(2))", "528.8", "Certified on"),
    FilingKind("applicant_agreement", "528.8(a)(3)", "The applicant's written agreement that a permission to conduct "
               "business before certification creates no right to continue and may be rescinded at any time, with or "
               "without notice (§ 528.8(a)(3))", "528.8", "Signed on"),
    FilingKind("investigation", "528.9(a)", "Investigation of the applicant's background and qualifications "
               "completed (§ 528.9(a))", "528.9", "Completed on", summary="Findings", finding=True),
    FilingKind("violation_report", "528.9(c)", "Report to the Board of an action this certificate holder believes "
               "would violate the act or this part (§ 528.9(c))", "528.9", "Reported to the Board on",
               summary="The action reported"),
)
_BY_CODE = {kind.code: kind for kind in KINDS}

APPLICATION_ITEMS = ("application", "application_fee", "individual_applications", "holder_statement")

SUBJECT_ROLES: tuple[tuple[str, str, bool], ...] = (  # code, label, an individual (else an entity)
    ("officer_director", "Officer or director (§ 528.3(a)(1))", True),
    ("owner", "Individual with an ownership or beneficial interest of 10% or more (§ 528.3(a)(2))", True),
    ("salesperson", "Salesperson soliciting or in regular contact with a certificate holder (§ 528.3(a)(3))", True),
    ("holding_entity", "Entity owning 20% or more of the voting securities (§ 528.3(b))", False),
    ("board_required_individual", "Individual the Board required to be qualified (§ 528.3(c))", True),
    ("board_required_entity", "Intermediary, holding company or trust the Board required to be qualified "
                              "(§ 528.3(c))", False),
)
QUALIFICATIONS: tuple[tuple[str, str], ...] = (
    ("qualified", "Found qualified by the Board (§ 528.3(a)–(c))"),
    ("temporary", "Temporary credential issued by the Bureau of Licensing (§ 528.3(d))"),
    ("permanent", "Permanent credential issued by the Bureau of Licensing (§ 528.3(e))"),
)
FINDINGS: tuple[tuple[str, str], ...] = (
    ("suitable", "Nothing to avoid: an agreement may be made (§ 528.9(a))"),
    ("avoid", "Background or association to avoid: no agreement or relationship (§ 528.9(b))"),
)


def kind_of(code: str) -> FilingKind | None:
    return _BY_CODE.get(code)


@dataclass(frozen=True)
class Section:
    clause: str
    title: str
    kinds: tuple[str, ...]

    @property
    def filing_kinds(self) -> tuple[FilingKind, ...]:
        return tuple(_BY_CODE[code] for code in self.kinds)


SECTIONS: tuple[Section, ...] = (
    Section("528.2", "The certification application this facility submitted (§ 528.2)",
            (*APPLICATION_ITEMS, "laboratory_costs")),
    Section("528.3", "Individuals and entities qualified (§ 528.3)", ("qualification",)),
    Section("528.8", "Before a permission to conduct business before certification (§ 528.8(a)(1)–(3))",
            ("due_diligence", "applicant_agreement")),
    Section("528.9", "This facility's investigation and reports to the Board (§ 528.9)",
            ("investigation", "violation_report")),
)


_PROPER = ("Certification Application", "Gaming Laboratory")


def _in_sentence(label: str) -> str:
    """A kind's label inside a sentence: a lower-case first letter unless it begins with a proper name."""
    return label if label.startswith(_PROPER) else label[:1].lower() + label[1:]


def _names(codes: Iterable[str]) -> str:
    labels = [_in_sentence(_BY_CODE[c].label) for c in codes]
    return labels[0] if len(labels) == 1 else "; ".join(labels[:-1]) + "; and " + labels[-1]


def permission_missing(present: Iterable[str]) -> list[str]:
    """What § 528.8(a)(1)–(3) still lacks for a permission to be recorded, each item naming its clause."""
    have = set(present)
    missing = []
    lacking = [c for c in APPLICATION_ITEMS if c not in have]
    if lacking:
        missing.append(f"§ 528.8(a)(1), the completed application this certificate holder filed under § 528.2: "
                       f"{_names(lacking)}")
    for code in ("due_diligence", "applicant_agreement"):
        if code not in have:
            kind = _BY_CODE[code]
            missing.append(f"{kind.cited}: {_in_sentence(kind.label.rsplit(' (§', 1)[0])}")
    return missing


def section_missing(section: str, present: Iterable[str], *, roles: Iterable[str] = (),
                    latest_finding: str = "") -> str:
    """What the section still lacks, in words ("" when nothing is known to be missing)."""
    have = set(present)
    if section == "528.2":
        lacking = [c for c in APPLICATION_ITEMS if c not in have]
        words = f"Not recorded: {_names(lacking)}." if lacking else ""
        if "laboratory_costs" not in have:
            words += (" No payment of the Gaming Laboratory Operations costs recorded: no certification is issued "
                      "until they are paid (§ 528.2(c)), and the provider pays them before its service is used "
                      "(§ 528.7(2)).")
        return words.strip()
    if section == "528.3":
        if "qualification" not in have:
            return ("No qualification recorded: each officer and director, each individual with 10% or more, each "
                    "salesperson in contact with a certificate holder and each entity with 20% or more of the voting "
                    "securities must be found qualified by the Board (§ 528.3(a)–(b)).")
        if "officer_director" not in set(roles):
            return "No officer or director recorded as qualified (§ 528.3(a)(1))."
        return ""
    if section == "528.8":
        missing = permission_missing(have)
        if not missing:
            return ""
        return "Before a permission to conduct business before certification can be recorded: " + "; ".join(
            missing) + "."
    if section == "528.9":
        if "investigation" not in have:
            return ("No investigation recorded: investigate the applicant's background and qualifications before "
                    "any agreement (§ 528.9(a)).")
        if latest_finding == "avoid":
            return ("The latest investigation found a background or association to avoid: make no agreement or "
                    "relationship with the applicant (§ 528.9(b)).")
        return ""
    return ""
