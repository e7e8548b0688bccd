package x12sim_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/requests")

// TestRequestFiles keeps testdata/requests (the fuzz target's seeds and the
// benchmark's input) equal to the requests the tests build; -update
// rewrites them.
func TestRequestFiles(t *testing.T) {
	files := map[string]string{
		"270_jane.x12":        req270(t, "", "TRN*1*TRACE-1*9CLINIC001", "NM1*IL*1*DOE*JANE****MI*W123456789", "DMG*D8*19840312*F", "EQ*30", "EQ*MR", "EQ*AL"),
		"270_pipes.x12":       rewrite(req270(t, ""), '|', '!', '>', '\n'),
		"270_dependent.x12":   req270(t, "", "TRN*1*T-9*9X", "NM1*IL*1*DOE*JANE****MI*W123456789"),
		"276_pcn1.x12":        req276(t, "TRN*1*PCN-1", "REF*EJ*PCN-1", "SVC*HC:99213*80", "TRN*1*PCN-404"),
		"278_three.x12":       req278(t, "", "", "SV1*HC:73721*900*UN*2", "SV1*HC:00000*10", "SV2*0450*HC:72148*100*UN*1"),
		"270_isa11_isa16.x12": rewrite(req270(t, ""), '|', '>', '>', '~'),
	}
	for name, want := range files {
		path := filepath.Join("testdata", "requests", name)
		if *update {
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != want {
			t.Errorf("%s is not what the tests build (run go test -run TestRequestFiles -update): %v", path, err)
		}
	}
}
