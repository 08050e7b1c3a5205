package runner

import (
	"context"
	"net/http"
	"strings"
	"syscall"
	"time"

	"github.com/weft-dev/weft/backend/workflow"
)

// Stand-ins (Options.Effects): a run whose every effect is answered by
// someone else, for workflow tests (package wtest). The effect gate
// (callTool) and the AI steps hand each call to the stand-in instead of
// the tools, the MCP servers and the model: with Effects set, the run has
// no path to anything that acts, so a call the stand-in cannot answer
// fails; it cannot run for real.

// Effects answers the effects of a run in place of the world.
type Effects interface {
	// Tool answers one tool call (a Tool step's, or any other the run
	// makes), its arguments as rendered; a secret shows as its
	// reference (render.Sealed), never its value, since none is read.
	Tool(ctx context.Context, c EffectCall) (map[string]any, error)
	// AI answers one attempt of an AI step (AiStep, AiTransform) with
	// its outputs.
	AI(ctx context.Context, n *workflow.Node, attempt int) (map[string]any, error)
}

// EffectCall is one tool call handed to Effects.
type EffectCall struct {
	Node *workflow.Node
	Name string
	Args map[string]any
	// Dir is the workflow's folder: relative paths start there.
	Dir string
}

// CommandOutcome is what a run_command with args gives when the command
// exits with code, stdout and stderr: its outputs, and the error the step
// fails with when ok_exit_codes (default 0) does not list code. The real
// tool and a stand-in judge the status by this one rule.
func CommandOutcome(a map[string]any, code int, stdout, stderr string) (map[string]any, error) {
	okCodes, hasOK, err := (args{"run_command", a}).intList("ok_exit_codes", 0, 255)
	if err != nil {
		return nil, err
	}
	if !hasOK {
		okCodes = []int{0}
	}
	out := map[string]any{"exit_code": code, "stdout": stdout, "stderr": stderr}
	return out, exitStatus(okCodes, code, 0, stderr)
}

// exitStatus is the error of a command that exited with code (or was
// killed by sig): nil when okCodes lists code and no signal killed it.
// A status the node does not accept fails the step (n8n, GitHub Actions,
// Ansible); a signal always does.
func exitStatus(okCodes []int, code int, sig syscall.Signal, stderr string) error {
	if sig != 0 || !containsInt(okCodes, code) {
		return &ExitStatusError{Code: code, Signal: sig, Stderr: stderr}
	}
	return nil
}

// HTTPOutcome is what an http_request with args gives when the server
// answers status, headers and body (save_to aside): its outputs, and the
// error the step fails with when status is 400 or above and ok_status
// does not list it. The real tool and a stand-in judge by this one rule.
func HTTPOutcome(a map[string]any, status int, headers http.Header, body string, now time.Time) (map[string]any, error) {
	okStatus, _, err := (args{"http_request", a}).intList("ok_status", 100, 599)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"status": status, "headers": headerOutputs(headers), "body": body}
	if httpFailed(okStatus, status) {
		return out, &HTTPStatusError{Status: status, RetryAfter: parseRetryAfter(headers.Get("Retry-After"), now), Body: body}
	}
	return out, nil
}

// headerOutputs are a response's headers as outputs: one string each.
func headerOutputs(h http.Header) map[string]any {
	out := make(map[string]any, len(h))
	for k, vs := range h {
		out[k] = strings.Join(vs, ", ")
	}
	return out
}

// httpFailed says whether a response status fails the step.
func httpFailed(okStatus []int, status int) bool {
	return status >= 400 && !containsInt(okStatus, status)
}
