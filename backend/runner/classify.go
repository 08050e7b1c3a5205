package runner

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"strings"
	"syscall"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/mcp"
)

// ArgError is an invalid or missing argument: the node's configuration is
// wrong, so retrying the same call cannot succeed.
type ArgError struct{ Msg string }

func (e *ArgError) Error() string { return e.Msg }

func argErrorf(format string, args ...any) error {
	return &ArgError{Msg: sprintf(format, args...)}
}

// configError is a problem with Weft's own configuration (no model set up,
// an MCP server that will not start): retrying cannot fix it.
type configError struct{ msg string }

func (e *configError) Error() string { return e.msg }

// Classify judges a failure from its type, its error and the node's
// outputs (exit codes, HTTP status, stderr). ai says the node is an AI
// step, which a retry can steer to a different approach, so more of its
// failures are worth retrying.
func Classify(ft failure.Type, err error, outputs map[string]any, ai bool) failure.Classification {
	c := classify(ft, err, outputs)
	if ai && !c.Retryable {
		switch c.Category {
		case failure.CatNotFound, failure.CatLogic, failure.CatUnknown:
			c.Retryable = true // the model can look elsewhere or try another way
		}
	}
	if c.SuggestedFix == "" {
		c.SuggestedFix = suggestion(c.Category, ai)
	}
	return c
}

func classify(ft failure.Type, err error, outputs map[string]any) failure.Classification {
	if ft == failure.FailTimeout || errors.Is(err, context.DeadlineExceeded) {
		return failure.Classification{Severity: failure.SevMedium, Category: failure.CatTimeout, Retryable: true}
	}
	if ft == failure.FailRejected {
		return failure.Classification{Severity: failure.SevMedium, Category: failure.CatLogic, Retryable: true}
	}
	var re *RedirectError
	if errors.As(err, &re) {
		return failure.Classification{Severity: failure.SevHigh, Category: failure.CatPermission, SuggestedFix: re.Fix}
	}
	var se *SecretError
	if errors.As(err, &se) { // the fix is in the store (a binding, a value), not in trying again
		return failure.Classification{Severity: failure.SevHigh, Category: failure.CatPermission}
	}
	var ae *ArgError
	if errors.As(err, &ae) {
		return failure.Classification{Severity: failure.SevHigh, Category: failure.CatValidation}
	}
	var ce *configError
	if errors.As(err, &ce) {
		return failure.Classification{Severity: failure.SevCritical, Category: failure.CatEnvironment}
	}
	var ese *ExitStatusError
	if errors.As(err, &ese) && ese.Signal != 0 {
		c := failure.Classification{Severity: failure.SevMedium, Category: failure.CatUnknown, Retryable: true,
			SuggestedFix: fmt.Sprintf("The command was killed by signal %d (%s) before it finished.", int(ese.Signal), ese.Signal)}
		if ese.Signal == syscall.SIGKILL {
			c.Category = failure.CatResource
			c.SuggestedFix += " SIGKILL often means it ran out of memory (the OOM killer) or something stopped it: check the system log."
		}
		return c
	}
	if c, ok := classifyLLM(err); ok {
		return c
	}
	if c, ok := classifyMCP(err); ok {
		return c
	}
	switch {
	case errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM), errors.Is(err, syscall.EROFS):
		return failure.Classification{Severity: failure.SevHigh, Category: failure.CatPermission}
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return failure.Classification{Severity: failure.SevHigh, Category: failure.CatResource, SuggestedFix: "Free disk space, or write somewhere else."}
	case errors.Is(err, syscall.EMFILE), errors.Is(err, syscall.ENFILE), errors.Is(err, syscall.EAGAIN):
		return failure.Classification{Severity: failure.SevMedium, Category: failure.CatResource, Retryable: true}
	case errors.Is(err, fs.ErrNotExist):
		return failure.Classification{Severity: failure.SevMedium, Category: failure.CatNotFound}
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return failure.Classification{Severity: failure.SevMedium, Category: failure.CatNetwork, Retryable: true}
	}
	var ne net.Error
	if errors.As(err, &ne) {
		if ne.Timeout() {
			return failure.Classification{Severity: failure.SevMedium, Category: failure.CatTimeout, Retryable: true}
		}
		return failure.Classification{Severity: failure.SevMedium, Category: failure.CatNetwork, Retryable: true}
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return failure.Classification{Severity: failure.SevMedium, Category: failure.CatNetwork, Retryable: true}
	}

	// What the outputs say (mostly for verification failures, where the
	// tool itself did not fail).
	if code, ok := intOutput(outputs, "exit_code"); ok {
		switch code {
		case 126:
			return failure.Classification{Severity: failure.SevHigh, Category: failure.CatPermission, SuggestedFix: "The command exists but cannot be executed: check its permissions (chmod +x) or run it through its interpreter."}
		case 127:
			return failure.Classification{Severity: failure.SevHigh, Category: failure.CatDependency, SuggestedFix: "The command was not found: install it or fix its name or PATH."}
		}
	}
	if st, ok := intOutput(outputs, "status"); ok {
		switch {
		case st == 401 || st == 403:
			return failure.Classification{Severity: failure.SevHigh, Category: failure.CatPermission, SuggestedFix: "The server refused access: check the credentials or headers."}
		case st == 404 || st == 410:
			return failure.Classification{Severity: failure.SevMedium, Category: failure.CatNotFound, SuggestedFix: "The URL does not exist: check it."}
		case st == 408:
			return failure.Classification{Severity: failure.SevMedium, Category: failure.CatTimeout, Retryable: true}
		case st == 429:
			return failure.Classification{Severity: failure.SevMedium, Category: failure.CatResource, Retryable: true, SuggestedFix: "The server is rate limiting: wait longer between attempts (raise retry.backoff.initial_ms)."}
		case st >= 500:
			return failure.Classification{Severity: failure.SevMedium, Category: failure.CatNetwork, Retryable: true}
		case st >= 400:
			return failure.Classification{Severity: failure.SevHigh, Category: failure.CatValidation, SuggestedFix: "The server rejected the request: check the method, URL, headers and body."}
		}
	}
	text := ""
	if err != nil {
		text = err.Error()
	}
	if s, ok := outputs["stderr"].(string); ok {
		text += "\n" + tail(s, 2000)
	}
	if c, ok := classifyText(text); ok {
		return c
	}
	if ft == failure.FailVerification {
		return failure.Classification{Severity: failure.SevMedium, Category: failure.CatLogic, Retryable: true}
	}
	return failure.Classification{Severity: failure.SevMedium, Category: failure.CatUnknown, Retryable: true}
}

