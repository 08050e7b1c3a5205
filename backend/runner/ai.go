package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/workflow"
)

// DefaultMaxToolCalls applies to an AiStep whose max_tool_calls is absent.
const DefaultMaxToolCalls = 10

// maxToolResult caps what one tool result tells the model.
const maxToolResult = 8 << 10

// rejectedError is a model answer the runner refuses (failure_type
// rejected).
type rejectedError struct{ msg string }

func (e *rejectedError) Error() string { return e.msg }

// xmlText escapes what would break the block's structure; quotes stay
// readable.
var xmlText = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// retryContext is what an AI node's retry is told (seeds 002 and 003):
// the attempt, every earlier failure, the suggested fix, what worked for
// similar failures, and the user's instruction when there is one.
type retryContext struct {
	Attempt     int
	MaxAttempts int
	Failures    []failure.Record
	Learnings   []failure.Pattern
	Instruction string // from a fix response: priority guidance
}

// block renders the <retry_context> block placed before the task, so the
// model reads what went wrong before it reads what to do.
func (rc *retryContext) block() string {
	if rc == nil || (len(rc.Failures) == 0 && rc.Instruction == "") {
		return ""
	}
	esc := xmlText.Replace
	var b strings.Builder
	fmt.Fprintf(&b, "<retry_context attempt=\"%d\" max_attempts=\"%d\">\n", rc.Attempt, rc.MaxAttempts)
	if rc.Instruction != "" {
		fmt.Fprintf(&b, "  <user_intervention>\n    <instruction priority=\"high\">%s</instruction>\n    <context>This instruction comes from the user after automated recovery failed. Treat it as authoritative guidance.</context>\n  </user_intervention>\n", esc(rc.Instruction))
	}
	if len(rc.Failures) > 0 {
		b.WriteString("  <previous_failures>\n")
		fs := rc.Failures
		if len(fs) > 5 {
			fs = fs[len(fs)-5:] // the latest are the most telling; keep the prompt bounded
		}
		for _, f := range fs {
			fmt.Fprintf(&b, "    <failure attempt=\"%d\">\n      <type>%s</type>\n      <category>%s</category>\n      <error_summary>%s</error_summary>\n", f.Attempt, f.FailureType, f.Category, esc(truncate(f.Error, 600)))
			if f.OutputSummary != "" {
				fmt.Fprintf(&b, "      <what_happened>%s</what_happened>\n", esc(truncate(f.OutputSummary, 1500)))
			}
			if f.SuggestedFix != "" {
				fmt.Fprintf(&b, "      <suggested_fix>%s</suggested_fix>\n", esc(f.SuggestedFix))
			}
			b.WriteString("    </failure>\n")
		}
		b.WriteString("  </previous_failures>\n")
	}
	if len(rc.Learnings) > 0 {
		b.WriteString("  <accumulated_learnings>\n")
		for _, p := range rc.Learnings {
			line := fmt.Sprintf("%s was resolved by %s", p.Signature, p.Resolution)
			if p.Fix != "" {
				line += ": " + p.Fix
			}
			fmt.Fprintf(&b, "    - %s\n", esc(truncate(line, 300)))
		}
		b.WriteString("  </accumulated_learnings>\n")
	}
	fmt.Fprintf(&b, "  <instruction>\n    This is attempt %d of %d. Review the previous failure(s) above and address them before acting.\n    Do not repeat the approach that failed: try a different one (for a path that was not found, list the folder first; for a refused action, choose another way).\n    If the task cannot be done, say so plainly instead of guessing.\n  </instruction>\n</retry_context>\n\n", rc.Attempt, rc.MaxAttempts)
	return b.String()
}

const aiStepSystem = `You carry out one step of an automation workflow. Use the tools you are given when the step needs them; each call's result comes back to you. When the step is done, answer with the result in plain text: it becomes the step's output for the next steps.`

