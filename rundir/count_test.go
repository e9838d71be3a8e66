package rundir

import "testing"

func TestParseCount(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"30000", 30000}, {"30_000", 30000}, {"1e4", 10000}, {"2.5e5", 250000}, {"100k", 100000},
		{"1.5M", 1500000}, {"2G", 2000000000}, {"0", 0}, {"-1", -1}, {" 64 ", 64}, {"1E3", 1000},
	} {
		got, err := ParseCount(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseCount(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "k", "1.5", "1e-1", "ten", "1e30", "0x1p4", "NaN", "Inf", "3m"} {
		if v, err := ParseCount(bad); err == nil {
			t.Errorf("ParseCount(%q) = %d, want an error", bad, v)
		}
	}
}

// Counts reach every integer config key: --set steps=1e4, sac.learning_starts=0.
func TestSetConfigKeyCounts(t *testing.T) {
	c := DefaultConfig()
	if err := SetConfigKey(&c, "steps", "100k"); err != nil || c.Steps != 100000 {
		t.Fatalf("steps 100k: %d %v", c.Steps, err)
	}
	if err := SetConfigKey(&c, "buffer.capacity", "1e5"); err != nil || c.Buffer.Capacity != 100000 {
		t.Fatalf("buffer.capacity 1e5: %d %v", c.Buffer.Capacity, err)
	}
	if err := SetConfigKey(&c, "sac.learning_starts", "0"); err != nil || c.SAC.LearningStarts != 0 {
		t.Fatalf("learning_starts 0: %d %v", c.SAC.LearningStarts, err)
	}
	if err := SetConfigKey(&c, "steps", "1.5"); err == nil {
		t.Fatal("steps 1.5 accepted")
	}
}