// textRules map words of an error message to a class, first match wins.
// Lower-case substrings.
var textRules = []struct {
	words []string
	c     failure.Classification
}{
	{[]string{"permission denied", "access denied", "operation not permitted", "eacces", "eperm", "read-only file system", "not allowed", "forbidden", "unauthorized", "outside allowed directories"},
		failure.Classification{Severity: failure.SevHigh, Category: failure.CatPermission}},
	{[]string{"command not found", "cannot find module", "module not found", "no module named", "not installed", "executable file not found", "missing dependency"},
		failure.Classification{Severity: failure.SevHigh, Category: failure.CatDependency}},
	{[]string{"invalid argument", "invalid params", "invalid parameter", "invalid input", "validation error", "validation failed", "is required", "required property", "unexpected argument", "unknown argument", "must be a", "must be an", "missing properties", "missing required", "validating \"arguments\""},
		failure.Classification{Severity: failure.SevHigh, Category: failure.CatValidation}},
	{[]string{"no space left", "disk quota", "out of memory", "cannot allocate memory"},
		failure.Classification{Severity: failure.SevHigh, Category: failure.CatResource}},
	{[]string{"too many open files", "resource temporarily unavailable", "rate limit", "too many requests", "quota exceeded"},
		failure.Classification{Severity: failure.SevMedium, Category: failure.CatResource, Retryable: true}},
	{[]string{"timed out", "timeout", "deadline exceeded"},
		failure.Classification{Severity: failure.SevMedium, Category: failure.CatTimeout, Retryable: true}},
	{[]string{"connection refused", "connection reset", "broken pipe", "no such host", "network is unreachable", "host is unreachable", "temporary failure in name resolution", "tls handshake", "unexpected eof", "service unavailable", "bad gateway"},
		failure.Classification{Severity: failure.SevMedium, Category: failure.CatNetwork, Retryable: true}},
	{[]string{"no such file", "not found", "does not exist", "enoent", "cannot find", "no such"},
		failure.Classification{Severity: failure.SevMedium, Category: failure.CatNotFound}},
	{[]string{"syntax error", "parse error", "unexpected token", "invalid json", "is not valid json"},
		failure.Classification{Severity: failure.SevMedium, Category: failure.CatLogic, Retryable: true}},
}

func classifyText(s string) (failure.Classification, bool) {
	if s == "" {
		return failure.Classification{}, false
	}
	l := strings.ToLower(s)
	for _, r := range textRules {
		for _, w := range r.words {
			if strings.Contains(l, w) {
				return r.c, true
			}
		}
	}
	return failure.Classification{}, false
}

