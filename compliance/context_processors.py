from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from compliance.navigation import menu_for, navigation_for
from compliance.roles import is_inspector, roles_of


def shell(request: HttpRequest) -> dict[str, Any]:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    from compliance.selectors import facilities_for

    nav_items = navigation_for(user)
    return {
        "nav_items": nav_items,
        "menu": menu_for(user, nav_items),
        "current_facility": getattr(request, "facility", None),
        "my_facilities": facilities_for(user),
        "my_roles": sorted(role.label for role in roles_of(user)),
        "read_only": is_inspector(user),
    }
