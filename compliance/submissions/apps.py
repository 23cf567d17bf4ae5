from django.apps import AppConfig


class SubmissionsConfig(AppConfig):
    name = "compliance.submissions"
    label = "submissions"
    verbose_name = "Rules Submissions, wager limits and gaming guides"

    def ready(self) -> None:
        from compliance.dashboard import register_panel
        from compliance.readiness import register_source
        from compliance.submissions.models import BoardDecision, RulesSubmission, TableSetting, WagerLimitChange
        from compliance.submissions.panels import submissions_panel
        from compliance.submissions.readiness import submission_unmet

        register_panel(submissions_panel)
        # § 521.7(a) limits in force, § 521.8(b) an approved version in force and the tables inside it, § 521.7(d).
        register_source("submissions", submission_unmet,
                        models=(WagerLimitChange, TableSetting, RulesSubmission, BoardDecision))
