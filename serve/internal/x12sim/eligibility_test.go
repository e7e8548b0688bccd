package x12sim_test

import (
	"strings"
	"testing"
)

// req270 writes a 270 for the seed's provider and member, with the
// subscriber level's segments replaced by sub when given and the
// provider's NM1 by provider.
func req270(t testing.TB, provider string, sub ...string) string {
	t.Helper()
	if provider == "" {
		provider = "NM1*1P*2*SPRINGFIELD ORTHOPEDICS*****XX*1234567893"
	}
	if sub == nil {
		sub = []string{"TRN*1*TRACE-1*9CLINIC001", "NM1*IL*1*DOE*JANE****MI*W123456789", "DMG*D8*19840312*F", "EQ*30"}
	}
	segs := []string{"BHT*0022*13*REQ-1*20260301*0900", "HL*1**20*1", "NM1*PR*2*ACME*****PI*ACME01", "HL*2*1*21*1"}
	if provider != "-" {
		segs = append(segs, provider)
	}
	segs = append(segs, "HL*3*2*22*0")
	return interchange(t, "HS", "270", "005010X279A1", append(segs, sub...)...)
}

// TestEligibility: the 271 rules of DESIGN.md 13.6, in order, each read
// back with loop paths, so that every segment is where X279 puts it.
func TestEligibility(t *testing.T) {
	f := newFrame(t, nil)
	tr := f.newRun("elig")
	jane := "NM1*IL*1*DOE*JANE****MI*W123456789"
	for _, tc := range []struct {
		name     string
		provider string
		sub      []string
		want     map[string]string
	}{
		{name: "active, benefits per service type asked", sub: []string{"TRN*1*T-1*9CLINIC001", "TRN*1*T-2*9OTHER0001", jane, "DMG*D8*19840312*F", "EQ*MR", "EQ*30^MR"}, want: map[string]string{
			"BHT01": "0022", "BHT02": "11", "BHT03": "REQ-1",
			"2000C/TRN(*)01": "2|2", "2000C/TRN(*)02": "T-1|T-2", "2000C/TRN(*)03": "9CLINIC001|9OTHER0001",
			"2100A/NM1[PR]03": "Acme Health Plan", "2100A/NM1[PR]09": "ACME01",
			"2100B/NM1[1P]09": "1234567893", "2100B/AAA03": "<nil>",
			"2100C/NM1[IL]03": "DOE", "2100C/NM1[IL]04": "JANE", "2100C/NM1[IL]08": "MI", "2100C/NM1[IL]09": "W123456789",
			"2100C/DMG02": "19840312", "2100C/DMG03": "F", "2100C/AAA03": "<nil>",
			// EB*1*IND*30**PLAN first; then MR's benefits (asked first), then 30's not yet given.
			"2110C/EB(*)01": "1|1|A|B|C", "2110C/EB(*)03": "30|MR|MR|30|30", "2110C/EB(1)05": "Acme Gold HMO",
			"2110C/EB(*)11": "Y", "2110C(2)/MSG01": "PRIOR AUTHORIZATION REQUIRED", "2110C(3)/EB08": "0.2",
			"2110C(5)/EB06": "23", "2110C(5)/EB07": "1500", "2110C(4)/EB07": "25", "2110C(4)/EB02": "IND",
		}},
		{name: "no EQ asks for 30", sub: []string{"TRN*1*T-3*9CLINIC001", jane}, want: map[string]string{
			"2110C/EB(*)01": "1|B|C|A", "2110C/MSG01": "<nil>", "2100C/DMG02": "19840312",
		}},
		{name: "date of service outside coverage", sub: []string{"TRN*1*T-4*9CLINIC001", jane, "DTP*291*D8*20270115", "EQ*MR"}, want: map[string]string{
			"2110C/EB(*)01": "6", "2110C/EB03": "30", "2110C/EB05": "Acme Gold HMO",
		}},
		{name: "date of service range inside coverage", sub: []string{"TRN*1*T-5*9CLINIC001", jane, "EQ*MR", "DTP*291*RD8*20260601-20260630"}, want: map[string]string{
			"2110C/EB(*)01": "1|1|A",
		}},
		{name: "coverage ended before the run's date", sub: []string{"TRN*1*T-6*9CLINIC001", "NM1*IL*1*ROE*JOHN****MI*W555000111"}, want: map[string]string{
			"2110C/EB(*)01": "6", "2100C/NM1[IL]03": "ROE", "2100C/DMG02": "19700704", "2100C/DMG03": "M",
		}},
		{name: "provider NPI invalid", provider: "NM1*1P*2*CLINIC*****XX*1234567890", want: map[string]string{
			"2100B/AAA01": "N", "2100B/AAA03": "43", "2100B/AAA04": "C", "2110C/EB01": "<nil>", "2100C/AAA03": "<nil>",
			"2100C/NM1[IL]09": "W123456789",
		}},
		{name: "provider without an NPI", provider: "NM1*1P*2*CLINIC*****PI*12345", want: map[string]string{
			"2100B/AAA03": "43", "2110C/EB01": "<nil>",
		}},
		{name: "provider level without NM1", provider: "-", want: map[string]string{
			"2100B/NM101": "1P", "2100B/AAA03": "43",
		}},
		{name: "provider not on file", provider: "NM1*1P*2*OTHER CLINIC*****XX*1245319599", want: map[string]string{
			"2100B/AAA01": "N", "2100B/AAA03": "51", "2100B/AAA04": "N", "2110C/EB01": "<nil>",
		}},
		{name: "no subscriber id", sub: []string{"TRN*1*T-7*9CLINIC001", "NM1*IL*1*DOE*JANE", "EQ*30"}, want: map[string]string{
			"2100C/AAA01": "N", "2100C/AAA03": "72", "2100C/AAA04": "C", "2110C/EB01": "<nil>", "2100C/NM1[IL]03": "DOE",
		}},
		{name: "no subscriber NM1 at all", sub: []string{"TRN*1*T-8*9CLINIC001", "EQ*30"}, want: map[string]string{
			"2100C/NM101": "IL", "2100C/AAA03": "72",
		}},
		{name: "no such member", sub: []string{"TRN*1*T-9*9CLINIC001", "NM1*IL*1*DOE*JOHN****MI*X000", "EQ*30"}, want: map[string]string{
			"2100C/AAA01": "Y", "2100C/AAA03": "75", "2100C/AAA04": "C", "2100C/NM1[IL]09": "X000", "2110C/EB01": "<nil>",
		}},
		{name: "birth date differs", sub: []string{"TRN*1*T-10*9CLINIC001", jane, "DMG*D8*19840313*F", "EQ*30"}, want: map[string]string{
			"2100C/AAA01": "N", "2100C/AAA03": "71", "2100C/AAA04": "C", "2100C/DMG02": "19840313", "2110C/EB01": "<nil>",
		}},
		{name: "date of service unreadable", sub: []string{"TRN*1*T-11*9CLINIC001", jane, "DTP*291*D8*2026-03-01"}, want: map[string]string{
			"2100C/AAA03": "57", "2110C/EB01": "<nil>",
		}},
		{name: "provider checked before the member", provider: "NM1*1P*2*CLINIC*****XX*1", sub: []string{"TRN*1*T-12*9CLINIC001", "NM1*IL*1*DOE*JOHN****MI*X000"}, want: map[string]string{
			"2100B/AAA03": "43", "2100C/AAA03": "<nil>", "AAA(*)03": "43",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := tr.answer(req270(t, tc.provider, tc.sub...))
			if tx := x.Transactions(); len(tx) != 1 || tx[0].Code != "271" || tx[0].Version != "005010X279A1" {
				t.Fatalf("transactions %+v", tx)
			}
			checkPaths(t, x, tc.want)
		})
	}
}

