package fhir

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/assaykit/assay/assert"
	"github.com/tidwall/gjson"
)

// ErrPreconditionFailed is wrapped by the error of a conditional
// interaction whose condition fails: an If-Match that names another
// version, or a conditional create, update, delete or reference whose
// search matches more than one resource. Over HTTP it is a 412.
var ErrPreconditionFailed = errors.New("precondition failed")

// errMultipleMatches is wrapped by the error of a conditional interaction
// whose search matches more than one resource.
var errMultipleMatches = fmt.Errorf("%w", ErrPreconditionFailed)

// errNotSupported is wrapped by the error of an interaction the store does
// not offer (PATCH): a 405.
var errNotSupported = errors.New("not supported")

// BundleError reports a transaction the store did not apply (a transaction
// is all or nothing) because one of its entries failed. Err is the
// entry's failure, which decides the HTTP status: ErrNotFound 404,
// ErrGone 410, ErrPreconditionFailed 412, a LoadError or SearchError 400.
type BundleError struct {
	// Entry is the failing entry's index in the Bundle; Method and URL
	// are its request.
	Entry       int
	Method, URL string
	Err         error
}

func (e *BundleError) Error() string {
	return fmt.Sprintf("fhir: the transaction failed at entry %d (%s %s): %v", e.Entry, e.Method, e.URL, e.Err)
}

// Unwrap returns the entry's failure.
func (e *BundleError) Unwrap() error { return e.Err }

// Transaction and batch processing (R4 http.html#transaction): a
// transaction runs as one txn, its entries in R4's order (DELETE, POST,
// PUT, GET/HEAD); a batch runs each entry as its own txn, in the same
// order. The response lists the entries in the Bundle's order.
const (
	phaseDelete = iota
	phaseCreate
	phaseUpdate
	phaseRead
)

// op is one interaction: a Bundle entry's request, or a request the
// Handler received.
type op struct {
	index       int    // the entry's index in its Bundle; -1 for a lone request
	ptr         string // the entry's JSON pointer in its Bundle
	method, url string // as written
	typ, id     string
	vid         string     // vread
	history     bool       // Type/id/_history
	cond        bool       // the url has a query
	query       url.Values // its parameters
	fullURL     string
	body        gjson.Result // the resource (POST, PUT)
	bodyID      string       // the resource's id, if any
	ifNoneExist url.Values
	ifMatch     string
	base        string // the server's base URL (a lone request's)

	// Outcome.
	existing  *entry // a conditional create's match: nothing written
	status    int
	e         *entry        // the resource written, read or matched
	search    *searchResult // a search
	versions  []*entry      // a history, newest first
	firstKept bool          // its oldest is the first version
	err       error         // a batch entry's failure
}

func (o *op) phase() int {
	switch o.method {
	case "DELETE":
		return phaseDelete
	case "POST":
		return phaseCreate
	case "PUT":
		return phaseUpdate
	}
	return phaseRead
}

// key is the resource the op names, Type/id.
func (o *op) key() string { return o.typ + "/" + o.id }

// fail wraps an entry's problem as a LoadError at ptr below the entry.
func (o *op) fail(ptr string, err error) error {
	return &LoadError{Location: assert.Location{Pointer: o.ptr + ptr}, Err: err}
}

// parseQueryString reads a search's query string (a leading Type? is
// dropped). A + is a space, as in a form (rule 25): a zone offset's +
// travels as %2B.
func parseQueryString(raw string) (url.Values, error) {
	if _, q, ok := strings.Cut(raw, "?"); ok {
		raw = q
	}
	params, err := url.ParseQuery(raw)
	if err != nil {
		return nil, &SearchError{Param: "query", Value: raw, Err: fmt.Errorf("%w: %v", ErrBadValue, err)}
	}
	return params, nil
}

// encodeParams writes params as a query string in key order, a space as
// %20 and a + as %2B (rule 25), so that servers that read a + as a plus
// and those that read it as a space read it alike.
func encodeParams(params url.Values) string {
	return strings.ReplaceAll(params.Encode(), "+", "%20")
}

