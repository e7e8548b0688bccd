package x12sim

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/assaykit/assay/x12"
)

// CAQH CORE real-time over HTTP+MIME (the Phase II connectivity rule,
// CORE 270, version 2.2.0).
const (
	coreVersion  = "2.2.0"
	coreRealTime = "RealTime"
	coreSuccess  = "Success"
	coreError    = "CoreEnvelopeError" // PayloadType of an envelope error
	// maxCoreField caps a field other than Payload.
	maxCoreField = 4 << 10
	// maxCoreParts caps the parts of one envelope.
	maxCoreParts = 32
)

// coreFields are the fields of a real-time request, required ones first,
// in the order they are checked.
var (
	coreRequired = []string{"PayloadType", "ProcessingMode", "PayloadID", "TimeStamp", "SenderID", "ReceiverID", "CORERuleVersion", "Payload"}
	// coreOptional are CORE fields a request may carry that the sandbox
	// reads past: the run's bearer token authenticates, and a real-time
	// request needs no length or checksum.
	coreOptional = []string{"UserName", "Password", "PayloadLength", "Checksum"}
)

// corePayloadTypes map a request's PayloadType to its transaction set, and
// an answer's transaction set to its PayloadType.
var (
	coreRequests = map[string]string{
		"X12_270_Request_005010X279A1": "270",
		"X12_276_Request_005010X212":   "276",
		"X12_278_Request_005010X217":   "278",
	}
	coreResponses = map[string]string{
		"271": "X12_271_Response_005010X279A1",
		"277": "X12_277_Response_005010X212",
		"278": "X12_278_Response_005010X217",
		"999": "X12_999_Response_005010X231A1",
		"TA1": "X12_TA1_Response_00501X231A1",
	}
)

// coreProblem is an envelope refused: the HTTP status, CORE's ErrorCode
// and the message.
type coreProblem struct {
	status        int
	code, message string
}

// serveCORE answers POST BASE/x12/core.
func (rs *runSim) serveCORE(w http.ResponseWriter, r *http.Request) {
	fields, p := readCORE(w, r)
	if p == nil {
		p = checkCORE(fields)
	}
	if p != nil {
		rs.emit(&outcome{status: p.status, message: p.code + ": " + p.message}, transportCORE)
		rs.coreError(w, p.status, fields, p.code, p.message)
		return
	}
	o := rs.exchange([]byte(fields["Payload"]), transportCORE)
	if o.status != http.StatusOK {
		rs.coreError(w, o.status, fields, o.code, o.message)
		return
	}
	rs.writeCORE(w, http.StatusOK, []corePart{
		{"PayloadType", coreResponses[o.transaction]},
		{"ProcessingMode", coreRealTime},
		{"PayloadID", fields["PayloadID"]},
		{"TimeStamp", rs.run.Now().UTC().Format(time.RFC3339)},
		{"SenderID", fields["ReceiverID"]},
		{"ReceiverID", fields["SenderID"]},
		{"CORERuleVersion", fields["CORERuleVersion"]},
		{"Payload", string(o.response)},
		{"ErrorCode", coreSuccess},
		{"ErrorMessage", "None"},
	})
}

// readCORE reads a multipart/form-data envelope: every part a field,
// named once, of a known name, within its size.
func readCORE(w http.ResponseWriter, r *http.Request) (map[string]string, *coreProblem) {
	fields := map[string]string{}
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return fields, &coreProblem{http.StatusBadRequest, "PayloadTypeRequired", "a CORE real-time request is multipart/form-data with the fields " + strings.Join(coreRequired, ", ") + "; this body's Content-Type is " + quote(r.Header.Get("Content-Type"))}
	}
	body := http.MaxBytesReader(w, r.Body, MaxRequest+64<<10)
	mr := multipart.NewReader(body, params["boundary"])
	for parts := 0; ; parts++ {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return fields, nil
		}
		if err != nil {
			return fields, bodyProblem(err)
		}
		if parts == maxCoreParts {
			return fields, &coreProblem{http.StatusBadRequest, "PayloadTypeIllegal", "an envelope holds at most 32 parts"}
		}
		name := part.FormName()
		known := slices.Contains(coreRequired, name) || slices.Contains(coreOptional, name)
		switch {
		case !known:
			return fields, &coreProblem{http.StatusBadRequest, fieldName(name) + "Illegal", quote(name) + " is not a field of a CORE real-time request (" + strings.Join(append(append([]string{}, coreRequired...), coreOptional...), ", ") + ")"}
		case hasField(fields, name):
			return fields, &coreProblem{http.StatusBadRequest, name + "Illegal", name + " is given twice"}
		}
		limit := int64(maxCoreField)
		if name == "Payload" {
			limit = MaxRequest
		}
		data, err := io.ReadAll(io.LimitReader(part, limit+1))
		if err != nil {
			return fields, bodyProblem(err)
		}
		if int64(len(data)) > limit {
			if name == "Payload" {
				return fields, &coreProblem{http.StatusRequestEntityTooLarge, "PayloadIllegal", "a Payload is at most 1 MiB"}
			}
			return fields, &coreProblem{http.StatusBadRequest, name + "Illegal", name + " is over 4 KiB"}
		}
		if name == "UserName" || name == "Password" {
			data = nil // never kept
		}
		fields[name] = string(data)
	}
}

