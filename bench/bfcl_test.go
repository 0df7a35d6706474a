package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// stage writes a category's question and answer files into a fresh folder.
func stage(t *testing.T, category, questions, answers string) string {
	t.Helper()
	dir := t.TempDir()
	for sub, text := range map[string]string{"data": questions, "possible_answer": answers} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
		if text == "" {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, sub, "BFCL_v4_"+category+".json"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func question(id, typ string) string {
	return `{"id": "` + id + `", "question": [[{"role": "user", "content": "q"}]], "function": [{"name": "m.f", "description": "d", "parameters": {"type": "dict", "properties": {"x": {"type": "` + typ + `"}}, "required": ["x"]}}]}`
}

func answer(id string) string {
	return `{"id": "` + id + `", "ground_truth": [{"m.f": {"x": [1]}}]}`
}

// TestLoadBFCLCategory: questions and answers are paired line by line with
// equal ids, the last line may lack its newline, and what upstream would
// trip over is refused (FORMAT.md §2, §4.2, §11 step 1).
func TestLoadBFCLCategory(t *testing.T) {
	dir := stage(t, "simple_python", question("simple_python_0", "integer")+"\n"+question("simple_python_1", "integer"),
		answer("simple_python_0")+"\n"+answer("simple_python_1")+"\n")
	items, err := LoadBFCLCategory(dir, "simple_python")
	if err != nil || len(items) != 2 || items[1].ID != "simple_python_1" || items[1].Expected.Calls[0].Name != "m.f" {
		t.Fatalf("%v %+v", err, items)
	}
	for _, c := range []struct {
		name, category, questions, answers, want string
	}{
		{"ids differ", "simple_python", question("simple_python_0", "integer"), answer("simple_python_9"), "against question id"},
		{"an answer missing", "simple_python", question("a_0", "integer") + "\n" + question("a_1", "integer"), answer("a_0"), "2 questions but 1 answers"},
		{"no answer file", "multiple", question("multiple_0", "integer"), "", "no such file"},
		{"unknown type", "simple_python", question("s_0", "Bigint"), answer("s_0"), `unknown type "Bigint"`},
		{"answer naming no function", "live_multiple", question("l_0", "integer"), strings.Replace(answer("l_0"), "m.f", "m.g", 1), "names no offered function"},
	} {
		_, err := LoadBFCLCategory(stage(t, c.category, c.questions, c.answers), c.category)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	// Irrelevance has no answer file and needs none.
	items, err = LoadBFCLCategory(stage(t, "irrelevance", question("irrelevance_0", "string"), ""), "irrelevance")
	if err != nil || len(items) != 1 || items[0].Expected.Mode != ModeNoCall {
		t.Errorf("irrelevance: %v %+v", err, items)
	}
}
