"""Administration of the registers (people, facilities, games, tables); history kept for every change.

Signatures and audit events are shown read-only: they are append-only by design. An administrator
cannot give themselves more power: their own roles, permissions, staff and superuser status and
facilities are changed by another administrator (refused here in words, and by the guards in
``compliance.signals`` whatever the path). A password they set for someone is temporary
(``compliance.accounts``).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import UserChangeForm
from django.contrib.auth.models import Group, User
from django.http import HttpRequest
from simple_history.admin import SimpleHistoryAdmin

from compliance.accounts import own_change_refused
from compliance.models import AuditEvent, Department, Facility, Game, GamingTable, Profile, Signature
from compliance.roles import role_combination_refusal, role_department_refusal

_OWN_ACCOUNT_FIELDS = {
    "groups": "roles",
    "user_permissions": "permissions",
    "is_superuser": "superuser status",
    "is_staff": "staff status",
}




class OwnFacilitiesFormSet(forms.BaseInlineFormSet):
    """The profile below a person's account: the editor's own facilities are not theirs to change."""

    editor_id: int | None = None

    def clean(self) -> None:
        super().clean()
        for form in self.forms:
            profile = form.instance
            if profile.pk and profile.user_id == self.editor_id and "facilities" in form.changed_data:
                raise forms.ValidationError(own_change_refused(self.editor_id, ["facilities"]))


class ProfileForm(forms.ModelForm):
    editor_id: int | None = None

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if self.instance.pk and self.instance.user_id == self.editor_id and "facilities" in self.changed_data:
            raise forms.ValidationError(own_change_refused(self.editor_id, ["facilities"]))
        return cleaned


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
    form = ProfileForm
    list_display = ["full_name", "credential_number", "department", "active"]
    list_filter = ["department", "active", "facilities"]
    search_fields = ["full_name", "credential_number", "user__username"]
    filter_horizontal = ["facilities"]

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any) -> Any:
        form = super().get_form(request, obj, change=change, **kwargs)
        form.editor_id = request.user.pk
        return form


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
    formset = OwnFacilitiesFormSet
    can_delete = False
    filter_horizontal = ["facilities"]
    extra = 1
    max_num = 1

    def get_formset(self, request: HttpRequest, obj: Any = None, **kwargs: Any) -> Any:
        formset = super().get_formset(request, obj, **kwargs)
        formset.editor_id = request.user.pk  # type: ignore[attr-defined]
        return formset


admin.site.unregister(User)


class PersonChangeForm(UserChangeForm):
    """The account form, which also says in words when the roles chosen do not fit the department chosen
    in the profile below it (a role is held only by a member of its department), when the administrator
    role is combined with a role that signs, and when the editor changes their own roles or status."""

    editor_id: int | None = None

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if self.instance.pk and self.instance.pk == self.editor_id:
            own = [label for name, label in _OWN_ACCOUNT_FIELDS.items() if name in self.changed_data]
            if own:
                raise forms.ValidationError(own_change_refused(self.editor_id, own))
        groups = cleaned.get("groups")
        if groups is None:
            return cleaned
        profile = getattr(self.instance, "profile", None) if self.instance.pk else None
        who = self.data.get("profile-0-full_name") or getattr(profile, "full_name", "") or "This person"
        names = [g.name for g in groups]
        department = self._department()
        refusal = role_combination_refusal(names, who=who) or (
            role_department_refusal(names, department.code, who=who) if department is not None else "")
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

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any) -> Any:
        form = super().get_form(request, obj, change=change, **kwargs)
        form.editor_id = request.user.pk  # type: ignore[attr-defined]
        return form

    @admin.display(description="Full name")
    def full_name(self, user: Any) -> str:
        return getattr(getattr(user, "profile", None), "full_name", "")

    @admin.display(description="Credential")
    def credential(self, user: Any) -> str:
        return getattr(getattr(user, "profile", None), "credential_number", "")


admin.site.unregister(Group)


@admin.register(Group)
class RoleAdmin(admin.ModelAdmin):
    """Roles are code (``compliance.roles``), made by migrations: shown here, never added, renamed or
    given other permissions (the application's database role may only read them)."""

    list_display = ["name"]
    readonly_fields = ["name", "permissions"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
