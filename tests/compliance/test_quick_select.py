"""compliance.quick_select: the same markup as Django's own template-rendered ``<select>``, every value escaped."""

from __future__ import annotations

from django import forms
from django.test.html import parse_html

from compliance.quick_select import QuickSelect

CHOICES = [("", "Any"), ("a", "Alpha"), ("<b>", 'Bold "quoted" & <tagged>'),
           ("Group", [("g1", "In a group"), ("g2", "Second")])]


def test_it_renders_what_djangos_select_renders_selected_grouped_and_escaped():
    for value in ("", "a", "<b>", "g2", "absent"):
        attrs = {"id": "id_x", "class": "wide", "required": True}
        ours = QuickSelect(choices=CHOICES).render("x", value, attrs)
        theirs = forms.Select(choices=CHOICES).render("x", value, attrs)
        assert parse_html(ours) == parse_html(theirs), value
    hostile = QuickSelect(choices=CHOICES).render("x", "<b>")
    assert "<tagged>" not in hostile and "&lt;tagged&gt;" in hostile and 'value="&lt;b&gt;" selected' in hostile


def test_a_model_choice_field_renders_its_objects(django_user_model, db):
    person = django_user_model.objects.create(username="deb")
    field = forms.ModelChoiceField(queryset=django_user_model.objects.all(), widget=QuickSelect, required=False)
    ours = field.widget.render("actor", person.pk)
    assert f'<option value="{person.pk}" selected>deb</option>' in ours
