package planner

import (
	"encoding/json"
	"sort"

	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/workflow"
)

// The shapes Weft asks models for, as JSON Schemas from one source: the
// node types and the tool catalog (tool names as an enum, each tool's
// arguments from its input schema). They are sent where the server can
// enforce them (llm.Options.Schema); every later layer still checks the
// reply, since many servers accept the field without enforcing it.

// maxSchemaTools bounds how many tools get their argument schemas in the
// schema; past it a Tool step's arguments are any object (a large MCP
// catalog would make a schema bigger than servers accept).
const maxSchemaTools = 40

// StepSchemas returns the JSON Schema of one step (an anyOf of the step
// types the features allow) for the catalog.
func StepSchemas(cat *tools.Catalog, f Features) []any {
	str := map[string]any{"type": "string"}
	base := func(t workflow.NodeType, props map[string]any, required ...string) map[string]any {
		p := map[string]any{"id": str, "step_type": map[string]any{"const": string(t)}, "name": str,
			"on_error":  map[string]any{"enum": []string{"stop", "continue", "branch"}},
			"done_when": map[string]any{"type": "object", "properties": map[string]any{"condition": str, "criteria": str}, "additionalProperties": false},
			"verify":    str, "timeout_ms": map[string]any{"type": "integer", "minimum": 1}}
		for k, v := range props {
			p[k] = v
		}
		return map[string]any{"type": "object", "properties": p, "required": append([]string{"id", "step_type"}, required...)}
	}
	var steps []any
	var names []string
	var list []tools.Tool
	if cat != nil {
		list = cat.List()
	}
	for _, t := range list {
		names = append(names, t.Name)
	}
	sort.Strings(names)
	if len(list) > 0 && len(list) <= maxSchemaTools {
		for _, t := range list {
			var args any = map[string]any{"type": "object"}
			if len(t.InputSchema) > 0 {
				var s any
				if json.Unmarshal(t.InputSchema, &s) == nil {
					args = s
				}
			}
			steps = append(steps, base(workflow.TypeTool, map[string]any{"tool_name": map[string]any{"const": t.Name}, "arguments": args}, "tool_name", "arguments"))
		}
	} else {
		tool := map[string]any{"type": "string"}
		if len(names) > 0 {
			tool = map[string]any{"enum": names}
		}
		steps = append(steps, base(workflow.TypeTool, map[string]any{"tool_name": tool, "arguments": map[string]any{"type": "object"}}, "tool_name", "arguments"))
	}
	steps = append(steps,
		base(workflow.TypeIf, map[string]any{"condition": str}, "condition"),
		base(workflow.TypeSwitch, map[string]any{"cases": map[string]any{"type": "array", "items": map[string]any{"type": "object",
			"properties": map[string]any{"name": str, "condition": str}, "required": []string{"name", "condition"}}}}, "cases"),
		base(workflow.TypeLoop, map[string]any{"exit_condition": str, "max_iterations": map[string]any{"type": "integer", "minimum": 1}}, "exit_condition"),
		base(workflow.TypeEndLoop, map[string]any{"loop_id": str}, "loop_id"),
	)
	if f.AllowAITransforms {
		steps = append(steps, base(workflow.TypeAiTransform, map[string]any{"kind": map[string]any{"enum": []string{"summarize", "extract", "classify"}},
			"input": str, "labels": map[string]any{"type": "array", "items": str}}, "kind", "input"))
	}
	if f.AllowAgentSteps {
		tools := map[string]any{"type": "array", "items": str}
		if len(names) > 0 {
			tools = map[string]any{"type": "array", "items": map[string]any{"enum": names}}
		}
		steps = append(steps, base(workflow.TypeAiStep, map[string]any{"prompt": str, "allowed_tools": tools,
			"max_tool_calls": map[string]any{"type": "integer", "minimum": 1}}, "prompt"))
	}
	return steps
}

// EdgeSchema is one edge of the graph form.
func EdgeSchema() map[string]any {
	str := map[string]any{"type": "string"}
	var outs []string
	for _, o := range workflow.OutputTypes {
		outs = append(outs, string(o))
	}
	return map[string]any{"type": "object", "required": []string{"from", "to"}, "properties": map[string]any{
		"from": str, "to": str,
		"output": map[string]any{"type": "object", "required": []string{"type"}, "properties": map[string]any{
			"type": map[string]any{"enum": outs}, "name": str}},
	}}
}

// PlanSchema is the schema of a plan in the graph form.
func PlanSchema(cat *tools.Catalog, f Features) *llm.Schema {
	doc := map[string]any{
		"type":     "object",
		"required": []string{"nodes", "edges"},
		"properties": map[string]any{
			"name":      map[string]any{"type": "string"},
			"done_when": map[string]any{"type": "object", "properties": map[string]any{"condition": map[string]any{"type": "string"}, "criteria": map[string]any{"type": "string"}}},
			"nodes":     map[string]any{"type": "array", "minItems": 1, "items": map[string]any{"anyOf": StepSchemas(cat, f)}},
			"edges":     map[string]any{"type": "array", "items": EdgeSchema()},
		},
	}
	b, _ := json.Marshal(doc)
	return &llm.Schema{Name: "weft_plan", JSON: b}
}
