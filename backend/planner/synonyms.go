package planner

import "github.com/weft-dev/weft/backend/workflow"

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

// The value vocabularies: the words models write for a step type, an
// edge label and a built-in tool. Like the field table above, they are
// data the decoder, the mapping stage and the alignment stage read.

// stepTypeAliases maps a normalized step_type (lower case, letters and
// digits only) to its node type.
var stepTypeAliases = map[string]workflow.NodeType{
	"tool": workflow.TypeTool, "toolcall": workflow.TypeTool, "toolstep": workflow.TypeTool, "toolnode": workflow.TypeTool,
	"aistep": workflow.TypeAiStep, "agent": workflow.TypeAiStep, "agentstep": workflow.TypeAiStep, "aiagent": workflow.TypeAiStep,
	"aitransform": workflow.TypeAiTransform, "transform": workflow.TypeAiTransform, "aitransformation": workflow.TypeAiTransform,
	"if": workflow.TypeIf, "ifelse": workflow.TypeIf, "condition": workflow.TypeIf, "conditional": workflow.TypeIf, "branch": workflow.TypeIf,
	"switch": workflow.TypeSwitch, "match": workflow.TypeSwitch,
	"loop": workflow.TypeLoop, "repeat": workflow.TypeLoop, "loopstart": workflow.TypeLoop, "startloop": workflow.TypeLoop, "beginloop": workflow.TypeLoop,
	"endloop": workflow.TypeEndLoop, "loopend": workflow.TypeEndLoop, "endrepeat": workflow.TypeEndLoop,
}

// pseudoSteps are step types models invent for the ends of a flow; they
// carry no work and are skipped.
var pseudoSteps = map[string]bool{
	"start": true, "end": true, "begin": true, "finish": true, "stop": true, "done": true,
	"exit": true, "terminate": true, "noop": true, "entry": true, "startnode": true, "endnode": true,
}

// transformKinds are the kinds an AiTransform can have.
var transformKinds = map[string]bool{"summarize": true, "extract": true, "classify": true}

// Label vocabularies, normalized.
var (
	trueLabels  = setOf("iftrue", "true", "yes", "y", "then", "truebranch", "ontrue", "success", "succeeded", "pass", "passed", "ok", "1", "match", "matched", "exists")
	falseLabels = setOf("iffalse", "false", "no", "n", "else", "falsebranch", "onfalse", "failure", "fail", "failed", "0", "otherwise", "nomatch", "missing", "notexists")
	bodyLabels  = setOf("loopbody", "body", "loop", "iterate", "iteration", "each", "foreach", "repeat", "continue", "inside", "do", "next")
	doneLabels  = setOf("loopdone", "done", "exit", "exitloop", "loopexit", "after", "afterloop", "end", "endloop", "finished", "finish", "complete", "completed", "break", "out")
	defLabels   = setOf("switchdefault", "default", "else", "otherwise", "fallback", "none")
	caseTypes   = setOf("switchcase", "case")
	errorLabels = setOf("error", "onerror", "iferror", "catch", "onfailure", "failed", "failure", "fail", "errorbranch")
)

// toolAliases map the names models invent for what a built-in does.
// Only unambiguous ones: "run" or "get" could mean anything.
var toolAliases = map[string]string{
	"shell": "run_command", "bash": "run_command", "sh": "run_command", "exec": "run_command", "execute": "run_command",
	"runshell": "run_command", "shellcommand": "run_command", "terminal": "run_command", "command": "run_command",
	"executecommand": "run_command", "runcmd": "run_command", "cmd": "run_command", "subprocess": "run_command",
	"print": "log", "echo": "log", "printmessage": "log", "logmessage": "log", "output": "log", "say": "log", "notify": "log",
	"fetch": "http_request", "curl": "http_request", "http": "http_request", "httpget": "http_request", "httppost": "http_request",
	"request": "http_request", "webrequest": "http_request", "apicall": "http_request", "wget": "http_request", "fetchurl": "http_request",
	"cat": "read_file", "read": "read_file", "readfile": "read_file", "openfile": "read_file", "readtext": "read_file", "filereader": "read_file",
	"write": "write_file", "writefile": "write_file", "savefile": "write_file", "save": "write_file", "createfile": "write_file", "appendfile": "write_file",
	"ls": "list_files", "dir": "list_files", "listdir": "list_files", "listdirectory": "list_files", "glob": "list_files", "findfiles": "list_files", "listfolder": "list_files",
	"sleep": "wait", "delay": "wait", "pause": "wait",
}
