"""Sign-in screens: the sign-in form with its TOTP code, the second-factor page (enrolment with the secret
and a QR code, or the code for a session signed in another way), the person's own password change, and
the answer to a locked-out sign-in. The rules themselves are in :mod:`compliance.accounts`."""

from __future__ import annotations

from typing import Any

import segno
from django import forms
from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm, PasswordChangeForm
from django.contrib.auth.signals import user_login_failed
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse, reverse_lazy
from django.utils.decorators import method_decorator
from django.utils.safestring import mark_safe
from django.views.decorators.debug import sensitive_post_parameters
from django.views.generic import FormView
from django_otp import login as otp_login

from compliance import accounts, second_factor

__all__ = [
    "BackupCodesView",
    "LoginForm",
    "LoginView",
    "PasswordChangeDoneView",
    "PasswordChangeView",
    "SecondFactorView",
    "locked_out",
]

_CODE_HELP = "Supervisors, shift managers, compliance, Board inspectors and administrators: the 6 digits in your " \
             "authenticator app, or one of your backup codes."


class LoginForm(AuthenticationForm):
    """Username, password and, for the roles that need one, the TOTP code of a confirmed device."""

    otp_token = forms.CharField(
        label="Authentication code", required=False, max_length=8, help_text=_CODE_HELP,
        widget=forms.TextInput(attrs={"autocomplete": "one-time-code", "inputmode": "numeric"}),
    )
    refusal_words = ""  # what to do about the second factor, when that is what was missing

    error_messages = {
        **AuthenticationForm.error_messages,
        "invalid_login": "Your username, password or authentication code didn't match. Please try again.",
    }

    def confirm_login_allowed(self, user: Any) -> None:
        super().confirm_login_allowed(user)
        if not accounts.needs_second_factor(user):
            return
        device = accounts.confirmed_device(user)
        backup = accounts.backup_device(user)
        if device is None and backup is None:
            return  # signed in, but nothing is reachable until a device is enrolled
        token = (self.cleaned_data.get("otp_token") or "").strip().replace(" ", "")
        if token and device is not None and token.isascii() and token.isdigit() and device.verify_token(token):
            user.otp_device = device  # django_otp marks the session verified at login
            return
        if token and backup is not None and not token.isdigit() and backup.verify_token(token.lower()):
            user.otp_device = backup
            left = backup.token_set.count()
            accounts.account_event(user, event="Signed in with a backup code", actor=user,
                                   details={"backup codes left": left})
            if left <= 3 and self.request is not None:
                messages.warning(self.request, f"You have {left} backup codes left: make a new set on your "
                                               "second-factor page.")
            return
        # A refusal, counted towards the lock-out like a wrong password. The words say what to do: the
        # password was right (only then is the code asked), so saying so tells a guesser nothing the
        # lock-out does not already limit.
        user_login_failed.send(sender=__name__, credentials={"username": user.get_username()}, request=self.request)
        if not token:
            self.refusal_words = ("Your role signs in with a code as well: enter the 6 digits your authenticator app "
                                  "shows now (or one of your backup codes).")
        elif device is not None and accounts.code_already_used(device, token):
            self.refusal_words = ("That code was already used to sign in. Each code works once: wait for the next "
                                  "one (a new code appears every 30 seconds) and enter it.")
        if self.refusal_words:
            raise ValidationError(self.refusal_words, code="second_factor")
        raise self.get_invalid_login_error()


    def get_invalid_login_error(self) -> ValidationError:
        # The directory accepted the password but this system refused the person (no credential number, no mapped
        # group), or the directory did not answer: the words say what to do. Like the second factor's, a refusal of
        # the person follows a right password only (compliance.directory); it counts towards the lock-out all the same.
        refusal = getattr(self.request, "directory_refusal", "")
        if refusal:
            self.refusal_words = refusal
            return ValidationError(refusal, code="directory")
        return super().get_invalid_login_error()


class LoginView(auth_views.LoginView):
    form_class = LoginForm
    redirect_authenticated_user = True


def locked_out(request: HttpRequest, original_response: Any = None, credentials: Any = None) -> HttpResponse:
    """django-axes' answer once a username or an address is locked: the same words whether or not the
    account exists."""
    return render(
        request, "registration/login.html",
        {"form": LoginForm(request), "locked_out": accounts.LOCKED_OUT_MESSAGE}, status=429,
    )


