"""The fast reading of sealed rows (compliance.chain.rows) gives, for every sealed model, the very bytes the
model seals: any difference would make every row read as forged, or hide a change."""

from __future__ import annotations

from datetime import date

import pytest

from compliance.actors import acting_as
from compliance.chain import anchor_record, chain_link_all, chain_verify, read_rows, sealed_models, verification_record
from compliance.models import AuditEvent, ChainAnchor
from compliance.reports.models import ReportFile, ReportRun
from compliance.seal_keys import seal_check
from coupons.services.redemption import Scan, redemption_record

DAY = date(2026, 11, 3)


pytestmark = pytest.mark.usefixtures("coupon_clock", "coupon_tables_ready")


@pytest.mark.django_db
def test_every_sealed_model_reads_back_as_the_bytes_it_was_sealed_with(program, handed_out, craps_table, dealer,
                                                                        compliance_officer):
    handed_out(1, 10)
    redemption_record(facility=program.facility, user=dealer,
                      scan=Scan(serial="MP-0000001", table=craps_table, position="pass_line", chips_cents=2500))
    with acting_as(compliance_officer):
        AuditEvent.log(program.facility, action=AuditEvent.Action.CHANGED, actor=compliance_officer,
                       changes={"ünïcode": ["naïve", "“quoted”"], "n": [1, 2.5, None, True]}, reason="é\n\"x\"")
        run = ReportRun.objects.create(facility=program.facility, kind="equipment", period_start=DAY, period_end=DAY,
                                       version=1, requested_by=compliance_officer)
        ReportFile.objects.create(run=run, format="csv", name="r.csv", size=3, sha256="0" * 64)
        anchor_record(program.facility, reason=ChainAnchor.Reason.ON_DEMAND, user=compliance_officer)
        verification_record(chain_verify(), user=compliance_officer)
    chain_link_all()
    for model in sealed_models():
        instances = {row.pk: row for row in model._base_manager.all()}
        assert instances, f"no {model._meta.label} to compare"
        read = {row.id: row for row in read_rows(model)}
        assert set(read) == set(instances)
        for pk, instance in instances.items():
            assert read[pk].payload == instance.canonical_content(), model._meta.label
            assert not seal_check(read[pk].seal, read[pk].payload), model._meta.label
            assert read[pk].content == instance.sealed_content()
