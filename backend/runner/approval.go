package runner

import (
	"context"
	"fmt"
	"strings"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/workflow"
)

// EffectKind says how a step changes the world.
type EffectKind string

const (
	EffectCommand     EffectKind = "command"      // run_command
	EffectFileWrite   EffectKind = "file_write"   // write_file
	EffectRequest     EffectKind = "request"      // http_request with a method other than GET or HEAD
	EffectTool        EffectKind = "tool"         // a catalog tool marked as having side effects (MCP tools without readOnlyHint)
	EffectUnknownTool EffectKind = "unknown_tool" // a tool the catalog does not describe: its effects are unknown
	EffectAgent       EffectKind = "agent"        // an AiStep allowed to call side-effecting tools
)

// SideEffect is a step that needs the user's approval before a replanned
// workflow runs (seed 004): it runs commands, writes files, sends
// requests that are not GET or HEAD, calls a tool that may change things,
// or lets an AI agent do any of these.
type SideEffect struct {
	NodeRef
	Type workflow.NodeType `json:"type"`
	Tool string            `json:"tool,omitempty"`
	Kind EffectKind        `json:"kind"`
	// Detail says what the step does, for the approval dialog: the
	// command, the path, the method and URL, the tools an agent may call.
	Detail string `json:"detail"`
	// Tools are the side-effecting tools an AiStep may call.
	Tools []string `json:"tools,omitempty"`
}

// SideEffectNodes lists the enabled steps of w that need approval, in
// node order. cat describes the tools (MCP tools carry SideEffects false
// only when their server marks them readOnlyHint); nil means the
// built-ins, so every MCP tool counts as side-effecting. Arguments are
// judged as written: a templated http_request method counts as non-GET.
func SideEffectNodes(w *workflow.Workflow, cat *tools.Catalog) []SideEffect {
	if w == nil {
		return nil
	}
	if cat == nil {
		cat = tools.Builtin()
	}
	var out []SideEffect
	for i := range w.Nodes {
		n := &w.Nodes[i]
		if !n.IsEnabled() {
			continue
		}
		switch n.Type {
		case workflow.TypeTool:
			kind, detail := toolEffect(n.Params.Tool, n.Params.Arguments, cat)
			if kind != "" {
				out = append(out, SideEffect{NodeRef: *ref(n), Type: n.Type, Tool: n.Params.Tool, Kind: kind, Detail: detail})
			}
		case workflow.TypeAiStep:
			var risky []string
			for _, t := range n.Params.AllowedTools {
				// The model chooses the arguments: judge the tool alone.
				if kind, _ := toolEffect(t, nil, cat); kind != "" {
					risky = append(risky, t)
				}
			}
			if len(risky) > 0 {
				out = append(out, SideEffect{NodeRef: *ref(n), Type: n.Type, Kind: EffectAgent, Tools: risky,
					Detail: "an AI agent may call " + strings.Join(risky, ", ")})
			}
		}
	}
	return out
}

// toolEffect judges one tool call; args nil means any arguments.
func toolEffect(name string, args map[string]any, cat *tools.Catalog) (EffectKind, string) {
	str := func(k string) string {
		s, _ := args[k].(string)
		return truncate(strings.Join(strings.Fields(s), " "), 120)
	}
	switch name {
	case "run_command":
		if c := str("command"); c != "" {
			return EffectCommand, "runs `" + c + "`"
		}
		return EffectCommand, "runs a command"
	case "write_file":
		if p := str("path"); p != "" {
			return EffectFileWrite, "writes " + p
		}
		return EffectFileWrite, "writes a file"
	case "http_request":
		if args == nil {
			return EffectRequest, "sends HTTP requests"
		}
		m, isStr := args["method"].(string)
		m = strings.ToUpper(strings.TrimSpace(m))
		if isStr && (m == "GET" || m == "HEAD") {
			return "", ""
		}
		if m == "" || !isStr {
			m = "a request"
		} else if strings.Contains(m, "{{") {
			m = "a request with the templated method " + str("method")
		}
		d := "sends " + m
		if u := str("url"); u != "" {
			d += " to " + u
		}
		return EffectRequest, d
	}
	t, ok := cat.Lookup(name)
	switch {
	case !ok:
		return EffectUnknownTool, fmt.Sprintf("calls %s, which the tool catalog does not describe, so its effects are unknown", name)
	case t.SideEffects:
		if t.Server != "" {
			return EffectTool, fmt.Sprintf("calls %s (MCP server %s), which may change things", name, t.Server)
		}
		return EffectTool, fmt.Sprintf("calls %s, which may change things", name)
	}
	return "", ""
}

// ApprovalError is returned by Run when a workflow that needs approval
// (a replanned version, or Options.RequireApproval) has side-effecting
// steps and Options.Approve did not approve them. The run did not start.
type ApprovalError struct {
	Steps []SideEffect
	// Denied is true when Approve said no; false when nobody could be
	// asked (no Approve).
	Denied bool
}

func (e *ApprovalError) Error() string {
	var names []string
	for i, s := range e.Steps {
		if i == 5 {
			names = append(names, fmt.Sprintf("and %d more", len(e.Steps)-5))
			break
		}
		names = append(names, fmt.Sprintf("%q (%s)", s.Key, s.Detail))
	}
	verb := "was not approved"
	if !e.Denied {
		verb = "needs approval, and no one was asked"
	}
	return fmt.Sprintf("the workflow was replanned and %s: its %s %s; review %s before running it",
		verb, stepCount(len(e.Steps)), strings.Join(names, ", "), map[bool]string{true: "it", false: "them"}[len(e.Steps) == 1])
}

func stepCount(n int) string {
	if n == 1 {
		return "1 step"
	}
	return fmt.Sprintf("%d steps", n)
}

// checkApproval asks Options.Approve about the side-effecting steps of a
// workflow that needs approval. Called by Run before anything runs.
func (rn *Runner) checkApproval(ctx context.Context, w *workflow.Workflow) error {
	_, replanned := failure.ReplanInfoOf(w)
	if !replanned && !rn.opts.RequireApproval {
		return nil
	}
	steps := SideEffectNodes(w, rn.opts.ApprovalCatalog)
	if len(steps) == 0 {
		return nil
	}
	if rn.opts.Approve == nil {
		return &ApprovalError{Steps: steps}
	}
	ok, err := rn.opts.Approve(ctx, steps)
	if err != nil {
		return fmt.Errorf("asking for approval of the replanned workflow: %w", err)
	}
	if !ok {
		return &ApprovalError{Steps: steps, Denied: true}
	}
	return nil
}
