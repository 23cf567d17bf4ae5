"""Each role's menu holds only the work it does, in one row (issue 25, item 1), and the Board inspector is offered
no action on any page: no link to a form, no form to a record's action, not even an action's words."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

import pytest
from django.urls import Resolver404, resolve

from compliance.navigation import FLAT_MENU_AT_MOST, action_page, menu_for, navigation_for
from compliance.registry import navigation
from compliance.roles import Role
from tests.compliance.test_shown_to_each_person import _parameterless_pages
from tests.factories import GamingTableFactory, make_person

pytestmark = pytest.mark.django_db

# A link or a button worded as an action: a record page must never offer one to the inspector (the review found
# "Change…", "Produce…", "File with the Board…", "Sign…", "Redeem at a table").
ACTION_WORDS = re.compile(r"<(a|button)\b[^>]*>\s*(Change|Produce|File|Redeem|Record|Put|Void|Issue|Requisition|"
                          r"Distribute|Return|Cancel|Withdraw|Import|Register|Revoke|Draft|Close|Take|Add|"
                          r"Count|Authorize|Approve|Release|Screen|Decide|Correct|Undo|Reverse)\b[^<]{0,60}<")


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.post_forms: list[str] = []
        self.ids: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "a" and (a.get("href") or "").startswith("/"):
            self.links.append(a["href"] or "")
        if tag == "form" and (a.get("method") or "").lower() == "post":
            self.post_forms.append(a.get("action") or "")


def _main(html: str) -> str:
    """The page's own content (the menu and the account corner are the shell's)."""
    start = html.find('<main id="main"')
    return html[start:html.find("</main>", start)]


@pytest.mark.parametrize("role", list(Role))
def test_each_menu_holds_only_the_roles_work_and_fits_one_row(role, facility):
    person = make_person(role, facility)
    declared = {item.url_name: item for item in navigation()}
    items = navigation_for(person)
    assert items[0]["url_name"] == "dashboard"
    for item in items[1:]:
        assert role in declared[item["url_name"]].for_roles, f"{item['label']} is not {role.label}'s work"
    menu = menu_for(person)
    assert len(menu) <= FLAT_MENU_AT_MOST, f"{role.label}: {len(menu)} entries do not fit one row"
    shown = [entry for entry in menu for entry in entry.get("children", [entry])]
    assert [entry["url_name"] for entry in shown] == [item["url_name"] for item in items], "nothing lost by grouping"


def test_the_dealers_menu_is_their_table_and_nothing_else(facility):
    dealer = make_person(Role.DEALER, facility)
    assert [item["label"] for item in navigation_for(dealer)] == ["Dashboard", "Redeem at a table"]


def test_a_long_menu_is_grouped_by_section_and_a_short_one_is_flat(facility):
    officer = make_person(Role.COMPLIANCE_OFFICER, facility)
    menu = menu_for(officer)
    assert [entry["label"] for entry in menu] == ["Dashboard", "Coupons", "Floor", "Equipment", "Rules", "Records"]
    assert all(entry.get("children") for entry in menu[1:])
    finance = make_person(Role.FINANCE_STAFF, facility)
    assert all("children" not in entry for entry in menu_for(finance))


def test_the_page_shows_the_menu_and_no_go_to_grid(facility, client_for):
    officer = make_person(Role.COMPLIANCE_OFFICER, facility)
    html = client_for(officer).get("/").content.decode()
    assert html.count('class="navgroup"') == 5
    assert "Go to" not in html and 'class="tile"' not in html


def test_the_inspectors_menu_has_no_action_page(facility, inspector):
    for item in navigation_for(inspector):
        view_class = getattr(resolve(item["url"]).func, "view_class", None)
        assert not action_page(view_class), f"{item['label']} is a form, not a record"


def test_the_inspector_is_offered_no_action_on_any_page(facility, inspector, client_for):
    tables = [GamingTableFactory(facility=facility, number=f"T-{n}") for n in range(2)]
    client = client_for(inspector)
    pages = _parameterless_pages() + [f"/equipment/tables/{t.pk}/" for t in tables]
    offered = []
    for url in pages:
        response = client.get(url)
        if response.status_code != 200 or not response["Content-Type"].startswith("text/html"):
            continue
        if action_page(getattr(resolve(url).func, "view_class", None)):
            continue  # a form opened by its address is shown disabled (test_shown_to_each_person)
        main = _main(response.content.decode())
        parsed = _Links()
        parsed.feed(main)
        for link in parsed.links:
            try:
                target = getattr(resolve(link.split("?")[0]).func, "view_class", None)
            except Resolver404:  # a page outside the URLconf is no action of ours
                continue
            if action_page(target):
                offered.append(f"{url}: link to {link}")
        offered += [f"{url}: a form posting to {action or url}" for action in parsed.post_forms]
        offered += [f"{url}: {m.group(0)!r}" for m in ACTION_WORDS.finditer(main)]
    assert not offered, "the inspector is offered actions:\n" + "\n".join(offered)


def test_a_form_opened_by_its_address_is_read_only_for_the_inspector(facility, inspector, client_for):
    html = client_for(inspector).get("/coupons/receipts/new/").content.decode()
    assert "Read-only: a Board inspector" in html
    assert 'type="submit"' not in _main(html)


def _ids(html: str) -> list[str]:
    return re.findall(r'\sid="([^"]+)"', html)


@pytest.mark.parametrize("role", [Role.FINANCE_SUPERVISOR, Role.MARKETING_SUPERVISOR, Role.COMPLIANCE_OFFICER])
def test_no_page_repeats_an_element_id(role, facility, client_for):
    client = client_for(make_person(role, facility))
    repeated: dict[str, Any] = {}
    for url in _parameterless_pages():
        response = client.get(url)
        if response.status_code != 200 or not response["Content-Type"].startswith("text/html"):
            continue
        ids = _ids(response.content.decode())
        twice = sorted({i for i in ids if ids.count(i) > 1})
        if twice:
            repeated[url] = twice
    assert not repeated, f"labels point at the wrong field: {repeated}"


def test_money_reads_as_the_coupon_pages_print_it():
    from compliance.templatetags.compliance import money

    assert money("1000.00") == "$1,000" and money("12.5") == "$12.50" and money(None) == ""
    assert money("not a number") == "not a number"


def test_the_admin_names_the_product_and_the_roles_in_words(facility, client_for):
    from django.contrib.auth.models import Group

    admin = make_person(Role.ADMINISTRATOR, facility)
    clerk = make_person(Role.FINANCE_STAFF, facility)
    page = client_for(admin).get(f"/admin/auth/user/{clerk.pk}/change/").content.decode()
    assert "Django administration" not in page and "Table Games Compliance" in page
    assert Group.objects.filter(name="finance_staff").exists()
    assert ">Finance staff<" in page and ">finance_staff<" not in page
