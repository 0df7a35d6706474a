package llamacpp

import (
	"fmt"
	"os"
	"strings"
	"sync"
)

// EnvLog names the environment variable that, set to 1, copies llama.cpp's
// own log to stderr. Without it the log is dropped, except that recent
// warnings and errors are kept to explain a failure.
const EnvLog = "DRAGOMAN_LLAMA_LOG"

// ggml_log_level
const (
	logDebug = 1
	logInfo  = 2
	logWarn  = 3
	logError = 4
	logCont  = 5
)

var logs struct {
	sync.Mutex
	verbose  bool
	once     sync.Once
	last     int // level of the last line, for logCont
	problems []string
}

// logLine receives one piece of llama.cpp's log (possibly from one of its
// own threads).
func logLine(level int, text string) {
	logs.once.Do(func() { logs.verbose = os.Getenv(EnvLog) == "1" })
	if logs.verbose {
		fmt.Fprint(os.Stderr, text)
	}
	if level == logInfo {
		countBufferLine(text)
	}
	logs.Lock()
	defer logs.Unlock()
	if level == logCont {
		level = logs.last
		if level >= logWarn && len(logs.problems) > 0 {
			logs.problems[len(logs.problems)-1] += text
			return
		}
	}
	logs.last = level
	if level >= logWarn {
		logs.problems = append(logs.problems, text)
		if len(logs.problems) > 16 {
			logs.problems = logs.problems[len(logs.problems)-16:]
		}
	}
}

// takeProblems returns the warnings and errors logged since the last call,
// joined into one line, and forgets them.
func takeProblems() string {
	logs.Lock()
	defer logs.Unlock()
	var parts []string
	for _, p := range logs.problems {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	logs.problems = nil
	return strings.Join(parts, "; ")
}