// parseURL reads a request's url (relative to the base) into o, checking
// that its shape suits o.method.
func (o *op) parseURL(raw string) error {
	bad := func(format string, args ...any) error { return o.fail("/request/url", fmt.Errorf(format, args...)) }
	if path, _, _ := strings.Cut(raw, "?"); strings.Contains(path, "://") {
		return bad("the url %q must be relative to the base (Type, Type/id, Type?query)", raw)
	}
	path, query, hasQuery := strings.Cut(strings.TrimPrefix(raw, "/"), "?")
	segs := strings.Split(path, "/")
	if !validType(segs[0]) {
		return bad("the url %q names no resource type", raw)
	}
	o.typ = segs[0]
	if len(segs) > 1 {
		if o.id = segs[1]; !validID(o.id) {
			return bad("bad id %q in the url (1 to 64 letters, digits, '-' and '.')", o.id)
		}
	}
	switch {
	case len(segs) == 3 && segs[2] == "_history":
		o.history = true
	case len(segs) == 4 && segs[2] == "_history" && segs[3] != "":
		o.vid = segs[3]
	case len(segs) > 2:
		return bad("the url %q is not Type, Type/id, Type/id/_history or Type/id/_history/vid", raw)
	}
	if hasQuery {
		params, err := parseQueryString(query)
		if err != nil {
			return err
		}
		o.cond, o.query = true, params
	}
	ok := false
	switch o.method {
	case "POST":
		ok = len(segs) == 1 && !hasQuery
	case "PUT", "DELETE":
		ok = len(segs) == 2 && !hasQuery || len(segs) == 1 && hasQuery
	default:
		ok = len(segs) == 1 || !hasQuery || o.history
	}
	if !ok {
		return bad("%s does not take the url %q (POST Type; PUT and DELETE Type/id or Type?query; GET Type?query, Type/id, Type/id/_history[/vid])", o.method, raw)
	}
	return nil
}

// checkBody checks the resource of a POST or PUT: a resource of the url's
// type, with meta an object (strict: a request; loading lets a malformed
// meta be) and, for PUT Type/id, no other id.
func (o *op) checkBody(data []byte, strict bool) error {
	ptr := "/resource"
	if o.index < 0 {
		ptr = ""
	}
	if !o.body.Exists() {
		return o.fail(ptr, fmt.Errorf("%s needs a resource", o.method))
	}
	p, err := parseResource(o.body, func() assert.Location { return at(data, "", o.ptr+ptr, o.body.Index) })
	if err != nil {
		return err
	}
	if p.typ != o.typ {
		return o.fail(ptr+"/resourceType", fmt.Errorf("resourceType %q is not the url's %q", p.typ, o.typ))
	}
	if meta := o.body.Get("meta"); strict && meta.Exists() && !meta.IsObject() {
		return o.fail(ptr+"/meta", errors.New("meta must be an object"))
	}
	o.bodyID = p.id
	if o.method == "PUT" && !o.cond && p.id != "" && p.id != o.id {
		return o.fail(ptr+"/id", fmt.Errorf("the resource's id %q is not the url's %q", p.id, o.id))
	}
	return nil
}

// do runs a lone request (Create, Update, Delete, and the Handler's
// conditional interactions) as one txn. body is the request's body (POST,
// PUT).
func (s *Store) do(o *op, body []byte) error {
	o.index = -1
	if !validType(o.typ) {
		return &LoadError{Err: fmt.Errorf("%q is not a resource type", o.typ)}
	}
	if o.id != "" && !validID(o.id) {
		return &LoadError{Err: fmt.Errorf("bad id %q in the URL (1 to 64 letters, digits, '-' and '.')", o.id)}
	}
	if o.method == "POST" || o.method == "PUT" {
		doc, err := parseDoc("", body, true)
		if err != nil {
			return err
		}
		o.body = doc
		if err := o.checkBody(body, true); err != nil {
			return err
		}
	}
	return s.write(false, func(x *txn) error {
		r := &bundleRun{x: x, base: o.base}
		if err := r.resolve(o); err != nil {
			return err
		}
		return r.apply(o)
	})
}

