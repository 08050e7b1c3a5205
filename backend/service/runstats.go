package service

import "github.com/weft-dev/weft/backend/runner"

// RunStats sums a workflow's run history: how runs ended and how its goal
// checks (done_when) went. `weft stats --runs FILE` prints it.
type RunStats struct {
	Runs       int                    `json:"runs"`
	Incomplete int                    `json:"incomplete"` // still going, or killed
	Outcomes   map[runner.Outcome]int `json:"outcomes"`
	GoalChecks GoalCheckStats         `json:"goal_checks"`
	Skipped    int                    `json:"skipped_steps"`
	Handled    int                    `json:"handled_failures"`
	Failed     int                    `json:"failed_steps"`
}

// GoalCheckStats counts verdicts.
type GoalCheckStats struct {
	Checked  int `json:"checked"`
	Met      int `json:"met"`
	NotMet   int `json:"not_met"`
	Accepted int `json:"accepted"` // not met, and the person accepted it
	ByModel  int `json:"by_model"`
}

// SummarizeRuns counts the records.
func SummarizeRuns(runs []Record) RunStats {
	st := RunStats{Outcomes: map[runner.Outcome]int{}}
	for _, r := range runs {
		st.Runs++
		if !r.Complete {
			st.Incomplete++
			continue
		}
		st.Outcomes[r.Outcome]++
		if s := r.Summary; s != nil {
			st.Skipped += s.Skipped
			st.Handled += s.Handled
			st.Failed += s.Failed
		}
		if v := r.Verdict; v != nil {
			st.GoalChecks.Checked++
			switch {
			case v.Approved:
				st.GoalChecks.Met++
			default:
				st.GoalChecks.NotMet++
				if v.Accepted {
					st.GoalChecks.Accepted++
				}
			}
			if v.CheckedBy == "model" || v.CheckedBy == "condition+model" {
				st.GoalChecks.ByModel++
			}
		}
	}
	return st
}
