from compliance.models.anchors import ChainAnchor, ChainAnchorDelivery, ChainVerification, heads_digest
from compliance.models.audit import AuditEvent
from compliance.models.base import (
    AppendOnly,
    AuditedModel,
    RegulatedQuerySet,
    RegulatedRecord,
    RegulatedWriteError,
    SignedPart,
    SignedRecordError,
    regulated_bulk_create,
    regulated_bulk_update,
)
from compliance.models.breaches import TableBreach
from compliance.models.chain import ChainLink, Sealed
from compliance.models.facility import Department, Facility, Profile, email_lines
from compliance.models.jobs import Job
from compliance.models.second_factor import SecondFactorReset
from compliance.models.signatures import Meaning, Signature, SignatureRequirement
from compliance.models.stored import StoredFile
from compliance.models.tables import Game, GamingTable

__all__ = [
    "AppendOnly",
    "AuditEvent",
    "AuditedModel",
    "ChainAnchor",
    "ChainAnchorDelivery",
    "ChainLink",
    "ChainVerification",
    "Department",
    "Facility",
    "Game",
    "GamingTable",
    "Job",
    "Meaning",
    "Profile",
    "RegulatedQuerySet",
    "RegulatedRecord",
    "RegulatedWriteError",
    "Sealed",
    "SecondFactorReset",
    "Signature",
    "SignatureRequirement",
    "SignedPart",
    "SignedRecordError",
    "StoredFile",
    "TableBreach",
    "email_lines",
    "heads_digest",
    "regulated_bulk_create",
    "regulated_bulk_update",
]
