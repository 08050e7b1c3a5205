package settings

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Keys lists the dotted keys `weft settings get/set` understands.
var Keys = []string{
	"max_repair_attempts",
	"llm.base_url", "llm.model", "llm.api_key", "llm.timeout_s", "llm.total_timeout_s", "llm.structured_output",
	"features.allow_ai_transforms", "features.allow_agent_steps",
	"mcp_servers",
	"run.default_retries", "run.retention_runs",
	"run.auto_replan.enabled", "run.auto_replan.max_per_run", "run.auto_replan.min_severity",
}

// MaskKey shows enough of a secret to recognise it and no more.
func MaskKey(k string) string {
	if k == "" {
		return ""
	}
	if len(k) <= 8 {
		return strings.Repeat("•", 8)
	}
	return k[:3] + strings.Repeat("•", 8) + k[len(k)-2:]
}

// Masked returns a copy safe to print or log.
func (s Settings) Masked() Settings {
	s.LLM.APIKey = MaskKey(s.LLM.APIKey)
	srv := make(map[string]MCPServer, len(s.MCPServers))
	for n, v := range s.MCPServers {
		if len(v.Env) > 0 {
			env := map[string]string{}
			for k, val := range v.Env {
				env[k] = MaskKey(val)
			}
			v.Env = env
		}
		srv[n] = v
	}
	s.MCPServers = srv
	return s
}

func toTree(st Settings) (map[string]any, error) {
	b, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	err = json.Unmarshal(b, &m)
	return m, err
}

// Get returns the value at a dotted key as JSON text (strings unquoted).
func Get(st Settings, key string) (string, error) {
	tree, err := toTree(st)
	if err != nil {
		return "", err
	}
	var cur any = tree
	for _, part := range strings.Split(key, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return "", unknownKey(key)
		}
		if cur, ok = m[part]; !ok {
			if key == "llm.api_key" {
				return "", nil
			}
			return "", unknownKey(key)
		}
	}
	if s, ok := cur.(string); ok {
		return s, nil
	}
	b, err := json.MarshalIndent(cur, "", "  ")
	return string(b), err
}

func unknownKey(key string) error {
	return fmt.Errorf("unknown setting %q; known settings: %s", key, strings.Join(Keys, ", "))
}

// Set parses value for the dotted key and stores it, rejecting values out
// of range (unlike Load, which clamps, an explicit set must say it is wrong).
func Set(st *Settings, key, value string) error {
	switch key {
	case "max_repair_attempts":
		return setInt(&st.MaxRepairAttempts, key, value, MinRepairAttempts, MaxRepairAttempts)
	case "llm.timeout_s":
		return setInt(&st.LLM.TimeoutS, key, value, MinTimeoutS, MaxTimeoutS)
	case "llm.structured_output":
		switch value {
		case "auto", "json_schema", "json_object", "off":
			st.LLM.StructuredOutput = value
			return nil
		}
		return fmt.Errorf("llm.structured_output must be auto, json_schema, json_object or off, not %q", value)
	case "llm.total_timeout_s":
		return setInt(&st.LLM.TotalTimeoutS, key, value, max(st.LLM.TimeoutS, MinTimeoutS), MaxTotalTimeoutS)
	case "run.default_retries":
		return setInt(&st.Run.DefaultRetries, key, value, 0, MaxDefaultRetries)
	case "run.retention_runs":
		return setInt(&st.Run.RetentionRuns, key, value, MinRetentionRuns, MaxRetentionRuns)
	case "run.auto_replan.enabled":
		return setBool(&st.Run.AutoReplan.Enabled, key, value)
	case "run.auto_replan.max_per_run":
		return setInt(&st.Run.AutoReplan.MaxPerRun, key, value, MinAutoReplans, MaxAutoReplansLimit)
	case "run.auto_replan.min_severity":
		lvl, ok := autoReplanLevel(value)
		if !ok {
			return fmt.Errorf("%s must be CRITICAL or HIGH, got %q", key, value)
		}
		st.Run.AutoReplan.MinSeverity = lvl
	case "llm.base_url":
		v := strings.TrimSpace(value)
		if !strings.HasPrefix(v, "http://") && !strings.HasPrefix(v, "https://") {
			return fmt.Errorf("%s must start with http:// or https://, got %q", key, value)
		}
		st.LLM.BaseURL = v
	case "llm.model":
		st.LLM.Model = strings.TrimSpace(value)
	case "llm.api_key":
		st.LLM.APIKey = strings.TrimSpace(value)
	case "features.allow_ai_transforms":
		return setBool(&st.Features.AllowAITransforms, key, value)
	case "features.allow_agent_steps":
		return setBool(&st.Features.AllowAgentSteps, key, value)
	case "mcp_servers":
		var m map[string]MCPServer
		dec := json.NewDecoder(strings.NewReader(value))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&m); err != nil {
			return fmt.Errorf("%s must be a JSON object like {\"name\": {\"command\": \"npx\", \"args\": []}}: %v", key, err)
		}
		names := make([]string, 0, len(m))
		for n := range m {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if err := ValidateServer(n, m[n]); err != nil {
				return err
			}
		}
		st.MCPServers = m
	default:
		return unknownKey(key)
	}
	return nil
}

// ValidateServer checks one MCP server entry.
func ValidateServer(name string, s MCPServer) error {
	if name == "" || strings.ContainsAny(name, ". \t/") {
		return fmt.Errorf("MCP server name %q must be non-empty without dots, spaces or slashes (tools are named server.tool)", name)
	}
	if strings.TrimSpace(s.Command) == "" {
		return fmt.Errorf("MCP server %q needs a command", name)
	}
	return nil
}

func setInt(dst *int, key, value string, lo, hi int) error {
	n, err := strconv.Atoi(strings.TrimSpace(value))
	if err != nil {
		return fmt.Errorf("%s must be a whole number, got %q", key, value)
	}
	if n < lo || n > hi {
		return fmt.Errorf("%s must be between %d and %d, got %d", key, lo, hi, n)
	}
	*dst = n
	return nil
}

func setBool(dst *bool, key, value string) error {
	b, err := strconv.ParseBool(strings.TrimSpace(value))
	if err != nil {
		return fmt.Errorf("%s must be true or false, got %q", key, value)
	}
	*dst = b
	return nil
}
