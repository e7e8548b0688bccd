package command

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/client"
)

func init() {
	register("criteria", subcommand{summary: "call the criteria API: list, get, create, update, delete",
		usage: "assay criteria list|get|create|update|delete [ID] [--task ID] [--file FILE] [--base-url URL]", run: runCriteria})
}

func criteriaUsage(w io.Writer) {
	fmt.Fprintln(w, `usage: assay criteria list|get|create|update|delete ...
  assay criteria list --task ID        every criterion of a task (all pages), as one JSON array
  assay criteria get ID
  assay criteria create --file FILE    FILE holds one criterion object, or a list of them
                                       (JSON or YAML; "-" reads stdin)
  assay criteria update ID --file FILE FILE holds only the fields to change; axis and
                                       input_entity_id may be null
  assay criteria delete ID

flags of every subcommand:
  --base-url URL   the API's base URL (default $ASSAY_BASE_URL)
the API key comes from $ASSAY_API_KEY.

prints the API's criteria as JSON on stdout; exits 1 on an API error (its code,
message and field details on stderr), 2 on bad usage or a bad file.`)
}

func runCriteria(ctx context.Context, c *cli, args []string) int {
	if len(args) == 0 {
		criteriaUsage(c.usageOut(c.stderr))
		return exitUsage
	}
	sub := args[0]
	switch sub {
	case "list", "get", "create", "update", "delete":
	case "-h", "--help", "help":
		criteriaUsage(c.usageOut(c.stdout))
		return exitOK
	default:
		c.eprintf("criteria: unknown subcommand %q", sub)
		criteriaUsage(c.usageOut(c.stderr))
		return exitUsage
	}
	name := "criteria " + sub
	fs := newFlags(name, c)
	baseURL := fs.String("base-url", "", "the API's base `URL` (default $ASSAY_BASE_URL)")
	var task, file *string
	switch sub {
	case "list":
		task = fs.String("task", "", "the task `ID` whose criteria to list")
	case "create", "update":
		file = fs.String("file", "", "`FILE` holding the JSON object to send (\"-\" for stdin)")
	}
	pos, ok := parseFlags(fs, c, args[1:])
	if !ok {
		return exitUsage
	}
	wantIDs := 0
	if sub == "get" || sub == "update" || sub == "delete" {
		wantIDs = 1
	}
	switch {
	case len(pos) < wantIDs:
		return c.badInput("%s: the criterion ID is missing (usage: assay %s ID)", name, name)
	case len(pos) > wantIDs:
		return c.badInput("%s: unexpected arguments %s", name, quoteList(pos[wantIDs:]))
	case task != nil && *task == "":
		return c.badInput("%s: --task ID is required", name)
	case file != nil && *file == "":
		return c.badInput("%s: --file FILE is required", name)
	}

	// Read the file before calling anything, so a bad file is exit 2 even
	// when the API is down.
	var creates []assert.Criterion
	createList := false
	var update client.CriterionUpdate
	if file != nil {
		data, err := c.readCriteriaFile(*file)
		if err != nil {
			return c.badInput("%s: %v", name, err)
		}
		var pos assert.Positions
		if assert.IsYAMLCriteria(*file, data) {
			js, p, yerr := assert.CriteriaYAML(data)
			if yerr != nil {
				return c.fileProblems(name, *file, assert.CriteriaErrors{yerr.(*assert.CriteriaError)}, nil)
			}
			data, pos = js, p
		}
		if sub == "create" {
			var problems assert.CriteriaErrors
			if creates, createList, problems = parseCreateFile(data); len(problems) > 0 {
				return c.fileProblems(name, *file, problems, pos)
			}
		} else if err := json.Unmarshal(data, &update); err != nil {
			return c.badInput("%s: %s: %v", name, *file, err)
		}
	}

	base := *baseURL
	if base == "" {
		base = c.getenv("ASSAY_BASE_URL")
	}
	if base == "" {
		return c.badInput("%s: no API base URL: pass --base-url URL or set ASSAY_BASE_URL", name)
	}
	api, err := client.New(base, client.WithAPIKey(c.getenv("ASSAY_API_KEY")), client.WithUserAgent("assay-cli"))
	if err != nil {
		return c.badInput("%s: %s", name, strings.TrimPrefix(err.Error(), "client: "))
	}

	var out any
	switch sub {
	case "list":
		list, err := api.Criteria.ListAll(ctx, *task)
		if err != nil {
			return c.criteriaFailure(name, err)
		}
		// Reduced to the eight criterion keys, so that what list prints is
		// always a valid criteria file, whatever the server added.
		rows := make([]client.Reduced, len(list))
		for i, cr := range list {
			rows[i] = client.Reduce(cr)
		}
		out = rows
	case "create":
		// Each in turn; on an error, what was created so far is printed
		// (so nothing is created twice on a retry) before the error.
		var made []client.Reduced
		for i, cr := range creates {
			got, _, err := api.Criteria.Create(ctx, cr)
			if err != nil {
				if len(made) > 0 {
					_ = writeJSON(c.stdout, made)
				}
				if createList {
					c.eprintf("%s: item %d of %d failed; %d created before it (printed above)", name, i, len(creates), len(made))
				}
				return c.criteriaFailure(name, err)
			}
			made = append(made, client.Reduce(*got))
		}
		if createList {
			out = made
		} else {
			out = made[0]
		}
	case "get", "update":
		var cr *assert.Criterion
		switch sub {
		case "get":
			cr, _, err = api.Criteria.Get(ctx, pos[0])
		default:
			cr, _, err = api.Criteria.Update(ctx, pos[0], update)
		}
		if err != nil {
			return c.criteriaFailure(name, err)
		}
		out = client.Reduce(*cr)
	case "delete":
		if _, err := api.Criteria.Delete(ctx, pos[0]); err != nil {
			return c.criteriaFailure(name, err)
		}
		out = struct {
			ID      string `json:"id"`
			Deleted bool   `json:"deleted"`
		}{pos[0], true}
	}
	if err := writeJSON(c.stdout, out); err != nil {
		c.eprintf("%s: writing output: %v", name, err)
		return exitUsage
	}
	return exitOK
}

