"""Reads of the provider register and of what each facility may use (§ 528.4, § 528.7, § 528.8)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from django.db.models import Q, QuerySet

from compliance.models import Facility, GamingTable
from compliance.providers.models import (
    BusinessPermission,
    Certification,
    GamingProvider,
    OfferingApproval,
    ProviderOffering,
    RenewalReminder,
    TableOffering,
)
from compliance.providers.rules import (
    REMINDER_STAGES,
    PermissionFacts,
    Standing,
    last_day_to_renew,
    permission_standing,
    reminder_stage,
    term_standing,
)

__all__ = [
    "OfferingStatus",
    "RenewalDue",
    "certification_in",
    "certification_standing",
    "certifications_of",
    "facilities_using",
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
    "reminder_for",
    "renewals_due",
    "table_offering_in",
    "table_offerings_of",
    "term_rows",
    "unsent_reminders",
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
    terms = certifications_of(provider)
    standings = [term_standing(t.facts, on) for t in terms if t.approved_on <= on]
    for standing in standings:
        if standing.in_effect:
            return standing
    if standings:
        return standings[0]
    if terms:
        return term_standing(terms[-1].facts, on)
    return Standing(False, "Not certified: no Board approval on record (§ 528.4(a)).", "528.4(a)")


def permission_standing_of(facility: Facility, provider: GamingProvider, on: date) -> Standing:
    """This facility's permission to conduct business with the provider before certification (§ 528.8)."""
    standings = [permission_standing(PermissionFacts(p.granted_on, p.cease_by), on)
                 for p in permissions_of(facility, provider)]
    for standing in standings:
        if standing.in_effect:
            return standing
    if standings:
        return standings[0]
    return Standing(False, "No permission to conduct business before certification (§ 528.8(a)).", "528.8(a)")


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
    what = str(offering)
    problems = []
    certified = certification_standing(offering.provider, on_date)
    if not certified.in_effect:
        permitted = permission_standing_of(facility, offering.provider, on_date)
        if not permitted.in_effect:
            problems.append(f"{offering.provider.name} is neither certified nor permitted to conduct business before "
                            f"certification ({certified.words.rstrip('.')}; {permitted.words.rstrip('.')})")
    if offering.lab_approved_on is None or offering.lab_approved_on > on_date:
        problems.append("the Bureau of Gaming Laboratory Operations has not approved it (§ 528.7(1))")
    approval = OfferingApproval.objects.filter(facility=facility, offering=offering).first()
    if approval is None or approval.approved_on > on_date:
        problems.append(f"the Board has not approved its use at {facility.name} (§ 528.7(3))")
    if not problems:
        return ""
    return f"{what} may not be used at a table (§ 528.7): " + "; ".join(problems) + "."


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


def table_offering_in(facility: Facility, pk: int) -> TableOffering | None:
    return table_offerings_of(facility).filter(pk=pk).first()


def facilities_using(provider: GamingProvider) -> QuerySet[Facility]:
    """The facilities that deal with the provider: a permission, an approval for use or a table offering."""
    return Facility.objects.filter(
        Q(pk__in=BusinessPermission.objects.filter(provider=provider).values("facility"))
        | Q(pk__in=OfferingApproval.objects.filter(offering__provider=provider).values("facility"))
        | Q(pk__in=GamingTable.objects.filter(pk__in=TableOffering.objects.filter(
            offering__provider=provider).values("table")).values("facility"))
    ).distinct()


@dataclass(frozen=True)
class RenewalDue:
    certification: Certification
    stage: str
    renew_by: date
    days_left: int


def renewals_due(facility: Facility, on: date) -> list[RenewalDue]:
    """Terms of the providers the facility uses whose renewal reminder is due ``on`` that day (§ 528.4(b))."""
    horizon = max(days for _, days in REMINDER_STAGES)
    used = GamingProvider.objects.filter(
        Q(permissions__facility=facility) | Q(offerings__approvals__facility=facility)
        | Q(offerings__tables__table__facility=facility)).distinct()
    found = []
    for term in (Certification.objects.filter(provider__in=used, renewal_filed_on__isnull=True, decision="",
                                              expires_on__gte=on, expires_on__lte=on + timedelta(days=horizon))
                 .select_related("provider").order_by("expires_on")):
        stage = reminder_stage(term.facts, on)
        if stage:
            found.append(RenewalDue(term, stage, last_day_to_renew(term.expires_on), (term.expires_on - on).days))
    return found


def reminder_for(certification: Certification, facility: Facility, stage: str) -> RenewalReminder | None:
    return RenewalReminder.objects.filter(certification=certification, facility=facility, stage=stage).first()


def unsent_reminders(facility: Facility) -> QuerySet[RenewalReminder]:
    return RenewalReminder.objects.filter(facility=facility, sent_at__isnull=True).select_related(
        "certification__provider")