// TestEligibilityDependent: a 270 about a dependent answers the
// subscriber's name, and the dependent (the roster has none) AAA 67.
func TestEligibilityDependent(t *testing.T) {
	tr := newFrame(t, nil).newRun("dep")
	req := interchange(t, "HS", "270", "005010X279A1",
		"BHT*0022*13*REQ-D*20260301*0900", "HL*1**20*1", "NM1*PR*2*ACME*****PI*ACME01",
		"HL*2*1*21*1", "NM1*1P*2*SPRINGFIELD ORTHOPEDICS*****XX*1234567893",
		"HL*3*2*22*1", "NM1*IL*1*DOE*JANE****MI*W123456789",
		"HL*4*3*23*0", "TRN*1*DEP-1*9CLINIC001", "NM1*03*1*DOE*JIMMY", "DMG*D8*20150101*M", "EQ*30")
	x := tr.answer(req)
	checkPaths(t, x, map[string]string{
		"HL(*)01": "1|2|3|4", "HL(*)02": "|1|2|3", "HL(*)03": "20|21|22|23", "HL(*)04": "1|1|1|0",
		"2100C/NM1[IL]03": "DOE", "2110C/EB01": "<nil>", "2000D/TRN02": "DEP-1", "2100D/NM1[03]04": "JIMMY",
		"2100D/AAA01": "Y", "2100D/AAA03": "67", "2110D/EB01": "<nil>",
	})
	// The subscriber's id is the record's patient id, the dependent's
	// trace its request id.
	ev := tr.events()
	if len(ev) != 1 || ev[0]["patient_id"] != "W123456789" || ev[0]["request_id"] != "DEP-1" {
		t.Errorf("events %v", ev)
	}
}

