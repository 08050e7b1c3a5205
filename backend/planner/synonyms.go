package planner

// The synonym table: for each field of the plan schema, the other names
// models write for it, most common first. It is data, read in two places:
// the decoder looks fields up under these names (with a "read X as Y"
// warning), and the alignment stage (align.go) matches a reply's keys
// against them, and against the canonical names by edit distance, when
// the decoder could not read the reply at all. A new model habit is a new
// row here, not new code.
//
// Keys are schema ("plan", "step", a step type, "edge", "output", "case",
// "done_when", "tool_call") and then the canonical field.
var synonyms = map[string]map[string][]string{
	"plan": {
		"steps":     {"plan", "workflow_steps"},
		"nodes":     nil,
		"edges":     {"connections", "links", "transitions"},
		"name":      {"title", "workflow_name", "workflow"},
		"done_when": {"done_criteria", "success_criteria"},
	},
	"step": {
		"id":          {"step_id", "node_id", "key"},
		"name":        {"title", "label"},
		"step_type":   {"type", "node_type"},
		"timeout_ms":  {"timeout"},
		"verify":      nil,
		"on_error":    {"onerror", "on_failure", "error_handling"},
		"done_when":   {"done_criteria", "success_criteria"},
		"error_steps": {"on_error_steps", "catch"},
	},
	"Tool": {
		"tool_name": {"tool", "function", "function_name", "tool_call", "name_of_tool"},
		"arguments": {"args", "params", "parameters", "input", "inputs", "tool_input", "tool_args", "argument"},
	},
	"tool_call": { // the OpenAI function-call object written as tool_name
		"name":      nil,
		"arguments": {"args", "parameters"},
	},
	"AiStep": {
		"prompt":         {"instructions", "instruction", "task", "goal"},
		"allowed_tools":  {"tools", "tool_names"},
		"max_tool_calls": {"max_calls", "max_steps"},
	},
	"AiTransform": {
		"kind":   {"transform", "operation", "mode", "transform_kind"},
		"input":  {"text", "source", "from", "data"},
		"labels": {"categories", "classes", "options"},
	},
	"If": {
		"condition": {"if", "expression", "expr", "when"},
		"then":      {"then_steps", "if_true", "true_steps", "true"},
		"else":      {"else_steps", "if_false", "false_steps", "false", "otherwise"},
	},
	"Switch": {
		"cases":   {"branches", "options"},
		"default": {"default_steps", "otherwise", "else"},
	},
	"case": {
		"name":      {"case", "label", "value", "id"},
		"condition": {"when", "if", "expression", "match"},
		"steps":     {"then", "body", "do"},
	},
	"Loop": {
		"exit_condition": {"until", "exit_when", "stop_condition", "break_condition"},
		"max_iterations": {"max_iter", "iterations", "max_loops", "max_iters", "limit"},
		"body":           {"body_steps", "do", "loop_body", "steps"},
	},
	"EndLoop": {
		"loop_id": {"loop", "for_loop", "start_id", "loop_start"},
	},
	"done_when": {
		"condition": {"expr", "expression", "check"},
		"criteria":  {"criterion", "description", "goal", "text"},
	},
	"edge": {
		"from":   {"source", "src", "from_id", "from_node", "source_id", "start"},
		"to":     {"target", "dst", "to_id", "to_node", "target_id", "end", "dest", "destination", "next"},
		"output": {"label", "type", "branch", "when", "case", "condition", "port", "source_handle", "sourcehandle", "kind", "on"},
	},
	"output": {
		"type": {"kind", "output"},
		"name": {"case", "value", "label"},
	},
	// The assistant's patch object (backend/assistant).
	"patch": {
		"add":             {"add_steps", "append", "append_steps", "insert", "insert_steps"},
		"add_nodes":       {"nodes_to_add", "new_nodes", "added_nodes"},
		"add_edges":       {"edges_to_add", "new_edges", "added_edges"},
		"remove_node_ids": {"remove_nodes", "removed_node_ids", "delete_node_ids", "delete_nodes", "remove"},
		"remove_edges":    {"removed_edges", "delete_edges", "edges_to_remove"},
		"update":          {"update_nodes", "updates", "updated_nodes", "modify", "change"},
	},
}

// syn returns the synonyms of a field of a schema.
func syn(schema, field string) []string { return synonyms[schema][field] }

// Synonyms returns the other names models write for a field of a schema
// of the table (read-only).
func Synonyms(schema, field string) []string { return syn(schema, field) }

// stepSchemas are the schemas whose fields a step object may carry.
var stepSchemas = []string{"step", "Tool", "AiStep", "AiTransform", "If", "Switch", "Loop", "EndLoop"}