// aiStep runs the tool-calling loop: the model may call its allowed tools
// up to max_tool_calls times; its final text is the output. The trace of
// calls is returned for the failure record, so a retry knows what was
// tried.
func (r *run) aiStep(ctx context.Context, n *workflow.Node, rc *retryContext) (map[string]any, string, error) {
	if r.opts.LLM == nil {
		return nil, "", &configError{"no model is configured: set one up in Preferences → Model (llm.base_url and llm.model)"}
	}
	prompt, err := r.renderText(n.Params.Prompt)
	if err != nil {
		return nil, "", argErrorf("prompt: %v", err)
	}
	defs, names, err := r.toolDefs(ctx, n.Params.AllowedTools)
	if err != nil {
		return nil, "", err
	}
	maxCalls := n.Params.MaxToolCalls
	if maxCalls <= 0 {
		maxCalls = DefaultMaxToolCalls
	}
	msgs := []llm.Message{
		{Role: llm.RoleSystem, Content: aiStepSystem},
		{Role: llm.RoleUser, Content: rc.block() + prompt},
	}
	var trace []string
	calls := 0
	for {
		opts := llm.Options{Tools: defs, Secrets: r.red.Secrets()} // what the run has learned stays here
		if len(defs) > 0 && calls >= maxCalls {
			opts.ToolChoice = "none" // budget spent: ask for the answer
		}
		reply, err := r.opts.LLM.Chat(ctx, msgs, opts)
		if err != nil {
			return nil, strings.Join(trace, "\n"), err
		}
		if len(reply.ToolCalls) == 0 {
			text := strings.TrimSpace(reply.Text)
			if text == "" {
				return map[string]any{"text": "", "tool_calls": calls}, strings.Join(trace, "\n"), &rejectedError{"the model gave an empty answer"}
			}
			out := map[string]any{"text": text, "tool_calls": calls}
			if reply.FinishReason == "length" {
				markCut(out, "text", whyAnswer)
			}
			return out, strings.Join(trace, "\n"), nil
		}
		if calls >= maxCalls {
			return map[string]any{"text": reply.Text, "tool_calls": calls}, strings.Join(trace, "\n"),
				&rejectedError{fmt.Sprintf("the model kept calling tools after using all %d allowed calls (max_tool_calls)", maxCalls)}
		}
		msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Content: reply.Text, ToolCalls: reply.ToolCalls})
		for _, tc := range reply.ToolCalls {
			var result string
			if calls >= maxCalls {
				result = `{"success":false,"error":"no tool calls left (max_tool_calls reached); answer with what you have"}`
			} else {
				calls++
				result = r.modelToolCall(ctx, n, tc, names)
				trace = append(trace, fmt.Sprintf("call %d: %s(%s) → %s", calls, names[tc.Name], truncate(tc.Arguments, 200), truncate(result, 300)))
			}
			msgs = append(msgs, llm.Message{Role: llm.RoleTool, ToolCallID: tc.ID, Content: result})
		}
		if err := ctx.Err(); err != nil {
			return nil, strings.Join(trace, "\n"), err
		}
	}
}

var fnNameBad = regexp.MustCompile(`[^a-zA-Z0-9_-]`)

// toolDefs turns allowed tool names into function definitions. OpenAI
// function names cannot contain dots, so "fs.read_text_file" is offered as
// "fs__read_text_file"; names maps back.
func (r *run) toolDefs(ctx context.Context, allowed []string) ([]llm.Tool, map[string]string, error) {
	names := map[string]string{}
	var defs []llm.Tool
	for _, name := range allowed {
		t, err := r.describeTool(ctx, name)
		if err != nil {
			return nil, nil, err
		}
		fn := fnNameBad.ReplaceAllString(strings.ReplaceAll(name, ".", "__"), "_")
		if len(fn) > 64 {
			fn = fn[:64]
		}
		for base, k := fn, 2; names[fn] != ""; k++ {
			fn = fmt.Sprintf("%s_%d", base[:min(len(base), 60)], k)
		}
		names[fn] = name
		var params map[string]any
		if len(t.InputSchema) > 0 {
			json.Unmarshal(t.InputSchema, &params)
		}
		if params == nil {
			params = map[string]any{"type": "object"}
		}
		defs = append(defs, llm.Tool{Name: fn, Description: t.Description, Parameters: params})
	}
	return defs, names, nil
}

