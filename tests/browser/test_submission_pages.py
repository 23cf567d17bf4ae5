"""The Rules Submission in a real browser: a compliance officer drafts a version, picks Asia Poker's paytable
seeing the house advantage of each, is refused Sic Bo odds below the minimum in words, files it and records the
Board's approval; an anonymous visitor reads the approved guide on the public page. Screenshots are looked at
(var/screenshots/)."""

from __future__ import annotations

import pytest

from tests.browser.conftest import shoot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


def test_a_compliance_officer_files_a_version_and_the_public_reads_the_guide(login, live_server, facility,
                                                                              compliance_officer, browser):
    from compliance.gaming_day import gaming_day
    from tests.coupons.test_browser import SHOTS
    from tests.equipment.conftest import make_table
    from tests.factories import PASSWORD

    SHOTS.mkdir(parents=True, exist_ok=True)
    for number, game in (("AP-1", "asia-poker"), ("HRD-1", "high-roll-dice"), ("SB-1", "sic-bo")):
        make_table(facility, game, number)
    page = login(compliance_officer)
    page.goto(f"{live_server.url}/submissions/new/")
    page.get_by_label("Title").fill("Rules Submission")
    page.get_by_role("button", name="Record").click()
    page.get_by_role("link", name="Change Asia Poker's choices…").click()
    page.get_by_text("7.5401%").first.wait_for()  # paytable C's house advantage, beside the choice
    page.locator("input[name=bonus_wager][value=yes]").check()
    page.locator("input[name=paytable][value=C]").check()
    page.get_by_label("How the dealer's hands are set (§ 575.11(c))").fill("The house way card at the table.")
    shoot(page, SHOTS / "submissions-asia-poker.png")
    page.get_by_role("button", name="Save these choices").click()
    page.get_by_text("choices saved").wait_for()
    page.get_by_role("link", name="Change Sic Bo's choices…").click()
    page.locator("#id_big").fill("1 to 1")
    page.get_by_text("House advantage at these odds: 2.7778%").first.wait_for()  # beside the field, as typed
    page.locator("#id_three-of-a-kind").fill("149 to 1")
    page.get_by_text("149 to 1 is lower").first.wait_for()  # said before saving too
    page.get_by_role("button", name="Save these choices").click()
    page.get_by_text("Three of a Kind pays at least 150 to 1 (§ 539.6(b)); 149 to 1 is lower.").first.wait_for()
    shoot(page, SHOTS / "submissions-sic-bo-refused.png")
    page.goto(page.url.rsplit("/games/", 1)[0] + "/file/")
    page.get_by_label("Your password").fill(PASSWORD)
    page.get_by_role("button", name="Record").click()
    page.get_by_text("is filed with the Board").wait_for()
    page.get_by_role("link", name="Record the Board's decision…").click()
    page.locator("input[name=decision][value=approved]").check()
    today = gaming_day(facility).isoformat()
    page.get_by_label("Date of the Board's decision").fill(today)
    page.get_by_label("Approved rules take effect on the gaming day").fill(today)
    page.get_by_role("button", name="Record").click()
    page.get_by_text("In force", exact=True).first.wait_for()
    shoot(page, SHOTS / "submissions-in-force.png")
    page.goto(f"{live_server.url}/submissions/tables/")
    page.get_by_text("As approved").first.wait_for()
    shoot(page, SHOTS / "submissions-tables.png")
    page.goto(f"{live_server.url}/submissions/guides/new/")
    page.get_by_label("Game").select_option(label="Asia Poker")
    page.get_by_role("button", name="Record").click()
    page.get_by_role("link", name="Send the sample to the Bureau…").click()
    page.get_by_label("Your password").fill(PASSWORD)
    page.get_by_role("button", name="Record").click()
    page.get_by_role("link", name="Record the Bureau's approval…").click()
    page.get_by_label("Approved by the Bureau of Gaming Operations on").fill(today)
    page.get_by_role("button", name="Record").click()
    page.get_by_text("Distributed", exact=True).wait_for()

    visitor = browser.new_page()
    visitor.goto(f"{live_server.url}/guides/{facility.code}/")
    visitor.get_by_text("Bonus Wager, Four-of-a-kind: 25 to 1").wait_for()  # paytable C
    assert "sign in" not in visitor.title().lower()
    shoot(visitor, SHOTS / "submissions-public-guide.png")
    visitor.close()
