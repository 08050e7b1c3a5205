package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/planner"
	"github.com/weft-dev/weft/backend/replan"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/versions"
	"github.com/weft-dev/weft/backend/workflow"
)

// runReplanner is the planner as the run's Replanner: the settings'
// model, features and repair attempts (at least one validated call), the
// repair memory and the learned failure patterns; the tool catalog
// (with the MCP servers) is only built when a replan starts.
func (c *cli) runReplanner(client llm.Client, s settings.Settings, quiet bool) runner.Replanner {
	cfg := planner.Config{
		MaxRepairAttempts: max(s.MaxRepairAttempts, 1),
		Features:          planner.Features{AllowAITransforms: s.Features.AllowAITransforms, AllowAgentSteps: s.Features.AllowAgentSteps},
		Model:             s.LLM.Model,
		Logger:            c.log,
	}
	if mem, err := planner.DefaultMemory(); err == nil {
		mem.Log = c.log
		cfg.Memory = mem
	}
	if pats, err := failure.DefaultPatternStore(); err == nil {
		cfg.Patterns = pats
	}
	if !quiet {
		cfg.OnProgress = func(e planner.Event) {
			if e.Kind == planner.EventCalling && e.Attempt == 1 {
				fmt.Fprintln(c.stderr, "weft: replanning: asking the model for a new version of the workflow…")
			}
			c.progress(e)
		}
	}
	return &planner.Replanner{Client: client, Config: cfg, Catalog: func(ctx context.Context) *tools.Catalog {
		return c.toolCatalog(ctx, s, nil)
	}}
}

// toolCatalog is the built-ins plus, when there are MCP servers and w (if
// given) uses a tool that is not built in, the servers' tools.
func (c *cli) toolCatalog(ctx context.Context, s settings.Settings, w *workflow.Workflow) *tools.Catalog {
	if len(s.MCPServers) == 0 {
		return tools.Builtin()
	}
	if w != nil {
		builtin, needed := tools.Builtin(), false
		for i := range w.Nodes {
			n := &w.Nodes[i]
			if n.Type == workflow.TypeTool && !builtin.Has(n.Params.Tool) {
				needed = true
			}
			for _, t := range n.Params.AllowedTools {
				needed = needed || !builtin.Has(t)
			}
		}
		if !needed {
			return builtin
		}
	}
	cat, errs := runner.Catalog(ctx, s)
	for srv, err := range errs {
		c.log.Warn("MCP server unavailable for the tool catalog", "server", srv, "error", err)
	}
	return cat
}

// approver answers the runner's approval question for a replanned
// workflow: yes with --approve, else asks on the terminal.
func (c *cli) approver(approve bool, in *bufio.Reader) func(ctx context.Context, steps []runner.SideEffect) (bool, error) {
	return func(ctx context.Context, steps []runner.SideEffect) (bool, error) {
		w := c.stderr
		fmt.Fprintln(w, "This workflow was replanned. Before it runs, approve its steps that change things:")
		writeSideEffects(w, "  ", steps)
		if approve {
			fmt.Fprintln(w, "approved (--approve)")
			return true, nil
		}
		h := &promptHandler{c: c, in: in}
		for {
			fmt.Fprint(w, "run them? [y/N]: ")
			line, err := h.readLine(ctx)
			if err != nil {
				if ctx.Err() != nil {
					return false, ctx.Err()
				}
				return false, nil
			}
			switch strings.ToLower(strings.TrimSpace(line)) {
			case "y", "yes":
				return true, nil
			case "", "n", "no":
				return false, nil
			}
		}
	}
}

func writeSideEffects(w io.Writer, indent string, steps []runner.SideEffect) {
	for _, s := range steps {
		fmt.Fprintf(w, "%s- %s: %s\n", indent, s.Key, s.Detail)
	}
}

// replannedPath is where a replanned version goes beside the input:
// notes.json → notes.replanned-v3.json (notes.replanned-v2.json too).
func replannedPath(path string, n int) string {
	base := path
	if strings.EqualFold(filepath.Ext(base), ".json") {
		base = base[:len(base)-len(".json")]
	}
	base = replannedSuffix.ReplaceAllString(base, "")
	if n <= 0 {
		return base + ".replanned.json"
	}
	return base + ".replanned-v" + strconv.Itoa(n) + ".json"
}

var replannedSuffix = regexp.MustCompile(`\.replanned(-v[0-9]+)?$`)

// replannedJSON is the line `weft run --json` prints before the result of
// a replanned run.
type replannedJSON struct {
	Type          string              `json:"type"`
	File          string              `json:"file"`
	Version       int                 `json:"version,omitempty"`
	FromVersion   int                 `json:"from_version,omitempty"`
	Summary       string              `json:"summary"`
	Changes       versions.Diff       `json:"changes"`
	NeedsApproval []runner.SideEffect `json:"needs_approval"`
	Error         string              `json:"error,omitempty"`
}

// replannedReport is what saveReplanned did.
type replannedReport struct {
	replannedJSON
	name  string
	lines []string
}

// saveReplanned records the failed workflow and its new version in the
// versions store, writes the new version beside the input and prepares
// the report of the changes and the steps that need approval.
func (c *cli) saveReplanned(ctx context.Context, path string, old, nw *workflow.Workflow, s settings.Settings) *replannedReport {
	out := replannedJSON{Type: "replanned"}
	store, err := versions.DefaultStore()
	var rec replan.Recorded
	if err == nil {
		store.Log = c.log
		rec, err = replan.Record(store, old, nw)
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "weft: warning: the versions could not be saved: %v\n", err)
		out.Error = err.Error()
	}
	out.Version, out.FromVersion = rec.To.N, rec.From.N
	out.File = replannedPath(path, rec.To.N)
	if werr := workflow.Save(out.File, nw); werr != nil {
		fmt.Fprintf(c.stderr, "weft: %v\n", werr)
		out.File = ""
		out.Error = strings.TrimPrefix(out.Error+"; "+werr.Error(), "; ")
	}
	prop := replan.Propose(old, nw, c.toolCatalog(ctx, s, nw))
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
		writeSideEffects(w, "    ", r.NeedsApproval)
	}
	if r.Version > 0 {
		fmt.Fprintf(w, "  compare: weft versions %s --diff %d %d\n", path, r.FromVersion, r.Version)
	}
	if r.File != "" {
		fmt.Fprintf(w, "  run it: weft run %s (asks for approval; --approve gives it)\n", r.File)
	}
}
