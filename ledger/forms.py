"""Forms for a person's decisions (STYLE.md: Django forms for anything a person types)."""

from __future__ import annotations

from django import forms

from ledger.importer import knowledge

CLASS_CHOICES = [(name, name) for name in knowledge.CLASSES]


class PromoteForm(forms.Form):
    evidence = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}),
        strip=True,
        help_text="What shows this is true: a commit, a test, a decision. Required.",
    )
    klass = forms.ChoiceField(choices=CLASS_CHOICES, label="Class")
    loaded_sha256 = forms.CharField(widget=forms.HiddenInput, required=False)

    def clean_evidence(self) -> str:
        evidence = self.cleaned_data["evidence"]
        if knowledge.transcript_like(evidence):
            raise forms.ValidationError("This reads like a transcript; state the evidence in your own words.")
        return evidence


class RejectForm(forms.Form):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}),
        strip=True,
        help_text="Why it is wrong, out of date or a duplicate. Required.",
    )
    superseded_by = forms.CharField(
        required=False, help_text="The id of the record that replaces it, if any."
    )
    loaded_sha256 = forms.CharField(widget=forms.HiddenInput, required=False)


class EditForm(forms.Form):
    title = forms.CharField(max_length=300, help_text="One line: an assertion, not a topic.")
    description = forms.CharField(max_length=600, widget=forms.Textarea(attrs={"rows": 2}))
    loaded_sha256 = forms.CharField(widget=forms.HiddenInput, required=False)


class BulkForm(forms.Form):
    verb = forms.ChoiceField(choices=[("promote", "Promote"), ("reject", "Reject")])
    note = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}),
        strip=True,
        help_text="Evidence (promote) or reason (reject), shared by every selected record.",
    )
    records = forms.ModelMultipleChoiceField(queryset=None)

    def __init__(self, *args, queryset=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["records"].queryset = queryset


class MergeForm(forms.Form):
    keep = forms.ModelChoiceField(queryset=None, help_text="The record to promote.")
    duplicates = forms.ModelMultipleChoiceField(queryset=None, help_text="Rejected as superseded by it.")
    evidence = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), strip=True)

    def __init__(self, *args, queryset=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["keep"].queryset = queryset
        self.fields["duplicates"].queryset = queryset