// bundleRun is the state of one Bundle's processing (or a lone request's).
type bundleRun struct {
	x  *txn
	tx bool // a transaction: identities may not overlap
	// urns maps the fullUrls of entries to the Type/id they resolved to
	// (nil for a lone request: no rewriting).
	urns map[string]string
	// claimed maps each Type/id a transaction changes to its entry.
	claimed map[string]int
	// refs caches resolved conditional references.
	refs map[string]string
	// base is the server's base URL, as searches compare absolute
	// references with it ("" for the store itself).
	base string
}

// find runs a conditional interaction's search.
func (r *bundleRun) find(typ string, params url.Values) ([]*entry, error) {
	res, err := r.x.s.searchLocked(typ, params, r.base)
	if err != nil {
		return nil, err
	}
	return res.entries, nil
}

// matches describes a count of matches for errors.
func matches(n int) string {
	if n == 1 {
		return "1 resource"
	}
	return strconv.Itoa(n) + " resources"
}

// findOne runs a conditional search that may match at most one resource:
// nil when none does, errMultipleMatches (with what, the condition as
// written, for the message) when several do.
func (r *bundleRun) findOne(typ string, params url.Values, what string) (*entry, error) {
	found, err := r.find(typ, params)
	switch {
	case err != nil:
		return nil, err
	case len(found) > 1:
		return nil, fmt.Errorf("%s matches %s: %w", what, matches(len(found)), errMultipleMatches)
	case len(found) == 1:
		return found[0], nil
	}
	return nil, nil
}

// resolve works out the resource a write names: a conditional delete's or
// update's match, a conditional create's match, a new resource's id.
func (r *bundleRun) resolve(o *op) error {
	switch o.method {
	case "DELETE":
		if !o.cond {
			return r.claim(o)
		}
		match, err := r.findOne(o.typ, o.query, "conditional delete "+o.url)
		if err != nil || match == nil {
			return err
		}
		o.id = match.id
		return r.claim(o)
	case "POST":
		if o.ifNoneExist != nil {
			match, err := r.findOne(o.typ, o.ifNoneExist, "ifNoneExist "+o.ifNoneExist.Encode())
			if err != nil {
				return err
			}
			if match != nil {
				o.existing, o.id = match, match.id
				return r.claim(o)
			}
		}
		o.id = r.mint(o.typ, o.fullURL)
		return r.claim(o)
	case "PUT":
		if !o.cond {
			return r.claim(o)
		}
		match, err := r.findOne(o.typ, o.query, "conditional update "+o.url)
		switch {
		case err != nil:
			return err
		case match != nil:
			if o.bodyID != "" && o.bodyID != match.id {
				return o.fail("/resource/id", fmt.Errorf("the resource's id %q is not that of the match, %s", o.bodyID, match.id))
			}
			o.id = match.id
		case o.bodyID != "":
			o.id = o.bodyID // update as create, with the client's id
		default:
			o.id = r.mint(o.typ, "")
		}
		return r.claim(o)
	}
	return nil
}

// mint returns a new id for typ that no entry has claimed.
func (r *bundleRun) mint(typ, fullURL string) string {
	for {
		id := r.x.mintID(typ, fullURL)
		if _, taken := r.claimed[typ+"/"+id]; !taken {
			return id
		}
		fullURL = ""
	}
}

// claim records the resource a transaction's entry changes: two entries
// may not change one resource (R4 http.html#trules).
func (r *bundleRun) claim(o *op) error {
	if !r.tx {
		return nil
	}
	if i, ok := r.claimed[o.key()]; ok {
		return o.fail("/request", fmt.Errorf("entries %d and %d both change %s (a transaction changes a resource once)", i, o.index, o.key()))
	}
	r.claimed[o.key()] = o.index
	return nil
}

