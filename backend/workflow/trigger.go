package workflow

import (
	"encoding/json"
	"reflect"
)

// TriggerType says what starts a run: a signed webhook or a file that
// appears in a watched folder (weft serve runs them).
type TriggerType string

const (
	TriggerWebhook TriggerType = "webhook"
	TriggerFile    TriggerType = "file"
)

// Webhook signature schemes: how a delivery proves it comes from who
// holds the secret.
const (
	// SchemeGitHub: X-Hub-Signature-256: sha256=HEX, delivery id in
	// X-GitHub-Delivery.
	SchemeGitHub = "github"
	// SchemeStripe: Stripe-Signature: t=UNIX,v1=HEX over "t.body".
	SchemeStripe = "stripe"
	// SchemeHMAC: X-Weft-Signature-256: sha256=HEX of the body, delivery
	// id in X-Weft-Delivery.
	SchemeHMAC = "hmac-sha256"
)

// Trigger is one way a workflow's run starts without a person: content
// that acts (it decides who may start the workflow, with what inputs), so
// it is reviewed like a step (package approval).
type Trigger struct {
	Type TriggerType `json:"type"`
	// Webhook: the URL path it answers ("/hooks/NAME"), the secret that
	// signs deliveries (a reference, {{secrets.NAME}}) and the scheme.
	Path   string `json:"path,omitempty"`
	Secret string `json:"secret,omitempty"`
	Scheme string `json:"scheme,omitempty"`
	// File: the files watched, relative to the workflow's folder
	// ("inbox/*.csv").
	Glob string `json:"glob,omitempty"`
	// Inputs maps input names to what fills them: "{{body.a.b}}" (a
	// webhook's JSON body) or "{{file.path}}" (a file trigger's file).
	// Without it, a webhook fills each input from the body's top-level
	// member of the same name and a file trigger fills the input "path".
	Inputs map[string]string `json:"inputs,omitempty"`

	Extra Extra `json:"-"`
}

var triggerFields = knownFields(reflect.TypeOf(Trigger{}))

type rawTrigger Trigger

func (t *Trigger) UnmarshalJSON(data []byte) error {
	var r rawTrigger
	if err := json.Unmarshal(data, &r); err != nil {
		return err
	}
	extra, err := splitExtra(data, triggerFields)
	if err != nil {
		return err
	}
	*t = Trigger(r)
	t.Extra = extra
	return nil
}

func (t Trigger) MarshalJSON() ([]byte, error) {
	b, err := encode(rawTrigger(t))
	if err != nil {
		return nil, err
	}
	return joinExtra(b, t.Extra)
}

// Label names the trigger in messages: "webhook /hooks/x", "file inbox/*.csv".
func (t *Trigger) Label() string {
	switch t.Type {
	case TriggerWebhook:
		return "webhook " + t.Path
	case TriggerFile:
		return "file trigger " + t.Glob
	}
	return "trigger of type " + string(t.Type)
}
