// Package tools describes the tools a Tool node can call: their names,
// argument JSON Schemas and output fields. Validation, the planner prompt and
// the palette read this catalog; execution lives in the runner.
package tools

import (
	"encoding/json"
	"sort"
	"strings"
)

// Field documents one output of a tool.
type Field struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Description string `json:"description"`
}

// Tool is one callable tool.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
	Outputs     []Field         `json:"outputs"`
	// Server is the MCP server that provides the tool; empty for built-ins.
	Server string `json:"server,omitempty"`
	// SideEffects marks tools that change the world (run commands, write
	// files, send requests); replanned workflows need approval to run them.
	SideEffects bool `json:"side_effects"`
	// OpenWorld marks tools that reach systems outside Weft's machine (an
	// MCP tool's openWorldHint, true unless the server says false): a
	// read-only tool that reaches out still needs approval when a model
	// wrote the step, since what it sends can carry data out.
	OpenWorld bool `json:"open_world,omitempty"`
}

// CommonOutputs are carried by every node's outputs.
var CommonOutputs = []Field{
	{Name: "success", Type: "boolean", Description: "true when the node finished without error"},
	{Name: "error", Type: "string", Description: "the error message when success is false"},
	{Name: "error_record", Type: "object", Description: "after a failure its on_error took: type, category, severity, retryable, error, suggested_fix, attempts"},
	{Name: "skipped", Type: "boolean", Description: "true when the node was skipped or is disabled"},
}

// Catalog is an immutable set of tools indexed by name.
type Catalog struct {
	tools  []Tool
	byName map[string]int
}

// NewCatalog builds a catalog; later tools with the same name replace earlier ones.
func NewCatalog(ts ...Tool) *Catalog {
	c := &Catalog{byName: map[string]int{}}
	for _, t := range ts {
		if i, ok := c.byName[t.Name]; ok {
			c.tools[i] = t
			continue
		}
		c.byName[t.Name] = len(c.tools)
		c.tools = append(c.tools, t)
	}
	return c
}

// Builtin returns the catalog of Weft's built-in tools.
func Builtin() *Catalog { return NewCatalog(builtins()...) }

// With returns a new catalog with the tools of an MCP server added under
// "server.tool" names.
func (c *Catalog) With(server string, ts []Tool) *Catalog {
	all := append([]Tool(nil), c.tools...)
	for _, t := range ts {
		t.Server = server
		if !strings.HasPrefix(t.Name, server+".") {
			t.Name = server + "." + t.Name
		}
		all = append(all, t)
	}
	return NewCatalog(all...)
}

// Has reports whether a tool of that name exists.
func (c *Catalog) Has(name string) bool {
	if c == nil {
		return false
	}
	_, ok := c.byName[name]
	return ok
}

// Lookup returns the tool with that name.
func (c *Catalog) Lookup(name string) (Tool, bool) {
	if c == nil {
		return Tool{}, false
	}
	i, ok := c.byName[name]
	if !ok {
		return Tool{}, false
	}
	return c.tools[i], true
}

// List returns every tool, built-ins first, then MCP tools by name.
func (c *Catalog) List() []Tool {
	if c == nil {
		return nil
	}
	out := append([]Tool(nil), c.tools...)
	sort.SliceStable(out, func(i, j int) bool {
		if (out[i].Server == "") != (out[j].Server == "") {
			return out[i].Server == ""
		}
		if out[i].Server != "" {
			return out[i].Name < out[j].Name
		}
		return false
	})
	return out
}

// Names returns every tool name in List order.
func (c *Catalog) Names() []string {
	var names []string
	for _, t := range c.List() {
		names = append(names, t.Name)
	}
	return names
}

func schema(s string) json.RawMessage { return json.RawMessage(s) }

