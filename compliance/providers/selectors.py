"""Reads of the provider register and of what each facility may use (§ 528.4, § 528.7, § 528.8), including the
batch read of every provider offering at a set of tables that table readiness asks (a fixed number of queries),
and each facility's filings of §§ 528.2, 528.3, 528.7(2), 528.8(a) and 528.9 with what is still missing."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from django.db.models import Q, QuerySet

from compliance.models import Facility, GamingTable
from compliance.providers.filing_kinds import SECTIONS, Section, section_missing
from compliance.providers.models import (
    BusinessPermission,
    Certification,
    GamingProvider,
    OfferingApproval,
    ProviderFiling,
    ProviderFilingDocument,
    ProviderOffering,
    TableOffering,
)
from compliance.providers.rules import (
    REMINDER_STAGES,
    PermissionFacts,
    Standing,
    UseProblem,
    last_day_to_renew,
    late_flag,
    permission_standing,
    permissions_standing,
    provider_standing,
    reminder_stage,
    renewal_in_time,
    term_standing,
    use_problems,
    use_refusal,
)

__all__ = [
    "FilingSection",
    "LateRenewal",
    "OfferingStatus",
    "RenewalDue",
    "TableUse",
    "certification_in",
    "certification_standing",
    "certifications_of",
    "current_filing_kinds",
    "facility_table_uses",
    "filing_bytes",
    "filing_in",
    "filing_sections",
    "filings_to_correct",
    "late_renewals",
    "offering_in",
    "offering_refusal",
    "offering_status",
    "offerings_of",
    "permission_in",
    "permission_rows",
    "permission_standing_of",
    "permissions_of",
    "provider",
    "providers",
    "renewals_due",
    "table_offering_in",
    "table_offerings_of",
    "table_uses",
    "term_rows",
]


def providers() -> QuerySet[GamingProvider]:
    return GamingProvider.objects.order_by("name")


def provider(pk: int) -> GamingProvider | None:
    return GamingProvider.objects.filter(pk=pk).first()


def certifications_of(provider: GamingProvider) -> list[Certification]:
    return list(Certification.objects.filter(provider=provider).order_by("-approved_on"))


def certification_in(pk: int) -> Certification | None:
    return Certification.objects.filter(pk=pk).select_related("provider").first()


def offerings_of(provider: GamingProvider) -> QuerySet[ProviderOffering]:
    return ProviderOffering.objects.filter(provider=provider).select_related("game", "provider").order_by("name")


def offering_in(pk: int) -> ProviderOffering | None:
    return ProviderOffering.objects.filter(pk=pk).select_related("game", "provider").first()


def permissions_of(facility: Facility, provider: GamingProvider) -> QuerySet[BusinessPermission]:
    return BusinessPermission.objects.filter(facility=facility, provider=provider).order_by("-granted_on")


def permission_in(facility: Facility, pk: int) -> BusinessPermission | None:
    return BusinessPermission.objects.filter(facility=facility, pk=pk).select_related("provider").first()


def certification_standing(provider: GamingProvider, on: date) -> Standing:
    """The provider's certification ``on`` that day: the first term in effect, else the latest term's words."""
    return provider_standing([t.facts for t in certifications_of(provider)], on)


def permission_standing_of(facility: Facility, provider: GamingProvider, on: date) -> Standing:
    """This facility's permission to conduct business with the provider before certification (§ 528.8)."""
    return permissions_standing([PermissionFacts(p.granted_on, p.cease_by) for p in permissions_of(facility, provider)],
                                on)


def term_rows(provider: GamingProvider, on: date) -> list[tuple[Certification, Standing, date]]:
    """Each term of the provider, its standing ``on`` that day and the last day to file its renewal in time."""
    return [(t, term_standing(t.facts, on), last_day_to_renew(t.expires_on)) for t in certifications_of(provider)]


def permission_rows(facility: Facility, provider: GamingProvider, on: date
                    ) -> list[tuple[BusinessPermission, Standing]]:
    return [(p, permission_standing(PermissionFacts(p.granted_on, p.cease_by), on))
            for p in permissions_of(facility, provider)]


def offering_refusal(offering: ProviderOffering, on_date: date, *, facility: Facility) -> str:
    """Why ``offering`` may not be used at ``facility``'s tables on ``on_date`` ("" when it may), § 528.7: the
    provider certified (or permitted before certification), the Gaming Laboratory's approval and the Board's
    approval for this certificate holder's use."""
    approval = OfferingApproval.objects.filter(facility=facility, offering=offering).first()
    problems = use_problems(
        provider_name=offering.provider.name, facility_name=facility.name,
        certified=certification_standing(offering.provider, on_date),
        permitted=permission_standing_of(facility, offering.provider, on_date),
        lab_approved_on=offering.lab_approved_on, use_approved_on=approval.approved_on if approval else None,
        on=on_date)
    return use_refusal(str(offering), problems)


