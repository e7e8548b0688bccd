package x12sim

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/assaykit/assay/x12"
)

// FuzzExchange: no request body makes the clearinghouse panic, and every
// body gets a 200 whose answer (a 271, 277, 278, 999 or TA1) parses
// without findings, or the 413 of a body or run over its cap.
func FuzzExchange(f *testing.F) {
	for _, glob := range []string{"testdata/requests/*.x12", "../../../x12/testdata/corpus/*.x12", "../../../x12/testdata/own/*.x12"} {
		files, _ := filepath.Glob(glob)
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Add([]byte("ISA*"))
	f.Add([]byte(""))
	rs, _ := newTestRun(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(rs.records) > 200 {
			rs.records, rs.size = nil, 0
		}
		o := rs.exchange(data, transportX12)
		switch o.status {
		case http.StatusOK:
			x, err := x12.Parse(o.response, x12.Strict())
			if err != nil {
				t.Fatalf("the %s answer has findings: %v\n%s", o.transaction, err, o.response)
			}
			want := map[string]bool{"271": true, "277": true, "278": true, "999": true}[o.transaction]
			if txs := x.Transactions(); want != (len(txs) == 1 && txs[0].Code == o.transaction) && o.transaction != "999" {
				t.Fatalf("a %s answer holds %+v", o.transaction, txs)
			}
		case http.StatusRequestEntityTooLarge:
		default:
			t.Fatalf("status %d: %s", o.status, o.message)
		}
	})
}
