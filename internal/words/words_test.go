package words

import "testing"

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n          int
		noun, want string
	}{
		{1, "fax", "1 fax"}, {2, "fax", "2 faxes"}, {0, "row", "0 rows"}, {2, "match", "2 matches"},
		{3, "entry", "3 entries"}, {2, "day", "2 days"}, {2, "address", "2 addresses"}, {2, "message", "2 messages"},
	} {
		if got := Count(tc.n, tc.noun); got != tc.want {
			t.Errorf("Count(%d, %q) = %q, want %q", tc.n, tc.noun, got, tc.want)
		}
	}
}