// apply makes a resolved write.
func (r *bundleRun) apply(o *op) error {
	x := r.x
	switch o.method {
	case "DELETE":
		o.status = 204
		if o.id == "" {
			return nil // a conditional delete that matched nothing
		}
		if !x.del(o.typ, o.id) {
			return fmt.Errorf("%s: %w", o.key(), ErrNotFound)
		}
		return nil
	case "POST":
		if o.existing != nil {
			o.e, o.status = o.existing, 200
			return nil
		}
		raw, err := r.rewrite(o, withID(o.body.Raw, o.id))
		if err != nil {
			return err
		}
		o.e, o.status = x.put(o.typ, o.id, raw), 201
		return nil
	case "PUT":
		_, l, pos, ok := x.s.lookup(o.typ, o.id)
		exists := ok && !l.entries[pos].deleted
		if o.ifMatch != "" {
			want, _ := strings.CutPrefix(o.ifMatch, "W/")
			want = strings.Trim(want, `"`)
			switch {
			case !exists:
				return fmt.Errorf("If-Match %s: %s does not exist: %w", o.ifMatch, o.key(), ErrPreconditionFailed)
			case l.entries[pos].version != want:
				return fmt.Errorf("If-Match %s: %s is at version %s: %w", o.ifMatch, o.key(), l.entries[pos].version, ErrPreconditionFailed)
			}
		}
		raw, err := r.rewrite(o, withID(o.body.Raw, o.id))
		if err != nil {
			return err
		}
		o.e, o.status = x.put(o.typ, o.id, raw), 200
		if !exists {
			o.status = 201
		}
		return nil
	}
	return nil
}

// rewrite replaces the urn:uuid (and urn:oid) fullUrls of the Bundle's
// entries by the Type/id they resolved to, wherever a string of the
// resource equals one, and refuses a reference to a urn that no entry
// names.
func (r *bundleRun) rewrite(o *op, raw string) (string, error) {
	if r.urns == nil {
		return raw, nil
	}
	var err error
	walkReferences(gjson.Parse(raw), func(ptr func() string, v gjson.Result) bool {
		if strings.HasPrefix(v.Str, "urn:uuid:") || strings.HasPrefix(v.Str, "urn:oid:") {
			if _, ok := r.urns[v.Str]; !ok {
				err = o.fail("/resource"+ptr(), fmt.Errorf("the reference %q names no entry of the Bundle (no fullUrl is %[1]q)", v.Str))
				return false
			}
		}
		return true
	})
	if err != nil {
		return "", err
	}
	return rewriteURNs(raw, r.urns), nil
}

// walkReferences calls fn with every string "reference" member of v until
// fn returns false; ptr gives the member's JSON pointer (built only when
// asked: a Bundle has thousands of members). Nesting is bounded by
// MaxDepth, checked when the document was read.
func walkReferences(v gjson.Result, fn func(ptr func() string, v gjson.Result) bool) {
	var path []string
	ptr := func() string {
		var b strings.Builder
		for _, p := range path {
			b.WriteByte('/')
			b.WriteString(pointerEscaper.Replace(p))
		}
		return b.String()
	}
	var walk func(v gjson.Result) bool
	walk = func(v gjson.Result) bool {
		more := true
		i := 0
		v.ForEach(func(k, m gjson.Result) bool {
			name := k.Str
			if !v.IsObject() {
				name = strconv.Itoa(i)
				i++
			}
			path = append(path, name)
			switch {
			case name == "reference" && v.IsObject() && m.Type == gjson.String:
				more = fn(ptr, m)
			case m.IsObject() || m.IsArray():
				more = walk(m)
			}
			path = path[:len(path)-1]
			return more
		})
		return more
	}
	if v.IsObject() || v.IsArray() {
		walk(v)
	}
}

// conditionalRef splits a conditional reference, Type?query.
func conditionalRef(ref string) (typ, query string, ok bool) {
	typ, query, ok = strings.Cut(ref, "?")
	return typ, query, ok && validType(typ) && query != ""
}

