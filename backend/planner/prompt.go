package planner

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/weft-dev/weft/backend/tools"
)

// exampleFlat and exampleIf appear in the system prompt and as re-ask
// examples; TestExamplesAreValidPlans checks that they parse and validate.
const exampleFlat = `{"steps": [
  {"id": "check", "step_type": "Tool", "name": "Check file", "tool_name": "run_command", "arguments": {"command": "test -f notes.txt", "ok_exit_codes": [0, 1]}},
  {"id": "show", "step_type": "Tool", "name": "Show notes", "tool_name": "log", "arguments": {"message": "exit code {{check.exit_code}}"}}
]}`

const exampleIf = `{"nodes": [
  {"id": "check", "step_type": "Tool", "tool_name": "run_command", "arguments": {"command": "test -f notes.txt", "ok_exit_codes": [0, 1]}},
  {"id": "exists", "step_type": "If", "condition": "check.exit_code == 0"},
  {"id": "read", "step_type": "Tool", "tool_name": "read_file", "arguments": {"path": "notes.txt"}},
  {"id": "create", "step_type": "Tool", "tool_name": "write_file", "arguments": {"path": "notes.txt", "content": "# Notes"}}
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

"nodes" and "edges"; an edge leaving an If, Switch or Loop has an "output" label. Steps that only run one after another may be {"steps": [...]} without edges.
` + exampleIf + `

# Step types

Every step has a unique "id" (lowercase, digits, _), "step_type" and a short "name" (left out above).
- Tool: "tool_name" (from the catalog) and "arguments".
- If: "condition"; exactly two edges, outputs {"type": "IfTrue"} and {"type": "IfFalse"}.
- Switch: "cases": [{"name": "ok", "condition": "fetch.status == 200"}]; one edge per case, output {"type": "SwitchCase", "name": "ok"}, and at most one {"type": "SwitchDefault"}.
- Loop: "exit_condition" (true ends it), "max_iterations"; edges {"type": "LoopBody"} to the body and {"type": "LoopDone"} to the step after.
- EndLoop: "loop_id" (its Loop's id); the body's last step leads to it, and its one edge goes back to the Loop.
`)
	if f.AllowAITransforms {
		b.WriteString(`- AiTransform: "kind" (summarize, extract or classify, with "labels") and "input" (usually a {{step.field}} template). Outputs: text, data, label.
`)
	}
	if f.AllowAgentSteps {
		b.WriteString(`- AiStep: "prompt", "allowed_tools" (catalog names) and "max_tool_calls". Output: text.
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

Conditions are expr-lang expressions over earlier steps' outputs by id: check.exit_code == 0 && list.count > 0. Every step also outputs success and error; read only outputs a step has.
Templates put an output into a string argument: "{{check.stdout}}". In a command each is one quoted shell word: write it bare, "wc -l {{find.stdout}}"; in a url, one encoded segment or value, or the whole url. "{{raw step.field}}" inserts it unquoted: only trusted text, never pages, files, command output or AI text.

# Failures

run_command fails on an exit status not in "ok_exit_codes" (default [0]; [0, 1] for test, grep, diff); http_request on a status ≥ 400 not in "ok_status".
Only where the goal says what to do on a failure, a step may set "on_error": "continue" (go on) or "branch" (take its edge with output {"type": "Error"}); then step.success is false and step.error says why.

# Done when

When the goal states a checkable result (tests pass, coverage ≥ 80%), add a top-level "done_when": {"condition": "<expression>"} and/or {"criteria": "<sentence for a judge>"}.

# Tools

`)
	writeCatalog(&b, cat)

	b.WriteString(`
# Rules of a valid workflow

1. One entry: the only step without an incoming edge; every step reachable from it.
2. Other steps have at most one unlabelled outgoing edge (plus an Error edge with on_error "branch").
3. A loop body is left only through its EndLoop; EndLoop → Loop is the only edge back.
4. Read only steps that run before. Only catalog tools and arguments. Keep the plan short.
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

// GoalPromptFor is GoalPrompt with, for a large catalog, the full
// arguments of the tools the goal most likely needs: the system prompt
// lists such a catalog compactly (writeCatalog), and stays byte-identical
// across calls and re-asks so servers' prefix caches hit.
func GoalPromptFor(goal string, cat *tools.Catalog) string {
	rel := relevantTools(goal, cat, maxDetailedTools)
	if len(rel) == 0 {
		return GoalPrompt(goal)
	}
	var b strings.Builder
	b.WriteString("Goal: " + strings.TrimSpace(goal) + "\n\n# Tools this goal may need, in full (arguments are strings unless typed)\n\n")
	for _, t := range rel {
		writeToolDetail(&b, t)
	}
	b.WriteString("\nPlan a workflow that reaches this goal. Reply with the JSON object only.")
	return b.String()
}

// Above compactAbove MCP tools the system prompt lists tools in one line
// each; maxDetailedTools of them, picked by the goal, get their full
// arguments in the first user turn.
const (
	compactAbove     = 8
	maxDetailedTools = 3
)

// relevantTools scores the MCP tools of a large catalog by the goal's
// words in their names (three times) and descriptions, each word weighed
// by how few tools mention it (a word every browser tool has, such as
// "page", tells nothing); nil for a small catalog.
func relevantTools(goal string, cat *tools.Catalog, max int) []tools.Tool {
	if cat == nil || mcpCount(cat) <= compactAbove {
		return nil
	}
	split := func(s string) []string {
		return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	}
	stem := func(w string) string { return strings.TrimSuffix(w, "s") }
	words := map[string]bool{}
	for _, w := range split(goal) {
		if len(w) >= 3 && !stopWords[w] {
			words[stem(w)] = true
			for _, syn := range goalSynonyms[w] {
				words[syn] = true
			}
		}
	}
	type doc struct {
		t           tools.Tool
		name, descr map[string]bool
	}
	var docs []doc
	df := map[string]int{}
	for _, t := range cat.List() {
		if t.Server == "" {
			continue
		}
		d := doc{t: t, name: map[string]bool{}, descr: map[string]bool{}}
		for _, w := range split(strings.TrimPrefix(t.Name, t.Server+".")) {
			d.name[stem(w)] = true
		}
		for _, w := range split(t.Description) {
			d.descr[stem(w)] = true
		}
		for w := range words {
			if d.name[w] || d.descr[w] {
				df[w]++
			}
		}
		docs = append(docs, d)
	}
	type scored struct {
		t     tools.Tool
		score float64
	}
	var all []scored
	for _, d := range docs {
		score := 0.0
		for w := range words {
			idf := math.Log(float64(len(docs)+1) / float64(df[w]+1))
			if d.name[w] {
				// A match in a short name says more: navigate over
				// navigate_back.
				score += 3 * idf / math.Sqrt(float64(len(d.name)))
			} else if d.descr[w] {
				score += idf / 2
			}
		}
		if score > 0.5 {
			all = append(all, scored{d.t, score})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].score > all[j].score })
	var out []tools.Tool
	for i := 0; i < len(all) && i < max; i++ {
		out = append(out, all[i].t)
	}
	return out
}

// goalSynonyms are the verbs goals use for what tools name otherwise.
var goalSynonyms = map[string][]string{
	"open": {"navigate"}, "visit": {"navigate"}, "browse": {"navigate"}, "load": {"navigate", "read"},
	"save": {"write"}, "store": {"write"}, "create": {"write", "create"}, "delete": {"remove", "delete"},
	"find": {"search", "find"}, "look": {"search"}, "rename": {"move"}, "show": {"read", "list"},
}

var stopWords = setOf("the", "and", "for", "with", "from", "into", "that", "this", "then", "when", "each", "every", "all", "any",
	"use", "using", "make", "get", "put", "via", "per", "file", "workflow", "step", "steps", "tool", "tools", "please", "want", "need")

func mcpCount(cat *tools.Catalog) int {
	n := 0
	for _, t := range cat.List() {
		if t.Server != "" {
			n++
		}
	}
	return n
}

// writeCatalog lists each tool with its arguments and outputs, in the
// catalog's order (built-ins first, then MCP tools by name).
func writeCatalog(b *strings.Builder, cat *tools.Catalog) {
	list := cat.List()
	if len(list) == 0 {
		b.WriteString("(no tools are available)\n")
		return
	}
	compact := mcpCount(cat) > compactAbove
	mcp := false
	for _, t := range list {
		switch {
		case t.Server == "" && builtinLines[t.Name] != "":
			b.WriteString(builtinLines[t.Name] + "\n")
		case compact && t.Server != "":
			writeToolLine(b, t)
		default:
			writeToolFull(b, t)
		}
		mcp = mcp || t.Server != ""
	}
	if mcp {
		b.WriteString(`Write MCP tools' full "server.tool" name in tool_name; their outputs are text and data.` + "\n")
	}
	if compact {
		b.WriteString("One-line tools: name(required arguments, strings unless typed): what it does; the goal's message details the likely ones.\n")
	}
}