func classifyLLM(err error) (failure.Classification, bool) {
	var le *llm.Error
	if !errors.As(err, &le) {
		return failure.Classification{}, false
	}
	switch {
	case errors.Is(le, llm.ErrConfig):
		return failure.Classification{Severity: failure.SevCritical, Category: failure.CatEnvironment, SuggestedFix: "Set up the model in Preferences → Model (or weft settings set llm.model …)."}, true
	case errors.Is(le, llm.ErrCanceled):
		return failure.Classification{Severity: failure.SevMedium, Category: failure.CatTimeout, Retryable: true}, true
	case errors.Is(le, llm.ErrRejected):
		switch le.StatusCode {
		case 401, 403:
			return failure.Classification{Severity: failure.SevCritical, Category: failure.CatPermission, SuggestedFix: "Check the API key in Preferences → Model."}, true
		case 404:
			return failure.Classification{Severity: failure.SevCritical, Category: failure.CatEnvironment, SuggestedFix: "Check the model name and base URL in Preferences → Model."}, true
		case 429:
			return failure.Classification{Severity: failure.SevMedium, Category: failure.CatResource, Retryable: true}, true
		}
		return failure.Classification{Severity: failure.SevHigh, Category: failure.CatValidation}, true
	case errors.Is(le, llm.ErrRateLimited):
		return failure.Classification{Severity: failure.SevMedium, Category: failure.CatResource, Retryable: true,
			SuggestedFix: "The model server is rate limiting: wait before retrying, or raise the node's retry backoff."}, true
	case errors.Is(le, llm.ErrBadResponse):
		return failure.Classification{Severity: failure.SevHigh, Category: failure.CatDependency, Retryable: true}, true
	}
	return failure.Classification{Severity: failure.SevMedium, Category: failure.CatNetwork, Retryable: true, SuggestedFix: "The model endpoint is unreachable: check that it runs."}, true
}

func classifyMCP(err error) (failure.Classification, bool) {
	var me *mcp.Error
	if !errors.As(err, &me) {
		return failure.Classification{}, false
	}
	switch me.Kind {
	case mcp.KindUnknownServer:
		return failure.Classification{Severity: failure.SevCritical, Category: failure.CatEnvironment, SuggestedFix: "Add the server to mcp_servers in settings, or pick another tool."}, true
	case mcp.KindStart:
		c := failure.Classification{Severity: failure.SevCritical, Category: failure.CatDependency, SuggestedFix: "Check the server's command and arguments in settings (mcp_servers) and that it is installed."}
		if tc, ok := classifyText(me.Message); ok && tc.Category == failure.CatPermission {
			c.Category = failure.CatPermission
		}
		return c, true
	case mcp.KindCrashed:
		return failure.Classification{Severity: failure.SevHigh, Category: failure.CatEnvironment, Retryable: true, SuggestedFix: "The MCP server stopped; it is restarted on the next attempt. Its last output is in the error."}, true
	case mcp.KindProtocol:
		switch me.Code {
		case -32602:
			return failure.Classification{Severity: failure.SevHigh, Category: failure.CatValidation, SuggestedFix: "The server rejected the arguments: check them against the tool's schema."}, true
		case -32601:
			return failure.Classification{Severity: failure.SevHigh, Category: failure.CatNotFound, SuggestedFix: "The server has no such tool: pick one it lists."}, true
		}
		if tc, ok := classifyText(me.Message); ok {
			return tc, true
		}
		return failure.Classification{Severity: failure.SevMedium, Category: failure.CatUnknown, Retryable: true}, true
	}
	if tc, ok := classifyText(me.Message); ok {
		return tc, true
	}
	return failure.Classification{Severity: failure.SevMedium, Category: failure.CatUnknown, Retryable: true}, true
}

// suggestion is the default advice per category (seed 002's critic
// suggestions, for the retry context and the escalation).
func suggestion(c failure.Category, ai bool) string {
	switch c {
	case failure.CatNotFound:
		if ai {
			return "The path or resource was not found: list the folder first (list_files) to find the right name instead of guessing; relative paths start at the workflow's folder."
		}
		return "The path or resource was not found: check it; relative paths start at the workflow's folder."
	case failure.CatPermission:
		return "Access was denied: check that the path or resource is accessible, or use one you may write to. Retrying cannot fix this."
	case failure.CatValidation:
		return "The arguments are invalid: fix them in the node (a fix response can merge corrected arguments)."
	case failure.CatDependency:
		return "Something the step needs is missing: install it or fix its name."
	case failure.CatTimeout:
		return "The step took too long: raise the node's timeout_ms or make the step do less."
	case failure.CatNetwork:
		return "The service did not answer: check that it is up and reachable."
	case failure.CatResource:
		return "A resource ran out: free it or wait longer between attempts."
	case failure.CatEnvironment:
		return "The environment is not set up for this step: check settings."
	case failure.CatLogic:
		if ai {
			return "The result did not meet the requirement: read the failure and try a different approach."
		}
		return "The step ran but its result did not meet the verify condition: look at the outputs."
	}
	return ""
}

func intOutput(outputs map[string]any, name string) (int, bool) {
	switch v := outputs[name].(type) {
	case int:
		return v, true
	case int64:
		return int(v), true
	case float64:
		return int(v), true
	}
	return 0, false
}
