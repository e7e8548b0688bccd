package portalsim

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/assaykit/assay/internal/strictjson"
	"github.com/assaykit/assay/payer"
	"github.com/assaykit/assay/serve/internal/sim"
)

// Bounds of an upload's other fields.
const (
	maxFilename     = 255
	maxDocumentType = 64
	maxFormField    = 1 << 10
)

// stampLayout writes times as the payer's rows do: RFC 3339, UTC, seconds.
const stampLayout = "2006-01-02T15:04:05Z"

func timeParseDate(s string) (time.Time, error) { return time.Parse(payer.DateLayout, s) }

// upload is an attachment as a request gave it.
type upload struct {
	filename     string
	documentType string
	data         []byte
	csrf         string // the web form's token
	fields       map[string]bool
}

// budgetReader reads a body while holding what it read in the sandbox's
// memory budget, and remembers why reading stopped.
type budgetReader struct {
	r        io.Reader
	run      sim.Run
	held     int64
	field    string // the field a body over MaxUpload is blamed on
	tooLarge bool
	noMemory bool
}

func (b *budgetReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if n > 0 {
		if rerr := b.run.Reserve(int64(n)); rerr != nil {
			b.noMemory = true
			return 0, rerr
		}
		b.held += int64(n)
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		b.tooLarge = true
	}
	return n, err
}

// readError says why reading an upload failed.
func (b *budgetReader) readError(err error) *apiError {
	switch {
	case b.tooLarge:
		return &apiError{status: http.StatusRequestEntityTooLarge, code: "PAYLOAD_TOO_LARGE",
			message: fmt.Sprintf("an upload's request body holds at most %d bytes (16 MiB), the file and the form's other fields together", MaxUpload),
			details: []fieldProblem{{b.field, "makes the request body larger than 16 MiB"}}}
	case b.noMemory:
		return &apiError{status: http.StatusInsufficientStorage, code: "INSUFFICIENT_STORAGE", message: sim.ErrMemory.Error()}
	}
	return invalid("body", "reading the upload: %v", err)
}

// attach reads an upload for the request auth and stores it. The body is
// JSON {"filename", "document_type"?, "content_base64"} or multipart
// (file, document_type); a web upload (sess set) must be multipart and
// carry the session's CSRF token.
func (rs *runSim) attach(w http.ResponseWriter, req *http.Request, auth string, sess *session) (attachmentRow, *apiError) {
	if _, ok := rs.lookup(auth); !ok {
		return attachmentRow{}, notFound("no prior-authorization request %q", auth)
	}
	mediaType, params, _ := mime.ParseMediaType(req.Header.Get("Content-Type"))
	multi := mediaType == "multipart/form-data"
	if sess != nil && !multi {
		return attachmentRow{}, invalid("file", "the upload form is sent as multipart/form-data")
	}
	limit := int64(MaxUpload)
	body := &budgetReader{r: http.MaxBytesReader(w, req.Body, limit), run: rs.run, field: "content_base64"}
	if multi {
		body.field = "file"
	}
	if req.ContentLength > limit {
		// Refused before a byte is read.
		body.tooLarge = true
		return attachmentRow{}, body.readError(nil)
	}
	kept := int64(0)
	defer func() { rs.run.Release(body.held - kept) }()

	var up upload
	var e *apiError
	if multi {
		up, e = readMultipart(body, params["boundary"], sess != nil)
	} else {
		up, e = readJSONUpload(body)
	}
	if e != nil {
		return attachmentRow{}, e
	}
	if sess != nil && !sess.validCSRF(up.csrf) {
		return attachmentRow{}, errCSRF
	}
	if e := checkUpload(&up); e != nil {
		return attachmentRow{}, e
	}
	if int64(len(up.data)) > body.held {
		// Not expected (the bytes came through the reader), but the
		// budget must hold what is kept.
		if err := rs.run.Reserve(int64(len(up.data)) - body.held); err != nil {
			return attachmentRow{}, &apiError{status: http.StatusInsufficientStorage, code: "INSUFFICIENT_STORAGE", message: err.Error()}
		}
		body.held = int64(len(up.data))
	}
	row, e := rs.store(auth, up)
	if e == nil {
		kept = int64(len(up.data))
	}
	return row, e
}

// errCSRF answers a form whose token is not its session's.
var errCSRF = &apiError{status: http.StatusForbidden, code: "FORBIDDEN", message: "the form's CSRF token is not this session's: reload the page and send the form again"}

