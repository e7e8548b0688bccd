package portalsim_test

import (
	"encoding/base64"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/assaykit/assay/internal/browsertest"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the screenshots under screenshots/")

// unlabelled lists the form controls of the page that no <label for>
// names (hidden inputs carry no label by design).
const unlabelled = `Array.from(document.querySelectorAll('input, select, textarea'))
  .filter(el => el.type !== 'hidden')
  .filter(el => !el.id || !document.querySelector('label[for="' + CSS.escape(el.id) + '"]'))
  .map(el => el.name || el.outerHTML)`

// TestBrowser drives the web UI in a real headless Chromium: sign in,
// search a patient, send a request through the form (once with a mistake),
// upload a document, read the status page, list the requests and sign out;
// every page has a label for each input and logs no console error, and
// the rows match those the REST API makes from the same input (channel
// aside). With -update it rewrites the screenshots of each page.
func TestBrowser(t *testing.T) {
	sb := newSandbox(t, nil)
	tr := sb.newRun("ui")

	browser := browsertest.Start(t, 1024, 768)
	ctx := browser.Ctx

	// page checks the page the browser shows: its heading, a label for
	// every input, no console error so far, and takes its screenshot.
	page := func(name, heading string) {
		t.Helper()
		h1, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("h1")))
		if err != nil || !strings.Contains(h1, heading) {
			html, _ := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("main")))
			t.Fatalf("%s: heading %q (%v), want %q\n%s", name, h1, err, heading, html)
		}
		missing, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](unlabelled))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(missing) > 0 {
			t.Errorf("%s: inputs without a <label for>: %v", name, missing)
		}
		for _, m := range browser.Problems() {
			t.Errorf("%s: console %s (%s)", name, m, m.URL)
		}
		if *update {
			png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join("screenshots", name+".png"), png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	// submit clicks a form's button and waits for the page it leads to.
	submit := func(button string, wantStatus int64) {
		t.Helper()
		resp, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(button)))
		if err != nil {
			t.Fatalf("clicking %s: %v", button, err)
		}
		if resp.Status != wantStatus {
			t.Fatalf("clicking %s: HTTP %d, want %d", button, resp.Status, wantStatus)
		}
	}
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("reading %s: %v", sel, err)
		}
		return strings.TrimSpace(s)
	}

	// Sign in.
	do("opening the portal", chromedp.Navigate(tr.portal))
	page("1-login", "Sign in")
	do("filling the login form",
		chromedp.SendKeys(chromedp.CSS("#username"), tr.username),
		chromedp.SendKeys(chromedp.CSS("#password"), tr.password))
	submit("main form button[type=submit]", 200)

	// Search a patient.
	page("2-start", "Find a patient")
	do("filling the search",
		chromedp.SendKeys(chromedp.CSS("#last_name"), "doe"),
		chromedp.SetValue(chromedp.CSS("#birth_date"), "1984-03-12"))
	submit("form[role=search] button", 200)
	page("3-search", "Find a patient")
	if got := text("tbody td.mono"); got != "W123456789" {
		t.Fatalf("search result: %q", got)
	}

	// The request form, first with a provider NPI that is not one.
	if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`td a[href*="prior-auths/new"]`))); err != nil {
		t.Fatal(err)
	}
	if v, _ := chromedp.Run(ctx, chromedp.Value(chromedp.CSS("#patient_member_id"))); v != "W123456789" {
		t.Errorf("the form's member id: %q", v)
	}
	do("filling the request",
		chromedp.SendKeys(chromedp.CSS("#procedure_code"), "73721"),
		chromedp.SendKeys(chromedp.CSS("#provider_npi"), "1234567890"),
		chromedp.SetValue(chromedp.CSS("#service_date"), "2026-03-10"),
		chromedp.SendKeys(chromedp.CSS("#diagnosis_codes"), "M25.561, S83.2"),
		chromedp.SendKeys(chromedp.CSS("#units"), "1"),
		chromedp.SendKeys(chromedp.CSS("#request_id"), "REQ-UI-1"),
		chromedp.SendKeys(chromedp.CSS("#notes"), "Left knee pain for six weeks; X-ray normal."))
	page("4-request-form", "New prior authorization request")
	submit(`form[action$="/prior-auths"] button[type=submit]`, 400)
	if got := text("#provider_npi-error"); !strings.Contains(got, "not a valid NPI") {
		t.Errorf("the NPI's error: %q", got)
	}
	// A 400 answer is logged by the browser as a failed resource load: that
	// one is expected here, any other is not.
	for _, m := range browser.Problems() {
		if !(m.Source == "network" && strings.Contains(m.Text, "status of 400")) {
			t.Errorf("after the refused form: console %s (%s)", m, m.URL)
		}
	}
	page("5-request-errors", "New prior authorization request")
	do("correcting the NPI", chromedp.SetValue(chromedp.CSS("#provider_npi"), "1234567893"))
	submit(`form[action$="/prior-auths"] button[type=submit]`, 200)

	// The status page.
	page("6-status", "Prior authorization PA-000001")
	if got := text("#status"); got != "Approved" {
		t.Errorf("status: %q", got)
	}
	if got := text("#certification_number"); got != "AUTH000001" {
		t.Errorf("certification number: %q", got)
	}

	// Upload a document.
	doc := filepath.Join(t.TempDir(), "knee-notes.pdf")
	content := []byte("%PDF-1.4\n% knee notes\n")
	if err := os.WriteFile(doc, content, 0o644); err != nil {
		t.Fatal(err)
	}
	do("choosing the file",
		chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{doc}),
		chromedp.SetValue(chromedp.CSS("#document_type"), "clinical_notes"))
	submit(`form[enctype="multipart/form-data"] button[type=submit]`, 200)
	page("7-uploaded", "Prior authorization PA-000001")
	if got := text(".flash"); got != "knee-notes.pdf was uploaded as ATT-000001." {
		t.Errorf("after the upload: %q", got)
	}
	if got := text("tbody td.mono"); got != "ATT-000001" {
		t.Errorf("the attachments table: %q", got)
	}

	// The list of requests, then sign out.
	if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`nav a[href$="/prior-auths"]`))); err != nil {
		t.Fatal(err)
	}
	page("8-requests", "Prior authorization requests")
	submit("nav button[type=submit]", 200)
	page("9-signed-out", "Sign in")

	// The same request and document through the REST API make the same
	// rows, but for the numbers and the channel.
	apiRow := tr.api("POST", "/prior-auths", `{"patient_member_id": "W123456789", "procedure_code": "73721", "provider_npi": "1234567893", "service_date": "2026-03-10", "diagnosis_codes": ["M25.561", "S83.2"], "units": 1, "request_id": "REQ-UI-1", "notes": "Left knee pain for six weeks; X-ray normal."}`)
	webRow := tr.api("GET", "/prior-auths/PA-000001", "")
	if apiRow.status != 201 || webRow.status != 200 {
		t.Fatalf("rows: %s %s", apiRow.body, webRow.body)
	}
	if webRow.json("channel").Str != "web" || apiRow.json("channel").Str != "api" {
		t.Errorf("channels: web %s, api %s", webRow.json("channel"), apiRow.json("channel"))
	}
	numbersAside := func(body string, keys ...string) map[string]any {
		var m map[string]any
		json.Unmarshal([]byte(body), &m)
		for _, k := range keys {
			delete(m, k)
		}
		return m
	}
	ignore := []string{"auth_number", "certification_number", "channel"}
	if diff := cmp.Diff(numbersAside(webRow.body, ignore...), numbersAside(apiRow.body, ignore...)); diff != "" {
		t.Errorf("the web's row and the API's differ (-web +api):\n%s", diff)
	}
	apiAtt := tr.api("POST", "/prior-auths/PA-000002/attachments", `{"filename": "knee-notes.pdf", "document_type": "clinical_notes", "content_base64": "`+base64.StdEncoding.EncodeToString(content)+`"}`)
	webAtt := tr.api("GET", "/prior-auths/PA-000001/attachments", "")
	ignore = []string{"attachment_id", "auth_number"}
	if diff := cmp.Diff(numbersAside(webAtt.json("data.0").Raw, ignore...), numbersAside(apiAtt.body, ignore...)); diff != "" || apiAtt.status != 201 {
		t.Errorf("the web's attachment and the API's differ (-web +api):\n%s", diff)
	}
	// The web's actions are events of channel web.
	var actions []string
	for _, e := range tr.events() {
		if e.Get("channel").Str == "web" {
			actions = append(actions, e.Get("action").Str+"/"+e.Get("status").Raw)
		}
	}
	want := []string{"login/303", "search/200", "submit/400", "submit/303", "view/200", "attach/303", "view/200", "search/200"}
	if diff := cmp.Diff(want, actions); diff != "" {
		t.Errorf("web events (-want +got):\n%s", diff)
	}
}