func hasField(fields map[string]string, name string) bool {
	_, ok := fields[name]
	return ok
}

func bodyProblem(err error) *coreProblem {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return &coreProblem{http.StatusRequestEntityTooLarge, "PayloadIllegal", "the envelope is over its cap (a Payload is at most 1 MiB)"}
	}
	return &coreProblem{http.StatusBadRequest, "PayloadTypeRequired", "the multipart body cannot be read: " + err.Error()}
}

// checkCORE checks the fields' presence and values: CORE's
// <Field>Required, <Field>Illegal and VersionMismatch.
func checkCORE(fields map[string]string) *coreProblem {
	for _, name := range coreRequired {
		if fields[name] == "" {
			return &coreProblem{http.StatusBadRequest, name + "Required", name + " is required"}
		}
	}
	want, ok := coreRequests[fields["PayloadType"]]
	switch {
	case !ok:
		return &coreProblem{http.StatusBadRequest, "PayloadTypeIllegal", "PayloadType " + quote(fields["PayloadType"]) + " is not one of X12_270_Request_005010X279A1, X12_276_Request_005010X212, X12_278_Request_005010X217"}
	case fields["ProcessingMode"] != coreRealTime:
		return &coreProblem{http.StatusBadRequest, "ProcessingModeIllegal", "ProcessingMode is RealTime (batch is not served), not " + quote(fields["ProcessingMode"])}
	case fields["CORERuleVersion"] != coreVersion:
		return &coreProblem{http.StatusBadRequest, "VersionMismatch", "CORERuleVersion is " + coreVersion + ", not " + quote(fields["CORERuleVersion"])}
	}
	if _, err := time.Parse(time.RFC3339, fields["TimeStamp"]); err != nil {
		return &coreProblem{http.StatusBadRequest, "TimeStampIllegal", "TimeStamp is an xsd:dateTime such as 2026-03-01T09:30:00Z, not " + quote(fields["TimeStamp"])}
	}
	if x, err := x12.ParseString(fields["Payload"]); err == nil {
		if txs := x.Transactions(); len(txs) > 0 {
			if code := txs[0].Code; code != want && isRequest(code) {
				return &coreProblem{http.StatusBadRequest, "PayloadTypeIllegal", "PayloadType says " + want + ", and the Payload is a " + txs[0].Code}
			}
		}
	}
	return nil
}

func isRequest(code string) bool { return code == "270" || code == "276" || code == "278" }

// fieldName is an unknown field's name as an ErrorCode may carry it:
// letters, digits, _ and -, at most 64.
func fieldName(name string) string {
	var b strings.Builder
	for _, c := range name {
		if c < 128 && (c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z') && b.Len() < 64 {
			b.WriteRune(c)
		}
	}
	if b.Len() == 0 {
		return "Field"
	}
	return b.String()
}

func quote(s string) string {
	if len(s) > 80 {
		s = s[:80] + "..."
	}
	return `"` + strings.ToValidUTF8(s, "?") + `"`
}

// corePart is one field of an answer.
type corePart struct{ name, value string }

// coreError answers an envelope refused: PayloadType CoreEnvelopeError,
// what the request gave echoed (sender and receiver swapped), ErrorCode
// and ErrorMessage.
func (rs *runSim) coreError(w http.ResponseWriter, status int, fields map[string]string, code, message string) {
	mode := fields["ProcessingMode"]
	if mode == "" || len(mode) > 64 {
		mode = coreRealTime
	}
	version := fields["CORERuleVersion"]
	if version == "" || len(version) > 64 {
		version = coreVersion
	}
	rs.writeCORE(w, status, []corePart{
		{"PayloadType", coreError},
		{"ProcessingMode", mode},
		{"PayloadID", fields["PayloadID"]},
		{"TimeStamp", rs.run.Now().UTC().Format(time.RFC3339)},
		{"SenderID", fields["ReceiverID"]},
		{"ReceiverID", fields["SenderID"]},
		{"CORERuleVersion", version},
		{"ErrorCode", code},
		{"ErrorMessage", message},
	})
}

// writeCORE writes a multipart/form-data answer of parts, leaving out
// empty ones.
func (rs *runSim) writeCORE(w http.ResponseWriter, status int, parts []corePart) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, p := range parts {
		if p.value != "" {
			mw.WriteField(p.name, p.value)
		}
	}
	mw.Close()
	w.Header().Set("Content-Type", mw.FormDataContentType())
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}
