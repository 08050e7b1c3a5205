package service

import (
	"strings"
	"time"

	"github.com/weft-dev/weft/backend/appdirs"
	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/settings"
)

// LLMConfig is the model client's configuration from the settings, for
// the desktop app and the command line alike.
func LLMConfig(l settings.LLM) llm.Config {
	timeout := time.Duration(l.TimeoutS) * time.Second
	if timeout <= 0 {
		timeout = settings.DefaultTimeoutS * time.Second
	}
	total := time.Duration(l.TotalTimeoutS) * time.Second
	if total <= 0 {
		total = settings.DefaultTotalTimeoutS * time.Second
	}
	return llm.Config{BaseURL: strings.TrimSpace(l.BaseURL), Model: strings.TrimSpace(l.Model), APIKey: l.APIKey, Timeout: timeout,
		TotalTimeout: max(total, timeout), StructuredOutput: l.StructuredOutput}
}

// FormatMemory is where Weft remembers which structured output form each
// model server accepts ($XDG_STATE_HOME/weft/structured_output.json); nil
// when there is no state folder (every call then finds out again).
func FormatMemory() llm.FormatMemory {
	p, err := appdirs.StateFile("structured_output.json")
	if err != nil {
		return nil
	}
	return &llm.FileFormatMemory{Path: p}
}
