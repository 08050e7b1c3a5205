package planner

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/weft-dev/weft/backend/tools"
)

// exampleFlat and exampleIf appear in the system prompt and as re-ask
// examples; TestExamplesAreValidPlans checks that they parse and validate.
const exampleFlat = `{"steps": [
  {"id": "check", "step_type": "Tool", "name": "Check file", "tool_name": "run_command", "arguments": {"command": "test -f notes.txt", "ok_exit_codes": [0, 1]}},
  {"id": "show", "step_type": "Tool", "name": "Show notes", "tool_name": "log", "arguments": {"message": "exit code {{check.exit_code}}"}}
]}`

const exampleIf = `{"nodes": [
  {"id": "check", "step_type": "Tool", "name": "Check file", "tool_name": "run_command", "arguments": {"command": "test -f notes.txt", "ok_exit_codes": [0, 1]}},
  {"id": "exists", "step_type": "If", "name": "File exists?", "condition": "check.exit_code == 0"},
  {"id": "read", "step_type": "Tool", "name": "Read notes", "tool_name": "read_file", "arguments": {"path": "notes.txt"}},
  {"id": "create", "step_type": "Tool", "name": "Create notes", "tool_name": "write_file", "arguments": {"path": "notes.txt", "content": "# Notes"}}
],
"edges": [
  {"from": "check", "to": "exists"},
  {"from": "exists", "to": "read", "output": {"type": "IfTrue"}},
  {"from": "exists", "to": "create", "output": {"type": "IfFalse"}}
]}`

// maxToolDescription keeps a large MCP catalog from swamping the prompt.
const maxToolDescription = 200

// SystemPrompt teaches the output contract: the flat and graph forms, the
// step types the features allow, conditions and templates, the tool
// catalog with arguments and outputs, the rules of a valid workflow and,
// when the repair memory has any, the model's own frequent mistakes.
func SystemPrompt(cat *tools.Catalog, f Features, mistakes []Mistake) string {
	var b strings.Builder
	b.WriteString(`You plan automation workflows for Weft. Reply with ONE JSON object and nothing else: no prose, no Markdown, no code fences, no comments.

# Output format

For steps that simply run one after the other, use the flat form:
` + exampleFlat + `

When the plan branches or loops, use the graph form: "nodes" (steps) and "edges". An edge leaving an If, Switch or Loop carries an "output" label; other edges have none:
` + exampleIf + `

# Step types

Every step has "id" (lowercase letters, digits and _, unique; later steps refer to it), "step_type" and a short "name".
- Tool: "tool_name" (from the catalog below) and "arguments" (an object with the tool's arguments).
- If: "condition". Exactly two outgoing edges: output {"type": "IfTrue"} and output {"type": "IfFalse"}.
- Switch: "cases": [{"name": "ok", "condition": "fetch.status == 200"}, ...]. One outgoing edge per case with output {"type": "SwitchCase", "name": "ok"}, and at most one with output {"type": "SwitchDefault"} for when no case matches.
- Loop: "exit_condition" (the loop ends when it is true) and "max_iterations". Outgoing edges: output {"type": "LoopBody"} to the first step of the body, and output {"type": "LoopDone"} to the step after the loop.
- EndLoop: "loop_id" (the id of its Loop). The last step of the body leads to the EndLoop, and the EndLoop has exactly one edge, back to its Loop.
`)
	if f.AllowAITransforms {
		b.WriteString(`- AiTransform: "kind" ("summarize", "extract" or "classify") and "input" (the text to work on, usually a {{step.field}} template). Outputs: text (summarize), data (extract), label (classify).
`)
	}
	if f.AllowAgentSteps {
		b.WriteString(`- AiStep: "prompt" (the task for an AI agent), "allowed_tools" (tool names from the catalog) and "max_tool_calls". Output: text.
`)
	}
	switch {
	case !f.AllowAITransforms && !f.AllowAgentSteps:
		b.WriteString("AiTransform and AiStep steps are switched off: do not use them.\n")
	case !f.AllowAITransforms:
		b.WriteString("AiTransform steps are switched off: do not use them.\n")
	case !f.AllowAgentSteps:
		b.WriteString("AiStep (agent) steps are switched off: do not use them.\n")
	}

	b.WriteString(`
# Conditions and templates

Conditions are expr-lang expressions over the outputs of earlier steps, by step id: check.exit_code == 0, fetch.status >= 400, list.count > 0 && check.success. Every step also has the outputs success (boolean) and error (string).
A string argument can include an earlier step's output with a template: "{{check.stdout}}".
In a run_command command each template becomes one quoted shell word, its trailing newline dropped, so write it bare, not inside quotes or backticks: "wc -l {{find.stdout}}". In an http_request url a template is percent-encoded as one path segment or query value; it may be the scheme or host only as the whole url: "{{links.next}}".
"{{raw step.field}}" inserts the text unquoted, as shell or URL syntax: use it only for text you trust, never for web pages, files, command output or AI text.

# Failures

A step that fails is retried, then the person is asked. A run_command step fails when its exit status is not 0: for a command whose status is an answer (test, grep, diff), list the statuses that are answers in "ok_exit_codes", e.g. [0, 1]. An http_request step fails on a status of 400 or more unless listed in "ok_status", e.g. [404].
Any Tool, AiTransform or AiStep step may set "on_error": "continue" (record the failure and go on to the next step) or "branch" (go on along its edge with output {"type": "Error"} to a step that handles the failure). After a failure, step.success is false, step.error is the message and step.error_record has type, category and suggested_fix. Use them only where the goal says what to do when the step fails.

# Done when

When the goal states a result that can be checked (tests pass, coverage at least 80%, a file exists), add a top-level "done_when": {"condition": "<expression over step outputs>"} for what can be computed, and/or {"criteria": "<one sentence>"} for what needs judgement. The run only counts as done when it holds.

# Tools

`)
	writeCatalog(&b, cat)

	b.WriteString(`
# Rules of a valid workflow

1. Exactly one entry: the first step, with no incoming edge. Every step is reachable from it.
2. A Tool, AiTransform or AiStep step has at most one outgoing edge without an output label, plus one edge with output {"type": "Error"} when its on_error is "branch".
3. An If has exactly two outgoing edges: IfTrue and IfFalse.
4. A Switch has exactly one SwitchCase edge per case name and at most one SwitchDefault edge.
5. A Loop has one LoopBody edge, at most one LoopDone edge and exactly one EndLoop (loop_id = the Loop's id) whose single edge goes back to the Loop. Edges leave the body only through the EndLoop.
6. No other cycles: the only edge that goes back is EndLoop → Loop.
7. Conditions and templates refer only to ids of steps that run before them.
8. Only tools from the catalog, with their argument names.
9. Keep the plan short: only the steps the goal needs.
`)
	if len(mistakes) > 0 {
		b.WriteString("\n# Mistakes to avoid\n\nYour earlier plans often had these problems:\n")
		for _, m := range mistakes {
			b.WriteString("- " + m.Instruction + "\n")
		}
	}
	return b.String()
}

