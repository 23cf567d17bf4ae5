"""Exclusion-list screening of mailed coupons, 58 Pa. Code § 525.21(q)(7) (docs/exclusion.md)."""
