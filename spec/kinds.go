package spec

import (
	"net/url"
	"strconv"

	"github.com/assaykit/assay/assert"
)

// Builder is what every kind type of this package is: a value whose Spec
// writes its assertion object. Use it for tables of specs of several kinds.
type Builder interface {
	Spec() assert.Spec
}

// The criteria kinds. Each writes {"assert": KIND, ...} with the kind's
// exact keys, in the order its documentation lists them.

// FHIRResourceState is a fhir-resource-state assertion: search
// ResourceType with Search, and some match satisfies every field.
type FHIRResourceState struct {
	// ResourceType is the FHIR resource type searched ("Appointment").
	ResourceType string
	// Search holds the search parameters: a parameter with one value is
	// written as a string, with several as a list (the parameter repeated,
	// AND), with none not at all. Nil is written as {}.
	Search url.Values
	// Fields are dotted paths into the resource JSON
	// ("participant.0.actor.display").
	Fields []Field
}

// Spec writes {"assert", "resource_type", "search", "fields"}; search keys
// are sorted.
func (a FHIRResourceState) Spec() assert.Spec {
	w := object("fhir-resource-state", 128)
	w.str("resource_type", a.ResourceType)
	outer := w.open("search")
	for _, k := range sortedKeys(a.Search) {
		switch vs := a.Search[k]; len(vs) {
		case 0: // no value: not searched, as url.Values.Encode leaves it out
		case 1:
			w.str(k, vs[0])
		default:
			w.strings(k, vs)
		}
	}
	w.close(outer)
	w.fields("fields", a.Fields)
	return w.done()
}

// HL7Structural is an hl7-structural assertion: among the captured outbound
// messages whose every CorrelateBy entry matches, one satisfies every
// field.
type HL7Structural struct {
	// CorrelateBy keys are HL7 paths ("MSH.9.2") or the names
	// message_type, trigger_event, message_structure, control_id,
	// sending_application, receiving_application. Nil is written as {}.
	CorrelateBy map[string]Value
	// Fields are HL7 paths ("PID.3.1").
	Fields []Field
}

// Spec writes {"assert", "correlate_by", "fields"}; correlate_by keys are
// sorted.
func (a HL7Structural) Spec() assert.Spec {
	w := object("hl7-structural", 128)
	w.values("correlate_by", a.CorrelateBy)
	w.fields("fields", a.Fields)
	return w.done()
}

// X12Response is an x12-response assertion: among the recorded
// request/response pairs of Transaction whose CorrelateBy entries match,
// one response satisfies every field.
type X12Response struct {
	// Transaction is a transaction set, "270".."278"; "" is written as
	// null and selects every recorded pair.
	Transaction string
	// CorrelateBy keys are X12 paths on the response ("TRN02") or record
	// metadata names ("request_id"). Nil is written as {}.
	CorrelateBy map[string]Value
	// Fields are X12 paths on the response ("2100C/NM1[IL]09").
	Fields []Field
}

// Spec writes {"assert", "transaction", "correlate_by", "fields"};
// correlate_by keys are sorted.
func (a X12Response) Spec() assert.Spec {
	w := object("x12-response", 128)
	if a.Transaction == "" {
		w.value("transaction", Null())
	} else {
		w.str("transaction", a.Transaction)
	}
	w.values("correlate_by", a.CorrelateBy)
	w.fields("fields", a.Fields)
	return w.done()
}

// PortalStateMatch is a portal-state-match assertion: some row of a
// portal's state, picked by CorrelateBy, satisfies every assertion.
type PortalStateMatch struct {
	// Portal is the portal's slug; "" leaves the key out (the state file
	// is then read as {resource: rows}).
	Portal string
	// CorrelateBy picks the candidate rows.
	CorrelateBy PortalCorrelation
	// Assertions are dotted paths into each row.
	Assertions []Field
}

