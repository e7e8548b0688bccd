package portalsim

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/assaykit/assay/internal/strictjson"
	"github.com/assaykit/assay/payer"
	"github.com/assaykit/assay/serve/internal/sim"
)

// Channels of the portal's writes.
const (
	channelAPI = "api"
	channelWeb = "web"
)

// fieldProblem names a field a request got wrong: the details of a
// VALIDATION_ERROR.
type fieldProblem struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// apiError is an error answer of the REST API.
type apiError struct {
	status  int
	code    string
	message string
	details []fieldProblem
}

func (e *apiError) Error() string { return e.message }

func invalid(field, format string, args ...any) *apiError {
	msg := fmt.Sprintf(format, args...)
	return &apiError{http.StatusBadRequest, "VALIDATION_ERROR", field + ": " + msg, []fieldProblem{{field, msg}}}
}

func notFound(format string, args ...any) *apiError {
	return &apiError{status: http.StatusNotFound, code: "NOT_FOUND", message: fmt.Sprintf(format, args...)}
}

func writeAPIError(w http.ResponseWriter, e *apiError) {
	var details any
	if len(e.details) > 0 {
		details = e.details
	}
	sim.WriteJSONError(w, e.status, e.code, e.message, details)
}

// noPolicy is the message of every portal answer when the seed has no
// payer policy.
const noPolicy = "the portal answers for the payer, and the seed has no " + PolicyFile + ": add one (its format: go doc github.com/assaykit/assay/payer) to use the portal"

// serveAPI serves BASE/portal/api/SUB.
func (rs *runSim) serveAPI(w http.ResponseWriter, req *http.Request, sub string) {
	if rs.ledger == nil {
		sim.WriteJSONError(w, http.StatusServiceUnavailable, "UNAVAILABLE", noPolicy, nil)
		return
	}
	seg := strings.Split(sub, "/")
	route := func(methods ...string) bool {
		if slices.Contains(methods, req.Method) || (req.Method == http.MethodHead && slices.Contains(methods, http.MethodGet)) {
			return true
		}
		w.Header().Set("Allow", strings.Join(methods, ", "))
		sim.WriteJSONError(w, http.StatusMethodNotAllowed, "VALIDATION_ERROR", req.Method+" is not allowed on "+req.URL.Path, nil)
		rs.emit(actionOf(req.Method, seg), authOf(seg), channelAPI, http.StatusMethodNotAllowed, req.Method+" is not allowed")
		return false
	}
	switch {
	case sub == "prior-auths":
		if !route(http.MethodGet, http.MethodPost) {
			return
		}
		if req.Method == http.MethodPost {
			rs.apiSubmit(w, req)
		} else {
			rs.apiList(w, req)
		}
	case len(seg) == 2 && seg[0] == "prior-auths" && seg[1] != "":
		if route(http.MethodGet) {
			rs.apiView(w, seg[1])
		}
	case len(seg) == 3 && seg[0] == "prior-auths" && seg[2] == "attachments":
		if !route(http.MethodGet, http.MethodPost) {
			return
		}
		if req.Method == http.MethodPost {
			rs.apiAttach(w, req, seg[1])
		} else {
			rs.apiAttachments(w, seg[1])
		}
	case sub == "patients":
		if route(http.MethodGet) {
			rs.apiPatients(w, req)
		}
	case sub == "providers":
		if route(http.MethodGet) {
			rs.apiProviders(w, req)
		}
	default:
		e := notFound("no portal API call %s %s: the calls are POST and GET prior-auths, GET prior-auths/{auth_number}, POST and GET prior-auths/{auth_number}/attachments, GET patients, GET providers", req.Method, req.URL.Path)
		writeAPIError(w, e)
		rs.emit(actionOf(req.Method, seg), authOf(seg), channelAPI, e.status, e.message)
	}
}

