package portalsim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"slices"

	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/internal/jsonkind"
	"github.com/assaykit/assay/internal/jsonvalue"
	"github.com/assaykit/assay/internal/strictjson"
	"github.com/assaykit/assay/internal/textpos"
	"github.com/assaykit/assay/serve/internal/sim"
	"github.com/tidwall/gjson"
)

// Seed files and resource names.
const (
	StateFile   = "portal/state.json"
	ConfigFile  = "portal/portal.json"
	PolicyFile  = "payer/policy.json"
	DefaultSlug = "payer-portal"

	// PriorAuths and Attachments are the resources the portal writes.
	PriorAuths  = "prior_auth_requests"
	Attachments = "attachments"
)

// maxDepth bounds how deeply a seed's rows may nest.
const maxDepth = 256

var (
	slugPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	mintedAuth  = regexp.MustCompile(`^PA-[0-9]{6}$`)
)

// Sim is the portal simulator built from a seed: the slug and the seed's
// rows, parsed once and shared (never changed) by every run.
type Sim struct {
	slug  string
	rows  *seedRows
	state []byte // the seed's state.json as read, for tests
}

// seedRows are the seed's resources: each kept as its compact JSON text
// (an array of objects or an object of objects), by resource name.
type seedRows struct {
	resources map[string][]byte
	// priorAuths are the seed's prior_auth_requests rows, for lookups.
	priorAuths []seedAuth
	// attachmentIDs the seed's attachments rows hold: ids minted by runs
	// skip them.
	attachmentIDs map[string]bool
}

// seedAuth is one seeded prior-authorization row.
type seedAuth struct {
	authNumber string // "" when the row has none
	memberID   string
	row        json.RawMessage // with auth_number set from its key when keyed
}

// New builds the portal simulator from a seed: portal/portal.json ({"slug"},
// optional) and portal/state.json ({SLUG: {RESOURCE: rows}}, optional),
// each read strictly once. A bad file is an error naming the file, and the
// JSON pointer, line and column of every problem.
func New(seed fs.FS) (sim.Sim, error) {
	s := &Sim{slug: DefaultSlug, rows: &seedRows{resources: map[string][]byte{}, attachmentIDs: map[string]bool{}}}
	if data, err := readSeedFile(seed, ConfigFile); err != nil {
		return nil, err
	} else if data != nil {
		slug, err := parseConfig(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ConfigFile, err)
		}
		s.slug = slug
	}
	data, err := readSeedFile(seed, StateFile)
	if err != nil {
		return nil, err
	}
	if data != nil {
		rows, err := parseSeedState(data, s.slug)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", StateFile, err)
		}
		s.rows, s.state = rows, data
	}
	return s, nil
}

// readSeedFile reads a seed file as evidence is read (a regular file, at
// most 64 MiB); nil when the seed has none.
func readSeedFile(seed fs.FS, name string) ([]byte, error) {
	data, err := check.ReadFile(seed, name, check.DefaultMaxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return data, nil
}

// parseConfig reads portal/portal.json: {"slug"}.
func parseConfig(data []byte) (string, error) {
	var c struct {
		Slug string `json:"slug" strict:"required"`
	}
	if err := strictjson.Decode(data, &c); err != nil {
		return "", err
	}
	if !slugPattern.MatchString(c.Slug) {
		at := gjson.GetBytes(data, "slug")
		line, col := textpos.LineColumn(data, at.Index)
		return "", strictjson.Errors{{Pointer: "/slug", Line: line, Column: col,
			Message: fmt.Sprintf("%q must match [A-Za-z0-9_-]{1,64}", c.Slug)}}
	}
	return c.Slug, nil
}

// parseSeedState reads portal/state.json strictly: an object holding the
// portal's slug only, whose value is an object of resources, each an array
// of objects or an object of objects; no key written twice at any depth,
// rows nested at most maxDepth deep; seeded prior_auth_requests numbered
// otherwise than the payer mints (PA- and six digits).
func parseSeedState(data []byte, slug string) (*seedRows, error) {
	p := &stateParser{data: data}
	if depth := jsonvalue.Depth(data); depth > maxDepth {
		return nil, strictjson.Errors{{Message: fmt.Sprintf("values nest %d deep, more than the %d allowed", depth, maxDepth)}}
	}
	if !jsonvalue.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		e := &strictjson.Error{Message: "not JSON"}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			e.Line, e.Column = textpos.LineColumn(data, int(se.Offset)-1)
			e.Message = "not JSON: " + se.Error()
		}
		return nil, strictjson.Errors{e}
	}
	rows := &seedRows{resources: map[string][]byte{}, attachmentIDs: map[string]bool{}}
	root := gjson.ParseBytes(data)
	if !root.IsObject() {
		p.fail(root, "", "must be an object {%q: {RESOURCE: rows}}", slug)
		return nil, p.errs
	}
	p.object(root, "", func(k, portal gjson.Result, ptr string) {
		if k.Str != slug {
			p.fail(k, ptr, "the portal's slug is %q (%s), not %q", slug, sourceOfSlug(slug), k.Str)
			return
		}
		if !portal.IsObject() {
			p.fail(portal, ptr, "must be an object of resources, not %s", jsonkind.OfResult(portal))
			return
		}
		p.object(portal, ptr, func(k, res gjson.Result, ptr string) {
			if p.resource(rows, k.Str, res, ptr) {
				var buf bytes.Buffer
				json.Compact(&buf, []byte(res.Raw))
				rows.resources[k.Str] = buf.Bytes()
			}
		})
	})
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	return rows, nil
}

