// Command sidebyside measures two OpenAI-compatible servers serving the
// same model, one after the other in one run, with the same requests:
// streamed /v1/chat/completions, greedy. scripts/perf-embedded.sh runs it
// on dragoman serve -model and on llama-server. For each server it prints
// tokens/s of one stream, the time to the first token of a long
// conversation sent cold and of the same conversation resent with one more
// turn (an agent's next turn: the prefix is in the server's cache), and
// the throughput and median time to first token of 1, 4, 16 and 64
// concurrent streams.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

// client opens a connection per request, for both servers alike (a kept-alive
// one that llama-server has closed fails the next request with EOF).
var client = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

type result struct {
	ttft   time.Duration
	total  time.Duration
	tokens int
	prompt int // prompt tokens, as the server counted them
	text   string
}

// ask streams one chat completion and times it.
func ask(base, model string, msgs []map[string]string, maxTokens int) (result, error) {
	body, _ := json.Marshal(map[string]any{"model": model, "messages": msgs, "max_tokens": maxTokens, "temperature": 0,
		"stream": true, "stream_options": map[string]any{"include_usage": true}})
	start := time.Now()
	resp, err := client.Post(base+"/v1/chat/completions", "application/json", bytes.NewReader(body))
	if err != nil {
		return result{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		return result{}, fmt.Errorf("status %d: %s", resp.StatusCode, b.String())
	}
	var r result
	var text strings.Builder
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || line == "[DONE]" {
			continue
		}
		var ev struct {
			Choices []struct {
				Delta struct {
					Content          string `json:"content"`
					ReasoningContent string `json:"reasoning_content"`
				} `json:"delta"`
			} `json:"choices"`
			Usage *struct {
				CompletionTokens int `json:"completion_tokens"`
				PromptTokens     int `json:"prompt_tokens"`
			} `json:"usage"`
		}
		if json.Unmarshal([]byte(line), &ev) != nil {
			continue
		}
		for _, c := range ev.Choices {
			if t := c.Delta.Content + c.Delta.ReasoningContent; t != "" {
				if r.ttft == 0 {
					r.ttft = time.Since(start)
				}
				text.WriteString(t)
			}
		}
		if ev.Usage != nil {
			r.tokens, r.prompt = ev.Usage.CompletionTokens, ev.Usage.PromptTokens
		}
	}
	r.total, r.text = time.Since(start), text.String()
	return r, sc.Err()
}

func user(s string) map[string]string { return map[string]string{"role": "user", "content": s} }

func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d.Microseconds())/1000) }

func main() {
	name := flag.String("name", "", "the server's name in the output")
	base := flag.String("url", "", "the server's base URL")
	model := flag.String("model", "", "the model's name")
	longWords := flag.Int("long", 1500, "words in the long conversation's first message (about a token each)")
	runs := flag.Int("runs", 3, "runs of each measure")
	first := flag.Int("first", 0, "the number of the first run: each run's prompts are its own, so calls with other -first values find nothing of theirs in a cache")
	flag.Parse()
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "sidebyside:", *name, err)
		os.Exit(1)
	}
	// Warm up: the first decode of each batch shape builds its graph.
	if _, err := ask(*base, *model, one(user("Hello there")), 8); err != nil {
		fail(err)
	}
	// One stream's rate: 128 tokens after a short prompt.
	var rates []float64
	for range *runs {
		r, err := ask(*base, *model, one(user("Write a long story about the sea.")), 128) // the same prompt each time: its rate is the measure
		if err != nil {
			fail(err)
		}
		if gen := r.total - r.ttft; r.tokens > 1 && gen > 0 {
			rates = append(rates, float64(r.tokens-1)/gen.Seconds())
		}
	}
	slices.Sort(rates)
	fmt.Printf("%s\tone stream\ttokens/s %.0f–%.0f\n", *name, rates[0], rates[len(rates)-1])
	// Cold and resent: a conversation of about -long tokens, then the same
	// with the answer and one more message.
	var cold, resent []time.Duration
	promptTokens := 0
	for i := *first; i < *first+*runs; i++ {
		words := make([]string, *longWords)
		for j := range words {
			words[j] = vocabulary[(j*7+i*13)%len(vocabulary)] // each run its own text: no cache across runs
		}
		first := []map[string]string{user(strings.Join(words, " "))}
		r, err := ask(*base, *model, first, 8)
		if err != nil {
			fail(err)
		}
		cold = append(cold, r.ttft)
		promptTokens = r.prompt
		next := append(first, map[string]string{"role": "assistant", "content": r.text}, user("And then?"))
		r2, err := ask(*base, *model, next, 8)
		if err != nil {
			fail(err)
		}
		resent = append(resent, r2.ttft)
	}
	slices.Sort(cold)
	slices.Sort(resent)
	fmt.Printf("%s\tlong prompt (%d tokens)\tcold ttft %s–%s ms\tresent turn ttft %s–%s ms\n", *name, promptTokens, ms(cold[0]), ms(cold[len(cold)-1]), ms(resent[0]), ms(resent[len(resent)-1]))
	// Concurrent streams: n requests at once, each its own short prompt, 16
	// tokens.
	for _, n := range []int{1, 4, 16, 64} {
		var tps []float64
		var ttfts []time.Duration
		for run := *first; run < *first+*runs; run++ {
			res := make([]result, n)
			errs := make([]error, n)
			var wg sync.WaitGroup
			start := time.Now()
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					res[i], errs[i] = ask(*base, *model, one(user(fmt.Sprintf("Question %d of run %d: what is the weather?", i, run))), 16)
				}()
			}
			wg.Wait()
			wall := time.Since(start)
			tokens := 0
			var ft []time.Duration
			for i := range res {
				if errs[i] != nil {
					fail(errs[i])
				}
				tokens += res[i].tokens
				ft = append(ft, res[i].ttft)
			}
			tps = append(tps, float64(tokens)/wall.Seconds())
			ttfts = append(ttfts, median(ft))
		}
		slices.Sort(tps)
		slices.Sort(ttfts)
		fmt.Printf("%s\t%d streams\ttokens/s %.0f–%.0f\tmedian ttft %s–%s ms\n", *name, n, tps[0], tps[len(tps)-1], ms(ttfts[0]), ms(ttfts[len(ttfts)-1]))
	}
}

// one is a message list of one message.
func one(m map[string]string) []map[string]string { return []map[string]string{m} }

// vocabulary are common words, each one token in most vocabularies.
var vocabulary = strings.Fields(`the of and to in is was for that on with as by at from his an were are which this be or
had not but first one their its new after who they have her she two been other when there all during into school time
may years more most only over city some world would where later up such used many can state about national out known
university united then made team than year between people three these part so history under well while film since him`)
