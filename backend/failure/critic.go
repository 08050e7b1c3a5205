package failure

import "context"

// The goal check's model side (package critic) is plugged into the runner
// as a Critic, like the planner as a Replanner: the runner does not import
// the model-reply layers.

// CriticInput is what the critic judges: the goal, the done_when criteria,
// the plan (one line a step) and the step results. The critic cuts each
// part to its own bound.
type CriticInput struct {
	Goal     string `json:"goal"`
	Criteria string `json:"criteria"`
	Plan     string `json:"plan"`
	Results  string `json:"results"`
}

// CriticVerdict is the critic's answer (seed 002).
type CriticVerdict struct {
	Approved    bool     `json:"approved"`
	Confidence  float64  `json:"confidence"`
	Feedback    string   `json:"feedback"`
	Suggestions []string `json:"suggestions,omitempty"`
	// Repairs say what was wrong with the replies and what was fixed.
	Repairs []string `json:"repairs,omitempty"`
}

// Critic judges whether a run met its done_when criteria.
type Critic interface {
	Check(ctx context.Context, in CriticInput) (CriticVerdict, error)
}
