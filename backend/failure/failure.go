// Package failure holds what the runner and the planner both say about a
// failed step: the failure record and its classification, the patterns
// learned from failures and how they were resolved, the request a
// replanner gets, and the mark a replanned workflow carries. It sits below
// both, so the planner does not import the runner (nor the runner the
// planner). The JSON shapes here are those of run logs, escalation events
// and the frontend's types: renaming a field breaks them.
package failure

import "time"

// Type says how an attempt failed.
type Type string

const (
	// FailExecution: the tool or model call returned an error.
	FailExecution Type = "execution_error"
	// FailVerification: the node ran but its verify condition was false.
	FailVerification Type = "verification_failed"
	// FailTimeout: the attempt ran past the node's timeout_ms (or the
	// command's own timeout_ms).
	FailTimeout Type = "timeout"
	// FailRejected: the model's answer was refused: not the JSON an
	// extract asked for, a label that is not one of the choices, or more
	// tool calls than the step allows.
	FailRejected Type = "rejected"
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

// Record is one failed attempt (seed 003's failure record).
type Record struct {
	Attempt     int       `json:"attempt"`
	Time        time.Time `json:"time"`
	FailureType Type      `json:"failure_type"`
	Error       string    `json:"error"`
	// OutputSummary is a bounded rendering of the node's outputs.
	OutputSummary string `json:"output_summary,omitempty"`
	Classification
	DurationMs int64 `json:"duration_ms"`
	// RetryAfterMs is the wait the service asked for (HTTP Retry-After):
	// the next attempt waits at least this long.
	RetryAfterMs int64 `json:"retry_after_ms,omitempty"`
}
