package portalsim

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/payer"
	"github.com/assaykit/assay/portal"
	"github.com/assaykit/assay/serve/internal/sim"
)

// Bounds of a run's portal.
const (
	// MaxUpload is the most an upload's request body may hold: 16 MiB,
	// the sandbox's cap on every request body (sim.MaxBody). The 64 MiB
	// of SFTP and files uploads is for the run's tree, which the portal's
	// attachments are not part of. A larger body is 413.
	MaxUpload = sim.MaxBody
	// MaxRunAttachments is the most a run's attachments may hold together
	// (256 MiB); an upload past it is 413.
	MaxRunAttachments = 256 << 20
	// MaxSessions is how many web sessions a run keeps; a new login past
	// it ends the oldest session.
	MaxSessions = 64
	// maxJSONBody caps the JSON body of a prior-authorization request.
	maxJSONBody = 1 << 20
)

// NewRun returns the portal of a new run. The run shares the seed's rows
// and adds its own beside them, so nothing is copied.
func (s *Sim) NewRun(r sim.Run) (sim.RunSim, error) {
	rs := &runSim{sim: s, run: r, ledger: r.Payer(), sessions: map[string]*session{}}
	if u, err := url.Parse(r.BaseURL()); err == nil {
		rs.basePath, rs.secure = u.Path, u.Scheme == "https"
	}
	return rs, nil
}

// runSim is one run's portal.
type runSim struct {
	sim      *Sim
	run      sim.Run
	ledger   *payer.Ledger // nil without a policy
	basePath string        // the run's base path, /runs/ID
	secure   bool          // the public URL is https: cookies are Secure

	mu          sync.Mutex
	attachments []*attachment
	attBytes    int64
	sessions    map[string]*session
	sessOrder   []string // session ids, oldest first
}

func (rs *runSim) Mounts() []string { return []string{"portal"} }

func (rs *runSim) Endpoints(base string, into map[string]string) {
	into["portal"] = base + "/portal/"
	into["portal_api"] = base + "/portal/api"
}

// Public says the web pages are served without the run's token (they
// have a session cookie of their own); the REST API is not.
func (rs *runSim) Public(p string) bool {
	if p == "/portal/api" || strings.HasPrefix(p, "/portal/api/") {
		return false
	}
	return p == "/portal" || strings.HasPrefix(p, "/portal/")
}

// Stop ends every web session.
func (rs *runSim) Stop() {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.sessions, rs.sessOrder = map[string]*session{}, nil
}

func (rs *runSim) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	p := req.URL.Path
	switch {
	case p == "/portal":
		http.Redirect(w, req, rs.pageBase(req), http.StatusPermanentRedirect)
	case p == "/portal/api" || strings.HasPrefix(p, "/portal/api/"):
		rs.serveAPI(w, req, strings.TrimPrefix(strings.TrimPrefix(p, "/portal/api"), "/"))
	default:
		rs.serveWeb(w, req, strings.TrimPrefix(p, "/portal/"))
	}
}

// pageBase is the path of the web portal's root as the caller sees it:
// BASE/portal/, or the hosted platform's /v1/benchmark-runs/ID/portal/
// when the request came that way. Links and the cookie's path use it.
func (rs *runSim) pageBase(req *http.Request) string {
	const alias = "/v1/benchmark-runs/"
	if strings.HasPrefix(req.RequestURI, alias) {
		prefix := strings.TrimSuffix(rs.basePath, "/runs/"+rs.run.ID())
		return prefix + alias + rs.run.ID() + "/portal/"
	}
	return rs.basePath + "/portal/"
}

// --- events ---

type actionEvent struct {
	Action     string  `json:"action"`
	AuthNumber *string `json:"auth_number"`
	Channel    string  `json:"channel"`
	Status     int     `json:"status"`
	Error      string  `json:"error,omitempty"`
}

// emit records a portal_action event.
func (rs *runSim) emit(action, auth, channel string, status int, problem string) {
	e := actionEvent{Action: action, Channel: channel, Status: status, Error: problem}
	if auth != "" {
		e.AuthNumber = &auth
	}
	rs.run.Emit(sim.Event{Sim: "portal", Type: "portal_action", Fields: e})
}

// --- attachments ---

// attachment is one uploaded document.
type attachment struct {
	row  attachmentRow
	data []byte
}

// attachmentRow is an attachment as the REST API answers it and as the
// resource attachments holds it.
type attachmentRow struct {
	AttachmentID string  `json:"attachment_id"`
	AuthNumber   string  `json:"auth_number"`
	Filename     string  `json:"filename"`
	DocumentType *string `json:"document_type"`
	Size         int     `json:"size"`
	SHA256       string  `json:"sha256"`
	Uploaded     bool    `json:"uploaded"`
	UploadedAt   string  `json:"uploaded_at"`
}

// plainExt is an extension kept on an attachment's snapshot file.
var plainExt = regexp.MustCompile(`^\.[A-Za-z0-9]{1,10}$`)

