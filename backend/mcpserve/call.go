package mcpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

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

// handler runs the workflow at path when the tool name is called, or,
// called again with a requestState, goes on with the run it names (the
// answer to an escalation, on protocol 2026-07-28 and later).
func (s *Server) handler(name, path string) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		if state := req.Params.RequestState; state != "" {
			c := s.resume(state)
			if c == nil {
				return nil, badParams("%s: requestState %q names no run waiting for an answer (answered, expired or never given)", name, state)
			}
			c.setReq(req)
			var er *sdk.ElicitResult
			if r, ok := req.Params.InputResponses[answerID].(*sdk.ElicitResult); ok {
				er = r
			}
			_ = s.svc.Respond(c.escID, runner.Response{Action: actionOf(er)})
			return c.wait(ctx)
		}
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
		c := &call{s: s, req: req, name: name, escs: make(chan *service.Escalation, 1), fin: make(chan *service.Finished, 1)}
		// The run outlives this request when the client is asked in the
		// call's result (multi round-trip); wait stops it when the client
		// cancels.
		res, err := s.svc.Start(context.WithoutCancel(ctx), service.StartRequest{Workflow: w, Path: path, Source: runner.RunByMCP,
			Inputs: args, Sink: service.SinkFunc(c.event)})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if !res.Started {
			return c.notStarted(path, res)
		}
		c.runID = res.RunID
		return c.wait(ctx)
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
	s     *Server
	name  string
	runID string
	escs  chan *service.Escalation
	fin   chan *service.Finished

	mu       sync.Mutex
	req      *sdk.CallToolRequest // the request now (a retry replaces it)
	escID    string               // the escalation the client is asked
	progress float64
	failures []failure.Record
}

func (c *call) setReq(req *sdk.CallToolRequest) {
	c.mu.Lock()
	c.req = req
	c.mu.Unlock()
}

func (c *call) request() *sdk.CallToolRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.req
}

// event hears the run: a step's end is a progress notification (when the
// client gave a progressToken); escalations and the end go to wait.
func (c *call) event(e service.Event) {
	switch {
	case e.Run != nil:
		ev := e.Run
		if ev.Type != runner.EvNodeFinished && ev.Type != runner.EvNodeSkipped {
			return
		}
		req := c.request()
		tok := req.Params.GetProgressToken()
		if tok == nil {
			return
		}
		c.mu.Lock()
		c.progress++
		p := c.progress
		c.mu.Unlock()
		msg := fmt.Sprintf("%s: step %s %s", c.name, stepName(ev.NodeName, ev.NodeKey), ev.Status)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: tok, Progress: p, Message: msg})
		cancel()
	case e.Escalation != nil:
		c.mu.Lock()
		c.failures = e.Escalation.Escalation.Failures
		c.mu.Unlock()
		c.escs <- e.Escalation // the run waits for its answer: one at a time
	case e.Finished != nil:
		c.fin <- e.Finished
	}
}

// wait waits for the run's end, answering its escalations: abort when
// the client cannot be asked; else the client is asked retry, skip or
// abort, by an elicitation request (protocols before 2026-07-28) or in
// this call's result, to call again with the answer and this requestState
// (multi round-trip). The client cancelling the call stops the run.
func (c *call) wait(ctx context.Context) (*sdk.CallToolResult, error) {
	for {
		select {
		case esc := <-c.escs:
			req := c.request()
			params, ok := c.question(req, esc.Escalation)
			switch {
			case !ok:
				_ = c.s.svc.Respond(esc.ID, runner.Response{Action: runner.ActAbort})
			case multiRoundTrip(req):
				c.mu.Lock()
				c.escID = esc.ID
				c.mu.Unlock()
				return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{answerID: params}, RequestState: c.s.park(c)}, nil
			default:
				res, err := req.Session.Elicit(ctx, params)
				if err != nil {
					res = nil
				}
				_ = c.s.svc.Respond(esc.ID, runner.Response{Action: actionOf(res)})
			}
		case fin := <-c.fin:
			return c.result(fin), nil
		case <-ctx.Done():
			c.s.svc.Stop(c.runID)
			return nil, ctx.Err()
		}
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

// answerID names the one input a call asks for.
const answerID = "escalation"

// question is what the client is asked about an escalation; ok false when
// it cannot be asked (no elicitation).
func (c *call) question(req *sdk.CallToolRequest, e runner.Escalation) (*sdk.ElicitParams, bool) {
	ip := req.Session.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil {
		return nil, false
	}
	msg := fmt.Sprintf("The Weft workflow %s stopped at step %s: %s. Retry the step, skip it, or abort the run?",
		c.name, stepName(e.NodeName, e.NodeKey), strings.TrimSpace(e.LastError))
	return &sdk.ElicitParams{Mode: "form", Message: msg, RequestedSchema: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"action": map[string]any{"type": "string", "enum": answers, "description": "retry, skip or abort"},
		},
		"required": []string{"action"},
	}}, true
}

// multiRoundTrip says whether the client wants questions in a call's
// result rather than as requests of their own (protocol 2026-07-28 on).
func multiRoundTrip(req *sdk.CallToolRequest) bool {
	ip := req.Session.InitializeParams()
	return ip != nil && ip.ProtocolVersion >= "2026-07-28"
}

// actionOf is the answer an elicitation gave: retry, skip or abort, and
// abort for anything else (declined, dismissed, another value).
func actionOf(res *sdk.ElicitResult) runner.Action {
	if res == nil || res.Action != "accept" {
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
