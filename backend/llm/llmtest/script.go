package llmtest

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// Script is a server set-up read from JSON (the fakellm --script file).
// The file is either a list of steps or an object:
//
//	{
//	  "steps": [
//	    {"status": 429, "retry_after": "1"},
//	    {"text": "{\"nodes\": []}", "usage": {"prompt_tokens": 10, "completion_tokens": 5}},
//	    {"tool_calls": [{"name": "search", "arguments": "{\"q\":\"x\"}"}]},
//	    {"text": "slow", "delay": "200ms"}
//	  ],
//	  "default": {"status": 500, "message": "script exhausted"},
//	  "repeat_last": false,
//	  "echo": false,
//	  "models": ["fake-model"],
//	  "api_key": ""
//	}
type Script struct {
	Steps      []Step   `json:"steps"`
	Default    *Step    `json:"default,omitempty"`
	RepeatLast bool     `json:"repeat_last,omitempty"`
	Echo       bool     `json:"echo,omitempty"`
	Models     []string `json:"models,omitempty"`
	APIKey     string   `json:"api_key,omitempty"`
}

// ParseScript reads a Script from JSON.
func ParseScript(data []byte) (Script, error) {
	b := strings.TrimSpace(string(data))
	var sc Script
	if strings.HasPrefix(b, "[") {
		if err := json.Unmarshal([]byte(b), &sc.Steps); err != nil {
			return sc, fmt.Errorf("llmtest: script: %w", err)
		}
		return sc, nil
	}
	dec := json.NewDecoder(strings.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sc); err != nil {
		return sc, fmt.Errorf("llmtest: script: %w", err)
	}
	return sc, nil
}

// LoadScript reads a Script from a file.
func LoadScript(path string) (Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Script{}, err
	}
	return ParseScript(data)
}

// Options turns the script into server options.
func (sc Script) Options() []Option {
	var opts []Option
	if len(sc.Steps) > 0 {
		opts = append(opts, WithSteps(sc.Steps...))
	}
	if sc.Default != nil {
		opts = append(opts, WithDefault(*sc.Default))
	}
	if sc.RepeatLast {
		opts = append(opts, WithRepeatLast())
	}
	if sc.Echo {
		opts = append(opts, WithEcho())
	}
	if len(sc.Models) > 0 {
		opts = append(opts, WithModels(sc.Models...))
	}
	if sc.APIKey != "" {
		opts = append(opts, WithAPIKey(sc.APIKey))
	}
	return opts
}
