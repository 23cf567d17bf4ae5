from compliance import registry


class TestappConfig(registry.PluggableApp):
    """A small app of regulated records used only to test the foundation's mechanisms."""

    name = "tests.testapp"
    label = "testapp"

    report_kinds = ("tests.testapp.report_kinds",)  # the test-only report kind
