package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/weft-dev/weft/backend/atomicfile"
)

// Layer 0 of making model output reliable: ask for the shape where the
// server can enforce it. A call may carry a JSON Schema (Options.Schema);
// the client sends it as response_format json_schema (strict), or as
// json_object, or not at all, by the structured_output setting. In "auto"
// a server that rejects the field is asked again without it once (json_
// schema → json_object → nothing), and what it accepts is remembered per
// base URL and model, so later calls skip the failed form. Every later
// layer (extraction, repair, validation, re-asking) stays: servers that
// accept the field without enforcing it are common.

// Structured output modes (settings llm.structured_output).
const (
	FormatAuto       = "auto"
	FormatJSONSchema = "json_schema"
	FormatJSONObject = "json_object"
	FormatOff        = "off"
)

// FormatModes lists the valid modes.
var FormatModes = []string{FormatAuto, FormatJSONSchema, FormatJSONObject, FormatOff}

// Schema is the shape a reply must have.
type Schema struct {
	// Name identifies it to the server (a-z, 0-9, _ and -).
	Name string
	// JSON is the JSON Schema.
	JSON json.RawMessage
}

// FormatMemory remembers, per endpoint and model, the most a server
// accepted ("json_object", "off"); "" when nothing is known.
type FormatMemory interface {
	Get(key string) string
	Set(key, mode string) error
}

// FileFormatMemory keeps FormatMemory in a JSON file (Weft's XDG state).
type FileFormatMemory struct {
	Path string
	mu   sync.Mutex
}

const maxFormatMemory = 1 << 20

// Get returns what is remembered for key.
func (m *FileFormatMemory) Get(key string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.load()[key]
}

// Set remembers mode for key.
func (m *FileFormatMemory) Set(key, mode string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	all := m.load()
	if all[key] == mode {
		return nil
	}
	all[key] = mode
	b, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(m.Path), 0o700); err != nil {
		return fmt.Errorf("remember structured output support: %w", err)
	}
	return atomicfile.WriteFile(m.Path, append(b, '\n'), 0o600)
}

// load reads the file; anything unreadable reads as nothing known (the
// next call finds out again).
func (m *FileFormatMemory) load() map[string]string {
	out := map[string]string{}
	b, err := atomicfile.ReadBounded(m.Path, maxFormatMemory)
	if err != nil {
		return out
	}
	_ = json.Unmarshal(b, &out)
	for k, v := range out {
		if v != FormatJSONObject && v != FormatOff {
			delete(out, k)
		}
	}
	return out
}

func formatKey(endpoint, model string) string { return endpoint + " " + model }

// effectiveFormat is what a call with a schema sends, given the setting
// and what the server is remembered to accept.
func (c *OpenAI) effectiveFormat() string {
	mode := c.format
	if mode == "" {
		mode = FormatAuto
	}
	if mode != FormatAuto {
		return mode
	}
	if c.formatMem != nil {
		if m := c.formatMem.Get(formatKey(c.endpoint, c.model)); m != "" {
			return m
		}
	}
	if m, ok := c.formatLearned.Load().(string); ok && m != "" {
		return m
	}
	return FormatJSONSchema
}

// downgrade is the next form to try after the server refused one.
func downgrade(mode string) string {
	if mode == FormatJSONSchema {
		return FormatJSONObject
	}
	return FormatOff
}

// refusesFormat reports whether an error body says the server does not
// take response_format (or its json_schema).
func refusesFormat(body []byte) bool {
	b := strings.ToLower(string(body))
	return strings.Contains(b, "response_format") || strings.Contains(b, "json_schema") || strings.Contains(b, "response format") || strings.Contains(b, "structured output")
}

// ValidFormat checks a setting value.
func ValidFormat(mode string) error {
	for _, m := range FormatModes {
		if mode == m {
			return nil
		}
	}
	return errors.New("structured_output must be one of auto, json_schema, json_object, off")
}
