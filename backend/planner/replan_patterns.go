package planner

import (
	"fmt"
	"sort"
	"strings"

	"github.com/weft-dev/weft/backend/failure"
)

// PatternSource supplies the failure patterns the runner learned, by tool
// (tool name, or "AiStep" / "AiTransform/<kind>" for AI steps).
// *failure.PatternStore implements it.
type PatternSource interface {
	Relevant(tool string, limit int) ([]failure.Pattern, error)
}

// Bounds of the "Known failure patterns" section.
const (
	maxKnownPatterns = 6  // lines in the section
	perToolPatterns  = 2  // lines per tool
	maxPatternTools  = 64 // tools looked up (large MCP catalogs)
)

// knownPatterns is the prompt section for the tools the plan may use: every
// catalog tool and the AI step types the features allow.
func (l *loop) knownPatterns() string {
	if l.cfg.Patterns == nil {
		return ""
	}
	names := l.cfg.Catalog.Names()
	if len(names) > maxPatternTools {
		names = names[:maxPatternTools]
	}
	if l.cfg.Features.AllowAgentSteps {
		names = append(names, "AiStep")
	}
	if l.cfg.Features.AllowAITransforms {
		names = append(names, "AiTransform/summarize", "AiTransform/extract", "AiTransform/classify")
	}
	var all []failure.Pattern
	for _, n := range names {
		ps, err := l.cfg.Patterns.Relevant(n, perToolPatterns)
		if err != nil {
			l.log.Warn("failure patterns unreadable; planning without them", "error", err)
			return ""
		}
		all = append(all, ps...)
	}
	return PatternsSection(all, maxKnownPatterns)
}

// PatternsSection renders learned failure patterns for a prompt, most
// frequent then most recent first, at most limit of them (0: all); ""
// when there are none.
func PatternsSection(ps []failure.Pattern, limit int) string {
	if len(ps) == 0 {
		return ""
	}
	ps = append([]failure.Pattern(nil), ps...)
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].Count != ps[j].Count {
			return ps[i].Count > ps[j].Count
		}
		return ps[i].Time.After(ps[j].Time)
	})
	if limit > 0 && len(ps) > limit {
		ps = ps[:limit]
	}
	var b strings.Builder
	b.WriteString("\n# Known failure patterns\n\nSteps with these tools failed in earlier runs. Plan so that they do not fail the same way:\n")
	for _, p := range ps {
		b.WriteString("- " + PatternLine(p) + "\n")
	}
	return b.String()
}

// PatternLine renders one pattern: the tool, the error, how often and
// what resolved it.
func PatternLine(p failure.Pattern) string {
	msg := strings.Join(strings.Fields(p.Error), " ")
	if msg == "" {
		msg = p.Signature
	}
	if r := []rune(msg); len(r) > 160 {
		msg = string(r[:159]) + "…"
	}
	var how []string
	if p.Category != "" {
		how = append(how, string(p.Category))
	}
	if p.Count > 1 {
		how = append(how, fmt.Sprintf("%d times", p.Count))
	}
	s := fmt.Sprintf("%s: %q", p.Tool, msg)
	if len(how) > 0 {
		s += " (" + strings.Join(how, ", ") + ")"
	}
	fix := strings.Join(strings.Fields(p.Fix), " ")
	if r := []rune(fix); len(r) > 200 {
		fix = string(r[:199]) + "…"
	}
	switch p.Resolution {
	case "retry":
		s += "; a retry succeeded"
	case "user_retry":
		s += "; retrying later succeeded"
	case "fix":
		s += "; fixed with: " + fix
	case "skip":
		s += "; the user skipped the step"
	case "replan":
		s += "; replanned: " + strings.TrimPrefix(fix, "the planner ")
	default:
		if p.Resolution != "" {
			s += "; resolved by " + p.Resolution
		}
	}
	return s
}
