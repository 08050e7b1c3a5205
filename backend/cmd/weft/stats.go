package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/weft-dev/weft/backend/planner"
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
	if err := fs.Parse(interspersed(args, map[string]bool{"model": true})); err != nil || fs.NArg() != 0 {
		fmt.Fprintln(c.stderr, "usage: weft stats [--model MODEL] [--json]")
		return exitUnusable
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