func builtins() []Tool {
	return []Tool{
		{
			Name:        "run_command",
			Description: "Run a shell command and capture its exit code and output. A non-zero exit status fails the step unless listed in ok_exit_codes.",
			InputSchema: schema(`{"type":"object","properties":{"command":{"type":"string","description":"Shell command line"},"cwd":{"type":"string","description":"Working directory; defaults to the workflow's folder"},"timeout_ms":{"type":"integer","minimum":1,"description":"Kill the command after this many milliseconds"},"ok_exit_codes":{"type":"array","items":{"type":"integer"},"default":[0],"description":"Exit statuses that count as success (for commands whose status is an answer: test, grep, diff); any other status fails the step"}},"required":["command"],"additionalProperties":false}`),
			Outputs: []Field{
				{Name: "exit_code", Type: "integer", Description: "process exit status (128+n when killed by signal n); a status not in ok_exit_codes fails the step"},
				{Name: "stdout", Type: "string", Description: "standard output, at most 1 MiB (more is marked cut and cannot be read: write it to a file)"},
				{Name: "stderr", Type: "string", Description: "standard error, at most 1 MiB (likewise)"},
			},
			SideEffects: true,
		},
		{
			Name:        "http_request",
			Description: "Send an HTTP request and capture the response. A status of 400 or above fails the step unless listed in ok_status. Redirects to another host are refused unless follow_redirects allows them; save_to saves the whole body to a file (for downloads: the body output keeps at most 1 MiB).",
			InputSchema: schema(`{"type":"object","properties":{"method":{"type":"string","enum":["GET","HEAD","POST","PUT","PATCH","DELETE","OPTIONS"]},"url":{"type":"string","format":"uri"},"headers":{"type":"object","additionalProperties":{"type":"string"}},"body":{"type":"string"},"ok_status":{"type":"array","items":{"type":"integer","minimum":100,"maximum":599},"description":"Statuses of 400 and above that count as success (e.g. [404] when absence is an answer); other statuses of 400 and above fail the step"},"follow_redirects":{"anyOf":[{"type":"boolean"},{"type":"array","items":{"type":"string"}}],"description":"Redirects to the request's own scheme, host and port are always followed; true follows them to any host, a list of host names (cdn.example.com, *.example.org, localhost:8080) to those; https to http never"},"save_to":{"type":"string","description":"Save the whole response body to this file (relative paths start at the workflow's folder), replacing it only once the body arrived whole; the outputs then give path, size and sha256 instead of body"}},"required":["method","url"],"additionalProperties":false}`),
			Outputs: []Field{
				{Name: "status", Type: "integer", Description: "HTTP status code"},
				{Name: "body", Type: "string", Description: "response body, at most 1 MiB (a longer one is marked cut and cannot be read: use save_to); absent with save_to"},
				{Name: "headers", Type: "object", Description: "response headers"},
				{Name: "path", Type: "string", Description: "with save_to: the absolute path of the saved body"},
				{Name: "size", Type: "integer", Description: "with save_to: the body's size in bytes"},
				{Name: "sha256", Type: "string", Description: "with save_to: the body's SHA-256, in hex"},
			},
			SideEffects: true,
		},
		{
			Name:        "read_file",
			Description: "Read a text file; relative paths start at the workflow's folder.",
			InputSchema: schema(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`),
			Outputs:     []Field{{Name: "content", Type: "string", Description: "file contents"}},
		},
		{
			Name:        "write_file",
			Description: "Write a text file (replaced atomically), or append to it.",
			InputSchema: schema(`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"},"append":{"type":"boolean","default":false}},"required":["path","content"],"additionalProperties":false}`),
			Outputs: []Field{
				{Name: "path", Type: "string", Description: "absolute path written"},
				{Name: "bytes", Type: "integer", Description: "bytes written"},
			},
			SideEffects: true,
		},
		{
			Name:        "list_files",
			Description: "List the files in a folder, optionally filtered by a glob pattern.",
			InputSchema: schema(`{"type":"object","properties":{"path":{"type":"string"},"pattern":{"type":"string","description":"glob such as *.txt"}},"required":["path"],"additionalProperties":false}`),
			Outputs: []Field{
				{Name: "files", Type: "array", Description: "file names"},
				{Name: "count", Type: "integer", Description: "number of files"},
			},
		},
		{
			Name:        "wait",
			Description: "Pause for a number of milliseconds.",
			InputSchema: schema(`{"type":"object","properties":{"ms":{"type":"integer","minimum":0}},"required":["ms"],"additionalProperties":false}`),
			Outputs:     []Field{},
		},
		{
			Name:        "log",
			Description: "Write a message to the run log.",
			InputSchema: schema(`{"type":"object","properties":{"message":{"type":"string"}},"required":["message"],"additionalProperties":false}`),
			Outputs:     []Field{},
		},
	}
}

// NodeOutputs documents the outputs of the non-Tool node types.
var NodeOutputs = map[string][]Field{
	"AiStep":                {{Name: "text", Type: "string", Description: "the model's final answer"}, {Name: "tool_calls", Type: "array", Description: "the tool calls it made"}},
	"AiTransform/summarize": {{Name: "text", Type: "string", Description: "the summary"}},
	"AiTransform/extract":   {{Name: "data", Type: "object", Description: "the extracted data"}},
	"AiTransform/classify":  {{Name: "label", Type: "string", Description: "the chosen label"}},
	"Loop":                  {{Name: "iteration", Type: "integer", Description: "the current iteration, from 1"}, {Name: "max_iterations", Type: "integer", Description: "the loop's cap"}},
	"Workflow": {{Name: "outputs", Type: "object", Description: "the sub-workflow's outputs by its node keys: {{key.outputs.step.field}}"},
		{Name: "run_id", Type: "string", Description: "the sub-workflow's run"}, {Name: "outcome", Type: "string", Description: "how the sub-workflow's run ended"}},
}
