package filesim

import (
	"errors"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/assaykit/assay/serve/internal/sim"
)

// entry is one file of GET files, and the answer of PUT files/PATH.
type entry struct {
	Path     string `json:"path"`
	Size     int64  `json:"size"`
	Modified string `json:"modified"`
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

// ServeHTTP serves the files API: GET files?prefix=P, and GET, PUT and
// DELETE files/PATH.
func (rf *runFiles) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/files")
	if !ok || (rest != "" && rest[0] != '/') {
		sim.WriteJSONError(w, http.StatusNotFound, "NOT_FOUND", "no endpoint "+strconv.Quote(r.URL.Path), nil)
		return
	}
	rest = strings.TrimPrefix(rest, "/")
	if rest == "" {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			rf.refuse(methodOp(r.Method), "", 0, "http", http.StatusMethodNotAllowed, r.Method+" is not allowed on the listing")
			sim.MethodNotAllowed(w, r, "GET")
			return
		}
		rf.serveList(w, r)
		return
	}
	p, err := httpPath(rest)
	if err != nil {
		rf.fail(w, methodOp(r.Method), rest, 0, err)
		return
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		rf.serveFile(w, r, p)
	case http.MethodPut:
		rf.servePut(w, r, p)
	case http.MethodDelete:
		if err := rf.remove(p, "", "http"); err != nil {
			rf.fail(w, "remove", p, 0, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	default:
		rf.refuse(methodOp(r.Method), p, 0, "http", http.StatusMethodNotAllowed, r.Method+" is not allowed on a file")
		sim.MethodNotAllowed(w, r, "GET, PUT, DELETE")
	}
}

// methodOp names the operation an HTTP method asks of a file, for the
// event of a refused request: GET and HEAD read, DELETE removes, any other
// method tries to write.
func methodOp(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead:
		return "read"
	case http.MethodDelete:
		return "remove"
	}
	return "write"
}

// serveList lists the regular files whose path starts with the prefix
// query parameter, in byte order of path.
func (rf *runFiles) serveList(w http.ResponseWriter, r *http.Request) {
	prefix := strings.TrimPrefix(r.URL.Query().Get("prefix"), "/")
	rf.mu.Lock()
	start := rf.run.Started()
	data := []entry{}
	for p, f := range rf.t.files {
		if strings.HasPrefix(p, prefix) {
			data = append(data, entry{Path: p, Size: int64(len(f.data)), Modified: stamp(orStart(f.mod, start))})
		}
	}
	rf.mu.Unlock()
	slices.SortFunc(data, func(a, b entry) int { return strings.Compare(a.Path, b.Path) })
	sim.WriteJSON(w, http.StatusOK, map[string]any{"data": data})
}

func (rf *runFiles) serveFile(w http.ResponseWriter, r *http.Request, p string) {
	data, mod, err := rf.read(p)
	if err != nil {
		if errors.Is(err, errIsFolder) {
			err = pathError("open", p, fs.ErrNotExist) // a folder is not a file of the API
		}
		// A read that finds nothing is an answer, not a refusal: no event.
		writeError(w, err)
		return
	}
	ct := mime.TypeByExtension(path.Ext(p))
	if ct == "" {
		ct = "application/octet-stream"
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.Header().Set("Last-Modified", mod.UTC().Format(http.TimeFormat))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(data)
	}
}

// servePut writes the body as the file p, making its folders: 201 for a
// new file, 200 when it replaced one.
func (rf *runFiles) servePut(w http.ResponseWriter, r *http.Request, p string) {
	// A file's upload may be as large as the tree's per-file cap (64 MiB),
	// over HTTP as over SFTP: DESIGN 13's size rules name "an SFTP or
	// files upload", which rules over the general 16 MiB body cap.
	body, err := sim.ReadBody(w, r, MaxFileSize)
	switch {
	case errors.Is(err, sim.ErrTooLarge):
		rf.fail(w, "write", p, 0, pathError("write", p, errFileSize))
		return
	case err != nil:
		rf.refuse("write", p, 0, "http", http.StatusBadRequest, err.Error())
		sim.WriteJSONError(w, http.StatusBadRequest, "VALIDATION_ERROR", err.Error(), nil)
		return
	}
	replaced, mod, err := rf.put(p, body, true, "http", 0)
	if err != nil {
		rf.fail(w, "write", p, int64(len(body)), err)
		return
	}
	status := http.StatusCreated
	if replaced {
		status = http.StatusOK
	}
	sim.WriteJSON(w, status, entry{Path: p, Size: int64(len(body)), Modified: stamp(mod)})
}

// fail answers a refused request with its HTTP status and records it as
// an sftp_op event with that status and the error.
func (rf *runFiles) fail(w http.ResponseWriter, op, p string, size int64, err error) {
	status := writeError(w, err)
	rf.refuse(op, p, size, "http", status, err.Error())
}

// writeError answers a failed operation with its HTTP status, and returns
// the status.
func writeError(w http.ResponseWriter, err error) int {
	status, code := http.StatusInternalServerError, "INTERNAL"
	switch {
	case errors.Is(err, errInvalid):
		status, code = http.StatusBadRequest, "VALIDATION_ERROR"
	case errors.Is(err, fs.ErrNotExist):
		status, code = http.StatusNotFound, "NOT_FOUND"
	case errors.Is(err, fs.ErrExist), errors.Is(err, errNotFolder), errors.Is(err, errIsFolder),
		errors.Is(err, errNotEmpty), errors.Is(err, errRoot), errors.Is(err, errStopped):
		status, code = http.StatusConflict, "CONFLICT"
	case errors.Is(err, errFileSize):
		status, code = http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE"
	case errors.Is(err, errTreeSize), errors.Is(err, errEntries), errors.Is(err, sim.ErrMemory):
		status, code = http.StatusInsufficientStorage, "INSUFFICIENT_STORAGE"
	}
	sim.WriteJSONError(w, status, code, err.Error(), nil)
	return status
}