// modelToolCall runs one tool call the model asked for and renders the
// result (or the error) for the model: tool errors go back to the model,
// which can correct itself, rather than failing the step.
func (r *run) modelToolCall(ctx context.Context, n *workflow.Node, tc llm.ToolCall, names map[string]string) string {
	name, ok := names[tc.Name]
	if !ok {
		r.log.emit(Event{Type: EvToolCall, NodeID: n.ID, NodeKey: n.Key, Tool: tc.Name, Status: StatusFailed, Message: "not an allowed tool"})
		return fmt.Sprintf(`{"success":false,"error":%q}`, "unknown or not allowed tool "+tc.Name+"; use one of the tools you were given")
	}
	var callArgs map[string]any
	if strings.TrimSpace(tc.Arguments) != "" {
		if err := json.Unmarshal([]byte(tc.Arguments), &callArgs); err != nil {
			r.log.emit(Event{Type: EvToolCall, NodeID: n.ID, NodeKey: n.Key, Tool: name, Status: StatusFailed, Message: "arguments are not a JSON object"})
			return fmt.Sprintf(`{"success":false,"error":%q}`, "the arguments are not a JSON object: "+err.Error())
		}
	}
	sealed, err := sealModelArgs(name, callArgs)
	var out map[string]any
	if err == nil {
		out, err = r.callTool(ctx, n, name, sealed)
	}
	res := map[string]any{"success": err == nil}
	for k, v := range out {
		res[k] = v
	}
	ev := Event{Type: EvToolCall, NodeID: n.ID, NodeKey: n.Key, Tool: name, Status: StatusOK, Message: truncate(tc.Arguments, 300)}
	if err != nil {
		res["error"] = r.red.String(err.Error()) // it goes back to the model
		ev.Status = StatusFailed
		ev.Message = truncate(err.Error(), 300)
	}
	r.log.emit(ev)
	b, _ := json.Marshal(bounded(res, maxToolResult))
	return string(b)
}

// ---- AiTransform ----

var transformSystem = map[string]string{
	"summarize": "Summarize the input for the next step of an automation workflow. Answer with the summary only.",
	"extract":   "Extract data from the input for an automation workflow. Answer with one JSON object only: no prose, no code fences.",
	"classify":  "Classify the input for an automation workflow. Answer with exactly one of the allowed labels, and nothing else.",
}

