// Package settings loads and saves Weft's preferences in
// $XDG_CONFIG_HOME/weft/settings.json. Bad input never crashes and never
// loses data: a corrupt file is moved aside, out-of-range values are
// clamped, unknown keys survive a save and writes are atomic with mode 0600.
package settings

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// Ranges and defaults of the numeric settings.
const (
	DefaultMaxRepairAttempts = 3
	MinRepairAttempts        = 0
	MaxRepairAttempts        = 10
	DefaultBaseURL           = "http://localhost:11434/v1"
	DefaultTimeoutS          = 120
	MinTimeoutS              = 1
	MaxTimeoutS              = 3600
	// A whole model call (every attempt and wait) is bounded too.
	DefaultTotalTimeoutS = 300
	MaxTotalTimeoutS     = 86400
	// DefaultStructuredOutput asks for the reply's shape and falls back.
	DefaultStructuredOutput = "auto"
	DefaultRetries          = 2
	MaxDefaultRetries       = 10
	DefaultRetentionRuns    = 50
	MinRetentionRuns        = 1
	MaxRetentionRuns        = 10000
	// Automatic replanning (run.auto_replan): off by default; at most
	// MaxAutoReplansLimit replans per run whatever the setting says.
	DefaultAutoReplans     = 2
	MinAutoReplans         = 1
	MaxAutoReplansLimit    = 5
	DefaultAutoReplanLevel = "HIGH"
)

// AutoReplanSeverities are the values of run.auto_replan.min_severity:
// CRITICAL replans only for critical failures, HIGH for high ones too.
var AutoReplanSeverities = []string{"CRITICAL", "HIGH"}

// LLM is the model endpoint. APIKey lives in the OS keyring when one is
// available; the file then carries api_key_store "keyring" instead.
type LLM struct {
	BaseURL     string `json:"base_url"`
	Model       string `json:"model"`
	APIKey      string `json:"api_key,omitempty"`
	APIKeyStore string `json:"api_key_store,omitempty"` // "keyring" or empty (file)
	TimeoutS    int    `json:"timeout_s"`
	// TotalTimeoutS bounds one model call with its retries (at least
	// timeout_s).
	TotalTimeoutS int `json:"total_timeout_s"`
	// StructuredOutput is how replies' JSON Schemas are sent: auto (try
	// json_schema, fall back and remember), json_schema, json_object, off.
	StructuredOutput string `json:"structured_output"`
}

// Features gate node types the planner may produce.
type Features struct {
	AllowAITransforms bool `json:"allow_ai_transforms"`
	AllowAgentSteps   bool `json:"allow_agent_steps"`
}

