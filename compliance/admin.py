"""Administration of the registers (people, facilities, games, tables); history kept for every change.

Signatures and audit events are shown read-only: they are append-only by design.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import UserChangeForm
from django.contrib.auth.models import User
from django.http import HttpRequest
from simple_history.admin import SimpleHistoryAdmin

from compliance.models import AuditEvent, Department, Facility, Game, GamingTable, Profile, Signature
from compliance.roles import role_department_refusal


class NoDeleteHistoryAdmin(SimpleHistoryAdmin):
    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Facility)
class FacilityAdmin(NoDeleteHistoryAdmin):
    list_display = ["name", "code", "certificate_holder", "time_zone"]


@admin.register(Department)
class DepartmentAdmin(NoDeleteHistoryAdmin):
    list_display = ["name", "code"]


@admin.register(Profile)
class ProfileAdmin(NoDeleteHistoryAdmin):
    list_display = ["full_name", "credential_number", "department", "active"]
    list_filter = ["department", "active", "facilities"]
    search_fields = ["full_name", "credential_number", "user__username"]
    filter_horizontal = ["facilities"]


@admin.register(Game)
class GameAdmin(NoDeleteHistoryAdmin):
    list_display = ["name", "code", "chapter", "banking"]


@admin.register(GamingTable)
class GamingTableAdmin(NoDeleteHistoryAdmin):
    list_display = ["number", "game", "facility", "pit", "is_open"]
    list_filter = ["facility", "game", "is_open"]
    # Opening and closing go through the equipment services, which record the session and apply the
    # new-dice-on-reopening rule (§ 577.4(d)); the admin must not flip the flag behind their back.
    readonly_fields = ["is_open"]


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Signature)
class SignatureAdmin(ReadOnlyAdmin):
    list_display = ["signed_at", "meaning", "printed_name", "credential_number", "content_type", "object_id"]
    list_filter = ["meaning", "facility"]


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyAdmin):
    list_display = ["occurred_at", "action", "model_label", "object_id", "actor"]
    list_filter = ["action", "model_label"]


class ProfileInline(admin.StackedInline):
    """A person's regulated identity, edited with their account: name, credential, department, facilities."""

    model = Profile
    can_delete = False
    filter_horizontal = ["facilities"]
    extra = 1
    max_num = 1


admin.site.unregister(User)


class PersonChangeForm(UserChangeForm):
    """The account form, which also says in words when the roles chosen do not fit the department chosen
    in the profile below it (a role is held only by a member of its department)."""

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        groups = cleaned.get("groups")
        department = self._department()
        if groups is not None and department is not None:
            profile = getattr(self.instance, "profile", None) if self.instance.pk else None
            who = self.data.get("profile-0-full_name") or getattr(profile, "full_name", "") or "This person"
            refusal = role_department_refusal([g.name for g in groups], department.code, who=who)
            if refusal:
                raise forms.ValidationError(refusal)
        return cleaned

    def _department(self) -> Department | None:
        chosen = self.data.get("profile-0-department")
        if chosen and str(chosen).isdigit():
            return Department.objects.filter(pk=int(chosen)).first()
        profile = getattr(self.instance, "profile", None) if self.instance.pk else None
        return profile.department if profile is not None else None


@admin.register(User)
class PersonAdmin(UserAdmin):
    form = PersonChangeForm
    inlines = [ProfileInline]
    list_display = ["username", "full_name", "credential", "is_active"]
    list_select_related = ["profile"]

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # people who signed records stay; deactivate them instead

    @admin.display(description="Full name")
    def full_name(self, user: Any) -> str:
        return getattr(getattr(user, "profile", None), "full_name", "")

    @admin.display(description="Credential")
    def credential(self, user: Any) -> str:
        return getattr(getattr(user, "profile", None), "credential_number", "")
