package bench

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/dragoman-dev/dragoman/chat"
)

// BFCLCategories are BFCL v4's single-turn categories, as staged in the
// shared corpus's bench/bfcl (FORMAT.md §1).
var BFCLCategories = []string{
	"simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance",
	"live_simple", "live_multiple", "live_parallel", "live_parallel_multiple",
	"live_irrelevance", "live_relevance",
}

// BFCLMode is how upstream checks a category, decided by its name as
// upstream decides it (FORMAT.md §7.1, §8).
func BFCLMode(category string) Mode {
	switch {
	case strings.Contains(category, "irrelevance"):
		return ModeNoCall
	case strings.Contains(category, "relevance"):
		return ModeAnyCall
	case strings.Contains(category, "parallel"):
		return ModeParallel
	case strings.Contains(category, "multiple"):
		return ModeMultiple
	}
	return ModeSimple
}

// LoadBFCL reads the staged BFCL data in dir (the folder holding data/ and
// possible_answer/): the named categories, or all of BFCLCategories.
func LoadBFCL(dir string, categories ...string) (*Suite, error) {
	if len(categories) == 0 {
		categories = BFCLCategories
	}
	s := &Suite{Name: "bfcl"}
	for _, c := range categories {
		items, err := LoadBFCLCategory(dir, c)
		if err != nil {
			return nil, err
		}
		s.Items = append(s.Items, items...)
	}
	return s, nil
}

// LoadBFCLCategory reads one category's questions and, where the category
// has them, its answers, paired line by line with equal ids (FORMAT.md §2).
func LoadBFCLCategory(dir, category string) ([]Item, error) {
	name := "BFCL_v4_" + category + ".json"
	questions, err := readLines(filepath.Join(dir, "data", name))
	if err != nil {
		return nil, err
	}
	mode := BFCLMode(category)
	var answers [][]byte
	if mode != ModeNoCall && mode != ModeAnyCall {
		if answers, err = readLines(filepath.Join(dir, "possible_answer", name)); err != nil {
			return nil, err
		}
		if len(answers) != len(questions) {
			return nil, fmt.Errorf("%s: %d questions but %d answers", category, len(questions), len(answers))
		}
	}
	items := make([]Item, len(questions))
	for i, line := range questions {
		it := &items[i]
		it.Category = category
		it.Expected.Mode = mode
		if err := readQuestion(line, it); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", name, i+1, err)
		}
		if answers != nil {
			if err := readAnswer(answers[i], it); err != nil {
				return nil, fmt.Errorf("possible_answer/%s line %d: %w", name, i+1, err)
			}
		}
		if err := it.validate(); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", name, i+1, err)
		}
	}
	return items, nil
}

// readLines is a JSON Lines file's lines, the last one with or without its
// newline (most staged files have none); a line may be of any length.
func readLines(path string) ([][]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var lines [][]byte
	for _, line := range bytes.Split(data, []byte("\n")) {
		if line = bytes.TrimRight(line, "\r"); len(bytes.TrimSpace(line)) > 0 {
			lines = append(lines, line)
		}
	}
	return lines, nil
}

// readQuestion reads {"id", "question": [[messages…], …], "function": [docs]}.
func readQuestion(line []byte, it *Item) error {
	rec, err := ParseValue(line)
	if err != nil {
		return err
	}
	id, _ := rec.Get("id")
	if it.ID = id.Str(); it.ID == "" {
		return errors.New("no id")
	}
	turns, _ := rec.Get("question")
	if len(turns.Items()) == 0 || turns.Items()[0].Kind() != KindList {
		return fmt.Errorf("%s: no question turn", it.ID)
	}
	// Single-turn entries have one turn; upstream sends only the first.
	if it.Messages, err = readMessages(turns.Items()[0]); err != nil {
		return fmt.Errorf("%s: %w", it.ID, err)
	}
	docs, _ := rec.Get("function")
	for _, doc := range docs.Items() {
		tool, fn, err := convertDoc(doc, true)
		if err != nil {
			return fmt.Errorf("%s: %w", it.ID, err)
		}
		it.Tools = append(it.Tools, tool)
		it.Functions = append(it.Functions, fn)
	}
	return nil
}

func readMessages(turn Value) ([]chat.Message, error) {
	msgs := make([]chat.Message, 0, len(turn.Items()))
	for _, m := range turn.Items() {
		role, _ := m.Get("role")
		content, _ := m.Get("content")
		if role.Kind() != KindString || content.Kind() != KindString {
			return nil, fmt.Errorf("a message without a role or text content: %s", m)
		}
		msgs = append(msgs, chat.Message{Role: role.Str(), Content: content.Str()})
	}
	return msgs, nil
}

// readAnswer reads {"id", "ground_truth": [{name: {param: [acceptable…]}}, …]}.
func readAnswer(line []byte, it *Item) error {
	rec, err := ParseValue(line)
	if err != nil {
		return err
	}
	if id, _ := rec.Get("id"); id.Str() != it.ID {
		return fmt.Errorf("answer id %s against question id %s", id, it.ID)
	}
	truth, _ := rec.Get("ground_truth")
	for _, call := range truth.Items() {
		c, err := readExpectedCall(call)
		if err != nil {
			return fmt.Errorf("%s: %w", it.ID, err)
		}
		it.Expected.Calls = append(it.Expected.Calls, c)
	}
	return nil
}

// readExpectedCall reads BFCL's one-key call {name: {param: [acceptable…]}}.
func readExpectedCall(call Value) (ExpectedCall, error) {
	if len(call.Members()) != 1 || call.Members()[0].Value.Kind() != KindMap {
		return ExpectedCall{}, fmt.Errorf("an answer call is not {name: {params}}: %s", call)
	}
	m := call.Members()[0]
	return expectedCall(m.Key, m.Value)
}

// expectedCall reads {param: [acceptable…]}; BFCL's answers and user suites
// share it.
func expectedCall(name string, params Value) (ExpectedCall, error) {
	c := ExpectedCall{Name: name}
	for _, p := range params.Members() {
		if p.Value.Kind() != KindList {
			return ExpectedCall{}, fmt.Errorf("call %s: parameter %s's acceptable values are not a list: %s", name, p.Key, p.Value)
		}
		c.Params = append(c.Params, ExpectedParam{Name: p.Key, Acceptable: p.Value.Items()})
	}
	return c, nil
}