// readCriteriaFile reads a file, or stdin for "-", as eval reads its
// inputs: a regular file (a FIFO is refused, not waited on) of at most
// check.DefaultMaxFileSize bytes; stdin is capped alike.
func (c *cli) readCriteriaFile(path string) ([]byte, error) {
	if path == "-" {
		data, err := io.ReadAll(io.LimitReader(c.stdin, check.DefaultMaxFileSize+1))
		if err == nil && int64(len(data)) > check.DefaultMaxFileSize {
			return nil, fmt.Errorf("stdin: larger than %d bytes", check.DefaultMaxFileSize)
		}
		return data, err
	}
	return readInputFile(path, check.DefaultMaxFileSize)
}

// criterionCreateKeys are the keys a created criterion may hold; id and created_at
// are the API's to assign.
var criterionCreateKeys = map[string]bool{
	"task_id": true, "input_entity_id": true, "label": true, "assertion": true, "weight": true, "axis": true,
}

// parseCreateFile reads what create --file holds: one criterion object, or
// a list of them (a criteria file, as list prints it, or {"data": [...]}),
// each checked as parseCriterionFile checks one. Every problem of every
// item is returned at once, at its pointer in the file (/1/wieght).
func parseCreateFile(data []byte) (out []assert.Criterion, list bool, problems assert.CriteriaErrors) {
	trimmed := bytes.TrimSpace(data)
	var items []json.RawMessage
	prefix := ""
	switch {
	case len(trimmed) > 0 && trimmed[0] == '[':
		if err := json.Unmarshal(trimmed, &items); err != nil {
			return nil, true, assert.CriteriaErrors{{Message: "not a JSON list of criteria: " + err.Error(), Err: err}}
		}
		list = true
	case len(trimmed) > 0 && trimmed[0] == '{' && bytes.Contains(trimmed, []byte(`"data"`)):
		var resp struct {
			Data *[]json.RawMessage `json:"data"`
		}
		if json.Unmarshal(trimmed, &resp) == nil && resp.Data != nil {
			items, list, prefix = *resp.Data, true, "/data"
			break
		}
		fallthrough
	default:
		var cr assert.Criterion
		if problems := parseCriterionFile(data, &cr); len(problems) > 0 {
			return nil, false, problems
		}
		return []assert.Criterion{cr}, false, nil
	}
	if len(items) == 0 {
		return nil, true, assert.CriteriaErrors{{Message: "the list is empty: nothing to create"}}
	}
	out = make([]assert.Criterion, len(items))
	for i, item := range items {
		for _, ce := range parseCriterionFile(item, &out[i]) {
			ce.Pointer = assert.IndexPointer(prefix, i) + ce.Pointer
			problems = append(problems, ce)
		}
	}
	if len(problems) > 0 {
		return nil, true, problems
	}
	return out, true, nil
}

