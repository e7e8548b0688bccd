package portalsim

import (
	"bytes"
	"crypto/subtle"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/assaykit/assay/payer"
)

//go:embed templates/*.html
var templateFS embed.FS

// pages are the web UI's templates, each page parsed with the layout, on
// first use: parsing them costs about 2 ms, which every assay command would
// otherwise pay at start-up, serve or not.
var pages = sync.OnceValue(func() map[string]*template.Template {
	funcs := template.FuncMap{
		"path":  url.PathEscape,
		"when":  when,
		"field": fieldOf,
	}
	base := template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html"))
	out := map[string]*template.Template{}
	for _, name := range []string{"login", "patients", "requests", "new", "status", "error"} {
		t := template.Must(base.Clone())
		out[name] = template.Must(t.ParseFS(templateFS, "templates/"+name+".html"))
	}
	return out
})

// securityHeaders are set on every page: nothing loads from elsewhere, no
// script runs, forms post only here, no page is framed or cached.
var securityHeaders = map[string]string{
	"Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
	"X-Content-Type-Options":  "nosniff",
	"X-Frame-Options":         "DENY",
	"Referrer-Policy":         "same-origin",
	"Cache-Control":           "no-store",
}

// view is what a page shows.
type view struct {
	Title, Base, Payer, Nav string
	CSRF                    string // set when signed in
	User                    string
	Flash, Alert            string
	Message                 string
	FieldErrors             map[string]string
	Form                    map[string]string

	// login
	Username, Next string
	// patients
	Searched bool
	Patients []patient
	// requests
	Requests []requestView
	Filter   string
	// new
	Member    *patient
	Providers []provider
	// status
	Request     *requestView
	Attachments []attachmentRow
	DocTypes    []docType
}

// docType is a choice of the upload form's document type.
type docType struct{ Value, Label string }

// documentTypes are the upload form's choices.
var documentTypes = []docType{
	{"clinical_notes", "Clinical notes"},
	{"imaging_report", "Imaging report"},
	{"lab_results", "Lab results"},
	{"letter_of_medical_necessity", "Letter of medical necessity"},
	{"operative_plan", "Operative plan"},
	{"referral", "Referral"},
	{"other", "Other"},
}

