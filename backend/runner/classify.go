package runner

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"strings"
	"syscall"

	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/mcp"
)

// FailureType says how an attempt failed.
type FailureType string

const (
	// FailExecution: the tool or model call returned an error.
	FailExecution FailureType = "execution_error"
	// FailVerification: the node ran but its verify condition was false.
	FailVerification FailureType = "verification_failed"
	// FailTimeout: the attempt ran past the node's timeout_ms (or the
	// command's own timeout_ms).
	FailTimeout FailureType = "timeout"
	// FailRejected: the model's answer was refused: not the JSON an
	// extract asked for, a label that is not one of the choices, or more
	// tool calls than the step allows.
	FailRejected FailureType = "rejected"
)

// Severity ranks a failure (seed 004): CRITICAL and HIGH are what
// automatic replanning reacts to; MEDIUM and LOW are handled by retrying.
type Severity string

const (
	SevCritical Severity = "CRITICAL"
	SevHigh     Severity = "HIGH"
	SevMedium   Severity = "MEDIUM"
	SevLow      Severity = "LOW"
)

// Category names the kind of cause.
type Category string

const (
	CatEnvironment Category = "environment"
	CatDependency  Category = "dependency"
	CatValidation  Category = "validation"
	CatLogic       Category = "logic"
	CatTimeout     Category = "timeout"
	CatResource    Category = "resource"
	CatPermission  Category = "permission"
	CatNetwork     Category = "network"
	CatNotFound    Category = "not_found"
	CatUnknown     Category = "unknown"
)

// Classification is the verdict on one failure.
type Classification struct {
	Severity Severity `json:"severity"`
	Category Category `json:"category"`
	// Retryable says whether trying again can help. Permission problems,
	// invalid arguments and missing programs are not: they escalate at
	// once (seed 003's "not retried" table).
	Retryable    bool   `json:"retryable"`
	SuggestedFix string `json:"suggested_fix,omitempty"`
}

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
func Classify(ft FailureType, err error, outputs map[string]any, ai bool) Classification {
	c := classify(ft, err, outputs)
	if ai && !c.Retryable {
		switch c.Category {
		case CatNotFound, CatLogic, CatUnknown:
			c.Retryable = true // the model can look elsewhere or try another way
		}
	}
	if c.SuggestedFix == "" {
		c.SuggestedFix = suggestion(c.Category, ai)
	}
	return c
}

