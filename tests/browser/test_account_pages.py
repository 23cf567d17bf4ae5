"""Accounts in a real browser (issue 22): an administrator resets a person's password by sending them a link
they never see; the person chooses a password on the link's page; a used code is named at sign-in."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.core import mail

from tests.browser.conftest import fill_sign_in, shoot
from tests.factories import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
NEW_PASSWORD = "a password only Deb knows 1987"


def test_a_reset_link_goes_to_the_person_alone_and_they_choose_their_password(
        login, live_server, facility, administrator, dealer):
    page = login(administrator)
    page.goto(f"{live_server.url}/admin/auth/user/{dealer.pk}/change/")
    assert page.get_by_text("No administrator sets or sees a password").is_visible()
    page.get_by_role("link", name="Send a set-password link").click()
    page.wait_for_url(f"**/admin/auth/user/{dealer.pk}/set-password-link/")
    page.get_by_text("Their current password stops working at once").wait_for()  # the page has loaded
    page.get_by_role("button", name="Clear the password and send the link").click()
    page.wait_for_url(f"**/admin/auth/user/{dealer.pk}/change/")
    page.get_by_text("a link to choose a new one was sent to u***@example.test").wait_for()
    SHOTS.mkdir(parents=True, exist_ok=True)
    shoot(page, SHOTS / "admin-set-password-link.png")

    (message,) = [m for m in mail.outbox if m.to == [dealer.email]]
    link = re.search(r"https?://\S+/accounts/set-password/\S+/", str(message.body))
    assert link is not None
    assert link.group(0).split("/")[-2] not in page.content()  # the administrator never sees the link

    person = page.context.browser.new_context().new_page()  # the person's own browser
    assert link.group(0).startswith(live_server.url)  # the address the administrator's browser used
    person.goto(link.group(0))
    assert person.get_by_role("heading", name="Choose your password").is_visible()
    shoot(person, SHOTS / "set-password.png")
    person.locator("#id_new_password1").fill(NEW_PASSWORD)
    person.locator("#id_new_password2").fill(NEW_PASSWORD)
    person.get_by_role("button", name="Set my password").click()
    person.wait_for_url("**/accounts/login/")
    person.get_by_text("Your password is set").wait_for()
    dealer.refresh_from_db()
    assert dealer.check_password(NEW_PASSWORD) and not dealer.check_password(PASSWORD)


def test_a_code_used_twice_is_named_at_sign_in(page, live_server, facility, finance_supervisor):
    import time

    if time.time() % 30 > 20:  # both sign-ins inside one 30-second step, so the second gets the spent code
        time.sleep(31 - time.time() % 30)
    fill_sign_in(page, live_server, finance_supervisor)
    page.wait_for_url(f"{live_server.url}/")
    page.context.clear_cookies()
    fill_sign_in(page, live_server, finance_supervisor)
    page.get_by_text("That code was already used to sign in").wait_for()  # the refusal page has loaded
    SHOTS.mkdir(parents=True, exist_ok=True)
    shoot(page, SHOTS / "sign-in-code-used.png")