// render writes a page with status.
func (rs *runSim) render(w http.ResponseWriter, status int, page string, v *view) {
	var b bytes.Buffer
	if err := pages()[page].ExecuteTemplate(&b, "layout.html", v); err != nil {
		rs.run.Logf("portal: rendering %s: %v", page, err)
		http.Error(w, "the portal could not render this page", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(b.Bytes())
}

// serveWeb serves the web UI at BASE/portal/SUB.
func (rs *runSim) serveWeb(w http.ResponseWriter, req *http.Request, sub string) {
	for k, v := range securityHeaders {
		w.Header().Set(k, v)
	}
	v := &view{Base: rs.pageBase(req), Payer: "Payer", FieldErrors: map[string]string{}, Form: map[string]string{}}
	if rs.ledger == nil {
		v.Title, v.Message = "The portal is not available", noPolicy
		rs.render(w, http.StatusServiceUnavailable, "error", v)
		return
	}
	v.Payer = rs.ledger.Policy().Payer.Name
	sess := rs.sessionOf(req)
	if sess != nil {
		v.CSRF, v.User = sess.csrf, sess.user
	}
	get := req.Method == http.MethodGet || req.Method == http.MethodHead
	post := req.Method == http.MethodPost
	seg := strings.Split(sub, "/")
	action, auth := actionOf(req.Method, seg), authOf(seg)
	if seg[0] == "prior-auths" && len(seg) == 2 && seg[1] == "new" {
		action, auth = "submit", ""
	}
	switch {
	case sub == "login" && get:
		if sess != nil {
			http.Redirect(w, req, v.Base, http.StatusSeeOther)
			return
		}
		v.Next = req.URL.Query().Get("next")
		rs.loginPage(w, http.StatusOK, v)
		return
	case sub == "login" && post:
		rs.webLogin(w, req, v)
		return
	case sub == "logout" && post:
		rs.webLogout(w, req, v, sess)
		return
	case sub == "" && get && sess == nil:
		rs.loginPage(w, http.StatusOK, v)
		return
	}
	if !knownPage(seg) {
		v.Title, v.Message = "Page not found", "There is no page "+req.URL.Path+" in the portal."
		rs.render(w, http.StatusNotFound, "error", v)
		rs.emit(action, auth, channelWeb, http.StatusNotFound, "no such page")
		return
	}
	if !(get || post) || (post && !postPage(seg)) {
		allow := "GET"
		if postPage(seg) {
			allow = "GET, POST"
		}
		w.Header().Set("Allow", allow)
		v.Title, v.Message = "Not allowed", req.Method+" is not allowed on this page."
		rs.render(w, http.StatusMethodNotAllowed, "error", v)
		rs.emit(action, auth, channelWeb, http.StatusMethodNotAllowed, req.Method+" is not allowed")
		return
	}
	if sess == nil {
		// A page or form that needs a session, without one: 401 and the
		// login form, which brings a GET back to its page.
		v.Alert = "Sign in to continue."
		if post {
			v.Alert = "Your session has ended, or you have not signed in: sign in and send the form again."
		} else {
			v.Next = sub
			if req.URL.RawQuery != "" {
				v.Next += "?" + req.URL.RawQuery
			}
		}
		rs.loginPage(w, http.StatusUnauthorized, v)
		rs.emit(action, auth, channelWeb, http.StatusUnauthorized, "not signed in")
		return
	}
	switch {
	case sub == "":
		v.Title, v.Nav = "Find a patient", "patients"
		rs.render(w, http.StatusOK, "patients", v)
	case sub == "patients":
		rs.webSearch(w, req, v)
	case sub == "prior-auths" && post:
		rs.webSubmit(w, req, v, sess)
	case sub == "prior-auths":
		rs.webRequests(w, req, v)
	case sub == "prior-auths/new":
		rs.webNew(w, req, v)
	case len(seg) == 2:
		rs.webStatus(w, req, v, seg[1], http.StatusOK)
	case get: // prior-auths/AUTH/attachments: the upload form is on the status page
		http.Redirect(w, req, v.Base+"prior-auths/"+url.PathEscape(seg[1]), http.StatusSeeOther)
	default: // POST prior-auths/AUTH/attachments
		rs.webAttach(w, req, v, sess, seg[1])
	}
}

// knownPage reports whether seg names a page of the portal.
func knownPage(seg []string) bool {
	switch {
	case len(seg) == 1:
		return seg[0] == "" || seg[0] == "patients" || seg[0] == "prior-auths"
	case seg[0] != "prior-auths" || seg[1] == "":
		return false
	case len(seg) == 2:
		return true
	}
	return len(seg) == 3 && seg[2] == "attachments" && seg[1] != "new"
}

// postPage reports whether the page at seg takes a form post.
func postPage(seg []string) bool {
	return (len(seg) == 1 && seg[0] == "prior-auths") || len(seg) == 3
}

func (rs *runSim) loginPage(w http.ResponseWriter, status int, v *view) {
	v.Title, v.CSRF = "Sign in", ""
	if !safeNext.MatchString(v.Next) {
		v.Next = ""
	}
	rs.render(w, status, "login", v)
}

// safeNext is a page the login form may go on to: a path below the
// portal, never another site.
var safeNext = regexp.MustCompile(`^(?:[A-Za-z0-9._~-][A-Za-z0-9._~%/-]*)?(?:\?[A-Za-z0-9._~%=&+-]*)?$`)

// parseForm reads a form post (urlencoded or multipart), at most 1 MiB.
func parseForm(w http.ResponseWriter, req *http.Request) error {
	req.Body = http.MaxBytesReader(w, req.Body, maxJSONBody)
	mediaType, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type"))
	if mediaType == "multipart/form-data" {
		return req.ParseMultipartForm(maxJSONBody)
	}
	return req.ParseForm()
}

func (rs *runSim) formError(w http.ResponseWriter, v *view, action, auth string, err error) {
	status := http.StatusBadRequest
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		status = http.StatusRequestEntityTooLarge
	}
	v.Title, v.Message = "The form could not be read", err.Error()
	rs.render(w, status, "error", v)
	rs.emit(action, auth, channelWeb, status, err.Error())
}

func (rs *runSim) webLogin(w http.ResponseWriter, req *http.Request, v *view) {
	if err := parseForm(w, req); err != nil {
		rs.formError(w, v, "login", "", err)
		return
	}
	user, pass := rs.run.Credentials("portal")
	gotUser, gotPass := req.PostForm.Get("username"), req.PostForm.Get("password")
	v.Username, v.Next = gotUser, req.PostForm.Get("next")
	okUser := subtle.ConstantTimeCompare([]byte(gotUser), []byte(user)) == 1
	okPass := subtle.ConstantTimeCompare([]byte(gotPass), []byte(pass)) == 1
	if !okUser || !okPass || user == "" {
		v.FieldErrors["password"] = "The username or password is not right. The run's portal credentials are in its run object, under credentials.portal."
		rs.loginPage(w, http.StatusUnauthorized, v)
		rs.emit("login", "", channelWeb, http.StatusUnauthorized, "wrong username or password")
		return
	}
	rs.startSession(w, req, gotUser)
	next := v.Base
	if safeNext.MatchString(v.Next) {
		next += v.Next
	}
	http.Redirect(w, req, next, http.StatusSeeOther)
	rs.emit("login", "", channelWeb, http.StatusSeeOther, "")
}

func (rs *runSim) webLogout(w http.ResponseWriter, req *http.Request, v *view, sess *session) {
	if sess != nil {
		if err := parseForm(w, req); err != nil {
			rs.formError(w, v, "login", "", err)
			return
		}
		if !sess.validCSRF(req.PostForm.Get("csrf_token")) {
			rs.csrfPage(w, v, "login", "")
			return
		}
		rs.endSession(w, req, sess)
	}
	http.Redirect(w, req, v.Base+"login", http.StatusSeeOther)
}

func (rs *runSim) csrfPage(w http.ResponseWriter, v *view, action, auth string) {
	v.Title = "This form has expired"
	v.Message = "The form was not sent from this session (its security token does not match). Go back, reload the page and send it again."
	rs.render(w, http.StatusForbidden, "error", v)
	rs.emit(action, auth, channelWeb, http.StatusForbidden, "the form's CSRF token is not this session's")
}

func (rs *runSim) webSearch(w http.ResponseWriter, req *http.Request, v *view) {
	q := req.URL.Query()
	v.Title, v.Nav, v.Searched = "Find a patient", "patients", true
	for _, k := range []string{"member_id", "last_name", "birth_date"} {
		v.Form[k] = q.Get(k)
	}
	found, e := rs.searchPatients(q.Get("member_id"), q.Get("last_name"), q.Get("birth_date"))
	if e != nil {
		v.Searched = false
		v.FieldErrors[e.details[0].Field] = sentence(e.details[0].Message)
		rs.render(w, http.StatusBadRequest, "patients", v)
		rs.emit("search", "", channelWeb, http.StatusBadRequest, e.message)
		return
	}
	v.Patients = found
	rs.render(w, http.StatusOK, "patients", v)
	rs.emit("search", "", channelWeb, http.StatusOK, "")
}

func (rs *runSim) webRequests(w http.ResponseWriter, req *http.Request, v *view) {
	v.Title, v.Nav = "Prior authorization requests", "requests"
	v.Filter = strings.TrimSpace(req.URL.Query().Get("patient_member_id"))
	for _, row := range rs.requests(v.Filter) {
		v.Requests = append(v.Requests, rs.requestViewOf(row))
	}
	rs.render(w, http.StatusOK, "requests", v)
	rs.emit("search", "", channelWeb, http.StatusOK, "")
}

func (rs *runSim) webNew(w http.ResponseWriter, req *http.Request, v *view) {
	v.Form["patient_member_id"] = strings.TrimSpace(req.URL.Query().Get("patient_member_id"))
	rs.newForm(w, http.StatusOK, v)
}

// newForm renders the prior-authorization form.
func (rs *runSim) newForm(w http.ResponseWriter, status int, v *view) {
	v.Title, v.Nav = "New prior authorization request", "new"
	p := rs.ledger.Policy()
	if m, ok := p.Member(v.Form["patient_member_id"]); ok {
		pt := patientOf(p, m, rs.run.Now().UTC().Format(payer.DateLayout))
		v.Member = &pt
	}
	v.Providers = rs.providers("")
	rs.render(w, status, "new", v)
}

// formFields are the prior-authorization form's inputs, named as the REST
// API's keys.
var formFields = []string{"patient_member_id", "procedure_code", "provider_npi", "diagnosis_codes", "service_date", "units", "request_id", "notes"}

// webSubmission reads the form into a submission; problems name fields.
func webSubmission(form map[string]string) (payer.Submission, map[string]string) {
	problems := map[string]string{}
	s := payer.Submission{
		RequestID:       form["request_id"],
		PatientMemberID: form["patient_member_id"],
		ProcedureCode:   form["procedure_code"],
		ProviderNPI:     form["provider_npi"],
		ServiceDate:     form["service_date"],
		Notes:           form["notes"],
		Channel:         channelWeb,
	}
	// Codes are separated by commas, semicolons or white space.
	codes := strings.FieldsFunc(form["diagnosis_codes"], func(r rune) bool {
		return r == ',' || r == ';' || unicode.IsSpace(r)
	})
	if len(codes) > 0 { // none given reads null, as through the API
		s.DiagnosisCodes = codes
	}
	if u := form["units"]; u != "" {
		n, err := strconv.Atoi(u)
		if err != nil {
			problems["units"] = "Enter a whole number of units, such as 1."
		} else {
			s.Units = &n
		}
	}
	return s, problems
}

func (rs *runSim) webSubmit(w http.ResponseWriter, req *http.Request, v *view, sess *session) {
	if err := parseForm(w, req); err != nil {
		rs.formError(w, v, "submit", "", err)
		return
	}
	if !sess.validCSRF(req.PostForm.Get("csrf_token")) {
		rs.csrfPage(w, v, "submit", "")
		return
	}
	for _, k := range formFields {
		v.Form[k] = strings.TrimSpace(req.PostForm.Get(k))
	}
	s, problems := webSubmission(v.Form)
	var row payer.Row
	if len(problems) == 0 {
		var e *apiError
		if row, e = rs.submit(s); e != nil {
			if len(e.details) > 0 {
				problems[e.details[0].Field] = sentence(e.details[0].Message)
			} else {
				v.Alert = e.message
			}
		}
	}
	if len(problems) > 0 || v.Alert != "" {
		v.FieldErrors = problems
		if v.Alert == "" {
			v.Alert = "The request was not sent: correct the fields marked below."
		}
		rs.newForm(w, http.StatusBadRequest, v)
		msgs := make([]string, 0, len(problems))
		for _, k := range formFields {
			if p, ok := problems[k]; ok {
				msgs = append(msgs, k+": "+p)
			}
		}
		rs.emit("submit", "", channelWeb, http.StatusBadRequest, strings.Join(msgs, "; "))
		return
	}
	http.Redirect(w, req, v.Base+"prior-auths/"+url.PathEscape(row.AuthNumber)+"?submitted=1", http.StatusSeeOther)
	rs.emit("submit", row.AuthNumber, channelWeb, http.StatusSeeOther, "")
}

func (rs *runSim) webStatus(w http.ResponseWriter, req *http.Request, v *view, auth string, status int) {
	row, ok := rs.lookup(auth)
	if !ok {
		v.Title, v.Message = "Request not found", fmt.Sprintf("There is no prior authorization request %s.", auth)
		rs.render(w, http.StatusNotFound, "error", v)
		rs.emit("view", auth, channelWeb, http.StatusNotFound, "no such request")
		return
	}
	r := rs.requestViewOf(row)
	v.Title, v.Nav, v.Request = "Prior authorization "+r.AuthNumber, "requests", &r
	v.Attachments, v.DocTypes = rs.attachmentsOf(auth), documentTypes
	q := req.URL.Query()
	switch {
	case q.Has("submitted") && status == http.StatusOK:
		v.Flash = "Your request was submitted. Its number is " + r.AuthNumber + "."
	case q.Get("uploaded") != "" && status == http.StatusOK:
		for _, a := range v.Attachments {
			if a.AttachmentID == q.Get("uploaded") {
				v.Flash = fmt.Sprintf("%s was uploaded as %s.", a.Filename, a.AttachmentID)
			}
		}
	}
	rs.render(w, status, "status", v)
	if status == http.StatusOK {
		rs.emit("view", auth, channelWeb, status, "")
	}
}

func (rs *runSim) webAttach(w http.ResponseWriter, req *http.Request, v *view, sess *session, auth string) {
	row, e := rs.attach(w, req, auth, sess)
	switch {
	case e == errCSRF:
		rs.csrfPage(w, v, "attach", auth)
		return
	case e != nil && e.status == http.StatusNotFound:
		v.Title, v.Message = "Request not found", fmt.Sprintf("There is no prior authorization request %s.", auth)
		rs.render(w, http.StatusNotFound, "error", v)
	case e != nil:
		field := "file"
		if len(e.details) > 0 && e.details[0].Field == "document_type" {
			field = "document_type"
		}
		msg := e.message
		if len(e.details) > 0 {
			msg = e.details[0].Message
		}
		v.FieldErrors[field] = sentence(msg)
		v.Alert = "The document was not uploaded: see below."
		rs.webStatus(w, req, v, auth, e.status)
	default:
		http.Redirect(w, req, v.Base+"prior-auths/"+url.PathEscape(auth)+"?uploaded="+url.QueryEscape(row.AttachmentID), http.StatusSeeOther)
		rs.emit("attach", auth, channelWeb, http.StatusSeeOther, "")
		return
	}
	rs.emit("attach", auth, channelWeb, e.status, e.message)
}

// sentence capitalises a message for a page.
func sentence(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// --- request rows as pages show them ---

// requestView is a prior-authorization row as the pages show it.
type requestView struct {
	AuthNumber, RequestID, PatientMemberID, PatientName, ProcedureCode string
	ProviderNPI, ProviderName, DiagnosisCodes, ServiceDate, Units      string
	Status, StatusLabel, Reason, CertificationNumber                   string
	ValidFrom, ValidTo, SubmittedAt, DecidedAt, Channel                string
}

var statusLabels = map[string]string{
	payer.Approved:     "Approved",
	payer.Denied:       "Denied",
	payer.Pending:      "Pending review",
	payer.NeedMoreInfo: "More information needed",
}

func (rs *runSim) requestViewOf(raw json.RawMessage) requestView {
	var m map[string]any
	json.Unmarshal(raw, &m)
	text := func(k string) string {
		switch x := m[k].(type) {
		case nil:
			return ""
		case string:
			return x
		case []any:
			parts := make([]string, len(x))
			for i, p := range x {
				parts[i] = fmt.Sprint(p)
			}
			return strings.Join(parts, ", ")
		default:
			b, _ := json.Marshal(x)
			return string(b)
		}
	}
	r := requestView{
		AuthNumber: text("auth_number"), RequestID: text("request_id"), PatientMemberID: text("patient_member_id"),
		ProcedureCode: text("procedure_code"), ProviderNPI: text("provider_npi"), DiagnosisCodes: text("diagnosis_codes"),
		ServiceDate: text("service_date"), Units: text("units"), Status: text("status"), Reason: text("reason"),
		CertificationNumber: text("certification_number"), ValidFrom: text("valid_from"), ValidTo: text("valid_to"),
		SubmittedAt: text("submitted_at"), DecidedAt: text("decided_at"), Channel: text("channel"),
	}
	r.StatusLabel = statusLabels[r.Status]
	if r.StatusLabel == "" {
		r.StatusLabel = r.Status
	}
	p := rs.ledger.Policy()
	if mem, ok := p.Member(r.PatientMemberID); ok {
		r.PatientName = mem.FirstName + " " + mem.LastName
	}
	if pr, ok := p.Provider(r.ProviderNPI); ok {
		r.ProviderName = pr.Name
	}
	return r
}

// when shows a row's time (RFC 3339, UTC) as a person reads it.
func when(s string) string {
	if len(s) == len(stampLayout) && strings.HasSuffix(s, "Z") {
		return s[:10] + " " + s[11:16] + " UTC"
	}
	return s
}

// fieldView is one input of a form, with its label, value and error.
type fieldView struct {
	Name, Label, Type, Hint, Value, Error, Autocomplete, List, Inputmode string
	Required                                                             bool
}

// fieldOf builds an input from the view: name, label, type, hint and
// flags ("required", "list=ID", "autocomplete=X", "inputmode=X").
func fieldOf(v *view, name, label, typ, hint string, flags ...string) fieldView {
	f := fieldView{Name: name, Label: label, Type: typ, Hint: hint, Value: v.Form[name], Error: v.FieldErrors[name]}
	for _, fl := range flags {
		k, val, _ := strings.Cut(fl, "=")
		switch k {
		case "required":
			f.Required = true
		case "list":
			f.List = val
		case "autocomplete":
			f.Autocomplete = val
		case "inputmode":
			f.Inputmode = val
		}
	}
	return f
}
