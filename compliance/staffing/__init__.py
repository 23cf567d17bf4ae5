"""Staffing and surveillance (58 Pa. Code § 577.9 and further games' rules as data): shift rosters, the camera
registry, and the rules engine that says whether each table is staffed and watched as its game requires."""