func classify(ft FailureType, err error, outputs map[string]any) Classification {
	if ft == FailTimeout || errors.Is(err, context.DeadlineExceeded) {
		return Classification{Severity: SevMedium, Category: CatTimeout, Retryable: true}
	}
	if ft == FailRejected {
		return Classification{Severity: SevMedium, Category: CatLogic, Retryable: true}
	}
	var ae *ArgError
	if errors.As(err, &ae) {
		return Classification{Severity: SevHigh, Category: CatValidation}
	}
	var ce *configError
	if errors.As(err, &ce) {
		return Classification{Severity: SevCritical, Category: CatEnvironment}
	}
	if c, ok := classifyLLM(err); ok {
		return c
	}
	if c, ok := classifyMCP(err); ok {
		return c
	}
	switch {
	case errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM), errors.Is(err, syscall.EROFS):
		return Classification{Severity: SevHigh, Category: CatPermission}
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return Classification{Severity: SevHigh, Category: CatResource, SuggestedFix: "Free disk space, or write somewhere else."}
	case errors.Is(err, syscall.EMFILE), errors.Is(err, syscall.ENFILE), errors.Is(err, syscall.EAGAIN):
		return Classification{Severity: SevMedium, Category: CatResource, Retryable: true}
	case errors.Is(err, fs.ErrNotExist):
		return Classification{Severity: SevMedium, Category: CatNotFound}
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return Classification{Severity: SevMedium, Category: CatNetwork, Retryable: true}
	}
	var ne net.Error
	if errors.As(err, &ne) {
		if ne.Timeout() {
			return Classification{Severity: SevMedium, Category: CatTimeout, Retryable: true}
		}
		return Classification{Severity: SevMedium, Category: CatNetwork, Retryable: true}
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return Classification{Severity: SevMedium, Category: CatNetwork, Retryable: true}
	}

	// What the outputs say (mostly for verification failures, where the
	// tool itself did not fail).
	if code, ok := intOutput(outputs, "exit_code"); ok {
		switch code {
		case 126:
			return Classification{Severity: SevHigh, Category: CatPermission, SuggestedFix: "The command exists but cannot be executed: check its permissions (chmod +x) or run it through its interpreter."}
		case 127:
			return Classification{Severity: SevHigh, Category: CatDependency, SuggestedFix: "The command was not found: install it or fix its name or PATH."}
		}
	}
	if st, ok := intOutput(outputs, "status"); ok {
		switch {
		case st == 401 || st == 403:
			return Classification{Severity: SevHigh, Category: CatPermission, SuggestedFix: "The server refused access: check the credentials or headers."}
		case st == 404 || st == 410:
			return Classification{Severity: SevMedium, Category: CatNotFound, SuggestedFix: "The URL does not exist: check it."}
		case st == 408:
			return Classification{Severity: SevMedium, Category: CatTimeout, Retryable: true}
		case st == 429:
			return Classification{Severity: SevMedium, Category: CatResource, Retryable: true, SuggestedFix: "The server is rate limiting: wait longer between attempts (raise retry.backoff.initial_ms)."}
		case st >= 500:
			return Classification{Severity: SevMedium, Category: CatNetwork, Retryable: true}
		case st >= 400:
			return Classification{Severity: SevHigh, Category: CatValidation, SuggestedFix: "The server rejected the request: check the method, URL, headers and body."}
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
	if ft == FailVerification {
		return Classification{Severity: SevMedium, Category: CatLogic, Retryable: true}
	}
	return Classification{Severity: SevMedium, Category: CatUnknown, Retryable: true}
}

// textRules map words of an error message to a class, first match wins.
// Lower-case substrings.
var textRules = []struct {
	words []string
	c     Classification
}{
	{[]string{"permission denied", "access denied", "operation not permitted", "eacces", "eperm", "read-only file system", "not allowed", "forbidden", "unauthorized", "outside allowed directories"},
		Classification{Severity: SevHigh, Category: CatPermission}},
	{[]string{"command not found", "cannot find module", "module not found", "no module named", "not installed", "executable file not found", "missing dependency"},
		Classification{Severity: SevHigh, Category: CatDependency}},
	{[]string{"invalid argument", "invalid params", "invalid parameter", "invalid input", "validation error", "validation failed", "is required", "required property", "unexpected argument", "unknown argument", "must be a", "must be an", "missing properties", "missing required", "validating \"arguments\""},
		Classification{Severity: SevHigh, Category: CatValidation}},
	{[]string{"no space left", "disk quota", "out of memory", "cannot allocate memory"},
		Classification{Severity: SevHigh, Category: CatResource}},
	{[]string{"too many open files", "resource temporarily unavailable", "rate limit", "too many requests", "quota exceeded"},
		Classification{Severity: SevMedium, Category: CatResource, Retryable: true}},
	{[]string{"timed out", "timeout", "deadline exceeded"},
		Classification{Severity: SevMedium, Category: CatTimeout, Retryable: true}},
	{[]string{"connection refused", "connection reset", "broken pipe", "no such host", "network is unreachable", "host is unreachable", "temporary failure in name resolution", "tls handshake", "unexpected eof", "service unavailable", "bad gateway"},
		Classification{Severity: SevMedium, Category: CatNetwork, Retryable: true}},
	{[]string{"no such file", "not found", "does not exist", "enoent", "cannot find", "no such"},
		Classification{Severity: SevMedium, Category: CatNotFound}},
	{[]string{"syntax error", "parse error", "unexpected token", "invalid json", "is not valid json"},
		Classification{Severity: SevMedium, Category: CatLogic, Retryable: true}},
}

func classifyText(s string) (Classification, bool) {
	if s == "" {
		return Classification{}, false
	}
	l := strings.ToLower(s)
	for _, r := range textRules {
		for _, w := range r.words {
			if strings.Contains(l, w) {
				return r.c, true
			}
		}
	}
	return Classification{}, false
}

func classifyLLM(err error) (Classification, bool) {
	var le *llm.Error
	if !errors.As(err, &le) {
		return Classification{}, false
	}
	switch {
	case errors.Is(le, llm.ErrConfig):
		return Classification{Severity: SevCritical, Category: CatEnvironment, SuggestedFix: "Set up the model in Preferences → Model (or weft settings set llm.model …)."}, true
	case errors.Is(le, llm.ErrCanceled):
		return Classification{Severity: SevMedium, Category: CatTimeout, Retryable: true}, true
	case errors.Is(le, llm.ErrRejected):
		switch le.StatusCode {
		case 401, 403:
			return Classification{Severity: SevCritical, Category: CatPermission, SuggestedFix: "Check the API key in Preferences → Model."}, true
		case 404:
			return Classification{Severity: SevCritical, Category: CatEnvironment, SuggestedFix: "Check the model name and base URL in Preferences → Model."}, true
		case 429:
			return Classification{Severity: SevMedium, Category: CatResource, Retryable: true}, true
		}
		return Classification{Severity: SevHigh, Category: CatValidation}, true
	case errors.Is(le, llm.ErrBadResponse):
		return Classification{Severity: SevHigh, Category: CatDependency, Retryable: true}, true
	}
	return Classification{Severity: SevMedium, Category: CatNetwork, Retryable: true, SuggestedFix: "The model endpoint is unreachable: check that it runs."}, true
}

func classifyMCP(err error) (Classification, bool) {
	var me *mcp.Error
	if !errors.As(err, &me) {
		return Classification{}, false
	}
	switch me.Kind {
	case mcp.KindUnknownServer:
		return Classification{Severity: SevCritical, Category: CatEnvironment, SuggestedFix: "Add the server to mcp_servers in settings, or pick another tool."}, true
	case mcp.KindStart:
		c := Classification{Severity: SevCritical, Category: CatDependency, SuggestedFix: "Check the server's command and arguments in settings (mcp_servers) and that it is installed."}
		if tc, ok := classifyText(me.Message); ok && tc.Category == CatPermission {
			c.Category = CatPermission
		}
		return c, true
	case mcp.KindCrashed:
		return Classification{Severity: SevHigh, Category: CatEnvironment, Retryable: true, SuggestedFix: "The MCP server stopped; it is restarted on the next attempt. Its last output is in the error."}, true
	case mcp.KindProtocol:
		switch me.Code {
		case -32602:
			return Classification{Severity: SevHigh, Category: CatValidation, SuggestedFix: "The server rejected the arguments: check them against the tool's schema."}, true
		case -32601:
			return Classification{Severity: SevHigh, Category: CatNotFound, SuggestedFix: "The server has no such tool: pick one it lists."}, true
		}
		if tc, ok := classifyText(me.Message); ok {
			return tc, true
		}
		return Classification{Severity: SevMedium, Category: CatUnknown, Retryable: true}, true
	}
	if tc, ok := classifyText(me.Message); ok {
		return tc, true
	}
	return Classification{Severity: SevMedium, Category: CatUnknown, Retryable: true}, true
}

// suggestion is the default advice per category (seed 002's critic
// suggestions, for the retry context and the escalation).
func suggestion(c Category, ai bool) string {
	switch c {
	case CatNotFound:
		if ai {
			return "The path or resource was not found: list the folder first (list_files) to find the right name instead of guessing; relative paths start at the workflow's folder."
		}
		return "The path or resource was not found: check it; relative paths start at the workflow's folder."
	case CatPermission:
		return "Access was denied: check that the path or resource is accessible, or use one you may write to. Retrying cannot fix this."
	case CatValidation:
		return "The arguments are invalid: fix them in the node (a fix response can merge corrected arguments)."
	case CatDependency:
		return "Something the step needs is missing: install it or fix its name."
	case CatTimeout:
		return "The step took too long: raise the node's timeout_ms or make the step do less."
	case CatNetwork:
		return "The service did not answer: check that it is up and reachable."
	case CatResource:
		return "A resource ran out: free it or wait longer between attempts."
	case CatEnvironment:
		return "The environment is not set up for this step: check settings."
	case CatLogic:
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