@dataclass(frozen=True)
class OfferingStatus:
    offering: ProviderOffering
    refusal: str
    approval: OfferingApproval | None

    @property
    def usable(self) -> bool:
        return not self.refusal


def offering_status(facility: Facility, provider: GamingProvider, on: date) -> list[OfferingStatus]:
    approvals = {a.offering_id: a for a in OfferingApproval.objects.filter(facility=facility,
                                                                            offering__provider=provider)}
    return [OfferingStatus(o, offering_refusal(o, on, facility=facility), approvals.get(o.pk))
            for o in offerings_of(provider)]


def table_offerings_of(facility: Facility) -> QuerySet[TableOffering]:
    """The offerings configured at the facility's tables now."""
    return (TableOffering.objects.filter(table__facility=facility, removed_on__isnull=True)
            .select_related("table__game", "offering__provider", "offering__game").order_by("table__number"))


@dataclass(frozen=True)
class TableUse:
    """A provider's offering on a table on a day, and the legs of § 528.7 it fails there (none: usable)."""

    table_offering: TableOffering
    problems: tuple[UseProblem, ...]
    refusal: str
    standing: Standing  # the provider's certification that day (its flag: a renewal received late)

    @property
    def usable(self) -> bool:
        return not self.problems


def _uses(facility: Facility, rows: Sequence[TableOffering], on: date) -> list[TableUse]:
    """§ 528.7 for each of ``rows`` in three queries however many: the providers' terms, this facility's
    permissions and its approvals for use."""
    provider_ids = {row.offering.provider_id for row in rows}
    offering_ids = {row.offering_id for row in rows}
    terms: dict[int, list[Certification]] = {pk: [] for pk in provider_ids}
    permits: dict[int, list[PermissionFacts]] = {pk: [] for pk in provider_ids}
    if rows:
        for term in Certification.objects.filter(provider_id__in=provider_ids).order_by("-approved_on"):
            terms[term.provider_id].append(term)
        for permission in BusinessPermission.objects.filter(facility=facility, provider_id__in=provider_ids
                                                            ).order_by("-granted_on"):
            permits[permission.provider_id].append(PermissionFacts(permission.granted_on, permission.cease_by))
    approved = dict(OfferingApproval.objects.filter(facility=facility, offering_id__in=offering_ids)
                    .values_list("offering_id", "approved_on")) if rows else {}
    uses = []
    for row in rows:
        offering = row.offering
        certified = provider_standing([t.facts for t in terms[offering.provider_id]], on)
        problems = tuple(use_problems(
            provider_name=offering.provider.name, facility_name=facility.name, certified=certified,
            permitted=permissions_standing(permits[offering.provider_id], on),
            lab_approved_on=offering.lab_approved_on, use_approved_on=approved.get(offering.pk), on=on))
        uses.append(TableUse(row, problems, use_refusal(str(offering), problems), certified))
    return uses


def table_uses(facility: Facility, tables: Iterable[GamingTable], on: date) -> dict[int, list[TableUse]]:
    """Every provider offering on each of ``tables`` on the gaming day ``on`` (assigned by then, not yet taken
    off) and what of § 528.7 it fails, by table id: four queries for any number of tables."""
    ids = [t.pk for t in tables]
    found: dict[int, list[TableUse]] = {pk: [] for pk in ids}
    if not ids:
        return found
    rows = list(TableOffering.objects.filter(table_id__in=ids, table__facility=facility, assigned_on__lte=on)
                .filter(Q(removed_on__isnull=True) | Q(removed_on__gt=on))
                .select_related("table__game", "offering__provider", "offering__game").order_by("table_id", "pk"))
    for use in _uses(facility, rows, on):
        found[use.table_offering.table_id].append(use)
    return found


def facility_table_uses(facility: Facility, on: date) -> list[TableUse]:
    """Every provider offering at the facility's tables now, by table number, with § 528.7 on ``on``."""
    return _uses(facility, list(table_offerings_of(facility)), on)


def table_offering_in(facility: Facility, pk: int) -> TableOffering | None:
    return table_offerings_of(facility).filter(pk=pk).first()