// GoalPrompt is the first user turn.
func GoalPrompt(goal string) string {
	return "Goal: " + strings.TrimSpace(goal) + "\n\nPlan a workflow that reaches this goal. Reply with the JSON object only."
}

// writeCatalog lists each tool with its arguments and outputs, in the
// catalog's order (built-ins first, then MCP tools by name).
func writeCatalog(b *strings.Builder, cat *tools.Catalog) {
	list := cat.List()
	if len(list) == 0 {
		b.WriteString("(no tools are available)\n")
		return
	}
	mcp := false
	for _, t := range list {
		desc := strings.Join(strings.Fields(t.Description), " ")
		if len(desc) > maxToolDescription {
			desc = strings.TrimSpace(desc[:maxToolDescription]) + "…"
		}
		fmt.Fprintf(b, "- %s: %s\n", t.Name, desc)
		args := describeSchema(t.InputSchema)
		if len(args) == 0 {
			b.WriteString("  arguments: none\n")
		}
		for _, a := range args {
			b.WriteString("  - " + a + "\n")
		}
		if len(t.Outputs) > 0 {
			outs := make([]string, len(t.Outputs))
			for i, o := range t.Outputs {
				outs[i] = o.Name + " (" + o.Type + ")"
			}
			fmt.Fprintf(b, "  outputs: %s\n", strings.Join(outs, ", "))
		}
		mcp = mcp || t.Server != ""
	}
	if mcp {
		b.WriteString(`Tools from MCP servers are named "server.tool"; write the full name in tool_name.` + "\n")
	}
}

type schemaProp struct {
	Type        any    `json:"type"`
	Description string `json:"description"`
	Enum        []any  `json:"enum"`
	Default     any    `json:"default"`
	Items       *struct {
		Type any `json:"type"`
	} `json:"items"`
}

// describeSchema renders an argument schema, one line per argument:
// required arguments first, in the schema's order, then the optional ones
// by name. A schema it cannot read is shown as it is.
func describeSchema(raw json.RawMessage) []string {
	var s struct {
		Properties map[string]schemaProp `json:"properties"`
		Required   []string              `json:"required"`
	}
	if len(raw) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return []string{"arguments schema: " + string(raw)}
	}
	req := map[string]bool{}
	var names []string
	for _, r := range s.Required {
		if _, ok := s.Properties[r]; ok && !req[r] {
			req[r] = true
			names = append(names, r)
		}
	}
	var opt []string
	for n := range s.Properties {
		if !req[n] {
			opt = append(opt, n)
		}
	}
	sort.Strings(opt)
	names = append(names, opt...)
	parts := make([]string, len(names))
	for i, n := range names {
		p := s.Properties[n]
		typ := typeName(p.Type)
		if typ == "array" && p.Items != nil {
			typ = "array of " + typeName(p.Items.Type)
		}
		var attrs []string
		if typ != "" {
			attrs = append(attrs, typ)
		}
		if req[n] {
			attrs = append(attrs, "required")
		}
		if len(p.Enum) > 0 {
			vals := make([]string, len(p.Enum))
			for j, v := range p.Enum {
				vals[j] = fmt.Sprint(v)
			}
			attrs = append(attrs, "one of "+strings.Join(vals, "|"))
		}
		if p.Default != nil {
			attrs = append(attrs, fmt.Sprintf("default %v", p.Default))
		}
		part := n
		if len(attrs) > 0 {
			part += " (" + strings.Join(attrs, ", ") + ")"
		}
		if d := strings.Join(strings.Fields(p.Description), " "); d != "" {
			part += ": " + d
		}
		parts[i] = part
	}
	return parts
}

// typeName renders a JSON Schema "type", which may be a list.
func typeName(t any) string {
	switch v := t.(type) {
	case string:
		return v
	case []any:
		var s []string
		for _, x := range v {
			s = append(s, fmt.Sprint(x))
		}
		return strings.Join(s, " or ")
	}
	return ""
}
