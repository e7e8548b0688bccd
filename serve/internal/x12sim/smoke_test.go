package x12sim_test

import "testing"

func TestSmoke(t *testing.T) {
	f := newFrame(t, nil)
	tr := f.newRun("r1")
	req := interchange(t, "HS", "270", "005010X279A1",
		"BHT*0022*13*REQ-1*20260301*0900",
		"HL*1**20*1", "NM1*PR*2*ACME*****PI*ACME01",
		"HL*2*1*21*1", "NM1*1P*2*SPRINGFIELD ORTHOPEDICS*****XX*1234567893",
		"HL*3*2*22*0", "TRN*1*TRACE-1*9CLINIC001", "NM1*IL*1*DOE*JANE****MI*W123456789", "DMG*D8*19840312*F",
		"EQ*30^MR")
	r := tr.post(req)
	t.Logf("%d %s", r.status, r.body)
	t.Log(tr.events())
}
