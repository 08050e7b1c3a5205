package planner

import "sort"

// ClassCount is how many plans had one failure class.
type ClassCount struct {
	Class string `json:"class"`
	Count int    `json:"count"`
}

// ModelStats sums up the repair memory of one model. Rates are fractions
// of Plans (0–1).
type ModelStats struct {
	Model        string  `json:"model"`
	Plans        int     `json:"plans"`
	Valid        int     `json:"valid"`
	ValidRate    float64 `json:"valid_rate"`
	MeanLLMCalls float64 `json:"mean_llm_calls"`
	// ReaskRate is the share of plans that needed more than one call.
	ReaskRate float64 `json:"reask_rate"`
	// LocalRepairRate is the share of plans whose replies the local stages
	// had to repair (or drop parts of).
	LocalRepairRate float64      `json:"local_repair_rate"`
	TopFailures     []ClassCount `json:"top_failures"`
}

// TopFailureClasses is how many failure classes Summarize keeps per model.
const TopFailureClasses = 5

// Summarize groups records by model, the most used model first.
func Summarize(recs []Record) []ModelStats {
	type acc struct {
		ModelStats
		calls, reasked, repaired int
		failures                 map[string]int
	}
	byModel := map[string]*acc{}
	for _, r := range recs {
		a := byModel[r.Model]
		if a == nil {
			a = &acc{ModelStats: ModelStats{Model: r.Model}, failures: map[string]int{}}
			byModel[r.Model] = a
		}
		a.Plans++
		a.calls += r.LLMCalls
		if r.Valid {
			a.Valid++
		}
		if r.LLMCalls > 1 {
			a.reasked++
		}
		if len(r.Repairs) > 0 {
			a.repaired++
		}
		for _, c := range r.Failures {
			a.failures[c]++
		}
	}
	out := make([]ModelStats, 0, len(byModel))
	for _, a := range byModel {
		s := a.ModelStats
		n := float64(s.Plans)
		s.ValidRate = float64(s.Valid) / n
		s.MeanLLMCalls = float64(a.calls) / n
		s.ReaskRate = float64(a.reasked) / n
		s.LocalRepairRate = float64(a.repaired) / n
		s.TopFailures = []ClassCount{}
		for c, k := range a.failures {
			s.TopFailures = append(s.TopFailures, ClassCount{Class: c, Count: k})
		}
		sort.Slice(s.TopFailures, func(i, j int) bool {
			x, y := s.TopFailures[i], s.TopFailures[j]
			if x.Count != y.Count {
				return x.Count > y.Count
			}
			return x.Class < y.Class
		})
		if len(s.TopFailures) > TopFailureClasses {
			s.TopFailures = s.TopFailures[:TopFailureClasses]
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Plans != out[j].Plans {
			return out[i].Plans > out[j].Plans
		}
		return out[i].Model < out[j].Model
	})
	return out
}