// actionOf and authOf name the action and request of a call that failed
// before it was understood.
func actionOf(method string, seg []string) string {
	write := method != http.MethodGet && method != http.MethodHead
	switch {
	case len(seg) == 3 && seg[2] == "attachments" && write:
		return "attach"
	case len(seg) == 1 && seg[0] == "prior-auths" && write:
		return "submit"
	case len(seg) >= 2 && seg[0] == "prior-auths":
		return "view"
	}
	return "search"
}

func authOf(seg []string) string {
	if len(seg) >= 2 && seg[0] == "prior-auths" {
		return seg[1]
	}
	return ""
}

// --- prior authorizations ---

// submitBody is the JSON of POST prior-auths.
type submitBody struct {
	PatientMemberID string   `json:"patient_member_id" strict:"required"`
	ProcedureCode   string   `json:"procedure_code" strict:"required"`
	ProviderNPI     *string  `json:"provider_npi"`
	DiagnosisCodes  []string `json:"diagnosis_codes"`
	ServiceDate     *string  `json:"service_date"`
	Units           *int     `json:"units"`
	RequestID       *string  `json:"request_id"`
	Notes           *string  `json:"notes"`
}

// decodeSubmission reads the JSON of a prior-authorization request
// strictly: unknown and repeated keys, wrong types and missing required
// keys are each a problem naming its field.
func decodeSubmission(data []byte) (payer.Submission, *apiError) {
	var body submitBody
	if err := strictjson.Decode(data, &body); err != nil {
		return payer.Submission{}, strictError(err)
	}
	deref := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	return payer.Submission{
		RequestID:       deref(body.RequestID),
		PatientMemberID: body.PatientMemberID,
		ProcedureCode:   body.ProcedureCode,
		ProviderNPI:     deref(body.ProviderNPI),
		DiagnosisCodes:  body.DiagnosisCodes,
		ServiceDate:     deref(body.ServiceDate),
		Units:           body.Units,
		Notes:           deref(body.Notes),
		Channel:         channelAPI,
	}, nil
}

// strictError turns strictjson's problems into a VALIDATION_ERROR whose
// details name each field.
func strictError(err error) *apiError {
	var errs strictjson.Errors
	if !errors.As(err, &errs) || len(errs) == 0 {
		return invalid("body", "%v", err)
	}
	e := &apiError{status: http.StatusBadRequest, code: "VALIDATION_ERROR", message: "the body is not a valid request: " + errs.Error()}
	for _, p := range errs {
		field := "body"
		if first, _, _ := strings.Cut(strings.TrimPrefix(p.Pointer, "/"), "/"); first != "" {
			field = strings.ReplaceAll(strings.ReplaceAll(first, "~1", "/"), "~0", "~")
		}
		e.details = append(e.details, fieldProblem{field, p.Error()})
	}
	return e
}

// submit records a request through the run's ledger, holding its size in
// the sandbox's memory budget.
func (rs *runSim) submit(s payer.Submission) (payer.Row, *apiError) {
	if err := rs.ledger.Check(s); err != nil {
		return payer.Row{}, ledgerError(err)
	}
	size := int64(512 + len(s.RequestID) + len(s.Notes) + len(s.PatientMemberID) + len(s.ProcedureCode))
	for _, c := range s.DiagnosisCodes {
		size += int64(len(c)) + 16
	}
	if err := rs.run.Reserve(size); err != nil {
		return payer.Row{}, &apiError{status: http.StatusInsufficientStorage, code: "INSUFFICIENT_STORAGE", message: err.Error()}
	}
	row, err := rs.ledger.Submit(s)
	if err != nil {
		rs.run.Release(size)
		return payer.Row{}, ledgerError(err)
	}
	return row, nil
}

func ledgerError(err error) *apiError {
	var fe *payer.FieldError
	if errors.As(err, &fe) {
		return invalid(fe.Field, "%s", fe.Message)
	}
	return invalid("body", "%v", err)
}