func readMultipart(body *budgetReader, boundary string, web bool) (upload, *apiError) {
	if boundary == "" {
		return upload{}, invalid("body", "a multipart/form-data body needs a boundary parameter")
	}
	up := upload{fields: map[string]bool{}}
	mr := multipart.NewReader(body, boundary)
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return upload{}, body.readError(err)
		}
		name := part.FormName()
		if up.fields[name] {
			return upload{}, invalid(name, "is given twice; give it once")
		}
		up.fields[name] = true
		switch {
		case name == "file":
			up.filename = part.FileName()
			data, err := io.ReadAll(part) // bounded by the body's cap
			if err != nil {
				return upload{}, body.readError(err)
			}
			up.data = data
		case name == "document_type" || (web && name == "csrf_token"):
			data, err := io.ReadAll(io.LimitReader(part, maxFormField+1))
			if err != nil {
				return upload{}, body.readError(err)
			}
			if len(data) > maxFormField {
				return upload{}, invalid(name, "is longer than %d bytes", maxFormField)
			}
			if name == "document_type" {
				up.documentType = string(data)
			} else {
				up.csrf = string(data)
			}
		default:
			return upload{}, invalid(name, "is not a field of an upload (the fields are file and document_type)")
		}
		part.Close()
	}
	if !up.fields["file"] {
		return upload{}, invalid("file", "the upload has no file: send the document as the multipart field \"file\"")
	}
	return up, nil
}

// attachBody is the JSON form of an upload.
type attachBody struct {
	Filename      string  `json:"filename" strict:"required"`
	DocumentType  *string `json:"document_type"`
	ContentBase64 string  `json:"content_base64" strict:"required"`
}

func readJSONUpload(body *budgetReader) (upload, *apiError) {
	data, err := io.ReadAll(body)
	if err != nil {
		return upload{}, body.readError(err)
	}
	var b attachBody
	if err := strictjson.Decode(data, &b); err != nil {
		return upload{}, strictError(err)
	}
	content, err := base64.StdEncoding.DecodeString(b.ContentBase64)
	if err != nil {
		var rerr error
		if content, rerr = base64.RawStdEncoding.DecodeString(b.ContentBase64); rerr != nil {
			return upload{}, invalid("content_base64", "is not base64: %v", err)
		}
	}
	up := upload{filename: b.Filename, data: content}
	if b.DocumentType != nil {
		up.documentType = *b.DocumentType
	}
	return up, nil
}

// checkUpload checks and tidies an upload's fields: the filename without
// any folder, printable, at most 255 bytes; the document type at most 64
// characters; a file that is not empty.
func checkUpload(up *upload) *apiError {
	name := up.filename
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return invalid("file", "choose a file to upload (it needs a file name)")
	case len(name) > maxFilename:
		return invalid("filename", "is longer than %d bytes", maxFilename)
	case !printable(name):
		return invalid("filename", "holds characters that are not printable text")
	case len(up.data) == 0:
		return invalid("file", "%q is empty", name)
	}
	up.filename = name
	up.documentType = strings.TrimSpace(up.documentType)
	if utf8.RuneCountInString(up.documentType) > maxDocumentType || !printable(up.documentType) {
		return invalid("document_type", "must be printable text of at most %d characters", maxDocumentType)
	}
	return nil
}

func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// store keeps an upload as the next attachment of the run.
func (rs *runSim) store(auth string, up upload) (attachmentRow, *apiError) {
	sum := sha256.Sum256(up.data)
	row := attachmentRow{
		AuthNumber: auth,
		Filename:   up.filename,
		Size:       len(up.data),
		SHA256:     hex.EncodeToString(sum[:]),
		Uploaded:   true,
		UploadedAt: rs.run.Now().UTC().Format(stampLayout),
	}
	if up.documentType != "" {
		row.DocumentType = &up.documentType
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.attBytes+int64(len(up.data)) > MaxRunAttachments {
		return attachmentRow{}, &apiError{status: http.StatusRequestEntityTooLarge, code: "PAYLOAD_TOO_LARGE",
			message: fmt.Sprintf("a run's attachments hold at most %d bytes (256 MiB) together; this run's hold %d", MaxRunAttachments, rs.attBytes),
			details: []fieldProblem{{"file", "the run's attachments are full"}}}
	}
	for {
		row.AttachmentID = fmt.Sprintf("ATT-%06d", rs.run.Next("attachment"))
		if !rs.sim.rows.attachmentIDs[row.AttachmentID] {
			break
		}
	}
	rs.attachments = append(rs.attachments, &attachment{row: row, data: up.data})
	rs.attBytes += int64(len(up.data))
	return row, nil
}
