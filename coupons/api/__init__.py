"""The redemption API (Django REST framework): ``POST /api/v1/coupons/redemptions/`` and its reads.

Scanners sign in with their table's token (``Authorization: Token …``); people with their session.
Every error, from a refusal of § 525.22 to a malformed body or a revoked token, has one JSON shape
(:func:`coupons.api.errors.error_body`), documented in the OpenAPI schema at ``/api/schema/``.
"""

__all__: list[str] = []