func (rs *runSim) apiSubmit(w http.ResponseWriter, req *http.Request) {
	fail := func(e *apiError) {
		writeAPIError(w, e)
		rs.emit("submit", "", channelAPI, e.status, e.message)
	}
	data, err := sim.ReadBody(w, req, maxJSONBody)
	if err != nil {
		fail(bodyError(err))
		return
	}
	s, e := decodeSubmission(data)
	if e != nil {
		fail(e)
		return
	}
	row, e := rs.submit(s)
	if e != nil {
		fail(e)
		return
	}
	w.Header().Set("Location", rs.run.BaseURL()+"/portal/api/prior-auths/"+url.PathEscape(row.AuthNumber))
	sim.WriteJSON(w, http.StatusCreated, row)
	rs.emit("submit", row.AuthNumber, channelAPI, http.StatusCreated, "")
}

func bodyError(err error) *apiError {
	if errors.Is(err, sim.ErrTooLarge) {
		return &apiError{status: http.StatusRequestEntityTooLarge, code: "PAYLOAD_TOO_LARGE", message: err.Error()}
	}
	return invalid("body", "%v", err)
}

// query reads a call's query parameters: only those allowed, each once.
func query(req *http.Request, allowed ...string) (url.Values, *apiError) {
	q, err := url.ParseQuery(req.URL.RawQuery)
	if err != nil {
		return nil, invalid("query", "%v", err)
	}
	for k, v := range q {
		if !slices.Contains(allowed, k) {
			return nil, invalid(k, "is not a parameter of this call (it takes %s)", strings.Join(allowed, ", "))
		}
		if len(v) > 1 {
			return nil, invalid(k, "is given %d times; give it once", len(v))
		}
	}
	return q, nil
}

func (rs *runSim) apiList(w http.ResponseWriter, req *http.Request) {
	q, e := query(req, "patient_member_id")
	if e != nil {
		writeAPIError(w, e)
		rs.emit("search", "", channelAPI, e.status, e.message)
		return
	}
	sim.WriteJSON(w, http.StatusOK, map[string]any{"data": rs.requests(q.Get("patient_member_id"))})
	rs.emit("search", "", channelAPI, http.StatusOK, "")
}

func (rs *runSim) apiView(w http.ResponseWriter, auth string) {
	row, ok := rs.lookup(auth)
	if !ok {
		e := notFound("no prior-authorization request %q", auth)
		writeAPIError(w, e)
		rs.emit("view", auth, channelAPI, e.status, e.message)
		return
	}
	sim.WriteJSON(w, http.StatusOK, row)
	rs.emit("view", auth, channelAPI, http.StatusOK, "")
}

func (rs *runSim) apiAttachments(w http.ResponseWriter, auth string) {
	if _, ok := rs.lookup(auth); !ok {
		e := notFound("no prior-authorization request %q", auth)
		writeAPIError(w, e)
		rs.emit("view", auth, channelAPI, e.status, e.message)
		return
	}
	rows := rs.attachmentsOf(auth)
	if rows == nil {
		rows = []attachmentRow{}
	}
	sim.WriteJSON(w, http.StatusOK, map[string]any{"data": rows})
	rs.emit("view", auth, channelAPI, http.StatusOK, "")
}

func (rs *runSim) apiAttach(w http.ResponseWriter, req *http.Request, auth string) {
	row, e := rs.attach(w, req, auth, nil)
	if e != nil {
		writeAPIError(w, e)
		rs.emit("attach", auth, channelAPI, e.status, e.message)
		return
	}
	sim.WriteJSON(w, http.StatusCreated, row)
	rs.emit("attach", auth, channelAPI, http.StatusCreated, "")
}

// --- patients and providers ---

// patient is a member as the portal's patient search shows it.
type patient struct {
	MemberID  string `json:"member_id"`
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
	BirthDate string `json:"birth_date"`
	Plan      string `json:"plan"`
	Active    bool   `json:"active"`
}

