package x12sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/assaykit/assay/serve/internal/sim"
	"github.com/assaykit/assay/x12"
)

// maxJSONBody caps the eligibility call's body.
const maxJSONBody = 64 << 10

// eligibilityRequest is the hosted platform's JSON eligibility call.
type eligibilityRequest struct {
	PatientID        *string  `json:"patient_id"`
	MemberID         *string  `json:"member_id"`
	ServiceTypeCodes []string `json:"service_type_codes"`
	DateOfService    *string  `json:"date_of_service"`
	ProviderNPI      *string  `json:"provider_npi"`
}

// eligibilityReply is its answer.
type eligibilityReply struct {
	X12      string        `json:"x12"`
	Active   bool          `json:"active"`
	Plan     *string       `json:"plan"`
	Benefits []benefitJSON `json:"benefits"`
	AAA      []aaaJSON     `json:"aaa"`
}

var serviceType = regexp.MustCompile(`^[A-Z0-9]{1,2}$`)

// fieldProblem names the field of a refused call.
type fieldProblem struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// serveEligibility answers POST BASE/clearinghouse/eligibility: it builds
// the 270 the call describes, answers it as any 270, and returns the 271
// with what it says.
func (rs *runSim) serveEligibility(w http.ResponseWriter, r *http.Request) {
	fail := func(status int, code, field, message string) {
		rs.emit(&outcome{status: status, message: message}, transportEligibility)
		var details any
		if field != "" {
			details = []fieldProblem{{field, message}}
			message = field + ": " + message
		}
		sim.WriteJSONError(w, status, code, message, details)
	}
	body, err := sim.ReadBody(w, r, maxJSONBody)
	if err != nil {
		if errors.Is(err, sim.ErrTooLarge) {
			fail(http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE", "", err.Error())
		} else {
			fail(http.StatusBadRequest, "VALIDATION_ERROR", "", err.Error())
		}
		return
	}
	var req eligibilityRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		field := ""
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			field = strings.Trim(name, `"`)
			err = errors.New("is not a key of the eligibility call (patient_id or member_id, service_type_codes, date_of_service, provider_npi)")
		}
		fail(http.StatusBadRequest, "VALIDATION_ERROR", field, "the body is not the eligibility call's JSON object: "+err.Error())
		return
	}
	if dec.More() {
		fail(http.StatusBadRequest, "VALIDATION_ERROR", "", "the body holds more than one JSON value")
		return
	}
	field, msg := req.check()
	if field != "" {
		fail(http.StatusBadRequest, "VALIDATION_ERROR", field, msg)
		return
	}
	req270, err := rs.build270(req)
	if err != nil {
		// The call's values were checked: a value of the policy (the
		// payer's id) holds one of * ~ : ^.
		fail(http.StatusInternalServerError, "INTERNAL", "", "the 270 cannot be written: "+err.Error())
		return
	}
	o := rs.exchange(req270, transportEligibility)
	if o.status != http.StatusOK {
		sim.WriteJSONError(w, o.status, o.code, o.message, nil)
		return
	}
	reply := eligibilityReply{X12: string(o.response), Benefits: []benefitJSON{}, AAA: []aaaJSON{}}
	if e := o.elig; e != nil {
		reply.Active, reply.Plan, reply.Benefits = e.Active, e.Plan, benefitsJSON(e.Benefits)
		if e.AAA != nil {
			reply.AAA = e.AAA
		}
	}
	sim.WriteJSON(w, http.StatusOK, reply)
}

// check says which field is wrong, and how.
func (q *eligibilityRequest) check() (field, message string) {
	id := ""
	switch {
	case q.PatientID != nil && q.MemberID != nil && *q.PatientID != *q.MemberID:
		return "member_id", "patient_id and member_id name the member twice, differently"
	case q.PatientID != nil:
		id, field = *q.PatientID, "patient_id"
	case q.MemberID != nil:
		id, field = *q.MemberID, "member_id"
	default:
		return "member_id", "patient_id or member_id is required"
	}
	switch {
	case id == "":
		return field, "is empty"
	case !x12Text(id) || len(id) > 80:
		return field, "is not a member id an X12 270 can carry (at most 80 printable characters, none of * ~ : ^)"
	case len(q.ServiceTypeCodes) > 99:
		return "service_type_codes", "holds more than 99 codes"
	}
	for i, c := range q.ServiceTypeCodes {
		if !serviceType.MatchString(c) {
			return fmt.Sprintf("service_type_codes/%d", i), fmt.Sprintf("%q is not a service type code (one or two capital letters and digits, such as 30 or MR)", c)
		}
	}
	if q.DateOfService != nil {
		if _, err := time.Parse("2006-01-02", *q.DateOfService); err != nil {
			return "date_of_service", fmt.Sprintf("%q is not a date (YYYY-MM-DD)", *q.DateOfService)
		}
	}
	if q.ProviderNPI != nil && (!x12Text(*q.ProviderNPI) || len(*q.ProviderNPI) > 80) {
		return "provider_npi", "is not an NPI an X12 270 can carry"
	}
	return "", ""
}

// x12Text: printable ASCII, none of the standard delimiters.
func x12Text(s string) bool { return printable(s) }

// build270 writes the 270 an eligibility call describes: the provider
// the call names, else the policy's first; one EQ per service type; a
// DTP*291 when the call gives a date. Its trace number (TRN02, BHT03) is
// ELIG and a counter of the run.
func (rs *runSim) build270(q eligibilityRequest) ([]byte, error) {
	pol := rs.ledger.Policy()
	now := rs.run.Now().UTC()
	n := rs.run.Next("eligibility")
	trace := fmt.Sprintf("ELIG%06d", n)
	const client = "ASSAYCLIENT"
	w := x12.NewWriter(standard, x12.Header{Sender: client, Receiver: clipID(pol.Payer.ID), Time: now, Control: n % 1000000000})
	w.Group(x12.Group{Code: "HS", Sender: client, Receiver: pol.Payer.ID, Time: now, Control: max(n%1000000000, 1), Version: "005010X279A1"})
	w.Set("270", "0001")
	w.Segment("BHT", "0022", "13", trace, now.Format("20060102"), now.Format("1504"))
	w.Segment("HL", "1", "", "20", "1")
	w.Segment("NM1", "PR", "2", scrub(pol.Payer.Name, standard), "", "", "", "", "PI", pol.Payer.ID)
	w.Segment("HL", "2", "1", "21", "1")
	npi, name := "", "PROVIDER"
	if q.ProviderNPI != nil {
		npi = *q.ProviderNPI
	} else if len(pol.Providers) > 0 {
		npi = pol.Providers[0].NPI
	}
	if p, ok := pol.Provider(npi); ok && p.Name != "" {
		name = scrub(p.Name, standard)
	}
	if npi != "" {
		w.Segment("NM1", "1P", "2", name, "", "", "", "", "XX", npi)
	} else {
		w.Segment("NM1", "1P", "2", name)
	}
	w.Segment("HL", "3", "2", "22", "0")
	w.Segment("TRN", "1", trace, "9ASSAYSBOX")
	id := q.MemberID
	if q.PatientID != nil {
		id = q.PatientID
	}
	w.Segment("NM1", "IL", "1", "", "", "", "", "", "MI", *id)
	if q.DateOfService != nil {
		w.Segment("DTP", "291", "D8", x12Date(*q.DateOfService))
	}
	codes := q.ServiceTypeCodes
	if len(codes) == 0 {
		codes = []string{"30"}
	}
	for _, c := range codes {
		w.Segment("EQ", c)
	}
	return w.Bytes()
}
