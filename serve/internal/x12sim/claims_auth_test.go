package x12sim_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func req276(t testing.TB, claims ...string) string {
	t.Helper()
	segs := []string{"BHT*0010*13*REQ-276*20260301*0900", "HL*1**20*1", "NM1*PR*2*ACME*****PI*ACME01",
		"HL*2*1*21*1", "NM1*41*2*SPRINGFIELD ORTHOPEDICS*****46*CLINIC01",
		"HL*3*2*19*1", "NM1*1P*2*SPRINGFIELD ORTHOPEDICS*****XX*1234567893",
		"HL*4*3*22*0", "DMG*D8*19840312*F", "NM1*IL*1*DOE*JANE****MI*W123456789"}
	return interchange(t, "HR", "276", "005010X212", append(segs, claims...)...)
}

// TestClaimStatus: the n-th inquiry about a claim answers its n-th status
// (the last one after), matched by TRN02 or REF*EJ; an unknown claim is
// STC*A4:35. Each claim's STC is in its 2200D.
func TestClaimStatus(t *testing.T) {
	tr := newFrame(t, nil).newRun("claims")
	for _, tc := range []struct {
		name   string
		claims []string
		want   map[string]string
	}{
		{name: "first inquiry by TRN02", claims: []string{"TRN*1*PCN-1", "REF*BLT*111", "AMT*T3*150", "DTP*472*RD8*20260201-20260201"}, want: map[string]string{
			"BHT01": "0010", "BHT02": "08", "BHT03": "REQ-276", "BHT06": "DG",
			"HL(*)03": "20|21|19|22", "2100A/NM1[PR]09": "ACME01", "2100B/NM1[41]09": "CLINIC01", "2100C/NM1[1P]09": "1234567893",
			"2100D/NM1[IL]09": "W123456789", "2200D/TRN01": "2", "2200D/TRN02": "PCN-1",
			"2200D/STC01": "A1:19:PR", "2200D/STC01-1": "A1", "2200D/STC01-2": "19", "2200D/STC01-3": "PR", "2200D/STC02": "20260301", "2200D/STC05": "<nil>",
		}},
		{name: "second inquiry by REF*EJ, paid", claims: []string{"TRN*1*MY-TRACE-9", "REF*EJ*PCN-1"}, want: map[string]string{
			"2200D/TRN02": "MY-TRACE-9", "2200D/STC01": "F1:65", "2200D/STC05": "120.00", "2200D/REF[EJ]02": "PCN-1",
		}},
		{name: "third inquiry: the last status again; an unknown claim beside it", claims: []string{"TRN*1*PCN-1", "SVC*HC:99213*150", "TRN*1*PCN-404"}, want: map[string]string{
			"2200D/STC(*)01": "F1:65|A4:35", "2200D(2)/TRN02": "PCN-404", "2200D(2)/STC02": "20260301", "2220D/SVC01": "<nil>",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := tr.answer(req276(t, tc.claims...))
			if tx := x.Transactions(); tx[0].Code != "277" || tx[0].Version != "005010X212" || get(t, x, "GS01") != "HN" {
				t.Fatalf("not a 277: %+v", tx)
			}
			checkPaths(t, x, tc.want)
		})
	}
}

func req278(t testing.TB, provider, subscriber string, services ...string) string {
	t.Helper()
	if provider == "" {
		provider = "NM1*1P*2*SPRINGFIELD ORTHOPEDICS*****XX*1234567893"
	}
	if subscriber == "" {
		subscriber = "NM1*IL*1*DOE*JANE****MI*W123456789"
	}
	segs := []string{"BHT*0007*13*PA-REQ-1*20260301*0900", "HL*1**20*1", "NM1*X3*2*ACME*****PI*ACME01",
		"HL*2*1*21*1", provider, "HL*3*2*22*1", subscriber, "DMG*D8*19840312*F",
		"HL*4*3*EV*1", "TRN*1*EV-1*9CLINIC001", "UM*HS*I*2*11:B", "DTP*AAH*RD8*20260310-20260410", "HI*ABK:M5416*ABF:M5126"}
	for i, s := range services {
		segs = append(segs, "HL*"+string(rune('5'+i))+"*4*SS*0", "TRN*1*SV-"+string(rune('1'+i))+"*9CLINIC001", "UM*HS*I", s)
	}
	return interchange(t, "HI", "278", "005010X217", segs...)
}