@dataclass(frozen=True)
class RenewalDue:
    certification: Certification
    stage: str
    renew_by: date
    days_left: int


def _used_by(facility: Facility) -> QuerySet[GamingProvider]:
    return GamingProvider.objects.filter(
        Q(permissions__facility=facility) | Q(offerings__approvals__facility=facility)
        | Q(offerings__tables__table__facility=facility)).distinct()


def renewals_due(facility: Facility, on: date) -> list[RenewalDue]:
    """Terms of the providers the facility uses whose renewal reminder is due ``on`` that day (§ 528.4(b))."""
    horizon = max(days for _, days in REMINDER_STAGES)
    used = _used_by(facility)
    found = []
    for term in (Certification.objects.filter(provider__in=used, renewal_filed_on__isnull=True, decision="",
                                              expires_on__gte=on, expires_on__lte=on + timedelta(days=horizon))
                 .select_related("provider").order_by("expires_on")):
        stage = reminder_stage(term.facts, on)
        if stage:
            found.append(RenewalDue(term, stage, last_day_to_renew(term.expires_on), (term.expires_on - on).days))
    return found


@dataclass(frozen=True)
class LateRenewal:
    certification: Certification
    flag: str


def late_renewals(facility: Facility, on: date) -> list[LateRenewal]:
    """Terms of the providers the facility uses whose renewal was received late (§ 528.4(b)) and is not decided
    ``on`` that day: still in effect (§ 528.4(c)), and flagged."""
    found = []
    for term in (Certification.objects.filter(provider__in=_used_by(facility), renewal_filed_on__isnull=False,
                                              renewal_filed_on__lte=on)
                 .filter(Q(decision="") | Q(decided_on__gt=on)).select_related("provider").order_by("expires_on")):
        if term.renewal_filed_on is not None and not renewal_in_time(term.renewal_filed_on, term.expires_on):
            flag = late_flag(term.facts, on)
            if flag:
                found.append(LateRenewal(term, flag))
    return found


# --- Filings, §§ 528.2, 528.3, 528.7(2), 528.8(a), 528.9 ---------------------------------------------------------


def _filings(facility: Facility) -> QuerySet[ProviderFiling]:
    return ProviderFiling.objects.filter(facility=facility).select_related("provider", "recorded_by__profile")


def filing_in(facility: Facility, pk: int) -> ProviderFiling | None:
    return _filings(facility).filter(pk=pk).first()


def filings_to_correct(facility: Facility) -> QuerySet[ProviderFiling]:
    """This facility's filings that no correction has replaced yet (each is corrected once, by a new filing)."""
    return _filings(facility).filter(corrected_by__isnull=True).order_by("provider__name", "-filed_on", "-pk")


def current_filing_kinds(facility: Facility, provider: GamingProvider, by: date | None = None) -> set[str]:
    """The kinds of filing on record for ``provider`` at ``facility`` (not replaced by a correction), dated on or
    before ``by`` when given."""
    found = ProviderFiling.objects.filter(facility=facility, provider=provider, corrected_by__isnull=True)
    if by is not None:
        found = found.filter(filed_on__lte=by)
    return set(found.values_list("kind", flat=True))


@dataclass(frozen=True)
class FilingSection:
    section: Section
    rows: list[ProviderFiling]  # every filing of the section, a corrected one marked by ``corrected_by``
    missing: str  # what is still missing, in words ("" when nothing is known to be)


def filing_sections(facility: Facility, provider: GamingProvider) -> list[FilingSection]:
    """The provider's filings at this facility, one section per clause with what is still missing (one query)."""
    rows = list(_filings(facility).filter(provider=provider).select_related("corrected_by", "corrects")
                .order_by("filed_on", "pk"))
    current = [r for r in rows if not hasattr(r, "corrected_by")]
    kinds = {r.kind for r in current}
    roles = {r.subject_role for r in current if r.kind == "qualification"}
    investigations = [r for r in current if r.kind == "investigation"]
    latest_finding = investigations[-1].finding if investigations else ""
    return [FilingSection(section, [r for r in rows if r.kind in section.kinds],
                          section_missing(section.clause, kinds, roles=roles, latest_finding=latest_finding))
            for section in SECTIONS]


def filing_bytes(filing: ProviderFiling) -> bytes | None:
    """The filing's document, or ``None`` when its bytes no longer match the SHA-256 recorded at upload."""
    content = ProviderFilingDocument.objects.filter(filing=filing).first()
    if content is None:
        return None
    data = bytes(content.data)
    return data if hashlib.sha256(data).hexdigest() == filing.sha256 else None
