package proc

import (
	"runtime"
	"slices"
	"sort"
	"strings"

	"github.com/weft-dev/weft/backend/redact"
)

// APIKeyEnv is the variable that carries Weft's own model API key.
const APIKeyEnv = "WEFT_LLM_API_KEY"

// Env is the environment for a child process (a run_command shell, an MCP
// server): parent (usually os.Environ()) without Weft's own secrets, plus
// set. Dropped are APIKeyEnv, every other WEFT_* variable whose name says
// it holds a credential (redact.SensitiveName), and any variable whose
// value is one of secrets (the configured API key under another name, an
// MCP server's token exported in the shell). set is what the child is
// configured to have (an MCP server's env): it is added last and wins over
// the parent, so a child still gets a secret it is configured with.
func Env(parent, secrets []string, set map[string]string) []string {
	out := make([]string, 0, len(parent)+len(set))
	for _, kv := range parent {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue // "=C:=C:\\" style entries on Windows and junk
		}
		if ownSecret(k) || (v != "" && slices.Contains(secrets, v)) || (strings.TrimSpace(v) != "" && slices.Contains(secrets, strings.TrimSpace(v))) {
			continue
		}
		if _, override := lookup(set, k); override {
			continue
		}
		out = append(out, kv)
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, k+"="+set[k])
	}
	return out
}

func ownSecret(name string) bool {
	upper := strings.ToUpper(name)
	return upper == APIKeyEnv || (strings.HasPrefix(upper, "WEFT_") && redact.SensitiveName(name))
}

// lookup finds name in set; environment names are case-insensitive on
// Windows.
func lookup(set map[string]string, name string) (string, bool) {
	if v, ok := set[name]; ok {
		return v, true
	}
	if runtime.GOOS == "windows" {
		for k, v := range set {
			if strings.EqualFold(k, name) {
				return v, true
			}
		}
	}
	return "", false
}