// TestPriorAuthorization: each 2000F service is one ledger row (channel
// x12, request_id BHT03) and one HCR in its 2000F; member and provider
// problems are the 271's AAA and write no row.
func TestPriorAuthorization(t *testing.T) {
	f := newFrame(t, nil)
	tr := f.newRun("auth")
	x := tr.answer(req278(t, "", "", "SV1*HC:73721*900*UN*2", "SV1*HC:00000*10", "SV2*0450*HC:72148*100*UN*1", "SV1*HC:99213*80", "SV1*HC:97110*75", "UM*HS*I"))
	checkPaths(t, x, map[string]string{
		"BHT01": "0007", "BHT02": "11", "BHT03": "PA-REQ-1", "GS01": "HI", "ST03": "005010X217",
		"HL(*)03": "20|21|22|EV|SS|SS|SS|SS|SS|SS", "HL(*)04": "1|1|1|1|0|0|0|0|0|0",
		"2010A/NM1[X3]09": "ACME01", "2010C/NM1[IL]09": "W123456789", "2000E/TRN02": "EV-1", "2000E/TRN01": "2",
		"2000F/TRN(*)02": "SV-1|SV-2|SV-3|SV-4|SV-5|SV-6",
		"2000F/HCR(*)01": "A1|A3|A4|A4|A4", "2000F(1)/HCR02": "AUTH000001", "2000F(1)/DTP[AAH]03": "20260310-20260408",
		"2000F(2)/HCR03": "0F", "2000F(3)/MSG01": "Send the last 6 weeks of therapy notes", "2000F(3)/SV202-2": "72148",
		"2000F(1)/SV101-2": "73721", "2000F(5)/HCR02": "<nil>", "2000F(6)/AAA03": "33", "2000F(6)/HCR01": "<nil>",
	})
	// The rows, as the portal's state holds them.
	snap := f.complete(tr)
	var state map[string]map[string][]map[string]any
	data, _ := os.ReadFile(filepath.Join(snap, "portal", "state.json"))
	if err := json.Unmarshal(data, &state); err != nil {
		t.Fatal(err)
	}
	rows := state["payer-portal"]["prior_auth_requests"]
	if len(rows) != 5 {
		t.Fatalf("rows: %s", data)
	}
	for i, want := range []struct{ code, status string }{{"73721", "approved"}, {"00000", "denied"}, {"72148", "need_more_info"}, {"99213", "pending"}, {"97110", "pending"}} {
		r := rows[i]
		if r["procedure_code"] != want.code || r["status"] != want.status || r["channel"] != "x12" || r["request_id"] != "PA-REQ-1" ||
			r["provider_npi"] != "1234567893" || r["patient_member_id"] != "W123456789" {
			t.Errorf("row %d: %v", i, r)
		}
	}
	if rows[0]["service_date"] != "2026-03-10" || rows[0]["units"] != 2.0 || rows[0]["certification_number"] != "AUTH000001" {
		t.Errorf("row 0: %v", rows[0])
	}
	if dx, _ := rows[0]["diagnosis_codes"].([]any); len(dx) != 2 || dx[0] != "M5416" || dx[1] != "M5126" {
		t.Errorf("diagnosis codes %v", rows[0]["diagnosis_codes"])
	}
}

// TestPriorAuthorizationRefused: a member or provider problem answers
// the AAA in 2010B or 2010C, no HCR, and writes no row.
func TestPriorAuthorizationRefused(t *testing.T) {
	f := newFrame(t, nil)
	tr := f.newRun("refused")
	for _, tc := range []struct {
		name, provider, subscriber string
		want                       map[string]string
	}{
		{name: "unknown member", subscriber: "NM1*IL*1*DOE*JOHN****MI*NOBODY", want: map[string]string{"2010C/AAA03": "75", "2010C/AAA01": "Y", "2000F/HCR01": "<nil>", "2000F/TRN02": "SV-1"}},
		{name: "no member id", subscriber: "NM1*IL*1*DOE*JANE", want: map[string]string{"2010C/AAA03": "72"}},
		{name: "invalid NPI", provider: "NM1*1P*2*CLINIC*****XX*123", want: map[string]string{"2010B/AAA03": "43", "2010C/AAA03": "<nil>", "2000F/HCR01": "<nil>"}},
		{name: "NPI not on file", provider: "NM1*1P*2*CLINIC*****XX*1245319599", want: map[string]string{"2010B/AAA03": "51", "2010B/AAA04": "N"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkPaths(t, tr.answer(req278(t, tc.provider, tc.subscriber, "SV1*HC:73721*900")), tc.want)
		})
	}
	// The birth date is checked too.
	req := req278(t, "", "", "SV1*HC:73721*900")
	x := tr.answer(strings.Replace(req, "DMG*D8*19840312*F", "DMG*D8*19990101*F", 1))
	checkPaths(t, x, map[string]string{"2010C/AAA03": "71", "2000F/HCR01": "<nil>"})
	snap := f.complete(tr)
	data, _ := os.ReadFile(filepath.Join(snap, "portal", "state.json"))
	var state map[string]map[string][]any
	json.Unmarshal(data, &state)
	if n := len(state["payer-portal"]["prior_auth_requests"]); n != 0 {
		t.Errorf("%d rows written: %s", n, data)
	}
}
