package jinja

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sharedDir is ../shared beside the repository, or $DRAGOMAN_SHARED.
func sharedDir(t testing.TB) string {
	if d := os.Getenv("DRAGOMAN_SHARED"); d != "" {
		return d
	}
	d, _ := filepath.Abs("../../shared")
	if _, err := os.Stat(d); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("shared corpus missing at %s (set DRAGOMAN_SHARED)", d)
		}
		t.Skipf("shared corpus missing at %s", d)
	}
	return d
}

type corpusCase struct {
	name, template, scenario string
	vars                     map[string]Value
	want                     string
	wantErr                  bool
}

func loadCorpus(t testing.TB) []corpusCase {
	root := filepath.Join(sharedDir(t), "corpus")
	var tokens map[string]map[string]any
	data, err := os.ReadFile(filepath.Join(root, "templates", "tokens.json"))
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(data, &tokens)
	scenarios, _ := filepath.Glob(filepath.Join(root, "scenarios", "*.json"))
	templates, _ := filepath.Glob(filepath.Join(root, "templates", "*.jinja"))
	var cases []corpusCase
	for _, tp := range templates {
		src, _ := os.ReadFile(tp)
		tname := filepath.Base(tp)
		for _, sp := range scenarios {
			sdata, _ := os.ReadFile(sp)
			sv, err := FromJSON(sdata)
			if err != nil {
				t.Fatal(err)
			}
			sd := sv.(*Dict)
			vars := map[string]Value{}
			for _, k := range []string{"messages", "tools", "documents"} {
				v, _ := sd.GetStr(k)
				vars[k] = v
			}
			agp, _ := sd.GetStr("add_generation_prompt")
			vars["add_generation_prompt"] = truthy(agp)
			for _, k := range []string{"bos_token", "eos_token"} {
				if s, ok := tokens[tname][k].(string); ok {
					vars[k] = s
				}
			}
			if kw, ok := sd.GetStr("kwargs"); ok && kw != nil {
				d := kw.(*Dict)
				for i, k := range d.Keys() {
					vars[k.(string)] = d.Values()[i]
				}
			}
			sname := strings.TrimSuffix(filepath.Base(sp), ".json")
			base := filepath.Join(root, "golden", strings.TrimSuffix(tname, ".jinja")+"__"+sname)
			c := corpusCase{name: strings.TrimSuffix(tname, ".jinja") + "__" + sname, template: string(src), scenario: sname, vars: vars}
			if want, err := os.ReadFile(base + ".txt"); err == nil {
				c.want = string(want)
			} else if _, err := os.Stat(base + ".err"); err == nil {
				c.wantErr = true
			} else {
				continue
			}
			cases = append(cases, c)
		}
	}
	return cases
}

var corpusNow = func() time.Time { return time.Date(2026, 1, 15, 12, 0, 0, 0, time.Local) }

func TestCorpusDev(t *testing.T) {
	pass := 0
	cases := loadCorpus(t)
	for _, c := range cases {
		tpl, err := Compile(c.template)
		if err != nil {
			t.Errorf("%s: compile: %v", c.name, err)
			continue
		}
		got, err := tpl.Render(c.vars, &Options{Now: corpusNow})
		switch {
		case c.wantErr && err == nil:
			t.Errorf("%s: want error, got output", c.name)
		case !c.wantErr && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case !c.wantErr && got != c.want:
			i := 0
			for i < len(got) && i < len(c.want) && got[i] == c.want[i] {
				i++
			}
			lo := max(0, i-60)
			t.Errorf("%s: differs at %d:\n got: %q\nwant: %q", c.name, i, got[lo:min(len(got), i+60)], c.want[lo:min(len(c.want), i+60)])
		default:
			pass++
		}
	}
	t.Logf("%d/%d pass", pass, len(cases))
}
