"""A role is held only by a member of its department, and department signatures ask for the department
(§ 525.21(d)–(l): "a finance department supervisor", "a member of the marketing department")."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.db import transaction

from compliance.models import Department, Profile
from compliance.roles import Role
from compliance.services import profile_create
from tests.factories import make_person

pytestmark = pytest.mark.django_db


def test_creating_a_marketing_employee_with_the_finance_supervisor_role_is_refused_in_words(facility):
    with pytest.raises(ValidationError, match="the finance supervisor role is held by a member of the finance"):
        profile_create(username="m1", full_name="Mona Market", credential_number="PGCB-9001",
                       department_code="marketing", roles=[Role.FINANCE_SUPERVISOR], facilities=[facility])
    assert not Profile.objects.filter(credential_number="PGCB-9001").exists()


def test_granting_a_role_outside_the_department_is_refused_however_it_is_granted(facility):
    person = make_person(Role.MARKETING_SUPERVISOR, facility)
    finance = Group.objects.get(name=Role.FINANCE_SUPERVISOR)
    with pytest.raises(ValidationError, match="is in the marketing department"), transaction.atomic():
        person.groups.add(finance)
    with pytest.raises(ValidationError, match="is in the marketing department"), transaction.atomic():
        finance.user_set.add(person)
    assert not person.groups.filter(name=Role.FINANCE_SUPERVISOR).exists()


def test_moving_a_person_to_another_department_keeps_their_roles_in_step(facility):
    person = make_person(Role.FINANCE_SUPERVISOR, facility)
    profile = person.profile
    profile.department = Department.objects.get(code="marketing")
    with pytest.raises(ValidationError, match="finance supervisor role is held by a member of the finance"), \
            transaction.atomic():
        profile.save()


def test_the_admin_says_the_mismatch_on_the_form_and_saves_nothing(facility, client_for, administrator):
    person = make_person(Role.FINANCE_STAFF, facility)
    marketing = Department.objects.get(code="marketing")
    client = client_for(administrator)
    url = f"/admin/auth/user/{person.pk}/change/"
    page = client.get(url)
    assert page.status_code == 200
    profile = person.profile
    data = {
        "username": person.username, "is_active": "on", "groups": [Group.objects.get(name=Role.FINANCE_STAFF).pk],
        "date_joined_0": "2026-11-01", "date_joined_1": "09:00:00",
        "profile-TOTAL_FORMS": "1", "profile-INITIAL_FORMS": "1", "profile-MIN_NUM_FORMS": "0",
        "profile-MAX_NUM_FORMS": "1", "profile-0-id": profile.pk, "profile-0-user": person.pk,
        "profile-0-full_name": profile.full_name, "profile-0-credential_number": profile.credential_number,
        "profile-0-department": marketing.pk, "profile-0-active": "on", "profile-0-facilities": [facility.pk],
    }
    response = client.post(url, data)
    assert response.status_code == 200
    assert "the finance staff role is held by a member of the finance department" in response.content.decode()
    profile.refresh_from_db()
    assert profile.department.code == "finance"
