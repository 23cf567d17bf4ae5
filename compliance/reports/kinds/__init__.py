"""The kinds the reports framework itself carries (the audit extract) and the helpers every kind shares; the
other kinds live in the app that owns their data and are named in its ``apps.py`` (``report_kinds``)."""
