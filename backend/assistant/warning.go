package assistant

import "github.com/weft-dev/weft/backend/planner"

// Warning is something the assistant fixed, guessed or dropped: the
// planner's type, so one list carries the planner's stages (extract,
// repair, decode, features, map, infer, …) and the assistant's own
// (patch, merge, classify, history).
type Warning = planner.Warning