// MCPServer is one entry of the mcpServers map MCP clients share.
type MCPServer struct {
	Command string            `json:"command"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
}

// Run holds run-time defaults.
type Run struct {
	DefaultRetries int `json:"default_retries"`
	// RetentionRuns is how many finished runs' log folders to keep.
	RetentionRuns int `json:"retention_runs"`
	// AutoReplan asks the planner for a new version of the workflow when
	// a step fails badly enough, without asking the user first.
	AutoReplan AutoReplan `json:"auto_replan"`
}

// AutoReplan configures automatic replanning (seed 004).
type AutoReplan struct {
	Enabled bool `json:"enabled"`
	// MaxPerRun bounds the automatic replans of one run, counting the
	// runs of the versions it replanned (1–MaxAutoReplansLimit).
	MaxPerRun int `json:"max_per_run"`
	// MinSeverity is the least severe failure that replans: "CRITICAL"
	// or "HIGH".
	MinSeverity string `json:"min_severity"`
}

// Settings is the whole preferences document.
type Settings struct {
	MaxRepairAttempts int                  `json:"max_repair_attempts"`
	LLM               LLM                  `json:"llm"`
	Features          Features             `json:"features"`
	MCPServers        map[string]MCPServer `json:"mcp_servers"`
	Run               Run                  `json:"run"`
	// Engine says where the app's runs go: this process (local) or a
	// Temporal service (docs/scale-out.md).
	Engine Engine `json:"engine"`

	// Extra keeps top-level keys this version does not know.
	Extra map[string]json.RawMessage `json:"-"`
}

// Engine is where runs go.
type Engine struct {
	// Kind is "local" (the default) or "temporal".
	Kind     string         `json:"kind"`
	Temporal TemporalEngine `json:"temporal"`
}

// TemporalEngine is how to reach a Temporal service. Its API key and the
// payload key are read from the environment (WEFT_TEMPORAL_API_KEY,
// WEFT_TEMPORAL_KEY), never stored here.
type TemporalEngine struct {
	Address   string `json:"address"`
	Namespace string `json:"namespace"`
	TaskQueue string `json:"task_queue"`
	TLS       bool   `json:"tls"`
}

// Engine kinds.
const (
	EngineLocal    = "local"
	EngineTemporal = "temporal"
)

// Defaults returns the settings of a fresh install.
func Defaults() Settings {
	return Settings{
		MaxRepairAttempts: DefaultMaxRepairAttempts,
		LLM:               LLM{BaseURL: DefaultBaseURL, TimeoutS: DefaultTimeoutS, TotalTimeoutS: DefaultTotalTimeoutS, StructuredOutput: DefaultStructuredOutput},
		Features:          Features{AllowAITransforms: true, AllowAgentSteps: false},
		MCPServers:        map[string]MCPServer{},
		Run: Run{DefaultRetries: DefaultRetries, RetentionRuns: DefaultRetentionRuns,
			AutoReplan: AutoReplan{MaxPerRun: DefaultAutoReplans, MinSeverity: DefaultAutoReplanLevel}},
		Engine: Engine{Kind: EngineLocal, Temporal: TemporalEngine{Namespace: "default", TaskQueue: "weft"}},
	}
}

// Clamp brings out-of-range values into range and says what it changed.
func (s *Settings) Clamp() []string {
	var w []string
	clamp := func(name string, v *int, lo, hi int) {
		if *v < lo || *v > hi {
			nv := *v
			if nv < lo {
				nv = lo
			} else {
				nv = hi
			}
			w = append(w, fmt.Sprintf("%s %d is out of range %d–%d; using %d", name, *v, lo, hi, nv))
			*v = nv
		}
	}
	clamp("max_repair_attempts", &s.MaxRepairAttempts, MinRepairAttempts, MaxRepairAttempts)
	clamp("llm.timeout_s", &s.LLM.TimeoutS, MinTimeoutS, MaxTimeoutS)
	if s.LLM.TotalTimeoutS == 0 {
		s.LLM.TotalTimeoutS = DefaultTotalTimeoutS // files written before the key existed
	}
	clamp("llm.total_timeout_s", &s.LLM.TotalTimeoutS, s.LLM.TimeoutS, MaxTotalTimeoutS)
	clamp("run.default_retries", &s.Run.DefaultRetries, 0, MaxDefaultRetries)
	clamp("run.retention_runs", &s.Run.RetentionRuns, MinRetentionRuns, MaxRetentionRuns)
	clamp("run.auto_replan.max_per_run", &s.Run.AutoReplan.MaxPerRun, MinAutoReplans, MaxAutoReplansLimit)
	switch s.Engine.Kind {
	case EngineLocal, EngineTemporal:
	case "":
		s.Engine.Kind = EngineLocal
	default:
		w = append(w, fmt.Sprintf("engine.kind %q is not local or temporal; using local", s.Engine.Kind))
		s.Engine.Kind = EngineLocal
	}
	if s.Engine.Kind == EngineTemporal && strings.TrimSpace(s.Engine.Temporal.Address) == "" {
		w = append(w, "engine.kind is temporal but engine.temporal.address is empty; using local")
		s.Engine.Kind = EngineLocal
	}
	if s.Engine.Temporal.Namespace == "" {
		s.Engine.Temporal.Namespace = "default"
	}
	if s.Engine.Temporal.TaskQueue == "" {
		s.Engine.Temporal.TaskQueue = "weft"
	}
	if lvl, ok := autoReplanLevel(s.Run.AutoReplan.MinSeverity); ok {
		s.Run.AutoReplan.MinSeverity = lvl
	} else {
		w = append(w, fmt.Sprintf("run.auto_replan.min_severity %q is not CRITICAL or HIGH; using %s", s.Run.AutoReplan.MinSeverity, DefaultAutoReplanLevel))
		s.Run.AutoReplan.MinSeverity = DefaultAutoReplanLevel
	}
	switch s.LLM.StructuredOutput {
	case "auto", "json_schema", "json_object", "off":
	case "":
		s.LLM.StructuredOutput = DefaultStructuredOutput
	default:
		w = append(w, fmt.Sprintf("llm.structured_output %q is not auto, json_schema, json_object or off; using auto", s.LLM.StructuredOutput))
		s.LLM.StructuredOutput = DefaultStructuredOutput
	}
	if strings.TrimSpace(s.LLM.BaseURL) == "" {
		w = append(w, "llm.base_url is empty; using "+DefaultBaseURL)
		s.LLM.BaseURL = DefaultBaseURL
	}
	if s.MCPServers == nil {
		s.MCPServers = map[string]MCPServer{}
	}
	for name, srv := range s.MCPServers {
		if strings.TrimSpace(srv.Command) == "" {
			w = append(w, fmt.Sprintf("mcp_servers.%s has no command; ignored", name))
			delete(s.MCPServers, name)
		}
	}
	return w
}

// autoReplanLevel normalises a min_severity value.
func autoReplanLevel(v string) (string, bool) {
	v = strings.ToUpper(strings.TrimSpace(v))
	for _, s := range AutoReplanSeverities {
		if v == s {
			return s, true
		}
	}
	return "", false
}

type rawSettings Settings

var knownKeys = func() map[string]bool {
	m := map[string]bool{}
	t := reflect.TypeOf(Settings{})
	for i := 0; i < t.NumField(); i++ {
		if n := strings.Split(t.Field(i).Tag.Get("json"), ",")[0]; n != "" && n != "-" {
			m[n] = true
		}
	}
	return m
}()

// UnmarshalJSON decodes over the current value (so absent keys keep their
// defaults) and keeps unknown top-level keys.
func (s *Settings) UnmarshalJSON(data []byte) error {
	r := rawSettings(*s)
	if err := json.Unmarshal(data, &r); err != nil {
		return err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return err
	}
	*s = Settings(r)
	s.Extra = nil
	for k, v := range all {
		if !knownKeys[k] {
			if s.Extra == nil {
				s.Extra = map[string]json.RawMessage{}
			}
			s.Extra[k] = v
		}
	}
	return nil
}

// MarshalJSON writes known fields then unknown keys.
func (s Settings) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(rawSettings(s))
	if err != nil {
		return nil, err
	}
	if len(s.Extra) == 0 {
		return b, nil
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return nil, err
	}
	for k, v := range s.Extra {
		if _, ok := all[k]; !ok {
			all[k] = v
		}
	}
	return json.Marshal(all)
}
