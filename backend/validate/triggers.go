package validate

import "github.com/weft-dev/weft/backend/trigger"

// Added with issue 27 (triggers): a trigger declaration weft serve could
// not run (bad_trigger), a webhook without a secret reference
// (trigger_missing_secret), a required input a trigger cannot fill
// (trigger_unfilled_input). Package trigger says what a declaration must
// be; weft serve refuses the same at its start.
const (
	CodeBadTrigger           = trigger.CodeBadTrigger
	CodeTriggerMissingSecret = trigger.CodeMissingSecret
	CodeTriggerUnfilledInput = trigger.CodeUnfilledInput
)

// checkTriggers reports what trigger.Check finds, as errors.
func (v *validator) checkTriggers() {
	for _, p := range trigger.Check(v.w) {
		v.add(p.Code, SeverityError, p.Message, nil)
	}
}
