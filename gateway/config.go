package gateway

import (
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// Config is the gateway's whole configuration. The zero value is usable:
// listen on 127.0.0.1:4000, discover runtimes on their default local ports,
// no client key. A config file holds the same fields as JSON.
type Config struct {
	// Listen is the address to serve on; default 127.0.0.1:4000. Listening
	// beyond loopback is the user's explicit choice.
	Listen string `json:"listen,omitempty"`
	// APIKey, when set, is required from clients as "Authorization: Bearer
	// KEY" or "x-api-key: KEY".
	APIKey string `json:"api_key,omitempty"`
	// Upstreams are explicit runtimes; they come before discovered ones.
	Upstreams []Upstream `json:"upstreams,omitempty"`
	// NoDiscover turns off probing the default local ports.
	NoDiscover bool `json:"no_discover,omitempty"`
	// Aliases map a client-facing model name to an upstream model name.
	Aliases map[string]string `json:"aliases,omitempty"`
	// TraceSize is how many recent requests keep their trace; default 256.
	TraceSize int `json:"trace_size,omitempty"`
	// ModelsTTL is how long the runtimes found and their model lists are
	// trusted; default 10s. Older ones are still served while they are
	// refreshed in the background.
	ModelsTTL Duration `json:"models_ttl,omitempty"`
	// Now pins the clock templates see (strftime_now), as an ISO-8601 time;
	// empty means the real clock. For reproducible prompts in tests.
	Now string `json:"now,omitempty"`
}

// Upstream is one runtime the gateway may send requests to.
type Upstream struct {
	// Name identifies it in traces and metrics; default: its kind and address.
	Name string `json:"name,omitempty"`
	// URL is its base address, e.g. http://127.0.0.1:11434.
	URL string `json:"url"`
	// Kind is the runtime (ollama, llama-server, lmstudio, vllm, sglang,
	// mlx-lm, openai); empty means recognise it by probing.
	Kind string `json:"kind,omitempty"`
	// APIKey is sent to this upstream only; empty sends no Authorization.
	APIKey string `json:"api_key,omitempty"`
	// Mode is "own" (render, constrain and parse here; the default where the
	// runtime takes raw prompts and the model's template is known) or
	// "relay" (the runtime's own chat API, with its answers repaired).
	Mode string `json:"mode,omitempty"`
	// NoTools: never send tools to this upstream (for runtimes that reject
	// them); calls are then neither offered nor parsed.
	NoTools bool `json:"no_tools,omitempty"`
	// Templates maps a model name to a chat template file, HF folder or GGUF,
	// for runtimes that do not expose the template.
	Templates map[string]string `json:"templates,omitempty"`
}

// Duration is a time.Duration that reads "10s" in JSON.
type Duration time.Duration

// UnmarshalJSON reads a Go duration string or a number of seconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := time.ParseDuration(s)
		if err != nil {
			return err
		}
		*d = Duration(v)
		return nil
	}
	var secs float64
	if err := json.Unmarshal(b, &secs); err != nil {
		return fmt.Errorf("duration: want a string such as \"10s\" or seconds: %s", b)
	}
	*d = Duration(secs * float64(time.Second))
	return nil
}

// LoadConfig reads a JSON config file; unknown fields are an error, so that a
// typo does not silently do nothing.
func LoadConfig(path string) (Config, error) {
	var c Config
	f, err := os.Open(path)
	if err != nil {
		return c, err
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

func (c Config) withDefaults() Config {
	if c.Listen == "" {
		c.Listen = "127.0.0.1:4000"
	}
	if c.TraceSize == 0 {
		c.TraceSize = 256
	}
	if c.ModelsTTL == 0 {
		c.ModelsTTL = Duration(10 * time.Second)
	}
	return c
}