// PortalCorrelation picks the rows of a portal-state-match: rows of state
// resource Resource that have the column Key, equal (compared as text) to
// Value unless Value is null.
type PortalCorrelation struct {
	Resource, Key string
	// Value is left out when null (the zero Value): any value matches.
	Value Value
}

// Spec writes {"assert", "portal"?, "correlate_by": {"resource", "key",
// "value"?}, "assertions"}.
func (a PortalStateMatch) Spec() assert.Spec {
	w := object("portal-state-match", 128)
	if a.Portal != "" {
		w.str("portal", a.Portal)
	}
	outer := w.open("correlate_by")
	w.str("resource", a.CorrelateBy.Resource)
	w.str("key", a.CorrelateBy.Key)
	if !a.CorrelateBy.Value.IsNull() {
		w.value("value", a.CorrelateBy.Value)
	}
	w.close(outer)
	w.fields("assertions", a.Assertions)
	return w.done()
}

// SFTPFilePresent is an sftp-file-present assertion: a regular file at
// Path, or matching PathPattern, exists in the final tree (and, with
// fields, one of them satisfies every field).
type SFTPFilePresent struct {
	// Path is a path relative to the SFTP root (a leading / means the
	// root). Set exactly one of Path and PathPattern.
	Path string
	// PathPattern is a glob: * and ? within a segment, ** across
	// segments.
	PathPattern string
	// ParseJSON reads matching files as JSON; fields need it.
	ParseJSON bool
	// Fields name a top-level member by Key or a dotted Path.
	Fields []Field
}

// Spec writes {"assert", "path" or "path_pattern", "parse_json",
// "fields"}. Both or neither of Path and PathPattern are written as given
// (both, or neither), which the kind's schema rejects when decoding.
func (a SFTPFilePresent) Spec() assert.Spec {
	w := object("sftp-file-present", 128)
	if a.Path != "" {
		w.str("path", a.Path)
	}
	if a.PathPattern != "" {
		w.str("path_pattern", a.PathPattern)
	}
	w.key("parse_json")
	w.buf = strconv.AppendBool(w.buf, a.ParseJSON)
	w.fields("fields", a.Fields)
	return w.done()
}

// Speaker selects whose turns a voice-transcript assertion reads.
type Speaker string

// The speakers.
const (
	SpeakerAny    Speaker = "any"
	SpeakerAgent  Speaker = "agent"
	SpeakerCaller Speaker = "caller"
	SpeakerIVR    Speaker = "ivr"
)

// VoiceTranscript is a voice-transcript assertion: every Contains phrase
// is found (loosely) in the Speaker's turns, and no NotContains phrase.
type VoiceTranscript struct {
	// Speaker "" is written as "any".
	Speaker     Speaker
	Contains    []string
	NotContains []string
}

// Spec writes {"assert", "speaker", "contains", "not_contains"}; nil lists
// are written as [].
func (a VoiceTranscript) Spec() assert.Spec {
	speaker := a.Speaker
	if speaker == "" {
		speaker = SpeakerAny
	}
	w := object("voice-transcript", 96)
	w.str("speaker", string(speaker))
	w.strings("contains", a.Contains)
	w.strings("not_contains", a.NotContains)
	return w.done()
}

// The ten cli-bench kinds. Each writes the criteria shape
// {"assert": KIND, KIND: VALUE}, which the registry reads like the
// single-key {KIND: VALUE} of a cli-bench.yaml.

// ExitCode is an exit_code assertion: the last command exited with Code.
type ExitCode struct{ Code int }

// Spec writes {"assert": "exit_code", "exit_code": Code}.
func (a ExitCode) Spec() assert.Spec {
	w := object("exit_code", 40)
	w.key("exit_code")
	w.buf = strconv.AppendInt(w.buf, int64(a.Code), 10)
	return w.done()
}

// OutputContains is an output_contains assertion: the last command's
// stdout contains Text (case-sensitive).
type OutputContains struct{ Text string }