// resolveRefs resolves the conditional references (Type?query) of the
// resource o wrote to their one match and returns the resource with them
// replaced ("" when it has none): no match is ErrNotFound, several
// ErrPreconditionFailed (R4 http.html#trules). It only searches: amending
// what a transaction wrote waits until every reference is resolved, so
// that the searches share the indexes a write would drop.
func (r *bundleRun) resolveRefs(o *op) (string, error) {
	if o.e == nil || o.existing != nil || o.e.deleted || !strings.Contains(o.e.raw, "?") {
		return "", nil
	}
	type edit struct {
		at, n int
		to    string
	}
	var edits []edit
	var err error
	walkReferences(gjson.Parse(o.e.raw), func(ptr func() string, v gjson.Result) bool {
		typ, query, ok := conditionalRef(v.Str)
		if !ok {
			return true
		}
		to, cached := r.refs[v.Str]
		if !cached {
			params, perr := parseQueryString(query)
			if perr != nil {
				err = o.fail("/resource"+ptr(), perr)
				return false
			}
			found, ferr := r.find(typ, params)
			switch {
			case ferr != nil:
				err = o.fail("/resource"+ptr(), ferr)
			case len(found) == 0:
				err = fmt.Errorf("/resource%s: the conditional reference %q matches nothing: %w", ptr(), v.Str, ErrNotFound)
			case len(found) > 1:
				err = fmt.Errorf("/resource%s: the conditional reference %q matches %s: %w", ptr(), v.Str, matches(len(found)), errMultipleMatches)
			}
			if err != nil {
				return false
			}
			to = typ + "/" + found[0].id
			r.refs[v.Str] = to
		}
		edits = append(edits, edit{v.Index, len(v.Raw), strconv.Quote(to)})
		return true
	})
	if err != nil || len(edits) == 0 {
		return "", err
	}
	var b strings.Builder
	last := 0
	for _, e := range edits {
		b.WriteString(o.e.raw[last:e.at])
		b.WriteString(e.to)
		last = e.at + e.n
	}
	b.WriteString(o.e.raw[last:])
	return b.String(), nil
}

// read runs a GET or HEAD entry.
func (r *bundleRun) read(o *op) error {
	s := r.x.s
	var err error
	switch {
	case o.vid != "":
		o.e, err = s.vreadLocked(o.typ, o.id, o.vid)
	case o.history:
		if _, err = historyQuery(o.query); err == nil {
			o.versions, o.firstKept, err = s.historyLocked(o.typ, o.id)
		}
	case o.id != "":
		o.e, err = s.readLocked(o.typ, o.id)
	default:
		var res searchResult
		if res, err = s.searchLocked(o.typ, o.query, r.base); err == nil {
			// The searchset holds the first page the query asks for, at
			// the package's page sizes, with what it includes.
			rc := render{pageSize: DefaultPageSize, maxPage: DefaultMaxPageSize}
			res.start, res.end, _ = rc.page(res.q, len(res.entries))
			if res.included, err = s.include(res.q, res.entries[res.start:res.end], r.base); err == nil {
				o.search = &res
			}
		}
	}
	if err == nil {
		o.status = 200
	}
	return err
}

// parseEntry reads entry i of a transaction or batch Bundle.
func parseEntry(data []byte, i int, e gjson.Result, strict bool) (*op, error) {
	o := &op{index: i, ptr: "/entry/" + strconv.Itoa(i)}
	if !e.IsObject() {
		return o, o.fail("", errors.New("an entry must be an object"))
	}
	req := e.Get("request")
	if !req.IsObject() {
		return o, o.fail("", errors.New("no request (an entry of a transaction or batch needs request.method and request.url; a collection Bundle stores resources as they are)"))
	}
	method := req.Get("method")
	o.method = method.Str
	switch {
	case method.Type != gjson.String:
		return o, o.fail("/request/method", errors.New("no request.method"))
	case o.method == "PATCH":
		return o, fmt.Errorf("%s/request/method: PATCH is %w by this store", o.ptr, errNotSupported)
	case !slices.Contains([]string{"GET", "HEAD", "POST", "PUT", "DELETE"}, o.method):
		return o, o.fail("/request/method", fmt.Errorf("unknown method %q (GET, HEAD, POST, PUT, DELETE)", o.method))
	}
	u := req.Get("url")
	if u.Type != gjson.String || u.Str == "" {
		return o, o.fail("/request/url", errors.New("no request.url"))
	}
	o.url = u.Str
	if err := o.parseURL(u.Str); err != nil {
		return o, err
	}
	if v := e.Get("fullUrl"); v.Exists() {
		if v.Type != gjson.String {
			return o, o.fail("/fullUrl", errors.New("fullUrl must be a string"))
		}
		o.fullURL = v.Str
	}
	if v := req.Get("ifNoneExist"); v.Exists() {
		if v.Type != gjson.String || v.Str == "" || o.method != "POST" {
			return o, o.fail("/request/ifNoneExist", errors.New("ifNoneExist is a non-empty query, on a POST"))
		}
		params, err := parseQueryString(v.Str)
		if err != nil {
			return o, o.fail("/request/ifNoneExist", err)
		}
		o.ifNoneExist = params
	}
	if v := req.Get("ifMatch"); v.Exists() {
		if v.Type != gjson.String || o.method != "PUT" {
			return o, o.fail("/request/ifMatch", errors.New("ifMatch is a version tag (W/\"3\"), on a PUT"))
		}
		o.ifMatch = v.Str
	}
	if o.method == "POST" || o.method == "PUT" {
		o.body = e.Get("resource")
		if err := o.checkBody(data, strict); err != nil {
			return o, err
		}
	}
	return o, nil
}

