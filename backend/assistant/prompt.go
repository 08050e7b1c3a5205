package assistant

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/weft-dev/weft/backend/planner"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/workflow"
)

// Limits that keep the prompt of a large workflow bounded.
const (
	maxPromptNodes  = 400 // nodes listed in full; the rest are counted
	maxParamsChars  = 400 // a node's params JSON, cut with …
	maxOutputsChars = 300 // a node's run outputs, cut with …
)

// NodeRun is what the latest run did at one node, for the prompt.
type NodeRun struct {
	Status  string         `json:"status"` // "ok", "failed", "skipped", "running", …
	Outputs map[string]any `json:"outputs,omitempty"`
	Error   string         `json:"error,omitempty"`
}

const patchExample = `{"message": "Added a 2 second wait between the download and the unzip.",
 "add_nodes": [{"id": "pause", "step_type": "Tool", "name": "Wait", "tool_name": "wait", "arguments": {"ms": 2000}}],
 "add_edges": [{"from": "download", "to": "pause"}, {"from": "pause", "to": "unzip"}],
 "remove_edges": [{"from": "download", "to": "unzip"}]}`

const patchFormat = `# How to reply

- To answer a question, explain or discuss: reply in plain prose, with no JSON.
- To change the workflow: reply with ONE JSON object, the patch, and nothing else (no prose around it, no code fences). Leave out the keys you do not need:
  {"message": "one or two sentences for the user about the change",
   "add": [flat steps], "after": "key of the node the flat steps go after",
   "add_nodes": [steps], "add_edges": [{"from": "...", "to": "...", "output": {"type": "IfTrue"}}],
   "remove_node_ids": ["key", ...],
   "remove_edges": [{"from": "key", "to": "key", "output": {"type": "IfFalse"}}],
   "update": [{"node_id": "key", "name": "...", ...only the fields that change}]}

Rules of a patch:
1. Name existing nodes by their key (their id also works). New nodes get an "id" you choose; edges may name new ids and existing keys.
2. "add" takes flat steps (the planner's flat form, with then/else/body lists for control flow): they are inserted after the node named by "after" (that node's outgoing edge then leaves the last new step), or after the last step when "after" is missing.
3. For anything else (branches, joining specific nodes) use "add_nodes" with "add_edges". Do not mix "add" and "add_nodes".
4. To insert a node between two connected nodes A and B, add A → new and new → B AND remove the edge A → B. Keep the output label A → B had.
5. An edge leaving an If, Switch or Loop always carries its output label; keep those labels when you rewire. Every If keeps one IfTrue and one IfFalse edge.
6. "update" changes only the fields it gives: {"node_id": "fetch", "arguments": {...}} keeps the node's type and tool. Give "step_type" only to change the type.
7. "remove_node_ids" removes the nodes with all their edges: connect their neighbours again with "add_edges" when the flow must go on.
8. The patch applies to the workflow shown below. When asked to correct a patch, send the complete corrected patch against this workflow, not a patch on top of your previous one.
9. A run refuses a template in a command or URL where it cannot be quoted as data (a shell comment, backticks, a here-document, a URL's host): fix such a step by moving the template into a plain argument, not by adding "raw", which is only for text the user trusts.

Example: insert a wait between "download" and "unzip":
` + patchExample + "\n"

// conversationNote tells the planner prompt, used for an empty workflow,
// that the chat may also be a question.
const conversationNote = `

# In this chat

You are also the user's assistant in a chat beside the (still empty) workflow canvas. When the user asks for a workflow, reply with the plan JSON as described above. When the user asks a question or wants to discuss, reply in plain prose with no JSON.
`

// plannerSections returns the named sections of the planner's system
// prompt, so the patcher teaches exactly the step types, conditions, tools
// and rules the planner does. A heading that is missing yields "".
func plannerSections(cat *tools.Catalog, f planner.Features, names ...string) string {
	full := planner.SystemPrompt(cat, f, nil)
	sections := map[string]string{}
	for _, part := range strings.Split("\n"+full, "\n# ")[1:] {
		title, _, _ := strings.Cut(part, "\n")
		sections[strings.TrimSpace(title)] = "# " + strings.TrimRight(part, "\n") + "\n"
	}
	var b strings.Builder
	for _, n := range names {
		if s, ok := sections[n]; ok {
			b.WriteString("\n" + s)
		}
	}
	return b.String()
}