// searchPatients finds the members matching every given criterion:
// member_id exactly, last_name without regard to case, birth_date
// (YYYY-MM-DD) exactly. At least one is needed, as at a payer's portal.
func (rs *runSim) searchPatients(memberID, lastName, birthDate string) ([]patient, *apiError) {
	memberID, lastName, birthDate = strings.TrimSpace(memberID), strings.TrimSpace(lastName), strings.TrimSpace(birthDate)
	if memberID == "" && lastName == "" && birthDate == "" {
		return nil, invalid("member_id", "give at least one of member_id, last_name and birth_date")
	}
	if birthDate != "" && !isDate(birthDate) {
		return nil, invalid("birth_date", "%q is not a date (YYYY-MM-DD)", birthDate)
	}
	p := rs.ledger.Policy()
	today := rs.run.Now().UTC().Format(payer.DateLayout)
	out := []patient{}
	for _, m := range p.Members {
		if (memberID != "" && m.MemberID != memberID) || (lastName != "" && !strings.EqualFold(m.LastName, lastName)) ||
			(birthDate != "" && m.BirthDate != birthDate) {
			continue
		}
		out = append(out, patientOf(p, m, today))
	}
	return out, nil
}

func patientOf(p *payer.Policy, m payer.Member, today string) patient {
	return patient{m.MemberID, m.FirstName, m.LastName, m.BirthDate, p.PlanOf(m).Name, m.CoveredOn(today)}
}

func (rs *runSim) apiPatients(w http.ResponseWriter, req *http.Request) {
	q, e := query(req, "member_id", "last_name", "birth_date")
	var found []patient
	if e == nil {
		found, e = rs.searchPatients(q.Get("member_id"), q.Get("last_name"), q.Get("birth_date"))
	}
	if e != nil {
		writeAPIError(w, e)
		rs.emit("search", "", channelAPI, e.status, e.message)
		return
	}
	sim.WriteJSON(w, http.StatusOK, map[string]any{"data": found})
	rs.emit("search", "", channelAPI, http.StatusOK, "")
}

// provider is a provider on file as GET providers lists it.
type provider struct {
	NPI  string  `json:"npi"`
	Name *string `json:"name"`
}

func (rs *runSim) apiProviders(w http.ResponseWriter, req *http.Request) {
	q, e := query(req, "npi")
	if e == nil {
		if npi := q.Get("npi"); q.Has("npi") && !payer.ValidNPI(npi) {
			e = invalid("npi", "%q is not a valid NPI (10 digits passing the Luhn check with prefix 80840)", npi)
		}
	}
	if e != nil {
		writeAPIError(w, e)
		rs.emit("search", "", channelAPI, e.status, e.message)
		return
	}
	sim.WriteJSON(w, http.StatusOK, map[string]any{"data": rs.providers(q.Get("npi"))})
	rs.emit("search", "", channelAPI, http.StatusOK, "")
}

// providers lists the providers on file, or the one with npi. A policy
// that lists none has every valid NPI on file, by number only.
func (rs *runSim) providers(npi string) []provider {
	p := rs.ledger.Policy()
	named := func(pr payer.Provider) provider {
		out := provider{NPI: pr.NPI}
		if pr.Name != "" {
			out.Name = &pr.Name
		}
		return out
	}
	out := []provider{}
	switch {
	case npi == "":
		for _, pr := range p.Providers {
			out = append(out, named(pr))
		}
	case len(p.Providers) == 0 && p.ProviderOnFile(npi):
		out = append(out, provider{NPI: npi})
	default:
		if pr, ok := p.Provider(npi); ok {
			out = append(out, named(pr))
		}
	}
	return out
}

func isDate(s string) bool {
	if len(s) != len(payer.DateLayout) {
		return false
	}
	_, err := timeParseDate(s)
	return err == nil
}