// TestEligibility99EQ: a 270 asking 99 service types, repetitions and
// duplicates included, answers each benefit once.
func TestEligibility99EQ(t *testing.T) {
	tr := newFrame(t, nil).newRun("eq")
	sub := []string{"TRN*1*T-99*9CLINIC001", "NM1*IL*1*DOE*JANE****MI*W123456789"}
	for i := range 99 {
		sub = append(sub, "EQ*"+[]string{"30", "MR", "AL^UC"}[i%3])
	}
	x := tr.answer(req270(t, "", sub...))
	checkPaths(t, x, map[string]string{"2110C/EB(*)01": "1|B|C|A|1", "2110C/EB(*)03": "30|30|30|30|MR"})
	if strings.Count(get(t, x, "EB(*)01"), "|") != 4 {
		t.Errorf("EBs: %s", get(t, x, "EB(*)01"))
	}
}

// TestEligibilityEQCap: 005010X279A1 repeats the EQ loop (2110C) at most
// 99 times, so 99 EQs are answered (TestEligibility99EQ) and 100 or more
// are rejected with a 999 whose IK3 points at the 100th EQ with IK304 4
// (loop occurs over maximum times); the event says why.
func TestEligibilityEQCap(t *testing.T) {
	tr := newFrame(t, nil).newRun("eqcap")
	for _, n := range []int{100, 150} {
		sub := []string{"TRN*1*T-100*9CLINIC001", "NM1*IL*1*DOE*JANE****MI*W123456789"}
		for range n {
			sub = append(sub, "EQ*30")
		}
		x := tr.answer(req270(t, "", sub...))
		if tx := x.Transactions(); len(tx) != 1 || tx[0].Code != "999" {
			t.Fatalf("%d EQs: not a 999: %+v", n, tx)
		}
		// ST BHT HL NM1 HL NM1 HL TRN NM1, then the EQs: the 100th is the 109th segment.
		checkPaths(t, x, map[string]string{"AK201": "270", "IK301": "EQ", "IK302": "109", "IK303": "", "IK304": "4",
			"IK4(*)01": "<nil>", "IK501": "R", "IK502": "5", "AK901": "R", "AK902": "1", "AK903": "1", "AK904": "0"})
		ev := tr.events()
		last := ev[len(ev)-1]
		if last["transaction"] != "999" || last["status"] != 200.0 || !strings.Contains(last["error"].(string), "at most 99 times") {
			t.Errorf("%d EQs: event %v", n, last)
		}
	}
}
