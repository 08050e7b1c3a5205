package cli

import (
	"context"
	"flag"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/weft-dev/weft/backend/planner"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/service"
	"github.com/weft-dev/weft/backend/workflow"
)

// statsJSON is what `weft stats --json` prints.
type statsJSON struct {
	Path     string               `json:"path"`
	Plans    int                  `json:"plans"`
	Models   []planner.ModelStats `json:"models"`
	Warnings []string             `json:"warnings"`
}

// stats prints repair and retry rates by model from the repair memory.
func (c *cli) stats(_ context.Context, args []string) int {
	fs := flag.NewFlagSet("stats", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	asJSON := fs.Bool("json", false, "print the figures as JSON")
	model := fs.String("model", "", "show only this `MODEL`")
	runsOf := fs.String("runs", "", "count the runs of the workflow `FILE` instead: outcomes and goal checks")
	if err := fs.Parse(interspersed(args, map[string]bool{"model": true, "runs": true})); err != nil || fs.NArg() != 0 {
		fmt.Fprintln(c.stderr, "usage: weft stats [--model MODEL] [--json] | weft stats --runs FILE [--json]")
		return exitUnusable
	}
	if *runsOf != "" {
		return c.runStats(*runsOf, *asJSON)
	}
	mem, err := planner.DefaultMemory()
	if err != nil {
		fmt.Fprintf(c.stderr, "weft: %v\n", err)
		return exitUnusable
	}
	mem.Log = c.log
	recs, warnings, err := mem.Load()
	if err != nil {
		fmt.Fprintf(c.stderr, "weft: %v\n", err)
		return exitUnusable
	}
	c.printWarnings(warnings)
	if *model != "" {
		kept := recs[:0]
		for _, r := range recs {
			if r.Model == *model {
				kept = append(kept, r)
			}
		}
		recs = kept
	}
	sum := planner.Summarize(recs)
	if *asJSON {
		if warnings == nil {
			warnings = []string{}
		}
		c.writeJSON(statsJSON{Path: mem.Path, Plans: len(recs), Models: sum, Warnings: warnings})
		return exitOK
	}
	if len(sum) == 0 {
		fmt.Fprintf(c.stdout, "no plans recorded yet (%s)\n", mem.Path)
		return exitOK
	}
	fmt.Fprintf(c.stdout, "%d plan(s) recorded in %s\n\n", len(recs), mem.Path)
	tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "MODEL\tPLANS\tVALID\tMEAN CALLS\tRE-ASKED\tREPAIRED LOCALLY")
	for _, s := range sum {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%.2f\t%s\t%s\n", s.Model, s.Plans, pct(s.ValidRate), s.MeanLLMCalls, pct(s.ReaskRate), pct(s.LocalRepairRate))
	}
	tw.Flush()
	sep := "\n"
	for _, s := range sum {
		if len(s.TopFailures) == 0 {
			continue
		}
		parts := make([]string, len(s.TopFailures))
		for i, f := range s.TopFailures {
			parts[i] = fmt.Sprintf("%s (%d)", f.Class, f.Count)
		}
		fmt.Fprintf(c.stdout, "%s%s: top failures: %s\n", sep, s.Model, strings.Join(parts, ", "))
		sep = ""
	}
	return exitOK
}

func pct(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) }

// runStats prints how a workflow's runs ended and how its goal checks went.
func (c *cli) runStats(path string, asJSON bool) int {
	w, _, err := workflow.Load(path)
	if err != nil {
		fmt.Fprintf(c.stderr, "weft: %v\n", err)
		return exitUnusable
	}
	h, err := service.New(service.Deps{Logger: c.log}).RunHistory(path, w.ID)
	if err != nil {
		fmt.Fprintf(c.stderr, "weft: %v\n", err)
		return exitUnusable
	}
	c.printWarnings(h.Warnings)
	st := service.SummarizeRuns(h.Runs)
	if asJSON {
		c.writeJSON(struct {
			Dir string `json:"dir"`
			service.RunStats
		}{h.Dir, st})
		return exitOK
	}
	if st.Runs == 0 {
		fmt.Fprintf(c.stdout, "no runs recorded yet (%s)\n", h.Dir)
		return exitOK
	}
	fmt.Fprintf(c.stdout, "%d run(s) in %s\n", st.Runs, h.Dir)
	var parts []string
	known := map[runner.Outcome]bool{}
	for _, o := range runner.Outcomes {
		known[o] = true
		if n := st.Outcomes[o]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", o, n))
		}
	}
	var other []string // a newer Weft's: counted too
	for o, n := range st.Outcomes {
		if !known[o] && n > 0 {
			other = append(other, fmt.Sprintf("%s %d", o, n))
		}
	}
	sort.Strings(other)
	parts = append(parts, other...)
	if st.Incomplete > 0 {
		parts = append(parts, fmt.Sprintf("incomplete %d", st.Incomplete))
	}
	fmt.Fprintf(c.stdout, "  outcomes     %s\n", strings.Join(parts, ", "))
	fmt.Fprintf(c.stdout, "  steps        %d failed, %d skipped, %d failures handled by on_error\n", st.Failed, st.Skipped, st.Handled)
	g := st.GoalChecks
	fmt.Fprintf(c.stdout, "  goal checks  %d checked: %d met, %d not met (%d accepted anyway); %d judged by the model\n", g.Checked, g.Met, g.NotMet, g.Accepted, g.ByModel)
	return exitOK
}
