from typing import Any, ClassVar

from celery.schedules import crontab

from compliance import registry
from compliance.registry import DemoSeeder, NavItem, ReadinessSource, ScaleSeeder
from compliance.roles import FLOOR_SUPERVISION, OVERSIGHT, Role


class SubmissionsConfig(registry.PluggableApp):
    """The Rules Submission (ch. 521): versions, decisions, tables' settings, wager limits, signs, gaming guides
    (docs/submissions.md)."""

    name = "compliance.submissions"
    label = "submissions"
    verbose_name = "Rules Submissions, wager limits and gaming guides"

    depends_on = ("compliance.games",)
    navigation = (
        NavItem("Rules Submission", "submissions:list", "Rules", frozenset({Role.SHIFT_MANAGER}) | OVERSIGHT),
        NavItem("Gaming guides", "submissions:guides", "Rules", OVERSIGHT),
        NavItem("Wager limits", "submissions:limits", "Floor", FLOOR_SUPERVISION | OVERSIGHT),
    )
    panels = ("compliance.submissions.panels.submissions_panel",)
    demo = (DemoSeeder("compliance.submissions.demo.submissions_demo_seed", stage=1),)
    # A year of versions, amendments and weekend limit changes (generate_casino)
    scale = (ScaleSeeder("compliance.submissions.scale.submissions_scale_seed", stage=1),)
    # § 521.7(a) limits in force, § 521.8(b) an approved version in force and the tables inside it, § 521.7(d).
    readiness = (ReadinessSource("submissions", "compliance.submissions.readiness.submission_unmet", models=(
        "submissions.WagerLimitChange", "submissions.TableSetting", "submissions.RulesSubmission",
        "submissions.BoardDecision")),)
    # The six-dice variation a table plays (§ 521.8(b), § 675a.6(a)), for the dice log.
    variation_readers = ("compliance.submissions.selectors.table_plays_six_dice",)
    beat: ClassVar[dict[str, dict[str, Any]]] = {
        # Wager limit changes (§ 521.8(c)(2)): each minute, the scheduled changes whose time has come are applied (or
        # not, saying why); the request also queues the change at its own time, so the minute is only the fallback.
        "submissions-apply-wager-limits": {"task": "compliance.submissions.tasks.apply_wager_limit_changes",
                                           "schedule": crontab(minute="*")},
    }