// writeToolFull writes a tool with one line per argument.
func writeToolFull(b *strings.Builder, t tools.Tool) {
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
}

// builtinLines describe the built-in tools in one line each, with what a
// plan needs to know (tools.Builtin has the schemas; TestBuiltinLines
// checks every argument and output is named here).
var builtinLines = map[string]string{
	"run_command":  "- run_command(command: string, cwd?: string, timeout_ms?: integer, ok_exit_codes?: integer[]) → exit_code, stdout, stderr",
	"http_request": "- http_request(method: GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS, url: string, headers?: object, body?: string, ok_status?: integer[], follow_redirects?: bool|host[], save_to?: path) → status, body, headers; path, size, sha256",
	"read_file":    "- read_file(path: string) → content",
	"write_file":   "- write_file(path: string, content: string, append?: boolean) → path, bytes",
	"list_files":   "- list_files(path: string, pattern?: glob) → files, count",
	"wait":         "- wait(ms: integer): pause",
	"log":          "- log(message: string): write to the run log",
}

// writeToolDetail is writeToolFull with descriptions cut to their first
// sentence: the goal's message gives several tools in full.
func writeToolDetail(b *strings.Builder, t tools.Tool) {
	fmt.Fprintf(b, "- %s: %s\n", t.Name, firstSentence(t.Description, 160))
	args := describeArgs(t.InputSchema, true)
	if len(args) == 0 {
		b.WriteString("  arguments: none\n")
	}
	for _, a := range args {
		if name, d, ok := strings.Cut(a, ": "); ok {
			a = name + ": " + firstSentence(d, 60)
		}
		b.WriteString("  - " + a + "\n")
	}
}

