package client

import "github.com/assaykit/assay/spec"

// The kind types of package spec, re-exported so that a criterion can be
// built with the client alone:
//
//	c := assert.Criterion{TaskID: "t1", Label: "exits 0", Assertion: client.ExitCode{Code: 0}.Spec()}
//
// Each type's Spec method writes the kind's assertion object with exactly
// the keys of the design, in its order, and cannot fail; the registry (or
// the API, or `assay validate`) validates it. Expected values are made with
// package spec's String, Number, Bool, Null and ParseNumber; optional
// numbers and strings with spec.Int and spec.Text. See package spec for the
// rules (defaults written, map keys sorted, NaN written as a string).
type (
	// Field is a field assertion {key or path, expected}.
	Field = spec.Field
	// Value is an expected value: a JSON string, number, boolean or null.
	Value = spec.Value
	// OptionalInt is an integer that may be left out (spec.Int sets one).
	OptionalInt = spec.OptionalInt
	// OptionalString is a string that may be left out (spec.Text sets
	// one).
	OptionalString = spec.OptionalString

	// FHIRResourceState is a fhir-resource-state assertion.
	FHIRResourceState = spec.FHIRResourceState
	// HL7Structural is an hl7-structural assertion.
	HL7Structural = spec.HL7Structural
	// X12Response is an x12-response assertion.
	X12Response = spec.X12Response
	// PortalStateMatch is a portal-state-match assertion.
	PortalStateMatch = spec.PortalStateMatch
	// PortalCorrelation picks the rows of a portal-state-match.
	PortalCorrelation = spec.PortalCorrelation
	// SFTPFilePresent is an sftp-file-present assertion.
	SFTPFilePresent = spec.SFTPFilePresent
	// VoiceTranscript is a voice-transcript assertion.
	VoiceTranscript = spec.VoiceTranscript
	// Speaker selects whose turns a voice-transcript assertion reads.
	Speaker = spec.Speaker

	// ExitCode is an exit_code assertion.
	ExitCode = spec.ExitCode
	// OutputContains is an output_contains assertion.
	OutputContains = spec.OutputContains
	// OutputEquals is an output_equals assertion.
	OutputEquals = spec.OutputEquals
	// ErrorContains is an error_contains assertion.
	ErrorContains = spec.ErrorContains
	// FileExists is a file_exists assertion.
	FileExists = spec.FileExists
	// FileContains is a file_contains assertion.
	FileContains = spec.FileContains
	// Ran is a ran assertion.
	Ran = spec.Ran
	// NotRan is a not_ran assertion.
	NotRan = spec.NotRan
	// RunCount is a run_count assertion.
	RunCount = spec.RunCount
	// Verify is a verify assertion.
	Verify = spec.Verify
)

// The speakers of a voice-transcript assertion.
const (
	SpeakerAny    = spec.SpeakerAny
	SpeakerAgent  = spec.SpeakerAgent
	SpeakerCaller = spec.SpeakerCaller
	SpeakerIVR    = spec.SpeakerIVR
)