// bundle is a parsed transaction or batch.
type bundle struct {
	tx  bool
	ops []*op // in the Bundle's order
}

// processBundle applies a transaction or batch Bundle: load is true when
// loading a file (meta kept, no check of repeated keys or meta); file
// names it in errors. A transaction that fails returns a BundleError (or a
// BoundError, when the whole passes a bound) and changes nothing; a
// batch's entries fail one by one, each op holding its own error.
func (s *Store) processBundle(file string, data []byte, doc gjson.Result, load bool, base string) (*bundle, error) {
	if doc.Get("resourceType").Str != "Bundle" {
		return nil, &LoadError{Location: assert.Location{File: file, Pointer: "/resourceType"}, Err: errors.New("POST to the base takes a Bundle of type transaction or batch")}
	}
	b := &bundle{}
	switch bt := doc.Get("type"); bt.Str {
	case "transaction":
		b.tx = true
	case "batch":
	default:
		return nil, &LoadError{Location: assert.Location{File: file, Pointer: "/type"}, Err: fmt.Errorf("a Bundle of type %s is not processed (transaction or batch)", bt.Raw)}
	}
	entries := doc.Get("entry")
	if entries.Exists() && !entries.IsArray() {
		return nil, &LoadError{Location: assert.Location{File: file, Pointer: "/entry"}, Err: errors.New("entry must be an array")}
	}
	fullURLs := map[string]int{}
	var entryErr error
	i := 0
	entries.ForEach(func(_, e gjson.Result) bool {
		o, err := parseEntry(data, i, e, !load)
		if err == nil && o.fullURL != "" {
			if j, dup := fullURLs[o.fullURL]; dup {
				err = o.fail("/fullUrl", fmt.Errorf("entries %d and %d have the fullUrl %q", j, i, o.fullURL))
			}
			fullURLs[o.fullURL] = i
		}
		i++
		b.ops = append(b.ops, o)
		if err != nil {
			if b.tx {
				entryErr = &BundleError{Entry: o.index, Method: o.method, URL: o.url, Err: err}
				return false
			}
			o.err = err
		}
		return true
	})
	if entryErr != nil {
		return nil, entryErr
	}
	order := slices.Clone(b.ops)
	slices.SortStableFunc(order, func(a, b *op) int { return a.phase() - b.phase() })
	s.mu.Lock()
	defer s.mu.Unlock()
	if b.tx {
		return b, s.transaction(order, load, base)
	}
	s.batch(order, load, base)
	return b, nil
}

