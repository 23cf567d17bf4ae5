"""Administration of the registers (people, facilities, games, tables); history kept for every change.

Signatures and audit events are shown read-only: they are append-only by design. An administrator
cannot give themselves more power: their own roles, permissions, staff and superuser status and
facilities are changed by another administrator (refused here in words, and by the guards in
``compliance.signals`` whatever the path). They never type or see another person's password: creating an
account or resetting its password sends the person a set-password link (``compliance.password_links``). They
manage only the people of the facilities they hold (``compliance.admin_scope``).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import UserChangeForm
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from simple_history.admin import SimpleHistoryAdmin

from compliance import admin_scope
from compliance.accounts import own_change_refused
from compliance.models import (
    AuditEvent,
    Department,
    Facility,
    Game,
    GamingTable,
    Profile,
    Signature,
)
from compliance.numbers import NUMBER_FORMFIELDS
from compliance.password_links import masked_address, set_password_link_issue
from compliance.roles import role_combination_refusal, role_department_refusal, role_label

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
    formfield_overrides = NUMBER_FORMFIELDS  # numbers typed with the digits 0–9, as on every other form

    # A row's history is shown only for rows this administrator may see (simple_history falls back to the
    # latest version of a row outside the queryset); reverting from history is off (SIMPLE_HISTORY_REVERT_DISABLED).
    def _in_scope(self, request: HttpRequest, object_id: str) -> None:
        if not str(object_id).isdigit() or not self.get_queryset(request).filter(pk=int(object_id)).exists():
            raise Http404("No such record among those you administer.")

    def history_view(self, request: HttpRequest, object_id: str, extra_context: Any = None) -> Any:
        self._in_scope(request, object_id)
        return super().history_view(request, object_id, extra_context)

    def history_form_view(self, request: HttpRequest, object_id: str, version_id: str,
                          extra_context: Any = None) -> Any:
        self._in_scope(request, object_id)
        if request.method != "GET":
            raise PermissionDenied("A version is read here, never restored: record a correction instead.")
        return super().history_form_view(request, object_id, version_id, extra_context)
    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Facility)
class FacilityAdmin(NoDeleteHistoryAdmin):
    list_display = ["name", "code", "certificate_holder", "time_zone"]

    def get_queryset(self, request: HttpRequest) -> Any:
        return super().get_queryset(request).filter(pk__in=admin_scope.facilities_held(request.user).values("pk"))

    def has_add_permission(self, request: HttpRequest) -> bool:
        return admin_scope.unbounded(request.user) and super().has_add_permission(request)


@admin.register(Department)
class DepartmentAdmin(NoDeleteHistoryAdmin):
    list_display = ["name", "code"]


@admin.register(Profile)
class ProfileAdmin(NoDeleteHistoryAdmin):
    form = ProfileForm
    readonly_fields = ["user"]  # a regulated identity is never moved onto another account
    list_display = ["full_name", "credential_number", "department", "active"]
    list_filter = ["department", "active", "facilities"]
    search_fields = ["full_name", "credential_number", "user__username"]
    filter_horizontal = ["facilities"]

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any) -> Any:
        form = super().get_form(request, obj, change=change, **kwargs)
        form.editor_id = request.user.pk
        return form

    def get_queryset(self, request: HttpRequest) -> Any:
        return super().get_queryset(request).filter(user__in=admin_scope.people_managed(request.user))

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # a profile is made with its account, on the person's page

    def formfield_for_manytomany(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if db_field.name == "facilities":
            kwargs["queryset"] = admin_scope.facilities_held(request.user)
        return super().formfield_for_manytomany(db_field, request, **kwargs)


@admin.register(Game)
class GameAdmin(NoDeleteHistoryAdmin):
    list_display = ["name", "code", "chapter", "banking"]


@admin.register(GamingTable)
class GamingTableAdmin(NoDeleteHistoryAdmin):
    list_display = ["number", "game", "facility", "pit", "is_open"]
    list_filter = ["facility", "game", "is_open"]

    def get_queryset(self, request: HttpRequest) -> Any:
        return super().get_queryset(request).filter(facility__in=admin_scope.facilities_held(request.user))

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if db_field.name == "facility":
            kwargs["queryset"] = admin_scope.facilities_held(request.user)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)
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

    def get_queryset(self, request: HttpRequest) -> Any:
        return super().get_queryset(request).filter(facility__in=admin_scope.facilities_held(request.user))


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyAdmin):
    list_display = ["occurred_at", "action", "model_label", "object_id", "actor"]
    list_filter = ["action", "model_label"]

    def get_queryset(self, request: HttpRequest) -> Any:
        # The facilities' own events; events of no facility (accounts, shared registers) only for the console.
        events = super().get_queryset(request)
        if admin_scope.unbounded(request.user):
            return events
        return events.filter(facility__in=admin_scope.facilities_held(request.user))


class ProfileInline(admin.StackedInline):
    """A person's regulated identity, edited with their account: name, credential, department, facilities."""

    model = Profile
    formset = OwnFacilitiesFormSet
    can_delete = False
    filter_horizontal = ["facilities"]
    extra = 1
    max_num = 1
    min_num = 1  # every person an administrator creates has their regulated identity

    def formfield_for_manytomany(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if db_field.name == "facilities":
            kwargs["queryset"] = admin_scope.facilities_held(request.user)
        return super().formfield_for_manytomany(db_field, request, **kwargs)

    def get_formset(self, request: HttpRequest, obj: Any = None, **kwargs: Any) -> Any:
        formset = super().get_formset(request, obj, validate_min=True, **kwargs)  # the admin skips min_num else
        formset.editor_id = request.user.pk  # type: ignore[attr-defined]
        return formset


# The console names the product, not the framework ("Django administration").
admin.site.site_header = "Table Games Compliance — administration"
admin.site.site_title = "Table Games Compliance administration"
admin.site.index_title = "Registers and accounts"

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


class PersonCreationForm(forms.ModelForm):
    """A new account: its username and the person's own e-mail, where the link to choose a password goes. No
    password field: no administrator types or sees another person's password."""

    email = forms.EmailField(label="The person's own e-mail",
                             help_text="The link to choose their password is sent here, and only here.")

    class Meta:
        model = User
        fields = ["username", "email"]

    def clean_email(self) -> str:
        email = self.cleaned_data["email"].strip()
        if User.objects.filter(email__iexact=email).exists():
            raise forms.ValidationError("That e-mail address belongs to another account (yours, or someone else's): "
                                        "enter the person's own address.")
        return email

    def save(self, commit: bool = True) -> Any:
        user = super().save(commit=False)
        user.set_unusable_password()
        if commit:
            user.save()
        return user


_SET_BY_THE_PERSON = ("No administrator sets or sees a password. To give this person a new one, use “Send a "
                      "set-password link” above: their password stops working and a link to choose a new one goes "
                      "to their own e-mail.")


@admin.register(User)
class PersonAdmin(UserAdmin):
    form = PersonChangeForm
    add_form = PersonCreationForm
    add_fieldsets = ((None, {"classes": ("wide",), "fields": ("username", "email")}),)
    fieldsets = (
        (None, {"fields": ("username", "password_state")}),
        ("Personal info", {"fields": ("first_name", "last_name", "email")}),
        ("Access", {"fields": ("is_active", "is_staff", "is_superuser", "groups")}),
        ("Important dates", {"fields": ("last_login", "date_joined")}),
    )
    filter_horizontal = ("groups",)
    inlines = [ProfileInline]
    list_display = ["username", "full_name", "credential", "is_active"]
    list_select_related = ["profile"]
    change_form_template = "admin/compliance/person_change_form.html"
    readonly_fields = ["password_state"]

    @admin.display(description="Password")
    def password_state(self, user: Any) -> str:
        """Whether the person has a password, in words; never a hash, never a way to set one."""
        if user is None or user.pk is None:
            return ""
        if user.has_usable_password():
            return "Set (chosen by the person). " + _SET_BY_THE_PERSON
        return "None yet: the person chooses one through their set-password link. " + _SET_BY_THE_PERSON

    def formfield_for_manytomany(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        field = super().formfield_for_manytomany(db_field, request, **kwargs)
        if db_field.name == "groups" and field is not None:  # a role by its name, not its code ("finance_staff")
            field.label_from_instance = lambda group: role_label(group.name)  # type: ignore[method-assign,assignment]
        return field

    def get_queryset(self, request: HttpRequest) -> Any:
        managed = admin_scope.people_managed(request.user).values("pk")
        return super().get_queryset(request).filter(Q(pk__in=managed) | Q(pk=request.user.pk))

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if obj is not None and not admin_scope.manages(request.user, obj):
            return False  # themselves, or a person who also works at a facility they do not hold: view only
        return super().has_change_permission(request, obj)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        fields = list(super().get_readonly_fields(request, obj))
        if not admin_scope.unbounded(request.user):
            fields += ["is_superuser"]  # a superuser stands outside every facility: the console's to grant
        return fields

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # people who signed records stay; deactivate them instead

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any) -> Any:
        form = super().get_form(request, obj, change=change, **kwargs)
        form.editor_id = request.user.pk  # type: ignore[attr-defined]
        return form

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        if not change:
            set_password_link_issue(form.instance, actor=request.user, base_url=request.build_absolute_uri("/"),
                                    why="account created")
            messages.info(request, f"A link to choose a password was sent to {masked_address(form.instance.email)}. "
                                   "It works once, for 24 hours.")

    def get_urls(self) -> list[Any]:
        own = [path("<id>/set-password-link/", self.admin_site.admin_view(self.set_password_link_view),
                    name="auth_user_set_password_link")]
        return own + super().get_urls()

    def user_change_password(self, request: HttpRequest, id: str, form_url: str = "") -> HttpResponse:
        """Django's "set this person's password" page, replaced: an administrator never sets one."""
        messages.warning(request, "Administrators do not set passwords. " + _SET_BY_THE_PERSON)
        return HttpResponseRedirect(reverse("admin:auth_user_change", args=[id]))

    def set_password_link_view(self, request: HttpRequest, id: str) -> HttpResponse:
        person = get_object_or_404(self.get_queryset(request), pk=id) if str(id).isdigit() else None
        if person is None:
            raise PermissionDenied
        if not self.has_change_permission(request, person):
            raise PermissionDenied("You do not manage this person's account.")
        if request.method == "POST":
            try:
                set_password_link_issue(person, actor=request.user, base_url=request.build_absolute_uri("/"),
                                        why="reset by an administrator")
            except ValidationError as refusal:
                messages.error(request, " ".join(refusal.messages))
            else:
                messages.success(request, f"{self.full_name(person) or person.username}'s password no longer works; "
                                          f"a link to choose a new one was sent to {masked_address(person.email)}.")
            return HttpResponseRedirect(reverse("admin:auth_user_change", args=[person.pk]))
        context = {**self.admin_site.each_context(request), "person": person, "opts": self.model._meta,
                   "address": masked_address(person.email) if person.email else "",
                   "title": "Send a set-password link"}
        return TemplateResponse(request, "admin/compliance/set_password_link.html", context)

    @admin.display(description="Full name")
    def full_name(self, user: Any) -> str:
        return getattr(getattr(user, "profile", None), "full_name", "")

    @admin.display(description="Credential")
    def credential(self, user: Any) -> str:
        return getattr(getattr(user, "profile", None), "credential_number", "")


# The roles, authenticators and second-factor resets (compliance/admin_accounts.py).
from compliance import admin_accounts  # noqa: E402,F401
