package assert

import "encoding/json"

// SplitArray returns the elements of data, a valid JSON array, as slices
// of it, as parseCriteria splits an array (arrayItems), for
// FuzzParseCriteria to hold to encoding/json's split.
func SplitArray(data []byte) []json.RawMessage {
	items := arrayItems(string(data))
	out := make([]json.RawMessage, len(items))
	for i, v := range items {
		if v.Index > 0 && v.Index+len(v.Raw) <= len(data) {
			out[i] = data[v.Index : v.Index+len(v.Raw) : v.Index+len(v.Raw)]
		} else {
			out[i] = json.RawMessage(v.Raw)
		}
	}
	return out
}