// transaction applies ops (in R4's order) as one txn; the caller holds the
// write lock.
func (s *Store) transaction(order []*op, load bool, base string) error {
	x := s.begin(load)
	r := &bundleRun{x: x, tx: true, urns: map[string]string{}, claimed: map[string]int{}, refs: map[string]string{}, base: base}
	fail := func(o *op, err error) error {
		x.rollback()
		return &BundleError{Entry: o.index, Method: o.method, URL: o.url, Err: err}
	}
	// Deletes first; then the identity of every create and update (plain
	// updates first: their ids are the client's), so that a reference to
	// any entry's fullUrl can be rewritten; then the writes, the
	// conditional references of what they wrote, and the reads.
	var writes []*op
	for _, o := range order {
		if o.method == "DELETE" {
			if err := r.resolve(o); err != nil {
				return fail(o, err)
			}
			if err := r.apply(o); err != nil {
				return fail(o, err)
			}
		}
		if o.method == "PUT" && !o.cond {
			if err := r.resolve(o); err != nil {
				return fail(o, err)
			}
		}
	}
	for _, o := range order {
		if o.method == "POST" || o.method == "PUT" {
			if o.method == "POST" || o.cond {
				if err := r.resolve(o); err != nil {
					return fail(o, err)
				}
			}
			if o.fullURL != "" {
				r.urns[o.fullURL] = o.key()
			}
			writes = append(writes, o)
		}
	}
	for _, o := range writes {
		if err := r.apply(o); err != nil {
			return fail(o, err)
		}
	}
	amended := make([]string, len(writes))
	for i, o := range writes {
		var err error
		if amended[i], err = r.resolveRefs(o); err != nil {
			return fail(o, err)
		}
	}
	for i, o := range writes {
		if amended[i] != "" {
			o.e = x.amend(o.typ, o.id, amended[i])
		}
	}
	for _, o := range order {
		if o.phase() == phaseRead {
			if err := r.read(o); err != nil {
				return fail(o, err)
			}
		}
	}
	return x.commit()
}

// batch applies each op (in R4's order) as its own txn; the caller holds
// the write lock. A failed op keeps its error.
func (s *Store) batch(order []*op, load bool, base string) {
	urns := map[string]string{}
	for _, o := range order {
		if o.err != nil {
			continue
		}
		x := s.begin(load)
		r := &bundleRun{x: x, urns: urns, refs: map[string]string{}, base: base}
		err := r.resolve(o)
		if err == nil && o.phase() == phaseRead {
			err = r.read(o)
		} else if err == nil {
			if err = r.apply(o); err == nil {
				var raw string
				if raw, err = r.resolveRefs(o); raw != "" {
					o.e = x.amend(o.typ, o.id, raw)
				}
			}
		}
		if err == nil {
			err = x.commit()
		} else {
			x.rollback()
		}
		if err != nil {
			o.err, o.e, o.status, o.search, o.versions = err, nil, 0, nil, nil
			continue
		}
		if o.fullURL != "" && o.id != "" && o.phase() != phaseRead {
			urns[o.fullURL] = o.key()
		}
	}
}

// loadTransaction applies a transaction Bundle read from file, keeping
// loaded meta; it returns how many resources it wrote.
func (s *Store) loadTransaction(file string, data []byte, doc gjson.Result) (int, error) {
	b, err := s.processBundle(file, data, doc, true, "")
	if err != nil {
		var le *LoadError
		var be *BundleError
		switch {
		case errors.As(err, &le):
			le.File = file
			if le.Line == 0 && le.Pointer != "" {
				if v := gjson.GetBytes(data, pointerPath(le.Pointer)); v.Index > 0 {
					le.Line, le.Column = assert.LineColumn(data, v.Index)
				}
			}
			return 0, le
		case errors.As(err, &be):
			return 0, &LoadError{Location: at(data, file, "/entry/"+strconv.Itoa(be.Entry), doc.Get("entry."+strconv.Itoa(be.Entry)).Index), Err: be.Err}
		}
		return 0, &LoadError{Location: assert.Location{File: file}, Err: err}
	}
	n := 0
	for _, o := range b.ops {
		if o.e != nil && o.existing == nil && (o.method == "POST" || o.method == "PUT") {
			n++
		}
	}
	return n, nil
}

// pointerPath turns a JSON pointer into a gjson path.
func pointerPath(ptr string) string {
	var parts []string
	for _, p := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		p = strings.NewReplacer("~1", "/", "~0", "~").Replace(p)
		parts = append(parts, gjsonEscape(p))
	}
	return strings.Join(parts, ".")
}

func gjsonEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '.', '*', '?', '|', '#', '@', '\\', '!', '=', '<', '>', '%':
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
