"""Reports as Celery jobs: the quarterly Match Play Coupon report (§ 525.21(o)) and the period reports of the
compliance office and the Board's inspectors, each produced as stored, hashed, never-overwritten versions.
See docs/reports.md."""
