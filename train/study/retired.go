package study

// dropRetired removes the runs of retired arms, saying so once per arm.
func (s *Spec) dropRetired(runs []Run, logf func(string, ...any)) []Run {
	why := map[string]string{}
	for _, a := range s.Arms {
		if a.Retired != "" {
			why[a.Name] = a.Retired
		}
	}
	if len(why) == 0 {
		return runs
	}
	kept, said := runs[:0:0], map[string]bool{}
	for _, r := range runs {
		w, ok := why[r.Arm]
		if !ok {
			kept = append(kept, r)
			continue
		}
		if !said[r.Arm] {
			logf("arm %s is retired, its runs are neither started nor resumed: %s", r.Arm, w)
			said[r.Arm] = true
		}
	}
	return kept
}
