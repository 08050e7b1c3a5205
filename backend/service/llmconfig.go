package service

import (
	"strings"
	"time"

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
	return llm.Config{BaseURL: strings.TrimSpace(l.BaseURL), Model: strings.TrimSpace(l.Model), APIKey: l.APIKey, Timeout: timeout, TotalTimeout: max(total, timeout)}
}