// Spec writes {"assert": "output_contains", "output_contains": Text}.
func (a OutputContains) Spec() assert.Spec { return single("output_contains", a.Text) }

// OutputEquals is an output_equals assertion: the last command's stdout
// equals Text, both trimmed of leading and trailing whitespace.
type OutputEquals struct{ Text string }

// Spec writes {"assert": "output_equals", "output_equals": Text}.
func (a OutputEquals) Spec() assert.Spec { return single("output_equals", a.Text) }

// ErrorContains is an error_contains assertion: the last command's stderr
// contains Text (case-sensitive).
type ErrorContains struct{ Text string }

// Spec writes {"assert": "error_contains", "error_contains": Text}.
func (a ErrorContains) Spec() assert.Spec { return single("error_contains", a.Text) }

// FileExists is a file_exists assertion: Path exists after the run
// (relative to the working directory unless absolute; directories count).
type FileExists struct{ Path string }

// Spec writes {"assert": "file_exists", "file_exists": Path}.
func (a FileExists) Spec() assert.Spec { return single("file_exists", a.Path) }

// FileContains is a file_contains assertion: the file at Path exists and
// contains Text.
type FileContains struct{ Path, Text string }

// Spec writes {"assert": "file_contains", "file_contains": {"path",
// "text"}}.
func (a FileContains) Spec() assert.Spec {
	w := object("file_contains", 64)
	outer := w.open("file_contains")
	w.str("path", a.Path)
	w.str("text", a.Text)
	w.close(outer)
	return w.done()
}

// Ran is a ran assertion: some command matches the JavaScript regular
// expression Pattern (unanchored).
type Ran struct{ Pattern string }

// Spec writes {"assert": "ran", "ran": Pattern}.
func (a Ran) Spec() assert.Spec { return single("ran", a.Pattern) }

// NotRan is a not_ran assertion: no command matches Pattern.
type NotRan struct{ Pattern string }

// Spec writes {"assert": "not_ran", "not_ran": Pattern}.
func (a NotRan) Spec() assert.Spec { return single("not_ran", a.Pattern) }

// RunCount is a run_count assertion: the number of commands matching
// Pattern is within [Min, Max], both inclusive. Unset bounds are left out;
// the kind needs at least one.
type RunCount struct {
	Pattern  string
	Min, Max OptionalInt
}

// Spec writes {"assert": "run_count", "run_count": {"pattern", "min"?,
// "max"?}}.
func (a RunCount) Spec() assert.Spec {
	w := object("run_count", 72)
	outer := w.open("run_count")
	w.str("pattern", a.Pattern)
	if n, ok := a.Min.Get(); ok {
		w.key("min")
		w.buf = strconv.AppendInt(w.buf, int64(n), 10)
	}
	if n, ok := a.Max.Get(); ok {
		w.key("max")
		w.buf = strconv.AppendInt(w.buf, int64(n), 10)
	}
	w.close(outer)
	return w.done()
}

// Verify is a verify assertion: Run, executed by sh -c in the working
// directory after the task, exits 0, and its stdout passes the checks that
// are set.
type Verify struct {
	Run            string
	OutputContains OptionalString
	OutputEquals   OptionalString
}

// Spec writes {"assert": "verify", "verify": {"run", "output_contains"?,
// "output_equals"?}}.
func (a Verify) Spec() assert.Spec {
	w := object("verify", 80)
	outer := w.open("verify")
	w.str("run", a.Run)
	if s, ok := a.OutputContains.Get(); ok {
		w.str("output_contains", s)
	}
	if s, ok := a.OutputEquals.Get(); ok {
		w.str("output_equals", s)
	}
	w.close(outer)
	return w.done()
}

func single(kind, value string) assert.Spec {
	w := object(kind, 32+2*len(kind)+len(value))
	w.str(kind, value)
	return w.done()
}
