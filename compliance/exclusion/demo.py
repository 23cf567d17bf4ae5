"""Demo data of exclusion-list screening for `make run`: the Board's two lists as the compliance officer imports them
(the self-exclusion list, ch. 503a; the exclusion list, ch. 511a), dated today and so current, signed on import.
The demo's mailing (coupons/demo.py) has patrons who are, or may be, people on them."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from django.db import transaction

from compliance.actors import acting_as
from compliance.demo import demo_person, signing_passwords
from compliance.exclusion import selectors, services
from compliance.exclusion.models import ExclusionList, ListKind
from compliance.models import Facility
from compliance.roles import Role

__all__ = ["INVOLUNTARY", "SELF_EXCLUDED", "exclusion_demo_seed"]

HEADER = (
    "board_id",
    "last_name",
    "first_name",
    "middle_name",
    "aliases",
    "date_of_birth",
    "address",
    "city",
    "state",
    "zip",
    "description",
)
SELF_EXCLUDED = [
    (
        "SE-20417",
        "Smith",
        "Robert",
        "James",
        "Bobby Smith",
        "1970-03-04",
        "12 Main Street",
        "Harrisburg",
        "PA",
        "17101",
        "",
    ),
    ("SE-20418", "Álvarez", "José", "", "", "1980-01-02", "", "", "", "", ""),
    (
        "SE-20419",
        "Walsh",
        "Katherine",
        "",
        "Kay Brennan",
        "1965-07-08",
        "40 River Road",
        "Lancaster",
        "PA",
        "17601",
        "",
    ),
    ("SE-20420", "O'Brien", "Seán", "", "", "1959-12-01", "", "", "", "", ""),
    ("SE-20421", "Nguyen", "Thi Lan", "", "", "1988-09-14", "7 Cedar Court", "Reading", "PA", "19601", ""),
]
INVOLUNTARY = [
    (
        "EX-1042",
        "Moretti",
        "Elizabeth",
        "",
        "Liz Moretti; Beth Moore",
        "1975-05-06",
        "88 Pine Rd",
        "Scranton",
        "PA",
        "18503",
        "5 ft 6 in, brown hair, green eyes",
    ),
]


def _file(rows: Sequence[Sequence[str]]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(HEADER)
    writer.writerows(rows)
    return buffer.getvalue().encode()


@transaction.atomic
def exclusion_demo_seed(*, facility: Facility) -> str | None:
    """Import both lists once (nothing when the facility has any list); what was imported, in words."""
    if ExclusionList.objects.filter(facility=facility).exists():
        return None
    officer = demo_person(facility, Role.COMPLIANCE_OFFICER)
    day = selectors.facility_today(facility)
    with signing_passwords([officer]) as password, acting_as(officer):
        for kind, rows in ((ListKind.SELF_EXCLUSION, SELF_EXCLUDED), (ListKind.INVOLUNTARY, INVOLUNTARY)):
            services.list_import(
                facility=facility,
                kind=kind,
                board_list_date=day,
                data=_file(rows),
                file_name=f"{kind.value.replace('_', '-')}-{day:%Y-%m-%d}.csv",
                user=officer,
                password=password,
            )
    return (
        f"the Board's lists of {day:%-d %b %Y} imported ({len(SELF_EXCLUDED)} self-excluded, {len(INVOLUNTARY)} "
        "excluded)"
    )
