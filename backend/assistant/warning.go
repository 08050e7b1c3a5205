package assistant

// Warning is something the assistant fixed, guessed or dropped. Its stages
// are the planner's (extract, repair, decode, …) plus the assistant's own.
// TEMPORARY own type until backend/planner builds; becomes an alias of
// planner.Warning.
type Warning struct {
	Stage   string `json:"stage"`
	Message string `json:"message"`
	NodeID  string `json:"node_id,omitempty"`
}

func (w Warning) String() string { return w.Stage + ": " + w.Message }
