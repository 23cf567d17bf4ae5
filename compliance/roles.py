"""Roles and what each may do: the one place that says who may do what.

Roles are Django groups (created by migration ``0002_roles_and_system_user``), named by the
codes below. Views, services and navigation ask :func:`has_capability`; nothing else in the
code base tests group names but :func:`roles_of` here and ``compliance.selectors.people_holding``
(who holds a role at a facility: the people to notify, the dealers to choose from). The Board inspector holds no write capability at all, and
:class:`compliance.middleware.InspectorReadOnlyMiddleware` refuses every write regardless.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from django.core.exceptions import PermissionDenied
from django.db import models

__all__ = [
    "CAPABILITIES",
    "DEPARTMENT_OF_ROLE",
    "FINANCE",
    "FLOOR_SUPERVISION",
    "MARKETING",
    "OVERSIGHT",
    "SIGNING_ROLES",
    "Capability",
    "Role",
    "has_capability",
    "is_inspector",
    "require_capability",
    "role_combination_refusal",
    "role_department_refusal",
    "role_label",
    "roles_of",
]


class Role(models.TextChoices):
    FINANCE_STAFF = "finance_staff", "Finance staff"
    FINANCE_SUPERVISOR = "finance_supervisor", "Finance supervisor"
    MARKETING_STAFF = "marketing_staff", "Marketing staff"
    MARKETING_SUPERVISOR = "marketing_supervisor", "Marketing supervisor"
    DEALER = "dealer", "Dealer (incl. boxperson and stickperson)"
    FLOORPERSON = "floorperson", "Floorperson"
    SHIFT_MANAGER = "shift_manager", "Table games shift manager"
    SURVEILLANCE = "surveillance", "Surveillance"
    COMPLIANCE_OFFICER = "compliance_officer", "Compliance officer"
    BOARD_INSPECTOR = "board_inspector", "Board inspector"
    ADMINISTRATOR = "administrator", "Administrator"


class Capability(StrEnum):
    # Foundation
    VIEW_RECORDS = "view_records"
    VIEW_AUDIT = "view_audit"
    MANAGE_PEOPLE = "manage_people"
    MANAGE_TABLES = "manage_tables"
    CORRECT_RECORDS = "correct_records"
    RUN_REPORTS = "run_reports"
    FILE_REPORTS = "file_reports"
    # Match Play Coupons, § 525.21
    APPROVE_COUPON_PROGRAM = "approve_coupon_program"
    EXAMINE_COUPON_SHIPMENT = "examine_coupon_shipment"
    RECORD_COUPON_RECEIPT = "record_coupon_receipt"
    REQUISITION_COUPONS = "requisition_coupons"
    AUTHORIZE_REQUISITION = "authorize_requisition"
    ISSUE_COUPONS = "issue_coupons"
    DISTRIBUTE_COUPONS = "distribute_coupons"
    RECONCILE_MARKETING_DAY = "reconcile_marketing_day"
    RETURN_COUPONS = "return_coupons"
    RECEIVE_RETURNED_COUPONS = "receive_returned_coupons"
    PROCESS_FINANCE_DAY = "process_finance_day"
    TAKE_COUPON_INVENTORY = "take_coupon_inventory"
    RESOLVE_COUPON_EXCEPTION = "resolve_coupon_exception"
    CLOSE_COUPON_DEVIATION = "close_coupon_deviation"
    REDEEM_COUPONS = "redeem_coupons"
    COUNT_DROP_BOXES = "count_drop_boxes"
    MANAGE_SCANNERS = "manage_scanners"
    MAIL_COUPONS = "mail_coupons"
    MANAGE_MAILING_PROVIDERS = "manage_mailing_providers"
    # Exclusion-list screening of mailings, § 525.21(q)(7)
    IMPORT_EXCLUSION_LISTS = "import_exclusion_lists"
    SCREEN_MAILINGS = "screen_mailings"
    DECIDE_SCREENING_MATCHES = "decide_screening_matches"
    # Equipment
    LOG_EQUIPMENT = "log_equipment"
    VERIFY_EQUIPMENT = "verify_equipment"
    OPEN_CLOSE_TABLES = "open_close_tables"
    # Staffing and surveillance
    MANAGE_ROSTERS = "manage_rosters"
    MANAGE_CAMERAS = "manage_cameras"
    OVERRIDE_STAFFING = "override_staffing"
    # Gaming related gaming service providers, ch. 528
    MANAGE_GAMING_PROVIDERS = "manage_gaming_providers"
    # Rules Submissions, wager limits and gaming guides, ch. 521
    MANAGE_RULES_SUBMISSIONS = "manage_rules_submissions"
    CHANGE_WAGER_LIMITS = "change_wager_limits"
    SET_TABLE_OPTIONS = "set_table_options"
    PREPARE_GAME_REQUESTS = "prepare_game_requests"
    # The register of approved equipment (§ 539.1(b), (d); § 675a.1(c); § 675a.3(b)(2); § 668a.3(b))
    RECORD_EQUIPMENT_APPROVALS = "record_equipment_approvals"


_R = Role
# Whose menu a screen is in (``compliance.registry.NavItem.for_roles``): the departments, and the two who oversee
# everything — the compliance officer and the Board inspector — who list each record screen explicitly.
FINANCE = frozenset({Role.FINANCE_STAFF, Role.FINANCE_SUPERVISOR})
MARKETING = frozenset({Role.MARKETING_STAFF, Role.MARKETING_SUPERVISOR})
FLOOR_SUPERVISION = frozenset({Role.FLOORPERSON, Role.SHIFT_MANAGER})
OVERSIGHT = frozenset({Role.COMPLIANCE_OFFICER, Role.BOARD_INSPECTOR})
_EVERY_ROLE = frozenset(Role)
_FINANCE_SUPERVISION = frozenset({_R.FINANCE_SUPERVISOR, _R.ADMINISTRATOR})

CAPABILITIES: dict[Capability, frozenset[Role]] = {
    Capability.VIEW_RECORDS: _EVERY_ROLE,
    Capability.VIEW_AUDIT: frozenset(
        {_R.COMPLIANCE_OFFICER, _R.BOARD_INSPECTOR, _R.ADMINISTRATOR, _R.FINANCE_SUPERVISOR}
    ),
    Capability.MANAGE_PEOPLE: frozenset({_R.ADMINISTRATOR}),
    Capability.MANAGE_TABLES: frozenset({_R.SHIFT_MANAGER, _R.ADMINISTRATOR}),
    Capability.CORRECT_RECORDS: frozenset(
        {_R.FINANCE_SUPERVISOR, _R.MARKETING_SUPERVISOR, _R.SHIFT_MANAGER, _R.COMPLIANCE_OFFICER}
    ),
    Capability.RUN_REPORTS: frozenset(
        {_R.COMPLIANCE_OFFICER, _R.FINANCE_SUPERVISOR, _R.ADMINISTRATOR, _R.SHIFT_MANAGER}
    ),
    # § 525.21(o): the certificate holder files the quarterly report with the Bureau; compliance records it.
    Capability.FILE_REPORTS: frozenset({_R.COMPLIANCE_OFFICER}),
    # § 525.21(b), (p): approvals are recorded by compliance.
    Capability.APPROVE_COUPON_PROGRAM: frozenset({_R.COMPLIANCE_OFFICER}),
    # § 525.21(e): at least one member of finance and one of marketing open and examine.
    Capability.EXAMINE_COUPON_SHIPMENT: frozenset(
        {_R.FINANCE_STAFF, _R.FINANCE_SUPERVISOR, _R.MARKETING_STAFF, _R.MARKETING_SUPERVISOR}
    ),
    # § 525.21(f): a finance department supervisor records the receipt in the ledger.
    Capability.RECORD_COUPON_RECEIPT: _FINANCE_SUPERVISION,
    Capability.REQUISITION_COUPONS: frozenset({_R.MARKETING_SUPERVISOR}),  # § 525.21(g)
    Capability.AUTHORIZE_REQUISITION: frozenset({_R.FINANCE_SUPERVISOR}),  # § 525.21(g)(5)
    Capability.ISSUE_COUPONS: frozenset({_R.FINANCE_SUPERVISOR}),  # § 525.21(h)
    Capability.DISTRIBUTE_COUPONS: frozenset({_R.MARKETING_STAFF, _R.MARKETING_SUPERVISOR}),  # § 525.21(d)
    Capability.RECONCILE_MARKETING_DAY: frozenset({_R.MARKETING_SUPERVISOR}),  # § 525.21(j)(8)
    Capability.RETURN_COUPONS: frozenset({_R.MARKETING_SUPERVISOR}),  # § 525.21(l)(5)
    Capability.RECEIVE_RETURNED_COUPONS: frozenset({_R.FINANCE_SUPERVISOR}),  # § 525.21(l)(5)
    Capability.PROCESS_FINANCE_DAY: frozenset({_R.FINANCE_STAFF, _R.FINANCE_SUPERVISOR}),  # § 525.21(m)
    Capability.TAKE_COUPON_INVENTORY: frozenset({_R.FINANCE_STAFF, _R.FINANCE_SUPERVISOR}),  # § 525.21(n)
    # Exception reports go to internal audit (§ 465a.3 today); finance, whose count it questions, does not
    # close them: a compliance officer does (segregation of duties, § 525.21(r)(2)).
    Capability.RESOLVE_COUPON_EXCEPTION: frozenset({_R.COMPLIANCE_OFFICER}),
    # § 525.21(e): a shipment deviation is reported to a finance supervisor (and the Bureau), who follows it up.
    Capability.CLOSE_COUPON_DEVIATION: frozenset({_R.FINANCE_SUPERVISOR, _R.COMPLIANCE_OFFICER}),
    # § 525.22(b): "redeemed by a dealer or boxperson"; a boxperson is a dealer by role here (Craps staffing).
    Capability.REDEEM_COUPONS: frozenset({_R.DEALER}),
    # § 525.21(q)(6), (m): the coupons of the drop boxes are counted and cancelled by finance.
    Capability.COUNT_DROP_BOXES: frozenset({_R.FINANCE_STAFF, _R.FINANCE_SUPERVISOR}),
    # Registering and revoking a table's scanner: the shift manager who runs the pit's tables.
    Capability.MANAGE_SCANNERS: frozenset({_R.SHIFT_MANAGER}),
    # § 525.21(q): marketing prepares and releases a mailing; compliance records the providers the facility
    # authorizes in its internal controls (§ 525.2).
    Capability.MAIL_COUPONS: frozenset({_R.MARKETING_SUPERVISOR}),
    Capability.MANAGE_MAILING_PROVIDERS: frozenset({_R.COMPLIANCE_OFFICER}),
    # § 525.21(q)(7): the certificate holder keeps the Board's lists current (§ 503a.3(d)) and decides the possible
    # matches; marketing, who mails, screens its mailings and sees the outcome.
    Capability.IMPORT_EXCLUSION_LISTS: frozenset({_R.COMPLIANCE_OFFICER}),
    Capability.SCREEN_MAILINGS: frozenset({_R.MARKETING_STAFF, _R.MARKETING_SUPERVISOR, _R.COMPLIANCE_OFFICER}),
    Capability.DECIDE_SCREENING_MATCHES: frozenset({_R.COMPLIANCE_OFFICER}),
    Capability.LOG_EQUIPMENT: frozenset({_R.FLOORPERSON, _R.DEALER, _R.SHIFT_MANAGER}),
    Capability.VERIFY_EQUIPMENT: frozenset({_R.FLOORPERSON, _R.SHIFT_MANAGER}),
    Capability.OPEN_CLOSE_TABLES: frozenset({_R.FLOORPERSON, _R.SHIFT_MANAGER}),
    # The shift manager builds the pit's roster and alone may open a table that breaks a staffing or
    # surveillance rule (§ 577.9), signing the reason; the surveillance department keeps the camera registry.
    Capability.MANAGE_ROSTERS: frozenset({_R.SHIFT_MANAGER}),
    Capability.OVERRIDE_STAFFING: frozenset({_R.SHIFT_MANAGER}),
    Capability.MANAGE_CAMERAS: frozenset({_R.SURVEILLANCE}),
    # Ch. 528: compliance records the Board's certifications, permissions and approvals of providers and which
    # tables carry a provider's game or wager (§ 528.7).
    Capability.MANAGE_GAMING_PROVIDERS: frozenset({_R.COMPLIANCE_OFFICER}),
    # § 521.2, § 521.8(b), § 521.9(c)–(d): the submission, its amendments and the guides are filed by compliance.
    Capability.MANAGE_RULES_SUBMISSIONS: frozenset({_R.COMPLIANCE_OFFICER}),
    # § 521.8(c): the floor changes a table's limits, posts the sign and announces it.
    Capability.CHANGE_WAGER_LIMITS: frozenset({_R.FLOORPERSON, _R.SHIFT_MANAGER}),
    # § 521.8(b): which of the approved options a table runs is the table games shift manager's (not an administrator).
    Capability.SET_TABLE_OPTIONS: frozenset({_R.SHIFT_MANAGER}),
    Capability.PREPARE_GAME_REQUESTS: frozenset({_R.COMPLIANCE_OFFICER}),  # § 521.4: the request is compliance's
    # The Bureaus' approvals of devices are letters compliance keeps; the floor reads the register.
    Capability.RECORD_EQUIPMENT_APPROVALS: frozenset({_R.COMPLIANCE_OFFICER}),
}

# A role is held only by a member of its department (§ 525.21(d)–(l) give each duty to a member or a
# supervisor "of the finance department" or "of the marketing department"; the table games duties go to
# the table games staff). The Board inspector is not the certificate holder's employee and the
# administrator keeps the system, not the ledger: neither is tied to a department.
DEPARTMENT_OF_ROLE: dict[Role, str] = {
    _R.FINANCE_STAFF: "finance",
    _R.FINANCE_SUPERVISOR: "finance",
    _R.MARKETING_STAFF: "marketing",
    _R.MARKETING_SUPERVISOR: "marketing",
    _R.DEALER: "table_games",
    _R.FLOORPERSON: "table_games",
    _R.SHIFT_MANAGER: "table_games",
    _R.SURVEILLANCE: "surveillance",
    _R.COMPLIANCE_OFFICER: "compliance",
}


def role_department_refusal(roles: Any, department_code: str, *, who: str = "This person") -> str:
    """Why ``roles`` cannot be held by a member of ``department_code`` ("" when they can)."""
    wrong = sorted(
        (Role(r) for r in roles if Role(r) in DEPARTMENT_OF_ROLE and DEPARTMENT_OF_ROLE[Role(r)] != department_code),
        key=lambda r: r.value,
    )
    if not wrong:
        return ""
    needs = "; ".join(
        f"the {r.label.lower()} role is held by a member of the {DEPARTMENT_OF_ROLE[r].replace('_', ' ')} department"
        for r in wrong
    )
    return (f"{who} is in the {department_code.replace('_', ' ')} department: {needs}. Change the department or "
            f"the roles (segregation of duties, § 525.21(d)).")


# Roles whose holders sign regulated records (every role but the Board inspector's and the administrator's:
# surveillance signs its logs under its own chapter). The administrator, who can set passwords and grant
# roles, holds none of them: an electronic signature must belong to one person only (issue 9).
SIGNING_ROLES = frozenset(Role) - {_R.ADMINISTRATOR, _R.BOARD_INSPECTOR}


def role_combination_refusal(roles: Any, *, who: str = "This person") -> str:
    """Why ``roles`` cannot be held together ("" when they can): the administrator signs no record."""
    held = {Role(r) for r in roles if r in Role.values}
    if Role.ADMINISTRATOR not in held:
        return ""
    signing = sorted((r for r in held & SIGNING_ROLES), key=lambda r: r.value)
    if not signing:
        return ""
    names = ", ".join(r.label.lower() for r in signing)
    return (f"{who} cannot hold the administrator role together with the {names} role: an administrator sets "
            f"passwords and grants roles, so they sign no regulated record. Give the roles to two people.")


_INSPECTOR_WRITE = {cap for cap, roles in CAPABILITIES.items() if Role.BOARD_INSPECTOR in roles} - {
    Capability.VIEW_RECORDS,
    Capability.VIEW_AUDIT,
}
assert not _INSPECTOR_WRITE, f"the Board inspector must hold no write capability: {_INSPECTOR_WRITE}"


def roles_of(user: Any) -> frozenset[Role]:
    """The user's roles, cached on the user object for the request."""
    if user is None or not getattr(user, "is_authenticated", False):
        return frozenset()
    cached = getattr(user, "_compliance_roles", None)
    if cached is None:
        valid = set(Role.values)
        names = user.groups.values_list("name", flat=True)
        cached = frozenset(Role(name) for name in names if name in valid)
        user._compliance_roles = cached
    return cached


def is_inspector(user: Any) -> bool:
    return Role.BOARD_INSPECTOR in roles_of(user)


def has_capability(user: Any, capability: Capability) -> bool:
    roles = roles_of(user)
    if Role.BOARD_INSPECTOR in roles and capability not in (Capability.VIEW_RECORDS, Capability.VIEW_AUDIT):
        return False  # an inspector who also holds another role stays read-only
    return bool(roles & CAPABILITIES[capability])


def require_capability(user: Any, capability: Capability) -> None:
    if not has_capability(user, capability):
        needed = ", ".join(sorted(role.label.lower() for role in CAPABILITIES[capability]))
        raise PermissionDenied(f"This needs one of these roles: {needed}.")


def role_label(code: str) -> str:
    """A role's name for a person ("Finance staff"), from its code ("finance_staff"); an unknown code as it is."""
    return str(Role(code).label) if code in Role.values else code
