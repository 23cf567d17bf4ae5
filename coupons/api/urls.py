"""``/api/v1/coupons/…``: the redemption API. Django's sign-in redirect does not apply (a scanner has no
session); DRF authenticates every request itself and answers 401 in the one error shape."""

from django.contrib.auth.decorators import login_not_required
from django.urls import path, re_path
from django.views.decorators.csrf import csrf_exempt

from coupons.api.views import RedemptionDetailView, RedemptionsView, unknown_address

app_name = "coupons-api"

urlpatterns = [
    path("redemptions/", login_not_required(RedemptionsView.as_view()), name="redemptions"),
    path("redemptions/<int:pk>/", login_not_required(RedemptionDetailView.as_view()), name="redemption"),
    # last: what no route above matches, whatever the method (it writes nothing, so no CSRF token is asked)
    re_path(r"^(?P<rest>.*)$", csrf_exempt(login_not_required(unknown_address))),
]