// firstSentence keeps the first sentence of s, at most n bytes.
func firstSentence(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.Index(s, ". "); i > 0 {
		s = s[:i+1]
	}
	if len(s) > n {
		s = cutAtWord(s, n) + "…"
	}
	return s
}

// cutAtWord cuts s to at most n bytes at a space (within one long word,
// at a rune's start) and drops the words left hanging.
func cutAtWord(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut] != ' ' {
		cut--
	}
	if cut == 0 {
		cut = n
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
	}
	return trimDangling(s[:cut])
}

// maxLineDescription bounds a one-line tool's description.
const maxLineDescription = 36

// writeToolLine writes a tool in one line: name(required arguments): the
// first sentence of its description, cut at a word.
// MCP tools all output text and data, so the line leaves outputs out; the
// goal's message shows the full arguments of the tools the goal may need.
// Terse on purpose (issue 24): with 50 tools every byte of a line counts
// fifty times in every plan request.
func writeToolLine(b *strings.Builder, t tools.Tool) {
	desc := strings.Join(strings.Fields(t.Description), " ")
	if i := strings.Index(desc, ". "); i > 0 {
		desc = desc[:i]
	}
	desc = strings.TrimSuffix(desc, ".")
	fmt.Fprintf(b, "- %s(%s): %s\n", t.Name, signature(t.InputSchema), cutAtWord(desc, maxLineDescription))
}

// dangling are words a cut description should not end on.
var dangling = setOf("a", "an", "the", "of", "to", "in", "on", "at", "as", "by", "and", "or", "for", "with", "from", "into", "onto", "along", "between",
	"that", "which", "can", "be", "is", "are", "its", "their", "all", "two")

// trimDangling drops the punctuation and the words left hanging at the end
// of a cut description ("Drop files onto an" → "Drop files").
func trimDangling(s string) string {
	for {
		s = strings.TrimRight(s, " ,;:(")
		i := strings.LastIndexByte(s, ' ')
		if i < 0 || !dangling[strings.ToLower(s[i+1:])] {
			return s
		}
		s = s[:i]
	}
}

// signature renders the required arguments, with their types where not
// strings: "url, depth: integer". Optional ones are left out: a plan can
// only use those it knows, and the goal's message gives the likely tools
// in full.
func signature(raw json.RawMessage) string {
	var s struct {
		Properties map[string]schemaProp `json:"properties"`
		Required   []string              `json:"required"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return "…"
	}
	var parts []string
	req := map[string]bool{}
	for _, r := range s.Required {
		if p, ok := s.Properties[r]; ok && !req[r] {
			req[r] = true
			switch typ := typeName(p.Type); typ {
			case "string":
				parts = append(parts, r)
			case "":
				parts = append(parts, r+": any")
			default:
				parts = append(parts, r+": "+typ)
			}
		}
	}
	return strings.Join(parts, ", ")
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
func describeSchema(raw json.RawMessage) []string { return describeArgs(raw, false) }

// describeArgs is describeSchema; terse leaves the type of string
// arguments out (the goal's message says arguments are strings unless
// typed).
func describeArgs(raw json.RawMessage, terse bool) []string {
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
		if typ != "" && (typ != "string" || !terse) {
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
