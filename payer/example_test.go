package payer_test

import (
	"fmt"
	"os"
	"time"

	"github.com/assaykit/assay/payer"
)

// A prior authorization decided by the policy's determinations: the knee MRI
// is approved at once; a request the policy does not list is denied.
func Example() {
	data, _ := os.ReadFile("testdata/policy.json")
	p, err := payer.Parse(data)
	if err != nil {
		fmt.Println(err)
		return
	}
	ledger := payer.NewLedger(p, &fakeRun{now: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC), counters: map[string]int64{}})
	mri, _ := ledger.Submit(payer.Submission{PatientMemberID: "W123456789", ProcedureCode: "73721", ServiceDate: "2026-03-10", Channel: "api"})
	fmt.Println(mri.AuthNumber, mri.Status, *mri.CertificationNumber, *mri.ValidFrom, *mri.ValidTo)
	other, _ := ledger.Submit(payer.Submission{PatientMemberID: "W123456789", ProcedureCode: "27447", Channel: "api"})
	fmt.Println(other.AuthNumber, other.Status, *other.Reason)
	// Output:
	// PA-000001 approved AUTH000001 2026-03-10 2026-04-08
	// PA-000002 denied Not medically necessary
}
