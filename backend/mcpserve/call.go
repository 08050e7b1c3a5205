package mcpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/service"
)

// badParams is a JSON-RPC invalid-params error: nothing started.
func badParams(format string, a ...any) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(format, a...)}
}

// handler runs the workflow at path when the tool name is called.
func (s *Server) handler(name, path string) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		args, err := arguments(req.Params.Arguments)
		if err != nil {
			return nil, badParams("%s: %v", name, err)
		}
		// The file as it is now, judged again: it may have changed or
		// lost its trust since it was listed.
		w, ft, err := s.svc.TrustedWorkflow(path)
		switch {
		case err != nil:
			return nil, badParams("%s: its workflow file cannot be read now (%v): nothing ran; call again once it is saved", name, err)
		case w == nil:
			return toolError(fmt.Sprintf("nothing ran: %s is not trusted on this machine any more (%s): review it in Weft, or weft trust its folder", path, ft.Why), nil), nil
		}
		c := &call{s: s, req: req, name: name}
		res, fin, err := s.svc.Run(ctx, service.StartRequest{Workflow: w, Path: path, Source: runner.RunByMCP,
			Inputs: args, Sink: service.SinkFunc(func(e service.Event) { c.event(ctx, e) }), Detach: false})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if !res.Started {
			return c.notStarted(path, res)
		}
		return c.result(fin), nil
	}
}

// arguments decodes a call's arguments: a JSON object, or nothing.
func arguments(raw any) (map[string]any, error) {
	var b []byte
	switch v := raw.(type) {
	case nil:
		return map[string]any{}, nil
	case json.RawMessage:
		b = v
	default:
		var err error
		if b, err = json.Marshal(v); err != nil {
			return nil, fmt.Errorf("the arguments cannot be read: %w", err)
		}
	}
	if t := bytes.TrimSpace(b); len(t) == 0 || string(t) == "null" {
		return map[string]any{}, nil
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil || m == nil {
		return nil, fmt.Errorf("the arguments must be one JSON object of the workflow's inputs")
	}
	return m, nil
}

// call is one tool call's run: its progress and escalations.
type call struct {
	s    *Server
	req  *sdk.CallToolRequest
	name string

	mu       sync.Mutex
	progress float64
	failures []failure.Record
}

// event tells the client a step's end (a progress notification, when it
// gave a progressToken) and answers an escalation.
func (c *call) event(ctx context.Context, e service.Event) {
	switch {
	case e.Run != nil:
		ev := e.Run
		if ev.Type != runner.EvNodeFinished && ev.Type != runner.EvNodeSkipped {
			return
		}
		tok := c.req.Params.GetProgressToken()
		if tok == nil {
			return
		}
		c.mu.Lock()
		c.progress++
		p := c.progress
		c.mu.Unlock()
		msg := fmt.Sprintf("%s: step %s %s", c.name, stepName(ev.NodeName, ev.NodeKey), ev.Status)
		_ = c.req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: tok, Progress: p, Message: msg})
	case e.Escalation != nil:
		c.mu.Lock()
		c.failures = e.Escalation.Escalation.Failures
		c.mu.Unlock()
		_ = c.s.svc.Respond(e.Escalation.ID, runner.Response{Action: c.ask(ctx, e.Escalation.Escalation)})
	}
}

func stepName(name, key string) string {
	if name != "" {
		return name
	}
	return key
}

// answers are what an agent may answer an escalation: never a fix (an
// instruction or arguments a model would write) nor a replan.
var answers = []string{string(runner.ActRetry), string(runner.ActSkip), string(runner.ActAbort)}

// ask is the answer to an escalation: the client's, by elicitation, when
// it supports it; else abort (as weft run --on-escalate abort). A client
// on protocol 2026-07-28 or later cannot be sent an elicitation while its
// call goes (it wants it in the call's result, to call again with the
// answer): Elicit fails and the run is aborted, as for a client that
// cannot be asked.
func (c *call) ask(ctx context.Context, e runner.Escalation) runner.Action {
	ip := c.req.Session.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil {
		return runner.ActAbort
	}
	msg := fmt.Sprintf("The Weft workflow %s stopped at step %s: %s. Retry the step, skip it, or abort the run?",
		c.name, stepName(e.NodeName, e.NodeKey), strings.TrimSpace(e.LastError))
	res, err := c.req.Session.Elicit(ctx, &sdk.ElicitParams{Message: msg, RequestedSchema: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"action": map[string]any{"type": "string", "enum": answers, "description": "retry, skip or abort"},
		},
		"required": []string{"action"},
	}})
	if err != nil || res == nil || res.Action != "accept" {
		return runner.ActAbort
	}
	a, _ := res.Content["action"].(string)
	for _, ok := range answers {
		if a == ok {
			return runner.Action(a)
		}
	}
	return runner.ActAbort
}

// notStarted is the answer to a call that started nothing.
func (c *call) notStarted(path string, res service.StartResult) (*sdk.CallToolResult, error) {
	switch {
	case len(res.InputProblems) > 0:
		msgs := make([]string, len(res.InputProblems))
		for i, p := range res.InputProblems {
			msgs[i] = p.Message
		}
		return nil, badParams("%s: the arguments do not fit the workflow's inputs, nothing ran: %s", c.name, strings.Join(msgs, "; "))
	case len(res.Approval) > 0:
		return toolError(approveHint(path, res.Approval), map[string]any{"outcome": "not_approved", "waiting": res.Approval}), nil
	case len(res.Problems) > 0:
		return toolError("nothing ran: "+res.Error, map[string]any{"outcome": "invalid", "problems": res.Problems}), nil
	}
	return toolError("nothing ran: "+res.Error, map[string]any{"outcome": "not_started"}), nil
}

// result is the answer to a run that went: a short summary, and its
// outcome and outputs; a run that did not succeed is an error with its
// failure record.
func (c *call) result(fin *service.Finished) *sdk.CallToolResult {
	outputs := map[string]any{}
	if fin.Result != nil && fin.Result.Outputs != nil {
		outputs = fin.Result.Outputs
	}
	sc := map[string]any{"outcome": fin.Outcome, "outputs": outputs, "run_id": fin.RunID}
	text := fmt.Sprintf("Workflow %s %s (run %s).", c.name, fin.Outcome, fin.RunID)
	if keys := outputKeys(outputs); len(keys) > 0 {
		text += " Outputs: " + strings.Join(keys, ", ") + "."
	}
	if fin.Outcome == runner.OutcomeSucceeded {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}, StructuredContent: sc}
	}
	if fin.Error != "" {
		text += " " + fin.Error
	}
	sc["error"] = fin.Error
	if fin.StoppedAt != nil {
		sc["stopped_at"] = fin.StoppedAt
	}
	c.mu.Lock()
	if len(c.failures) > 0 {
		sc["failures"] = c.failures
	}
	c.mu.Unlock()
	r := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}, StructuredContent: sc, IsError: true}
	return r
}

// outputKeys are the first output keys, sorted, for the summary.
func outputKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) > maxSummaryOutputs {
		keys = append(keys[:maxSummaryOutputs], "…")
	}
	return keys
}

// toolError is a tool result that is an error, with what it says in
// text and, when given, structured.
func toolError(text string, sc map[string]any) *sdk.CallToolResult {
	r := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}, IsError: true}
	if sc != nil {
		r.StructuredContent = sc
	}
	return r
}
