package specjson_test

import (
	"fmt"

	"github.com/tidwall/gjson"

	"github.com/assaykit/assay/internal/specjson"
)

// A repeated key reads as its last occurrence, as the schema check saw it.
func ExampleMember() {
	spec := gjson.Parse(`{"assert": "voice-transcript", "speaker": "user", "speaker": "agent"}`)
	fmt.Println(specjson.Member(spec, "speaker").String())
	// Output: agent
}