// criterionCreateKeyList is criterionCreateKeys in the order a criterion
// holds them, for messages.
var criterionCreateKeyList = []string{"task_id", "input_entity_id", "label", "assertion", "weight", "axis"}

// parseCriterionFile reads one criterion object, rejecting unknown keys (a
// typo such as "wieght" must not silently become the default weight, and
// is answered with the key meant) and the API-assigned id and created_at:
// every problem, each at its pointer within the object.
func parseCriterionFile(data []byte, dst *assert.Criterion) assert.CriteriaErrors {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil || fields == nil {
		if err == nil {
			err = errors.New("null")
		}
		return assert.CriteriaErrors{{Message: "not a JSON object: " + err.Error(), Err: err}}
	}
	var problems assert.CriteriaErrors
	for _, k := range sortedKeys(fields) {
		ptr := "/" + assert.EscapePointer(k)
		switch {
		case k == "id" || k == "created_at":
			problems = append(problems, &assert.CriteriaError{Pointer: ptr, Message: "assigned by the API; remove it"})
		case !criterionCreateKeys[k]:
			problems = append(problems, &assert.CriteriaError{Pointer: ptr, Message: assert.UnknownCriterionKey(k, criterionCreateKeyList)})
		}
	}
	if len(problems) > 0 {
		return problems
	}
	err := dst.UnmarshalJSON(data)
	if err == nil {
		return nil
	}
	var list assert.CriteriaErrors
	var one *assert.CriteriaError
	switch {
	case errors.As(err, &list):
		return list
	case errors.As(err, &one):
		return assert.CriteriaErrors{one}
	}
	return assert.CriteriaErrors{{Message: err.Error(), Err: err}}
}

// fileProblems prints every problem of a --file as validate prints it,
// located by line:column when the file is YAML (pos), and returns exit
// code 2.
func (c *cli) fileProblems(name, file string, problems assert.CriteriaErrors, pos assert.Positions) int {
	for _, ce := range problems {
		if pos != nil && ce.Line == 0 {
			if p, ok := locateIn(pos, ce.Pointer); ok {
				ce.Position = p
			}
		}
	}
	for _, p := range criteriaProblems(file, problems) {
		c.eprintf("%s: %s", name, p)
	}
	return exitUsage
}

// criteriaFailure prints a failed call and returns exit code 1: an API error
// with its code, message, request id and one line per field detail.
func (c *cli) criteriaFailure(name string, err error) int {
	var apiErr *client.APIError
	if errors.As(err, &apiErr) {
		var b strings.Builder
		fmt.Fprintf(&b, "%s: HTTP %d", name, apiErr.StatusCode)
		if apiErr.Code != "" {
			fmt.Fprintf(&b, " %s", apiErr.Code)
		}
		fmt.Fprintf(&b, ": %s", apiErr.Message)
		if apiErr.RequestID != "" {
			fmt.Fprintf(&b, " (request id %s)", apiErr.RequestID)
		}
		c.eprintf("%s", b.String())
		for _, d := range apiErr.Details {
			c.eline(fmt.Sprintf("  %s", d))
		}
		return exitFail
	}
	c.eprintf("%s: %s", name, strings.TrimPrefix(err.Error(), "client: "))
	return exitFail
}
