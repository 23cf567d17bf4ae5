from __future__ import annotations

from typing import Any

from django.contrib.auth.backends import ModelBackend


class ActiveProfileBackend(ModelBackend):
    """Sign-in also requires an active profile: a deactivated person can neither sign in nor sign."""

    def user_can_authenticate(self, user: Any) -> bool:
        if not super().user_can_authenticate(user):
            return False
        profile = getattr(user, "profile", None)
        return profile.active if profile is not None else user.is_superuser
