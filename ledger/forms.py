"""Forms for a person's decisions (STYLE.md: Django forms for anything a person types)."""

from __future__ import annotations

from django import forms

from ledger.records import knowledge

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


class StatusForm(forms.Form):
    """A status change of a decision record (the verbs and the successor are checked by the service:
    a refusal names what is wrong)."""

    verb = forms.CharField(required=False, strip=False)
    successor = forms.CharField(required=False, strip=False)
    note = forms.CharField(required=False, strip=True)
    loaded_sha256 = forms.CharField(widget=forms.HiddenInput, required=False, strip=False)


class RuleForm(forms.Form):
    """A person's ruling on one question: one of its options, or an option of their own, and why."""

    key = forms.RegexField(regex=r"^R\d{1,3}$", widget=forms.HiddenInput)
    option = forms.CharField(required=False, max_length=300)
    written = forms.CharField(required=False, max_length=300, strip=True, label="or write an option")
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), max_length=2000, strip=True)
    loaded_sha256 = forms.CharField(widget=forms.HiddenInput, required=False)

    def clean(self):
        data = super().clean()
        option, written = data.get("option", ""), data.get("written", "")
        if bool(option) == bool(written):
            raise forms.ValidationError("Choose one of the options, or write one — not both, not neither.")
        data["chosen"] = written or option
        return data


class ResolveForm(forms.Form):
    """A fork closed as resolved by one of the record's rulings."""

    key = forms.RegexField(regex=r"^F\d{1,3}$", widget=forms.HiddenInput)
    ruling = forms.RegexField(regex=r"^R\d{1,3}$", label="resolved by")
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), max_length=2000, strip=True)
    loaded_sha256 = forms.CharField(widget=forms.HiddenInput, required=False)


class MemoryPromoteForm(forms.Form):
    evidence = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}),
        strip=True,
        help_text="What shows this memory is true: a commit, a test, a decision. Required.",
    )
    klass = forms.ChoiceField(choices=CLASS_CHOICES, label="Class", initial="memory")

    def clean_evidence(self) -> str:
        evidence = self.cleaned_data["evidence"]
        if knowledge.transcript_like(evidence):
            raise forms.ValidationError("This reads like a transcript; state the evidence in your own words.")
        return evidence


class MemoryWrongForm(forms.Form):
    note = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}),
        strip=True,
        help_text="What is wrong with it. Recorded here; the memory file is not changed.",
    )
