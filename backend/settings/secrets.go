package settings

import (
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/weft-dev/weft/backend/redact"
)

// Secrets lists the values Weft must keep out of everything it shows and
// writes (run logs, the terminal, the UI, error messages) and out of the
// environment of the processes it starts: the model's API key and the
// secrets of every MCP server's env (MCPServer.Secrets). Build a redactor
// from them with redact.New(s.Secrets()...).
func (s Settings) Secrets() []string {
	var out []string
	if s.LLM.APIKey != "" {
		out = append(out, s.LLM.APIKey)
	}
	names := make([]string, 0, len(s.MCPServers))
	for n := range s.MCPServers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		out = append(out, s.MCPServers[n].Secrets()...)
	}
	return out
}

// Secrets lists the values of the server's env that are treated as
// secrets: every value, except plain settings that cannot be credentials
// and whose redaction would only garble output — numbers, true/false and
// similar words (production, debug, localhost), and absolute file paths
// (a HOME or a PATH) — unless the variable's name says it holds a
// credential (redact.SensitiveName: *_TOKEN, *_KEY, *PASSWORD, …). Numbers
// and booleans are never secrets. Values too short to redact safely are
// dropped later, by the redactor.
func (m MCPServer) Secrets() []string {
	keys := make([]string, 0, len(m.Env))
	for k := range m.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		v := strings.TrimSpace(m.Env[k])
		if v == "" || scalar(v) {
			continue
		}
		if redact.SensitiveName(k) || !plainSetting(v) {
			out = append(out, v)
		}
	}
	return out
}

// plainWords are env values that configure rather than authenticate.
var plainWords = map[string]bool{
	"production": true, "development": true, "staging": true, "test": true, "testing": true,
	"debug": true, "info": true, "warn": true, "warning": true, "error": true, "trace": true,
	"verbose": true, "silent": true, "localhost": true, "enabled": true, "disabled": true,
	"none": true, "null": true, "default": true, "headless": true, "headed": true,
}

func scalar(v string) bool {
	if _, err := strconv.ParseFloat(v, 64); err == nil {
		return true
	}
	switch strings.ToLower(v) {
	case "true", "false", "yes", "no", "on", "off":
		return true
	}
	return false
}

func plainSetting(v string) bool {
	if plainWords[strings.ToLower(v)] {
		return true
	}
	for _, p := range strings.Split(v, string(os.PathListSeparator)) {
		if !absPath(p) {
			return false
		}
	}
	return true
}

// absPath: an absolute path without spaces, the shape of HOME, PATH
// entries and config locations.
func absPath(p string) bool {
	if p == "" || strings.ContainsAny(p, " \t\n=?&@") {
		return false
	}
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~/") {
		return true
	}
	return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') // C:\…
}