class TokenForm(forms.Form):
    otp_token = forms.CharField(
        label="Authentication code", max_length=8,
        widget=forms.TextInput(attrs={"autocomplete": "one-time-code", "inputmode": "numeric", "autofocus": True}),
    )

    def __init__(self, *args: Any, device: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.device = device

    def clean_otp_token(self) -> str:
        token = self.cleaned_data["otp_token"].strip()
        if not self.device.verify_token(token):
            raise ValidationError("That code is not correct. Enter the 6 digits your authenticator app shows now.")
        return token


class SecondFactorView(FormView):
    """Enrol an authenticator app (first time: the secret and a QR code, then one code to confirm it), or
    enter a code for a session signed in without one."""

    template_name = "compliance/account_second_factor.html"
    form_class = TokenForm
    title = "Second factor"

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
        user: Any = request.user
        if not accounts.needs_second_factor(user) or user.is_verified():
            if request.method == "GET":  # nothing to do: say so (a link here is never a dead end)
                return render(request, self.template_name, {"done": True, "view": self})
            return HttpResponseRedirect(reverse("dashboard"))
        self.confirmed = accounts.confirmed_device(user)
        self.device = self.confirmed or accounts.unconfirmed_device(user)
        return super().dispatch(request, *args, **kwargs)

    def get_form_kwargs(self) -> dict[str, Any]:
        return {**super().get_form_kwargs(), "device": self.device}

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        if self.confirmed is None:
            context["secret"] = accounts.totp_secret(self.device)
            context["qr_svg"] = mark_safe(  # noqa: S308 — segno's own SVG of our own URL, no user text
                segno.make(self.device.config_url, error="m").svg_inline(scale=4, omitsize=False, title="")
            )
        context["enrolling"] = self.confirmed is None
        return context

    @transaction.atomic
    def form_valid(self, form: TokenForm) -> HttpResponse:
        device = self.device
        if not device.confirmed:
            accounts.device_confirm(device)
            otp_login(self.request, device)
            messages.success(self.request, "Your authenticator app is enrolled; sign-in will ask for its code.")
            codes = second_factor.backup_codes_make(device.user)
            return render(self.request, "compliance/account_backup_codes.html", {"codes": codes, "enrolled": True})
        otp_login(self.request, device)
        return HttpResponseRedirect(reverse("dashboard"))


class BackupCodesForm(forms.Form):
    """A new set of backup codes is a new second factor: the person's current password is asked, checked and
    locked like a signature's (an open session left at a desk does not mint codes)."""

    password = forms.CharField(label="Your password", strip=False,
                               widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}))

    def __init__(self, *args: Any, user: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_password(self) -> str:
        if accounts.signing_locked(self.user):
            raise ValidationError(accounts.LOCKED_OUT_MESSAGE)
        password = self.cleaned_data.get("password") or ""
        if not accounts.password_matches(self.user, password):
            accounts.signing_failure_record(self.user, where="to make backup codes")
            raise ValidationError("That is not your password.")
        return password


class BackupCodesView(FormView):
    """The person's backup codes: how many are left, and a new set on request (shown this once)."""

    template_name = "compliance/account_backup_codes.html"
    form_class = BackupCodesForm
    title = "Backup codes"

    def get_form_kwargs(self) -> dict[str, Any]:
        return {**super().get_form_kwargs(), "user": self.request.user}

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        return {**super().get_context_data(**kwargs), "left": second_factor.backup_codes_left(self.request.user),
                "needs_factor": accounts.needs_second_factor(self.request.user)}

    def form_valid(self, form: BackupCodesForm) -> HttpResponse:
        if not accounts.needs_second_factor(self.request.user):
            return HttpResponseRedirect(reverse("dashboard"))
        codes = second_factor.backup_codes_make(self.request.user)
        return render(self.request, self.template_name, {"codes": codes, "view": self})


class OwnPasswordChangeForm(PasswordChangeForm):
    """The current password is checked as a signature's is: a wrong one is on the person's trail and counts
    towards the same lock (five in 15 minutes), and a locked person's guesses are not even checked."""

    def clean_old_password(self) -> str:
        if accounts.signing_locked(self.user):
            raise ValidationError(
                "Five wrong passwords were typed in your name within 15 minutes, so your password is locked "
                "(signing and changing it) for 15 minutes from the last one. Try again then, or ask an "
                "administrator to send you a link to set a new one.", code="locked")
        if accounts.is_directory_account(self.user):
            raise ValidationError("Your password is the casino directory's: change it where you change your "
                                  "directory (Windows) password, and sign in here with the new one.", code="directory")
        old = self.cleaned_data.get("old_password") or ""
        if not self.user.check_password(old):
            accounts.signing_failure_record(self.user, where="as the current password on the change-password page")
            raise ValidationError("That is not your current password. Type the password you signed in with.",
                                  code="password_incorrect")
        return old


@method_decorator(sensitive_post_parameters(), name="dispatch")
class PasswordChangeView(auth_views.PasswordChangeView):
    """A person chooses their own password (Django's view, under the base layout)."""

    form_class = OwnPasswordChangeForm
    success_url = reverse_lazy("password_change_done")
    title = "Change your password"

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        self.request.session["own_password"] = True
        return response


class PasswordChangeDoneView(auth_views.PasswordChangeDoneView):
    title = "Password changed"


@method_decorator(sensitive_post_parameters(), name="dispatch")
class PasswordSetView(auth_views.PasswordResetConfirmView):
    """The person's set-password link (compliance.password_links): they choose their password; the link then
    works no more. Their second factor is untouched."""

    template_name = "registration/password_set.html"
    success_url = reverse_lazy("login")
    post_reset_login = False
    title = "Choose your password"

    def form_valid(self, form: Any) -> HttpResponse:
        from compliance.actors import acting_as
        from compliance.password_links import EVENT_LINK_USED

        with acting_as(self.user), transaction.atomic():
            response = super().form_valid(form)
            accounts.account_event(self.user, event=EVENT_LINK_USED, actor=self.user)
        messages.success(self.request, "Your password is set. Sign in with it.")
        return response

