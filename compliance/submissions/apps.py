from django.apps import AppConfig


class SubmissionsConfig(AppConfig):
    name = "compliance.submissions"
    label = "submissions"
    verbose_name = "Rules Submissions, wager limits and gaming guides"

    def ready(self) -> None:
        from compliance.dashboard import register_panel
        from compliance.submissions.panels import submissions_panel

        register_panel(submissions_panel)
