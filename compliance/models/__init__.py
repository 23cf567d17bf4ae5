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
)
from compliance.models.chain import ChainLink, Sealed
from compliance.models.facility import Department, Facility, Profile
from compliance.models.signatures import Meaning, Signature, SignatureRequirement
from compliance.models.tables import Game, GamingTable

__all__ = [
    "AppendOnly",
    "AuditEvent",
    "AuditedModel",
    "ChainLink",
    "Department",
    "Facility",
    "Game",
    "GamingTable",
    "Meaning",
    "Profile",
    "RegulatedQuerySet",
    "RegulatedRecord",
    "RegulatedWriteError",
    "Sealed",
    "Signature",
    "SignatureRequirement",
    "SignedPart",
    "SignedRecordError",
    "regulated_bulk_create",
]