// aiTransform makes one model call and checks the answer has the kind's
// shape: text (summarize), a JSON object (extract), one of the labels
// (classify).
func (r *run) aiTransform(ctx context.Context, n *workflow.Node, rc *retryContext) (map[string]any, string, error) {
	kind := n.Params.Kind
	system, ok := transformSystem[kind]
	if !ok {
		return nil, "", argErrorf("AiTransform: unknown kind %q (summarize, extract or classify)", kind)
	}
	if kind == "classify" && len(n.Params.Labels) == 0 {
		return nil, "", argErrorf("AiTransform: classify needs labels")
	}
	if r.opts.LLM == nil {
		return nil, "", &configError{"no model is configured: set one up in Preferences → Model (llm.base_url and llm.model)"}
	}
	input, err := r.renderText(n.Params.Input)
	if err != nil {
		return nil, "", argErrorf("input: %v", err)
	}
	var task strings.Builder
	p, err := r.renderText(n.Params.Prompt)
	if err != nil {
		return nil, "", argErrorf("prompt: %v", err)
	}
	if strings.TrimSpace(p) != "" {
		task.WriteString(p + "\n\n")
	}
	if kind == "classify" {
		task.WriteString("Allowed labels: " + strings.Join(n.Params.Labels, ", ") + "\n\n")
	}
	task.WriteString("<input>\n" + input + "\n</input>")
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: system}, {Role: llm.RoleUser, Content: rc.block() + task.String()}}
	reply, err := r.opts.LLM.Chat(ctx, msgs, llm.Options{Secrets: r.red.Secrets()}) // what the run has learned stays here
	if err != nil {
		return nil, "", err
	}
	answer := strings.TrimSpace(reply.Text)
	got := "the model answered: " + truncate(answer, 500)
	// An answer cut at the model's output limit is marked (truncated.go);
	// a label is one of the labels, whole, or no answer at all.
	cut := func(out map[string]any, field string) map[string]any {
		if reply.FinishReason == "length" {
			markCut(out, field, whyAnswer)
		}
		return out
	}
	switch kind {
	case "summarize":
		if answer == "" {
			return map[string]any{"text": ""}, got, &rejectedError{"the model gave an empty summary"}
		}
		return cut(map[string]any{"text": answer}, "text"), got, nil
	case "extract":
		data, err := parseJSONObject(answer)
		if err != nil {
			return map[string]any{"data": nil}, got, &rejectedError{"the model's answer is not a JSON object: " + err.Error()}
		}
		return cut(map[string]any{"data": data}, "data"), got, nil
	default:
		label, err := matchLabel(answer, n.Params.Labels)
		if err != nil {
			return map[string]any{"label": ""}, got, &rejectedError{err.Error()}
		}
		return map[string]any{"label": label}, got, nil
	}
}

var fence = regexp.MustCompile("(?s)```[a-zA-Z]*\\s*(.*?)```")

// parseJSONObject reads a JSON object from a model answer, tolerating code
// fences and prose around it.
func parseJSONObject(s string) (map[string]any, error) {
	if m := fence.FindStringSubmatch(s); m != nil {
		s = m[1]
	}
	s = strings.TrimSpace(s)
	var obj map[string]any
	err := json.Unmarshal([]byte(s), &obj)
	if err == nil && obj != nil {
		return obj, nil
	}
	if i, j := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}'); i >= 0 && j > i {
		if json.Unmarshal([]byte(s[i:j+1]), &obj) == nil && obj != nil {
			return obj, nil
		}
	}
	if err == nil {
		err = fmt.Errorf("got %s", truncate(s, 80))
	}
	return nil, err
}

// matchLabel finds which label an answer names: exactly (ignoring case,
// quotes and a final full stop), or as the only label it mentions.
func matchLabel(answer string, labels []string) (string, error) {
	a := strings.ToLower(strings.Trim(strings.TrimSpace(answer), "\"'`.*"))
	for _, l := range labels {
		if strings.ToLower(l) == a {
			return l, nil
		}
	}
	var found []string
	for _, l := range labels {
		if re, err := regexp.Compile(`(?i)\b` + regexp.QuoteMeta(l) + `\b`); err == nil && re.MatchString(answer) {
			found = append(found, l)
		}
	}
	if len(found) == 1 {
		return found[0], nil
	}
	return "", fmt.Errorf("the model answered %q, which is not exactly one of the labels %s", truncate(answer, 100), strings.Join(labels, ", "))
}

// describeTool returns the catalog entry of a tool (built-in, extra or
// MCP, starting the server if needed).
func (r *run) describeTool(ctx context.Context, name string) (tools.Tool, error) {
	if t, ok := tools.Builtin().Lookup(name); ok {
		return t, nil
	}
	if _, ok := r.opts.Tools[name]; ok {
		return tools.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}, nil
	}
	if t, ok, err := r.mcpTool(ctx, name); err != nil {
		return tools.Tool{}, err
	} else if ok {
		return t, nil
	}
	return tools.Tool{}, argErrorf("the tool %q is not a built-in tool and no configured MCP server offers it", name)
}
