package cli

import (
	"fmt"
	"strings"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/planner"
	"github.com/weft-dev/weft/backend/service"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/versions"
	"github.com/weft-dev/weft/backend/workflow"
)

// runService is the application layer for one run: the effective
// settings loaded by the caller, this command's model client and logger,
// and the planner as replanner (progress on stderr unless quiet). Its MCP
// servers stop when the command ends (Run).
func (c *cli) runService(s settings.Settings, quiet bool) *service.Service {
	var progress func(planner.Event)
	if !quiet {
		progress = func(e planner.Event) {
			if e.Kind == planner.EventCalling && e.Attempt == 1 {
				fmt.Fprintln(c.stderr, "weft: replanning: asking the model for a new version of the workflow…")
			}
			c.progress(e)
		}
	}
	svc := service.New(service.Deps{
		Settings: func() (settings.Settings, []string, error) { return s, nil, nil },
		// A call that takes a while says so on stderr (every ~15 s, and
		// at each retry wait), so a stalled server is never silence.
		LLMOptions: []llm.Option{llm.WithLogger(c.log), llm.WithProgress(c.llmProgress)},
		Replanner:  service.PlannerReplanner(c.log, progress),
		Logger:     c.log,
		// The Temporal engine's credentials: the environment (the API key
		// under the name --api-key-env gives), else the keyring.
		Getenv: func(k string) string {
			if k == settings.EnvTemporalAPIKey && c.temporalAPIKeyEnv != "" {
				k = c.temporalAPIKeyEnv
			}
			return c.getenv(k)
		},
		Secret: func(name string) (string, error) {
			st, err := c.store()
			if err != nil {
				return "", err
			}
			return st.Secret(name)
		},
	})
	c.services = append(c.services, svc)
	return svc
}

// replannedJSON is the line `weft run --json` prints before the result of
// a replanned run.
type replannedJSON struct {
	Type          string          `json:"type"`
	File          string          `json:"file"`
	Version       int             `json:"version,omitempty"`
	FromVersion   int             `json:"from_version,omitempty"`
	Summary       string          `json:"summary"`
	Changes       versions.Diff   `json:"changes"`
	NeedsApproval []approval.Step `json:"needs_approval"`
	Error         string          `json:"error,omitempty"`
}

// replannedReport is what saveReplanned did.
type replannedReport struct {
	replannedJSON
	name  string
	lines []string
}

// saveReplanned reports what the service kept of the new version nw:
// the versions recorded, the file written beside the input, the changes
// and the steps that need approval.
func (c *cli) saveReplanned(saved service.SavedReplan, nw *workflow.Workflow) *replannedReport {
	out := replannedJSON{Type: "replanned", Version: saved.Version, FromVersion: saved.FromVersion, File: saved.File}
	if saved.RecordErr != nil {
		fmt.Fprintf(c.stderr, "weft: warning: the versions could not be saved: %v\n", saved.RecordErr)
		out.Error = saved.RecordErr.Error()
	}
	if saved.WriteErr != nil {
		fmt.Fprintf(c.stderr, "weft: %v\n", saved.WriteErr)
		out.Error = strings.TrimPrefix(out.Error+"; "+saved.WriteErr.Error(), "; ")
	}
	prop := saved.Proposal
	out.Summary, out.Changes, out.NeedsApproval = prop.Summary, prop.Changes, prop.NeedsApproval
	return &replannedReport{replannedJSON: out, name: nw.Name, lines: prop.Changes.Lines()}
}

// printReplanned shows the new version after the run's summary.
func (c *cli) printReplanned(path string, r *replannedReport) {
	w := c.stdout
	fmt.Fprintln(w)
	if r.Version > 0 {
		fmt.Fprintf(w, "Replanned: version %d of %q (the run was of version %d)\n", r.Version, r.name, r.FromVersion)
	} else {
		fmt.Fprintf(w, "Replanned: a new version of %q\n", r.name)
	}
	if r.File != "" {
		fmt.Fprintf(w, "  written to %s\n", r.File)
	}
	fmt.Fprintf(w, "  changes: %s\n", r.Summary)
	for _, l := range r.lines {
		fmt.Fprintf(w, "    %s\n", l)
	}
	if len(r.NeedsApproval) > 0 {
		fmt.Fprintln(w, "  needs your approval before it runs:")
		writeApprovalSteps(w, r.NeedsApproval)
		fmt.Fprintln(w)
	}
	if r.Version > 0 {
		fmt.Fprintf(w, "  compare: weft versions %s --diff %d %d\n", path, r.FromVersion, r.Version)
	}
	if r.File != "" {
		fmt.Fprintf(w, "  run it: weft run %s (asks for approval; --approve gives it)\n", r.File)
	}
}