// SystemPrompt is the assistant's system prompt: the planner's prompt for
// an empty workflow; otherwise the patcher's, which shows the workflow's
// nodes and labelled edges and, when given, the latest run.
func SystemPrompt(w *workflow.Workflow, cat *tools.Catalog, f planner.Features, runs map[string]NodeRun, summary string) string {
	var b strings.Builder
	if w == nil || len(w.Nodes) == 0 {
		b.WriteString(planner.SystemPrompt(cat, f, nil))
		b.WriteString(conversationNote)
	} else {
		b.WriteString("You are the assistant of Weft, a workflow editor. The user sees the workflow below on a canvas and chats with you about it: questions about how it works or why it fails, and requests to change it. Changes you propose are shown to the user, who reviews them before they are applied.\n\n")
		b.WriteString(patchFormat)
		b.WriteString(plannerSections(cat, f, "Step types", "Conditions and templates", "Failures", "Done when", "Tools", "Rules of a valid workflow"))
		b.WriteString("\n")
		writeWorkflow(&b, w)
		if len(runs) > 0 {
			writeRuns(&b, w, runs)
		}
	}
	if s := strings.TrimSpace(summary); s != "" {
		b.WriteString("\n# Earlier in this conversation (summary)\n\n" + s + "\n")
	}
	return b.String()
}

func writeWorkflow(b *strings.Builder, w *workflow.Workflow) {
	fmt.Fprintf(b, "# The current workflow")
	if w.Name != "" {
		fmt.Fprintf(b, ": %q", w.Name)
	}
	fmt.Fprintf(b, "\n\nNodes (%d):\n", len(w.Nodes))
	for i := range w.Nodes {
		if i == maxPromptNodes {
			fmt.Fprintf(b, "… and %d more nodes, not shown\n", len(w.Nodes)-maxPromptNodes)
			break
		}
		n := &w.Nodes[i]
		fmt.Fprintf(b, "- key %s, id %s: %s %q", n.Key, n.ID, n.Type, n.Name)
		if !n.IsEnabled() {
			b.WriteString(" (disabled)")
		}
		if p := paramsText(n.Params); p != "" {
			b.WriteString(" " + p)
		}
		b.WriteByte('\n')
	}
	key := make(map[string]string, len(w.Nodes))
	for i := range w.Nodes {
		key[w.Nodes[i].ID] = w.Nodes[i].Key
	}
	ref := func(id string) string {
		if k, ok := key[id]; ok && k != "" {
			return k
		}
		return id + " (no such node)"
	}
	fmt.Fprintf(b, "\nEdges (%d), with their output labels:\n", len(w.Edges))
	for i, e := range w.Edges {
		if i == 2*maxPromptNodes {
			fmt.Fprintf(b, "… and %d more edges, not shown\n", len(w.Edges)-i)
			break
		}
		fmt.Fprintf(b, "- %s → %s", ref(e.From), ref(e.To))
		if e.Output != nil {
			fmt.Fprintf(b, " [%s]", e.Output.String())
		}
		b.WriteByte('\n')
	}
	if len(w.Edges) == 0 {
		b.WriteString("(none)\n")
	}
}

func paramsText(p workflow.Params) string {
	data, err := json.Marshal(p)
	if err != nil || string(data) == "{}" {
		return ""
	}
	return cut(string(data), maxParamsChars)
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 { // do not split a UTF-8 sequence
		n--
	}
	return s[:n] + "…"
}

func writeRuns(b *strings.Builder, w *workflow.Workflow, runs map[string]NodeRun) {
	b.WriteString("\n# The latest run\n\n")
	// In workflow order, then keys the workflow no longer has.
	seen := map[string]bool{}
	var keys []string
	for _, n := range w.Nodes {
		if _, ok := runs[n.Key]; ok && !seen[n.Key] {
			keys = append(keys, n.Key)
			seen[n.Key] = true
		}
	}
	var rest []string
	for k := range runs {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for i, k := range append(keys, rest...) {
		if i == maxPromptNodes {
			fmt.Fprintf(b, "… and %d more nodes, not shown\n", len(runs)-i)
			break
		}
		r := runs[k]
		fmt.Fprintf(b, "- %s: %s", k, firstNonEmpty(r.Status, "unknown"))
		if r.Error != "" {
			fmt.Fprintf(b, "; error: %s", cut(r.Error, maxOutputsChars))
		}
		if len(r.Outputs) > 0 {
			data, _ := json.Marshal(r.Outputs)
			fmt.Fprintf(b, "; outputs: %s", cut(string(data), maxOutputsChars))
		}
		b.WriteByte('\n')
	}
}
