"""The admin of what sign-in rests on: the roles (groups), the authenticator devices and the two-person reset of a
second factor (split from compliance/admin.py, which keeps the registers and the people)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.db.models import Q
from django.http import HttpRequest, HttpResponseRedirect
from django_otp.plugins.otp_static.models import StaticDevice
from django_otp.plugins.otp_totp.models import TOTPDevice

from compliance import admin_scope
from compliance.admin import ReadOnlyAdmin
from compliance.models import (
    SecondFactorReset,
)

admin.site.unregister(Group)


@admin.register(Group)
class RoleAdmin(ReadOnlyAdmin):
    """Roles are code (``compliance.roles``), made by migrations: shown here, never added, renamed or
    given other permissions (the application's database role may only read them)."""

    list_display = ["name"]
    readonly_fields = ["name", "permissions"]


# Second factors (issue 22, item 2): no administrator reads or edits a key. The devices are listed without
# them; a reset is asked by one administrator and approved by another (compliance.second_factor).
for _device_model in (TOTPDevice, StaticDevice):
    if admin.site.is_registered(_device_model):
        admin.site.unregister(_device_model)


@admin.register(TOTPDevice)
class AuthenticatorAdmin(ReadOnlyAdmin):
    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest | None = None) -> bool:
        if lookup.split("__")[0] in ("key", "bin_key", "drift", "last_t", "throttling_failure_count"):
            return False  # ?key__startswith=… would read the secret one character at a time
        return super().lookup_allowed(lookup, value, request)

    list_display = ["user", "name", "confirmed", "created_at", "last_used_at"]
    fields = ["user", "name", "confirmed", "created_at", "last_used_at"]
    list_filter = ["confirmed"]
    search_fields = ["user__username", "user__profile__full_name"]

    def get_queryset(self, request: HttpRequest) -> Any:
        return super().get_queryset(request).filter(user__in=admin_scope.people_managed(request.user))


class SecondFactorResetForm(forms.ModelForm):
    class Meta:
        model = SecondFactorReset
        fields = ["person", "reason"]


@admin.register(SecondFactorReset)
class SecondFactorResetAdmin(admin.ModelAdmin):
    """Ask for a person's second-factor reset (with the reason); a second administrator approves or refuses it
    from the list. Nothing here is edited afterwards."""

    form = SecondFactorResetForm
    list_display = ["person", "requested_by", "requested_at", "outcome", "decided_by", "decided_at"]
    list_filter = ["outcome"]
    actions = ["approve", "refuse"]

    def get_queryset(self, request: HttpRequest) -> Any:
        return super().get_queryset(request).filter(person__in=admin_scope.people_managed(request.user))

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if db_field.name == "person":
            kwargs["queryset"] = admin_scope.people_managed(request.user).filter(
                Q(totpdevice__isnull=False) | Q(staticdevice__isnull=False)).distinct()
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False if obj is not None else super().has_change_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return ["person", "reason", "requested_by", "requested_at", "outcome", "decided_by", "decided_at"] if obj else []

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        from compliance import second_factor

        reset = second_factor.reset_request(form.cleaned_data["person"], actor=request.user,
                                            reason=form.cleaned_data["reason"])
        obj.pk = reset.pk

    def add_view(self, request: HttpRequest, form_url: str = "", extra_context: Any = None) -> Any:
        try:
            return super().add_view(request, form_url, extra_context)
        except ValidationError as refusal:
            messages.error(request, " ".join(refusal.messages))
            return HttpResponseRedirect(request.path)

    def _decide(self, request: HttpRequest, queryset: Any, *, approve: bool) -> None:
        from compliance import second_factor

        for reset in queryset:
            try:
                second_factor.reset_decide(reset, actor=request.user, approve=approve)
            except ValidationError as refusal:
                messages.error(request, f"{reset.person}: {' '.join(refusal.messages)}")
            else:
                messages.success(request, f"{reset.person}: {'approved' if approve else 'refused'}; they were told.")

    @admin.action(description="Approve: remove the person's authenticator and backup codes")
    def approve(self, request: HttpRequest, queryset: Any) -> None:
        self._decide(request, queryset, approve=True)

    @admin.action(description="Refuse")
    def refuse(self, request: HttpRequest, queryset: Any) -> None:
        self._decide(request, queryset, approve=False)