// file is where an attachment's bytes go in the snapshot, below portal/.
func (a *attachment) file() string {
	name := "attachments/" + a.row.AttachmentID
	if ext := path.Ext(a.row.Filename); plainExt.MatchString(ext) {
		name += strings.ToLower(ext)
	}
	return name
}

// attachmentsOf returns the attachments of one request, in upload order.
func (rs *runSim) attachmentsOf(auth string) []attachmentRow {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	var out []attachmentRow
	for _, a := range rs.attachments {
		if a.row.AuthNumber == auth {
			out = append(out, a.row)
		}
	}
	return out
}

// --- requests: the ledger's and the seed's ---

// lookup returns the row of a request, the run's own or a seeded one, as
// JSON, and whether it exists.
func (rs *runSim) lookup(auth string) (json.RawMessage, bool) {
	if rs.ledger != nil {
		if row, ok := rs.ledger.Row(auth); ok {
			data, _ := json.Marshal(row)
			return data, true
		}
	}
	for _, sa := range rs.sim.rows.priorAuths {
		if sa.authNumber == auth {
			return sa.row, true
		}
	}
	return nil, false
}

// requests returns every request's row (the seed's first, then the
// run's in submission order), those of one member when memberID is set.
func (rs *runSim) requests(memberID string) []json.RawMessage {
	out := []json.RawMessage{}
	for _, sa := range rs.sim.rows.priorAuths {
		if memberID == "" || sa.memberID == memberID {
			out = append(out, sa.row)
		}
	}
	if rs.ledger == nil {
		return out
	}
	for _, row := range rs.ledger.Rows() {
		if memberID == "" || row.PatientMemberID == memberID {
			data, _ := json.Marshal(row)
			out = append(out, data)
		}
	}
	return out
}

// --- state and snapshot ---

// stateJSON returns the portal's state as it reads now: {SLUG: {RESOURCE:
// rows}}, the seed's rows with the run's prior-authorization requests
// and attachments after them, resources in byte order.
func (rs *runSim) stateJSON() []byte {
	var own = map[string][]keyedRow{}
	if rs.ledger != nil {
		for _, row := range rs.ledger.Rows() {
			data, _ := json.Marshal(row)
			own[PriorAuths] = append(own[PriorAuths], keyedRow{row.AuthNumber, data})
		}
	}
	rs.mu.Lock()
	for _, a := range rs.attachments {
		data, _ := json.Marshal(a.row)
		own[Attachments] = append(own[Attachments], keyedRow{a.row.AttachmentID, data})
	}
	rs.mu.Unlock()

	var b bytes.Buffer
	slug, _ := json.Marshal(rs.sim.slug)
	b.WriteString("{")
	b.Write(slug)
	b.WriteString(":{")
	for i, name := range rs.sim.rows.names() {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(name)
		b.Write(key)
		b.WriteByte(':')
		appendRows(&b, rs.sim.rows.resources[name], own[name])
	}
	b.WriteString("}}")
	return b.Bytes()
}

// keyedRow is a row the run wrote, with its key's value for a resource
// the seed keys by it.
type keyedRow struct {
	key string
	row []byte
}

// appendRows writes a resource: the seed's rows (an array, or an object
// keyed by the key's value), then the run's in the same form. The seed's
// text is shared, never changed.
func appendRows(b *bytes.Buffer, seed []byte, own []keyedRow) {
	keyed := len(seed) > 0 && seed[0] == '{'
	switch {
	case len(seed) == 0:
		seed = []byte("[]")
	case len(own) == 0:
		b.Write(seed)
		return
	}
	b.Write(seed[:len(seed)-1])
	first := len(seed) == 2 // [] or {}
	for _, r := range own {
		if !first {
			b.WriteByte(',')
		}
		first = false
		if keyed {
			k, _ := json.Marshal(r.key)
			b.Write(k)
			b.WriteByte(':')
		}
		b.Write(r.row)
	}
	b.WriteByte(seed[len(seed)-1])
}

// Snapshot writes portal/state.json (indented) and each attachment's bytes
// under portal/attachments/.
func (rs *runSim) Snapshot(d sim.Dir) error {
	var out bytes.Buffer
	if err := json.Indent(&out, rs.stateJSON(), "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	if err := d.WriteFile(StateFile, out.Bytes()); err != nil {
		return err
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for _, a := range rs.attachments {
		if err := d.WriteFile("portal/"+a.file(), a.data); err != nil {
			return err
		}
	}
	return nil
}

// Attach attaches the portal's live state: every check reads the rows as
// they are when it runs, so a delayed determination reads as it does then.
func (rs *runSim) Attach(env *assert.Env) { portal.Attach(env, liveSource{rs}) }

type liveSource struct{ rs *runSim }

func (l liveSource) State(ctx context.Context) (*portal.State, error) {
	st, err := portal.ParseState(l.rs.stateJSON())
	if err != nil {
		return nil, err
	}
	return portal.MemorySource(st).State(ctx)
}