func sourceOfSlug(slug string) string {
	if slug == DefaultSlug {
		return "the default; " + ConfigFile + " sets another"
	}
	return "from " + ConfigFile
}

type stateParser struct {
	data []byte
	errs strictjson.Errors
}

func (p *stateParser) fail(v gjson.Result, ptr, format string, args ...any) {
	e := &strictjson.Error{Pointer: ptr, Message: fmt.Sprintf(format, args...)}
	e.Line, e.Column = textpos.LineColumn(p.data, v.Index)
	p.errs = append(p.errs, e)
}

// object calls each for every member of v, failing a key written twice.
func (p *stateParser) object(v gjson.Result, ptr string, each func(k, item gjson.Result, ptr string)) {
	seen := map[string]bool{}
	v.ForEach(func(k, item gjson.Result) bool {
		at := strictjson.Pointer(ptr, k.Str)
		if seen[k.Str] {
			p.fail(k, at, "the key %q is written twice", k.Str)
			return true
		}
		seen[k.Str] = true
		each(k, item, at)
		return true
	})
}

// resource checks one resource's rows; false when they are not usable.
func (p *stateParser) resource(rows *seedRows, name string, res gjson.Result, ptr string) bool {
	before := len(p.errs)
	row := func(key string, v gjson.Result, at string) {
		if !v.IsObject() {
			p.fail(v, at, "a row must be an object, not %s", jsonkind.OfResult(v))
			return
		}
		p.noRepeats(v, at)
		switch name {
		case PriorAuths:
			p.seedAuth(rows, key, v, at)
		case Attachments:
			id := key
			if id == "" {
				id = v.Get("attachment_id").String()
			}
			rows.attachmentIDs[id] = true
		}
	}
	switch {
	case res.IsArray():
		for i, v := range res.Array() {
			row("", v, strictjson.Pointer(ptr, i))
		}
	case res.IsObject():
		p.object(res, ptr, func(k, v gjson.Result, at string) { row(k.Str, v, at) })
	default:
		p.fail(res, ptr, "rows must be an array of objects or an object of objects keyed by their key's value, not %s", jsonkind.OfResult(res))
	}
	return len(p.errs) == before
}

// seedAuth records a seeded prior-authorization row for lookups.
func (p *stateParser) seedAuth(rows *seedRows, key string, v gjson.Result, at string) {
	auth := key
	raw := json.RawMessage(v.Raw)
	if auth == "" {
		if a := v.Get("auth_number"); a.Type == gjson.String {
			auth = a.Str
		}
	} else {
		// A keyed row's auth number is its key (portal-state-match reads it
		// so), whatever its column holds.
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) == nil {
			m["auth_number"], _ = json.Marshal(key)
			raw, _ = json.Marshal(m)
		}
	}
	if mintedAuth.MatchString(auth) {
		p.fail(v, at, "auth number %q has the form the payer mints (PA- and six digits), so a run's own request would take it too: number seeded requests otherwise (PA-SEED-1, say)", auth)
		return
	}
	var compact bytes.Buffer
	json.Compact(&compact, raw)
	rows.priorAuths = append(rows.priorAuths, seedAuth{
		authNumber: auth,
		memberID:   v.Get("patient_member_id").String(),
		row:        compact.Bytes(),
	})
}

// noRepeats fails every key written twice in v, at any depth.
func (p *stateParser) noRepeats(v gjson.Result, ptr string) {
	switch {
	case v.IsObject():
		p.object(v, ptr, func(_, item gjson.Result, at string) { p.noRepeats(item, at) })
	case v.IsArray():
		for i, item := range v.Array() {
			p.noRepeats(item, strictjson.Pointer(ptr, i))
		}
	}
}

// names returns the resources a run's state holds: the seed's and the two
// the portal writes, in byte order.
func (r *seedRows) names() []string {
	out := []string{PriorAuths, Attachments}
	for n := range r.resources {
		if n != PriorAuths && n != Attachments {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}
