package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/bench"
	"github.com/dragoman-dev/dragoman/chat"
)

// benchReportRun is a run made by hand, with numbers worked out apart: 20
// items in categories x and y. Side A passes all of x and 9 of y (y9 is the
// model's failure); side B passes x0 and x1 (x2–x7 are calls left in the
// text, parser failures; x8, x9 the model's) and all of y. Each answer has a
// trace line whose prompt names the side and item; x3's prompt holds markup
// that must stay text.
func benchReportRun(t *testing.T, dir string) (*bench.Summary, []bench.Item, []bench.Side, []bench.Record) {
	sides := []bench.Side{{Spec: "ollama=127.0.0.1:11434#qwen3@own"}, {Spec: "ollama=127.0.0.1:11434#qwen3@relay"}}
	var items []bench.Item
	var recs []bench.Record
	var traces strings.Builder
	for _, cat := range []string{"x", "y"} {
		for i := range 10 {
			id := fmt.Sprintf("%s%d", cat, i)
			items = append(items, bench.Item{ID: id, Category: cat})
			for si, sd := range sides {
				r := bench.Record{Side: sd.Spec, Item: id, Category: cat, Pass: true,
					Completion: "<tool_call>{\"name\": \"get_weather\"}</tool_call>",
					Calls:      []chat.ToolCall{{Type: "function", Function: chat.FunctionCall{Name: "get_weather", Arguments: `{"city": "Paris"}`}}}}
				switch {
				case si == 0 && id == "y9":
					r.Pass, r.Attribution, r.Why, r.Kind = false, bench.CauseModel, "the raw completion itself is wrong", "value_error:string"
				case si == 1 && cat == "x" && i >= 2 && i < 8:
					r.Pass, r.Attribution, r.Why, r.Calls = false, bench.CauseParser, "a call is left in the content", nil
					r.Completion, r.Content = `I would call get_weather(city="Paris") now.<|im_end|>`, `I would call get_weather(city="Paris") now.`
				case si == 1 && cat == "x" && i >= 8:
					r.Pass, r.Attribution, r.Why = false, bench.CauseModel, "the raw completion itself is wrong"
				}
				recs = append(recs, r)
				prompt := fmt.Sprintf("<|im_start|>user\nprompt of %s on side %d<|im_end|>", id, si)
				if id == "x3" {
					prompt += `<script>document.title = "injected"</script><img src="http://127.0.0.1:9/x.png">`
				}
				line, _ := json.Marshal(map[string]any{"side": sd.Spec, "item": id, "trace": map[string]any{"prompt": prompt, "mode": "own"}})
				traces.Write(append(line, '\n'))
			}
		}
	}
	if err := os.WriteFile(filepath.Join(dir, bench.TracesFile), []byte(traces.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return bench.Summarize(items, sides, recs, 1), items, sides, recs
}

// The HTML report in a real headless Chromium, read as a user reads it:
// the accuracy table's numbers and bars, the failures by cause, the pair's
// test, and a link from the list of a side's parser failures that lands on
// that item's answer, its raw completion there. The page loads nothing
// from anywhere and runs no script, the one a prompt held included.
func TestBenchReportInChromium(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()
	sum, items, sides, recs := benchReportRun(t, dir)
	if err := bench.WriteReport(dir, sum, items, sides, recs); err != nil {
		t.Fatal(err)
	}
	b := startBrowser(t, bin)
	page := "file://" + filepath.Join(dir, bench.ReportFile)
	b.open(page)
	var out struct{ Result struct{ Value string } }
	b.call("Runtime.evaluate", map[string]any{"returnByValue": true, "expression": `JSON.stringify((() => {
		const cells = (sel) => [...document.querySelectorAll(sel + " tr")].map(tr => [...tr.children].map(c => c.innerText.trim()));
		const bars = [...document.querySelectorAll("#accuracy-table rect.bar")].map(r => r.getBoundingClientRect().width);
		return {accuracy: cells("#accuracy-table"), causes: cells("#causes-table"), pair: cells(".pair-table"),
			verdicts: [...document.querySelectorAll("li.verdict")].map(v => v.innerText),
			bars: bars, resources: performance.getEntriesByType("resource").length, scripts: document.scripts.length,
			title: document.title, imgs: document.images.length};
	})())`}, &out)
	var got struct {
		Accuracy, Causes, Pair [][]string
		Verdicts               []string
		Bars                   []float64
		Resources, Scripts     int
		Imgs                   int
		Title                  string
	}
	if err := json.Unmarshal([]byte(out.Result.Value), &got); err != nil {
		t.Fatalf("%v: %q", err, out.Result.Value)
	}
	// Wilson intervals computed with python3's math module: 19/20 [76.4, 99.1],
	// 12/20 [38.7, 78.1], 10/10 [72.2, 100], 2/10 [5.7, 51.0], 9/10 [59.6, 98.2].
	wantAcc := [][]string{
		{"all", "19/20 95.0% [76.4%, 99.1%]", "12/20 60.0% [38.7%, 78.1%]"},
		{"x", "10/10 100.0% [72.2%, 100.0%]", "2/10 20.0% [5.7%, 51.0%]"},
		{"y", "9/10 90.0% [59.6%, 98.2%]", "10/10 100.0% [72.2%, 100.0%]"},
	}
	if len(got.Accuracy) != 4 {
		t.Fatalf("the accuracy table has %d rows: %q", len(got.Accuracy), got.Accuracy)
	}
	for i, row := range wantAcc {
		if strings.Join(got.Accuracy[i+1], " | ") != strings.Join(row, " | ") {
			t.Errorf("accuracy row %d: %q, want %q", i, got.Accuracy[i+1], row)
		}
	}
	// The bars at 160 px for 100%: all 95% and 60%, x 100% and 20%, y 90% and 100%.
	wantBars := []float64{152, 96, 160, 32, 144, 160}
	for i, w := range wantBars {
		if i >= len(got.Bars) || got.Bars[i] < w-0.5 || got.Bars[i] > w+0.5 {
			t.Errorf("accuracy bars %v px, want %v", got.Bars, wantBars)
			break
		}
	}
	// The causes table: side, category, failed, then template, parser,
	// constraint, truncation, transport, model.
	wantCauses := map[string]string{
		"ollama=127.0.0.1:11434#qwen3@relay | all": "8 | 0 | 6 | 0 | 0 | 0 | 2",
		"ollama=127.0.0.1:11434#qwen3@relay | x":   "8 | 0 | 6 | 0 | 0 | 0 | 2",
		"ollama=127.0.0.1:11434#qwen3@own | y":     "1 | 0 | 0 | 0 | 0 | 0 | 1",
		"ollama=127.0.0.1:11434#qwen3@relay | y":   "0 | 0 | 0 | 0 | 0 | 0 | 0",
	}
	found := 0
	for _, row := range got.Causes[1:] {
		if want, ok := wantCauses[strings.Join(row[:2], " | ")]; ok {
			found++
			if strings.Join(row[2:], " | ") != want {
				t.Errorf("causes %q, want %s", row, want)
			}
		}
	}
	if found != len(wantCauses) || strings.Join(got.Causes[0], " ") != "side category failed template parser constraint truncation transport model" {
		t.Errorf("the causes table: %q", got.Causes)
	}
	// The pair: overall b = 8 (x2–x9), c = 1 (y9), McNemar 2·(1+9)/2⁹ =
	// 0.039; x: b = 8, c = 0, 2·2⁻⁸ = 0.0078.
	if len(got.Pair) != 4 || strings.Join(got.Pair[1][:4], " ") != "all 20 8 1" || got.Pair[1][4] != "35.0" || got.Pair[1][6] != "0.04" ||
		strings.Join(got.Pair[2][:5], " ") != "x 10 8 0 80.0" || got.Pair[2][6] != "0.008" {
		t.Errorf("the pair's table: %q", got.Pair)
	}
	if len(got.Verdicts) != 1 || !strings.HasSuffix(got.Verdicts[0], "p = 0.04; 6 of the 8 items it wins were parser failures on ollama=127.0.0.1:11434#qwen3@relay (2 model)") {
		t.Errorf("verdicts %q", got.Verdicts)
	}
	if got.Resources != 0 || got.Scripts != 0 || got.Imgs != 0 || got.Title == "injected" {
		t.Errorf("the page loaded %d resources, has %d scripts and %d images, title %q: it must need nothing and run nothing", got.Resources, got.Scripts, got.Imgs, got.Title)
	}

	// A user follows the first link of the relay side's parser failures.
	var click struct{ Result struct{ Value string } }
	b.call("Runtime.evaluate", map[string]any{"returnByValue": true, "expression": `JSON.stringify((() => {
		const list = [...document.querySelectorAll("p.failures")].find(p => p.innerText.includes("@relay") && p.innerText.includes("parser"));
		const a = list.querySelector("a");
		a.click();
		const target = document.querySelector(":target");
		const box = target.getBoundingClientRect();
		return {link: a.innerText, hash: location.hash, id: target.id, top: box.top, inView: box.top >= -1 && box.top < innerHeight,
			raw: target.querySelector("pre.raw").textContent, prompt: target.querySelector("pre.prompt").textContent,
			calls: target.querySelector("pre.calls").textContent, content: target.querySelector("pre.content").textContent, side: target.querySelector("code").innerText,
			item: target.closest(".item").querySelector("h3").innerText, siblings: target.parentElement.children.length};
	})())`}, &click)
	var c struct {
		Link, Hash, ID, Raw, Prompt, Calls, Content, Side, Item string
		InView                                                  bool
		Siblings                                                int
	}
	if err := json.Unmarshal([]byte(click.Result.Value), &c); err != nil {
		t.Fatalf("%v: %q", err, click.Result.Value)
	}
	if c.Link != "x2" || c.Hash != "#"+c.ID || !c.InView || c.Side != sides[1].Spec || !strings.HasPrefix(c.Item, "x2") ||
		c.Raw != `I would call get_weather(city="Paris") now.<|im_end|>` || c.Content != `I would call get_weather(city="Paris") now.` || !strings.Contains(c.Prompt, "prompt of x2 on side 1") || c.Calls != "" || c.Siblings != 2 {
		t.Errorf("after following the link: %+v", c)
	}
	if dir := os.Getenv("DRAGOMAN_ARTIFACTS"); dir != "" {
		b.screenshot(filepath.Join(dir, "bench-report.png"))
	}
}
