package main

import (
	"fmt"

	"github.com/dragoman-dev/dragoman/format"
)

// familyTemplateRow is one line of `inspect --response-template --family all`.
type familyTemplateRow struct {
	Family           string `json:"family"`
	ResponseTemplate bool   `json:"response_template"`
	Reason           string `json:"reason,omitempty"`
}

// inspectResponseTemplate prints Dragoman's response template for a family:
// the one named by family ("all" lists every family with whether it has one,
// and why not), or the family of the model's or file's chat template. A
// family the spec cannot express is an error (status 1) that says why, so
// that stdout only ever holds a template that loads.
func inspectResponseTemplate(tmplPath, modelPath, family string, e *env, fail func(int, string, ...any) int) int {
	if family == "all" {
		if tmplPath != "" || modelPath != "" {
			return fail(2, "--family all lists the families: give no --model or --template")
		}
		return printFamilyTemplates(e, fail)
	}
	fam, err := familyOf(tmplPath, modelPath, family)
	if err != nil {
		return fail(1, "%v", err)
	}
	if fam.ResponseTemplate == nil {
		return fail(1, "family %s: the response-template spec cannot express it: %s", fam.ID, fam.NoResponseTemplate)
	}
	data, err := fam.ResponseTemplate().JSON()
	if err != nil {
		return fail(1, "%v", err)
	}
	if _, err := e.stdout.Write(data); err != nil {
		return fail(1, "%v", err)
	}
	return 0
}

// familyOf finds the family by name, or the one that claims the chat
// template of the model or file (the copy requests are rendered with).
func familyOf(tmplPath, modelPath, name string) (*format.Family, error) {
	if name != "" {
		if tmplPath != "" || modelPath != "" {
			return nil, fmt.Errorf("give --family, or --model / --template, not both")
		}
		fam, ok := format.Lookup(name)
		if !ok {
			return nil, fmt.Errorf("unknown family %q (--family all lists them)", name)
		}
		return fam, nil
	}
	if (tmplPath == "") == (modelPath == "") {
		return nil, fmt.Errorf("give --model PATH, --template FILE or --family NAME")
	}
	src, err := findSource(tmplPath, modelPath)
	if err != nil {
		return nil, err
	}
	used, err := src.Select("", true)
	if err != nil {
		return nil, err
	}
	fam, found := format.Detect(used.Text)
	if !found {
		return nil, fmt.Errorf("%s: no family claims this chat template, so Dragoman has no response template for it", used.Location)
	}
	return fam, nil
}

func printFamilyTemplates(e *env, fail func(int, string, ...any) int) int {
	var rows []familyTemplateRow
	for _, f := range format.Families() {
		rows = append(rows, familyTemplateRow{Family: f.ID, ResponseTemplate: f.ResponseTemplate != nil, Reason: f.NoResponseTemplate})
	}
	if err := printJSON(e, rows); err != nil {
		return fail(1, "%v", err)
	}
	return 0
}
